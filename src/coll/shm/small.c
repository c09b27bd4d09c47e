/*
 * bcast and allgather of a few KiB on one node in one step, with no MPI call (issue 14's small
 * messages). Served through the pipeline, such a call paid two synchronisations: the front's
 * agreement (an MPI allreduce of the ranks' layouts and roots, about half a microsecond: every
 * rank must know that every other can be served, or all pass the call to the MPI together) and
 * the pipeline's own step. Here the agreement rides in the same step as the data, the way the
 * fastest intra-node designs carry a small payload with its flag:
 *
 *   every rank writes its arguments (can it be served, the root it names, a layout key) into its
 *   control line, and its data into the round's bank (bcast: the root's message; allgather:
 *   each rank's block at its place), then posts once and waits for every other rank's post;
 *   each then reads every rank's arguments, so all decide alike: served (copy out what the
 *   others wrote), passed to the MPI (a rank cannot be served: nothing written is read), or
 *   MPI_ERR_ROOT (the roots differ).
 *
 * One post per rank per call keeps the seq counters equal; the round protocol (sync.h) keeps a
 * rank from refilling a bank, or the arguments of the same parity, before every peer has read
 * them.
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

int vred_shm_small_fits(const vred_shm *s, int bcast, size_t block, int p)
{
    size_t bytes = bcast ? block : block * (size_t)p;
    return bytes <= SMALL_MAX && bytes <= s->slices_bytes;
}

/* This rank's arguments into its control line: args[use][parity]. */
static void put_args(vred_shm *s, int use, int parity, int ok, int root, int key)
{
    int32_t *mine = s->ctl[s->rank].args[use][parity];
    __atomic_store_n(&mine[0], ok, __ATOMIC_RELAXED);
    __atomic_store_n(&mine[1], root, __ATOMIC_RELAXED);
    __atomic_store_n(&mine[2], key, __ATOMIC_RELAXED);
}

/* Every rank's arguments args[use][parity] into out[] (the front's agreement form). */
static void gather_args(const vred_shm *s, int use, int parity, int out[5])
{
    out[0] = 1, out[1] = out[3] = INT32_MAX, out[2] = out[4] = INT32_MAX;
    for (int i = 0; i < s->size; i++) {
        const int32_t *g = s->ctl[i].args[use][parity];
        int ok = __atomic_load_n(&g[0], __ATOMIC_RELAXED);
        int root = __atomic_load_n(&g[1], __ATOMIC_RELAXED);
        int key = __atomic_load_n(&g[2], __ATOMIC_RELAXED);
        if (!ok) out[0] = 0;
        if (root < out[1]) out[1] = root;
        if (-root < out[2]) out[2] = -root;
        if (key < out[3]) out[3] = key;
        if (-key < out[4]) out[4] = -key;
    }
}

int vred_shm_small_move(vred_shm *s, int bcast, const void *sbuf, void *rbuf, size_t block,
                        int root, int ok, int key, int out[5])
{
    int r = s->rank, p = s->size;
    /* block may differ between ranks here (erroneous calls): the place depends on the class
     * only, and the class rides in the key, so that such a call is not served */
    int rotate = (bcast ? block : block * (size_t)p) > SMALL_FIXED;
    char *bank = vred_shm_round_begin(s, rotate ? SMALL_MAX : 0);
    int parity = (int)(s->round & 1);
    key = key * 2 + rotate;
    if (ok && block) {
        if (!bcast) vred_copy(bank + (size_t)r * block, sbuf, block, 0);
        else if (r == root) vred_copy(bank, sbuf, block, 0);
    }
    put_args(s, 0, parity, ok, root, key);
    vred_shm_post(s);
    vred_shm_wait_all(s, s->seq);
    gather_args(s, 0, parity, out);
    if (out[3] != -out[4]) {
        /* The ranks stored at different places: not served, and every rank starts this bank's
         * next rotating round at its start again, so that all agree on places from now on. */
        out[0] = 0;
        s->bank_next[parity] = 0;
    }
    int served = out[0] && out[1] == -out[2];
    if (served && block) {
        char *rb = rbuf;
        if (bcast) {
            if (r != root) vred_copy(rb, bank, block, 0);
        } else {
            for (int q = 0; q < p; q++)
                if (q != r) vred_copy(rb + (size_t)q * block, bank + (size_t)q * block, block, 0);
            if (sbuf != rb + (size_t)r * block) vred_copy(rb + (size_t)r * block, sbuf, block, 0);
        }
    }
    vred_shm_round_end(s); /* the bank and this round's arguments are read */
    return served;
}

/* No round: a rank writes the arguments of agreement m + 2 only after every peer has posted
 * agreement m + 1, which each does after reading those of agreement m. */
void vred_shm_agree(vred_shm *s, int root, int ok, int key, int out[5])
{
    int parity = (int)(s->agreements++ & 1);
    put_args(s, 1, parity, ok, root, key);
    vred_shm_post(s);
    vred_shm_wait_all(s, s->seq);
    gather_args(s, 1, parity, out);
}
