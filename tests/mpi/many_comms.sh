#!/usr/bin/env bash
# Bounded resources (issue 15, item 4): tests/mpi/many_comms.c's 1,000 live communicators under
# a 64 MiB /dev/shm (a container's default), a private tmpfs in a mount namespace shared by the
# MPI's own segments and vred's regions. Passes if the job succeeds (every result the MPI's), no
# sign of exhaustion appears (SIGBUS, ENOSPC, the MPI failing to map or make something), vred
# warns at most once per process, and no vred segment is left in the tmpfs.
# Skips (77) where a mount namespace cannot be made (not root, no unshare).
# usage: many_comms.sh <np> <mpiexec and its options...> -- <many_comms binary> [its options]
set -u
np=$1
shift
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
if ! unshare -m true 2>/dev/null; then echo "many_comms: cannot make a mount namespace: skipped"; exit 77; fi
log=$(mktemp)
# After the job, still inside the namespace: what the tmpfs holds (vred's names start "vred-").
unshare -m --propagation private sh -c 'mount -t tmpfs -o size=64m tmpfs /dev/shm && "$@"; rc=$?
  echo "many_comms.sh: /dev/shm after the job: $(ls /dev/shm | grep -c "^vred-") vred segment(s)"
  exit $rc' sh "${launch[@]}" -np "$np" "$@" >"$log" 2>&1
rc=$?
warnings=$(grep -c 'vred: no shared memory' "$log")
exhausted=$(grep -ciE 'bus error|sigbus|no space left|enospc|out of memory|too many communicators|context id' "$log")
left=$(sed -n 's/^many_comms.sh: \/dev\/shm after the job: \([0-9]*\) vred.*/\1/p' "$log")
grep '^many_comms' "$log"
echo "many_comms: status $rc, $warnings vred warning line(s) ($np processes), $exhausted sign(s) of exhaustion"
if [ "$rc" -ne 0 ] || [ "$exhausted" -ne 0 ] || [ "$warnings" -gt "$np" ] || [ "${left:-1}" -ne 0 ]; then
  tail -30 "$log"
  rm -f "$log"
  echo "many_comms: FAILED"
  exit 1
fi
rm -f "$log"
echo "many_comms: ok"
