/*
 * The one loop body every SIMD ISA shares. An ISA supplies a vector type V, unaligned LOAD and
 * STORE, and OP(x, y) with x = `in`, y = `inout`; the body runs four vectors a trip (independent
 * chains keep both load ports busy), then single vectors, and leaves i at the first element the
 * ISA's tail must handle (fewer than one vector).
 *
 * It runs backwards, from the last whole vector down, when `o` sits a little above an input in
 * its page (vred_simd_backward): each element is still computed once by the same operation, so
 * the bytes do not change, only the order of the vectors.
 */
#ifndef VRED_SIMD_BODY_H
#define VRED_SIMD_BODY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Between the stores of a trip: they stay in program order, and no load crosses them. A
 * compiler may otherwise schedule a trip's stores in any order, and GCC 12 put the AVX2
 * realigned loop's four 32-byte stores as the third, first, second, fourth: Intel cores from
 * Golden Cove on commit two stores a cycle only when both go to one cache line, so the loop
 * then committed one a cycle and ran at half speed wherever the stores bound it (the AVX2 fold
 * out = in op slice with `in` 16 bytes off, 64-256 KiB: 0.52-0.55x of aligned; the same loop
 * with its stores in order 0.97-0.99x; Xeon family 6 model 207, `vred-kbench align`,
 * docs/kernels.md "Stores out of order"). No instruction is emitted.
 */
#define VRED_STORES_IN_ORDER() __asm__ volatile("" ::: "memory")

/* One vector: elements [j, j + W_) of a and b into o. */
#define VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, j)                                          \
    STORE((o) + (j), OP(LOAD((a) + (j)), LOAD((b) + (j))))

#define VRED_SIMD_LOOP(T, V, LOAD, STORE, OP, a, b, o, n, i)                                    \
    do {                                                                                        \
        enum { W_ = sizeof(V) / sizeof(T) };                                                    \
        if (vred_simd_backward((o) + (i), (a) + (i), (b) + (i), ((n) - (i)) * sizeof(T))) {     \
            size_t end_ = (i) + ((n) - (i)) / W_ * W_, j_ = end_;                               \
            for (; j_ >= (i) + 4 * W_; j_ -= 4 * W_) {                                          \
                VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, j_ - W_);                           \
                VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, j_ - 2 * W_);                       \
                VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, j_ - 3 * W_);                       \
                VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, j_ - 4 * W_);                       \
            }                                                                                   \
            for (; j_ >= (i) + W_; j_ -= W_) VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, j_ - W_); \
            (i) = end_;                                                                         \
            break;                                                                              \
        }                                                                                       \
        if (vred_simd_loads_first((o) + (i), (a) + (i), (b) + (i), sizeof(V)))                   \
            for (; (i) + 4 * W_ <= (n); (i) += 4 * W_) {                                        \
                V x0_ = LOAD((a) + (i)), x1_ = LOAD((a) + (i) + W_);                            \
                V x2_ = LOAD((a) + (i) + 2 * W_), x3_ = LOAD((a) + (i) + 3 * W_);               \
                V y0_ = LOAD((b) + (i)), y1_ = LOAD((b) + (i) + W_);                            \
                V y2_ = LOAD((b) + (i) + 2 * W_), y3_ = LOAD((b) + (i) + 3 * W_);               \
                STORE((o) + (i), OP(x0_, y0_));                                                 \
                VRED_STORES_IN_ORDER();                                                         \
                STORE((o) + (i) + W_, OP(x1_, y1_));                                            \
                VRED_STORES_IN_ORDER();                                                         \
                STORE((o) + (i) + 2 * W_, OP(x2_, y2_));                                        \
                VRED_STORES_IN_ORDER();                                                         \
                STORE((o) + (i) + 3 * W_, OP(x3_, y3_));                                        \
            }                                                                                   \
        for (; (i) + 4 * W_ <= (n); (i) += 4 * W_) {                                            \
            VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, i);                                     \
            VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, (i) + W_);                              \
            VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, (i) + 2 * W_);                          \
            VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, (i) + 3 * W_);                          \
        }                                                                                       \
        for (; (i) + W_ <= (n); (i) += W_) VRED_SIMD_STEP(V, LOAD, STORE, OP, a, b, o, i);      \
    } while (0)

