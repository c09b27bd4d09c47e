/*
 * Reductions by cross-memory attach (cma.h): every rank reduces its own block of the vector,
 * reading the peers' parts of it straight from their send buffers, and hands its result
 * straight to the receive buffers that need it. Nothing goes through the shared segment.
 *
 * Block q (an allreduce's cut by the ranks' measured speeds, a reduce's with more for its root:
 * cma_split.h; reduce_scatter: rank q's count) is rank q's to reduce, a chunk at a time: the
 * chunk of every peer's send buffer is read into a private block (process_vm_readv, the
 * kernel's copy on this core; the read feeding the last fold, where it can, straight into the
 * receive buffer: lands_in_dst), folded with this rank's own, and the sum is written to this
 * rank's receive buffer and, by process_vm_writev, to every peer's (allreduce) or to the root's
 * (reduce); reduce_scatter keeps it. Each rank thus imports (p - 1) s / p bytes and exports as
 * many, in two kernel copies per byte moved, against the movement-avoiding algorithm's copy into
 * the segment, import from it and copy out of it, and the ranks' shares run at once: the root of
 * a reduce folds only its own block. Reads alone would not do: a rank reading its peers' sums
 * out of their receive buffers takes lines the peer has just written from the peer's cache,
 * where a write pushes lines this core has just folded (2 ranks, Xeon, 1 MiB: allreduce 144-160
 * us by reads, 102-110 by writes; reduce 137-176 against 73-81: two-process models of the call,
 * docs/shm.md). Where the kernel's copy is slow (Zen 4: 13 GB/s against memcpy's 45) this loses
 * to the segment: the learned selection measures it per machine, as it does every candidate.
 *
 * Order: chunk c of block q is x_0 op (x_1 op (... op x_{p-1})) over the ranks' inputs,
 * whichever rank computes it, on every ISA the same bits (the kernels are exact).
 *
 * Three posts per call on every rank:
 *   1. the addresses peers read (the send buffer) and write (the receive buffer, or none), and
 *      whether this rank can take part: its private blocks exist, and so does the buffer that
 *      holds its sum where a reduce_scatter in place would write it over input that lower ranks
 *      still read (copied after step 3). If any rank cannot, every rank runs the
 *      movement-avoiding algorithm instead.
 *   2. the first chunk, read and folded into the private block, and one word written to the next
 *      rank: the check that the kernel still permits both. Nothing of the caller's has changed
 *      yet, so if a read or write failed on any rank (a filter installed since the node's probe,
 *      tests/mpi/cma_midway.c), every rank runs the movement-avoiding algorithm from the
 *      untouched buffers, and the node stays off cross-memory attach (vred_cma_failed).
 *   3. after every chunk's result is delivered: then no peer reads this rank's send buffer or
 *      writes its receive buffer any more, and the call may return.
 * A read or write that fails after the check cannot be undone (in place, receive buffers hold
 * part of the sums over part of the inputs): vred ends the job with a message (fail.h). The
 * kernel refuses before moving a byte, so this takes a permission withdrawn by another thread
 * during the call itself, or a buffer that does not hold `count` elements.
 */
#include <stdlib.h>
#include "coll/clock.h"
#include "coll/fail.h"
#include "coll/shm/cma.h"
#include "coll/shm/cma_split.h"
#include "coll/shm/shm.h"
#include "coll/shm/stamp.h"
#include "local/copy.h"

/* Bytes of each private block: 256 KiB chunks ran 1 MiB calls 10-20% faster than 64 KiB ones
 * and twice as fast as 16 KiB (a system call per chunk and peer; 2 ranks, Xeon), and two of
 * them stay in a core's L2 with room to spare. */
enum { CHUNK_BYTES = 256 << 10, FIRST_BYTES = 32 << 10 };

/* Each private block has a line to spare in front: a read lands at the same offset within a
 * cache line as its source. The kernel's copy runs 15% slower between mutually misaligned
 * addresses (process_vm_readv of 256 KiB, Xeon: 19.4 GB/s from +4 to +0, 23.8 from +4 to +4),
 * and malloc'd buffers are rarely 64-byte aligned (glibc: 16 mod 64). */
