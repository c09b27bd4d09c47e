/*
 * Pipelined broadcast through the region's two banks (the second paper, sec. 4.3.2, algorithm
 * 3). The message is cut into slices; slice k goes through bank k & 1. The root copies slice
 * k + 1 into one bank while the others copy slice k out of the other: two copies per byte,
 * overlapped, and the shared slice stays in the cache between them.
 *
 * Copies: the copy out to a receive buffer follows the paper's adaptive rule (non-temporal data,
 * read only after the collective: streamed when the working set W = s + s (p - 1) + 2 I exceeds
 * the cache), and its ordinary stores are in the form this process measured faster (copy.h: the
 * string copy on Zen 5; the slices' places below keep it unskewed). The copy into the bank keeps
 * the paper's ordinary stores, which leave the slice in the cache for the readers. Two things make
 * them pay: the rounds rotate through the banks (sync.h), so the root never stores into a line a
 * reader still holds; and where ordinary stores crawl anyway (the host's slow spells), the root
 * measures it and streams (stores.h). 2 ranks, Zen 4, Open MPI 4.1, back to back, malloc'd
 * buffers, builds alternating, medians of 6 runs: 64 KiB 7.7 -> 4.4 us, 256 KiB 22.6 -> 11.4, 1
 * MiB 66.6 -> 45.1 (before: streaming stores into one place per bank). From a private cache per
 * slice (messages from 4 of them, where the bank holds one: region.c, bank_floor) slices span a
 * whole bank: 4 MiB 192-365 -> 127-156 us, 16 MiB 1.39-2.34 -> 0.84-1.61 ms, 64 MiB 5.3-6.8 ->
 * 4.8-5.4 ms against 256 KiB slices.
 *
 * Synchronisation per slice (sync.h): one post by every rank (the root's announces the slice;
 * the others' only keep every rank's seq equal, which the next collective relies on), and the
 * round protocol: the root does not refill a bank until every rank is done with the round two
 * before, which is what makes two banks a double buffer.
 */
#include "coll/shm/shm.h"

#include "local/copy.h"
#include "local/topo.h"

#include <stdint.h>

/* Below this, one slice: a second synchronisation costs more than the overlap saves. */
#define PIPE_MIN_SLICE ((size_t)16 << 10)
/* Mid sizes: at least this many slices, so that the copy-outs overlap the root's copy-ins. */
#define PIPE_MIN_SLICES 4

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/*
 * A slice's place in its round: a line, then the slice from the root's buffer's offset in a
 * line (c = sbuf mod 64) on; the first round's line holds c for the readers. Why: the string
 * copy (`rep movsb`), the faster form on Zen 5 both into the bank and out of it, runs at half
 * its rate where (dst - src) mod 4096 is 1..63, and is not used there (copy.c); from slices at
 * a page's start into a malloc'd buffer (16 mod 64) that is every copy out. A bank slice at the
 * root's offset makes the copy in and, wherever the ranks' buffers share their offset in a line
 * (as blocks from the same allocator do), every copy out unskewed. 2 ranks, Zen 5, over Open
 * MPI 4.1, malloc'd buffers, back to back, builds alternating, 4 quiet pairs, against vector
 * stores out of slices at a page's start: 64 KiB 1.45-1.66 -> 1.35-1.43 us, 256 KiB 4.69-4.87
 * -> 4.12-4.18, 1 MiB 19.4-21.2 -> 18.3-18.8 (one pair in a slow spell left out); 4 and 16 MiB,
 * whole-bank slices, unchanged.
 */
enum { HEAD = 64, PLACE_EXTRA = HEAD + 63 };

/* HEAD where a place of `slice` with its extra bytes fits in a bank, else 0: a slice of a whole
 * bank (messages of several MiB) starts at its place's start, unskewed only for buffers at the
 * start of a line. */
static size_t head_of(const vred_shm *s, size_t slice)
{
    return round_up(slice + PLACE_EXTRA, 4096) <= s->bank_bytes ? HEAD : 0;
}

/* The bytes a round of `slice` takes in its bank (vred_shm_round_begin). */
static size_t place_bytes(size_t slice, size_t head) { return head ? slice + PLACE_EXTRA : slice; }

/* Bytes per slice for a message of `bytes`: the whole message if it is small, else about
 * bytes / PIPE_MIN_SLICES in whole cache lines, never more than I_max nor than the slices'
 * share of a bank; but a whole bank once such a slice would reach a private cache (`big`, when
 * the bank is that large). */
static size_t bcast_slice(const vred_shm *s, size_t bytes, size_t big)
{
    size_t cap = s->slice_max < s->slices_bytes ? s->slice_max : s->slices_bytes;
    size_t want = round_up(bytes / PIPE_MIN_SLICES, 64);
    if (want < PIPE_MIN_SLICE) want = PIPE_MIN_SLICE;
    if (want >= big && s->bank_bytes >= big) cap = s->bank_bytes;
    if (want > cap) want = cap;
    return bytes < want ? bytes : want;
}

