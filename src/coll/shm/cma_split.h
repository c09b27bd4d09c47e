/*
 * The root's share of a reduce by cross-memory attach (cma_reduce.c), balanced by measurement.
 *
 * Every rank reduces a block of the vector, but the work per element differs: a non-root reads
 * the chunk from its peers, folds it, and writes the sum into the root's receive buffer; the
 * root reads and folds, and its sum is already where it belongs. With even blocks the root waits
 * for the others (2 ranks, Xeon guest family 6 model 207, Open MPI 4.1, back to back on malloc'd
 * buffers, 1 MiB: 69-84 us even, 57-61 balanced, the share settling at 55-58%; 4-16 MiB 10-15%
 * faster too). How much more the root should take
 * depends on the CPU's kernel copy against its fold, so it is not written down: after every call
 * the root compares what each rank's block cost per element and moves its share a step towards
 * the split at which all would finish together. Which rank computes an element does not change
 * its bits (the fold order is x_0 op (x_1 op ...) whoever computes it), so the result stays
 * bitwise reproducible while the split moves.
 *
 * A bcast's root (bcast_cma.c) walks its own share the same way: the part of the message it
 * writes into every reader while they read the rest, its writes against the slowest reader's
 * read.
 *
 * An allreduce's blocks follow the ranks' speeds the same way (vred_cma_split_parts, below).
 *
 * Pure arithmetic, checked by tests/unit/test_cma_split.c.
 */
#ifndef VRED_CMA_SPLIT_H
#define VRED_CMA_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* Bounds of the root's share, and the most one call moves it: a single preempted rank (two
 * ranks on two cores: a timer interrupt, a daemon) must not throw the split far off. */
#define VRED_CMA_SHARE_MIN 0.02
#define VRED_CMA_SHARE_MAX 0.98
#define VRED_CMA_SHARE_STEP 0.02

/* Elements per 64-byte line where the element size divides 64 (else 1): the unit of the blocks'
 * inner boundaries, so that the chunks' reads keep their line offsets. */
static inline size_t vred_cma_line(size_t esize)
{
    return esize && 64 % esize == 0 ? 64 / esize : 1;
}

/* Block q's end, disp[q + 1], from where it would end exactly: down to a line, the last block
 * to the vector's end, never before the block's start (empty blocks where lines run out). */
static inline void vred_cma_cut(size_t *disp, int q, int p, size_t end, size_t count, size_t line)
{
    end -= end % line;
    if (q == p - 1 || end > count) end = count;
    disp[q + 1] = end < disp[q] ? disp[q] : end;
}

/* Boundaries disp[0..p] (elements) of the ranks' blocks when the root holds `share` of `count`
 * elements and the others split the rest evenly in rank order. Inner boundaries fall on 64-byte
 * multiples where the element size divides 64 (the chunks' reads then keep their line offsets). */
static inline void vred_cma_split(size_t count, int p, int root, double share, size_t esize,
                                  size_t *disp)
{
    size_t line = vred_cma_line(esize);
    /* In integers: every rank must cut the same boundaries, and a product in floating point
     * rounds by the calling thread's rounding mode (fesetround), which ranks need not share.
     * The share in 2^-32ths: scaling by a power of two is exact, the cast truncates in any
     * mode. */
    double scaled = share > 0 ? share < 1 ? share * 4294967296.0 : 4294967296.0 : 0.0;
    size_t mine = (size_t)(((unsigned __int128)count * (uint64_t)scaled) >> 32);
    if (mine > count) mine = count;
    size_t rest = count - mine, others = (size_t)(p - 1), done = 0; /* others up to q */
    disp[0] = 0;
    for (int q = 0; q < p; q++) {
        done += q != root;
        /* Where block q ends: the root's share if it came, and the others' even parts so far. */
        vred_cma_cut(disp, q, p, (q >= root ? mine : 0) + (others ? rest * done / others : 0),
                     count, line);
    }
}

/* The size class of a call of `bytes` (log2, below `classes`): the index of its learned share. */
static inline int vred_cma_class(size_t bytes, int classes)
{
    int k = 63 - __builtin_clzll((unsigned long long)bytes | 1);
    return k < classes ? k : classes - 1;
}

static inline double vred_cma_share_clamp(double share)
{
    return share < VRED_CMA_SHARE_MIN ? VRED_CMA_SHARE_MIN
           : share > VRED_CMA_SHARE_MAX ? VRED_CMA_SHARE_MAX : share;
}

/* The share for the next call, from this one: the root took t_root seconds for n_root elements,
 * the slowest other rank t_other for n_other (their work in the call). The balanced share s
 * makes s * c_root = (1 - s) / (p - 1) * c_other (c: seconds per element); the share moves a
 * quarter of the way there, at most VRED_CMA_SHARE_STEP, within the bounds. Where one side had
 * no elements (a short vector cut in lines) it waited for the other: a step towards it, so
 * that a share cannot stay where it leaves one side nothing to measure. Without times
 * (none taken, or not a number), the share stays. */
