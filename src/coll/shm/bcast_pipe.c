/*
 * Pipelined broadcast through the region's two banks (the second paper, sec. 4.3.2, algorithm
 * 3). The message is cut into slices; slice k goes through bank k & 1. The root copies slice
 * k + 1 into one bank while the others copy slice k out of the other: two copies per byte,
 * overlapped, and the shared slice stays in the cache between them.
 *
 * Copies: the copy out to a receive buffer follows the paper's adaptive rule (non-temporal
 * data, read only after the collective: streamed when the working set W = s + s (p - 1) + 2 I
 * exceeds the cache). The copy into the bank depends on the slice. Below a core's private
 * cache (L2) it departs from the paper: the readers still hold the bank's lines from two slices
 * before, and the root's ordinary stores first take each line back from them. Streaming stores
 * skip that: 2 ranks on Zen 4, bcast 1 MiB 107 -> 66 us, 4 MiB 422 -> 231, 64 MiB 8.0 -> 5.2-5.7
 * ms (every slice from 16 KiB; copy.h, vred_copy_in_nt). From slices of a private cache
 * (messages from 4 of them, where the bank holds one: region.c, bank_floor) it follows the
 * paper again: two such slices later the readers' caches hold none of the bank's old lines, and
 * ordinary stores keep the slice in the cache hierarchy for them, where streaming sends it to
 * memory and back. 2 ranks, Zen 4 (1 MiB L2), Open MPI 4.1, back to back, malloc'd buffers,
 * runs of the two builds alternating: 4 MiB 192-365 -> 127-156 us, 16 MiB 1.39-2.34 -> 0.84-1.61
 * ms, 64 MiB 5.3-6.8 -> 4.8-5.4 ms; 1 MiB slices with streaming stores measured 194-296 us at
 * 4 MiB, 256 KiB slices with ordinary ones 421-542. Unless they crawl (root_rounds).
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
#include <time.h>

/* Below this, one slice: a second synchronisation costs more than the overlap saves. */
#define PIPE_MIN_SLICE ((size_t)16 << 10)
/* Mid sizes: at least this many slices, so that the copy-outs overlap the root's copy-ins. */
#define PIPE_MIN_SLICES 4

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Bytes per slice for a message of `bytes`: the whole message if it is small, else about
 * bytes / PIPE_MIN_SLICES in whole cache lines, never more than I_max nor than the slices'
 * share of a bank; but a whole bank once such a slice would reach a private cache (`big`, when
 * the bank is that large: the ordinary-store regime above). */
static size_t bcast_slice(const vred_shm *s, size_t bytes, size_t big)
{
    size_t cap = s->slice_max < s->slices_bytes ? s->slice_max : s->slices_bytes;
    size_t want = round_up(bytes / PIPE_MIN_SLICES, 64);
    if (want < PIPE_MIN_SLICE) want = PIPE_MIN_SLICE;
    if (want >= big && s->bank_bytes >= big) cap = s->bank_bytes;
    if (want > cap) want = cap;
    return bytes < want ? bytes : want;
}

/* Whole-bank slices: ordinary stores, unless they crawl. Ordinary stores into the bank
 * sometimes crawl: 1 run in 10 of a 4 MiB bcast took 2.0 ms instead of 0.13 (2 ranks, Zen 4),
 * and so did most calls when other bcast algorithms ran in between (the learned selection's
 * rounds), where streaming stores keep their rate (2.3 against 26 GB/s in the host's slow
 * spells: copy.h). So the root times its own copies into the bank: the first call of a size
 * class streams, to learn that rate; later calls store ordinarily, and a whole slice that runs
 * under 1/CRAWL of the streaming rate switches the rest of the call, and the calls after it, to
 * streaming, until every PROBE-th call tries ordinary stores again. Not "whichever is faster":
 * a streaming copy can finish sooner and still cost the call more, since the readers then fetch
 * the slice from memory (the whole call's time did not do either: a probe's cost lands on the
 * next call, which waits for the readers). Only the root's own stores change: the bytes, and
 * what the readers do, are the same either way, so no rank has to agree. */