/* 1 if the agreement's out[] lets the pipeline serve the call: every rank ok, one root, one
 * message size (the key). */
static int agreed(const int out[5])
{
    return out[0] && out[1] == -out[2] && out[3] == -out[4];
}

/* The root: slice by slice into the banks, each slice announced as soon as it is there; with
 * ordinary or streaming stores as measured (stores.h). With `out`, the agreement the front
 * began ends once the first slice is stored, before it is announced: where it does not let the
 * call be served, that round is taken back (nothing was announced, no peer reads it) and the
 * root returns 0 having moved nothing. */
static int root_rounds(vred_shm *s, const char *buf, size_t bytes, size_t slice, int *out)
{
    vred_stores_call c;
    vred_stores_begin(&c, &s->stores, VRED_STORES_BCAST, bytes, slice);
    size_t head = head_of(s, slice), at = head ? (uintptr_t)buf & 63 : 0;
    for (size_t off = 0; off < bytes; off += slice) {
        size_t n = bytes - off < slice ? bytes - off : slice;
        size_t next = s->bank_next[(s->round + 1) & 1];
        char *place = vred_shm_round_begin(s, place_bytes(slice, head));
        if (head && off == 0) *(uint64_t *)(void *)place = at; /* published with the slice */
        /* a short tail times nothing */
        vred_stores_copy(&c, place + head + at, buf + off, n, n == slice);
        if (out && off == 0) {
            vred_shm_agree_end(s, out);
            if (!agreed(out)) {
                vred_shm_round_cancel(s, next);
                vred_stores_end(&c);
                return 0;
            }
        }
        vred_shm_post(s);
        vred_shm_round_end(s); /* the root reads nothing back */
    }
    vred_stores_end(&c);
    return 1;
}

/* A non-root: wait for slice k from the root, copy it out, free the bank. */
static void leaf_rounds(vred_shm *s, int root, char *buf, size_t bytes, size_t slice, int nt)
{
    uint64_t seq0 = s->seq;
    uint64_t k = 0;
    size_t head = head_of(s, slice), at = 0;
    for (size_t off = 0; off < bytes; off += slice, k++) {
        size_t n = bytes - off < slice ? bytes - off : slice;
        const char *place = vred_shm_round_begin(s, place_bytes(slice, head));
        vred_shm_wait(s, root, seq0 + k + 1);
        if (head && off == 0) at = (size_t)*(const uint64_t *)(const void *)place;
        const char *from = place + head + at;
        if (nt) vred_copy(buf + off, from, n, 1);
        else vred_copy_measured(buf + off, from, n);
        vred_shm_round_end(s);
        vred_shm_post(s); /* nobody waits on it: keeps the seq counters in step */
    }
    /* The streamed stores went to this rank's own buffer, published to nobody here; one fence
     * at the end gives the caller what memcpy gives (glibc fences its streaming copies too),
     * should it hand the buffer to another process through a plain store. */
    if (nt) vred_copy_fence();
}

/* The pipeline on every rank; with `out` (root only) the agreement ends inside (root_rounds).
 * 1 if served. */
static int pipeline(const vred_shm_args *a, size_t bytes, int *out)
{
    vred_shm *s = a->n->shm;
    int p = a->n->size;
    /* A private cache, but never under 64 KiB (a topology that reports none). */
    size_t big = vred_topo_get()->private_bytes;
    if (big < PIPE_MIN_SLICE * PIPE_MIN_SLICES) big = PIPE_MIN_SLICE * PIPE_MIN_SLICES;
    size_t slice = bcast_slice(s, bytes, big);
    if (a->n->rank == a->root) return root_rounds(s, a->sbuf, bytes, slice, out);
    size_t w = bytes + bytes * (size_t)(p - 1) + 2 * slice;
    leaf_rounds(s, a->root, a->rbuf, bytes, slice, vred_copy_use_nt(1, w));
    return 1;
}

int vred_shm_bcast_pipe(const vred_shm_args *a)
{
    size_t bytes = a->count * a->esize;
    if (bytes) (void)pipeline(a, bytes, NULL);
    return MPI_SUCCESS;
}

int vred_shm_bcast_pipe_agreeing(const vred_shm_args *a, int ok, int out[5])
{
    size_t bytes = a->count * a->esize;
    /* The root stores before it knows: only what it may send (its own verdict), and only a
     * message with something to store. */
    if (a->n->rank == a->root && ok && bytes) return pipeline(a, bytes, out);
    vred_shm_agree_end(a->n->shm, out);
    if (!agreed(out)) return 0;
    if (bytes) (void)pipeline(a, bytes, NULL);
    return 1;
}
