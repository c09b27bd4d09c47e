#!/usr/bin/env bash
# The first paper's LAMMPS experiment (its figure 12: chute flow, loop time with and without vector
# reductions), on this machine with Debian's `lammps` package: each input of bench/lammps/ runs on
# NP ranks (default 2) with the MPI alone (A) and with LD_PRELOAD=libvred-mpi.so (B), alternating
# A B A B ... for --reps rounds. From each LAMMPS log it takes "Loop time of X on NP procs", the
# MPI task timing breakdown (Pair, Neigh, Comm, Output, Modify, Other: average over ranks) and the
# thermo lines (printed with %20.15g), and checks that the thermo lines of every run are the same
# text, bit for bit; where they are not it names the columns that differ and by how much.
#
#   bench/lammps/in.chute.vred   granular chute flow (sphere, gran/hooke/history, wall/gran,
#                                gravity at 26 degrees): 64x32 cells x 20 layers + base (43,008 grains),
#                                10000 steps
#   bench/lammps/in.melt.vred    LJ melt, fcc 40^3 (256,000 atoms), 500 steps
#
# usage: bench/run_lammps.sh [--mpich | --both] [--quick | --smoke] [--reps N] [--np P] [--out DIR]
#                            [--build DIR] [--only chute|melt]
#   default   Open MPI (mpirun.openmpi, --mca btl self,vader), build/openmpi/libvred-mpi.so,
#             --reps 3: about 6 minutes on 2 idle cores (5 min 41 s measured)
#   --mpich   MPICH (mpirun.mpich), build/mpich/libvred-mpi.so; --both: Open MPI, then MPICH.
#             A flavor whose MPI is not the one the lmp binary is linked to is skipped with a
#             note (Debian's lammps links Open MPI's libmpi.so.40; MPICH's ABI is another)
#   --quick   1 round, chute 2000 steps, melt 100 steps (about 20 s)
#   --smoke   1 round of tiny systems (a few seconds; checks the script, measures nothing)
# Writes bench/results/lammps/ (not versioned): lammps-<flavor>-runs.csv (one row a run),
# lammps-<flavor>.csv (the summary), lammps-<flavor>.txt (the table), logs/ (every LAMMPS log);
# --quick and --smoke write lammps-<flavor>-quick.* / -smoke.* instead.
# Exit 1 if the thermo output of a vred run differs from the MPI's, or nothing could be run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/bench/results/lammps
reps=3 quick=0 np=2 only=
flavors=(openmpi)
while [ $# -gt 0 ]; do
  case $1 in
    --mpich) flavors=(mpich); shift ;;
    --both) flavors=(openmpi mpich); shift ;;
    --quick) quick=1; shift ;;
    --smoke) quick=2; shift ;;
    --reps) reps=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "run_lammps.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case $only in ''|chute|melt) ;; *) echo "run_lammps.sh: --only chute|melt" >&2; exit 2 ;; esac
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "run_lammps.sh: --reps N, N >= 1" >&2; exit 2; }
[ $quick != 0 ] && reps=1
tag=  # --quick and --smoke write beside the full measurement, not over it
[ $quick = 1 ] && tag=-quick
[ $quick = 2 ] && tag=-smoke

# --- LAMMPS: install it when missing, find the binary and the MPI it is linked to ---------------
find_lmp() {
  local b
  for b in lmp lmp_openmpi lmp_mpich lmp_mpi; do
    command -v "$b" 2>/dev/null && return 0
  done
  return 1
}
if ! lmp=$(find_lmp); then
  echo "run_lammps.sh: no LAMMPS binary; installing Debian's lammps" >&2
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq lammps >/dev/null
  lmp=$(find_lmp) || { echo "run_lammps.sh: lammps installed but no lmp binary found" >&2; exit 1; }
fi
libs=$(ldd "$lmp")
if grep -q 'libmpi\.so\.40' <<<"$libs"; then lmp_mpi=openmpi
elif grep -q 'libmpich\.so' <<<"$libs"; then lmp_mpi=mpich
else echo "run_lammps.sh: $lmp links neither Open MPI nor MPICH:" >&2; echo "$libs" >&2; exit 1
fi
lmp_version=$("$lmp" -h 2>/dev/null | sed -n 's/^Large-scale Atomic\/Molecular Massively Parallel Simulator - \(.*\)$/\1/p' | head -1)
echo "== LAMMPS: $lmp (${lmp_version:-version ?}), linked to $lmp_mpi" >&2

