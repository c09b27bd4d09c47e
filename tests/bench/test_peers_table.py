#!/usr/bin/env python3
"""bench/peers_table.py: several rounds of one MPI's CSV make one cell per (collective, size)
whose ratio is the median of the rounds' ratios and whose times are the quietest round's; the
"worst over" and "cells under" lines follow the median, so one round's outlier (the quietest or
not) neither makes nor hides a loss."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import peers_table  # noqa: E402

COLS = ("label,mpi_library,ranks,collective,size_bytes,impl,served_by,median_us,mpi_over_impl,"
        "sync,buffers,cpu")
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def round_rows(coll, size, mpi_us, vred_us, pick):
    lib = "Open MPI v4.1.4; x"
    common = f"o,{lib},2,{coll},{size}"
    tail = "back-to-back,malloc,c"
    return (f"{common},mpi,mpi,{mpi_us},1.0,{tail}\n"
            f"{common},auto,{pick},{vred_us},{mpi_us / vred_us:.4f},{tail}\n")


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "openmpi.csv")
    with open(path, "w") as f:
        f.write(COLS + "\n")
        # Rounds one after the other, as run_peers.sh appends them. allgather 1M: ratios 1.01,
        # 1.00 and 0.87, the 0.87 in the quietest round (least sum: 55.8 + 64.0).
        for mpi_us, vred_us in ((73.4, 72.7), (64.7, 64.7), (55.8, 64.0)):
            f.write(round_rows("allgather", 1 << 20, mpi_us, vred_us, "mpi"))
        # allreduce 4M: ratios 1.70, 1.80, 1.75 and a pick that changed between rounds.
        for (mpi_us, vred_us), pick in zip(((1020.0, 600.0), (900.0, 500.0), (980.0, 560.0)),
                                           ("cma", "cma", "ma")):
            f.write(round_rows("allreduce", 4 << 20, mpi_us, vred_us, pick))
        # bcast 4K: a loss in two rounds of three must stay a loss.
        for mpi_us, vred_us in ((0.60, 0.70), (0.60, 0.61), (0.62, 0.70)):
            f.write(round_rows("bcast", 4096, mpi_us, vred_us, "pipe"))
        # reduce 16K, an even count of rounds: the lower of the two middle ratios.
        for mpi_us, vred_us in ((2.0, 1.0), (2.0, 1.6), (2.0, 1.8), (2.0, 0.9)):
            f.write(round_rows("reduce", 16384, mpi_us, vred_us, "ma"))

    cells, meta, rows = peers_table.load([("openmpi", path)])
    ag = cells[("allgather", 1 << 20)]["openmpi"]
    check("allgather 1M ratio (median of 1.01, 1.00, 0.87)", round(ag.ratio, 2), 1.0)
    check("allgather 1M times (the quietest round)", (ag.mpi_us, ag.auto_us), (55.8, 64.0))
    ar = cells[("allreduce", 4 << 20)]["openmpi"]
    check("allreduce 4M ratio", round(ar.ratio, 2), 1.75)
    check("allreduce 4M times", (ar.mpi_us, ar.auto_us), (900.0, 500.0))
    check("allreduce 4M pick (rounds differed)", ar.pick, "cma*")
    rd = cells[("reduce", 16384)]["openmpi"]
    check("reduce 16K ratio (even count: the lower middle)", round(rd.ratio, 2), 1.25)
    bc = cells[("bcast", 4096)]["openmpi"]
    check("bcast 4K ratio", round(bc.ratio, 2), 0.89)

    lines = peers_table.ratio_lines(["openmpi"], cells, 0.95)
    under = [ln for ln in lines if ln.startswith("cells under")]
    check("cells under 0.95", under, ["cells under 0.95: 1: openmpi bcast 4K 0.89 (pipe)"])
    worst = [ln for ln in lines if ln.startswith("worst over")]
    check("worst over openmpi", worst, ["worst over openmpi: 0.89 (bcast 4K)"])

for f in failures:
    print("FAILED", f)
print("test_peers_table:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
