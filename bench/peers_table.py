#!/usr/bin/env python3
"""Tables from `vred-bench coll --algs auto --csv` runs over several MPIs (bench/run_peers.sh).

1. Per collective and size, for each MPI the MPI's time alone / the time of vred's automatic
   choice over it (> 1: vred faster; the two alternate in one process), with what the choice was
   (an algorithm, or `mpi` where vred measured the MPI faster and left the call to it). Then per
   MPI the worst ratio, and the cells under a floor (default 0.95: the "never slower" bar).
   With several rounds in a CSV, every ratio is the median of the rounds' (combine).
2. Per collective and size, the medians themselves (us): each MPI alone and vred over it; the
   fastest MPI alone ("best alone") and the fastest vred-over-an-MPI ("best vred"), each cell's
   times its quietest round's (combine), and best
   alone / best vred (> 1: vred faster than any MPI alone). Then, as lines to grep, the reduction
   cells >= 1 MiB where that ratio is under a target (default 1.2, issue 14) and, for every
   collective, the cells where it is under 1.

usage: bench/peers_table.py [--floor F] [--target T] [--png DIR] NAME=FILE.csv [NAME=FILE.csv ...]
  --png DIR  also one PNG per collective in DIR (bench/peers_plot.py; skipped without matplotlib)
"""
import csv
import sys
from collections import OrderedDict, namedtuple

# One MPI's cell: its median alone, vred's over it, their ratio as vred-bench computed it, and
# what vred's automatic choice served the call with.
Cell = namedtuple("Cell", "mpi_us auto_us ratio pick")
REDUCTIONS = ("allreduce", "reduce", "reduce_scatter_block")
TARGET_FROM = 1 << 20  # issue 14's target is about large reductions


def size_name(b):
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n}{unit}"
    return str(b)


def us(v):
    """A median in us with about 3 significant digits, never in exponent notation."""
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:.0f}"


