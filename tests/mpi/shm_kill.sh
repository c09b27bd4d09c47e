#!/usr/bin/env bash
# A rank killed with SIGKILL during shared-memory collectives: the job must end (within the
# timeout, not hang) and /dev/shm must hold no vred segment afterwards.
# usage: shm_kill.sh <mpiexec and its options...> -- <test binary>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
exe=$1
names() { ls /dev/shm 2>/dev/null | grep '^vred-' | sort; }
before=$(names)
start=$(date +%s)
timeout 120 "${launch[@]}" -np 3 "$exe" --kill >/dev/null 2>&1
rc=$?
took=$(( $(date +%s) - start ))
# Segments that appeared during the job. Under ctest -j another test's segment may exist for a
# moment (from its creation until every rank has mapped it): only one still there later counts.
new=$(comm -13 <(echo "$before") <(names))
[ -z "$new" ] || sleep 3
left=0
for n in $new; do [ -e "/dev/shm/$n" ] && left=$((left + 1)); done
echo "shm_kill: job ended with status $rc after ${took}s; vred segments left in /dev/shm: $left"
if [ "$rc" -eq 124 ]; then echo "shm_kill: FAILED: the job hung"; exit 1; fi
if [ "$rc" -eq 0 ]; then echo "shm_kill: FAILED: the job did not notice the killed rank"; exit 1; fi
if [ "$left" -gt 0 ]; then echo "shm_kill: FAILED: a segment was left in /dev/shm"; exit 1; fi
echo "shm_kill: ok"
