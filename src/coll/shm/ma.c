/*
 * The movement-avoiding chunk engine (the second paper, sec. 3.3-3.5, fig. 6 and algorithm 2;
 * geometry and groups in ma.h).
 *
 * One round per chunk, in a group of g ranks where rank t owns part t:
 *   step 0:      copy part (t+1) % g of sbuf into the bank (ordinary stores: the neighbour
 *                reduces it in the next step, so it should stay in the cache; unless they
 *                crawl, stores.h);
 *   step j > 0:  once the next rank of the group has published its step j-1, reduce part
 *                (t+1+j) % g of sbuf into the bank (A += B), which that rank left there.
 * Each part thus travels once around the group, collecting every rank's contribution from the
 * rank's own private buffer: only one copy per part (the theorem's minimum), never a copy of
 * a rank's own part. The last step (j = g-1) lands on part t: the group's whole sum.
 *
 * Flat (one group): reduce_scatter writes that sum straight into rbuf (C = A + B); allreduce
 * and reduce leave it in the bank, and after everyone's last step every rank (allreduce) or the
 * root (reduce) copies the whole chunk out: a non-temporal copy in the paper's sense (rbuf is
 * not read again during the collective), streamed when the working set exceeds the cache.
 * A rank that copies out takes its own slot at its last step, a few KiB at a time right after
 * reducing them, while they are in its L1 (own_fold), and after the wait only the peers' slots.
 *
 * Synchronisation: every rank posts after each of its g steps, then posts padding up to gmax
 * (the largest group), so that after every round the seq counters of all node ranks are equal
 * whatever their group (sync.h relies on it); allreduce/reduce with several groups post once
 * more after the combine. Banks alternate per round (vred_shm_round_begin), so round c+1
 * starts while slow ranks still read round c, without a barrier.
 */
#include <stdlib.h>
#include "coll/shm/ma.h"
#include "coll/shm/stamp.h"
#include "kernels/kernel.h"
#include "local/copy.h"

static const char *slot_src(const vred_ma *ma, int q)
{
    return vred_at(ma->a->sbuf, ma->disp[q] + ma->c * ma->I, ma->es);
}

/* 1 if this rank copies the chunk out to its receive buffer (allreduce: every rank; reduce:
 * the root; reduce_scatter: none, its sum goes there directly). */
static int copies_out(const vred_ma *ma)
{
    return ma->kind == VRED_MA_ALLREDUCE || (ma->kind == VRED_MA_REDUCE && ma->r == ma->a->root);
}

/* 1 if this rank's flat last step takes its own slot out to rbuf (own_fold), so that copy_out
 * skips it: one group (with groups the last step leaves only a partial), a last step that folds
 * (g > 1; with g = 1 step 0 is the last), and a rank that copies out. */
static int folds_own(const vred_ma *ma)
{
    return ma->m == 1 && ma->g > 1 && copies_out(ma);
}

/* The rbuf place of slot q of the current chunk. */
static char *slot_dst(const vred_ma *ma, int q)
{
    return vred_at(ma->a->rbuf, ma->disp[q] + ma->c * ma->I, ma->es);
}

/* The flat last step of a rank that copies out: its own slot's sum into the bank for the peers
 * and into rbuf, a block at a time, the copy reading what the reduction has just stored to L1.
 * Copied after the wait instead (a second pass over the bank, from L2 or further), the slot cost
 * more than the copy: at 2 ranks on Zen 4, MA allreduce of 1 MiB took 85 us that way and 48 with
 * 4 KiB blocks here, and the peer's next copy into those lines of the bank ran 3x faster (two-
 * process model of the round, docs/shm.md). Where the reduction is threaded (idle cores), the
 * whole slot is reduced at once and copied after it. In place the copy overwrites only input
 * elements this rank has just reduced. */
enum { OWN_BLOCK = 4 << 10 };
static void own_fold(const vred_ma *ma, const char *src, char *slot, char *dst, size_t n)
{
    size_t es = ma->es, block = OWN_BLOCK / es ? OWN_BLOCK / es : 1;
    if (vred_threads_for(n * es) > 1) block = n;
    vred_kernels_far(1); /* into the peer's lines: kernel.h */
    for (size_t i = 0; i < n; i += block) {
        size_t k = n - i < block ? n - i : block;
        vred_par_reduce3(ma->a->e, es, vred_at(src, i, es), vred_at(slot, i, es),
                         vred_at(slot, i, es), k);
        vred_copy(vred_at(dst, i, es), vred_at(slot, i, es), k * es, ma->nt);
    }
    vred_kernels_far(0);
}