enum { LINE = 64, BLOCK_BYTES = CHUNK_BYTES + LINE };

typedef enum { CMA_ALLREDUCE, CMA_REDUCE, CMA_REDUCE_SCATTER } cma_kind;

typedef struct {
    const vred_shm_args *a;
    vred_shm *s;
    cma_kind kind;
    int p, r;
    size_t es, I;          /* bytes per element; elements per chunk */
    const size_t *disp;    /* p + 1 block boundaries, elements */
    char *acc, *tmp;       /* the private blocks */
    char *own_out;         /* where this rank's block goes in its own receive buffer, or NULL */
    char *hold;            /* in place, a reduce_scatter block not first: its sum until the end */
    int nt;                /* that copy with streaming stores */
    int cls;               /* the call's size class (log2 bytes) */
} cma_call;

static int fallback(const vred_shm_args *a, cma_kind kind)
{
    switch (kind) {
    case CMA_ALLREDUCE: return vred_shm_allreduce_ma(a);
    case CMA_REDUCE: return vred_shm_reduce_ma(a);
    default: return vred_shm_reduce_scatter_ma(a);
    }
}

/* Elements [*lo, *lo + return) of chunk c of this rank's block (global indices): the first
 * FIRST_BYTES, then I at a time. The first chunk is folded before the call's check, into the
 * private block, and copied to the receive buffer after it: a small one keeps that copy short. */
static size_t first_elems(const cma_call *k)
{
    return FIRST_BYTES / k->es ? FIRST_BYTES / k->es : 1;
}

static size_t chunk_of(const cma_call *k, size_t c, size_t *lo)
{
    size_t i0 = first_elems(k);
    size_t first = k->disp[k->r] + (c ? i0 + (c - 1) * k->I : 0), end = k->disp[k->r + 1];
    size_t len = c ? k->I : i0;
    *lo = first;
    return first >= end ? 0 : end - first < len ? end - first : len;
}

/*
 * Whether peer q's part of the chunk is read straight into `dst`, the chunk's place in this
 * rank's receive buffer, rather than into a private block: where that read feeds the chunk's
 * last operation (q = 0 on ranks above 0; on rank 0 of two, its only read) and the operation's
 * other operand does not lie in dst (in place, this rank's own input does). The fold then runs
 * in place, on lines this core has just written, and the private block leaves the working set:
 * a reduce_scatter_block of 1 MiB (2 ranks, Xeon, malloc'd buffers) took 55-72 us through the
 * block, 41-50 as the ring through the MPI, whose receive lands in place. That holds where dst
 * sits at another offset in a line than the source, though the kernel's copy between them runs
 * 15% slower (the private block takes the source's offset): 0.96-1.18x, allreduce at 0/16
 * 1.10-1.18x (1-16 MiB). Where that copy would crawl (AMD), vred_cma_read bounces it. Where
 * dst is the private block acc (the first chunk; a reduce's non-root) the same holds on 2 ranks,
 * where the operation's other operand is this rank's input: rank 1 reads into acc, not tmp, and
 * leaves tmp out of the working set (reduce, root 0: 1.02-1.16x, 1-16 MiB).
 */
static int lands_in_dst(const cma_call *k, int q, size_t lo, size_t n, const char *dst)
{
    size_t bytes = n * k->es;
    if (q == 0) /* the other operand: this rank's own input (2 ranks) or the partial sums */
        return !vred_overlaps(dst, bytes, k->p == 2 ? vred_at(k->a->sbuf, lo, k->es) : k->acc,
                              bytes);
    return k->p == 2 && k->r == 0 && !vred_overlaps(dst, bytes, vred_at(k->a->sbuf, lo, k->es),
                                                    bytes);
}

/* The chunk [lo, lo + n) of this rank's block reduced over every rank into `dst`, in the order
 * above; the peers' parts read into tmp (the first one read into acc; the one feeding the last
 * operation into dst where lands_in_dst says so), the partial sums in acc. 0 or a read's errno.
 * Only the last operation and that read write dst: in place, this rank's own input there has
 * been read by then (it is x_r, r >= 0), or the read goes elsewhere. */