static inline double vred_cma_share_next(double share, int p, double t_root, size_t n_root,
                                         double t_other, size_t n_other)
{
    if (p < 2 || (!n_root && !n_other)) return share;
    if (!n_root) return vred_cma_share_clamp(share + VRED_CMA_SHARE_STEP);
    if (!n_other) return vred_cma_share_clamp(share - VRED_CMA_SHARE_STEP);
    if (!(t_root > 0) || !(t_other > 0)) return share;
    double c_root = t_root / (double)n_root, c_other = t_other / (double)n_other;
    double target = c_other / (c_other + (double)(p - 1) * c_root);
    double step = (target - share) / 4;
    if (step > VRED_CMA_SHARE_STEP) step = VRED_CMA_SHARE_STEP;
    if (step < -VRED_CMA_SHARE_STEP) step = -VRED_CMA_SHARE_STEP;
    return vred_cma_share_clamp(share + step);
}

/*
 * An allreduce's blocks (cma_reduce.c). Every rank reads its block from its peers, folds it and
 * writes the sum to every peer: the same work per element on every rank, so the even split
 * balances where the cores run alike. They need not: a hybrid CPU's performance and efficiency
 * cores, a core whose host thread is shared, pages that sit farther from one rank. On the Xeon
 * guest (2 ranks, 4 MiB, Open MPI 4.1, back to back) one rank's part took 30-60 us longer than
 * the other's (5-10% of the call) in each of three runs, one rank in one run, the other in the
 * next, and the call waited for the slower. So each rank publishes its part (a multiple of the
 * even part 1/p), every rank cuts the blocks from all the parts published, and after the call
 * each rank moves its own part towards the split at which every rank would have finished
 * together, by the rates all of them measured: the ranks reach the same parts without agreeing
 * on anything but what they publish. As for a reduce's root, the bits do not depend on who
 * folds an element.
 */
#define VRED_CMA_PART_MIN 0.25
#define VRED_CMA_PART_MAX 1.75

static inline double vred_cma_part_clamp(double part)
{
    return part < VRED_CMA_PART_MIN ? VRED_CMA_PART_MIN
           : part > VRED_CMA_PART_MAX ? VRED_CMA_PART_MAX : part;
}

/* A published part in 2^-20ths, within the bounds (a part that is not a number counts as the
 * even one): scaling by a power of two is exact and the cast truncates in any rounding mode. */
static inline uint64_t vred_cma_part_units(float part)
{
    double c = part == part ? vred_cma_part_clamp(part) : 1.0;
    return (uint64_t)(c * 1048576.0);
}

/* Boundaries disp[0..p] (elements) when rank q holds part[q] / (part[0] + ... + part[p-1]) of
 * `count`; inner boundaries on 64-byte multiples where the element size divides 64, as in
 * vred_cma_split. */
static inline void vred_cma_split_parts(size_t count, int p, const float *part, size_t esize,
                                        size_t *disp)
{
    size_t line = vred_cma_line(esize);
    uint64_t total = 0, done = 0;
    for (int q = 0; q < p; q++) total += vred_cma_part_units(part[q]);
    disp[0] = 0;
    for (int q = 0; q < p; q++) {
        done += vred_cma_part_units(part[q]);
        vred_cma_cut(disp, q, p, (size_t)(((unsigned __int128)count * done) / total), count, line);
    }
}

/* This rank's part for the next call of a size class, from this one: it folded n_me elements at
 * rate_me (elements per second of its work, waits left out), every rank with elements together
 * at rate_sum (the sum of their rates); `others_empty`: another rank had none (a short vector
 * cut in lines), and waited. The balanced part is p * rate_me / rate_sum; the part moves a
 * quarter of the way there, by at most VRED_CMA_SHARE_STEP * p parts (that share of the
 * vector while the parts sum to about p), within the bounds.
 * A rank without elements, or one whose peers had none, steps towards them. Without rates
 * (none taken, or not a number), the part stays. */
static inline double vred_cma_part_next(double part, int p, size_t n_me, double rate_me,
                                        double rate_sum, int others_empty)
{
    double most = VRED_CMA_SHARE_STEP * p; /* a step of the vector, in parts of 1/p */
    if (p < 2) return part;
    if (!n_me) return vred_cma_part_clamp(part + most);
    if (others_empty) return vred_cma_part_clamp(part - most);
    if (!(rate_me > 0) || !(rate_sum >= rate_me) || rate_sum > 1e300) return part;
    double step = (p * rate_me / rate_sum - part) / 4;
    if (step > most) step = most;
    if (step < -most) step = -most;
    return vred_cma_part_clamp(part + step);
}

#endif
