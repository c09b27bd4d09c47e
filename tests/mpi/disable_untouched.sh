#!/bin/bash
# VRED_DISABLE=1 leaves the job untouched: with every collective vred intercepts called once
# (test_mpi_bad_input --valid, vred's shared-memory algorithms forced), no rank opens a vred
# shared-memory segment. The same job without VRED_DISABLE opens them (the control: the check
# sees vred's segments when there are any). That every call then goes to the MPI, with the MPI's
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
exit $fail
