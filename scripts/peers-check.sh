#!/usr/bin/env bash
# vred over each peer MPI (scripts/install-peers.sh), built in BUILD (default build-peers, by
# `make peers`): on 2 ranks with libvred-mpi.so preloaded the launcher's way,
#   1. tests/mpi/coll.c (test_mpi_coll_<mpi> --expect-vred): every reduction collective and
#      algorithm against the MPI's own PMPI_X, bit for bit (Open MPI: --mca op ^avx, its scalar
#      operators, as tests/mpi/CMakeLists.txt runs it);
#   2. tests/mpi/coll_move.c (test_mpi_coll_move_<mpi> --expect-vred): bcast and allgather under
#      every algorithm, against the MPI's own and the exact answer, including the receivers of a
#      small bcast that unpack the root's bytes into a strided type (PMPI_Unpack of raw bytes);
#   3. vred-bench coll --sizes 4K,1M --algs auto --validate: vred's choice against the MPI's.
# Steps 1 and 2 run with VRED_LEARN=off, as `make test` runs them: their "auto" cases assert the
# cost model's choice, where a learned one may hand a class to the MPI. A minute or two per MPI
# on 2 idle cores. Usage: scripts/peers-check.sh [BUILD] [NAME...]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build-peers}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || read -r -a names <<< "$("$here/peers-env.sh" --list)"
build=$(cd "$build" && pwd)

failed=()
for n in "${names[@]}"; do
  lib=$build/$n/libvred-mpi.so
  test=$build/tests/mpi/test_mpi_coll_$n
  if [ ! -f "$lib" ] || [ ! -x "$test" ] || [ ! -x "$build/$n/vred-bench" ]; then
    echo "== $n: not built in $build (make peers)"
    failed+=("$n")
    continue
  fi
  extra=()
  [ "$n" != openmpi5 ] || extra=(--mca op ^avx)
  echo "== $n: tests/mpi/coll.c, 2 ranks, vred preloaded"
  if out=$(VRED_LEARN=off timeout 600 "$here/peers-run.sh" "$n" --preload "$lib" "${extra[@]}" -np 2 "$test" --expect-vred 2>&1); then
    printf '%s\n' "$out" | grep '^coll:' || true
  else
    printf '%s\n' "$out" | tail -20
    echo "   FAILED"
    failed+=("$n")
  fi
  move=$build/tests/mpi/test_mpi_coll_move_$n
  echo "== $n: tests/mpi/coll_move.c, 2 ranks, vred preloaded"
  if [ ! -x "$move" ]; then
    echo "   not built in $build (make peers)"
    failed+=("$n")
  elif out=$(VRED_LEARN=off timeout 600 "$here/peers-run.sh" "$n" --preload "$lib" -np 2 "$move" --expect-vred 2>&1); then
    printf '%s\n' "$out" | grep -E '^(coll_move|NOTE)' || true
  else
    printf '%s\n' "$out" | tail -20
    echo "   FAILED"
    failed+=("$n")
  fi
  echo "== $n: vred-bench coll --sizes 4K,1M --algs auto --validate, 2 ranks, vred preloaded"
  if out=$(timeout 600 "$here/peers-run.sh" "$n" --preload "$lib" -np 2 "$build/$n/vred-bench" coll \
             --sizes 4K,1M --algs auto --budget 0.2 --validate 2>&1); then
    printf '%s\n' "$out" | grep -E '^# vred-bench|^# (allreduce|reduce|reduce_scatter_block)|^# \(B\)|^ +[0-9]+ |^# validation'
  else
    printf '%s\n' "$out" | tail -20
    echo "   FAILED"
    failed+=("$n")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "peers-check.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "peers-check.sh: vred passes over ${names[*]}"
