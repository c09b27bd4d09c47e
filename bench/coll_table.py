#!/usr/bin/env python3
"""Markdown tables from `vred-bench coll --csv` files: per collective and size, the MPI's time,
each vred column's time (an algorithm, or ALG/MODE under a forced copy mode, `--nt`) with the cost
model's prediction beside it, MPI time / vred time, auto's pick, and the DAV bound: the paper's
data-access volume of the call / the node's memcpy rate, with the best vred time's distance to it
(bound% = DAV time / best vred time; CSVs from before the DAV columns leave it out).

usage: bench/coll_table.py FILE.csv [FILE.csv ...]
       bench/coll_table.py --switch FILE.csv [FILE.csv ...]
  --switch   instead of the tables, the switch points the CSVs support:
             - dpml vs ma (the small-message algorithm against the movement-avoiding one): the
               size from which ma is faster at every larger size measured;
             - ordinary vs streaming stores (ALG/off vs ALG/on): the size from which streaming
               is faster at every larger size; and how far adaptive (ALG/auto) is from the
               better of the two
             "at every larger size" so that one noisy small size does not move the point; a
             tie (within TIE = 2%) counts for the large-message choice (ma; streaming), since
             at large sizes the two often differ by less than the noise.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_mode  # noqa: E402
from collections import defaultdict

TIE = 0.02  # relative difference below which two medians of this noisy machine are a tie


def human(b):
    b = int(b)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"


def load(path):
    """{(collective, size): {impl: row}}, the vred columns in first-seen order, the first row."""
    rows = list(csv.DictReader(open(path)))
    by = defaultdict(dict)
    impls = []
    for r in rows:
        by[(r["collective"], int(r["size_bytes"]))][r["impl"]] = r
        if r["impl"] != "mpi" and r["impl"] not in impls:
            impls.append(r["impl"])
    return by, impls, (rows[0] if rows else None)


def alg_of(row):
    """The algorithm of a row: the `alg` column, or (older CSVs) the impl's name."""
    return row.get("alg") or row["impl"].split("/")[0]


def tables(paths):
    for path in paths:
        by, impls, r0 = load(path)
        if r0 is None:
            continue
        print(f"\n#### {r0['label']}, {r0['ranks']} ranks ({path.split('/')[-1]})\n")
        print(f"{bench_mode.heading([r0])}\n")
        if r0.get("memcpy_gbs"):
            print(f"memcpy rate {float(r0['memcpy_gbs']):.2f} GB/s (read+write, all ranks of the node); "
                  "DAV = the YHCCL data-access volume (allreduce s(5p-1), reduce s(3p+1), "
                  "reduce_scatter s(3p-1), bcast 2sp, allgather 2S+2Sp) / that rate; "
                  "bound% = DAV time / best vred time\n")
        colls = []
        for c, _ in by:
            if c not in colls:
                colls.append(c)
        for coll in colls:
            keys = sorted(k for k in by if k[0] == coll)
            # The auto columns (one per copy mode with --nt) go to the pick column, not their own.
            have = [a for a in impls if alg_of_name(a) != "auto" and any(a in by[k] for k in keys)]
            autos = [a for a in impls if alg_of_name(a) == "auto" and any(a in by[k] for k in keys)]
            dav = any(by[k].get("mpi", {}).get("dav_us") for k in keys)
            head = ["size", "MPI us"] + [f"{a} us (model)" for a in have]
            head += [f"{a}: pick, x" for a in autos]
            if dav:
                head += ["DAV us", "bound %"]
            print(f"{coll}:\n")
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for key in keys:
                d = by[key]
                if "mpi" not in d:
                    continue
                mpi = float(d["mpi"]["median_us"])
                cells = [human(key[1]), f"{mpi:.1f}"]
                best = None
                for a in have + autos:
                    if a in d:
                        t = float(d[a]["median_us"])
                        best = t if best is None or t < best else best
                for a in have:
                    if a not in d:
                        cells.append("")
                        continue
                    t = float(d[a]["median_us"])
                    p = d[a]["predicted_us"]
                    pred = f" ({float(p):.0f})" if p else ""
                    mark = "**" if t == best else ""
                    cells.append(f"{mark}{t:.1f}{mark}{pred} {mpi / t:.2f}x")
                for a in autos:
                    if a in d:
                        t = float(d[a]["median_us"])
                        cells.append(f"{d[a]['served_by']}, {mpi / t:.2f}x")
                    else:
                        cells.append("")
                if dav:
                    du = d["mpi"].get("dav_us")
                    if du and best:
                        cells += [f"{float(du):.1f}", f"{100 * float(du) / best:.0f}"]
                    else:
                        cells += ["", ""]
                print("| " + " | ".join(cells) + " |")
            print()
        print("(bold: the fastest vred column; x = MPI time / that column's time, > 1: vred faster)")


