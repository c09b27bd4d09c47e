#!/usr/bin/env python3
"""Plots vred-bench / vred-kbench CSV files as PNGs.

usage: bench/plot.py [--out DIR] FILE.csv [FILE.csv ...]
       bench/plot.py coll [--out DIR] FILE.csv [FILE.csv ...]

A `vred-bench local --csv` file (any number, e.g. one per MPI baseline) gives
  local_<type>_<op>_<isa>[<mode>].png
                               one per case: GB/s against message size, log-log, one panel per
                               (cache, baseline), lines for vred, the MPI and memcpy
  speedup_<isa>[<mode>].png    vred/MPI time ratio against size, one panel per (cache, baseline),
                               one line per case
A `vred-kbench tails --csv` file gives
  tails_<isa>.png              ns per call against length, masked tail vs cascade, one panel per case
A `vred-bench coll --csv` file (also found among the files of the first form) gives
  coll_<label>_np<P>[_<type>_<op>][_sparse<S>][<mode>].png
                               one column per collective: time per call against size, log-log,
                               a line per vred column (colour: algorithm; under `--nt`, line
                               style: ordinary solid, streaming dashed, adaptive dotted), the
                               MPI's own and the DAV bound (a dotted grey line: the YHCCL
                               data-access volume / the node's memcpy rate, when the CSV has it);
                               below it MPI time / column time (> 1: vred faster)
Colours are fixed across every plot: the MPI black, vred's choice (auto; in local plots: vred) red,
each vred algorithm its own (COLORS), anything else a stable colour of its name; memcpy grey.
Ratio panels: log axis with labelled ticks (0.5, 1, 2, 4, ... or finer over a narrow range), a
dashed line at 1. Titles: the measuring mode (bench/bench_mode.py: back-to-back calls on malloc'd
buffers by default; --sync barrier, --align, --offset) and the CPU, from the CSV; <mode> in a file
name is empty for the default mode, else e.g. _barrier_align64.
Bytes moved: a reduction counts 3 x size (read in, read inout, write inout), memcpy 2 x size.
"""
import argparse
import collections
import csv
import math
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_mode  # noqa: E402

MODES = ("warm", "cold")

# One colour per implementation, the same in every plot (bench_mode.py; report.py uses it too).
COLORS, color_of = bench_mode.COLORS, bench_mode.color_of


RATIO_TICKS = (1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16, 32, 64, 128)
# Over a narrow range (fewer than 4 powers of two), the finest of these with 3 to 7 ticks that
# reach both ends.
RATIO_FINE = ((0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5),
              (0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5),
              (0.2, 0.3, 0.5, 1, 1.5, 2, 3, 5),
              (0.25, 0.5, 1, 2, 4))


