#!/usr/bin/env python3
"""One table from `vred-bench coll --algs auto --csv` runs over several MPIs (bench/run_peers.sh):
per collective and size, for each MPI the MPI's time alone / the time of vred's automatic choice
over it (> 1: vred faster; the two alternate in one process), with what the choice was (an
algorithm, or `mpi` where vred measured the MPI faster and left the call to it). Then per MPI
the worst ratio, and the cells under a floor (default 0.95: the "never slower" bar).

usage: bench/peers_table.py [--floor F] NAME=FILE.csv [NAME=FILE.csv ...]
"""
import csv
import sys
from collections import OrderedDict


def size_name(b):
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n}{unit}"
    return str(b)


def main(argv):
    floor = 0.95
    runs = []
    i = 0
    while i < len(argv):
        if argv[i] == "--floor":
            floor = float(argv[i + 1])
            i += 2
            continue
        name, _, path = argv[i].partition("=")
        runs.append((name, path))
        i += 1
    if not runs:
        print(__doc__, file=sys.stderr)
        return 2
    cells = OrderedDict()  # (coll, size) -> {name: (ratio, pick, mpi_us, auto_us)}
    meta = {}
    for name, path in runs:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        mpi = {(r["collective"], int(r["size_bytes"])): r for r in rows if r["impl"] == "mpi"}
        for r in rows:
            if r["impl"] != "auto":
                continue
            key = (r["collective"], int(r["size_bytes"]))
            m = mpi.get(key)
            if not m:
                continue
            cells.setdefault(key, {})[name] = (float(r["mpi_over_impl"]), r["served_by"],
                                               float(m["median_us"]), float(r["median_us"]))
            meta[name] = (r["mpi_library"].split(";")[0], r["ranks"], r["sync"], r["buffers"],
                          r.get("cpu", "?"))
    names = [n for n, _ in runs]
    print("| MPI | library | ranks | mode | CPU |")
    print("| --- | --- | --- | --- | --- |")
    for n in names:
        if n in meta:
            lib, ranks, sync, buf, cpu = meta[n]
            print(f"| {n} | {lib} | {ranks} | {sync}, {buf} | {cpu} |")
    print()
    print("MPI alone / vred's automatic choice over it (> 1: vred faster), and the choice:")
    print()
    print("| collective | size | " + " | ".join(names) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in names) + " |")
    worst = {n: (None, None) for n in names}
    under = []
    for (coll, size), by in cells.items():
        out = []
        for n in names:
            if n not in by:
                out.append("")
                continue
            ratio, pick, _, _ = by[n]
            out.append(f"{ratio:.2f} {pick}")
            if worst[n][0] is None or ratio < worst[n][0]:
                worst[n] = (ratio, f"{coll} {size_name(size)}")
            if ratio < floor:
                under.append(f"{n} {coll} {size_name(size)} {ratio:.2f} ({pick})")
        print(f"| {coll} | {size_name(size)} | " + " | ".join(out) + " |")
    print()
    for n in names:
        r, where = worst[n]
        if r is not None:
            print(f"worst over {n}: {r:.2f} ({where})")
    print(f"cells under {floor}: {len(under)}" + ("" if not under else ": " + "; ".join(under)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
