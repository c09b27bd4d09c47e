#!/usr/bin/env bash
# Every vred algorithm at send/receive offsets against its own aligned time (issue 16, item 1):
# `vred-bench offsets` runs each algorithm (vred's, forced in turn, and the MPI's own) at 0/0
# (4096-aligned) and at each offset S/R (bytes past a 4096-aligned address), the offsets taking
# turns within every round of one run, so the ratio of each round (time at 0/0 / time at S/R)
# compares calls made seconds apart; the table (bench/align_table.py) gives the median ratio over
# the rounds. MPI_Reduce_local runs in one process (vred's kernel and the MPI's).
#
# usage: bench/run_align.sh [--mpi openmpi|mpich] [--type f32|f64|u8] [--sizes LIST]
#                           [--offsets LIST] [--coll LIST] [--algs LIST] [--budget S] [--reps N]
#                           [--runs N] [--np P] [--node-size K] [--tag NAME] [--out DIR]
#   defaults: openmpi, f32, sizes 4K,64K,1M,16M,64M, offsets 4/4,8/8,16/16,32/32,48/48,0/16,16/0
#   (16/16 is the issue's "16 mod 4096"; u8: 1/1,0/1 as well), collectives allreduce, reduce,
#   reduce_scatter_block, bcast, allgather and reduce_local, every algorithm, 15 rounds a cell.
#   --runs N repeats the whole run N times (files -rK); a cell's ratio is then the median of the
#   runs' ratios. --np P --node-size K --tag NAME: P ranks (oversubscribed past the cores) that
#   vred takes for nodes of K (VRED_NODE_SIZE: the hierarchical forms of ma, dpml and pipe, the
#   leaders' point-to-point between the nodes), files named MPI-TYPE-NAME-rK.csv.
#   Before this script ran each offset in a separate process, minutes apart, and took the fastest
#   of 3 rounds per cell: the host's slow spells (another guest, or the two cores' shared-memory
#   traffic dropping to a fifth for seconds: docs/peers.md) then put the MPI's own allreduce at
#   0.76-0.87x of itself at offsets where it had no reason to slow down.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
mpi=openmpi type=f32 sizes=4K,64K,1M,16M,64M budget=0.5 out=$root/bench/results/align
offsets= colls=allreduce,reduce,reduce_scatter_block,bcast,allgather,reduce_local algs= reps=15 runs=1
np=2 node_size= tag=
while [ $# -gt 0 ]; do
  case $1 in
    --mpi) mpi=$2; shift 2 ;;
    --type) type=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --offsets) offsets=$2; shift 2 ;;
    --coll) colls=$2; shift 2 ;;
    --algs) algs=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --node-size) node_size=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "run_align.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case $mpi in
  openmpi) run=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" ${node_size:+-x VRED_NODE_SIZE=$node_size})
           one=(mpirun.openmpi --allow-run-as-root -np 1) ;;
  mpich) run=(mpirun.mpich -np "$np" ${node_size:+-env VRED_NODE_SIZE $node_size}) one=(mpirun.mpich -np 1) ;;
  *) echo "run_align.sh: --mpi openmpi|mpich" >&2; exit 2 ;;
esac
mkdir -p "$out"
# reduce_local runs in one process; the rest on 2 ranks.
local=0 cl=()
for c in ${colls//,/ }; do
  if [ "$c" = reduce_local ]; then local=1; else cl+=("$c"); fi
done
args=(offsets --type "$type" --sizes "$sizes" --budget "$budget" --reps "$reps")
[ -z "$offsets" ] || args+=(--offsets "$offsets")
files=()
for r in $(seq 1 "$runs"); do
  base=$out/$mpi-$type${tag:+-$tag}-r$r
  echo "== $mpi $type run $r/$runs ($(uptime | sed 's/.*load average/load/'))"
  if [ ${#cl[@]} -gt 0 ]; then
    "${run[@]}" "$build/$mpi/vred-bench" "${args[@]}" --coll "$(IFS=,; echo "${cl[*]}")" \
      ${algs:+--algs "$algs"} --csv "$base.csv"
    files+=("$base.csv")
  fi
  if [ $local = 1 ]; then
    "${one[@]}" "$build/$mpi/vred-bench" "${args[@]}" --coll reduce_local --csv "$base-local.csv"
    files+=("$base-local.csv")
  fi
done
python3 "$root/bench/align_table.py" "${files[@]}" | tee "$out/$mpi-$type${tag:+-$tag}.md"