ncores=$(nproc)  # before OMP_NUM_THREADS=1, which nproc obeys
# One node, vred's own choices: no knob left over from another run.
unset VRED_NODE_SIZE VRED_SHM VRED_DISABLE VRED_ALLREDUCE_ALG VRED_REDUCE_ALG VRED_REDUCE_SCATTER_ALG \
  VRED_BCAST_ALG VRED_ALLGATHER_ALG VRED_SCAN_ALG VRED_ISA VRED_THREADS VRED_TUNE_FILE
export OMP_NUM_THREADS=1
root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)
over=()
[ "$np" -gt "$ncores" ] && over=(--oversubscribe)

inputs=()
[ "$only" = melt ] || inputs+=(chute)
[ "$only" = chute ] || inputs+=(melt)
input_vars() { # NAME -> -var arguments
  case $1:$quick in
    chute:0) echo "-var steps 10000 -var every 100" ;;
    chute:1) echo "-var steps 2000 -var every 100" ;;
    melt:0) echo "-var n 40 -var steps 500 -var every 25" ;;
    melt:1) echo "-var n 40 -var steps 100 -var every 25" ;;
    chute:2) echo "-var nx 8 -var ny 4 -var nz 10 -var steps 300 -var every 50" ;;
    melt:2) echo "-var n 8 -var steps 200 -var every 20" ;;
  esac
}

mkdir -p "$out/logs"
machine="$ncores cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
avx512=no
grep -q avx512f /proc/cpuinfo && avx512=yes
failed=0 ran=0
for flavor in "${flavors[@]}"; do
  lib=$build/$flavor/libvred-mpi.so
  case $flavor in
    openmpi) mpirun=mpirun.openmpi
             launch=("$mpirun" "${root_flag[@]}" "${over[@]}" --mca btl self,vader -np "$np") ;;
    mpich)   mpirun=mpirun.mpich
             launch=("$mpirun" -np "$np") ;;
  esac
  if [ "$flavor" != "$lmp_mpi" ]; then
    echo "== $flavor skipped: $lmp is linked to $lmp_mpi, and vred's $flavor library can only" \
      "be preloaded into a program of that MPI (no MPICH-linked lammps in Debian)" >&2
    continue
  fi
  if ! command -v "$mpirun" >/dev/null; then
    echo "== $flavor skipped: no $mpirun" >&2; failed=1; continue
  fi
  if [ ! -f "$lib" ]; then
    echo "== $lib missing: building (make)" >&2
    make -C "$root" --no-print-directory build >/dev/null
  fi
  [ -f "$lib" ] || { echo "== $flavor skipped: no $lib" >&2; failed=1; continue; }
  # measure a snapshot: a rebuild of build/ during the rounds must not change the library measured
  mkdir -p "$out/lib"
  cp "$lib" "$out/lib/libvred-mpi-$flavor.so"
  lib=$out/lib/libvred-mpi-$flavor.so
  lib_sha=$(sha256sum "$lib" | cut -c1-16)
  case $flavor in
    openmpi) with_vred=(-x LD_PRELOAD="$lib") ;;
    mpich) with_vred=(-genv LD_PRELOAD "$lib") ;;
  esac
  # the preload must resolve against this binary (an unresolvable LD_PRELOAD is only a warning)
  LD_PRELOAD=$lib ldd "$lmp" | grep -q libvred-mpi || { echo "== $lib does not load into $lmp" >&2; failed=1; continue; }

  logs=$out/logs/$flavor$tag
  rm -rf "$logs"; mkdir -p "$logs"
  echo "== $flavor: ${launch[*]} $lmp -in bench/lammps/in.<input>.vred ...; A = MPI, B = vred; $reps round(s)" >&2
  for ((r = 1; r <= reps; r++)); do
    for name in "${inputs[@]}"; do
      for impl in mpi vred; do
        extra=()
        [ $impl = vred ] && extra=("${with_vred[@]}")
        log=$logs/$name-$impl-$r.log
        # shellcheck disable=SC2046
        if (cd "$logs" && "${launch[@]}" "${extra[@]}" "$lmp" -in "$root/bench/lammps/in.$name.vred" \
              $(input_vars $name) -log "$log" -screen none >"$log.out" 2>&1); then
          loop=$(sed -n 's/^Loop time of \([^ ]*\) on.*/\1/p' "$log" | tail -1)
          printf '   round %d  %-5s %-4s  loop %8.3f s\n' "$r" "$name" "$impl" "$loop" >&2
          ran=1
        else
          echo "   round $r $name $impl FAILED (exit $?); see $log.out" >&2
          tail -5 "$log.out" >&2 || true
          failed=1
        fi
      done
    done
  done

  python3 - "$flavor" "$logs" "$out" "$np" "$reps" "$quick" "$machine" "$avx512" "${lmp_version:-?}" "$mpirun" "$lib_sha" "$tag" <<'EOF' || failed=1
