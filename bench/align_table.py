#!/usr/bin/env python3
"""How far each vred algorithm is from its own aligned speed (issue 16, "any alignment, full
speed"), from the CSVs of `vred-bench offsets` (bench/run_align.sh runs it: the collectives on 2
ranks, MPI_Reduce_local on one). Each row of a CSV is one (collective, algorithm, size, offset);
its `ratio` is the median over the run's rounds of (time at 0/0 / time at the offset), both
measured in the same round, seconds apart (1: as fast as aligned; < 1: slower). Prints one row per
(collective, algorithm, size) with every offset, then the worst ratio per algorithm and every
cell under the floor (default 0.9). The MPI's own rows (alg `mpi`) are shown for comparison: the
same offsets cost the MPI something too, and that is not vred's to fix.

usage: bench/align_table.py [--floor F] FILE.csv [FILE.csv ...]
Several files (runs of the same cells, or the collectives' and reduce_local's): a cell measured
in more than one run gets the median of its runs' ratios.
"""
import csv
import os
import sys
from collections import OrderedDict, namedtuple
from statistics import median

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_table import size_name  # noqa: E402

# What compare() finds: the header's facts (the first row read), the offsets' names in the order
# measured (0/0 left out), one row per (collective, alg, size) with its ratio at each offset (None:
# not measured), the worst ratio per (collective, alg) with where it was, vred's cells under the
# floor, and the time at 0/0 per row (us).
Result = namedtuple("Result", "first names rows worst under ref_us")


def load(paths):
    """{(collective, alg, size): {offset: [ratio, ...]}} and the first row, from the CSVs; the
    time at 0/0 per cell as well, under the offset '0/0' (in us, not a ratio)."""
    cells, first = OrderedDict(), None
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                first = first or dict(r)
                key = (r["collective"], r["alg"], int(r["size_bytes"]))
                value = float(r["median_us"]) if r["offset"] == "0/0" else float(r["ratio"])
                cells.setdefault(key, OrderedDict()).setdefault(r["offset"], []).append(value)
    return cells, first


def compare(loaded, floor=0.9):
    cells, first = loaded
    names = []
    for offs in cells.values():
        for o in offs:
            if o != "0/0" and o not in names:
                names.append(o)
    worst, under, rows, ref_us = OrderedDict(), [], [], {}
    for (coll, alg, size), offs in cells.items():
        ratios = [median(offs[o]) if o in offs else None for o in names]
        ref_us[(coll, alg, size)] = median(offs["0/0"]) if "0/0" in offs else None
        rows.append((coll, alg, size, ratios))
        for name, ratio in zip(names, ratios):
            if ratio is None:
                continue
            w = worst.get((coll, alg))
            if w is None or ratio < w[0]:
                worst[(coll, alg)] = (ratio, f"{size_name(size)} at {name}")
            if ratio < floor and alg != "mpi":
                under.append((coll, alg, size, name, ratio))
    return Result(first, names, rows, worst, under, ref_us)


def header(res):
    f = res.first
    ranks = f.get("ranks", "1")
    local = " (reduce_local: 1)" if any(c == "reduce_local" for c, _, _, _ in res.rows) else ""
    return (f"{f['type']} {f['op']}, {ranks} rank{'' if ranks == '1' else 's'}{local}, "
            f"{f.get('sync', 'back-to-back')}, {f['mpi_library'].split(';')[0]}, {f.get('cpu', '?')}; "
            "ratio = median over the rounds of the time at 0/0 / the time at the offset in the same round")


def table_lines(res):
    lines = ["| collective | alg | size | 0/0 (us) | " + " | ".join(res.names) + " |",
             "| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in res.names) + " |"]
    for coll, alg, size, ratios in res.rows:
        cells = ["" if v is None else f"{v:.2f}" for v in ratios]
        t0 = res.ref_us.get((coll, alg, size))
        lines.append(f"| {coll} | {alg} | {size_name(size)} | {'' if t0 is None else f'{t0:.3g}'} | "
                     + " | ".join(cells) + " |")
    return lines


def main(argv):
    floor = 0.9
    if argv[:1] == ["--floor"]:
        floor, argv = float(argv[1]), argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    res = compare(load(argv), floor)
    print(header(res))
    print()
    print("\n".join(table_lines(res)))
    print()
    print("worst ratio per algorithm:")
    for (coll, alg), (ratio, where) in res.worst.items():
        print(f"  {coll:22s} {alg:9s} {ratio:.2f} ({where})")
    print(f"vred cells under {floor}: {len(res.under)}")
    for coll, alg, size, name, ratio in res.under:
        print(f"  {coll} {alg} {size_name(size)} at {name}: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
