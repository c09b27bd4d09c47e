#!/usr/bin/env bash
# Rank 0 with VRED_SHM_SLICE=2 MiB, the other rank with the default (the launcher's MPMD form,
# each part under env): both must take rank 0's region geometry (shm_geometry.c says why), with
# the region's algorithm forced. A wrong sum or a hang (killed at the time limit) fails.
# usage: shm_geometry.sh <mpiexec and its options...> -- <shm_geometry binary>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
exe=$2
export VRED_LEARN=off VRED_ALLREDUCE_ALG=ma
timeout -k 5 60 "${launch[@]}" -np 1 env VRED_SHM_SLICE=2097152 "$exe" 1048576 : \
    -np 1 "$exe" 1048576
rc=$?
[ $rc = 124 ] && echo "shm_geometry: hung (killed after 60 s)"
exit $rc