/*
 * Should the loop run backwards? A load whose address matches a still-buffered store's in the
 * low 12 bits waits until the store's full address is known to differ (4 KiB aliasing). Going
 * forwards with `o` 33-63 bytes above an input in its page, the loads of the next vectors match
 * the stores just issued: a fold whose output sits 48 bytes past the bank slice it reads ran at
 * 0.82x of its aligned speed at 1 MiB (AVX-512, Zen 4; `vred-kbench align`, fold at 48/48),
 * 1.02x backwards, where the loads run below the stores. Measured there too, and left forwards:
 * 1-32 bytes above ran at 0.97-1.04x forwards. From 16 KiB: at 64 KiB forwards ran at 0.57-0.65x
 * (AVX-512; AVX2 at 32 KiB 0.71x), backwards 0.98-1.01x; at 16 KiB 0.87x -> 0.92-0.96x. Below it
 * (in L1) backwards is slower: 4 KiB at 48/48 0.77x forwards, 0.08x backwards (`vred-kbench
 * align`, Zen 4). Not where the other input sits just above `o` (backwards would meet that one),
 * nor in place (each vector reads its bytes before it writes them).
 */
enum { VRED_SIMD_ALIAS_LO = 33, VRED_SIMD_ALIAS_HI = 63, VRED_SIMD_BACKWARD_MIN = 16 << 10 };
static inline size_t vred_page_gap(const void *hi, const void *lo)
{
    return (size_t)((uintptr_t)hi - (uintptr_t)lo) & 4095;
}
static inline int vred_simd_aliases(size_t gap)
{
    return gap >= VRED_SIMD_ALIAS_LO && gap <= VRED_SIMD_ALIAS_HI;
}
/* The output 1-63 bytes above an input in its page: a split load of that input's next vector
 * then also waits on the store just issued, which the realigning loops' aligned lines avoid
 * at every size (avx2_realign.h, avx512_realign.h). */
static inline int vred_simd_near_above(size_t gap) { return gap >= 1 && gap <= 63; }
static inline int vred_simd_backward(const void *o, const void *a, const void *b, size_t bytes)
{
    if (bytes < VRED_SIMD_BACKWARD_MIN) return 0;
    size_t da = vred_page_gap(o, a), db = vred_page_gap(o, b);
    return (vred_simd_aliases(da) || vred_simd_aliases(db)) &&
           !vred_simd_aliases(4096 - da) && !vred_simd_aliases(4096 - db);
}

/*
 * Should a trip's loads all come before its stores? Where `o` sits 1-63 bytes above an input in
 * its page, the load of the next vector of that input meets, in the low 12 address bits, the
 * store just issued (4 KiB aliasing) and waits for it: vector by vector the loop then runs one
 * load and one store at a time. With a trip's four vectors loaded first only the first load of
 * each trip can meet a store. `vred_reduce` of 4 KiB of floats with `in` at 0 and `inout` at
 * 16 (Zen 5): AVX2 52 -> 45 ns (aligned 32), AVX-512's plain loop at 0/4 43 -> 40 ns; u8 at
 * 0/1 (AVX2) 67 -> 64 ns, (AVX-512) 47 -> 39 ns. Elsewhere the loop keeps loading and storing
 * vector by vector: loads first made the aligned AVX2 call slower (32.6 -> 37 ns), and where
 * `o` is a whole number of vectors above the input (AVX2 at 0/32: 33 -> 38 ns) the load meets
 * its store's exact twin, which costs little.
 */
static inline int vred_simd_loads_first(const void *o, const void *a, const void *b, size_t vbytes)
{
    size_t da = vred_page_gap(o, a), db = vred_page_gap(o, b);
    return (da >= 1 && da <= 63 && da % vbytes) || (db >= 1 && db <= 63 && db % vbytes);
}

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
