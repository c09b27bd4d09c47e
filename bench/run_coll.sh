#!/usr/bin/env bash
# The reduction collectives, bcast and allgather on P ranks: the MPI library's own (PMPI_X) against
# each of vred's algorithms (MPI_X after vred_mpi_force), `vred-bench coll`, over three transports;
# writes tables and CSV to bench/results/coll/ (not versioned) and PNGs (time against size,
# log-log, one line per algorithm + the MPI + the DAV bound; a panel of MPI time / vred time) with
# bench/plot.py coll. The ablations of the shared-memory algorithms alone: bench/run_shm.sh.
#
# usage: bench/run_coll.sh [--build DIR] [--np P] [--min B --max B | --sizes LIST] [--quick]
#                          [--coll LIST] [--algs LIST] [--nt LIST] [--sparsity S] [--validate]
#                          [--budget S] [--out DIR] [--no-plot] [--only openmpi-shm|openmpi-tcp|mpich]
#                          [--sync barrier] [--align A] [--offset N|S/R]
#   --np P      ranks (default 2; over 2 adds --oversubscribe for Open MPI)
#   --quick     vred's automatic choice only (--algs auto), sizes 4K 64K 1M 16M, --budget 0.4:
#               the headline `make bench` prints (about a minute at 2 ranks); every algorithm's
#               column is the default run's
#   default     4K .. 64M in powers of 4, --budget 0.5
#   --coll      default allreduce,reduce,reduce_scatter_block,bcast,allgather
#   --algs      default: every algorithm each collective has (auto, binomial, redscat, ring, recdbl,
#               and inside a node ma, dpml, pipe, cma); openmpi-tcp leaves the shared-memory ones out
#               (VRED_NODE_SIZE=1: every rank its own node, nothing for them to serve)
#   --nt LIST   each vred algorithm under each copy mode (off,on,auto): columns ALG/MODE
# Mode (vred-bench coll's; every table header, CSV row and plot title says which):
#   default     calls back to back (one barrier per timed batch, none per call, as IMB and OSU)
#               on buffers from plain malloc: the way applications call
#   --sync barrier  a barrier before every call;  --align A  A-aligned buffers (e.g. 64);
#   --offset N  buffers N bytes past a 4096-aligned address (S/R: send S, receive R)
#               A mode other than the default adds it to the file names (coll-NAME-npP-barrier-align64.*)
# Transports (each its own run and CSV):
#   openmpi-shm  mpirun.openmpi                                  shared memory (vader)
#   openmpi-tcp  mpirun.openmpi --mca btl tcp,self, VRED_NODE_SIZE=1 (vred models every rank as a node)
#   mpich        mpirun.mpich
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/bench/results/coll
np=2 plot=1
minb=4K maxb=64M sizes=
budget=0.5
quick=0
extra=()
only=
colls=allreduce,reduce,reduce_scatter_block,bcast,allgather
default_colls=$colls
algs=
mode=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --min) minb=$2; shift 2 ;;
    --max) maxb=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --quick) sizes=4K,64K,1M,16M; budget=0.4; quick=1; shift ;;
    --budget) budget=$2; shift 2 ;;
    --coll) colls=$2; shift 2 ;;
    --algs) algs=$2; shift 2 ;;
    --nt|--sparsity|--dense-rank|--type|--op|--reps) extra+=("$1" "$2"); shift 2 ;;
    --validate) extra+=(--validate); shift ;;
    --only) only=$2; shift 2 ;;
    --no-plot) plot=0; shift ;;
    --sync|--align|--offset) mode+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "run_coll.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
# The mode's file-name tag: empty for the default, e.g. -barrier-align64, -offset0_16 otherwise.
tag=
set -- "${mode[@]+"${mode[@]}"}"
while [ $# -gt 0 ]; do
  case $1 in
    --sync) case $2 in barrier|call) tag+=-barrier ;; esac ;;
    --align) tag+=-align$2 ;;
    --offset) tag+=-offset${2//\//_} ;;
  esac
  shift 2
done
if [ -n "$sizes" ]; then sweep=(--sizes "$sizes"); else sweep=(--min "$minb" --max "$maxb"); fi

root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)
over=()
[ "$np" -gt 2 ] && over=(--oversubscribe)

csvs=()
failed=0
run() { # NAME LAUNCHER... (the vred-bench path ends it)
  local name=$1; shift
  [ -n "$only" ] && [ "$only" != "$name" ] && return 0
  local a=$algs c=$colls
  [ -z "$a" ] && [ "$quick" = 1 ] && a=auto
  if [ -z "$a" ]; then # every rank its own node over TCP: no shared-memory algorithm to measure
    if [ "$name" = openmpi-tcp ]; then a=auto,binomial,redscat,ring,recdbl; else a=auto,binomial,redscat,ring,recdbl,ma,dpml,pipe,cma; fi
  fi
  # Over TCP (every rank its own node) vred's bcast/allgather are the MPI's: nothing to compare.
  if [ "$name" = openmpi-tcp ] && [ "$c" = "$default_colls" ]; then c=allreduce,reduce,reduce_scatter_block; fi
  echo "== $name ($np ranks): $*" >&2
  local f=$out/coll-$name-np$np$tag
  if "$@" coll --label "$name" "${sweep[@]}" --budget "$budget" --coll "$c" --algs "$a" \
      "${extra[@]+"${extra[@]}"}" "${mode[@]+"${mode[@]}"}" --csv "$f.csv" >"$f.txt"; then :; else
    echo "   $name: vred-bench coll failed (exit $?); see $f.txt" >&2
    failed=1
  fi
  # The mode line once (every table header repeats it).
  grep -E '^# (allreduce|reduce|scan|bcast|allgather|Size|\(B\)|validation|memcpy|mode|cpu)|^  ' "$f.txt" |
    awk '!/^# mode:/ || !seen[$0]++' | sed 's/^/   /' >&2
  [ -s "$f.csv" ] && csvs+=("$f.csv")
  return 0
}

ran=0
if [ -x "$build/openmpi/vred-bench" ] && command -v mpirun.openmpi >/dev/null; then
  run openmpi-shm mpirun.openmpi "${root_flag[@]}" "${over[@]}" -np "$np" "$build/openmpi/vred-bench"
  run openmpi-tcp mpirun.openmpi "${root_flag[@]}" "${over[@]}" --mca btl tcp,self -x VRED_NODE_SIZE=1 \
    -np "$np" "$build/openmpi/vred-bench"
  ran=1
fi
if [ -x "$build/mpich/vred-bench" ] && command -v mpirun.mpich >/dev/null; then
  run mpich mpirun.mpich -np "$np" "$build/mpich/vred-bench"
  ran=1
fi
[ $ran = 1 ] || { echo "run_coll.sh: no $build/<flavor>/vred-bench with its mpirun" >&2; exit 1; }

if [ $plot = 1 ] && [ ${#csvs[@]} -gt 0 ]; then
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 "$root/bench/plot.py" coll --out "$out" "${csvs[@]}" | sed 's/^/   wrote /' >&2
  else
    echo "run_coll.sh: matplotlib missing (python3 -m pip install matplotlib); no PNGs" >&2
  fi
fi
echo "results in $out" >&2
exit $failed
