#!/usr/bin/env bash
# One VRED_* knob set on rank 0 only (the launcher's MPMD form, that part under env), for the
# knobs that hung or gave wrong bytes that way (knobs_differ.c says which and how): every rank
# must hear of it (the message on stderr), the MPI must serve, every result right, no hang. Then
# the same knob on both ranks: vred serves, no message.
# usage: knobs_differ.sh <mpiexec and its options...> -- <knobs_differ binary>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
exe=$2
export VRED_LEARN=off VRED_ALLREDUCE_ALG=ma
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0
run() { # expect (differ|same), then the launch's two parts' env settings
  local expect=$1 a=$2 b=$3
  timeout -k 5 60 "${launch[@]}" -np 1 env $a "$exe" 262144 : -np 1 env $b "$exe" 262144 \
    >"$out" 2>&1
  local rc=$? what="rank 0: '$a', rank 1: '$b'"
  if [ $rc = 124 ]; then echo "FAIL $what: hung (killed after 60 s)"; fails=$((fails + 1)); return; fi
  if [ $rc != 0 ] || ! grep -q "0 wrong results" "$out"; then
    echo "FAIL $what: exit $rc"; cat "$out"; fails=$((fails + 1)); return
  fi
  local said=0 served
  grep -q "run with different VRED_\* settings" "$out" && said=1
  served=$(sed -n 's/.*allreduce served by //p' "$out")
  if [ "$expect" = differ ] && { [ $said = 0 ] || [ "$served" != mpi ]; }; then
    echo "FAIL $what: message $said, served by $served (expected the message and mpi)"
    fails=$((fails + 1)); return
  fi
  if [ "$expect" = same ] && { [ $said = 1 ] || [ "$served" = mpi ]; }; then
    echo "FAIL $what: message $said, served by $served (expected vred, no message)"
    fails=$((fails + 1)); return
  fi
  echo "ok $what: served by $served"
}
for kv in VRED_THREADS=1 VRED_DISABLE=1 VRED_SHM_CELL=64 VRED_SHM_SLICE=2097152 VRED_SOCKETS=2 \
          VRED_SHM=off VRED_ALLREDUCE_ALG=ring VRED_BCAST_ALG=pipe; do
  run differ "$kv" ""
done
run same "VRED_SHM_CELL=64" "VRED_SHM_CELL=64"
run same "VRED_THREADS=007" "VRED_THREADS=7"
echo "knobs_differ: $fails failures"
[ $fails = 0 ]
