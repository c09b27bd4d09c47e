#!/usr/bin/env bash
# MPI_Reduce_local: vred vs the MPI library underneath vs memcpy, for every MPI built, plus the
# AVX-512/SVE tail comparison; writes tables, CSV and PNGs to bench/results/ (not versioned).
#
# usage: bench/run_local.sh [--build DIR] [--full] [--validate] [--isa ISA] [--case LIST]
#                           [--out DIR] [--no-plot] [--counters] [--align A | --offset N|S/R]
#   default   a short run (a few minutes on 2 cores): sizes 1K 16K 256K 4M 64M, the six default
#             cases (f32 sum, f64 max, i32 prod, u8 sum, u8 band, i64 bxor), warm and cold
#   --full    the whole sweep, 1 KiB .. 128 MiB in powers of two
#   --isa     best (default) | scalar | sse41 | avx2 | avx512 | all   (vred's ISA cap)
#   --case    type:op,... | default | all
#   --counters  also run tools/bench/counters.sh (callgrind; a few minutes more)
#   --align A / --offset N   the buffers' placement (vred-bench local's); default: plain malloc
#             (glibc: 16 mod 64), the way applications allocate. Calls are always back to back.
#             A placement other than the default adds it to the file names (local-NAME-align64.*).
#
# Baselines, each in its own process, vred (MPI_Reduce_local) against PMPI_Reduce_local:
#   openmpi-avx    mpirun.openmpi -np 1            Open MPI 4.1's default op/avx component (AVX-512)
#   openmpi-noavx  mpirun.openmpi --mca op ^avx    Open MPI's scalar C operator
#   mpich          mpirun.mpich -np 1              MPICH's operator
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/bench/results
full=0 plot=1 counters=0
extra=()
isa=best
cases=default
mode=() tag=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --full) full=1; shift ;;
    --validate) extra+=(--validate); shift ;;
    --isa) isa=$2; shift 2 ;;
    --case) cases=$2; shift 2 ;;
    --no-plot) plot=0; shift ;;
    --counters) counters=1; shift ;;
    --align|--offset) mode+=("$1" "$2"); tag+=-${1#--}${2//\//_}; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run_local.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"

# What vred will use here: CPU features, the ISA chosen, the settings in effect.
if [ -x "$build/vred-info" ]; then
  "$build/vred-info" | sed -n '/^CPU/,/^Topology/p' | sed '$d' >&2
fi

if [ $full = 1 ]; then
  sweep=(--min 1K --max 128M --budget 0.25)
  summary_sizes=1K,16K,256K,1M,4M,16M,128M
else
  sweep=(--sizes 1K,16K,256K,4M,64M --budget 0.12)
  summary_sizes=1K,16K,256K,4M,64M
fi
root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)

csvs=()
run() { # NAME LAUNCHER... -- (vred-bench path follows in the launcher)
  local name=$1; shift
  echo "== $name: $*" >&2
  local f=$out/local-$name$tag
  "$@" local --case "$cases" --isa "$isa" "${sweep[@]}" "${extra[@]+"${extra[@]}"}" "${mode[@]+"${mode[@]}"}" \
    --csv "$f.csv" >"$f.txt"
  csvs+=("$f.csv")
  # The mode line once (every table header repeats it).
  grep -E '^# (MPI library|machine|mode|case|Size|\(B\))|^  ' "$f.txt" | awk '!/^# mode:/ || !seen[$0]++' |
    sed 's/^/   /' >&2
}

ran=0
if [ -x "$build/openmpi/vred-bench" ] && command -v mpirun.openmpi >/dev/null; then
  run openmpi-avx mpirun.openmpi "${root_flag[@]}" -np 1 "$build/openmpi/vred-bench"
  run openmpi-noavx mpirun.openmpi "${root_flag[@]}" --mca op ^avx -np 1 "$build/openmpi/vred-bench"
  ran=1
fi
if [ -x "$build/mpich/vred-bench" ] && command -v mpirun.mpich >/dev/null; then
  run mpich mpirun.mpich -np 1 "$build/mpich/vred-bench"
  ran=1
fi
[ $ran = 1 ] || echo "run_local.sh: no $build/<flavor>/vred-bench with its mpirun; MPI runs skipped" >&2

if [ -x "$build/vred-kbench" ]; then
  echo "== tails: $build/vred-kbench tails" >&2
  if [ $full = 1 ]; then step=1; else step=3; fi
  "$build/vred-kbench" tails --step $step --csv "$out/tails.csv" >"$out/tails.txt" || true
  grep -E 'SUMMARY|summary|not runnable|FAILED' "$out/tails.txt" | sed 's/^/   /' >&2
  [ -s "$out/tails.csv" ] && csvs+=("$out/tails.csv")
fi

if [ $counters = 1 ]; then
  echo "== counters (callgrind)" >&2
  "$root/tools/bench/counters.sh" --build "$build" | tee "$out/counters.txt" >&2
fi

if [ $plot = 1 ] && [ ${#csvs[@]} -gt 0 ]; then
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 "$root/bench/plot.py" --out "$out" "${csvs[@]}" | sed 's/^/   wrote /' >&2
  else
    echo "run_local.sh: matplotlib missing (python3 -m pip install matplotlib); no PNGs" >&2
  fi
fi
local_csvs=()
for c in "${csvs[@]}"; do case $c in */local-*.csv) local_csvs+=("$c") ;; esac; done
if [ ${#local_csvs[@]} -gt 0 ]; then
  python3 "$root/bench/summarize.py" --sizes "$summary_sizes" "${local_csvs[@]}" >"$out/summary.txt" && cat "$out/summary.txt" >&2
fi
echo "results in $out" >&2
