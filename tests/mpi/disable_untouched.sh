#!/bin/bash
# VRED_DISABLE=1 leaves the job untouched: with every collective vred intercepts called once
# (test_mpi_bad_input --valid, vred's shared-memory algorithms forced), no rank opens a vred
# shared-memory segment and no vred kernel runs. The same job without VRED_DISABLE opens them
# and runs one (the control: the checks see vred when it is there). That every call then goes to the MPI, with the MPI's
# result, is checked by the mpi_disable_*, mpi_coll_*_disable and mpi_coll_move_*_disable tests.
#
# usage: disable_untouched.sh MPIEXEC... -- EXE
set -u
mpiexec=()
while [ "$1" != -- ]; do mpiexec+=("$1"); shift; done
exe=$2
command -v strace >/dev/null || { echo "no strace: skipped"; exit 77; }
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
fail=0
for disable in 1 0; do
    VRED_DISABLE=$disable strace -f -qq -e trace=openat,memfd_create -o "$trace" \
        "${mpiexec[@]}" -np 2 "$exe" --valid >/dev/null 2>&1
    rc=$?
    # A segment: the named one's, or the memfd vred makes by default (coll/shm/region.c).
    opened=$(grep -cE '"/dev/shm/vred-|memfd_create\("vred"' "$trace")
    echo "VRED_DISABLE=$disable: exit status $rc, $opened opens or creations of a vred segment"
    if [ $rc != 0 ] || { [ $disable = 1 ] && [ "$opened" != 0 ]; } ||
        { [ $disable = 0 ] && [ "$opened" = 0 ]; }; then
        echo "FAIL"
        fail=1
    fi
done

# No vred kernel runs: each rank under gdb with a breakpoint on every kernel (vred_<op>_<type>_*,
# internal symbols of libvred-mpi.so, set once the program has started); the control hits one.
if command -v gdb >/dev/null; then
    cmds=$(mktemp)
    cat >"$cmds" <<'GDB'
set pagination off
set confirm off
break main
run
rbreak ^vred_\(sum\|prod\|max\|min\|land\|lor\|lxor\|band\|bor\|bxor\|maxloc\|minloc\)_
continue
if $_isvoid($_exitcode)
  kill
end
quit
GDB
    # `kill` only while the program runs: after it ended normally, `kill` was an error, gdb
    # -batch exited 1, and mpirun then aborted the job, killing the other rank's gdb before it
    # had written "exited normally" (a CI run under load: 1 of 2 ranks ended normally).
    # Each rank's gdb writes its own file: through the launcher's shared stdout, two ranks'
    # lines can merge and hide an "exited normally" (a CI run saw 1 of 2).
    logs=$(mktemp -d)
    trap 'rm -rf "$trace" "$cmds" "$logs"' EXIT
    for disable in 1 0; do
        rm -f "$logs"/rank.*
        VRED_DISABLE=$disable "${mpiexec[@]}" -np 2 sh -c \
            'exec gdb -batch -x "$1" --args "$2" --valid >"$3/rank.$$" 2>&1' sh "$cmds" "$exe" "$logs"
        set_bp=0 hits=0 ended=0 ranks=0
        for log in "$logs"/rank.*; do
            [ -e "$log" ] || continue
            ranks=$((ranks + 1))
            set_bp=$(( $(grep -c '^Breakpoint [0-9]* at' "$log") - 1 )) # not main
            # "Thread 1 "x" hit Breakpoint 5, ... in vred_..." where the process has threads,
            # "Breakpoint 5, ... in vred_..." where it has one (Intel MPI).
            hits=$((hits + $(grep -cE '(hit )?Breakpoint [0-9]+, .* in vred_' "$log")))
            grep -q 'exited normally' "$log" && ended=$((ended + 1))
        done
        echo "VRED_DISABLE=$disable under gdb: $ranks ranks, $set_bp kernel breakpoints, $hits hit, $ended ranks ended normally"
        if [ "$ranks" != 2 ] || [ "$set_bp" -lt 100 ] ||
            { [ $disable = 1 ] && { [ "$hits" != 0 ] || [ "$ended" != 2 ]; }; } ||
            { [ $disable = 0 ] && [ "$hits" = 0 ]; }; then
            echo "FAIL"
            for log in "$logs"/rank.*; do echo "--- $log"; tail -5 "$log"; done
            fail=1
        fi
    done
else
    echo "no gdb: the kernel check skipped"
fi
exit $fail
