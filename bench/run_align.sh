#!/usr/bin/env bash
# Every vred algorithm at send/receive offsets against its own aligned time (issue 16, item 1):
# vred-bench coll with each of vred's algorithms forced and the MPI's, calls back to back, at
# 0/0 (4096-aligned) and at each offset S/R (bytes past a 4096-aligned address), then
# bench/align_table.py: time at 0/0 / time at the offset per collective, algorithm and size.
#
# usage: bench/run_align.sh [--mpi openmpi|mpich] [--type f32|f64|u8] [--sizes LIST]
#                           [--offsets LIST] [--coll LIST] [--algs LIST] [--budget S] [--out DIR]
#                           [--rounds R]
#   defaults: openmpi, f32, sizes 64K,1M,16M, offsets 4/4,8/8,16/16,32/32,48/48,0/16,16/0,
#   (16/16 is the issue's "16 mod 4096"; u8: 1/1,0/1 as well), every collective and algorithm, 5 rounds.
#   --coll takes reduce_local too (in the default list): MPI_Reduce_local, one process, vred's kernel
#   and the MPI's, warm and cold (vred-bench local --case TYPE:sum), at the same offsets (in S, inout R).
#   Each round runs every offset once, 0/0 included, starting one offset later than the round
#   before, and the table takes the fastest of the rounds per cell: the machine's slow spells
#   (another job, or its two cores' shared-memory traffic dropping to a fifth for seconds:
#   bench/align_table.py) take whole runs, and one pass per offset blamed the offsets for them
#   (even the MPI's own column dropped 4x).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
mpi=openmpi type=f32 sizes=64K,1M,16M budget=0.3 out=$root/bench/results/align
offsets= colls=allreduce,reduce,reduce_scatter_block,bcast,allgather,reduce_local algs= rounds=5
while [ $# -gt 0 ]; do
  case $1 in
    --mpi) mpi=$2; shift 2 ;;
    --type) type=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --offsets) offsets=$2; shift 2 ;;
    --coll) colls=$2; shift 2 ;;
    --algs) algs=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "run_align.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$offsets" ]; then
  offsets=4/4,8/8,16/16,32/32,48/48,0/16,16/0
  [ "$type" != u8 ] || offsets=1/1,0/1,$offsets
fi
case $mpi in
  openmpi) run=(mpirun.openmpi --allow-run-as-root -np 2) one=(mpirun.openmpi --allow-run-as-root -np 1) ;;
  mpich) run=(mpirun.mpich -np 2) one=(mpirun.mpich -np 1) ;;
  *) echo "run_align.sh: --mpi openmpi|mpich" >&2; exit 2 ;;
esac
mkdir -p "$out"
# reduce_local is vred-bench local's (one process); the rest vred-bench coll's (2 ranks).
local=0 cl=()
for c in ${colls//,/ }; do
  if [ "$c" = reduce_local ]; then local=1; else cl+=("$c"); fi
done
args=(coll --coll "$(IFS=,; echo "${cl[*]}")" --type "$type" --sizes "$sizes" --budget "$budget")
[ -z "$algs" ] || args+=(--algs "$algs")
largs=(local --case "$type:sum" --sizes "$sizes" --budget "$budget")
offs=(0/0 ${offsets//,/ })
declare -A files
for r in $(seq 1 "$rounds"); do
  for k in "${!offs[@]}"; do
    off=${offs[$(( (k + r - 1) % ${#offs[@]} ))]}
    csv=$out/$mpi-$type-${off//\//_}-r$r.csv
    echo "== $mpi $type round $r/$rounds offset $off ($(uptime | sed 's/.*load average/load/'))"
    if [ ${#cl[@]} -gt 0 ]; then
      "${run[@]}" "$build/$mpi/vred-bench" "${args[@]}" --offset "$off" --csv "$csv" >/dev/null
      files[$off]=${files[$off]:+${files[$off]},}$csv
    fi
    if [ $local = 1 ]; then
      "${one[@]}" "$build/$mpi/vred-bench" "${largs[@]}" --offset "$off" --csv "${csv%.csv}-local.csv" >/dev/null
      files[$off]=${files[$off]:+${files[$off]},}${csv%.csv}-local.csv
    fi
  done
done
pairs=()
for off in "${offs[@]}"; do pairs+=("$off=${files[$off]}"); done
python3 "$root/bench/align_table.py" "${pairs[@]}" | tee "$out/$mpi-$type.md"
