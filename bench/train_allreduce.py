#!/usr/bin/env python3
"""The gradient allreduce of a data-parallel training loop, from Python through mpi4py, with vred
and with the MPI library underneath alternating in one run.

Each "step" allreduces a model's gradients the way Horovod's tensor fusion does: the gradients are
copied into a fusion buffer of F MiB, the buffer is allreduced (MPI_SUM, float32, in place, with
mpi4py's comm.Allreduce(MPI.IN_PLACE, buf) on a numpy array), and the next part of the gradients
follows; the last round is partial. Two gradient types:
  f32   float32 gradients: the time of the allreduce calls of a step
  bf16  bfloat16 gradients (numpy uint16 holding the bits), accumulated in float32 as the
        frameworks do: bf16 -> f32 into the fusion buffer, allreduce f32, f32 -> bf16 (round to
        nearest even) into the output gradients; the time of the whole step (conversions
        included) and, separately, of its allreduce calls
vred vs MPI: vred_mpi_force("allreduce", "mpi") hands every MPI_Allreduce to the MPI underneath,
("allreduce", "auto") gives it back to vred's choice. Blocks of steps alternate between the two on
every rank at the same step, in one process on the same buffers, so the machine's noise hits both
alike (DESIGN.md, "Measuring"). Every result of the first step of each block (and of the warm-up
steps) is checked exactly: the gradients are small integers, so the float sums are exact.

Run under mpirun with libvred-mpi.so in LD_PRELOAD (bench/run_train.sh does); prints one line per
(model, fusion, dtype, part) on rank 0 and appends to --csv.
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np
from mpi4py import MPI

# Parameter counts (torchvision): ResNet-50 25.6M, VGG-16 138.4M floats, as in the YHCCL paper's fig. 18.
MODELS = {"resnet50": 25_557_032, "vgg16": 138_357_544}
MiB = 1 << 20


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="resnet50,vgg16")
    p.add_argument("--fusion", default="64,128", help="fusion buffer sizes in MiB")
    p.add_argument("--dtypes", default="f32,bf16")
    p.add_argument("--steps", type=int, default=20, help="timed steps per side (vred and MPI)")
    p.add_argument("--block", type=int, default=5, help="steps per block before switching sides")
    p.add_argument("--vred-alg", default="auto",
                   help="vred's side: auto (its own choice) or an algorithm to force (ma, redscat, ...)")
    p.add_argument("--csv", default="")
    p.add_argument("--label", default="")
    return p.parse_args()


class Vred:
    """vred's run-time switch, found among the process's global symbols (LD_PRELOAD puts
    libvred-mpi.so there; ctypes.CDLL(None) is dlopen(NULL))."""

    def __init__(self):
        lib = ctypes.CDLL(None)
        try:
            self.force_fn = lib.vred_mpi_force
            self.last_fn = lib.vred_mpi_last_alg
        except AttributeError:
            sys.exit("train_allreduce.py: vred is not preloaded (no vred_mpi_force in the process); "
                     "run with LD_PRELOAD=<build>/<flavor>/libvred-mpi.so")
        self.force_fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        self.force_fn.restype = ctypes.c_int
        self.last_fn.restype = ctypes.c_char_p

    def force(self, alg):
        if self.force_fn(b"allreduce", alg.encode()) != 0:
            sys.exit(f"train_allreduce.py: vred_mpi_force(allreduce, {alg}) refused "
                     f"(not an allreduce algorithm of this vred)")

    def last(self):
        return self.last_fn().decode()


def rounds(count, fusion_floats):
    """(offset, length) of each fusion round of a model's gradients; the last may be partial."""
    return [(off, min(fusion_floats, count - off)) for off in range(0, count, fusion_floats)]


def pattern(count, rank, period):
    """Rank r's gradients: (r+1) * (i mod period) + r. Every rank differs by more than a constant,
    so a rank's data counted twice or a block out of place shows; the sum over P ranks is
    S1 * (i mod period) + S0 with S1 = P(P+1)/2, S0 = P(P-1)/2, exact in float32."""
    base = np.arange(period, dtype=np.float32)
    tile = np.resize(base, count)  # (i mod period) without an int64 index array
    return tile * np.float32(rank + 1) + np.float32(rank)


def expected_from_own(own, rank, size):
    """The allreduce sum, from this rank's own gradients (own = (r+1)*b + r): S1*b + S0."""
    s1, s0 = size * (size + 1) // 2, size * (size - 1) // 2
    b = (own - np.float32(rank)) / np.float32(rank + 1)  # exact: small integers
    return b * np.float32(s1) + np.float32(s0)


