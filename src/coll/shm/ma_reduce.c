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
#include "local/copy.h"

typedef struct {
    const vred_shm_args *a;
    vred_shm *s;
    int m;          /* parts per chunk: p - 1 */
    size_t I;       /* elements per part */
    size_t es;
    vred_stores_call in; /* the first step's copies into the bank (stores.h) */
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
        else if (n)
            vred_par_reduce3(a->e, ch->es, src, slot(ch, bank, w), slot(ch, bank, w), n);
        vred_shm_post(s);
    }
    vred_shm_round_end(s); /* this rank reads nothing more of the bank */
}

/* The root's round: each finished part folded into rbuf as soon as its owner is done. */
static void root_round(const chain *ch, size_t c)
{
    vred_shm *s = ch->s;
    const vred_shm_args *a = ch->a;
    char *bank = vred_shm_round_begin(s, chunk_bytes(ch));
    uint64_t seq0 = s->seq;
    for (int v = 0; v < ch->m; v++) {
        size_t lo, n = part(ch, c, v, &lo);
        if (!n) continue;
        vred_shm_wait(s, (a->root + 1 + v) % a->n->size, seq0 + (uint64_t)ch->m);
        vred_par_reduce3(a->e, ch->es, vred_at(a->sbuf, lo, ch->es), slot(ch, bank, v),
                         vred_at(a->rbuf, lo, ch->es), n);
    }
    for (int j = 0; j < ch->m; j++) vred_shm_post(s);
    vred_shm_round_end(s);
}

int vred_shm_reduce_ma(const vred_shm_args *a)
{
    int p = a->n->size;
    if (a->count == 0) return MPI_SUCCESS;
    if (a->n->sockets > 1) return vred_ma_run(a, VRED_MA_REDUCE);
    chain ch = {.a = a, .s = a->n->shm, .m = p - 1, .es = a->esize};
    ch.I = vred_shm_slice(ch.s, a->count, a->esize, ch.m);
    vred_stores_begin(&ch.in, &ch.s->stores, VRED_STORES_REDUCE, a->count * a->esize, ch.I * ch.es);
    size_t per_chunk = ch.I * (size_t)ch.m;
    size_t chunks = (a->count + per_chunk - 1) / per_chunk;
    int v = (a->n->rank - a->root - 1 + p) % p; /* non-roots 0 .. m-1; the root is m */
    for (size_t c = 0; c < chunks; c++) {
        if (v == ch.m) root_round(&ch, c);
        else chain_round(&ch, c, v);
    }
    vred_stores_end(&ch.in);
    return MPI_SUCCESS;
}
