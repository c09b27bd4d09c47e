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
    VRED_DISABLE=$disable strace -f -qq -e trace=openat -o "$trace" \
        "${mpiexec[@]}" -np 2 "$exe" --valid >/dev/null 2>&1
    rc=$?
    opened=$(grep -c '"/dev/shm/vred-' "$trace")
    echo "VRED_DISABLE=$disable: exit status $rc, $opened opens of a vred segment"
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
    trap 'rm -f "$trace" "$cmds"' EXIT
    cat >"$cmds" <<'GDB'
set pagination off
set confirm off
break main
run
rbreak ^vred_\(sum\|prod\|max\|min\|land\|lor\|lxor\|band\|bor\|bxor\|maxloc\|minloc\)_
continue
kill
quit
GDB
    for disable in 1 0; do
        VRED_DISABLE=$disable "${mpiexec[@]}" -np 2 gdb -batch -x "$cmds" --args "$exe" --valid \
            >"$trace" 2>&1
        set_bp=$(( $(grep -c '^Breakpoint [0-9]* at' "$trace") / 2 - 1 )) # per rank, not main
        hits=$(grep -cE 'hit Breakpoint [0-9]+, .* in vred_' "$trace")
        ended=$(grep -c 'exited normally' "$trace")
        echo "VRED_DISABLE=$disable under gdb: $set_bp kernel breakpoints, $hits hit, $ended ranks ended normally"
        if [ "$set_bp" -lt 100 ] || { [ $disable = 1 ] && { [ "$hits" != 0 ] || [ "$ended" != 2 ]; }; } ||
            { [ $disable = 0 ] && [ "$hits" = 0 ]; }; then
            echo "FAIL"
            fail=1
        fi
    done
else
    echo "no gdb: the kernel check skipped"
fi
exit $fail
