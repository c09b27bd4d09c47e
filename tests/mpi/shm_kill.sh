#!/usr/bin/env bash
# A rank killed with SIGKILL during shared-memory collectives: the job must end (within the
# timeout, not hang) and /dev/shm must hold no vred segment afterwards.
# usage: shm_kill.sh [--expect-detector] [--plant-leftover] <mpiexec and its options...> -- <test binary>
#   --expect-detector  the launcher is told to keep the job going when a rank dies (Open MPI's
#                      --enable-recovery), so only vred's dead-peer check (src/coll/shm/sync.c) can
#                      end it: its message must be in the output
#   --plant-leftover   a self-test of the segment check: a file named like a vred segment is left
#                      in /dev/shm during the job, and this script must report it (then removes it)
set -u
detector=0 plant=0
while :; do
  case ${1:-} in
    --expect-detector) detector=1; shift ;;
    --plant-leftover) plant=1; shift ;;
    *) break ;;
  esac
done
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
exe=$1
names() { ls /dev/shm 2>/dev/null | grep '^vred-' | sort; }
before=$(names)
planted=/dev/shm/vred-$(id -u)-leftover-selftest-$$
[ $plant = 0 ] || { umask 077; : >"$planted"; }
out=$(mktemp)
trap 'rm -f "$out" "$planted"' EXIT
start=$(date +%s)
timeout 120 "${launch[@]}" -np 3 "$exe" --kill >"$out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
# Segments that appeared during the job. Under ctest -j another test's segment may exist for a
# moment (from its creation until every rank has mapped it): only one still there later counts.
new=$(comm -13 <(echo "$before") <(names))
[ -z "$new" ] || sleep 3
left=0
for n in $new; do [ -e "/dev/shm/$n" ] && left=$((left + 1)); done
seen=0
grep -q "has died during a shared-memory collective" "$out" && seen=1
echo "shm_kill: job ended with status $rc after ${took}s; vred's dead-peer message: $([ $seen = 1 ] && echo yes || echo no); vred segments left in /dev/shm: $left"
if [ "$rc" -eq 124 ]; then echo "shm_kill: FAILED: the job hung"; sed 's/^/  | /' "$out" | tail -20; exit 1; fi
# (Under --enable-recovery Open MPI 4.1's mpirun exits 0 even after MPI_Abort: there the message
# is the proof that the job noticed.)
if [ "$rc" -eq 0 ] && [ $detector = 0 ]; then echo "shm_kill: FAILED: the job did not notice the killed rank"; exit 1; fi
if [ $detector = 1 ] && [ $seen = 0 ]; then
  echo "shm_kill: FAILED: vred's dead-peer check did not end the job"; sed 's/^/  | /' "$out" | tail -20; exit 1
fi
if [ "$left" -gt 0 ]; then echo "shm_kill: FAILED: a segment was left in /dev/shm"; exit 1; fi
echo "shm_kill: ok"