def log_plain(ax):
    """A log y axis labelled 2, 10, 500 rather than 2x10^0; over a narrow span the 2s and 5s too."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    lo, hi = ax.get_ylim()
    span = hi / lo if lo > 0 else 1e9
    digits = "123456789" if span < 3 else "25" if span < 30 else ""
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v:.3g}" if f"{v:g}"[0] in digits else ""))
    ax.tick_params(axis="y", which="minor", labelsize=7)


def ratio_label(t, _=None):
    """0.5, 1, 2, 16; 1/8 rather than 0.125."""
    if 0 < t < 0.2 and abs(1 / t - round(1 / t)) < 1e-9:
        return f"1/{round(1 / t)}"
    return f"{t:g}"


def ratio_axis(ax, values):
    """A ratio panel: log y over the data and 1, labelled ticks (powers of two; finer over a
    narrow range), a dashed line at 1."""
    v = [x for x in values if x == x and x > 0 and math.isfinite(x)]
    lo, hi = min(v + [1.0]), max(v + [1.0])
    lo, hi = lo / 1.12, hi * 1.12
    ax.set_yscale("log")
    ticks = [t for t in RATIO_TICKS if lo <= t <= hi]
    if len(ticks) < 4:  # a narrow range: finer steps
        for tier in RATIO_FINE:
            fine = [t for t in tier if lo <= t <= hi]
            if 3 <= len(fine) <= 7 and fine[0] <= lo * 1.4 and fine[-1] >= hi / 1.4:
                ticks = fine
                break
    if len(ticks) > 8:  # thin out, keeping 1
        k = ticks.index(1)
        step = math.ceil(len(ticks) / 8)
        ticks = [t for i, t in enumerate(ticks) if (i - k) % step == 0]
    ax.set_ylim(lo, hi)
    ax.yaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(ratio_label))
    ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.axhline(1.0, color="black", linewidth=1.0, linestyle="--", zorder=1)


def title_mode(rows, local=False):
    """Second title line: the measuring mode and the CPU of these rows."""
    return bench_mode.heading(rows, local)


def size_label(b):
    b = int(b)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def read(files):
    local, tails, coll = [], [], []
    for f in files:
        with open(f, newline="") as fh:
            rows = list(csv.DictReader(fh))
        if not rows:
            continue
        if "vred_us" in rows[0]:
            local += rows
        elif "masked_ns" in rows[0]:
            tails += rows
        elif "impl" in rows[0] and "collective" in rows[0]:
            coll += rows
        else:
            print(f"plot.py: {f}: not a vred-bench or vred-kbench CSV, skipped", file=sys.stderr)
    return local, tails, coll


def size_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    ticks = sorted(sizes)
    if len(ticks) > 10:
        step = math.ceil(len(ticks) / 10)
        ticks = ticks[::step]
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(s) for s in ticks], rotation=45, fontsize=7)
    ax.set_xlabel("message size (bytes)")
    ax.grid(True, which="both", alpha=0.3)


def wrap_title(title, width_in):
    """Each line of title wrapped to the figure's width (about 13 characters per inch at 11 pt)."""
    return "\n".join(textwrap.fill(line, max(40, int(11 * width_in))) for line in title.split("\n"))


def grid(n_rows, n_cols, title):
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(5.2 * n_cols, 3.9 * n_rows), squeeze=False)
    fig.suptitle(wrap_title(title, 5.2 * n_cols), fontsize=11)
    return fig, axes


def plot_local(rows, out):
    written = []
    for bm in sorted({bench_mode.mode_of(r) for r in rows}):
        written += plot_local_mode([r for r in rows if bench_mode.mode_of(r) == bm], bench_mode.tag(bm), out)
    return written


