#!/usr/bin/env python3
"""The one table `make bench` ends with: vred against the MPI underneath, ratios of medians
(MPI time / vred time, > 1: vred faster), from the CSVs the run just wrote.

usage: bench/summary.py RESULTS_DIR

Rows: MPI_Reduce_local (f32 SUM, warm cache, per baseline: Open MPI with and without its
AVX-512 component, MPICH), then each collective under vred's automatic choice, per MPI and
transport (2 ranks). Columns: the sizes measured. Each table says the measuring mode its rows were
taken in (bench/bench_mode.py: `make bench` runs the default, calls back to back on malloc'd
buffers; CSVs in another mode, e.g. from run_coll.sh --sync barrier --align 64, get a table of
their own) and the CPU. No dependencies beyond the standard library.
"""
import csv
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_mode  # noqa: E402


def label(b):
    for u, sh in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << sh and b % (1 << sh) == 0:
            return f"{b >> sh}{u}"
    return str(b)


def local_rows(d):
    """{mode: ([(name, {size: ratio})], csv rows)} for f32 SUM, warm, from local-<baseline>*.csv."""
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "local-*.csv"))):
        by = {}
        for r in csv.DictReader(open(f)):
            if r["type"] == "f32" and r["op"] == "sum" and r["mode"] == "warm":
                m = bench_mode.mode_of(r)
                cells, rs = by.setdefault((m, r["baseline"]), ({}, []))
                cells[int(r["size_bytes"])] = float(r["speedup_vs_mpi"])
                rs.append(r)
        for (m, base), (cells, rs) in by.items():
            tab, src = out.setdefault(m, ([], []))
            tab.append((f"Reduce_local f32 sum vs {base}", cells))
            src += rs
    return out


def coll_rows(d):
    """{mode: ([(name, {size: ratio}, {size: algorithm})], csv rows)} for every collective under auto."""
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "coll", "coll-*.csv"))):
        rows = {}
        for r in csv.DictReader(open(f)):
            if r["impl"] != "auto":
                continue
            key = (bench_mode.mode_of(r), r["label"], r["ranks"], r["collective"])
            cells, picks, rs = rows.setdefault(key, ({}, {}, []))
            cells[int(r["size_bytes"])] = float(r["mpi_over_impl"])
            picks[int(r["size_bytes"])] = r["served_by"]
            rs.append(r)
        for (m, lab, ranks, coll), (cells, picks, rs) in rows.items():
            tab, src = out.setdefault(m, ([], []))
            tab.append((f"{coll} ({lab}, {ranks} ranks)", cells, picks))
            src += rs
    return out


def modes_first(d):
    """The modes of d, the default first."""
    return sorted(d, key=lambda m: (not bench_mode.is_default(m), m))


def table(title, rows, with_picks):
    if not rows:
        return
    sizes = sorted({s for r in rows for s in r[1]})
    w = max(len(r[0]) for r in rows) + 2
    print(f"\n{title}")
    print("".ljust(w) + "".join(label(s).rjust(14 if with_picks else 8) for s in sizes))
    for r in rows:
        line = r[0].ljust(w)
        for s in sizes:
            if s not in r[1]:
                line += "-".rjust(14 if with_picks else 8)
            elif with_picks:
                line += f"{r[1][s]:.2f} {r[2][s][:8]}".rjust(14)
            else:
                line += f"{r[1][s]:.2f}".rjust(8)
        print(line)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    print("=" * 78)
    print("vred vs the MPI underneath: MPI time / vred time (> 1: vred faster), medians")
    loc, col = local_rows(d), coll_rows(d)
    cpus = {c for _, src in list(loc.values()) + list(col.values()) for c in [bench_mode.cpu_of(src)] if c}
    if cpus:
        print("CPU: " + "; ".join(sorted(cpus)))
    for m in modes_first(loc):
        tab, src = loc[m]
        table(f"MPI_Reduce_local, f32 SUM, warm cache (bytes)\n{bench_mode.heading(src, local=True, cpu=False)}:",
              tab, False)
    for m in modes_first(col):
        tab, src = col[m]
        table("Collectives, vred's automatic choice (bytes per rank; 'mpi' = handed to the MPI)\n"
              f"{bench_mode.heading(src, cpu=False)}:", tab, True)
    print("\nDetails, plots and CSVs:", d, "(docs/reduce_local.md, docs/shm.md, docs/collectives.md)")


if __name__ == "__main__":
    main()