static int fold_chunk(const cma_call *k, size_t lo, size_t n, char *dst)
{
    const char *cur = NULL;
    for (int q = k->p - 1; q >= 0; q--) {
        const char *x = vred_at(k->a->sbuf, lo, k->es);
        if (q != k->r) {
            uint64_t from = vred_cma_addr(k->s, q) + (uint64_t)(lo * k->es);
            char *into = lands_in_dst(k, q, lo, n, dst) ? dst
                         : cur                                  ? k->tmp + (from & (LINE - 1))
                                                                : k->acc;
            int err = vred_cma_read(k->s, q, into, from, n * k->es);
            if (err) return err;
            x = into;
        }
        char *out = q ? k->acc : dst;
        if (cur) vred_par_reduce3(k->a->e, k->es, x, cur, out, n); /* out = x op cur */
        cur = cur ? out : x;
    }
    return 0;
}

/* Where chunk [lo, ...) goes in this rank's own receive buffer, or NULL. */
static char *own_at(const cma_call *k, size_t lo)
{
    return k->own_out ? k->own_out + (lo - k->disp[k->r]) * k->es : NULL;
}

/* The chunk's sum at `sum` to the peers' receive buffers that need it. 0 or a write's errno. */
static int deliver(const cma_call *k, const char *sum, size_t lo, size_t n)
{
    for (int j = 1; j < k->p; j++) {
        int q = (k->r + j) % k->p; /* spread: the ranks write to different peers at once */
        uint64_t out = __atomic_load_n(&k->s->ctl[q].cma_out, __ATOMIC_RELAXED);
        if (!out) continue;
        int err = vred_cma_write(k->s, q, sum, out + (uint64_t)(lo * k->es), n * k->es);
        if (err) return err;
    }
    return 0;
}

/* Where peers write this rank's part of the result: the receive buffer for allreduce and at a
 * reduce's root (0 elsewhere: a non-root's receive buffer may be absent). */
static uint64_t out_for_peers(const cma_call *k)
{
    int wanted = k->kind == CMA_ALLREDUCE || (k->kind == CMA_REDUCE && k->r == k->a->root);
    return wanted ? (uint64_t)(uintptr_t)k->a->rbuf : 0;
}

/* Where an in-place reduce_scatter's block is not the vector's first, its sum belongs at the
 * start of the buffer, over input that lower ranks still read: it is held in a private buffer
 * (kept with the region, grown as needed) and copied there once every rank has read its last
 * chunk. (Handed to the movement-avoiding algorithm instead, such calls folded in its order,
 * not in this one's: in place gave other bits than separate buffers.) NULL if out of memory. */
static char *hold_for(vred_shm *s, size_t bytes)
{
    if (bytes > s->cma_hold_bytes) {
        char *b = realloc(s->cma_hold, bytes);
        if (!b) return NULL;
        s->cma_hold = b, s->cma_hold_bytes = bytes;
    }
    return s->cma_hold;
}

/* 1 if this rank can take part (step 1): its private blocks, and a place to hold its sum where
 * an in-place reduce_scatter needs one (k->hold, then where its block goes). */
static int ready(cma_call *k)
{
    if (!k->s->cma_buf) k->s->cma_buf = aligned_alloc(LINE, 2 * (size_t)BLOCK_BYTES);
    if (!k->s->cma_parts) k->s->cma_parts = malloc((size_t)k->p * sizeof(float));
    size_t mine = (k->disp[k->r + 1] - k->disp[k->r]) * k->es;
    int shifted = k->kind == CMA_REDUCE_SCATTER && k->a->sbuf == k->a->rbuf && k->disp[k->r];
    if (shifted && mine) k->hold = hold_for(k->s, mine); /* own_out follows (blocks) */
    return k->s->cma_buf && k->s->cma_parts && (!shifted || !mine || k->hold);
}

/* The partial sums' block, at the offset within a line of the first peer read into it (the
 * highest other rank's send buffer: fold_chunk's order). Every chunk keeps that offset where
 * chunks start at multiples of 64 bytes (element sizes that divide 64; others only lose the
 * match, not the result). With 2 ranks that is the only read; the fold's other operands and the
 * writes out of the block follow the user's own offsets, which are usually alike on every rank. */
