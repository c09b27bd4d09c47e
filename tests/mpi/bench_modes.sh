#!/usr/bin/env bash
# vred-bench coll in each measuring mode (issue 16): the default (calls back to back on malloc'd
# buffers), --sync barrier, --align 64, --offset 16 and --offset 0/16, each with --validate on 2
# ranks at two sizes. Each run must pass its validation, name its mode in every table header
# ("# mode: sync S ...; buffers B ...: send X mod 64, recv Y mod 64", the placement matching the
# mode) and write the mode in every CSV row (columns sync, buffers). vred-bench local likewise with
# --align 64 and --offset 0/16 (its calls are always back to back). A bad mode must be refused.
#
# usage: bench_modes.sh LAUNCHER... -- VRED_BENCH
set -u
launch=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do launch+=("$1"); shift; done
[ $# -eq 2 ] || { echo "usage: $0 LAUNCHER... -- VRED_BENCH" >&2; exit 2; }
bench=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

colls=allreduce,reduce,bcast
ncoll=3
# mode arguments | sync | buffers | send mod 64 | recv mod 64 (empty: not checked, malloc's)
cases=(
  "|back-to-back|malloc||"
  "--sync barrier|barrier|malloc||"
  "--align 64|back-to-back|align64|0|0"
  "--offset 16|back-to-back|offset16|16|16"
  "--offset 0/16|back-to-back|offset0/16|0|16"
  "--sync barrier --offset 0/16|barrier|offset0/16|0|16"
)
for c in "${cases[@]}"; do
  IFS='|' read -r args sync bufs smod rmod <<<"$c"
  name=${bufs//\//_}-$sync
  out=$tmp/$name.txt csv=$tmp/$name.csv
  # shellcheck disable=SC2086 # args: words
  "${launch[@]}" -np 2 "$bench" coll --coll $colls --algs auto,ring --sizes 4K,256K --budget 0.05 --reps 5 \
    --validate $args --csv "$csv" >"$out" 2>"$tmp/$name.err"
  rc=$?
  echo "== vred-bench coll ${args:-(default)}: exit $rc"
  grep -E '^# (mode|cpu|validation)' "$out" | sort | uniq -c
  [ $rc = 0 ] || { bad "'$args': exit $rc"; cat "$out" "$tmp/$name.err" >&2; continue; }
  grep -q '^# validation: all results bitwise equal' "$out" || bad "'$args': validation line missing or failed"
  # One mode line in the preamble and one in each collective's table header, all naming the mode.
  pat="^# mode: sync $sync \\(.*\\); buffers $bufs \\(.*\\): send ${smod:-[0-9]+} mod 64, recv ${rmod:-[0-9]+} mod 64\$"
  n=$(grep -cE "$pat" "$out")
  [ "$n" = $((ncoll + 1)) ] || bad "'$args': $n header lines match '$pat', want $((ncoll + 1))"
  [ "$(grep -c '^# mode:' "$out")" = $((ncoll + 1)) ] || bad "'$args': a '# mode:' line names another mode"
  # Each table header: the collective's line, then its mode line.
  m=$(grep -A1 -E '^# (allreduce|reduce|bcast)( |$)' "$out" | grep -cE "$pat")
  [ "$m" = $ncoll ] || bad "'$args': $m of $ncoll table headers are followed by their mode line"
  grep -q '^# cpu: ' "$out" || bad "'$args': no '# cpu:' line"
  # The CSV: every row in this mode.
  python3 - "$csv" "$sync" "$bufs" <<'EOF' || bad "'$args': CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for r in rows:
    assert (r["sync"], r["buffers"]) == (sys.argv[2], sys.argv[3]), (r["sync"], r["buffers"])
    assert r["cpu"], "empty cpu"
    assert r["impl"] == "mpi" or r["validation"] == "ok", r["validation"]
print(f"   CSV: {len(rows)} rows, sync {sys.argv[2]}, buffers {sys.argv[3]}")
EOF
done

# vred-bench offsets: each algorithm at 0/0 and at every offset asked, in one run; 0/0 is the
# reference (ratio 1), each row's buffers sit where its offset says, the MPI's own is a row too,
# and MPI_Reduce_local runs on one rank as vred's and the MPI's. A bad offset is refused.
"${launch[@]}" -np 2 "$bench" offsets --coll allreduce,bcast --algs mpi,ring,pipe --sizes 4K --type u8 \
  --offsets 16/16,0/1 --reps 3 --budget 0.02 --csv "$tmp/off.csv" >"$tmp/off.txt" 2>"$tmp/off.err"
rc=$?
echo "== vred-bench offsets: exit $rc"
[ $rc = 0 ] || { bad "offsets: exit $rc"; cat "$tmp/off.txt" "$tmp/off.err" >&2; }
"${launch[@]}" -np 1 "$bench" offsets --coll reduce_local --sizes 4K --offsets 4/4 --reps 3 --budget 0.02 \
  --csv "$tmp/offl.csv" >"$tmp/offl.txt" 2>"$tmp/offl.err" || bad "offsets reduce_local: exit $?"
python3 - "$tmp/off.csv" "$tmp/offl.csv" <<'EOF' || bad "offsets: CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = sorted((r["collective"], r["alg"], r["offset"]) for r in rows)
want = sorted((c, a, o) for c, algs in (("allreduce", ("mpi", "ring")), ("bcast", ("mpi", "pipe")))
              for a in algs for o in ("0/0", "16/16", "0/1"))
assert got == want, got
for r in rows + list(csv.DictReader(open(sys.argv[2]))):
    s, d = r["offset"].split("/")
    assert (r["sbuf_mod4096"], r["rbuf_mod4096"]) == (s, d), r
    assert float(r["ratio"]) > 0 and float(r["median_us"]) > 0, r
    if r["offset"] == "0/0":
        assert float(r["ratio"]) == 1.0, r
local = sorted((r["alg"], r["offset"]) for r in csv.DictReader(open(sys.argv[2])))
assert local == [("mpi", "0/0"), ("mpi", "4/4"), ("vred", "0/0"), ("vred", "4/4")], local
print(f"   CSV: {len(rows)} rows, every offset where it says")
EOF
if "${launch[@]}" -np 1 "$bench" offsets --offsets 4096 >/dev/null 2>&1; then bad "offsets 4096 accepted"; fi

# vred-bench local (one rank, calls always back to back): the buffer placement in each table
# header, the CSV's columns, --validate.
for c in "|malloc||" "--align 64|align64|0|0" "--offset 0/16|offset0/16|0|16"; do
  IFS='|' read -r args bufs smod rmod <<<"$c"
  out=$tmp/local.txt
  # shellcheck disable=SC2086
  "${launch[@]}" -np 1 "$bench" local --case f32:sum,u8:sum --sizes 1K,256K --budget 0.01 --reps 9 --validate \
    $args --csv "$tmp/local.csv" >"$out" 2>"$tmp/local.err"
  rc=$?
  echo "== vred-bench local ${args:-(default)}: exit $rc"
  [ $rc = 0 ] || { bad "local '$args': exit $rc"; cat "$out" "$tmp/local.err" >&2; continue; }
  pat="^# mode: sync back-to-back \(.*\); buffers $bufs \(.*\): in ${smod:-[0-9]+} mod 64, inout ${rmod:-[0-9]+} mod 64\$"
  n=$(grep -cE "$pat" "$out") cases=$(grep -c '^# case:' "$out")
  [ "$cases" -gt 0 ] && [ "$n" = "$cases" ] || bad "local '$args': $n mode lines match '$pat' for $cases tables"
  grep -E '^# VALIDATION FAILED' "$out" && bad "local '$args': validation"
  python3 - "$tmp/local.csv" "$bufs" <<'EOF' || bad "local '$args': CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for r in rows:
    assert (r["sync"], r["buffers"]) == ("back-to-back", sys.argv[2]), (r["sync"], r["buffers"])
    assert r["validation"] == "ok", r["validation"]
print(f"   CSV: {len(rows)} rows, buffers {sys.argv[2]}")
EOF
done
"${launch[@]}" -np 1 "$bench" local --sizes 1K --sync barrier >"$tmp/bad.txt" 2>&1 && bad "local --sync barrier was accepted"

# Bad modes: refused with exit 2 before anything runs.
for args in "--sync sometimes" "--align 48" "--offset 4096" "--offset 1/x"; do
  # shellcheck disable=SC2086
  "${launch[@]}" -np 2 "$bench" coll --sizes 4K $args >"$tmp/bad.txt" 2>&1
  rc=$?
  [ $rc != 0 ] || bad "'$args' was accepted"
  grep -q 'vred-bench' "$tmp/bad.txt" || bad "'$args': no message"
  echo "== vred-bench coll $args: refused (exit $rc)"
done
[ $fail = 0 ] && echo "bench_modes: all modes named and validated"
exit $fail
