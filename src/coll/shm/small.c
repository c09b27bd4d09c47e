/*
 * bcast and allgather of a few KiB on one node in one step, with no MPI call (issue 14's small
 * messages). Served through the pipeline, such a call paid two synchronisations: the front's
 * agreement (an MPI allreduce of the ranks' layouts and roots, about half a microsecond: every
 * rank must know that every other can be served, or all pass the call to the MPI together) and
 * the pipeline's own step. Here the agreement rides in the same step as the data, the way the
 * fastest intra-node designs carry a small payload with its flag.
 *
 * allgather: every rank writes its arguments (can it be served, its place in the bank) into
 * its control line, and its block at its place in the round's bank, then posts once and waits
 * for every other rank's post; each then reads every rank's arguments, so all decide alike:
 * served (copy out what the others wrote) or passed to the MPI (a rank cannot be served, or the
 * places differ: nothing written is read).
 *
 * bcast: the root does not wait. It writes its message into the bank and its arguments (can it
 * be served, the root, its bytes, their place and the bank's next place), posts, and returns,
 * the way an MPI's eager root does: in a loop of calls it fills the next round's bank while the
 * receivers empty this one. Only the root's arguments decide a receiver's call, so each
 * receiver decides alone: the root cannot be served (every rank passes the call to the MPI, the
 * root first); served, by a copy, or, for a receiver whose datatype is not contiguous, by
 * unpacking the root's bytes; MPI_ERR_TRUNCATE where its buffer is shorter than the root's
 * message. A receiver still waits for every rank's post and checks every rank's root:
 * MPI_ERR_ROOT on each receiver when they differ (a rank naming itself root returns without
 * knowing; neither MPI checks roots at all). 2 ranks, Xeon guest, pipe, back to back on
 * malloc'd buffers, the root's early return toggled in one build, medians of 5 alternating
 * runs: 1 KiB 0.70-0.80 -> 0.41-0.47 us, 4 KiB 1.15-1.24 -> 0.93 over Open MPI 4.1 and
 * MPICH 4.0.
 *
 * One post per rank per call keeps the seq counters equal; the round protocol (sync.h) keeps a
 * rank from refilling a bank, or the arguments of the same parity, before every peer has read
 * them (a root runs at most one round ahead of its slowest receiver).
 *
 * Larger calls agree the same way before their algorithm runs (vred_shm_agree), with a post and
 * a wait but no round of their own: spending one there made the pipeline's round wait for the
 * peer's previous call (the banks' double buffering lost), allgather 64 KiB 4.2 -> 6.2 us.
 */
#include "coll/shm/shm.h"
#include "local/copy.h"

/* Bytes a one-step call may put in the bank: past this the pipeline's overlap pays for its
 * second step. */
enum { SMALL_MAX = 16 << 10 };

/* Calls of up to SMALL_FIXED bytes in the bank use the bank's start, where both cores keep its
 * few lines; larger ones rotate through the bank like the algorithms' rounds (sync.h), each by
 * SMALL_MAX whatever its size, so that ranks agree on the place as long as they agree on the
 * class. Fixed, a store into lines the peer read the call before waits for each of them: 2
 * ranks on Zen 4, Open MPI 4.1, back to back, quiet machine (3 runs each): bcast 12 KiB
 * 0.94-1.28 -> 0.54-0.72 us, 16 KiB 1.68-1.82 -> 0.75-0.83; allgather 12 KiB 0.82-0.83 ->
 * 0.75-0.83, 16 KiB 1.29-1.35 -> 1.06-1.08; but bcast 8 KiB 0.62-0.73 fixed, 0.87-0.92
 * rotating (docs/shm.md). */
enum { SMALL_FIXED = 8 << 10 };
/* What a rotating call advances its bank's next place by: round_begin's step for SMALL_MAX. */
enum { SMALL_STEP = (SMALL_MAX + 4095) / 4096 * 4096 };

/* A bcast root's key: its bytes in the low BYTES_BITS bits, then 1 if the call rotates, then
 * its bank's next place after it in 4 KiB pages (bank_next), so a bank may hold fewer than
 * NEXT_PAGES pages (128 MiB). */
enum { BYTES_BITS = 15, NEXT_SHIFT = BYTES_BITS + 1, NEXT_PAGES = 1 << (31 - NEXT_SHIFT) };
_Static_assert(SMALL_MAX < 1 << BYTES_BITS, "a small bcast's bytes fit their field");
/* An allgather's key: its block (at most SMALL_MAX: vred_shm_small_fits) above its place
 * (place_of: under NEXT_PAGES). */
