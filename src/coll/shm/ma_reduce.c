/*
 * Movement-avoiding reduce.
 *
 * The paper's reduce (sec. 3.5) is MA reduce-scatter into the bank followed by the root copying
 * the whole result out: data access s(3p + 1), and on the root's critical path a copy of its own
 * slice, its share of the reductions and a copy of the whole message. Here the root takes no
 * part in the chain and makes its own contribution the last operand instead: the p - 1 other
 * ranks run the MA reduce-scatter among themselves on each chunk (every part copied once, then
 * only reduced), and the root folds each finished part straight into its receive buffer,
 * rbuf = sbuf op partial (the 3-buffer kernel). Nothing is copied out: data access s(3p - 1),
 * and the root's work is one pass of C = A + B over the message while the others prepare the
 * next chunk in the other bank. At 2 ranks the chain is a plain copy by the non-root.
 *
 * With socket groups (a->n->sockets > 1) the two-level engine of ma.c serves instead.
 *
 * Chunk c is elements [c m I, (c + 1) m I) with m = p - 1 parts of I elements (the last ones
 * shorter); non-root v (node ranks other than the root, in order from root + 1) ends its
 * chain on part v. Every rank posts m times per round, the root included (sync.h: the counters
 * of all node ranks stay equal).
 */
#include "coll/shm/ma.h"
#include "coll/shm/stamp.h"
#include "kernels/kernel.h"
#include "local/copy.h"

typedef struct {
    const vred_shm_args *a;
    vred_shm *s;
    int m;          /* parts per chunk: p - 1 */
    size_t I;       /* elements per part */
    size_t es;
    vred_stores_call in; /* the first step's copies into the bank (stores.h) */
    vred_shm_stamp args; /* this rank's arguments (stamp.h) */
} chain;

/* Elements [*lo, *lo + return) of part v in chunk c. */
static size_t part(const chain *ch, size_t c, int v, size_t *lo)
{
    size_t first = (c * (size_t)ch->m + (size_t)v) * ch->I, count = ch->a->count;
    *lo = first;
    if (first >= count) return 0;
    return count - first < ch->I ? count - first : ch->I;
}

/* What a round uses of the bank: the m parts. */
static size_t chunk_bytes(const chain *ch) { return (size_t)ch->m * ch->I * ch->es; }

static char *slot(const chain *ch, char *bank, int v)
{
    return bank + (size_t)v * ch->I * ch->es;
}

/* A non-root's round: the MA chain among the m non-roots. */
static void chain_round(chain *ch, size_t c, int v)
{
    vred_shm *s = ch->s;
    const vred_shm_args *a = ch->a;
    char *bank = vred_shm_round_begin(s, chunk_bytes(ch));
    uint64_t seq0 = s->seq;
    int next = (v + 1) % ch->m; /* the non-root that hands this one a part at each step */
    int next_rank = (a->root + 1 + next) % a->n->size;
    for (int j = 0; j < ch->m; j++) {
        int w = (v + 1 + j) % ch->m;
        size_t lo, n = part(ch, c, w, &lo);
        if (j) vred_shm_wait(s, next_rank, seq0 + (uint64_t)j);
        const char *src = vred_at(a->sbuf, lo, ch->es);
        if (n && j == 0)
            vred_stores_copy(&ch->in, slot(ch, bank, w), src, n * ch->es, n == ch->I);
        else if (n) {
            vred_kernels_far(1); /* in place into the peer's lines: kernel.h */
            vred_par_reduce3(a->e, ch->es, src, slot(ch, bank, w), slot(ch, bank, w), n);
            vred_kernels_far(0);
        }
        if (c == 0 && j == 0) vred_shm_stamp_publish(s, ch->args); /* for the root's check */
        vred_shm_post(s);
    }
    vred_shm_round_end(s); /* this rank reads nothing more of the bank */
}

/*
 * The root's answer to non-roots whose arguments differ from its own (an erroneous program),
 * seen at its first wait: the non-roots never wait for the root, so they cannot learn it, and
 * they run the rounds of their own count. Where they all passed the same call (the one other
 * rank at 2 ranks), the root runs those rounds too, with their sizes and without touching any
 * buffer (its round 0 taken back and begun again at their size: nothing of it was posted), so
 * that every counter and bank place stays in step for the calls after it, and returns the
 * class (the front reports it through the handler, on the root only: the others cannot know).
 * Otherwise nothing keeps the ranks in step: the job ends with each rank's arguments.
 */