def alg_of_name(impl):
    return impl.split("/")[0]


def from_which(sizes, wins):
    """The smallest size from which `wins` holds at every larger size; None if not even at the largest."""
    point = None
    for s, w in sorted(zip(sizes, wins), reverse=True):
        if not w:
            break
        point = s
    return point


def switch(paths):
    for path in paths:
        by, impls, r0 = load(path)
        if r0 is None:
            continue
        print(f"\n{r0['label']}, {r0['ranks']} ranks ({path.split('/')[-1]}; {bench_mode.heading([r0])}):")
        colls = []
        for c, _ in by:
            if c not in colls:
                colls.append(c)
        for coll in colls:
            keys = sorted(k for k in by if k[0] == coll)
            t = lambda k, a: float(by[k][a]["median_us"])  # noqa: E731
            # dpml vs ma (without --nt: columns "dpml" and "ma")
            ks = [k for k in keys if "ma" in by[k] and "dpml" in by[k]]
            if ks:
                sizes = [k[1] for k in ks]
                point = from_which(sizes, [t(k, "dpml") >= (1 - TIE) * t(k, "ma") for k in ks])
                dwins = [human(k[1]) for k in ks if t(k, "dpml") < (1 - TIE) * t(k, "ma")]
                if point is None:
                    msg = f"dpml still faster at the largest size measured ({human(sizes[-1])})"
                elif point == sizes[0]:
                    msg = f"ma faster at every size measured ({human(sizes[0])}..{human(sizes[-1])}): no dpml range"
                else:
                    below = max(s for s in sizes if s < point)
                    msg = f"dpml up to {human(below)}, ma from {human(point)}"
                picks = [f"{human(k[1])} {by[k]['auto']['served_by']}" for k in ks if "auto" in by[k]]
                picks = f"; auto picked: {', '.join(picks)}" if picks else ""
                print(f"  {coll}: dpml -> ma switch: {msg} (dpml faster by > {TIE:.0%} at: {', '.join(dwins) or 'none'}){picks}")
            # ordinary vs streaming vs adaptive, per algorithm measured under --nt
            for alg in sorted({alg_of_name(a) for a in impls if "/" in a}):
                off, on, ad = f"{alg}/off", f"{alg}/on", f"{alg}/auto"
                ks = [k for k in keys if off in by[k] and on in by[k]]
                if not ks:
                    continue
                sizes = [k[1] for k in ks]
                point = from_which(sizes, [t(k, on) <= (1 + TIE) * t(k, off) for k in ks])
                if point is None:
                    msg = f"ordinary faster at the largest size measured ({human(sizes[-1])}): no streaming range"
                elif point == sizes[0]:
                    msg = f"streaming faster at every size measured (from {human(point)})"
                else:
                    msg = f"ordinary up to {human(max(s for s in sizes if s < point))}, streaming from {human(point)}"
                extra = ""
                kas = [k for k in ks if ad in by[k]]
                if kas:
                    worst = max(kas, key=lambda k: t(k, ad) / min(t(k, on), t(k, off)))
                    w = t(worst, ad) / min(t(worst, on), t(worst, off))
                    extra = (f"; adaptive within {100 * (w - 1):.1f}% of the better of the two at every size "
                             f"(worst at {human(worst[1])})" if w > 1 else
                             "; adaptive at least as fast as the better of the two at every size")
                print(f"  {coll} ({alg}): ordinary -> streaming switch: {msg}{extra}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "--switch":
        if len(args) < 2:
            sys.exit(__doc__)
        switch(args[1:])
    else:
        tables(args)
