#!/bin/bash
# scripts/multihost.sh leaves nothing behind (issue 17): after a job that fails, a job that hangs
# (killed by --timeout), the harness stopped by SIGTERM, and the harness killed outright
# (SIGKILL: no trap runs; the next run removes what it left), there is no namespace, bridge,
# veth, netns mount, state directory or process of that run. usage: teardown.sh openmpi|mpich
set -u
mpi=${1:?usage: teardown.sh openmpi|mpich}
mh=$(cd "$(dirname "$0")/../.." && pwd)/scripts/multihost.sh
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
marker=61.$$ # a sleep nobody else runs
left() { # id: what is left of run id
    ip netns list 2>/dev/null | awk '{print $1}' | grep "^vred-$1-h"
    ip -br link 2>/dev/null | awk '{print $1}' | grep -E "^(vrb$1|vr$1h[0-9]+)(@|$)"
    grep -F "/run/netns/vred-$1-" /proc/mounts
    [ -e /run/vred-multihost/$1 ] && echo "/run/vred-multihost/$1"
    pgrep -f "sleep $marker" | sed 's/^/pid /'
}
check() { # id what
    local l
    l=$(left "$1")
    [ -z "$l" ] || fail "$2: left behind: $(echo $l)"
    [ -z "$l" ] && echo "ok: $2: nothing left"
}

MULTIHOST_ID=tda$$ "$mh" --mpi $mpi --hosts 2 -- false
rc=$?
[ $rc = 77 ] && exit 77
[ $rc != 0 ] || fail "a failing job: exit status 0"
check tda$$ "failing job (exit $rc)"

MULTIHOST_ID=tdb$$ "$mh" --mpi $mpi --hosts 2 --timeout 3 -- sleep $marker
rc=$?
[ $rc = 124 ] || fail "a hung job: exit status $rc, expected 124"
check tdb$$ "hung job killed by --timeout"

# Stopped from outside once its job runs (the sleeps exist on both hosts).
wait_job() {
    for _ in $(seq 100); do
        [ "$(pgrep -fc "^sleep $marker")" -ge 2 ] && return 0
        sleep 0.1
    done
    return 1
}
MULTIHOST_ID=tdc$$ "$mh" --mpi $mpi --hosts 2 -- sleep $marker &
h=$!
wait_job || fail "SIGTERM: the job never started"
kill -TERM $h
wait $h
rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit status $rc, expected 143"
check tdc$$ "harness stopped by SIGTERM"

MULTIHOST_ID=tdd$$ "$mh" --mpi $mpi --hosts 2 -- sleep $marker &
h=$!
wait_job || fail "SIGKILL: the job never started"
# The job's processes outlive the harness (their own process group): the next run reaps them
# with the namespaces. Its timeout, outside the namespaces, is stopped here, as a busy machine
# may leave it unscheduled: the next run must still remove it (CI once found one alive).
t=$(pgrep -f "^timeout .*sleep $marker")
[ -n "$t" ] || fail "SIGKILL: no timeout process for the job"
kill -STOP $t
kill -KILL $h
wait $h 2>/dev/null
MULTIHOST_ID=tde$$ "$mh" --mpi $mpi --hosts 1 -- true 2>&1 | grep "removing what the dead run" ||
    fail "SIGKILL: the next run did not say it removed the dead run's objects"
check tdd$$ "harness killed by SIGKILL, then the next run"
check tde$$ "the next run"
[ -n "$t" ] && kill -KILL $t 2>/dev/null # (were it left, it would hold ctest's pipe open)
[ $fails = 0 ] && echo "teardown: every case left nothing behind"
[ $fails = 0 ]
