#!/usr/bin/env bash
# The gradient allreduce of a data-parallel training loop (ResNet-50, VGG-16; Horovod-style fusion
# buffers of 64 and 128 MiB; float32, and bf16 gradients accumulated in float32) from Python
# through mpi4py, on 2 ranks, vred (LD_PRELOAD) against the MPI library's own MPI_Allreduce,
# alternating in one run (bench/train_allreduce.py). See docs/training.md.
#
# usage: bench/run_train.sh [--build DIR] [--mpich | --both] [--steps N] [--quick] [--np P]
#                           [--vred-alg A] [--models LIST] [--fusion LIST] [--dtypes LIST]
#                           [--env VAR=VALUE]... [--tag NAME] [--out DIR]
#   --build DIR  vred's build (DIR/<flavor>/libvred-mpi.so); default <repo>/build
#   default      Open MPI (mpirun.openmpi, its default components); --mpich: MPICH; --both: both
#   --steps N    timed steps per side (default 20, in blocks of 5)
#   --quick      ResNet-50 only, 6 steps per side in blocks of 3 (under a minute)
#   --vred-alg A vred's side forces algorithm A (ma, redscat, ring, ...) instead of its own choice
#                (auto); the files are then train-<flavor>-<A>.*
#   --models, --fusion, --dtypes  subsets (default resnet50,vgg16 / 64,128 MiB / f32,bf16)
#   --env V=X    set a VRED_* knob in every rank (e.g. VRED_NT=off; repeatable); it acts on vred's
#                side only (the MPI's side hands every call to the MPI)
#   --tag NAME   files train-<flavor>[-<A>]-NAME.* (so a variant does not overwrite the default run)
#   --out DIR    default bench/results/train
# mpi4py must be built against the MPI the run uses, so each flavor has its own venv,
# DIR/venv-<flavor>/, made here on first use: numpy and mpi4py from PyPI, mpi4py compiled from
# its source with MPICC=mpicc.<flavor> (a binary wheel would not be tied to this MPI). A venv
# whose mpi4py links another MPI is rebuilt. Needs python3 with venv and PyPI reachable once.
# Writes bench/results/train/train-<flavor>.{txt,csv} (not versioned) and prints the table.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/bench/results/train
steps= block=5 np=2 alg=auto
models=resnet50,vgg16 quick=0 fusion=64,128 dtypes=f32,bf16 tag=
envs=()
flavors=(openmpi)
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --mpich) flavors=(mpich); shift ;;
    --both) flavors=(openmpi mpich); shift ;;
    --steps) steps=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --vred-alg) alg=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --fusion) fusion=$2; shift 2 ;;
    --dtypes) dtypes=$2; shift 2 ;;
    --env) [[ $2 == VRED_*=* ]] || { echo "run_train.sh: --env VRED_NAME=VALUE" >&2; exit 2; }
           envs+=("$2"); shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "run_train.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
# --quick: ResNet-50 only, fewer steps (an explicit --steps still wins)
if [ "$quick" = 1 ]; then models=resnet50 block=3 steps=${steps:-6}; fi
suffix=
[ "$alg" = auto ] || suffix=-$alg
[ -n "$tag" ] && suffix=$suffix-$tag
steps=${steps:-20}
mkdir -p "$out"

# vred's own choice: no knob left over from another run may force an algorithm or turn vred off.
unset VRED_DISABLE VRED_ALLREDUCE_ALG VRED_SHM VRED_NODE_SIZE VRED_NT
# (--env puts a knob back, on purpose)

# MPI library of a flavor, as the dynamic linker names it (to check what mpi4py links).
libmpi_of() { case $1 in openmpi) echo libmpi.so.40 ;; mpich) echo libmpich.so ;; esac; }

