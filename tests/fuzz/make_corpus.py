#!/usr/bin/env python3
"""Writes the seed corpus of the two fuzz harnesses (tests/fuzz/corpus/<harness>/): a few inputs
per harness that start the fuzzer at the corners worth mutating (NaN payloads, signalling NaNs,
+-0, wrap-around, non-0/1 booleans, ties, every buffer form; valid packed messages of every
format). The header layouts are the ones described at the top of fuzz_kernels.c and
fuzz_sparse.c. Deterministic: running it again rewrites the same files."""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = dict(max=0, min=1, sum=2, prod=3, land=4, lor=5, lxor=6, band=7, bor=8, bxor=9, minloc=10, maxloc=11)
TYPES = dict(i8=0, u8=1, i16=2, u16=3, i32=4, u32=5, i64=6, u64=7, f32=8, f64=9, ldbl=10, c32=11,
             c64=12, cldbl=13, bool=14, byte=15, bf16=16, f16=17, float_int=18, double_int=19,
             long_int=20, int2=21, short_int=22, ldbl_int=23, float2=24, double2=25)
FORMS = dict(two=0, three=1, alias_a=2, alias_b=3, nary=4, nary_alias=5, all=6)
# ISA variant indices on an AVX-512 machine: sse41, avx2, avx512/masked, avx512/cascade
rng = random.Random(6)


def kernel_case(op, ty, isa, form, n, body, nsrc=2, off_a=0, off_b=0, off_out=0):
    b3 = FORMS[form] | ((nsrc - 1) % 6) << 3
    b6 = (off_a & 63) | (off_out & 3) << 6
    b7 = (off_b & 63)
    return bytes([OPS[op], TYPES[ty], isa, b3, n & 255, n >> 8, b6, b7]) + body


def f32s(*v):
    return b"".join(struct.pack("<f", x) if isinstance(x, float) else struct.pack("<I", x) for x in v)


def f64s(*v):
    return b"".join(struct.pack("<d", x) if isinstance(x, float) else struct.pack("<Q", x) for x in v)


inf = float("inf")
kernels = {
    "f32_sum_nan_payloads": kernel_case("sum", "f32", 2, "two", 17,
        f32s(0x7fc01234, 1.0, -0.0, 0.0, inf, -inf, 0x7f800001, 3.5, 1e-45, 0xffc00000) * 4, off_a=3, off_b=5),
    "f64_max_signed_zero": kernel_case("max", "f64", 3, "alias_b", 33,
        f64s(-0.0, 0.0, 0x7ff0000000000001, 2.0, -inf, 0x7ff8dead00000000) * 6, off_a=1),
    "f16_max_nary_snan": kernel_case("max", "f16", 1, "nary", 40,
        struct.pack("<8H", 0x7d00, 0x3c00, 0x7c01, 0x8000, 0x0000, 0xfc00, 0x0001, 0x7e00) * 8, nsrc=3),
    "bf16_sum_all": kernel_case("sum", "bf16", 2, "all", 300,
        struct.pack("<6H", 0x3f80, 0x3b80, 0x0001, 0x7f80, 0x8001, 0x4000) * 20),
    "c32_prod_nary6": kernel_case("prod", "c32", 3, "nary_alias", 184,
        bytes(rng.randrange(256) for _ in range(97)), nsrc=6, off_a=47, off_b=54, off_out=2),
    "i8_sum_wrap": kernel_case("sum", "i8", 2, "two", 515, bytes([100, 0x7f, 0x80, 0xff, 1]) * 20),
    "bool_lxor_not01": kernel_case("lxor", "bool", 0, "three", 70, bytes([0, 1, 2, 0x80, 0xff, 1, 0])),
    "int2_maxloc_ties": kernel_case("maxloc", "int2", 2, "two", 20,
        struct.pack("<8i", 4, 9, 4, 2, -1, 0, 4, 1) * 3),
    "ldbl_int_minloc": kernel_case("minloc", "ldbl_int", 1, "alias_a", 9, bytes(rng.randrange(256) for _ in range(64))),
    "u64_bxor_large": kernel_case("bxor", "u64", 3, "alias_a", 1000, bytes(rng.randrange(256) for _ in range(61)), off_a=7),
    "cldbl_sum": kernel_case("sum", "cldbl", 0, "nary", 5, bytes(rng.randrange(256) for _ in range(160)), nsrc=4),
    "f32_band_invalid": kernel_case("band", "f32", 0, "two", 3, b"\x01\x02\x03\x04"),
}

HDR = struct.Struct("<IBBHIIQQ")


def packed(fmt, elems, es):
    """A valid message of format fmt (0 dense, 1 bits, 2 idx) of the elements (bytes each)."""
    n = len(elems)
    nzi = [i for i, e in enumerate(elems) if any(e)]
    head = HDR.pack(0x50535256, fmt, 1, 0, es, 0, n, len(nzi))
    if fmt == 0:
        return head + b"".join(elems)
    if fmt == 1:
        mask = bytearray((n + 63) // 64 * 8)
        for i in nzi:
            mask[i // 8] |= 1 << (i % 8)
        return head + bytes(mask) + b"".join(elems[i] for i in nzi)
    return head + b"".join(struct.pack("<I", i) for i in nzi) + b"".join(elems[i] for i in nzi)


def sparse_elems(n, es, density):
    return [bytes(rng.randrange(1, 256) if rng.random() < density else 0 for _ in range(es))
            if rng.random() < density else bytes(es) for _ in range(n)]


def rt(es_sel, zero, body, offs=0x35, isa=3, seed=7):
    return bytes([0, es_sel, isa, offs, zero, seed, 0, 0]) + body


def dec(msg, skew=0, isa=3):
    return bytes([1, 0, isa, 0, 0, 9, 1, skew]) + msg


sparse = {
    "rt_f32_even_zero": rt(2, 1, bytes(rng.randrange(256) for _ in range(400))),
    "rt_u8_runs": rt(0, 2 | 3 << 5, bytes(rng.randrange(1, 256) for _ in range(300)), isa=2),
    "rt_f64_dense": rt(3, 0, bytes(rng.randrange(256) for _ in range(256)), offs=0x71),
    "rt_es12_sparse": rt(4, 3 | 1 << 5, bytes(rng.randrange(256) for _ in range(360)), isa=1),
    "rt_es100": rt(11, 1, bytes(rng.randrange(256) for _ in range(700))),
    "rt_es3_scalar": rt(8, 1, bytes(rng.randrange(256) for _ in range(90)), isa=0),
    "dec_bits_f32": dec(packed(1, sparse_elems(70, 4, 0.3), 4)),
    "dec_idx_f64": dec(packed(2, sparse_elems(40, 8, 0.2), 8)),
    "dec_dense_u16": dec(packed(0, sparse_elems(10, 2, 0.5), 2)),
    "dec_bits_n_plus_1": dec(packed(1, sparse_elems(64, 1, 0.5), 1), skew=1),
    "dec_idx_bad_magic": dec(b"\x00" + packed(2, sparse_elems(9, 4, 0.5), 4)[1:]),
}

for name, cases in (("fuzz_kernels", kernels), ("fuzz_sparse", sparse)):
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for f, data in cases.items():
        with open(os.path.join(d, f), "wb") as fh:
            fh.write(data)