enum { PROBE = 32, CRAWL = 2 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

/* The size class of a message with whole-bank slices: its power of two above 4 banks, the
 * last class holding every larger one. */
static int big_class(const vred_shm *s, size_t bytes)
{
    int c = 0, last = (int)(sizeof s->bcast_big / sizeof s->bcast_big[0]) - 1;
    for (size_t b = 4 * s->bank_bytes; b * 2 <= bytes && c < last; b *= 2) c++;
    return c;
}

/* The root: slice by slice into the banks; each slice is announced as soon as it is there.
 * Streaming stores for slices from PIPE_MIN_SLICE; whole-bank slices (from `big`) as measured
 * (above), or as VRED_NT forces (vred_copy_in_nt: SIZE_MAX bytes are never reached). */
static void root_rounds(vred_shm *s, const char *buf, size_t bytes, size_t slice, size_t big)
{
    int whole = slice >= big, adapt = whole && vred_copy_mode() == VRED_NT_AUTO;
    vred_bcast_stores *st = &s->bcast_big[big_class(s, bytes)];
    double *rate = st->ns_per_byte; /* [0] ordinary, [1] streaming */
    int stream = st->stream;
    if (adapt && (rate[1] == 0 || ++st->calls % PROBE == 0))
        stream = rate[1] == 0 ? 1 : !stream; /* learn the streaming rate; then probe the other */
    double ns[2] = {0, 0}, done[2] = {0, 0};
    for (size_t off = 0; off < bytes; off += slice) {
        size_t n = bytes - off < slice ? bytes - off : slice;
        char *bank = vred_shm_round_begin(s);
        int nt = adapt ? stream : vred_copy_in_nt(n, whole ? SIZE_MAX : PIPE_MIN_SLICE);
        double t0 = adapt ? now_ns() : 0;
        vred_copy(bank, buf + off, n, nt);
        if (nt) vred_copy_fence(); /* the slice before its announcement */
        if (adapt && n == slice) { /* whole slices only: a short tail times nothing useful */
            double dt = now_ns() - t0;
            ns[nt] += dt, done[nt] += (double)n;
            if (!nt && rate[1] > 0 && dt > CRAWL * rate[1] * (double)n) stream = 1; /* crawls */
        }
        vred_shm_post(s);
        vred_shm_round_end(s); /* the root reads nothing back */
    }
    if (adapt) {
        for (int k = 0; k < 2; k++)
            if (done[k] > 0) rate[k] = ns[k] / done[k];
        if (rate[0] > 0 && rate[1] > 0) st->stream = rate[0] > CRAWL * rate[1];
    }
}

/* A non-root: wait for slice k from the root, copy it out, free the bank. */
static void leaf_rounds(vred_shm *s, int root, char *buf, size_t bytes, size_t slice, int nt)
{
    uint64_t seq0 = s->seq;
    uint64_t k = 0;
    for (size_t off = 0; off < bytes; off += slice, k++) {
        size_t n = bytes - off < slice ? bytes - off : slice;
        const char *bank = vred_shm_round_begin(s);
        vred_shm_wait(s, root, seq0 + k + 1);
        vred_copy(buf + off, bank, n, nt);
        vred_shm_round_end(s);
        vred_shm_post(s); /* nobody waits on it: keeps the seq counters in step */
    }
    /* The streamed stores went to this rank's own buffer, published to nobody here; one fence
     * at the end gives the caller what memcpy gives (glibc fences its streaming copies too),
     * should it hand the buffer to another process through a plain store. */
    if (nt) vred_copy_fence();
}

int vred_shm_bcast_pipe(const vred_shm_args *a)
{
    vred_shm *s = a->n->shm;
    int p = a->n->size;
    size_t bytes = a->count * a->esize;
    if (bytes == 0) return MPI_SUCCESS;
    /* A private cache, but never under 64 KiB (a topology that reports none). */
    size_t big = vred_topo_get()->private_bytes;
    if (big < PIPE_MIN_SLICE * PIPE_MIN_SLICES) big = PIPE_MIN_SLICE * PIPE_MIN_SLICES;
    size_t slice = bcast_slice(s, bytes, big);
    if (a->n->rank == a->root) {
        root_rounds(s, a->sbuf, bytes, slice, big);
    } else {
        size_t w = bytes + bytes * (size_t)(p - 1) + 2 * slice;
        leaf_rounds(s, a->root, a->rbuf, bytes, slice, vred_copy_use_nt(1, w));
    }
    return MPI_SUCCESS;
}
