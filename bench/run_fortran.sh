#!/usr/bin/env bash
# Fortran programs with and without vred (issue 13; docs/fortran.md has the figures):
#
#   loop  tests/fortran/fallreduce_loop.F90 (`use mpi`): a 64 MiB MPI_REAL MPI_SUM allreduce, 20
#         timed calls after 3 warm-up ones, on 2 ranks; each run prints the median of its calls.
#         Runs alternate, MPI alone (A) then LD_PRELOAD=libvred-mpi.so (B), --reps times, per
#         MPI (Open MPI, MPICH); the figure is the median of the runs' medians and A/B.
#   qe    Debian's Quantum ESPRESSO (pw.x, Open MPI only: the package links libmpi.so.40): an SCF
#         with forces and stress of 8-atom silicon (bench/fortran/si8.in), 2 ranks, A/B
#         alternating, 3 x --reps times (a run lasts ~1 s and its time spreads 0.9-1.5 s on an idle
#         2-core machine, both A and B: more runs keep the median's ratio within a few %). Every line it prints must be identical in A and B except
#         dates and timings (energies, eigenvalues, forces, stress); the figure is the median
#         wall time ("PWSCF ... WALL") and A/B; VRED_STATS=sum on one extra B run gives the
#         share of its reduction calls vred served.
#
# usage: bench/run_fortran.sh [--build DIR] [--reps N] [--only loop|qe] [--out DIR]
#   default: build/, 5 reps, both experiments (about 3 minutes on 2 idle cores)
# Needs mpif90.openmpi / mpif90.mpich (gfortran) and, for qe, the quantum-espresso package
# (scripts/install-deps.sh fortran). Writes DIR (default bench/results/fortran/, not
# versioned): every run's output, runs.csv, and summary.txt (what docs/fortran.md quotes).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/bench/results/fortran
reps=5 only=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--reps N] [--only loop|qe] [--out DIR]" >&2; exit 2 ;;
  esac
