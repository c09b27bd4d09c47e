#!/usr/bin/env bash
# Prints the environment that runs one of the peer MPIs of scripts/install-peers.sh (the newer
# MPIs a user could install from PyPI instead of the distribution's), as shell to eval:
#
#   eval "$(scripts/peers-env.sh openmpi5)"      # or mpich5, impi
#   "$VRED_PEER_MPICC" app.c -o app
#   "$VRED_PEER_MPIRUN" $VRED_PEER_MPIRUN_ARGS -np 2 ./app
#
# scripts/peers-run.sh does the same and adds LD_PRELOAD the launcher's way. Sets:
#   VRED_PEER_NAME, VRED_PEER_PREFIX (the venv), VRED_PEER_MPICC, VRED_PEER_MPIRUN,
#   VRED_PEER_MPIRUN_ARGS (flags every run needs), VRED_PEER_LAUNCHER (ompi | hydra: how the
#   launcher passes an environment variable: `-x NAME=VALUE` | `-genv NAME VALUE`),
#   and whatever the MPI itself needs (below, per MPI). The venvs are under
#   ${VRED_PEERS_DIR:-$HOME/.cache/vred/peers}/<name>.
#
# Usage: scripts/peers-env.sh NAME | --list
set -euo pipefail
dir=${VRED_PEERS_DIR:-$HOME/.cache/vred/peers}
names="openmpi5 mpich5 impi"

if [ "${1:-}" = --list ]; then
  echo "$names"
  exit 0
fi
name=${1:?usage: peers-env.sh NAME (one of: $names) | --list}
prefix=$dir/$name
case " $names " in
  *" $name "*) ;;
  *) echo "peers-env.sh: unknown MPI '$name' (one of: $names)" >&2; exit 2 ;;
esac
if [ ! -x "$prefix/bin/mpicc" ]; then
  echo "peers-env.sh: $name is not installed in $prefix (run scripts/install-peers.sh $name)" >&2
  exit 1
fi

q() { printf '%q' "$1"; }
echo "export VRED_PEER_NAME=$name"
echo "export VRED_PEER_PREFIX=$(q "$prefix")"
echo "export VRED_PEER_MPICC=$(q "$prefix/bin/mpicc")"
case $name in
  openmpi5)
    # Open MPI 5 (PRRTE) refuses root unless both variables are set (or --allow-run-as-root
    # is given), and more ranks than cores unless told to oversubscribe. The wrapper's flags
    # carry an RPATH to the venv's lib/: nothing on LD_LIBRARY_PATH.
    echo "export VRED_PEER_MPIRUN=$(q "$prefix/bin/mpirun")"
    echo "export VRED_PEER_MPIRUN_ARGS=--oversubscribe"
    echo "export VRED_PEER_LAUNCHER=ompi"
    if [ "$(id -u)" = 0 ]; then
      echo "export OMPI_ALLOW_RUN_AS_ROOT=1"
      echo "export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    fi
    ;;
  mpich5)
    # Hydra: runs as root and oversubscribes as it is; RPATH to the venv's lib/ from the wrapper.
    echo "export VRED_PEER_MPIRUN=$(q "$prefix/bin/mpiexec")"
    echo "export VRED_PEER_MPIRUN_ARGS="
    echo "export VRED_PEER_LAUNCHER=hydra"
    ;;
  impi)
    # Intel MPI. mpicc prints the placeholder I_MPI_SUBSTITUTE_INSTALLDIR (and compiles nothing)
    # unless I_MPI_ROOT names the install. The launcher is bin/mpiexec, an executable that finds
    # its proxies next to itself; bin/mpirun is a script that runs the first mpiexec.hydra on
    # PATH, which on a machine with Debian's MPICH is /usr/bin's (MPICH 4.0's Hydra: MPI_Init
    # then fails in MPIDU_bc_table_create). I_MPI_FABRICS=shm: one node, shared memory only,
    # no libfabric loaded at all. LD_LIBRARY_PATH and FI_PROVIDER_PATH as the wheel's own
    # activation script sets them (etc/conda/activate.d): with another fabric (shm:ofi), the
    # bundled libfabric 2.x and its providers, not the distribution's libfabric.so.1.
    echo "export VRED_PEER_MPIRUN=$(q "$prefix/bin/mpiexec")"
    echo "export VRED_PEER_MPIRUN_ARGS="
    echo "export VRED_PEER_LAUNCHER=hydra"
    echo "export I_MPI_ROOT=$(q "$prefix")"
    echo "export I_MPI_FABRICS=\${I_MPI_FABRICS:-shm}"
    echo "export FI_PROVIDER_PATH=$(q "$prefix/lib")"
    echo "export LD_LIBRARY_PATH=$(q "$prefix/lib")\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
    ;;
esac
