#!/usr/bin/env python3
"""How far each vred algorithm is from its own aligned speed (issue 16, "any alignment, full
speed"): `vred-bench coll --offset S/R --csv` runs at several offsets (bench/run_align.sh), the
first at 0/0, and `vred-bench local` runs (MPI_Reduce_local, warm and cold) at the same offsets. Per collective, algorithm and size: time at 0/0 / time at the offset (1: as fast
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
from collections import OrderedDict, namedtuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_table import size_name  # noqa: E402

# What compare() finds: the header's facts (from the 0/0 run's first row), the offsets' names,
# one row per (collective, impl, size) with its ratio at each offset (None: not measured), the
# worst ratio per (collective, impl) with where it was, and vred's cells under the floor.
Result = namedtuple("Result", "first ref_name names rows worst under")


def keyed(r):
    """(collective, impl, size) -> time in us of one CSV row. vred-bench coll rows give one
    implementation each; vred-bench local rows (MPI_Reduce_local, one process) give vred's and
    the MPI's time side by side, under the collective `reduce_local warm` or `reduce_local cold`."""
    size = int(r["size_bytes"])
    if "impl" in r:
        return [((r["collective"], r["impl"], size), float(r["median_us"]))]
    coll = f"reduce_local {r['mode']}"
    return [((coll, "vred", size), float(r["vred_us"])), ((coll, "mpi", size), float(r["mpi_us"]))]


def load(paths):
    """Rows by (collective, impl, size) of one or more CSVs (comma-separated), with median_us the
    fastest over the files (the module's docstring says why)."""
    times, rows = {}, {}
    for path in paths.split(","):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                for key, t in keyed(r):
                    rows.setdefault(key, dict(r))
                    times.setdefault(key, []).append(t)
    for key, ts in times.items():
        rows[key]["median_us"] = str(min(ts))
        rows[key]["rounds"] = str(len(ts))
    return rows


def compare(runs, floor=0.9):
    """runs: [(offset name, load(...))], the aligned reference first."""
    (ref_name, ref), others = runs[0], runs[1:]
    worst, under, out = OrderedDict(), [], []
    for key, r0 in ref.items():
        coll, impl, size = key
        t0 = float(r0["median_us"])
        ratios = []
        for name, run in others:
            r = run.get(key)
            ratio = t0 / float(r["median_us"]) if r and t0 > 0 and float(r["median_us"]) > 0 else None
            ratios.append(ratio)
            if ratio is None:
                continue
            w = worst.get((coll, impl))
            if w is None or ratio < w[0]:
                worst[(coll, impl)] = (ratio, f"{size_name(size)} at {name}")
            if ratio < floor and impl != "mpi":
                under.append((coll, impl, size, name, ratio))
        out.append((coll, impl, size, ratios))
    return Result(next(iter(ref.values())), ref_name, [n for n, _ in others], out, worst, under)


def header(res):
    f = res.first
    ranks = f.get("ranks", "1")
    what = f"{f['type']} {f['op']}, {ranks} rank{'' if ranks == '1' else 's'}"
    return (f"{what}, {f.get('sync', 'back-to-back')}, {f['mpi_library'].split(';')[0]}, {f.get('cpu', '?')}; "
            f"ratio = time at {res.ref_name} / time at the offset; the fastest of {f['rounds']} round(s) "
            "(each a median), offsets taken in turn")


def table_lines(res):
    lines = ["| collective | alg | size | " + " | ".join(res.names) + " |",
             "| --- | --- | ---: | " + " | ".join("---:" for _ in res.names) + " |"]
    for coll, impl, size, ratios in res.rows:
        cells = ["" if v is None else f"{v:.2f}" for v in ratios]
        lines.append(f"| {coll} | {impl} | {size_name(size)} | " + " | ".join(cells) + " |")
    return lines


def main(argv):
    floor = 0.9
    if argv[:1] == ["--floor"]:
        floor, argv = float(argv[1]), argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    res = compare([(a.partition("=")[0], load(a.partition("=")[2])) for a in argv], floor)
    print(header(res))
    print()
    print("\n".join(table_lines(res)))
    print()
    print("worst ratio per algorithm:")
    for (coll, impl), (ratio, where) in res.worst.items():
        print(f"  {coll:22s} {impl:9s} {ratio:.2f} ({where})")
    print(f"vred cells under {floor}: {len(res.under)}")
    for coll, impl, size, name, ratio in res.under:
        print(f"  {coll} {impl} {size_name(size)} at {name}: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
