#!/usr/bin/env bash
# Runs one MPI test (its launcher command line after --) with vred built under ASan + UBSan
# (VRED_SANITIZE=ON), and judges the leaks afterwards: the MPI libraries leak at exit by design,
# vred must not. ASan errors abort the rank (the launcher then fails); UBSan is built with
# -fno-sanitize-recover=all and halts on the first report. LeakSanitizer's reports go to
# per-process logs, sorted by leaks.awk: a leak whose allocation is vred's (or unclassifiable)
# fails the test; the MPI's own are counted.
# Usage: asan_mpi.sh <vred source dir> -- <mpiexec ...>
set -u
src=$1
shift
[ "${1:-}" = -- ] && shift
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# fast_unwind_on_malloc=0: the MPI libraries have no frame pointers; the slow unwinder gives
# whole allocation stacks, without which no leak could be told apart.
export ASAN_OPTIONS="log_path=$logs/asan:fast_unwind_on_malloc=0:detect_leaks=1:halt_on_error=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="exitcode=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
"$@"
rc=$?
status=$rc
# An ASan error aborts its rank, so the launcher fails: show the reports then. (Not otherwise:
# tests/mpi/errors.c crashes forked children on purpose, inside the MPI.)
if [ "$rc" != 0 ] && grep -l "ERROR: AddressSanitizer" "$logs"/asan.* >/dev/null 2>&1; then
  echo "asan_mpi: AddressSanitizer reports:"
  grep -l "ERROR: AddressSanitizer" "$logs"/asan.* | xargs cat
fi
if ls "$logs"/asan.* >/dev/null 2>&1; then
  cat "$logs"/asan.* | awk -v src="$src" -f "$here/leaks.awk" || status=1
else
  echo "leaks: none reported"
fi
[ "$rc" = 0 ] || echo "asan_mpi: the run exited with $rc"
exit $status