# DIR/venv-<flavor> with numpy and an mpi4py compiled by mpicc.<flavor>; idempotent.
venv_for() {
  local flavor=$1 v=$build/venv-$flavor so
  if [ -x "$v/bin/python" ] && so=$("$v/bin/python" -c \
      'import mpi4py, numpy, glob, os; print(glob.glob(os.path.join(os.path.dirname(mpi4py.__file__), "MPI.*.so"))[0])' \
      2>/dev/null) && [[ $(ldd "$so") == *"$(libmpi_of "$flavor")"* ]]; then
    # (not `ldd | grep -q`: under pipefail grep's early exit fails the pipe with SIGPIPE)
    return 0
  fi
  command -v "mpicc.$flavor" >/dev/null || { echo "run_train.sh: no mpicc.$flavor" >&2; return 1; }
  echo "== making $v (numpy, mpi4py with MPICC=mpicc.$flavor; a few minutes)" >&2
  rm -rf "$v"
  python3 -m venv "$v"
  "$v/bin/pip" install -q numpy
  # --no-binary: compile against this MPI; --no-cache-dir: pip would otherwise reuse the wheel it
  # built for the other flavor (same version, same cache key) and link the wrong MPI.
  MPICC=mpicc.$flavor "$v/bin/pip" install -q --no-cache-dir --no-binary mpi4py mpi4py
}

root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)
over=()
[ "$np" -gt "$(nproc)" ] && over=(--oversubscribe)

failed=0
for flavor in "${flavors[@]}"; do
  lib=$build/$flavor/libvred-mpi.so
  if [ ! -f "$lib" ]; then
    echo "run_train.sh: no $lib: $flavor skipped" >&2; failed=1; continue
  fi
  venv_for "$flavor" || { failed=1; continue; }
  py=$build/venv-$flavor/bin/python
  case $flavor in
    # Open MPI's defaults (components, its tuned allreduce): the baseline the issue names.
    openmpi) launch=(mpirun.openmpi "${root_flag[@]}" "${over[@]}" -np "$np" -x LD_PRELOAD="$lib")
             for e in "${envs[@]}"; do launch+=(-x "$e"); done ;;
    mpich) launch=(mpirun.mpich -np "$np" -genv LD_PRELOAD "$lib")
           for e in "${envs[@]}"; do launch+=(-genv "${e%%=*}" "${e#*=}"); done ;;
  esac
  base=$out/train-$flavor$suffix
  rm -f "$base.csv"
  echo "== $flavor, $np ranks: $models, fusion $fusion MiB, $dtypes, $steps steps per side, vred $alg${envs[*]:+, ${envs[*]}}" >&2
  if ! "${launch[@]}" "$py" "$root/bench/train_allreduce.py" --models "$models" --fusion "$fusion" \
      --dtypes "$dtypes" --steps "$steps" --block "$block" --vred-alg "$alg" --label "$flavor${envs[*]:+ ${envs[*]}}" --csv "$base.csv" \
      | tee "$base.txt"; then
    echo "run_train.sh: $flavor run failed" >&2; failed=1; continue
  fi
done

# The table of every flavor's CSV (median ms per step over the timed steps, the slowest rank's).
for flavor in "${flavors[@]}"; do
  csv=$out/train-$flavor$suffix.csv
  [ -s "$csv" ] || continue
  echo
  python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{rows[0]['label']}: {rows[0]['mpi']}, {rows[0]['ranks']} ranks, {rows[0]['steps']} steps per side")
print(f"| model | fusion MiB | dtype | part | MPI ms/step | vred ms/step | speedup | allreduce MB/step | vred alg |")
print(f"|---|---:|---|---|---:|---:|---:|---:|---|")
for r in rows:
    print(f"| {r['model']} | {r['fusion_mib']} | {r['dtype']} | {r['part']} | {float(r['mpi_ms']):.1f} | "
          f"{float(r['vred_ms']):.1f} | {float(r['speedup']):.2f}x | {int(r['bytes_per_step']) / 1e6:.1f} | {r['vred_alg']} |")
EOF
done
exit $failed
