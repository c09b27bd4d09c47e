"""The measuring mode of a vred-bench CSV row, for plot.py, summary.py, summarize.py and report.py.

vred-bench coll and local write it in two columns (issue 16):
  sync     back-to-back  calls back to back, one barrier per timed batch (coll; local has no barrier
                         at all): the default, the way applications and IMB/OSU call
           barrier       a barrier before every call (coll --sync barrier)
  buffers  malloc        plain malloc (glibc: 16 mod 64 for large blocks): the default
           alignA        aligned_alloc(A) (--align A)
           offsetN       N bytes past a 4096-aligned address (--offset N)
           offsetS/R     send (local: in) S, receive (local: inout) R bytes past one (--offset S/R)
and the CPU's model name in a column cpu. Also the one colour of each implementation that every
plot uses (COLORS, color_of). CSVs written before those columns were all taken with a
barrier before every collective call on 64-byte-aligned buffers (local: back to back, 64-byte-
aligned slots of a 4096-aligned pool): legacy() says so.
"""

DEFAULT = ("back-to-back", "malloc")


def legacy(row):
    """The mode of a row from a vred-bench that did not write it."""
    return ("barrier", "align64") if "collective" in row else ("back-to-back", "align64")


def mode_of(row):
    """(sync, buffers) of a CSV row."""
    if row.get("sync") and row.get("buffers"):
        return row["sync"], row["buffers"]
    return legacy(row)


def is_default(mode):
    return tuple(mode) == DEFAULT


def describe(mode, local=False):
    """'back-to-back calls, malloc'd buffers' and the like: for titles and table headings."""
    sync, buf = mode
    s = "back-to-back calls" if sync == "back-to-back" else "a barrier before every call" if sync == "barrier" else sync
    if buf == "malloc":
        b = "malloc'd buffers"
    elif buf.startswith("align"):
        b = f"{buf[5:]}-byte-aligned buffers"
    elif buf.startswith("offset") and "/" in buf:
        sn, rn = buf[6:].split("/", 1)
        b = f"{'in' if local else 'send'} +{sn} B, {'inout' if local else 'recv'} +{rn} B past 4 KiB"
    elif buf.startswith("offset"):
        b = f"buffers +{buf[6:]} B past 4 KiB"
    else:
        b = f"buffers {buf}"
    return f"{s}, {b}"


def tag(mode):
    """'' for the default mode, else '_barrier_align64' and the like (file names)."""
    if is_default(mode):
        return ""
    sync, buf = mode
    return ("_barrier" if sync == "barrier" else "") + "_" + buf.replace("/", "_")


def cpu_of(rows):
    """The CPU model of the first row that has one, or None."""
    for r in rows:
        if r.get("cpu"):
            return r["cpu"].replace(";", ",")
    return None


def heading(rows, local=False, cpu=True, short=False):
    """'mode: back-to-back calls, malloc'd buffers (the default); CPU: AMD EPYC' for a set of rows
    (short: without the parenthesis)."""
    modes = sorted({(mode_of(r), not r.get("sync")) for r in rows})
    m = "; ".join(describe(x, local) + ("" if short else " (CSV from before the mode columns)" if old else
                                        " (the default)" if is_default(x) else "")
                  for x, old in modes)
    c = cpu_of(rows) if cpu else None
    return f"mode: {m}" + (f"; CPU: {c}" if c else "")


# One colour per implementation, the same in every plot (plot.py and report.py). "auto" is vred's
# own choice, as is "vred" in the MPI_Reduce_local plots; "mpi" is the MPI library's.
COLORS = {"mpi": "black", "auto": "#d62728", "vred": "#d62728", "memcpy": "#7f7f7f",
          "binomial": "#1f77b4", "redscat": "#ff7f0e", "ring": "#2ca02c", "recdbl": "#8c564b",
          "ma": "#9467bd", "dpml": "#e377c2", "pipe": "#17becf", "cma": "#9edae5",
          "masked tail": "#1f77b4",
          "cascade": "#ff7f0e", "bits": "#1f77b4", "idx": "#2ca02c"}
_SPARE = ["#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
          "#31a354", "#756bb1", "#636363", "#9c9ede", "#cedb9c", "#e7ba52", "#ad494a", "#de9ed6"]


def color_of(name):
    """The fixed colour of an implementation (or case); a stable one of its name if it has none."""
    if name in COLORS:
        return COLORS[name]
    h = 0
    for ch in name:
        h = (h * 131 + ord(ch)) % 1000003
    return _SPARE[h % len(_SPARE)]
