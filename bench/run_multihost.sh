#!/usr/bin/env bash
# The across-node algorithms where the network is the limit (issue 17): hosts are network
# namespaces whose links are shaped by tc tbf (scripts/multihost.sh), each host on its own CPU
# where there are enough.
#
#   1. reduce and allreduce, float SUM, 1-64 MiB, on 2 and 3 hosts x 1 rank and 2 hosts x 2 ranks,
#      at 1 and 10 Gbit/s, both MPIs: the MPI alone; vred's automatic choice as users get it
#      (VRED_LEARN=on, learned afresh for this run in OUT/learned/: the first call of a size
#      class times the MPI against vred's candidates); the cost model's choice (VRED_LEARN=off);
#      each vred algorithm (vred-bench coll --algs) and the model's prediction of each
#      (vred-bench's predicted_us);
#   2. compression against sparsity (Bits, Idx forced; dense), reduce, 2 hosts, Open MPI, at each
#      rate: where each format breaks even with the dense message (the second paper: 35% zeros
#      Bits, 65% Idx, 1 Gbit/s);
#   3. the threaded local reduction: allreduce and reduce at 64 MiB with VRED_THREADS=1 and 2
#      (2 hosts sharing every CPU, --cpus shared).
#
# usage: bench/run_multihost.sh [--build DIR] [--out DIR] [--mpis "openmpi mpich"]
#            [--hosts "2 3"] [--ppns "1 2"] [--rates "1gbit 10gbit"] [--sizes 1M,4M,16M,64M]
#            [--sparse-size 16M] [--sparsities "0 0.2 ..."] [--parts "coll sparse threads"]
#            [--budget S]
# A shape of more than 4 ranks (hosts x ppn) is left out: 2 CPUs. Writes OUT/table.txt (what is
# printed) and OUT/multihost.csv (part 1), OUT/sparse.csv (part 2), OUT/threads.csv (part 3),
# and every vred-bench CSV under OUT/raw/. Needs root (namespaces): exits 77 otherwise.
# VRED_LEARN=off except for the learned runs of part 1.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
out=$here/results/multihost
mpis="openmpi mpich"
hostss="2 3"
ppns="1 2"
rates="1gbit 10gbit"
sizes=1M,4M,16M,64M
ssize=16M
sparsities="0 0.2 0.35 0.5 0.65 0.8 0.9"
parts="coll sparse threads"
budget=0.4
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --mpis) mpis=$2; shift 2 ;;
    --hosts) hostss=$2; shift 2 ;;
    --ppns) ppns=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --sparse-size) ssize=$2; shift 2 ;;
    --sparsities) sparsities=$2; shift 2 ;;
    --parts) parts=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    *) echo "run_multihost.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mh=$here/../scripts/multihost.sh
