#!/usr/bin/env bash
# Installs what vred's build, tests and benchmarks need, if missing. Idempotent and quiet when
# everything is there. Usage: scripts/install-deps.sh [build|test|bench|fortran]
# (fortran: also Debian's Quantum ESPRESSO, for bench/run_fortran.sh)
set -euo pipefail
what=${1:-test}

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
# A Debian package, by name: installed or queued for installation.
want() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' || need_apt+=("$1")
}

# gfortran: the Fortran tests (tests/fortran) and programs (bench/run_fortran.sh)
for p in cmake gcc gfortran make pkg-config libopenmpi-dev openmpi-bin libmpich-dev mpich \
         libhwloc-dev hwloc; do
  want "$p"
done
# a real Fortran MPI application and its example pseudopotentials (bench/run_fortran.sh)
if [ "$what" = fortran ]; then want quantum-espresso; want quantum-espresso-data; fi
if [ "$what" != build ]; then
  # the cross compiler only recommends its C library; the cross build needs its headers and crt
  for p in gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user valgrind clang; do want "$p"; done
  # the hardening tests: strace (segments' open flags and modes; VRED_DISABLE opens none), gdb
  # (VRED_DISABLE runs no kernel), util-linux (unshare, setpriv), binutils (nm, objdump, readelf)
  for p in strace gdb util-linux binutils; do want "$p"; done
fi

sudo=""
[ "$(id -u)" = 0 ] || ! have sudo || sudo=sudo
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "vred: installing ${need_apt[*]}"
  if [ "$(id -u)" != 0 ] && [ -z "$sudo" ]; then
    echo "vred: need root (or sudo) to apt-get install: ${need_apt[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# libFuzzer (make test-fuzz) ships in clang's runtime package, libclang-rt-<major>-dev, which
# clang only recommends: name it for the clang that is installed.
# (Before clang 14, Debian shipped it inside libclang-common-<major>-dev: nothing to add then.)
if [ "$what" != build ] && have clang &&
   ! ls "$(clang -print-resource-dir)"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
  rt=libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev
  echo "vred: installing $rt (libFuzzer)"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "$rt" >/dev/null
fi

# The plots: matplotlib for the python3 on PATH. pip where that python has it (pyenv, venv),
# Debian's package for Debian's own python3. Plots are optional: never fail the benchmark for them.
if [ "$what" = bench ] && ! python3 -c 'import matplotlib' 2>/dev/null; then
  echo "vred: installing matplotlib for the plots"
  if [ "$(command -v python3)" = /usr/bin/python3 ]; then
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends python3-matplotlib; } >/dev/null 2>&1 || true
  else
    python3 -m pip install --quiet --disable-pip-version-check matplotlib || true
  fi
  python3 -c 'import matplotlib' 2>/dev/null || echo "vred: matplotlib unavailable: tables and CSV only, no plots"
fi
exit 0