static char *acc_at(const cma_call *k)
{
    int q = k->r == k->p - 1 ? k->p - 2 : k->p - 1;
    uint64_t from = vred_cma_addr(k->s, q) + (uint64_t)(k->disp[k->r] * k->es);
    return k->s->cma_buf + (from & (LINE - 1));
}

/* The root's share of a reduce in this call: pinned (VRED_CMA_ROOT_SHARE), or where its
 * measurements have brought it for the size class (cma_split.h), first the even split. */
static float root_share(const cma_call *k)
{
    int pinned = vred_config_get()->cma_root_share;
    if (pinned) return (float)pinned / 100;
    float learned = k->s->cma_share[k->cls];
    return learned > 0 ? learned : 1.0f / (float)k->p;
}

/* This rank's part of an allreduce (cma_split.h): where its measurements have brought it for
 * the size class, first the even part; the even part under VRED_CMA_BALANCE=off, the bounds in
 * turn under =ends (tests: blocks of a ninth and seven ninths on 3 ranks, empty ones). */
static float my_part(const cma_call *k)
{
    int mode = vred_config_get()->cma_balance;
    if (mode == VRED_CMA_BALANCE_ENDS) return k->r % 2 ? VRED_CMA_PART_MAX : VRED_CMA_PART_MIN;
    float learned = k->s->cma_part[k->cls];
    return mode == VRED_CMA_BALANCE_AUTO && learned > 0 ? learned : 1.0f;
}

/* What this rank publishes with its addresses (step 1): a reduce's root its share, an
 * allreduce's rank its part, others nothing. */
static float published_share(const cma_call *k)
{
    if (k->kind == CMA_REDUCE) return k->r == k->a->root ? root_share(k) : 0;
    return k->kind == CMA_ALLREDUCE ? my_part(k) : 0;
}

/* The blocks (disp) and where this rank's goes in its receive buffer. Before step 1 (`agreed`
 * 0) the even split; after it, a reduce's from the share its root published, an allreduce's
 * from the parts every rank published. */
static void blocks(cma_call *k, int agreed)
{
    const vred_shm_args *a = k->a;
    vred_node *n = a->n;
    if (k->kind == CMA_REDUCE) {
        float share = agreed ? k->s->ctl[a->root].cma_share : 1.0f / (float)k->p;
        vred_cma_split(a->count, k->p, a->root, share, k->es, n->disp);
    } else if (k->kind == CMA_ALLREDUCE && agreed) {
        for (int q = 0; q < k->p; q++)
            k->s->cma_parts[q] = k->s->ctl[q].cma_share;
        vred_cma_split_parts(a->count, k->p, k->s->cma_parts, k->es, n->disp);
    } else {
        n->disp[0] = 0;
        for (int q = 0; q < k->p; q++)
            n->disp[q + 1] = k->kind == CMA_REDUCE_SCATTER
                                 ? n->disp[q] + a->counts[q]
                                 : vred_block_lo(a->count, k->p, q + 1);
    }
    if (k->kind == CMA_REDUCE_SCATTER) k->own_out = k->hold ? k->hold : a->rbuf; /* (ready) */
    else if (k->kind == CMA_ALLREDUCE || k->r == a->root)
        k->own_out = vred_at(a->rbuf, n->disp[k->r], k->es);
}

static void setup(cma_call *k, const vred_shm_args *a, cma_kind kind)
{
    vred_node *n = a->n;
    *k = (cma_call){.a = a, .s = n->shm, .kind = kind, .p = n->size, .r = n->rank,
                    .es = a->esize, .disp = n->disp};
    k->I = CHUNK_BYTES / k->es ? CHUNK_BYTES / k->es : 1;
    size_t s = a->count * k->es, pp = (size_t)k->p; /* (reduce_scatter: the counts' sum) */
    k->cls = vred_cma_class(s, VRED_SHM_CLASSES);
    /* Working set (the copy rule, local/copy.h): the send buffers, the receive buffers that
     * get the whole vector, the private blocks. */
    size_t recv = kind == CMA_ALLREDUCE ? s * pp : kind == CMA_REDUCE ? s : s / pp;
    k->nt = vred_copy_use_nt(1, s * pp + recv + 2 * (size_t)CHUNK_BYTES * pp);
    blocks(k, 0);
}