enum { BLOCK_SHIFT = 15 };
_Static_assert(NEXT_PAGES <= 1 << BLOCK_SHIFT && (int64_t)SMALL_MAX << BLOCK_SHIFT < INT32_MAX,
               "a small allgather's block and place fit its key");

int vred_shm_small_fits(const vred_shm *s, int bcast, size_t block, int p)
{
    size_t bytes = bcast ? block : block * (size_t)p;
    return bytes <= SMALL_MAX && bytes <= s->slices_bytes && s->bank_bytes / 4096 < NEXT_PAGES;
}

/* A one-step call's arguments in one word (region.h: one store, in the line of the post): ok
 * in bit 63, the root in bits 32-62 (signed: -1 is none), the key in bits 0-31. */
static uint64_t pack_call(int ok, int root, int32_t key)
{
    return (uint64_t)(ok != 0) << 63 | (uint64_t)((uint32_t)root & 0x7FFFFFFFu) << 32 |
           (uint32_t)key;
}

static void unpack_call(uint64_t w, int *ok, int *root, int32_t *key)
{
    *ok = (int)(w >> 63);
    *root = (int32_t)((uint32_t)(w >> 32) << 1) >> 1;
    *key = (int32_t)(uint32_t)w;
}

/* This rank's arguments into its control line: the round's call word (use 0) or an
 * agreement's (use 1), by parity. */
