#!/usr/bin/env bash
# vred's automatic choice against the MPI it runs over, for every MPI at hand: Debian's Open MPI
# 4.1 and MPICH 4.0 (BUILD, `make build`) and the PyPI Open MPI 5, MPICH 5 and Intel MPI
# (PEERS_BUILD, `make peers`); 2 ranks, calls back to back on malloc'd buffers (vred-bench coll's
# default mode), allreduce, reduce, reduce_scatter_block, bcast and allgather, 4 KiB-64 MiB in
# powers of 4. In each process the MPI's collective and vred's choice alternate. Then the tables
# (bench/peers_table.py): MPI time / vred time per MPI, collective and size, the choice, the
# worst cell per MPI and every cell under 0.95; then the medians (each MPI alone, vred over it,
# the fastest of each and best alone / best vred) with the reduction cells >= 1 MiB under 1.2 and
# the cells where best vred is slower than best alone. CSVs, the table (table.md) and a PNG per
# collective (<collective>.png, with matplotlib) in OUT (bench/results/peers).
#
# The automatic choice is learned (VRED_LEARN, docs/collectives.md): the first run on a machine
# measures each size class in vred-bench's warm-up and keeps it in the cache; VRED_LEARN=redo
# measures again, VRED_LEARN=off shows the cost model alone.
#
# usage: bench/run_peers.sh [--out DIR] [--budget S] [--sizes LIST] [NAME...]
#   NAME: openmpi mpich openmpi5 mpich5 impi (default: each one built)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
peers=${PEERS_BUILD:-$root/build-peers}
out=$root/bench/results/peers
budget=0.4
range=(--min 4K --max 64M --step 4)
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --sizes) range=(--sizes "$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(openmpi mpich openmpi5 mpich5 impi)
mkdir -p "$out"
args=(coll --coll allreduce,reduce,reduce_scatter_block,bcast,allgather --algs auto
      --budget "$budget" "${range[@]}")
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
fam=$(lscpu | sed -n 's/^CPU family: *//p' | head -1)
model=$(lscpu | sed -n 's/^Model: *//p' | head -1)
isa=$(grep -q avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)
table=()
for n in "${names[@]}"; do
  csv=$out/$n.csv
  rm -f "$csv"
  case $n in
    openmpi)
      [ -x "$build/openmpi/vred-bench" ] || { echo "== $n: not built ($build)"; continue; }
      echo "== $n"
      mpirun.openmpi --allow-run-as-root -np 2 "$build/openmpi/vred-bench" "${args[@]}" --csv "$csv" ;;
    mpich)
      [ -x "$build/mpich/vred-bench" ] || { echo "== $n: not built ($build)"; continue; }
      echo "== $n"
      mpirun.mpich -np 2 "$build/mpich/vred-bench" "${args[@]}" --csv "$csv" ;;
    *)
      lib=$peers/$n/libvred-mpi.so
      [ -x "$peers/$n/vred-bench" ] && [ -f "$lib" ] || { echo "== $n: not built ($peers; make peers)"; continue; }
      echo "== $n"
      "$root/scripts/peers-run.sh" "$n" --preload "$lib" -np 2 "$peers/$n/vred-bench" "${args[@]}" --csv "$csv" ;;
  esac | grep -E '^# (allreduce|reduce|reduce_scatter_block|bcast|allgather)|^ +[0-9]+ ' || true
  [ -s "$csv" ] && table+=("$n=$csv")
done
[ ${#table[@]} -gt 0 ] || { echo "run_peers.sh: no MPI built" >&2; exit 1; }
{
  echo "# vred's automatic choice over each MPI ($(date -u +%Y-%m-%d), $cpu, family $fam model $model, $isa)"
  echo
  echo "Command: bench/run_peers.sh ${names[*]}"
  echo
  python3 "$root/bench/peers_table.py" --png "$out" "${table[@]}"
} | tee "$out/table.md"
