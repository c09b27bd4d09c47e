#!/usr/bin/env bash
# Runs an MPI job over one of the peer MPIs of scripts/install-peers.sh, with its environment
# (scripts/peers-env.sh) and, with --preload, a library preloaded into every rank the way that
# launcher passes environment variables (Open MPI: -x LD_PRELOAD=LIB; Hydra: -genv LD_PRELOAD LIB).
#
#   scripts/peers-run.sh mpich5 -np 2 ./app                                       # the MPI alone
#   scripts/peers-run.sh mpich5 --preload build-peers/mpich5/libvred-mpi.so -np 2 ./app   # vred
#   scripts/peers-run.sh --print impi -np 2 ./app     # print the environment and the command only
#
# Everything after NAME and --preload LIB goes to the launcher unchanged.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
print=0
if [ "${1:-}" = --print ]; then
  print=1
  shift
fi
name=${1:?usage: peers-run.sh [--print] NAME [--preload LIB] LAUNCHER-ARGS...}
shift
preload=""
if [ "${1:-}" = --preload ]; then
  preload=${2:?--preload needs a library}
  [ -f "$preload" ] || { echo "peers-run.sh: no $preload" >&2; exit 1; }
  preload=$(cd "$(dirname "$preload")" && pwd)/$(basename "$preload")
  shift 2
fi
env_sh=$("$here/peers-env.sh" "$name")
eval "$env_sh"
cmd=("$VRED_PEER_MPIRUN")
# shellcheck disable=SC2206 # flags, split on purpose
cmd+=($VRED_PEER_MPIRUN_ARGS)
if [ -n "$preload" ]; then
  if [ "$VRED_PEER_LAUNCHER" = ompi ]; then
    cmd+=(-x "LD_PRELOAD=$preload")
  else
    cmd+=(-genv LD_PRELOAD "$preload")
  fi
fi
cmd+=("$@")
if [ "$print" = 1 ]; then
  printf '%s\n' "$env_sh" | grep -v '^export VRED_PEER_' || true
  printf '%q ' "${cmd[@]}"
  echo
  exit 0
fi
exec "${cmd[@]}"