[ "$(id -u)" = 0 ] || { echo "run_multihost.sh: SKIPPED: needs root (network namespaces)" >&2; exit 77; }
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
exec > >(tee "$out/table.txt") 2>&1
export VRED_LEARN=off
cpu=$(lscpu | awk -F: '/^Model name/ { gsub(/^ +/, "", $2); m = $2 } /^CPU family/ { gsub(/ /, "", $2); f = $2 }
  /^Model:/ { gsub(/ /, "", $2); o = $2 } END { printf "%s (family %s, model %s)", m, f, o }')
echo "# run_multihost.sh $(date -u +%Y-%m-%dT%H:%MZ), $cpu, $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# bench MPI HOSTS PPN RATE CSV [multihost options --] vred-bench coll options...
bench() {
  local mpi=$1 hosts=$2 ppn=$3 rate=$4 csv=$5
  shift 5
  local mo=()
  while [ "$1" != -- ]; do mo+=("$1"); shift; done
  shift
  "$mh" --mpi "$mpi" --hosts "$hosts" --ppn "$ppn" --rate "$rate" --timeout 1800 "${mo[@]}" -- \
    "$build/$mpi/vred-bench" coll --budget "$budget" --csv "$csv" "$@" >/dev/null
}

if [[ " $parts " == *" coll "* ]]; then
  echo
  echo "# 1. reduce and allreduce, f32 SUM; x = MPI time / vred time (> 1: vred faster)"
  rm -rf "$out/learned"
  for mpi in $mpis; do
    for hosts in $hostss; do
      for ppn in $ppns; do
        [ $((hosts * ppn)) -le 4 ] || continue
        for rate in $rates; do
          shape=${hosts}x$ppn
          bench "$mpi" "$hosts" "$ppn" "$rate" "$out/raw/coll-$mpi-$shape-$rate.csv" -- \
            --coll allreduce,reduce --algs auto,binomial,redscat,ring,recdbl --sizes "$sizes" ||
            echo "# $mpi $shape $rate: the run failed (exit $?)"
          # The automatic choice as users get it: learned at first use, kept per job shape and
          # link in a cache of this run's own (the key names the link's decade, not its rate).
          bench "$mpi" "$hosts" "$ppn" "$rate" "$out/raw/learned-$mpi-$shape-$rate.csv" \
            --env VRED_LEARN=on --env XDG_CACHE_HOME="$out/learned/$mpi-$shape-$rate" -- \
            --coll allreduce,reduce --algs auto --sizes "$sizes" ||
            echo "# $mpi $shape $rate: the learned run failed (exit $?)"
          echo "# $mpi, $shape, $rate: load $(cut -d' ' -f1 /proc/loadavg)"
        done
      done
    done
  done
  python3 - "$out" <<'EOF'
import csv, glob, os, sys
out = sys.argv[1]
def load(kind):
    """{(mpi, hosts, ppn, rate, collective, bytes): {impl: row}} from OUT/raw/KIND-*.csv"""
    groups = {}
    for f in sorted(glob.glob(os.path.join(out, "raw", kind + "-*.csv"))):
        _, mpi, shape, rate = os.path.basename(f)[:-4].split("-")
        hosts, ppn = shape.split("x")
        for r in csv.DictReader(open(f)):
            k = (mpi, int(hosts), int(ppn), rate, r["collective"], int(r["size_bytes"]))
            groups.setdefault(k, {})[r["impl"]] = r
    return groups
model, learned = load("coll"), load("learned")
algs = ["binomial", "redscat", "ring", "recdbl"]
us = lambda g, a: float(g[a]["median_us"]) if a in g and g[a]["median_us"] else None
with open(os.path.join(out, "multihost.csv"), "w") as f:
    w = csv.writer(f)
    w.writerow(["mpi", "hosts", "ppn", "rate", "collective", "size_bytes", "mpi_us", "auto_us", "auto_alg",
                "x_auto", "learned_mpi_us", "learned_us", "learned_alg", "x_learned"] +
               [a + "_us" for a in algs] + [a + "_model_us" for a in algs] + ["cpu"])
    last = None
    for k in sorted(model):
        g, l = model[k], learned.get(k, {})
        if "mpi" not in g or "auto" not in g:
            continue
        mpi_us, auto_us = us(g, "mpi"), us(g, "auto")
        lm, la = us(l, "mpi"), us(l, "auto")
        t = [us(g, a) for a in algs]
        m = [g[a]["predicted_us"] if a in g else "" for a in algs]
        xl = round(lm / la, 3) if lm and la else ""
        w.writerow(list(k) + [mpi_us, auto_us, g["auto"]["served_by"], round(mpi_us / auto_us, 3),
                              lm or "", la or "", l["auto"]["served_by"] if la else "", xl] +
                   [x or "" for x in t] + m + [g["mpi"]["cpu"]])
        if k[:5] != last:
            last = k[:5]
            print(f"\n# {k[0]}, {k[1]} hosts x {k[2]} rank(s), {k[3]}, {k[4]}: median us (model's prediction);"
                  " learned: its own run, against the MPI in that run")
            print(f"{'size':>9} {'MPI':>9} {'model':>9} {'alg':>8} {'x':>5} {'learned':>9} {'alg':>8} {'x':>5} " +
                  " ".join(f"{a:>17}" for a in algs) + "  x:best")
        best = min(x for x in t if x) if any(t) else None
        cells = " ".join(f"{x:9.0f} ({float(p):5.0f})" if x and p else f"{x:9.0f} {'':7}" if x else f"{'-':>17}"
                         for x, p in zip(t, m))
        lcell = f"{la:9.0f} {l['auto']['served_by']:>8} {xl:5.2f}" if xl else f"{'-':>9} {'':>8} {'':>5}"
        print(f"{k[5] >> 20:>8}M {mpi_us:9.0f} {auto_us:9.0f} {g['auto']['served_by']:>8} "
              f"{mpi_us / auto_us:5.2f} {lcell} {cells}  " + (f"{mpi_us / best:6.2f}" if best else "-"))
EOF
fi

if [[ " $parts " == *" sparse "* ]]; then
  echo
  echo "# 2. compression: reduce $ssize f32 SUM, 2 hosts x 1 rank, Open MPI; time of dense / time of the format (> 1: the format wins)"
  echo "mpi,rate,sparsity,mpi_us,dense_us,bits_us,idx_us,x_bits,x_idx" >"$out/sparse.csv"
  for rate in $rates; do
    echo "# $rate (load $(cut -d' ' -f1 /proc/loadavg))"
    printf "%-9s %10s %10s %10s %10s %7s %7s\n" sparsity MPI dense bits idx "x:bits" "x:idx"
    for s in $sparsities; do
      declare -A t=()
      for mode in off bits idx; do
        csv=$out/raw/sparse-$rate-$s-$mode.csv
        bench openmpi 2 1 "$rate" "$csv" --env VRED_SPARSE=$mode -- --coll reduce --algs binomial \
          --sizes "$ssize" --sparsity "$s" --validate || true
        t[$mode]=$(awk -F, -v i=binomial 'NR > 1 && $12 == i { print $16 }' "$csv" 2>/dev/null)
        [ $mode = off ] && t[mpi]=$(awk -F, 'NR > 1 && $12 == "mpi" { print $16 }' "$csv" 2>/dev/null)
      done
      awk -v s="$s" -v m="${t[mpi]:-0}" -v d="${t[off]:-0}" -v b="${t[bits]:-0}" -v x="${t[idx]:-0}" \
        -v rate="$rate" -v csv="$out/sparse.csv" 'BEGIN {
        xb = b > 0 ? d / b : 0; xi = x > 0 ? d / x : 0
        printf "%-9s %10.0f %10.0f %10.0f %10.0f %7.2f %7.2f\n", s, m, d, b, x, xb, xi
        printf "openmpi,%s,%s,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f\n", rate, s, m, d, b, x, xb, xi >> csv }'
      unset t
    done
  done