/* Step j of the group phase on part (t+1+j) % g: its slots [q0, q1). */
static void group_step(vred_ma *ma, int j)
{
    int part = (ma->t + 1 + j) % ma->g;
    int q0 = (int)vred_block_lo((size_t)ma->p, ma->g, part);
    int q1 = (int)vred_block_lo((size_t)ma->p, ma->g, part + 1);
    /* Flat: the last step completes this rank's own slot; with groups it is only a partial. */
    int final = ma->m == 1 && j == ma->g - 1;
    for (int q = q0; q < q1; q++) {
        size_t n = vred_ma_slot_n(ma, q);
        if (!n) continue;
        char *slot = vred_ma_slot(ma, ma->k, q);
        if (j == 0)
            vred_stores_copy(&ma->in, slot, slot_src(ma, q), n * ma->es, n == ma->I);
        else if (final && folds_own(ma))
            own_fold(ma, slot_src(ma, q), slot, slot_dst(ma, q), n);
        else {
            vred_kernels_far(!final); /* in place into the peer's lines: kernel.h */
            vred_par_reduce3(ma->a->e, ma->es, slot_src(ma, q), slot, final ? vred_ma_own_out(ma) : slot, n);
            vred_kernels_far(0);
        }
    }
}

/* The bank's chunk to rbuf (allreduce: every rank; reduce: the root), but for this rank's own
 * slot where the flat last step put it there (own_fold). In place this overwrites only the
 * chunk's own input elements, which this rank has read already, and later chunks read only
 * elements past them. */
static void copy_out(const vred_ma *ma)
{
    for (int q = 0; q < ma->p; q++) {
        size_t n = vred_ma_slot_n(ma, q);
        if (q == ma->r && folds_own(ma)) continue; /* own_fold copied it */
        if (n)
            vred_copy(slot_dst(ma, q), vred_ma_slot(ma, 0, q), n * ma->es, ma->nt);
    }
}

/* After the reduction of the chunk: results to where they belong. */
static void finish_round(const vred_ma *ma)
{
    vred_shm *s = ma->s;
    if (ma->kind == VRED_MA_REDUCE_SCATTER) {
        /* In place with the own block elsewhere than at the start, the sum went to the bank:
         * writing rbuf[c I ..] directly could have overwritten input of this very chunk. */
        size_t n = vred_ma_slot_n(ma, ma->r);
        if (ma->shifted && n)
            vred_copy(vred_at(ma->a->rbuf, ma->c * ma->I, ma->es), vred_ma_slot(ma, 0, ma->r),
                      n * ma->es, ma->nt);
        return;
    }
    if (ma->m > 1) vred_shm_post(s); /* the combined slot r is in the bank */
    if (ma->kind == VRED_MA_REDUCE && ma->r != ma->a->root) return;
    vred_shm_wait_all(s, s->seq); /* every slot of the chunk complete */
    copy_out(ma);
}

/*
 * The ranks' arguments, checked in the first round. Every rank must pass the same count,
 * datatype and root (MPI-4.1 6.9.1); a program whose ranks do not is erroneous, but the ranks
 * would then cut the message into different chunks and run different numbers of rounds, after
 * which their counters and places in the banks stay apart and every later call goes wrong (2
 * ranks, allreduce of 256 Ki floats against 128 Ki: every valid call after it wrong on both
 * ranks). So each rank puts its own in its control line before its first post (with the post:
 * the same line), and compares every rank's once the first round's steps have made them
 * visible: in the flat ring, step g - 1 waits for the next rank's step g - 2, which waited for
 * the one after it, and so on round the group to every rank's first post; with groups, the wait
 * for every group's partials. Every rank then holds the same arguments and comes to the same
 * verdict at the same step, having posted as often as the others: where they differ, all stop
 * there, with equal counters and every rank's next round in this bank at its start again.
 * Where they are kept: stamp.h.
 */
static vred_shm_stamp args_of(const vred_ma *ma)
{
    return vred_shm_stamp_of(VRED_STAMP_MA, ma->es, ma->kind == VRED_MA_REDUCE ? ma->a->root : -1,
                             ma->disp[ma->p]);
}

/* MPI_SUCCESS if every rank's arguments equal this rank's, else the error class they earn
 * (stamp.h), the same on every rank; `same`: the word just read with a wait equals this rank's,
 * and it was the only other rank's (then nothing more to read). A peer in another algorithm
 * (the DPML-like path, chosen for its smaller count) ends the job from there (dpml.c). */
static int args_verdict(const vred_ma *ma, int same)
{
    return same ? MPI_SUCCESS : vred_shm_stamp_verdict(ma->s, args_of(ma));
}

/* The end of a round whose check found the ranks' arguments different: rc on every rank. */
static int round_refused(vred_ma *ma, int rc)
{
    vred_shm *s = ma->s;
    s->bank_next[s->round & 1] = 0; /* the ranks' places here may differ: start again */
    vred_shm_round_end(s);
    return rc;
}

/* One round (chunk ma->c); in the first, the arguments' check: MPI_SUCCESS, or the verdict
 * that ended the call on every rank. The flat ring checks right after its last step's wait,
 * where the neighbour's control line has just been read (at 2 ranks the only other one); every
 * rank stops there, having posted g - 1 times. With groups, after the wait for every group's
 * partials. What the check costs: 2 ranks, Zen 5, allreduce of 4 KiB 0.33 -> 0.34 us (medians
 * of 6 quiet runs, builds alternating), nothing measurable from 8 KiB. */