import csv, hashlib, math, os, re, statistics, sys
flavor, logs, out, np_, reps, quick, machine, avx512, lver, mpirun, lib_sha, tag = sys.argv[1:]
sections = ["Pair", "Neigh", "Comm", "Output", "Modify", "Other"]

def parse(path):
    """Loop time, steps, atoms, timing breakdown (avg) and the thermo block of the last run."""
    text = open(path).read().splitlines()
    loops = [i for i, l in enumerate(text) if l.startswith("Loop time of ")]
    if not loops:
        return None
    end = loops[-1]
    m = re.match(r"Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms", text[end])
    starts = [i for i in range(end) if re.match(r"^\s*Step\s", text[i])]
    if not m or not starts:
        return None
    start = starts[-1]
    header = text[start].split()
    rows = [l for l in text[start + 1:end] if re.match(r"^\s*-?\d", l)]
    timing = {}
    for l in text[end:]:
        f = [x.strip() for x in l.split("|")]
        if len(f) >= 3 and f[0] in sections:
            timing[f[0]] = float(f[2])
    return dict(loop=float(m.group(1)), procs=int(m.group(2)), steps=int(m.group(3)),
                atoms=int(m.group(4)), header=header, rows=rows, timing=timing)

runs = []
for fn in sorted(os.listdir(logs)):
    m = re.match(r"(\w+)-(mpi|vred)-(\d+)\.log$", fn)
    if not m:
        continue
    p = parse(os.path.join(logs, fn))
    if p:
        runs.append(dict(input=m.group(1), impl=m.group(2), rep=int(m.group(3)), **p))
if not runs:
    print("run_lammps.sh: no LAMMPS log with a loop time", file=sys.stderr)
    sys.exit(1)

def sha(rows):
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]

