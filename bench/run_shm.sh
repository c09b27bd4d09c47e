#!/usr/bin/env bash
# The YHCCL paper's ablations of vred's shared-memory collectives, on P ranks of one node (default
# 2), each vred column against the MPI library's own collective in the same rounds (`vred-bench
# coll`):
#   (a) algs  inside the node: ma (movement-avoiding) vs dpml (small messages) vs ring vs redscat
#             vs the MPI (and what auto picks), for allreduce, reduce_scatter_block and reduce,
#             4 KiB .. 64 MiB; the copy mode is VRED_NT's (default auto)
#   (b) nt    ordinary vs streaming vs adaptive copies (vred-bench coll --nt off,on,auto) for
#             allreduce (ma), bcast (pipe) and allgather (pipe), 64 KiB .. 256 MiB
# Writes bench/results/shm/ (not versioned): shm-{algs,nt}-<flavor>-np<P>.{txt,csv}, PNGs
# (bench/plot.py coll: log-log time per call, MPI vs each column vs the DAV bound; MPI / vred
# below), shm-tables-np<P>.md (bench/coll_table.py), printed at the end, and
# switch-points-np<P>.txt: where dpml stops winning over ma, and where streaming starts winning
# over ordinary stores (bench/coll_table.py --switch, from the CSVs).
#
# usage: bench/run_shm.sh [--build DIR] [--np P] [--mpich | --both] [--full] [--budget S]
#                         [--validate] [--only algs|nt] [--sizes LIST] [--out DIR] [--no-plot]
#                         [--sync barrier] [--align A] [--offset N|S/R]
#   default   Open MPI 4.1 over shared memory (--mca btl self,vader), sizes in powers of 4,
#             --budget 0.5 s per (collective, size): about 1 + 2 minutes on 2 cores
#   --full    sizes in powers of 2 (about twice as long)
#   --mpich   MPICH (mpirun.mpich) instead; --both: Open MPI, then MPICH
#   --sizes   explicit sizes for both ablations instead of the sweeps (a smoke test: 64K,1M)
#   --sync barrier | --align A | --offset N|S/R   vred-bench coll's measuring mode (default: calls
#             back to back on malloc'd buffers); another mode tags the file names (-barrier-align64)
# These machines are shared and noisy: read the ratios and the switch points, and run twice before
# moving a threshold.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/bench/results/shm
np=2 step=4 budget=0.5 plot=1 only= sizes=
flavors=(openmpi)
validate=()
mode=() tag=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --full) step=2; shift ;;
    --budget) budget=$2; shift 2 ;;
    --mpich) flavors=(mpich); shift ;;
    --both) flavors=(openmpi mpich); shift ;;
    --validate) validate=(--validate); shift ;;
    --only) only=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --no-plot) plot=0; shift ;;
    --sync|--align|--offset)
      mode+=("$1" "$2")
      case $1 in --sync) [ "$2" = barrier ] && tag+=-barrier ;; *) tag+=-${1#--}${2//\//_} ;; esac
      shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "run_shm.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case $only in ''|algs|nt) ;; *) echo "run_shm.sh: --only algs|nt" >&2; exit 2 ;; esac
mkdir -p "$out"

# One node, vred's own choice of node and region: no knob left over from another run may split
# the ranks into "nodes" (VRED_NODE_SIZE), turn shared memory off, or force an algorithm.
unset VRED_NODE_SIZE VRED_SHM VRED_DISABLE VRED_ALLREDUCE_ALG VRED_REDUCE_ALG VRED_REDUCE_SCATTER_ALG \
  VRED_BCAST_ALG VRED_ALLGATHER_ALG
root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)
over=()
[ "$np" -gt "$(nproc)" ] && over=(--oversubscribe)

csvs=()
failed=0
bench() { # FLAVOR NAME vred-bench-coll-args...
  local flavor=$1 name=$2; shift 2
  local exe=$build/$flavor/vred-bench launcher
  case $flavor in
    openmpi) launcher=(mpirun.openmpi "${root_flag[@]}" "${over[@]}" --mca btl self,vader -np "$np") ;;
    mpich) launcher=(mpirun.mpich -np "$np") ;;
  esac
  if [ ! -x "$exe" ] || ! command -v "${launcher[0]}" >/dev/null; then
    echo "run_shm.sh: no $exe with ${launcher[0]}: $flavor skipped" >&2
    failed=1
    return 0
  fi
  local base=$out/shm-$name-$flavor-np$np$tag
  echo "== $name, $flavor, $np ranks: vred-bench coll $*" >&2
  if "${launcher[@]}" "$exe" coll --label "$flavor-shm-$name" --budget "$budget" "${validate[@]}" \
      "${mode[@]+"${mode[@]}"}" "$@" --csv "$base.csv" >"$base.txt"; then :; else
    echo "   vred-bench coll failed (exit $?); see $base.txt" >&2
    failed=1
  fi
  grep -E '^# (allreduce|reduce|bcast|allgather|memcpy|validation|mode)|^  ' "$base.txt" | awk '!/^# mode:/ || !seen[$0]++' |
    cut -c1-160 | sed 's/^/   /' >&2
  [ -s "$base.csv" ] && csvs+=("$base.csv")
  return 0
}

sweep_a=(--min 4K --max 64M --step "$step") sweep_b=(--min 64K --max 256M --step "$step")
[ -n "$sizes" ] && sweep_a=(--sizes "$sizes") sweep_b=(--sizes "$sizes")
for f in "${flavors[@]}"; do
  [ "$only" = nt ] || bench "$f" algs --coll allreduce,reduce_scatter_block,reduce --algs auto,ma,dpml,ring,redscat \
    "${sweep_a[@]}"
  [ "$only" = algs ] || bench "$f" nt --coll allreduce,bcast,allgather --algs ma,pipe --nt off,on,auto "${sweep_b[@]}"
done
[ ${#csvs[@]} -gt 0 ] || { echo "run_shm.sh: nothing measured" >&2; exit 1; }

if [ $plot = 1 ]; then
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 "$root/bench/plot.py" coll --out "$out" "${csvs[@]}" | sed 's/^/   wrote /' >&2
  else
    echo "run_shm.sh: matplotlib missing (python3 -m pip install matplotlib); no PNGs" >&2
  fi
fi
python3 "$root/bench/coll_table.py" "${csvs[@]}" >"$out/shm-tables-np$np$tag.md"
python3 "$root/bench/coll_table.py" --switch "${csvs[@]}" >"$out/switch-points-np$np$tag.txt"
cat "$out/shm-tables-np$np$tag.md"
echo
echo "## Switch points (from the CSVs; see bench/coll_table.py --switch)"
cat "$out/switch-points-np$np$tag.txt"
echo
echo "results in $out" >&2
exit $failed