def plot_local_mode(rows, tag, out):
    written = []
    baselines = sorted({r["baseline"] for r in rows})
    by_case = collections.defaultdict(list)
    for r in rows:
        by_case[(r["isa"], r["type"], r["op"])].append(r)
    case_colors = {}
    for ty, op in sorted({(r["type"], r["op"]) for r in rows}):
        case_colors[(ty, op)] = color_of(f"{ty} {op}")
    for (isa, ty, op), rs in sorted(by_case.items()):
        modes = [m for m in MODES if any(r["mode"] == m for r in rs)]
        bls = [b for b in baselines if any(r["baseline"] == b for r in rs)]
        fig, axes = grid(len(modes), len(bls), f"MPI_Reduce_local {ty} {op}: vred ({isa}) vs the MPI vs memcpy\n"
                         + title_mode(rs, local=True))
        for i, mode in enumerate(modes):
            for j, bl in enumerate(bls):
                ax = axes[i][j]
                sel = sorted((r for r in rs if r["mode"] == mode and r["baseline"] == bl),
                             key=lambda r: int(r["size_bytes"]))
                if not sel:
                    ax.set_visible(False)
                    continue
                x = [int(r["size_bytes"]) for r in sel]
                for col, label, style, who in (("vred_gbs", f"vred ({isa})", "o-", "vred"),
                                               ("mpi_gbs", f"MPI: {bl}", "s-", "mpi"),
                                               ("memcpy_gbs", "memcpy", "^:", "memcpy")):
                    ax.plot(x, [float(r[col]) for r in sel], style, label=label, markersize=4, color=color_of(who))
                log_plain(ax)
                size_axis(ax, x)
                ax.set_ylabel("GB/s (reduction 3x size, memcpy 2x size)", fontsize=8)
                ax.set_title(f"{mode} cache, baseline {bl}", fontsize=9)
                ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out, f"local_{ty}_{op}_{isa}{tag}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    for isa in sorted({r["isa"] for r in rows}):
        rs = [r for r in rows if r["isa"] == isa]
        modes = [m for m in MODES if any(r["mode"] == m for r in rs)]
        bls = [b for b in baselines if any(r["baseline"] == b for r in rs)]
        fig, axes = grid(len(modes), len(bls), f"vred ({isa}) speedup over the MPI's MPI_Reduce_local (MPI time / vred time)\n"
                         + title_mode(rs, local=True))
        for i, mode in enumerate(modes):
            for j, bl in enumerate(bls):
                ax = axes[i][j]
                sel = [r for r in rs if r["mode"] == mode and r["baseline"] == bl]
                cases = sorted({(r["type"], r["op"]) for r in sel})
                xs, ys = set(), []
                for ty, op in cases:
                    cs = sorted((r for r in sel if (r["type"], r["op"]) == (ty, op)),
                                key=lambda r: int(r["size_bytes"]))
                    x = [int(r["size_bytes"]) for r in cs]
                    xs.update(x)
                    y = [float(r["speedup_vs_mpi"]) for r in cs]
                    ys += y
                    ax.plot(x, y, "o-", markersize=3, label=f"{ty} {op}", color=case_colors[(ty, op)])
                ratio_axis(ax, ys)
                if xs:
                    size_axis(ax, xs)
                ax.set_ylabel("speedup (x)")
                ax.set_title(f"{mode} cache, baseline {bl}", fontsize=9)
                ax.legend(fontsize=6, ncol=2 if len(cases) > 8 else 1)
        fig.tight_layout()
        path = os.path.join(out, f"speedup_{isa}{tag}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def plot_tails(rows, out):
    written = []
    for isa in sorted({r["isa"] for r in rows}):
        rs = [r for r in rows if r["isa"] == isa]
        cases = sorted({(r["type"], r["op"]) for r in rs})
        cols = min(2, len(cases))
        nrows = math.ceil(len(cases) / cols)
        fig, axes = grid(nrows, cols, f"{isa}: masked tail vs cascade, ns per call (median)")
        for k, (ty, op) in enumerate(cases):
            ax = axes[k // cols][k % cols]
            cs = sorted((r for r in rs if (r["type"], r["op"]) == (ty, op)), key=lambda r: int(r["n"]))
            x = [int(r["n"]) for r in cs]
            ax.plot(x, [float(r["masked_ns"]) for r in cs], "-", label="masked tail", color=color_of("masked tail"))
            ax.plot(x, [float(r["cascade_ns"]) for r in cs], "-", label="cascade", color=color_of("cascade"))
            w = int(cs[0]["W"])
            for v in range(w, max(x) + 1, w):
                ax.axvline(v, color="grey", linewidth=0.5, alpha=0.5)
            ax.set_xlabel(f"elements (vector = {w})")
            ax.set_ylabel("ns per call")
            ax.set_title(f"{ty} {op}", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        for k in range(len(cases), nrows * cols):
            axes[k // cols][k % cols].set_visible(False)
        fig.tight_layout()
        path = os.path.join(out, f"tails_{isa}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


COLL_ORDER = ("allreduce", "reduce", "reduce_scatter_block", "scan", "bcast", "allgather")
# Under `vred-bench coll --nt`, the copy mode is the line style (the colour stays the algorithm's).
NT_STYLE = {"off": "-", "on": "--", "auto": ":", "env": "-."}


def impl_style(impl):
    """(colour, line style) of a vred column: "ALG" or "ALG/MODE"."""
    alg, _, nt = impl.partition("/")
    return color_of(alg), NT_STYLE.get(nt, "-") if nt else "-"


def plot_coll(rows, out):
    """vred-bench coll CSV: per (label, ranks, type, op, sparsity) one figure, a column per collective."""
    written = []
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["label"], r["ranks"], r["type"], r["op"], r["sparsity"], bench_mode.mode_of(r))].append(r)
    for (label, ranks, ty, op, sp, bm), rs in sorted(groups.items()):
        colls = [c for c in COLL_ORDER if any(r["collective"] == c for r in rs)]
        colls += sorted({r["collective"] for r in rs} - set(colls))
        fig, axes = plt.subplots(2, len(colls), figsize=(5.2 * len(colls), 7.4), squeeze=False,
                                 gridspec_kw={"height_ratios": [3, 2]})
        sparse = float(sp or 0) > 0
        fig.suptitle(f"{label}, {ranks} ranks, {ty} {op}" + (f", sparsity {sp}" if sparse else "") +
                     ": time per call (slowest rank, median) and MPI time / vred time\n" + title_mode(rs),
                     fontsize=11)
        for j, coll in enumerate(colls):
            cs = [r for r in rs if r["collective"] == coll]
            impls = ["mpi"] + sorted({r["impl"] for r in cs} - {"mpi"}, key=lambda a: (a != "auto", a))
            mpi = {int(r["size_bytes"]): float(r["median_us"]) for r in cs if r["impl"] == "mpi"}
            ax, axr = axes[0][j], axes[1][j]
            xs, ratios = set(), []
            for impl in impls:
                sel = sorted((r for r in cs if r["impl"] == impl), key=lambda r: int(r["size_bytes"]))
                if not sel:
                    continue
                x = [int(r["size_bytes"]) for r in sel]
                xs.update(x)
                y = [float(r["median_us"]) for r in sel]
                if impl == "mpi":
                    ax.plot(x, y, "s-", color=color_of("mpi"), markersize=4, linewidth=1.6, label="MPI (PMPI)")
                    continue
                color, style = impl_style(impl)
                lw = 2.0 if impl.partition("/")[0] == "auto" else 1.2
                ax.plot(x, y, "o" + style, color=color, markersize=3, linewidth=lw, label=f"vred {impl}")
                rat = [mpi[s] / v if s in mpi and v > 0 else float("nan") for s, v in zip(x, y)]
                ratios += rat
                axr.plot(x, rat, "o" + style, color=color, markersize=3, linewidth=lw, label=impl)
            # The DAV bound: the same for every row of a size; absent from older CSVs and when the
            # ranks are not one shared-memory node (empty dav_us).
            dav = sorted({(int(r["size_bytes"]), float(r["dav_us"])) for r in cs
                          if r["impl"] == "mpi" and r.get("dav_us")})
            if dav:
                gbs = next(float(r["memcpy_gbs"]) for r in cs if r.get("memcpy_gbs"))
                form = next(r["dav_formula"] for r in cs if r.get("dav_formula"))
                ax.plot([d[0] for d in dav], [d[1] for d in dav], ":", color="dimgray", linewidth=2.2,
                        label=f"DAV bound {form} / {gbs:.1f} GB/s")
            log_plain(ax)
            ratio_axis(axr, ratios)
            for a in (ax, axr):
                if xs:
                    size_axis(a, xs)
            ax.set_ylabel("time per call (us)")
            axr.set_ylabel("MPI / vred (> 1: vred faster)", fontsize=8)
            ax.set_title(coll, fontsize=9)
            ax.legend(fontsize=6 if len(impls) > 8 else 7, ncol=2 if len(impls) > 8 else 1)
            axr.legend(fontsize=6, ncol=2)
        fig.tight_layout()
        name = f"coll_{label}_np{ranks}"
        if (ty, op) != ("f32", "sum"):
            name += f"_{ty}_{op}"
        if sparse:
            name += f"_sparse{sp}"
        name += bench_mode.tag(bm)
        path = os.path.join(out, name + ".png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def main():
    argv = sys.argv[1:]
    coll_only = bool(argv) and argv[0] == "coll"
    if coll_only:
        argv = argv[1:]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="CSV files from vred-bench local|coll --csv / vred-kbench tails --csv")
    ap.add_argument("--out", default=None, help="directory for the PNGs (default: the first file's)")
    a = ap.parse_args(argv)
    out = a.out or os.path.dirname(os.path.abspath(a.files[0]))
    os.makedirs(out, exist_ok=True)
    local, tails, coll = read(a.files)
    if coll_only:
        local, tails = [], []
    written = ((plot_local(local, out) if local else []) + (plot_tails(tails, out) if tails else []) +
               (plot_coll(coll, out) if coll else []))
    for p in written:
        print(p)
    if not written:
        print("plot.py: nothing to plot", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
