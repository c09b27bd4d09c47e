#!/usr/bin/env bash
# Compression against sparsity (the third paper's figures 10-11): 2 ranks over Open MPI's TCP
# (`--mca btl tcp,self`, VRED_NODE_SIZE=1: every rank its own node), float SUM, MPI_Reduce and
# MPI_Allreduce with vred's auto algorithm, the input a given fraction of exact zeros (uniform).
# For each sparsity: vred dense (VRED_SPARSE=off), Bits, Idx (forced) and auto, and the MPI's own,
# each its own run of `vred-bench coll`; prints one table of times and ratios over dense, and the
# same with one rank dense (the BIGSTICK case: auto must cost no more than dense).
#
# usage: bench/run_sparse.sh [--build DIR] [--size 64M] [--sparsities "0 0.1 ..."] [--out DIR]
#                            [--coll "reduce allreduce"] [--dense "- 1"]
#   --coll   the collectives (default both); --dense "-": every rank sparse only, "1": rank 1 dense
#            only (default both cases)
# Writes OUT/table.txt and OUT/sparse.csv (one row per collective, case and sparsity: the medians
# and the ratios of the table), and one vred-bench CSV per measurement.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
size=64M
sparsities="0 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.95 0.99"
out=$here/results/sparse
colls="reduce allreduce"
denses="- 1"
while [ $# -gt 0 ]; do
  case $1 in
    --coll) colls=${2//,/ }; shift 2 ;;
    --dense) denses=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --size) size=$2; shift 2 ;;
    --sparsities) sparsities=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "run_sparse.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
bench=$build/openmpi/vred-bench
[ -x "$bench" ] || { echo "run_sparse.sh: no $bench (make first)" >&2; exit 1; }
mkdir -p "$out"
run=(mpirun.openmpi --allow-run-as-root -np 2 --mca btl tcp,self -x VRED_NODE_SIZE=1)
[ "$(id -u)" = 0 ] || run=(mpirun.openmpi -np 2 --mca btl tcp,self -x VRED_NODE_SIZE=1)

# One measurement: median us of vred auto (and of the MPI) for coll at sparsity s, mode m.
measure() { # coll s mode dense_rank
  local extra=()
  [ "$4" = - ] || extra=(--dense-rank "$4")
  VRED_SPARSE=$3 "${run[@]}" -x VRED_SPARSE "$bench" coll --coll "$1" --algs auto --sizes "$size" \
    --sparsity "$2" "${extra[@]}" --budget 0.6 --validate --csv "$out/$1-$2-$3-$4.csv" |
    awk '$1 ~ /^[0-9]+$/ { print $2, $3; exit }'
}

echo "collective,dense_rank,sparsity,mpi_us,dense_us,bits_us,idx_us,auto_us,x_bits,x_idx,x_auto,x_auto_vs_mpi" >"$out/sparse.csv"
for dense in $denses; do
  echo
  if [ "$dense" = - ]; then echo "# every rank sparse"; else echo "# rank 1 dense, rank 0 sparse"; fi
  echo "# $size float SUM, 2 ranks, TCP; times in us (median); ratio = dense time / time (> 1: faster than dense)"
  for coll in $colls; do
    echo "# $coll"
    printf "%-9s %10s %10s %10s %10s %10s %7s %7s %7s\n" sparsity MPI dense bits idx auto "x:bits" "x:idx" "x:auto"
    for s in $sparsities; do
      read -r mpi dense_t < <(measure $coll $s off $dense)
      read -r _ bits_t < <(measure $coll $s bits $dense)
      read -r _ idx_t < <(measure $coll $s idx $dense)
      read -r _ auto_t < <(measure $coll $s auto $dense)
      awk -v s=$s -v m=$mpi -v d=$dense_t -v b=$bits_t -v i=$idx_t -v a=$auto_t 'BEGIN {
        printf "%-9s %10.0f %10.0f %10.0f %10.0f %10.0f %7.2f %7.2f %7.2f\n", s, m, d, b, i, a, d/b, d/i, d/a }'
      awk -v c=$coll -v r=$dense -v s=$s -v m=$mpi -v d=$dense_t -v b=$bits_t -v i=$idx_t -v a=$auto_t 'BEGIN {
        printf "%s,%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.4f,%.4f,%.4f,%.4f\n", c, r, s, m, d, b, i, a, d/b, d/i, d/a, m/a }' \
        >>"$out/sparse.csv"
    done
  done
done | tee "$out/table.txt"
