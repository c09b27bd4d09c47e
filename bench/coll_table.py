#!/usr/bin/env python3
"""Markdown tables from `vred-bench coll --csv` files: per collective and size, the MPI's time,
each vred algorithm's time with the cost model's prediction beside it, and MPI time / vred time.

usage: bench/coll_table.py FILE.csv [FILE.csv ...]
"""
import csv
import sys
from collections import defaultdict


def human(b):
    b = int(b)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"


def main(paths):
    for path in paths:
        rows = list(csv.DictReader(open(path)))
        if not rows:
            continue
        r0 = rows[0]
        print(f"\n#### {r0['label']}, {r0['ranks']} ranks ({path.split('/')[-1]})\n")
        by = defaultdict(dict)
        algs = []
        for r in rows:
            key = (r["collective"], int(r["size_bytes"]))
            by[key][r["impl"]] = r
            if r["impl"] not in ("mpi", "auto") and r["impl"] not in algs:
                algs.append(r["impl"])
        colls = []
        for c, _ in by:
            if c not in colls:
                colls.append(c)
        for coll in colls:
            have = [a for a in algs if any(a in by[k] for k in by if k[0] == coll)]
            head = ["size", "MPI us"] + [f"{a} us (model)" for a in have] + ["auto: pick, x"]
            print(f"{coll}:\n")
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for (c, size) in sorted(k for k in by if k[0] == coll):
                d = by[(c, size)]
                mpi = float(d["mpi"]["median_us"])
                cells = [human(size), f"{mpi:.1f}"]
                for a in have:
                    if a not in d:
                        cells.append("")
                        continue
                    t = float(d[a]["median_us"])
                    p = d[a]["predicted_us"]
                    pred = f" ({float(p):.0f})" if p else ""
                    cells.append(f"{t:.1f}{pred} **{mpi / t:.2f}x**")
                if "auto" in d:
                    t = float(d["auto"]["median_us"])
                    cells.append(f"{d['auto']['served_by']}, {mpi / t:.2f}x")
                else:
                    cells.append("")
                print("| " + " | ".join(cells) + " |")
            print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
