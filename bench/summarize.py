#!/usr/bin/env python3
"""Prints the vred/MPI speedup matrix from vred-bench local CSV files (no dependencies).

usage: bench/summarize.py [--sizes 1K,64K,1M,16M,128M] [--mode warm|cold|both] FILE.csv ...

One block per (cache mode, ISA, buffer placement): a row per (case, baseline), a column per size;
each cell is MPI time / vred time (> 1: vred faster); a trailing '!' marks a row where --validate
found vred and the MPI disagreeing. Each block's heading says the measuring mode (calls back to
back; buffers from malloc by default, or --align / --offset: bench/bench_mode.py) and the CPU.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_mode  # noqa: E402


def parse_size(s):
    s = s.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s[:-1] if mult > 1 else s) * mult)


def label(b):
    for u, sh in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << sh and b % (1 << sh) == 0:
            return f"{b >> sh}{u}"
    return str(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--sizes", default="1K,64K,1M,16M,128M")
    ap.add_argument("--mode", default="both")
    a = ap.parse_args()
    rows = []
    for f in a.files:
        with open(f, newline="") as fh:
            rows += [r for r in csv.DictReader(fh) if "speedup_vs_mpi" in r]
    if not rows:
        print("summarize.py: no vred-bench local rows", file=sys.stderr)
        return 1
    present = {int(r["size_bytes"]) for r in rows}
    sizes = [s for s in map(parse_size, a.sizes.split(",")) if s in present] or sorted(present)
    modes = ["warm", "cold"] if a.mode == "both" else [a.mode]
    order = ["scalar", "sse41", "avx2", "avx512", "neon", "sve"]
    placements = sorted({bench_mode.mode_of(r) for r in rows}, key=lambda m: (not bench_mode.is_default(m), m))
    for isa, mode, bm in ((i, m, b) for i in sorted({r["isa"] for r in rows},
                                                   key=lambda i: (order.index(i) if i in order else 99, i))
                          for b in placements for m in modes):
        sel = [r for r in rows if r["isa"] == isa and r["mode"] == mode and bench_mode.mode_of(r) == bm]
        if not sel:
            continue
        print(f"\n# vred/MPI speedup, {mode} cache, vred ISA {isa}; {bench_mode.heading(sel, local=True)}")
        print(f"{'case':<14} {'baseline':<16}" + "".join(f"{label(s):>9}" for s in sizes))
        keys = []
        for r in sel:
            k = (r["type"] + ":" + r["op"], r["baseline"])
            if k not in keys:
                keys.append(k)
        for case, bl in keys:
            cells, bad = [], False
            for s in sizes:
                m = [r for r in sel if (r["type"] + ":" + r["op"], r["baseline"]) == (case, bl)
                     and int(r["size_bytes"]) == s]
                cells.append(f"{float(m[0]['speedup_vs_mpi']):9.2f}" if m else f"{'-':>9}")
                bad |= any(r.get("validation") == "FAIL" for r in m)
            print(f"{case:<14} {bl:<16}" + "".join(cells) + ("  !" if bad else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