static int follow_others(const chain *ch, size_t next, int rc)
{
    vred_shm *s = ch->s;
    const vred_shm_args *a = ch->a;
    int p = a->n->size;
    vred_shm_stamp t = vred_shm_stamp_read(s, (a->root + 1) % p);
    for (int v = 1; v < ch->m; v++) {
        vred_shm_stamp o = vred_shm_stamp_read(s, (a->root + 1 + v) % p);
        if (o != t) vred_shm_stamp_abort(s, ch->args, "MPI_Reduce");
    }
    size_t es = vred_shm_stamp_esize(t);
    uint64_t count = vred_shm_stamp_count(t);
    if (vred_shm_stamp_alg(t) != VRED_STAMP_CHAIN || vred_shm_stamp_root(t) != a->root || !es ||
        !count || count == UINT64_MAX)
        vred_shm_stamp_abort(s, ch->args, "MPI_Reduce");
    size_t I = vred_shm_slice(s, count, es, ch->m);
    size_t per_chunk = I * (size_t)ch->m, chunks = (count + per_chunk - 1) / per_chunk;
    vred_shm_round_cancel(s, next);
    for (size_t c = 0; c < chunks; c++) {
        (void)vred_shm_round_begin(s, (size_t)ch->m * I * es);
        uint64_t seq0 = s->seq;
        for (int v = 0; v < ch->m; v++) vred_shm_wait(s, (a->root + 1 + v) % p, seq0 + (uint64_t)ch->m);
        for (int j = 0; j < ch->m; j++) vred_shm_post(s);
        vred_shm_round_end(s);
    }
    return rc;
}

/* The root's round: each finished part folded into rbuf as soon as its owner is done. In the
 * first, the non-roots' arguments checked once the first wait has shown them (non-root 0's last
 * step waited for non-root 1's, and so on along the chain to every one's first post):
 * MPI_SUCCESS, or the class of the difference (follow_others). */
static int root_round(const chain *ch, size_t c)
{
    vred_shm *s = ch->s;
    const vred_shm_args *a = ch->a;
    size_t next = s->bank_next[(s->round + 1) & 1];
    char *bank = vred_shm_round_begin(s, chunk_bytes(ch));
    uint64_t seq0 = s->seq;
    int rc;
    for (int v = 0; v < ch->m; v++) {
        size_t lo, n = part(ch, c, v, &lo);
        if (!n) continue;
        int peer = (a->root + 1 + v) % a->n->size;
        if (c || v) vred_shm_wait(s, peer, seq0 + (uint64_t)ch->m);
        else if ((vred_shm_wait_call(s, peer, seq0 + (uint64_t)ch->m) != ch->args || ch->m > 1) &&
                 (rc = vred_shm_stamp_verdict(s, ch->args)) != MPI_SUCCESS)
            return follow_others(ch, next, rc);
        vred_par_reduce3(a->e, ch->es, vred_at(a->sbuf, lo, ch->es), slot(ch, bank, v),
                         vred_at(a->rbuf, lo, ch->es), n);
    }
    for (int j = 0; j < ch->m; j++) vred_shm_post(s);
    vred_shm_round_end(s);
    return MPI_SUCCESS;
}

int vred_shm_reduce_ma(const vred_shm_args *a)
{
    int p = a->n->size;
    if (a->count == 0) return MPI_SUCCESS;
    if (a->n->sockets > 1) return vred_ma_run(a, VRED_MA_REDUCE);
    chain ch = {.a = a, .s = a->n->shm, .m = p - 1, .es = a->esize,
                .args = vred_shm_stamp_of(VRED_STAMP_CHAIN, a->esize, a->root, a->count)};
    ch.I = vred_shm_slice(ch.s, a->count, a->esize, ch.m);
    vred_stores_begin(&ch.in, &ch.s->stores, VRED_STORES_REDUCE, a->count * a->esize, ch.I * ch.es);
    size_t per_chunk = ch.I * (size_t)ch.m;
    size_t chunks = (a->count + per_chunk - 1) / per_chunk;
    int v = (a->n->rank - a->root - 1 + p) % p; /* non-roots 0 .. m-1; the root is m */
    int rc = MPI_SUCCESS;
    for (size_t c = 0; c < chunks && rc == MPI_SUCCESS; c++) {
        if (v == ch.m) rc = root_round(&ch, c);
        else chain_round(&ch, c, v);
    }
    vred_stores_end(&ch.in);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : -rc; /* negated: the arguments differ (shm.h) */
}
