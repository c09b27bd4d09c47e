/*
 * The one loop body every SIMD ISA shares. An ISA supplies a vector type V, unaligned LOAD and
 * STORE, and OP(x, y) with x = `in`, y = `inout`; the body runs four vectors a trip (independent
 * chains keep both load ports busy), then single vectors, and leaves i at the first element the
 * ISA's tail must handle (fewer than one vector).
 */
#ifndef VRED_SIMD_BODY_H
#define VRED_SIMD_BODY_H

#include <stddef.h>
#include <stdint.h>

#define VRED_SIMD_LOOP(T, V, LOAD, STORE, OP, a, b, o, n, i)                                    \
    do {                                                                                        \
        enum { W_ = sizeof(V) / sizeof(T) };                                                    \
        for (; (i) + 4 * W_ <= (n); (i) += 4 * W_) {                                            \
            STORE((o) + (i), OP(LOAD((a) + (i)), LOAD((b) + (i))));                             \
            STORE((o) + (i) + W_, OP(LOAD((a) + (i) + W_), LOAD((b) + (i) + W_)));              \
            STORE((o) + (i) + 2 * W_, OP(LOAD((a) + (i) + 2 * W_), LOAD((b) + (i) + 2 * W_)));  \
            STORE((o) + (i) + 3 * W_, OP(LOAD((a) + (i) + 3 * W_), LOAD((b) + (i) + 3 * W_)));  \
        }                                                                                       \
        for (; (i) + W_ <= (n); (i) += W_) STORE((o) + (i), OP(LOAD((a) + (i)), LOAD((b) + (i)))); \
    } while (0)

/*
 * Elements to process before the main loop so that its stores start on a 64-byte boundary of
 * `o`: a store that splits a cache line costs two line writes (and on AVX-512 every unaligned
 * store splits one), so a loop over a buffer from malloc (16 mod 64) loses 10-25% against the
 * same loop aligned (docs/kernels.md, "Alignment"). The head goes through the ISA's tail, so
 * every element is still computed exactly once, by the same operation: the result is the same
 * bytes whatever the alignment. 0 when the call is short (the head would not pay) or when o's
 * offset is not a whole number of elements (no element boundary lands on a line boundary).
 */
static inline size_t vred_simd_head_to(const void *o, size_t esize, size_t n, size_t align)
{
    size_t off = (size_t)((uintptr_t)o & (align - 1));
    if (!off || off % esize || n * esize < 512) return 0;
    return (align - off) / esize;
}
/* The same to a 64-byte boundary. A masked head covers at most one vector: a 256-bit loop
 * (the half-precision kernels) aligns to 32 bytes with vred_simd_head_to. */
static inline size_t vred_simd_head(const void *o, size_t esize, size_t n)
{
    return vred_simd_head_to(o, esize, n, 64);
}

/* Declares a kernel defined in another ISA's file (the cascade's next step). */
#define VRED_KERNEL_DECL(name) void name(const void *a, const void *b, void *o, size_t n)

#endif
