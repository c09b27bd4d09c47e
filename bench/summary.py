#!/usr/bin/env python3
"""The one table `make bench` ends with: vred against the MPI underneath, ratios of medians
(MPI time / vred time, > 1: vred faster), from the CSVs the run just wrote.

usage: bench/summary.py RESULTS_DIR

Rows: MPI_Reduce_local (f32 SUM, warm cache, per baseline: Open MPI with and without its
AVX-512 component, MPICH), then each collective under vred's automatic choice, per MPI and
transport (2 ranks). Columns: the sizes measured. No dependencies beyond the standard library.
"""
import csv
import glob
import os
import sys


def label(b):
    for u, sh in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << sh and b % (1 << sh) == 0:
            return f"{b >> sh}{u}"
    return str(b)


def local_rows(d):
    """(name, {size: ratio}) for f32 SUM, warm, from local-<baseline>.csv."""
    out = []
    for f in sorted(glob.glob(os.path.join(d, "local-*.csv"))):
        cells = {}
        for r in csv.DictReader(open(f)):
            if r["type"] == "f32" and r["op"] == "sum" and r["mode"] == "warm":
                cells[int(r["size_bytes"])] = float(r["speedup_vs_mpi"])
        if cells:
            base = os.path.basename(f)[len("local-"):-len(".csv")]
            out.append((f"Reduce_local f32 sum vs {base}", cells))
    return out


def coll_rows(d):
    """(name, {size: ratio}, {size: algorithm}) for every collective under auto."""
    out = []
    for f in sorted(glob.glob(os.path.join(d, "coll", "coll-*.csv"))):
        rows = {}
        for r in csv.DictReader(open(f)):
            if r["impl"] != "auto":
                continue
            key = (r["label"], r["ranks"], r["collective"])
            cells, picks = rows.setdefault(key, ({}, {}))
            cells[int(r["size_bytes"])] = float(r["mpi_over_impl"])
            picks[int(r["size_bytes"])] = r["served_by"]
        for (lab, ranks, coll), (cells, picks) in rows.items():
            out.append((f"{coll} ({lab}, {ranks} ranks)", cells, picks))
    return out


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
    table("MPI_Reduce_local, f32 SUM, warm cache (bytes):", local_rows(d), False)
    table("Collectives, vred's automatic choice (bytes per rank; 'mpi' = handed to the MPI):",
          coll_rows(d), True)
    print("\nDetails, plots and CSVs:", d, "(docs/reduce_local.md, docs/shm.md, docs/collectives.md)")


if __name__ == "__main__":
    main()
