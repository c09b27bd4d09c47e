/*
 * The one loop body every SIMD ISA shares. An ISA supplies a vector type V, unaligned LOAD and
 * STORE, and OP(x, y) with x = `in`, y = `inout`; the body runs four vectors a trip (independent
 * chains keep both load ports busy), then single vectors, and leaves i at the first element the
 * ISA's tail must handle (fewer than one vector).
 */
#ifndef VRED_SIMD_BODY_H
#define VRED_SIMD_BODY_H

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

/* Declares a kernel defined in another ISA's file (the cascade's next step). */
#define VRED_KERNEL_DECL(name) void name(const void *a, const void *b, void *o, size_t n)

#endif
