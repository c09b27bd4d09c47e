#!/bin/bash
# VRED_STATS: the `vred-stats` lines MPI_Finalize prints must be exactly what tests/mpi/stats.c
# expects (its `expect vred-stats ...` lines; time_s aside), and nothing at all without it.
#
# usage: stats.sh MODE NP MPIEXEC... -- EXE [EXE options]
#   MODE on       VRED_STATS=1: each rank's lines (and one `total` line per rank)
#        gather   VRED_STATS=gather: the same lines, all from rank 0, in rank order
#        sum      VRED_STATS=sum: one set of lines, rank=all, the sums over the ranks
#        off      VRED_STATS unset: no vred-stats line anywhere
# Other VRED_* (VRED_DISABLE, VRED_SHM, ...) come from the caller's environment.
set -u
mode=$1 np=$2
shift 2
mpiexec=()
while [ "$1" != -- ]; do mpiexec+=("$1"); shift; done
shift
exe=("$@")
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp) err=$(mktemp) want=$(mktemp) got=$(mktemp)
trap 'rm -f "$out" "$err" "$want" "$got"' EXIT
export VRED_TUNE_FILE=$here/stats.tune
case $mode in
on) export VRED_STATS=1 ;;
gather | sum) export VRED_STATS=$mode ;;
off) unset VRED_STATS; exe+=(--off) ;;
*) echo "stats.sh: unknown mode $mode"; exit 2 ;;
esac
"${mpiexec[@]}" -np "$np" "${exe[@]}" >"$out" 2>"$err"
rc=$?
cat "$out"
fail=0
[ $rc = 0 ] || { echo "FAIL: exit status $rc"; cat "$err"; fail=1; }
# Every line vred printed, from either stream (the launcher forwards the ranks' stderr).
lines=$(cat "$out" "$err" | grep '^vred-stats ')

if [ "$mode" = off ]; then
    if [ -n "$lines" ]; then
        echo "FAIL: vred-stats lines without VRED_STATS:"
        echo "$lines"
        fail=1
    fi
    echo "stats.sh $mode np=$np: $(grep -c . <<<"$lines") vred-stats lines"
    exit $fail
fi

# What each rank expects, and what vred printed, without the times.
grep '^expect vred-stats ' "$out" | sed 's/^expect //' | sort >"$want"
if [ "$mode" = sum ]; then
    # The expected sums: per (coll, size, alg, reason), calls and bytes added over the ranks.
    awk '{ key = ""; for (i = 3; i <= NF; i++) {
               split($i, kv, "=");
               if (kv[1] == "calls") c[key] += kv[2];
               else if (kv[1] == "bytes") b[key] += kv[2];
               else key = key " " $i }
           keys[key] = 1 }
         END { for (k in keys) print "vred-stats rank=all" k " calls=" c[k] " bytes=" b[k] }' \
        "$want" | sort >"$want.sum" && mv "$want.sum" "$want"
fi
grep -v ' total ' <<<"$lines" | sed 's/ time_s=[0-9.]*$//' | sort >"$got"
nwant=$(grep -c . "$want")
if [ "$nwant" = 0 ]; then
    echo "FAIL: the test expected nothing"
    fail=1
fi
if ! diff "$want" "$got" >/dev/null; then
    echo "FAIL: printed lines differ from the expected ones (< expected, > printed):"
    diff "$want" "$got"
    fail=1
fi
# Every line has a time, and the total lines: one per rank (sum, gather from rank 0's stderr
# too), adding up the rank's lines.
bad=$(grep -v ' total ' <<<"$lines" | grep -cv ' time_s=[0-9]*\.[0-9]\{6\}$')
[ "$bad" = 0 ] || { echo "FAIL: $bad lines without time_s"; fail=1; }
if [ "$mode" = sum ]; then ranks=all; else ranks=$(seq 0 $((np - 1))); fi
for r in $ranks; do
    tot=$(grep -c "^vred-stats rank=$r total " <<<"$lines")
    calls=$(grep "^vred-stats rank=$r total " <<<"$lines" | sed 's/.* calls=\([0-9]*\).*/\1/')
    sum=$(grep "^vred-stats rank=$r coll=" <<<"$lines" | sed 's/.* calls=\([0-9]*\).*/\1/' |
        awk '{ s += $1 } END { print s + 0 }')
    if [ "$tot" != 1 ] || [ "$calls" != "$sum" ]; then
        echo "FAIL: rank $r: $tot total lines, calls=$calls where its lines add up to $sum"
        fail=1
    fi
done
if [ "$mode" = gather ]; then
    # Rank 0 printed them all, one rank after the other: rank numbers never go down.
    order=$(grep '^vred-stats ' "$err" | sed 's/^vred-stats rank=\([0-9]*\) .*/\1/' |
        awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { print bad + 0 }')
    [ "$order" = 0 ] || { echo "FAIL: gathered lines out of rank order"; fail=1; }
fi
# A forced algorithm that cannot run is named once, by rank 0 (src/coll/select.c): where bcast's
# pipe cannot run, neither can the allreduce forced to ma (both said), nor allgather's pipe where
# the test says so; nowhere else (nor under VRED_DISABLE, where vred selects nothing).
notices=$(cat "$out" "$err" | grep -c "^vred: [a-z_]* forced to '[a-z]*', which cannot run")
expected=0
if [ "${VRED_DISABLE:-0}" != 1 ]; then
    for a in "${exe[@]}"; do
        case $a in --bcast-reason=*) expected=$((expected + 2)) ;; --allgather-reason=*) expected=$((expected + 1)) ;; esac
    done
fi
if [ "$notices" != "$expected" ]; then
    echo "FAIL: $notices notices of a forced algorithm that cannot run, expected $expected:"
    cat "$out" "$err" | grep "^vred: .* forced to "
    fail=1
fi
echo "stats.sh $mode np=$np: $nwant lines expected, $(grep -c . "$got") printed, $notices fallback notices, $fail failures"
exit $fail