/* A rank's work in the call (steps 2 and 3, waits left out), as it published it. */
static double work_of(const cma_call *k, int q)
{
    return 1e-9 * __atomic_load_n(&k->s->ctl[q].cma_work_ns, __ATOMIC_RELAXED);
}

/* After an allreduce (every rank's last post seen: their times stay until they have all posted
 * step 2 of a later call, which waits for this rank), this rank moves its part for the size
 * class towards the split at which every rank's work would have ended together. */
static void rebalance_part(const cma_call *k)
{
    if (vred_config_get()->cma_balance != VRED_CMA_BALANCE_AUTO) return;
    double rate_sum = 0, rate_me = 0;
    int others_empty = 0;
    for (int q = 0; q < k->p; q++) {
        size_t nq = k->disp[q + 1] - k->disp[q];
        double rate = nq ? (double)nq / work_of(k, q) : 0;
        if (q == k->r) rate_me = rate;
        else others_empty |= !nq;
        rate_sum += rate;
    }
    size_t n_me = k->disp[k->r + 1] - k->disp[k->r];
    k->s->cma_part[k->cls] = (float)vred_cma_part_next(my_part(k), k->p, n_me, rate_me,
                                                       rate_sum, others_empty);
}

/* After the call (every rank's last post seen): an allreduce's rank moves its part, a reduce's
 * root its share for the size class, towards the split at which every rank's work would have
 * ended together (cma_split.h). */
static void rebalance(const cma_call *k, double t_work)
{
    if (k->kind == CMA_ALLREDUCE) rebalance_part(k);
    if (k->kind != CMA_REDUCE || k->r != k->a->root || vred_config_get()->cma_root_share) return;
    double t_other = 0;
    size_t n_other = 0;
    for (int q = 0; q < k->p; q++) {
        size_t nq = k->disp[q + 1] - k->disp[q];
        double tq = work_of(k, q);
        if (q != k->r && nq && tq / (double)nq > (n_other ? t_other / (double)n_other : 0))
            t_other = tq, n_other = nq;
    }
    size_t n_root = k->disp[k->r + 1] - k->disp[k->r];
    k->s->cma_share[k->cls] = (float)vred_cma_share_next(root_share(k), k->p, t_work, n_root,
                                                         t_other, n_other);
}

/*
 * The ranks' arguments (step 1; MPI-4.1 6.9.1: the same count, datatype and root everywhere).
 * Each rank reads every peer's published address, and writes its part of the sum into the
 * peers' receive buffers by its own count: a rank that passed fewer elements had the others
 * write past the end of its buffer (2 nodes of 2, allreduce with one rank's count halved: 512
 * KiB of its heap overwritten, the call "succeeding"). So every rank publishes its arguments
 * with its address, and after step 1's wait all compare them: where they differ, every rank
 * returns the same class (having posted twice, like the others), before any byte moves. A peer
 * whose words are not of this step is in another algorithm or collective (its count chose
 * another, say): nothing keeps the two in step, and the job ends with a message.
 */
static vred_shm_stamp cma_stamp_of(const vred_shm *s, int q)
{
    return __atomic_load_n(&s->ctl[q].cma_stamp, __ATOMIC_RELAXED);
}

static int args_verdict(const cma_call *k, vred_shm_stamp mine, uint64_t step)
{
    for (int q = 0; q < k->p; q++)
        if (q != k->r && __atomic_load_n(&k->s->ctl[q].cma_step, __ATOMIC_RELAXED) != step)
            vred_fail("a reduction by cross-memory attach: a rank of the node runs another "
                      "collective or algorithm (erroneous: the ranks' counts, datatypes or "
                      "roots differ)", MPI_ERR_COUNT);
    return vred_shm_stamp_verdict_by(k->s, mine, cma_stamp_of);
}

