#!/bin/bash
# The learned selection across hosts (issue 17): 2 hosts x 1 rank on a 1 Gbit/s link, VRED_LEARN=on
# in a cache of the test's own. The cache key must name the link's decade (link_gbit=1: a job on
# another network measures again), and the allreduce cell must have timed the MPI against three
# of vred's point-to-point algorithms (across nodes the candidates are the model's three
# cheapest, not only its first: its alpha can be wrong about what a step costs).
# usage: learn.sh openmpi|mpich VRED_BENCH
set -u
mpi=${1:?usage: learn.sh openmpi|mpich VRED_BENCH}
bench=${2:?usage: learn.sh openmpi|mpich VRED_BENCH}
mh=$(cd "$(dirname "$0")/../.." && pwd)/scripts/multihost.sh
cache=$(mktemp -d /run/vred-learn-test.XXXXXX)
trap 'rm -rf "$cache"' EXIT
out=$(VRED_LEARN=on XDG_CACHE_HOME=$cache "$mh" --mpi "$mpi" --hosts 2 --ppn 1 --rate 1gbit \
    --timeout 150 --env VRED_LEARN=on --env XDG_CACHE_HOME="$cache" -- \
    "$bench" coll --coll allreduce --algs auto --sizes 256K --budget 0.05 2>&1)
rc=$?
[ $rc = 77 ] && { echo "$out"; exit 77; }
[ $rc = 0 ] || { echo "$out"; echo "FAIL: exit status $rc"; exit 1; }
files=("$cache"/vred/learned/*.txt)
[ -f "${files[0]}" ] || { echo "$out"; echo "FAIL: nothing learned in $cache"; exit 1; }
cat "${files[@]}"
fail=0
grep -q '^key .*;nodes=2;ppn=1;link_gbit=1\(;\|$\)' "${files[@]}" ||
    { echo "FAIL: the key does not name the 1 Gbit/s link (link_gbit=1)"; fail=1; }
line=$(grep '^allreduce 18 ' "${files[@]}" | head -1)
n=$(grep -o ' [a-z0-9]*=[0-9.e+-]*' <<<"$line" | grep -vc '^ mpi=')
[ "$n" -ge 3 ] ||
    { echo "FAIL: allreduce 256 KiB timed ${n:-0} of vred's algorithms against the MPI, expected 3"; fail=1; }
[ $fail = 0 ] && echo "learn.sh: key names the link; allreduce 256 KiB timed the MPI against $n algorithms"
exit $fail