def combine(pairs):
    """One cell from the rounds' (MPI row, vred row) pairs. The times are the quietest round's,
    the one whose MPI and vred medians sum to the least: a whole run can sit in one of the
    machine's slow spells, which last minutes (docs/peers.md: on 2026-11-24 two of three rounds
    of Open MPI 4.1 sat in one, allreduce 4 KiB 0.88 us in the first round, 2.4-2.7 us in the
    next two), and the best-alone / best-vred comparison sets times from different runs side by
    side. The ratio is the median of the rounds' own ratios (the lower one for an even count),
    each from one process where the two alternated, so a spell slows both of its sides: the
    quietest round's ratio alone is one draw of a process's luck, and a column's luck holds for
    the whole process (its buffers' pages; on 2026-12-07 vred handing Open MPI 4.1's allgather
    of 1 MiB straight to the MPI ran at 1.01, 1.00 and 0.87 of the MPI's own calls in three
    rounds, the 0.87 in the quietest). Its choice, with "*" where the rounds' differed."""
    m, v = min(pairs, key=lambda mv: float(mv[0]["median_us"]) + float(mv[1]["median_us"]))
    ratios = sorted(float(a["mpi_over_impl"]) for _, a in pairs)
    picks = {a["served_by"] for _, a in pairs}
    return Cell(float(m["median_us"]), float(v["median_us"]), ratios[(len(ratios) - 1) // 2],
                v["served_by"] + ("*" if len(picks) > 1 else ""))


def load(runs):
    """cells: (collective, size) -> {name: Cell}, in the order of the CSVs; meta: name ->
    (library, ranks, sync, buffers, cpu); rows: name -> that CSV's rows (for the plots).

    A CSV may hold several rounds (bench/run_peers.sh --rounds: each a run in new processes, one
    after the other): the k-th "mpi" row of a cell pairs with its k-th "auto" row; the cell's
    times are the quietest round's, its ratio the rounds' median (combine)."""
    cells, meta, rows = OrderedDict(), {}, {}
    for name, path in runs:
        with open(path, newline="") as f:
            rows[name] = list(csv.DictReader(f))
        mpi, auto = OrderedDict(), OrderedDict()
        for r in rows[name]:
            key = (r["collective"], int(r["size_bytes"]))
            if r["impl"] in ("mpi", "auto"):
                (mpi if r["impl"] == "mpi" else auto).setdefault(key, []).append(r)
        for key, vs in auto.items():
            pairs = list(zip(mpi.get(key, []), vs))
            if not pairs:
                continue
            cells.setdefault(key, {})[name] = combine(pairs)
            r = vs[0]
            meta[name] = (r["mpi_library"].split(";")[0], r["ranks"], r["sync"], r["buffers"],
                          r.get("cpu", "?"))
    return cells, meta, rows


def best(by):
    """(best alone us, its MPI, best vred us, the MPI under it) of one (collective, size). Each
    MPI ran in its own processes, one after the other: unlike a per-MPI ratio, best alone / best
    vred compares times from different runs."""
    alone = min(by, key=lambda n: by[n].mpi_us)
    vred = min(by, key=lambda n: by[n].auto_us)
    return by[alone].mpi_us, alone, by[vred].auto_us, vred


def meta_lines(names, meta):
    out = ["| MPI | library | ranks | mode | CPU |", "| --- | --- | --- | --- | --- |"]
    for n in names:
        if n in meta:
            lib, ranks, sync, buf, cpu = meta[n]
            out.append(f"| {n} | {lib} | {ranks} | {sync}, {buf} | {cpu} |")
    return out


def ratio_lines(names, cells, floor):
    """Table 1 with its "worst over" and "cells under" lines (scripts grep those)."""
    out = ["MPI alone / vred's automatic choice over it (> 1: vred faster; over several rounds the "
           "median of theirs), and the choice (the quietest round's; * where the rounds' differed):",
           "",
           "| collective | size | " + " | ".join(names) + " |",
           "| --- | ---: | " + " | ".join("---:" for _ in names) + " |"]
    worst, under = {}, []
    for (coll, size), by in cells.items():
        row = []
        for n in names:
            c = by.get(n)
            row.append(f"{c.ratio:.2f} {c.pick}" if c else "")
            if not c:
                continue
            if n not in worst or c.ratio < worst[n][0]:
                worst[n] = (c.ratio, f"{coll} {size_name(size)}")
            if c.ratio < floor:
                under.append(f"{n} {coll} {size_name(size)} {c.ratio:.2f} ({c.pick})")
        out.append(f"| {coll} | {size_name(size)} | " + " | ".join(row) + " |")
    out.append("")
    out += [f"worst over {n}: {worst[n][0]:.2f} ({worst[n][1]})" for n in names if n in worst]
    out.append(f"cells under {floor}: {len(under)}" + (": " + "; ".join(under) if under else ""))
    return out


def absolute_lines(names, cells):
    """Table 2: the medians, the best of each side and their ratio."""
    out = ["Median time per call (us): each MPI alone and vred over it; the fastest MPI alone, the "
           "fastest vred (over which MPI), and best alone / best vred (> 1: vred faster; across MPIs "
           "the times come from different runs):", "",
           "| collective | size | " + " | ".join(f"{n} alone | {n} vred" for n in names)
           + " | best alone | best vred | best alone / best vred |",
           "| --- | ---: | " + " | ".join("---: | ---:" for _ in names) + " | ---: | ---: | ---: |"]
    for (coll, size), by in cells.items():
        row = []
        for n in names:
            row += [us(by[n].mpi_us), us(by[n].auto_us)] if n in by else ["", ""]
        a, an, v, vn = best(by)
        row += [f"{us(a)} {an}", f"{us(v)} {vn}", f"{a / v:.2f}"]
        out.append(f"| {coll} | {size_name(size)} | " + " | ".join(row) + " |")
    return out


def shortfalls(cells, target):
    """{collective: [(size, best alone / best vred, best alone MPI, best vred MPI)]}, twice: the
    reduction cells >= 1 MiB under target, and the cells of every collective under 1."""
    under_target, slower = OrderedDict(), OrderedDict()
    for (coll, size), by in cells.items():
        a, an, v, vn = best(by)
        if coll in REDUCTIONS:
            under_target.setdefault(coll, [])
            if size >= TARGET_FROM and a / v < target:
                under_target[coll].append((size, a / v, an, vn))
        slower.setdefault(coll, [])
        if a / v < 1:
            slower[coll].append((size, a / v, an, vn))
    return under_target, slower


def shortfall_lines(cells, target):
    """One greppable line per collective and question, like "cells under" above."""
    def cells_text(found):
        return f"{len(found)}" + (": " + "; ".join(f"{size_name(s)} {r:.2f} (alone {an}, vred over {vn})"
                                                  for s, r, an, vn in found) if found else "")
    under_target, slower = shortfalls(cells, target)
    out = [f"best alone / best vred under {target} at >= {size_name(TARGET_FROM)}, {c}: {cells_text(f)}"
           for c, f in under_target.items()]
    out += [f"best vred slower than best alone, {c}: {cells_text(f)}" for c, f in slower.items()]
    return out


def main(argv):
    floor, target, png, runs = 0.95, 1.2, None, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--floor", "--target", "--png") and i + 1 < len(argv):
            if argv[i] == "--png":
                png = argv[i + 1]
            elif argv[i] == "--floor":
                floor = float(argv[i + 1])
            else:
                target = float(argv[i + 1])
            i += 2
            continue
        name, _, path = argv[i].partition("=")
        runs.append((name, path))
        i += 1
    if not runs:
        print(__doc__, file=sys.stderr)
        return 2
    cells, meta, rows = load(runs)
    names = [n for n, _ in runs]
    lines = meta_lines(names, meta) + [""] + ratio_lines(names, cells, floor) + [""]
    lines += absolute_lines(names, cells) + [""] + shortfall_lines(cells, target)
    print("\n".join(lines))
    if png:
        try:
            import peers_plot
        except ImportError as e:  # matplotlib missing: the tables are still whole
            print(f"peers_table.py: no PNGs ({e})", file=sys.stderr)
            return 0
        for path in peers_plot.write_pngs(names, cells, rows, png, target):
            print(f"peers_table.py: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