def bf16_to_f32(src16, dst32):
    """bf16 bits -> float32 in place in dst32: widen, then shift into the high half."""
    u = dst32.view(np.uint32)
    np.copyto(u, src16, casting="safe")
    np.left_shift(u, 16, out=u)


def f32_to_bf16(src32, dst16, tmp32):
    """float32 -> bf16 bits, round to nearest even (what torch does; NaN payloads are not kept
    apart here: gradients of a training step are finite). src32 is destroyed (it is the fusion
    buffer, done with after this); tmp32 is scratch of the same length."""
    u = src32.view(np.uint32)
    t = tmp32.view(np.uint32)
    np.right_shift(u, 16, out=t)
    np.bitwise_and(t, 1, out=t)
    np.add(u, t, out=u)
    np.add(u, 0x7FFF, out=u)
    np.right_shift(u, 16, out=u)
    np.copyto(dst16, u, casting="unsafe")


class Case:
    """One (model, fusion, dtype): its buffers and one step."""

    def __init__(self, comm, model, fusion_mib, dtype):
        self.comm, self.model, self.fusion_mib, self.dtype = comm, model, fusion_mib, dtype
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.count = MODELS[model]
        self.rounds = rounds(self.count, fusion_mib * MiB // 4)
        nf = min(self.count, fusion_mib * MiB // 4)
        self.fusion = np.empty(nf, dtype=np.float32)
        self.fusion.fill(0)  # touch the pages now, not in the first timed step
        if dtype == "f32":
            # period 1021 (prime: the fusion offsets never line it up); sums stay < 2^24
            self.grads = pattern(self.count, self.rank, 1021)
        else:
            # bf16 holds integers exactly up to 256: the largest sum S1*(m-1)+S0 must stay there
            s1, s0 = self.size * (self.size + 1) // 2, self.size * (self.size - 1) // 2
            period = max(2, (256 - s0) // s1 + 1)
            g32 = pattern(self.count, self.rank, period)
            self.grads16 = (g32.view(np.uint32) >> 16).astype(np.uint16)  # exact: small integers
            del g32
            self.out16 = np.zeros(self.count, dtype=np.uint16)
            self.tmp = np.empty(nf, dtype=np.float32)
            self.tmp.fill(0)

    def bytes_per_step(self):
        return self.count * 4  # float32 on the wire either way

    def step(self, check):
        """One step; returns (allreduce seconds, step seconds) and raises on a wrong result."""
        comm, ar = self.comm, 0.0
        t_step = time.perf_counter()
        for off, n in self.rounds:
            buf = self.fusion[:n]
            if self.dtype == "f32":
                np.copyto(buf, self.grads[off:off + n])  # Horovod's memcpy into the fusion buffer
            else:
                bf16_to_f32(self.grads16[off:off + n], buf)
            t0 = time.perf_counter()
            comm.Allreduce(MPI.IN_PLACE, buf)  # MPI_SUM, float32
            ar += time.perf_counter() - t0
            if self.dtype == "f32":
                if check:
                    exp = expected_from_own(self.grads[off:off + n], self.rank, self.size)
                    if not np.array_equal(buf, exp):
                        bad = int(np.flatnonzero(buf != exp)[0])
                        raise RuntimeError(f"rank {self.rank}: {self.model} f32 round at {off}: "
                                           f"element {off + bad} is {buf[bad]}, expected {exp[bad]}")
                # (Horovod copies the result out of the fusion buffer; nothing vred changes)
            else:
                f32_to_bf16(buf, self.out16[off:off + n], self.tmp[:n])
        t_step = time.perf_counter() - t_step
        if check and self.dtype == "bf16":
            g = np.empty(self.count, dtype=np.float32)
            bf16_to_f32(self.grads16, g)
            exp = expected_from_own(g, self.rank, self.size)
            exp16 = (exp.view(np.uint32) >> 16).astype(np.uint16)
            if not np.array_equal(self.out16, exp16):
                bad = int(np.flatnonzero(self.out16 != exp16)[0])
                raise RuntimeError(f"rank {self.rank}: {self.model} bf16: element {bad} is bits "
                                   f"{self.out16[bad]:#06x}, expected {exp16[bad]:#06x}")
            self.out16.fill(0)  # a stale right answer must not pass the next check
        return ar, t_step


def run_case(comm, vred, case, steps, block, vred_alg):
    """Alternating blocks: mpi, vred, vred, mpi, mpi, vred, ... (ABBA, so neither side always
    goes first after a switch). Returns per-side lists of (allreduce, step) seconds, each the
    slowest rank's, plus the algorithm vred chose."""
    sides = ("mpi", vred_alg)
    algs = {}
    # One warm-up step per side, checked: vred makes its shared-memory region on first use, and
    # the MPI its own connections; neither belongs in a step time.
    for side in sides:
        vred.force(side)
        comm.Barrier()
        case.step(check=True)
        algs[side] = vred.last()
    times = {s: [] for s in sides}
    nblocks = -(-steps // block)
    for b in range(2 * nblocks):
        side = sides[(b + (b // 2)) % 2]  # 0,1,1,0,0,1,1,0...
        if len(times[side]) >= steps:
            continue
        vred.force(side)  # every rank, at the same step
        for i in range(min(block, steps - len(times[side]))):
            comm.Barrier()  # a step starts together on every rank (the previous one ended in a collective)
            ar, st = case.step(check=(i == 0))
            times[side].append((ar, st))
    vred.force("auto")
    # The slowest rank's time per step: a collective ends when its last rank does.
    out = {}
    for s in sides:
        mine = np.array(times[s], dtype=np.float64)
        worst = np.empty_like(mine)
        comm.Allreduce(mine, worst, op=MPI.MAX)
        out[s] = worst
    return out, algs


def main():
    args = parse()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    vred = Vred()
    if size < 2 and rank == 0:
        print("train_allreduce.py: one rank: both sides only copy", file=sys.stderr)
    lib = MPI.Get_library_version().splitlines()[0].strip()
    models = args.models.split(",")
    fusions = [int(x) for x in args.fusion.split(",")]
    dtypes = args.dtypes.split(",")
    for m in models:
        if m not in MODELS:
            sys.exit(f"train_allreduce.py: unknown model {m} ({', '.join(MODELS)})")
    rows = []
    if rank == 0:
        print(f"# {lib}; {size} ranks; mpi4py {__import__('mpi4py').__version__}, numpy {np.__version__}; "
              f"{args.steps} steps per side in blocks of {args.block}", flush=True)
    for m in models:
        for f in fusions:
            for d in dtypes:
                case = Case(comm, m, f, d)
                res, algs = run_case(comm, vred, case, args.steps, args.block, args.vred_alg)
                if algs["mpi"] != "mpi" and rank == 0:
                    print(f"# warning: forced mpi but vred reports {algs['mpi']}", file=sys.stderr)
                parts = [("allreduce", 0)] if d == "f32" else [("step+conv", 1), ("allreduce", 0)]
                for part, col in parts:
                    mpi_ms = float(np.median(res["mpi"][:, col])) * 1e3
                    vred_ms = float(np.median(res[args.vred_alg][:, col])) * 1e3
                    row = dict(label=args.label, model=m, fusion_mib=f, dtype=d, part=part,
                               ranks=size, rounds=len(case.rounds), steps=args.steps,
                               mpi_ms=mpi_ms, vred_ms=vred_ms, speedup=mpi_ms / vred_ms,
                               mpi_min_ms=float(res["mpi"][:, col].min()) * 1e3,
                               vred_min_ms=float(res[args.vred_alg][:, col].min()) * 1e3,
                               bytes_per_step=case.bytes_per_step(), vred_alg=algs[args.vred_alg], mpi=lib)
                    rows.append(row)
                    if rank == 0:
                        print(f"{m:9s} {f:4d} {d:5s} {part:10s} {mpi_ms:10.2f} {vred_ms:10.2f} "
                              f"{mpi_ms / vred_ms:7.2f}x {case.bytes_per_step() / 1e6:9.1f} MB "
                              f"({len(case.rounds)} rounds, vred: {algs[args.vred_alg]})", flush=True)
                del case
    if rank == 0 and args.csv:
        new = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        keys = list(rows[0].keys())
        with open(args.csv, "a") as fh:
            if new:
                fh.write(",".join(keys) + "\n")
            for r in rows:
                fh.write(",".join(f"{r[k]:.4f}" if isinstance(r[k], float) else
                                  '"' + str(r[k]).replace('"', "'") + '"' if k == "mpi" else str(r[k])
                                  for k in keys) + "\n")


if __name__ == "__main__":
    main()
