#!/usr/bin/env python3
"""How far each vred algorithm is from its own aligned speed (issue 16, "any alignment, full
speed"): `vred-bench coll --offset S/R --csv` runs at several offsets (bench/run_align.sh), the
first at 0/0. Per collective, algorithm and size: time at 0/0 / time at the offset (1: as fast
as aligned; < 1: slower). Prints one row per (collective, algorithm, size) with every offset,
then the worst ratio per algorithm and every cell under the floor (default 0.9). The MPI's own
column is shown too, for comparison (it is not vred's to fix).

usage: bench/align_table.py [--floor F] REF=0/0.csv[,...] NAME=FILE.csv[,FILE.csv...] ...
Several files for one offset (comma-separated: rounds of bench/run_align.sh --rounds, taken in
turn with the other offsets'): the fastest of their times per cell. Not the median: on this
machine kind two ranks' shared-memory traffic drops to a fifth for seconds at a time (after
about 0.75 s of sustained traffic between the two cores; a single core's copies do not slow),
which took whole runs, the MPI's column as much as vred's (Open MPI's allreduce 1 MiB: 138 us
in one run, 565 us in the next, at the same offset); a median of 3 then blamed offsets for it.
An alignment loss is in every round and so also in the fastest one.
"""
import csv
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_table import size_name  # noqa: E402


def load(paths):
    """Rows by (collective, impl, size) of one or more CSVs (comma-separated), with median_us the
    fastest over the files (the module's docstring says why)."""
    times, rows = {}, {}
    for path in paths.split(","):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["collective"], r["impl"], int(r["size_bytes"]))
                rows.setdefault(key, dict(r))
                times.setdefault(key, []).append(float(r["median_us"]))
    for key, ts in times.items():
        rows[key]["median_us"] = str(min(ts))
        rows[key]["rounds"] = str(len(ts))
    return rows


def main(argv):
    floor = 0.9
    if argv[:1] == ["--floor"]:
        floor, argv = float(argv[1]), argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs = [(a.partition("=")[0], load(a.partition("=")[2])) for a in argv]
    (ref_name, ref), others = runs[0], runs[1:]
    first = next(iter(ref.values()))
    print(f"{first['type']} {first['op']}, {first['ranks']} ranks, {first['sync']}, "
          f"{first['mpi_library'].split(';')[0]}, {first.get('cpu', '?')}; "
          f"ratio = time at {ref_name} / time at the offset; the fastest of {first['rounds']} round(s) "
          "(each a median), offsets taken in turn")
    print()
    print("| collective | alg | size | " + " | ".join(n for n, _ in others) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in others) + " |")
    worst = OrderedDict()
    under = []
    for key, r0 in ref.items():
        coll, impl, size = key
        t0 = float(r0["median_us"])
        cells = []
        for name, run in others:
            r = run.get(key)
            if not r or t0 <= 0:
                cells.append("")
                continue
            ratio = t0 / float(r["median_us"])
            cells.append(f"{ratio:.2f}")
            w = worst.get((coll, impl))
            if w is None or ratio < w[0]:
                worst[(coll, impl)] = (ratio, f"{size_name(size)} at {name}")
            if ratio < floor and impl != "mpi":
                under.append(f"{coll} {impl} {size_name(size)} at {name}: {ratio:.2f}")
        print(f"| {coll} | {impl} | {size_name(size)} | " + " | ".join(cells) + " |")
    print()
    print("worst ratio per algorithm:")
    for (coll, impl), (ratio, where) in worst.items():
        print(f"  {coll:22s} {impl:9s} {ratio:.2f} ({where})")
    print(f"vred cells under {floor}: {len(under)}")
    for u in under:
        print("  " + u)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
