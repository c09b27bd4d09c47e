#!/usr/bin/env bash
# The Fortran tests (tests/fortran/CMakeLists.txt). Usage:
#   run.sh coll    EXE LIB LAUNCHER...   fcoll (one binding) must pass: every collective bitwise
#                                        equal to the MPI's, vred_mpi_last_alg() naming vred; and
#                                        VRED_STATS must show vred served MPI_Reduce_local and
#                                        every collective, passing on only the calls the test
#                                        forced to the MPI (and what vred never serves: tiny
#                                        allreduces, a one-rank bcast/allgather). LIB is
#                                        also preloaded unless VRED_FTEST_PRELOAD=0 (ASan)
#   run.sh inject  EXE LIB LAUNCHER...   the same with one result bit flipped: must fail
#   run.sh preload EXE LIB LAUNCHER...   fallreduce_loop, not linked with vred, LIB preloaded:
#                                        vred must serve every 1 MiB allreduce, and the printed
#                                        checksum must equal the MPI's alone
#   run.sh tool-first|vred-first EXE LIB TOOL LAUNCHER...
#                                        fallreduce_loop with ftool.c (a PMPI tool wrapping
#                                        mpi_allreduce_ and mpi_finalize_) preloaded before or
#                                        after LIB: vred serves every 1 MiB allreduce either way;
#                                        the tool sees every call when first, none when after
#                                        (Open MPI; with MPICH vred wraps no Fortran collective)
# LAUNCHER: the MPI's launcher with its options and -np N. Exit 0 pass, 1 fail, 77 skip.
set -u
mode=$1 exe=$2 lib=$3
shift 3
[ -x "$exe" ] || { echo "SKIP: $exe was not built (no Fortran compiler for this MPI)"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

case $mode in
coll)
  # VRED_FTEST_PRELOAD=0: the program is linked with LIB; do not preload it (ASan builds)
  pre=(LD_PRELOAD="$lib")
  [ "${VRED_FTEST_PRELOAD:-1}" = 0 ] && pre=()
  "$@" env VRED_STATS=sum "${pre[@]}" "$exe" >"$out" 2>&1 || fail "exit status $?"
  grep -q ' 0 failures$' "$out" || fail "no '0 failures' line"
  np=$(sed -n 's/^ *fortran collectives: \([0-9]*\) ranks.*/\1/p' "$out")
  stats=$(grep '^vred-stats rank=all coll=' "$out") || fail "no VRED_STATS lines"
  # Calls vred passed: only those forced to the MPI, the final one-integer allreduces, and (one
  # rank) bcast/allgather.
  bad=$(grep ' alg=mpi ' <<<"$stats" | grep -v -e 'reason=forced' \
        -e 'coll=allreduce size=<4K alg=mpi reason=below-threshold' \
        -e 'coll=\(bcast\|allgather\) .*reason=one-per-node')
  [ -z "$bad" ] || fail "vred passed calls it should have served: $bad"
  for c in reduce allreduce reduce_scatter scan exscan bcast allgather reduce_local; do
    [ "$np" = 1 ] && { [ $c = bcast ] || [ $c = allgather ]; } && continue
    grep "coll=$c " <<<"$stats" | grep -v -q ' alg=mpi ' || fail "vred served no $c call"
  done
  echo "PASS: $(grep 'failures' "$out"); vred served every collective (VRED_STATS)"
  ;;
inject)
  "$@" env VRED_FTEST_INJECT=1 LD_PRELOAD="$lib" "$exe" >"$out" 2>&1 &&
    fail "passed with a corrupted result"
  grep -q "result differs from the MPI's, bitwise" "$out" || fail "no bitwise mismatch reported"
  echo "PASS: the corrupted result was caught"
  ;;
preload)
  "$@" env VRED_STATS=sum LD_PRELOAD="$lib" "$exe" 262144 5 1 >"$out" 2>&1 || fail "exit status $?"
  with=$(sed -n 's/.*checksum= *//p' "$out")
  calls=$(grep '^vred-stats rank=all coll=allreduce size=1M-16M ' "$out")
  np=$(sed -n 's/.* ranks=\([0-9]*\) .*/\1/p' "$out")
  [ -n "$calls" ] || fail "no 1 MiB allreduce in VRED_STATS"
  grep -q ' alg=mpi ' <<<"$calls" && fail "vred passed 1 MiB allreduces: $calls"
  n=$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^calls=/) s += substr($i, 7)} END {print s + 0}' \
      <<<"$calls")
  [ "$n" = $((6 * np)) ] || fail "vred served $n of $((6 * np)) 1 MiB allreduces"
  "$@" "$exe" 262144 5 1 >"$out" 2>&1 || fail "without vred: exit status $?"
  without=$(sed -n 's/.*checksum= *//p' "$out")
  [ -n "$with" ] && [ "$with" = "$without" ] ||
    fail "checksum with vred '$with', without '$without'"
  echo "PASS: vred served all $n 1 MiB allreduces of a plain \`use mpi\` program;" \
       "checksum $with as without vred"
  ;;
tool-first | vred-first)
  tool=$1
  shift
  if [ "$mode" = tool-first ]; then pre=$tool:$lib; else pre=$lib:$tool; fi
  "$@" env VRED_STATS=sum LD_PRELOAD="$pre" "$exe" 262144 5 1 >"$out" 2>&1 ||
    fail "exit status $?"
  np=$(sed -n 's/.* ranks=\([0-9]*\) .*/\1/p' "$out")
  calls=$(grep '^vred-stats rank=all coll=allreduce size=1M-16M ' "$out") ||
    fail "no 1 MiB allreduce in VRED_STATS (or no VRED_STATS: MPI_FINALIZE missed vred)"
  grep -q ' alg=mpi ' <<<"$calls" && fail "vred passed 1 MiB allreduces: $calls"
  # The tool wraps 6 large and 1 small allreduce per rank and one finalize. It sees them unless
  # vred comes first and defines those Fortran names (Open MPI; on MPICH vred serves the C
  # MPI_Allreduce the MPI's Fortran binding calls, below any Fortran tool).
  want="allreduce=7 finalize=1"
  if [ "$mode" = vred-first ] && nm -D --defined-only "$lib" | grep -q ' mpi_allreduce_$'; then
    want="allreduce=0 finalize=0"
  fi
  got=$(grep -c "^ftool: $want\$" "$out")
  [ "$got" = "$np" ] || fail "expected $np lines 'ftool: $want'"
  echo "PASS ($mode): vred served the 1 MiB allreduces; the tool saw: $want"
  ;;
*)
  echo "usage: run.sh coll|inject|preload|tool-first|vred-first EXE LIB [TOOL] LAUNCHER..."
  exit 2
  ;;
esac
