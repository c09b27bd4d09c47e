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
# Rounds: each MPI runs --rounds times (default 3), in turn with the others, each time in new
# processes; every ratio is the median of the rounds' ratios, every time the quietest round's
# (bench/peers_table.py, combine). A whole run can
# sit in one of the machine's slow spells (docs/peers.md: on 2026-11-24, 2 to 4 of 8 runs of vred's
# pipelined allgather at 1 MiB took 3.5-4x their usual time from start to end), and across MPIs
# the table compares different processes: with one run each, such a run decided a cell.
#
# usage: bench/run_peers.sh [--out DIR] [--budget S] [--sizes LIST] [--rounds N] [NAME...]
#   NAME: openmpi mpich openmpi5 mpich5 impi (default: each one built)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
peers=${PEERS_BUILD:-$root/build-peers}
out=$root/bench/results/peers
budget=0.4
rounds=3
range=(--min 4K --max 64M --step 4)
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --sizes) range=(--sizes "$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
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
# One run of MPI $1 into CSV $2 (nothing when that MPI is not built).
run_one() {
  local n=$1 csv=$2 lib
  case $n in
    openmpi)
      [ -x "$build/openmpi/vred-bench" ] || { echo "== $n: not built ($build)"; return 0; }
      echo "== $n"
      mpirun.openmpi --allow-run-as-root -np 2 "$build/openmpi/vred-bench" "${args[@]}" --csv "$csv" ;;
    mpich)
      [ -x "$build/mpich/vred-bench" ] || { echo "== $n: not built ($build)"; return 0; }
      echo "== $n"
      mpirun.mpich -np 2 "$build/mpich/vred-bench" "${args[@]}" --csv "$csv" ;;
    *)
      lib=$peers/$n/libvred-mpi.so
      [ -x "$peers/$n/vred-bench" ] && [ -f "$lib" ] || { echo "== $n: not built ($peers; make peers)"; return 0; }
      echo "== $n"
      "$root/scripts/peers-run.sh" "$n" --preload "$lib" -np 2 "$peers/$n/vred-bench" "${args[@]}" --csv "$csv" ;;
  esac
}
for n in "${names[@]}"; do rm -f "$out/$n.csv" "$out/$n".round*.csv; done
# Round by round, every MPI in turn: a slow spell of the machine then falls on one round of
# several MPIs, not on every round of one.
for ((k = 1; k <= rounds; k++)); do
  echo "== round $k of $rounds"
  for n in "${names[@]}"; do
    run_one "$n" "$out/$n.round$k.csv" |
      grep -E '^== |^# (allreduce|reduce|reduce_scatter_block|bcast|allgather)|^ +[0-9]+ ' || true
  done
done
# One CSV per MPI: the rounds' rows one after the other (one header); peers_table.py pairs each
# round's MPI row with its vred row: the rounds' median ratio, the quietest round's times.
table=()
for n in "${names[@]}"; do
  csv=$out/$n.csv
  for f in "$out/$n".round*.csv; do
    [ -s "$f" ] || continue
    if [ -s "$csv" ]; then tail -n +2 "$f" >>"$csv"; else cp "$f" "$csv"; fi
    rm -f "$f"
  done
  [ -s "$csv" ] && table+=("$n=$csv")
done
[ ${#table[@]} -gt 0 ] || { echo "run_peers.sh: no MPI built" >&2; exit 1; }
{
  echo "# vred's automatic choice over each MPI ($(date -u +%Y-%m-%d), $cpu, family $fam model $model, $isa)"
  echo
  echo "Command: bench/run_peers.sh --rounds $rounds ${names[*]}"
  echo
  python3 "$root/bench/peers_table.py" --png "$out" "${table[@]}"
} | tee "$out/table.md"
