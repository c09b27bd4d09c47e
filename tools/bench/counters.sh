#!/usr/bin/env bash
# Instruction, load, store and branch counts of ONE MPI_Reduce_local call, vred vs the MPI's own
# operator (the first paper's figures 10-11), with callgrind instead of hardware counters:
#   Ir = instructions, Dr = data reads (load instructions), Dw = data writes (store instructions),
#   Bc = conditional branches executed.
# vred-bench counters runs the call inside bench_counted_vred / bench_counted_mpi and callgrind
# collects only inside them (--toggle-collect), so MPI_Init and the buffer setup are not counted.
#
# usage: tools/bench/counters.sh [--build DIR] [--bytes 16M] [--case "f32:sum u8:sum"]
#
# Baselines: Open MPI's default (op/avx), Open MPI with OMPI_MCA_op=^avx (its scalar C operator,
# the paper's baseline) and MPICH. vred runs at the best ISA valgrind lets it see, and at scalar.
# NOTE: valgrind (3.19 here) does not implement AVX-512 and hides it from CPUID, so under callgrind
# both vred and Open MPI's op/avx run their AVX2 code: the vectorized rows are AVX2 counts.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
bytes=16M
cases="f32:sum u8:sum"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --case) cases=${2//,/ }; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "counters.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "counters.sh: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_cg OUTFILE ENV... -- BINARY ARGS...: one callgrind run; prints the program's stdout.
run_cg() {
  local out=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
    --toggle-collect=bench_counted_vred --toggle-collect=bench_counted_mpi \
    --callgrind-out-file="$out" "$@" 2>"$out.log"
}

# counts FILE FUNCTION -> "Ir Dr Dw Bc" (inclusive), or "- - - -"
counts() {
  callgrind_annotate --inclusive=yes --threshold=100 --show=Ir,Dr,Dw,Bc "$1" 2>/dev/null |
    awk -v fn="$2" '!found && ($0 ~ (":" fn " ") || $0 ~ (":" fn "$")) {
        n = 0; for (i = 1; i <= NF && n < 4; i++) if ($i ~ /^[0-9,]+$/) { gsub(",", "", $i); v[++n] = $i }
        found = 1 }
      END { if (found) print v[1], v[2], v[3], v[4]; else print "- - - -" }'
}

flavors=()
[ -x "$build/openmpi/vred-bench" ] && flavors+=(openmpi)
[ -x "$build/mpich/vred-bench" ] && flavors+=(mpich)
[ ${#flavors[@]} -gt 0 ] || { echo "counters.sh: no $build/<flavor>/vred-bench; build first" >&2; exit 1; }

printf '# callgrind (%s) counts of one MPI_Reduce_local call of %s; Ir instructions, Dr loads, Dw stores, Bc conditional branches\n' \
  "$(valgrind --version)" "$bytes"
for c in $cases; do
  rows=()
  # vred: best ISA under valgrind, and scalar (from the first flavor's build: vred is vred).
  f0=${flavors[0]}
  for isa in best scalar; do
    run_cg "$tmp/v.$isa" OMPI_MCA_op_base_verbose=0 -- "$build/$f0/vred-bench" counters --case "$c" \
      --bytes "$bytes" --isa "$isa" --which vred >"$tmp/v.$isa.txt"
    got=$(sed -n 's/.*vred ISA \([a-z0-9]*\).*/\1/p' "$tmp/v.$isa.txt" | head -1)
    rows+=("vred-$got|$(counts "$tmp/v.$isa" bench_counted_vred)")
  done
  for f in "${flavors[@]}"; do
    if [ "$f" = openmpi ]; then variants=("openmpi-avx|" "openmpi-noavx|OMPI_MCA_op=^avx"); else variants=("$f|"); fi
    for v in "${variants[@]}"; do
      name=${v%%|*}; e=${v#*|}
      run_cg "$tmp/m.$name" ${e:+"$e"} OMPI_MCA_op_base_verbose=0 -- "$build/$f/vred-bench" counters \
        --case "$c" --bytes "$bytes" --which mpi >"$tmp/m.$name.txt"
      rows+=("$name|$(counts "$tmp/m.$name" bench_counted_mpi)")
    done
  done
  printf '\n# case %s\n%-16s %14s %14s %14s %14s\n' "$c" "# impl" Ir Dr Dw Bc
  for r in "${rows[@]}"; do
    n=${r%%|*}; read -r ir dr dw bc <<<"${r#*|}"
    printf '%-16s %14s %14s %14s %14s\n' "$n" "$ir" "$dr" "$dw" "$bc"
  done
  # Ratios: each baseline over vred at its best ISA (how many times fewer vred needs).
  read -r vir vdr vdw vbc <<<"${rows[0]#*|}"
  printf '%s\n' "# ratio baseline / ${rows[0]%%|*} (x fewer with vred)"
  for r in "${rows[@]:1}"; do
    n=${r%%|*}; read -r ir dr dw bc <<<"${r#*|}"
    awk -v n="$n" -v a="$ir $dr $dw $bc" -v b="$vir $vdr $vdw $vbc" 'BEGIN {
      split(a, x, " "); split(b, y, " "); line = sprintf("%-16s", n " /");
      for (i = 1; i <= 4; i++) line = line sprintf(" %14s", (x[i] ~ /^[0-9]+$/ && y[i] > 0) ? sprintf("%.1fx", x[i] / y[i]) : "-");
      print line }'
  done
done