static void put_args(vred_shm *s, int use, int parity, int ok, int root, int key)
{
    vred_shm_ctl *c = &s->ctl[s->rank];
    if (use == 0) {
        __atomic_store_n(&c->call[parity], pack_call(ok, root, key), __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&c->agree[parity][0], ok, __ATOMIC_RELAXED);
    __atomic_store_n(&c->agree[parity][1], root, __ATOMIC_RELAXED);
    __atomic_store_n(&c->agree[parity][2], key, __ATOMIC_RELAXED);
}

/* Node rank i's arguments (use and parity as put_args). */
static void read_args(const vred_shm *s, int i, int use, int parity, int *ok, int *root,
                      int32_t *key)
{
    const vred_shm_ctl *c = &s->ctl[i];
    if (use == 0) {
        unpack_call(__atomic_load_n(&c->call[parity], __ATOMIC_RELAXED), ok, root, key);
        return;
    }
    *ok = __atomic_load_n(&c->agree[parity][0], __ATOMIC_RELAXED);
    *root = __atomic_load_n(&c->agree[parity][1], __ATOMIC_RELAXED);
    *key = __atomic_load_n(&c->agree[parity][2], __ATOMIC_RELAXED);
}

/* Every rank's arguments into out[] (the front's agreement form). */
static void gather_args(const vred_shm *s, int use, int parity, int out[5])
{
    out[0] = 1, out[1] = out[3] = INT32_MAX, out[2] = out[4] = INT32_MAX;
    for (int i = 0; i < s->size; i++) {
        int ok, root;
        int32_t key;
        read_args(s, i, use, parity, &ok, &root, &key);
        if (!ok) out[0] = 0;
        if (root < out[1]) out[1] = root;
        if (-root < out[2]) out[2] = -root;
        if (key < out[3]) out[3] = key;
        if (-key < out[4]) out[4] = -key;
    }
}

/* Where a call's data starts in its bank, as a key: 0 at the bank's start (the fixed place of
 * calls up to SMALL_FIXED), else its 4 KiB page + 1. */
static int32_t place_of(const vred_shm *s, const char *at, int parity, int rotate)
{
    return rotate ? (int32_t)((size_t)(at - s->bank[parity]) / 4096 + 1) : 0;
}

/* A round's bank for a small call of `bytes` in all, and its place (place_of). */
static char *small_round(vred_shm *s, size_t bytes, int32_t *place)
{
    int rotate = bytes > SMALL_FIXED;
    char *bank = vred_shm_round_begin(s, rotate ? SMALL_MAX : 0);
    *place = place_of(s, bank, (int)(s->round & 1), rotate);
    return bank;
}

int vred_shm_small_allgather(vred_shm *s, const void *sbuf, void *rbuf, size_t block, int ok,
                             int out[5])
{
    int r = s->rank, p = s->size;
    /* block may differ between ranks here (erroneous calls), and the places after a bcast
     * whose ranks named different roots: the block and the place ride in the key, so that such
     * a call is not served */
    int32_t place;
    char *bank = small_round(s, block * (size_t)p, &place);
    int parity = (int)(s->round & 1);
    if (ok && block) vred_copy(bank + (size_t)r * block, sbuf, block, 0);
    put_args(s, 0, parity, ok, 0, (int32_t)(block << BLOCK_SHIFT) | place);
    vred_shm_post(s);
    vred_shm_wait_all(s, s->seq);
    gather_args(s, 0, parity, out);
    if (out[3] != -out[4]) {
        /* The ranks stored different blocks or at different places: not served, and every rank
         * starts this bank's next rotating round at its start again, so that all agree on
         * places from now on. */
        out[0] = 0;
        s->bank_next[parity] = 0;
    }
    int served = out[0] && out[1] == -out[2];
    if (served && block) {
        char *rb = rbuf;
        for (int q = 0; q < p; q++)
            if (q != r) vred_copy(rb + (size_t)q * block, bank + (size_t)q * block, block, 0);
        if (sbuf != rb + (size_t)r * block) vred_copy(rb + (size_t)r * block, sbuf, block, 0);
    }
    vred_shm_round_end(s); /* the bank and this round's arguments are read */
    return served;
}

/* The root: its message and arguments out, one post, no wait. */
static int bcast_root(vred_shm *s, const void *buf, size_t block, int root, int ok)
{
    int32_t place;
    char *bank = small_round(s, block, &place);
    int parity = (int)(s->round & 1);
    if (ok && block) vred_copy(bank, buf, block, 0);
    int32_t next = (int32_t)(s->bank_next[parity] / 4096);
    put_args(s, 0, parity, ok, root,
             (int32_t)block | (place != 0) << BYTES_BITS | next << NEXT_SHIFT);
    vred_shm_post(s);
    vred_shm_round_end(s); /* nothing of the peers' read */
    return ok ? MPI_SUCCESS : VRED_SMALL_PASS;
}

int vred_shm_small_bcast(vred_shm *s, void *buf, size_t block, int root, int ok,
                         vred_small_unpack unpack, void *ctx)
{
    if (s->rank == root) return bcast_root(s, buf, block, root, ok);
    /* A receiver moves through the bank as the root does with the same bytes, but reads at
     * the root's place and takes the root's next place, whatever its own bytes (they differ
     * only on erroneous input): the other algorithms' rounds need every rank's places equal. */
    int32_t mine;
    (void)small_round(s, block, &mine);
    int parity = (int)(s->round & 1), all[5];
    const char *bank = s->bank[parity];
    put_args(s, 0, parity, ok, root, (int32_t)block);
    vred_shm_post(s);
    vred_shm_wait_all(s, s->seq);
    gather_args(s, 0, parity, all);
    int rc = VRED_SMALL_PASS;
    if (all[1] != -all[2]) rc = MPI_ERR_ROOT;
    else if (root >= 0) {
        int rok, rroot;
        int32_t key;
        read_args(s, root, 0, parity, &rok, &rroot, &key);
        size_t bytes = (size_t)(key & ((1 << BYTES_BITS) - 1));
        size_t next = (size_t)(key >> NEXT_SHIFT) * 4096;
        s->bank_next[parity] = next;
        const char *from = bank + (key >> BYTES_BITS & 1 ? next - SMALL_STEP : 0);
        if (!rok) rc = VRED_SMALL_PASS; /* the root passes it on: so does every rank */
        else if (bytes > block) rc = MPI_ERR_TRUNCATE; /* erroneous: nothing written */
        else if (ok) {
            if (bytes) vred_copy(buf, from, bytes, 0);
            rc = MPI_SUCCESS;
        } else rc = unpack ? unpack(ctx, from, bytes) : MPI_ERR_BUFFER;
    }
    vred_shm_round_end(s); /* the bank and this round's arguments are read */
    return rc;
}

/* No round: a rank writes the arguments of agreement m + 2 only after every peer has posted
 * agreement m + 1, which each does after reading those of agreement m. */
void vred_shm_agree_begin(vred_shm *s, int root, int ok, int key)
{
    put_args(s, 1, (int)(s->agreements++ & 1), ok, root, key);
    vred_shm_post(s);
}

/* Every rank's post of the agreement is the step this rank's begin published: no other step
 * may come between the two halves. */
void vred_shm_agree_end(vred_shm *s, int out[5])
{
    vred_shm_wait_all(s, s->seq);
    gather_args(s, 1, (int)((s->agreements - 1) & 1), out);
}

void vred_shm_agree(vred_shm *s, int root, int ok, int key, int out[5])
{
    vred_shm_agree_begin(s, root, ok, key);
    vred_shm_agree_end(s, out);
}