with open(os.path.join(out, f"lammps-{flavor}{tag}-runs.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["flavor", "input", "impl", "round", "procs", "atoms", "steps", "loop_s"]
               + [s.lower() + "_s" for s in sections] + ["thermo_lines", "thermo_sha256_16"])
    for r in sorted(runs, key=lambda r: (r["input"], r["rep"], r["impl"])):
        w.writerow([flavor, r["input"], r["impl"], r["rep"], r["procs"], r["atoms"], r["steps"],
                    r["loop"]] + [r["timing"].get(s, "") for s in sections]
                   + [len(r["rows"]), sha(r["rows"])])

def coldiff(ref, other):
    """Columns whose values differ: name -> (max abs diff, max rel diff, first step)."""
    res = {}
    for a, b in zip(ref["rows"], other["rows"]):
        fa, fb = a.split(), b.split()
        for j, (x, y) in enumerate(zip(fa, fb)):
            if x != y:
                x, y = float(x), float(y)
                d = abs(x - y); rel = d / max(abs(x), abs(y), 1e-300)
                name = ref["header"][j] if j < len(ref["header"]) else f"col{j}"
                o = res.get(name)
                res[name] = (max(d, o[0]), max(rel, o[1]), o[2]) if o else (d, rel, fa[0])
    if len(ref["rows"]) != len(other["rows"]):
        res["(line count)"] = (abs(len(ref["rows"]) - len(other["rows"])), 0, "-")
    return res

summary, notes, bad = [], [], False
for inp in dict.fromkeys(r["input"] for r in runs):
    A = sorted((r for r in runs if r["input"] == inp and r["impl"] == "mpi"), key=lambda r: r["rep"])
    B = sorted((r for r in runs if r["input"] == inp and r["impl"] == "vred"), key=lambda r: r["rep"])
    if not A or not B:
        continue
    ref = A[0]
    same_mpi = all(r["rows"] == ref["rows"] for r in A)
    same_vred = all(r["rows"] == ref["rows"] for r in B)
    if not same_vred:
        bad = True
        for r in B:
            if r["rows"] != ref["rows"]:
                for c, (d, rel, st) in coldiff(ref, r).items():
                    notes.append(f"{inp}: vred round {r['rep']} vs MPI round 1: column {c} differs, "
                                 f"max |diff| {d:.3g} (rel {rel:.3g}), first at step {st}")
    if not same_mpi:
        for r in A[1:]:
            if r["rows"] != ref["rows"]:
                for c, (d, rel, st) in coldiff(ref, r).items():
                    notes.append(f"{inp}: MPI round {r['rep']} vs MPI round 1 (run-to-run): column {c} "
                                 f"differs, max |diff| {d:.3g} (rel {rel:.3g})")
    ma = statistics.median(r["loop"] for r in A)
    mb = statistics.median(r["loop"] for r in B)
    med = lambda rs, s: statistics.median(r["timing"].get(s, math.nan) for r in rs)
    summary.append(dict(flavor=flavor, input=inp, procs=ref["procs"], atoms=ref["atoms"],
                        steps=ref["steps"], rounds=min(len(A), len(B)),
                        mpi_loop_median_s=ma, vred_loop_median_s=mb, speedup_mpi_over_vred=ma / mb,
                        mpi_loop_min_s=min(r["loop"] for r in A), mpi_loop_max_s=max(r["loop"] for r in A),
                        vred_loop_min_s=min(r["loop"] for r in B), vred_loop_max_s=max(r["loop"] for r in B),
                        **{f"mpi_{s.lower()}_s": med(A, s) for s in sections},
                        **{f"vred_{s.lower()}_s": med(B, s) for s in sections},
                        thermo_lines=len(ref["rows"]), thermo_identical="yes" if same_vred else "no",
                        mpi_run_to_run_identical="yes" if same_mpi else "no"))

with open(os.path.join(out, f"lammps-{flavor}{tag}.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(summary[0].keys()))
    w.writeheader()
    for s in summary:
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in s.items()})

lines = [f"# LAMMPS {lver}, {flavor} ({mpirun}), {np_} ranks; {machine}; AVX-512: {avx512}",
         f"# vred: libvred-mpi.so of build/{flavor}, sha256 {lib_sha}...",
         f"# loop time = LAMMPS 'Loop time of X on {np_} procs'; median of {reps} round(s), A B A B alternating"
         + {"1": "; --quick", "2": "; --smoke (tiny systems)"}.get(quick, ""),
         f"# speedup = MPI median / vred median (> 1: vred faster); thermo identical = every vred run's"
         " thermo lines (%20.15g) equal the MPI's, as text",
         "",
         "| input | atoms | steps | MPI loop (s) | vred loop (s) | speedup | MPI Comm (s) | vred Comm (s) | thermo identical |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
for s in summary:
    lines.append(f"| {s['input']} | {s['atoms']} | {s['steps']} | {s['mpi_loop_median_s']:.3f} "
                 f"({s['mpi_loop_min_s']:.3f}-{s['mpi_loop_max_s']:.3f}) | {s['vred_loop_median_s']:.3f} "
                 f"({s['vred_loop_min_s']:.3f}-{s['vred_loop_max_s']:.3f}) | {s['speedup_mpi_over_vred']:.3f}x | "
                 f"{s['mpi_comm_s']:.3f} | {s['vred_comm_s']:.3f} | {s['thermo_identical']} |")
lines += ["", "Timing breakdown, medians of the average over ranks (s):", "",
          "| input | impl | " + " | ".join(sections) + " |", "| --- | --- |" + " ---: |" * len(sections)]
for s in summary:
    for impl in ("mpi", "vred"):
        lines.append(f"| {s['input']} | {impl} | " + " | ".join(f"{s[f'{impl}_{x.lower()}_s']:.3f}" for x in sections) + " |")
for s in summary:
    if s["mpi_run_to_run_identical"] != "yes":
        notes.append(f"{s['input']}: the MPI's own runs differ from each other (LAMMPS not deterministic here)")
if notes:
    lines += [""] + [f"note: {n}" for n in notes]
text = "\n".join(lines) + "\n"
open(os.path.join(out, f"lammps-{flavor}{tag}.txt"), "w").write(text)
print(text)
sys.exit(1 if bad else 0)
EOF
done
[ $ran = 1 ] || { echo "run_lammps.sh: nothing measured" >&2; exit 1; }
echo "results in $out" >&2
exit $failed