fi

if [[ " $parts " == *" threads "* ]]; then
  echo
  echo "# 3. threaded local reduction: 64 MiB f32 SUM, 2 hosts x 1 rank sharing both CPUs (--cpus shared), Open MPI"
  echo "rate,collective,threads,mpi_us,vred_us,alg" >"$out/threads.csv"
  printf "%-8s %-10s %8s %10s %10s %8s\n" rate coll threads MPI vred x
  for rate in $rates; do
    for th in 1 2; do
      csv=$out/raw/threads-$rate-$th.csv
      bench openmpi 2 1 "$rate" "$csv" --cpus shared --env VRED_THREADS=$th -- \
        --coll allreduce,reduce --algs auto --sizes 64M || true
      python3 - "$csv" "$rate" "$th" "$out/threads.csv" <<'EOF'
import csv, sys
f, rate, th, o = sys.argv[1:]
g = {}
for r in csv.DictReader(open(f)):
    g.setdefault(r["collective"], {})[r["impl"]] = r
with open(o, "a") as out:
    for c, d in g.items():
        m, v = float(d["mpi"]["median_us"]), float(d["auto"]["median_us"])
        print(f"{rate:<8} {c:<10} {th:>8} {m:10.0f} {v:10.0f} {m / v:8.2f}")
        out.write(f"{rate},{c},{th},{m},{v},{d['auto']['served_by']}\n")
EOF
    done
  done
fi
echo
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg); table: $out/table.txt"
