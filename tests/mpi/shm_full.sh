#!/usr/bin/env bash
# /dev/shm too small for a region: vred must fall back to its point-to-point algorithms with one
# warning per process that tried, and give the MPI's results. Runs the collectives test (forced
# shared-memory algorithms included) in a private mount namespace with a 100 KiB /dev/shm (the
# MPI itself over TCP). Skips (77) where a mount namespace cannot be made (not root, no unshare).
# usage: shm_full.sh <mpiexec and its options...> -- <coll test binary>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
exe=$1
if ! unshare -m true 2>/dev/null; then echo "shm_full: cannot make a mount namespace: skipped"; exit 77; fi
log=$(mktemp)
export TEST_SHM_UNAVAILABLE=1 VRED_ALLREDUCE_ALG=ma VRED_REDUCE_ALG=dpml
unshare -m sh -c 'mount -t tmpfs -o size=100k tmpfs /dev/shm && exec "$@"' sh \
  "${launch[@]}" --mca btl tcp,self -np 3 "$exe" --expect-vred --quick >"$log" 2>&1
rc=$?
warnings=$(grep -c 'vred: no shared memory (/dev/shm is full); using point-to-point' "$log")
tail -1 "$log" | grep '^coll:' || tail -5 "$log"
echo "shm_full: status $rc, $warnings warning line(s) (one per process that tried to create a region)"
rm -f "$log"
[ "$rc" -eq 0 ] && [ "$warnings" -ge 1 ] && [ "$warnings" -le 3 ] && echo "shm_full: ok" && exit 0
echo "shm_full: FAILED"
exit 1