done
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
csv=$out/runs.csv summary=$out/summary.txt
echo "experiment,mpi,rep,mode,value" >"$csv"
{
  echo "# bench/run_fortran.sh --reps $reps  ($(date -u '+%Y-%m-%d %H:%M UTC'), git $(git -C "$root" rev-parse --short HEAD))"
  echo "# CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$summary"

median() { sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
launcher() {
  if [ "$1" = openmpi ]; then echo "mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl self,vader -np 2"
  else echo "mpirun.mpich -np 2"; fi
}

if [ -z "$only" ] || [ "$only" = loop ]; then
  for mpi in openmpi mpich; do
    lib=$build/$mpi/libvred-mpi.so
    command -v "mpif90.$mpi" >/dev/null && [ -f "$lib" ] ||
      { echo "loop $mpi: skipped (no mpif90.$mpi or no $lib)" | tee -a "$summary"; continue; }
    exe=$out/fallreduce_loop_$mpi
    mkdir -p "$out/mod_$mpi"
    "mpif90.$mpi" -O2 -fallow-argument-mismatch -J"$out/mod_$mpi" \
      "$root/tests/fortran/fallreduce_loop.F90" -o "$exe"
    read -r -a run <<<"$(launcher $mpi)"
    for r in $(seq 1 "$reps"); do
      for mode in mpi vred; do
        log=$out/logs/loop-$mpi-$mode-$r.txt
        if [ $mode = mpi ]; then "${run[@]}" "$exe" >"$log" 2>&1
        else "${run[@]}" env LD_PRELOAD="$lib" "$exe" >"$log" 2>&1; fi
        ms=$(sed -n 's/.*median_ms= *\([0-9.]*\).*/\1/p' "$log")
        echo "loop,$mpi,$r,$mode,$ms" >>"$csv"
      done
    done
    a=$(grep "^loop,$mpi,.*,mpi," "$csv" | cut -d, -f5 | median)
    b=$(grep "^loop,$mpi,.*,vred," "$csv" | cut -d, -f5 | median)
    sa=$(sort -u <(sed -n 's/.*checksum= *//p' "$out"/logs/loop-$mpi-*-*.txt) | wc -l)
    printf "loop %-7s 64 MiB MPI_REAL allreduce, 2 ranks: MPI %.2f ms, vred %.2f ms (medians of %d runs), ratio %.2fx; checksums %s\n" \
      $mpi "$a" "$b" "$reps" "$(echo "$a $b" | awk '{print $1 / $2}')" \
      "$([ "$sa" = 1 ] && echo identical || echo DIFFER)" | tee -a "$summary"
    printf "     runs (ms) MPI: %s | vred: %s\n" \
      "$(grep "^loop,$mpi,.*,mpi," "$csv" | cut -d, -f5 | paste -sd' ')" \
      "$(grep "^loop,$mpi,.*,vred," "$csv" | cut -d, -f5 | paste -sd' ')" | tee -a "$summary"
  done
fi

if [ -z "$only" ] || [ "$only" = qe ]; then
  lib=$build/openmpi/libvred-mpi.so
  pp=/usr/share/doc/quantum-espresso/examples/EPW/sic/pp/Si.pz-vbc.UPF.gz
  if ! command -v pw.x >/dev/null || [ ! -f "$pp" ] || [ ! -f "$lib" ]; then
    echo "qe: skipped (needs pw.x and quantum-espresso-data: scripts/install-deps.sh fortran)" | tee -a "$summary"
  else
    w=$out/qe
    mkdir -p "$w/pseudo"
    zcat "$pp" >"$w/pseudo/Si.pz-vbc.UPF"
    cp "$root/bench/fortran/si8.in" "$w/"
    read -r -a run <<<"$(launcher openmpi)"
    # What must not differ: everything but dates and timings.
    results() { grep -v -E 'starts on|terminated on|cpu time|CPU|WALL' "$1"; }
    differ=0
    qreps=$((3 * reps))
    for r in $(seq 0 "$qreps"); do   # round 0: warm-up (file cache), not counted
      for mode in mpi vred; do
        log=$out/logs/qe-$mode-$r.txt
        rm -rf "$w/tmp"
        if [ $mode = mpi ]; then (cd "$w" && "${run[@]}" pw.x -in si8.in >"$log" 2>&1)
        else (cd "$w" && "${run[@]}" env LD_PRELOAD="$lib" pw.x -in si8.in >"$log" 2>&1); fi
        s=$(sed -n 's/.*PWSCF *:.*CPU *\([0-9.]*\)s WALL.*/\1/p' "$log")
        [ "$r" = 0 ] || echo "qe,openmpi,$r,$mode,$s" >>"$csv"
        cmp -s <(results "$log") <(results "$out/logs/qe-mpi-0.txt") || differ=1
      done
    done
    rm -rf "$w/tmp"
    (cd "$w" && "${run[@]}" env VRED_STATS=sum LD_PRELOAD="$lib" pw.x -in si8.in \
      >"$out/logs/qe-stats.txt" 2>&1)
    rm -rf "$w/tmp"
    a=$(grep "^qe,openmpi,.*,mpi," "$csv" | cut -d, -f5 | median)
    b=$(grep "^qe,openmpi,.*,vred," "$csv" | cut -d, -f5 | median)
    energy=$(sed -n 's/^! *total energy *= *//p' "$out/logs/qe-mpi-0.txt")
    printf "qe      pw.x si8.in (Open MPI), 2 ranks: MPI %.2f s, vred %.2f s wall (medians of %d runs), time ratio %.3fx; printed results %s (total energy %s)\n" \
      "$a" "$b" "$qreps" "$(echo "$a $b" | awk '{print $1 / $2}')" \
      "$([ $differ = 0 ] && echo "identical in every run" || echo DIFFER)" "$energy" | tee -a "$summary"
    printf "     runs (s) MPI: %s | vred: %s\n" \
      "$(grep "^qe,openmpi,.*,mpi," "$csv" | cut -d, -f5 | paste -sd' ')" \
      "$(grep "^qe,openmpi,.*,vred," "$csv" | cut -d, -f5 | paste -sd' ')" | tee -a "$summary"
    grep '^vred-stats rank=all' "$out/logs/qe-stats.txt" | sed 's/^/     /' | tee -a "$summary"
    grep '^vred-stats rank=all coll=' "$out/logs/qe-stats.txt" | awk '
      {c = ""; s = 0; n = 0
       for (i = 1; i <= NF; i++) { if ($i ~ /^coll=/) c = substr($i, 6); if ($i ~ /^calls=/) n = substr($i, 7); if ($i == "alg=mpi") s = 1 }
       if (c ~ /reduce|scan/) { tot += n; if (!s) srv += n } }
      END { printf "     reduction calls (reduce, allreduce, reduce_scatter, scan, exscan, reduce_local): %d, vred served %d (%.0f%%)\n", tot, srv, tot ? 100 * srv / tot : 0 }' |
      tee -a "$summary"
    [ $differ = 0 ] || { echo "qe: printed results differ between the MPI alone and vred" >&2; exit 1; }
  fi
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$summary"
echo "summary: $summary"
