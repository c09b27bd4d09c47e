"""One PNG per collective from bench/peers_table.py's cells (its --png option; bench/report.py):
median time per call against size, one colour per MPI, a solid line for the MPI alone and a dashed
one for vred over it; below, best alone / best vred (> 1: vred faster than any MPI alone) with
lines at 1 and at issue 14's target. The project's plot style and helpers are bench/plot.py's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402 (imports matplotlib: ImportError without it)
from peers_table import best  # noqa: E402

# The MPIs are what these figures compare, so each gets its own fixed colour (bench_mode's are
# per algorithm); an MPI not listed gets a stable colour of its name.
MPI_COLORS = {"openmpi": "#1f77b4", "mpich": "#ff7f0e", "openmpi5": "#2ca02c", "mpich5": "#9467bd",
              "impi": "#8c564b"}


def color(name):
    return MPI_COLORS.get(name) or plot.color_of(name)


def title(coll, rows):
    r = rows[0]
    return (f"{coll}, {r['ranks']} ranks, {r['type']} {r['op']}: each MPI alone (solid) and vred over it "
            f"(dashed), median time per call\n" + plot.title_mode(rows))


def times_panel(ax, names, by_size):
    # Every "alone" line first, then every "vred over": the two-column legend fills by column,
    # so each MPI's pair sits on one legend row.
    for field, style, label in (("mpi_us", "s-", "{} alone"), ("auto_us", "o--", "vred over {}")):
        for n in names:
            pts = [(s, getattr(by[n], field)) for s, by in by_size if n in by]
            ax.plot([s for s, _ in pts], [t for _, t in pts], style, color=color(n), markersize=3,
                    linewidth=1.4, label=label.format(n))
    plot.log_plain(ax)
    ax.set_ylabel("time per call (us)")
    ax.legend(fontsize=7, ncol=2)


def ratio_panel(ax, by_size, target):
    x = [s for s, _ in by_size]
    ratios = []
    for _, by in by_size:
        a, _, v, _ = best(by)
        ratios.append(a / v)
    ax.plot(x, ratios, "o-", color=plot.color_of("auto"), markersize=4, linewidth=1.6,
            label="best alone / best vred")
    for s, r in zip(x, ratios):  # the values themselves: the panel is read against 1 and the target
        ax.annotate(f"{r:.2f}", (s, r), textcoords="offset points", xytext=(0, 5), ha="center", fontsize=6)
    plot.ratio_axis(ax, ratios + [target])  # labelled ticks, a dashed line at 1
    # The target labelled too, without a neighbour close enough for the labels to overlap.
    ticks = [t for t in ax.get_yticks() if t == 1 or not target / 1.15 < t < target * 1.15] + [target]
    ax.yaxis.set_major_locator(plot.matplotlib.ticker.FixedLocator(sorted(ticks)))
    ax.axhline(target, color="dimgray", linewidth=1.0, linestyle=":", zorder=1,
               label=f"{target:g}: issue 14's target (reductions, >= 1 MiB)")
    ax.set_ylabel("best alone / best vred\n(> 1: vred faster)", fontsize=8)
    ax.legend(fontsize=7, loc="best")


def write_pngs(names, cells, rows, out, target, dpi=110, prefix=""):
    """OUT/<prefix><collective>.png for every collective of cells; returns the paths."""
    os.makedirs(out, exist_ok=True)
    paths = []
    for coll in dict.fromkeys(c for c, _ in cells):
        by_size = sorted((s, by) for (c, s), by in cells.items() if c == coll)
        crows = [r for n in names for r in rows.get(n, []) if r["collective"] == coll]
        fig, (ax, axr) = plot.plt.subplots(2, 1, figsize=(7.6, 7.4), gridspec_kw={"height_ratios": [3, 2]})
        fig.suptitle(plot.wrap_title(title(coll, crows), 7.6), fontsize=10)
        times_panel(ax, names, by_size)
        ratio_panel(axr, by_size, target)
        for a in (ax, axr):
            plot.size_axis(a, [s for s, _ in by_size])
        fig.tight_layout()
        path = os.path.join(out, f"{prefix}{coll}.png")
        fig.savefig(path, dpi=dpi)
        plot.plt.close(fig)
        paths.append(path)
    return paths
