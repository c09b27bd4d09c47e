#!/usr/bin/env bash
# Installs what vred's build, tests and benchmarks need, if missing. Idempotent and quiet when
# everything is there. Usage: scripts/install-deps.sh [build|test|bench]
set -euo pipefail
what=${1:-test}

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
want() { have "$1" || need_apt+=("$2"); }

want cmake cmake
want gcc gcc
want make make
want pkg-config pkg-config
want mpicc.openmpi libopenmpi-dev
want mpirun.openmpi openmpi-bin
want mpicc.mpich libmpich-dev
want mpirun.mpich mpich
pkg-config --exists hwloc 2>/dev/null || need_apt+=(libhwloc-dev hwloc)
if [ "$what" != build ]; then
  want aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
  want qemu-aarch64 qemu-user
  want valgrind valgrind
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "vred: installing ${need_apt[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    if have sudo; then sudo=sudo; else
      echo "vred: need root (or sudo) to apt-get install: ${need_apt[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ "$what" = bench ]; then
  python3 -c 'import matplotlib' 2>/dev/null || {
    echo "vred: installing matplotlib for the plots"
    python3 -m pip install --quiet --disable-pip-version-check matplotlib
  }
fi
exit 0