static int run(const vred_shm_args *a, cma_kind kind)
{
    vred_shm *s = a->n->shm;
    if (a->count == 0) return MPI_SUCCESS; /* (reduce_scatter: the counts' sum) on every rank */
    if (!s->cma) return fallback(a, kind); /* a transfer failed on this node in an earlier call */
    cma_call k;
    setup(&k, a, kind);
    /* 1: addresses and readiness */
    vred_shm_ctl *me = &s->ctl[k.r];
    uint64_t seq0 = s->seq;
    vred_cma_publish(s, a->sbuf);
    __atomic_store_n(&me->cma_out, out_for_peers(&k), __ATOMIC_RELAXED);
    __atomic_store_n(&me->cma_ready, ready(&k), __ATOMIC_RELAXED);
    me->cma_share = published_share(&k);
    vred_shm_stamp mine = vred_shm_stamp_of(VRED_STAMP_MA, k.es, kind == CMA_REDUCE ? a->root : -1,
                                            k.disp[k.p]);
    __atomic_store_n(&me->cma_stamp, mine, __ATOMIC_RELAXED);
    __atomic_store_n(&me->cma_step, seq0 + 1, __ATOMIC_RELAXED);
    vred_shm_post(s);
    vred_shm_wait_all(s, seq0 + 1);
    int verdict = args_verdict(&k, mine, seq0 + 1);
    if (verdict != MPI_SUCCESS) {
        /* One more post before leaving: a peer that returned at once could start its next call
         * and rewrite its words while a slower rank still reads them here (it then took the
         * peer for one in another algorithm and ended the job: CI, 2 ranks, both MPIs). */
        vred_shm_post(s);
        vred_shm_wait_all(s, seq0 + 2);
        return -verdict; /* the class, negated (shm.h) */
    }
    for (int q = 0; q < k.p; q++)
        if (!__atomic_load_n(&s->ctl[q].cma_ready, __ATOMIC_RELAXED)) return fallback(a, kind);
    blocks(&k, 1);
    k.acc = acc_at(&k);
    k.tmp = s->cma_buf + BLOCK_BYTES;
    /* 2: the first chunk and the check */
    double t0 = vred_clock_s(); /* this rank's work in steps 2 and 3, waits left out */
    size_t lo, n = chunk_of(&k, 0, &lo);
    int err = n ? fold_chunk(&k, lo, n, k.acc) : 0;
    double t_work = vred_clock_s() - t0;
    int next = (k.r + 1) % k.p;
    if (!err) err = vred_cma_write(s, next, &s->cma_probe, s->ctl[next].cma_word, sizeof(uint64_t));
    vred_cma_report(s, err, seq0 + 2);
    vred_shm_post(s);
    vred_shm_wait_all(s, seq0 + 2);
    if (vred_cma_failed(s, seq0 + 2)) return fallback(a, kind);
    /* 3: every chunk's result where it belongs: the first from acc, the others folded straight
     * into this rank's receive buffer where it has the chunk (unless the copy there streams),
     * and written to the peers from there. */
    t0 = vred_clock_s();
    for (size_t c = 0; n && !err; n = chunk_of(&k, ++c, &lo)) {
        char *own = own_at(&k, lo), *sum = c && own && !k.nt ? own : k.acc;
        if (c) err = fold_chunk(&k, lo, n, sum);
        if (!err && own && sum != own) vred_copy(own, sum, n * k.es, k.nt);
        if (!err) err = deliver(&k, sum, lo, n);
    }
    if (err)
        vred_fail("a reduction by cross-memory attach (the kernel refused a transfer after the "
                  "call's check)", MPI_ERR_OTHER);
    if (k.nt) vred_copy_fence();
    t_work += vred_clock_s() - t0;
    __atomic_store_n(&me->cma_work_ns, t_work < 4.0 ? (uint32_t)(t_work * 1e9) : UINT32_MAX,
                     __ATOMIC_RELAXED);
    vred_shm_post(s);
    vred_shm_wait_all(s, seq0 + 3);
    if (k.hold) /* no rank reads this rank's input any more */
        vred_copy(a->rbuf, k.hold, (k.disp[k.r + 1] - k.disp[k.r]) * k.es, 0);
    rebalance(&k, t_work);
    return MPI_SUCCESS;
}

int vred_shm_allreduce_cma(const vred_shm_args *a) { return run(a, CMA_ALLREDUCE); }
int vred_shm_reduce_cma(const vred_shm_args *a) { return run(a, CMA_REDUCE); }
int vred_shm_reduce_scatter_cma(const vred_shm_args *a) { return run(a, CMA_REDUCE_SCATTER); }