static int round_run(vred_ma *ma)
{
    vred_shm *s = ma->s;
    /* m copies (one per group) of the chunk's p slots */
    ma->bank = vred_shm_round_begin(s, (size_t)ma->m * (size_t)ma->p * ma->I * ma->es);
    int check = ma->c == 0, rc;
    uint64_t seq0 = s->seq;
    int next = ma->base + (ma->t + 1) % ma->g; /* who hands this rank the part of each step */
    for (int j = 0; j < ma->g; j++) {
        if (check && ma->m == 1 && j == ma->g - 1) {
            int same = vred_shm_wait_call(s, next, seq0 + (uint64_t)j) == args_of(ma) && ma->p == 2;
            if ((rc = args_verdict(ma, same)) != MPI_SUCCESS) return round_refused(ma, rc);
        } else if (j) vred_shm_wait(s, next, seq0 + (uint64_t)j);
        group_step(ma, j);
        /* right before the post: a peer polling this line fetches it once for both */
        if (check && j == 0) vred_shm_stamp_publish(s, args_of(ma));
        vred_shm_post(s);
    }
    for (int j = ma->g; j < ma->gmax; j++) vred_shm_post(s); /* keep seq equal across groups */
    if (ma->m > 1) {
        /* every group's partial of every slot */
        int same = vred_shm_wait_all_call(s, s->seq, check ? args_of(ma) : 0);
        if (check && (rc = args_verdict(ma, same)) != MPI_SUCCESS) return round_refused(ma, rc);
        vred_ma_combine(ma);
    }
    finish_round(ma);
    vred_shm_round_end(s);
    return MPI_SUCCESS;
}

static void fill_disp(const vred_shm_args *a, vred_ma_kind kind, int p, size_t *disp)
{
    disp[0] = 0;
    for (int q = 0; q < p; q++)
        disp[q + 1] = kind == VRED_MA_REDUCE_SCATTER ? disp[q] + a->counts[q]
                                                     : vred_block_lo(a->count, p, q + 1);
}

/* Slice for this run: the flat algorithm uses p I of a bank (within I_max by construction);
 * with m groups a round holds m copies of the chunk, so I_max shrinks to fit. */
static size_t run_slice(const vred_ma *ma, size_t maxb)
{
    size_t imax = ma->s->slice_max;
    if (ma->m > 1) {
        size_t fit = ma->s->slices_bytes / ((size_t)ma->m * (size_t)ma->p) / 64 * 64;
        if (fit < imax) imax = fit;
    }
    return vred_shm_slice_within(maxb * (size_t)ma->p, ma->es, ma->p, imax);
}

static int run(vred_ma *ma)
{
    const vred_shm_args *a = ma->a;
    size_t maxb = 0;
    for (int q = 0; q < ma->p; q++)
        if (ma->disp[q + 1] - ma->disp[q] > maxb) maxb = ma->disp[q + 1] - ma->disp[q];
    if (maxb == 0) return MPI_SUCCESS; /* nothing to reduce, on every rank alike */
    vred_ma_groups(ma);
    ma->I = run_slice(ma, maxb);
    ma->chunks = (maxb + ma->I - 1) / ma->I;
    ma->shifted = ma->kind == VRED_MA_REDUCE_SCATTER && a->sbuf == a->rbuf && ma->disp[ma->r];
    /* Working set (paper sec. 4.3.1): the p send buffers, the receive buffers (p whole copies
     * for allreduce, one message's worth otherwise) and the shared slices. In place, the
     * receive buffers are the send buffers: counting them twice would stream the copy-out of
     * a buffer the caller reads next (a training loop's fusion buffer) while it still fits. */
    size_t s = ma->disp[ma->p] * ma->es, pp = (size_t)ma->p;
    size_t recv = a->sbuf == a->rbuf ? 0 : ma->kind == VRED_MA_ALLREDUCE ? s * pp : s;
    size_t w = s * pp + recv + (size_t)ma->m * pp * ma->I * ma->es;
    ma->nt = vred_copy_use_nt(1, w);
    vred_stores_begin(&ma->in, &ma->s->stores, VRED_STORES_MA, s, ma->I * ma->es);
    int rc = MPI_SUCCESS;
    for (ma->c = 0; ma->c < ma->chunks && rc == MPI_SUCCESS; ma->c++) rc = round_run(ma);
    vred_stores_end(&ma->in);
    /* Streamed stores went to this rank's private rbuf only; fence once so the caller may hand
     * the buffer on as after memcpy. */
    if (ma->nt) vred_copy_fence();
    /* The ranks' arguments differ (round_run): every rank returns the class negated, which the
     * front reports through the communicator's error handler (shm.h). */
    return rc == MPI_SUCCESS ? MPI_SUCCESS : -rc;
}

int vred_ma_run(const vred_shm_args *a, vred_ma_kind kind)
{
    vred_ma ma = {.a = a, .s = a->n->shm, .kind = kind, .p = a->n->size, .r = a->n->rank,
                  .es = a->esize};
    /* The node view's array (made with it): a collective never allocates, so it cannot fail on
     * one rank alone. */
    fill_disp(a, kind, ma.p, a->n->disp);
    ma.disp = a->n->disp;
    return run(&ma);
}
