#!/bin/bash
# The cost model's link between nodes is measured (issue 17, item 4): 2 hosts x 1 rank on a
# 1 Gbit/s link, VRED_STATS=1: every rank prints the same `vred-stats ... link` line, with a rate
# between 0.05 and 1.5 Gbit/s (the link's 1, loaded or not: never the loopback's tens), and with
# VRED_TUNE_FILE nothing is measured (no link line).
# usage: link.sh openmpi|mpich EXE [args]   (EXE: an MPI program that calls a collective)
set -u
mpi=${1:?usage: link.sh openmpi|mpich EXE [args]}
shift
mh=$(cd "$(dirname "$0")/../.." && pwd)/scripts/multihost.sh
out=$("$mh" --mpi "$mpi" --hosts 2 --ppn 1 --rate 1gbit --timeout 120 --env VRED_STATS=1 -- "$@" 2>&1)
rc=$?
[ $rc = 77 ] && { echo "$out"; exit 77; }
[ $rc = 0 ] || { echo "$out"; echo "FAIL: exit status $rc"; exit 1; }
lines=$(grep '^vred-stats rank=[0-9]* link ' <<<"$out")
echo "$lines"
fail=0
[ "$(grep -c . <<<"$lines")" = 2 ] || { echo "FAIL: expected one link line per rank (2)"; fail=1; }
[ "$(sed 's/rank=[0-9]* //' <<<"$lines" | sort -u | grep -c .)" = 1 ] ||
    { echo "FAIL: the ranks took different links"; fail=1; }
rate=$(sed -n 's/.* gbit_s=\([0-9.]*\) .*/\1/p' <<<"$lines" | head -1)
awk -v r="${rate:-0}" 'BEGIN { exit !(r >= 0.05 && r <= 1.5) }' ||
    { echo "FAIL: measured ${rate:-nothing} Gbit/s on a 1 Gbit/s link"; fail=1; }
tune=$(mktemp /run/vred-link-tune.XXXXXX)
trap 'rm -f "$tune"' EXIT
echo "alpha_net 1e-5" >"$tune"
out=$(VRED_TUNE_FILE=$tune "$mh" --mpi "$mpi" --hosts 2 --ppn 1 --timeout 120 \
    --env VRED_STATS=1 --env VRED_TUNE_FILE=$tune -- "$@" 2>&1)
grep -q '^vred-stats rank=[0-9]* link ' <<<"$out" &&
    { echo "FAIL: VRED_TUNE_FILE given, yet the link was measured"; fail=1; }
[ $fail = 0 ] && echo "link.sh: measured ${rate} Gbit/s on the 1 Gbit/s link; none with VRED_TUNE_FILE"
exit $fail
