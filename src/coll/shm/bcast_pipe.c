/*
 * Pipelined broadcast through the region's two banks (the second paper, sec. 4.3.2, algorithm
 * 3). The message goes in rounds, round k through bank k & 1, each cut into cells: the root
 * copies cell i + 1 into the bank while the others copy cell i out: two copies per byte,
 * overlapped, and the shared cells stay in the cache between them.
 *
 * Cells, not one step per slice: the root announces a round's first cell with its post (the
 * round protocol, sync.h) and every later cell by a flag in the round's own lines, which it
 * clears before that post and sets, with release, once the cell is stored; a receiver waits for
 * each flag (vred_shm_wait_flag) and copies the cell out. A step of the control lines costs
 * every rank a transfer of a peer's line and a store into its own; the flags cost the receiver
 * one line fetched per cell and the root nothing it waits for. So the message can go in as few
 * rounds as a bank holds (two where the bank is a core's L2 and the message as large) and the
 * receivers still follow the root within a cell. 2 ranks, Zen 5, over Open MPI 4.1, malloc'd
 * buffers, back to back, builds alternating, 3-6 quiet pairs, against about 4 slices of at most
 * I_max with a post each: 64 KiB 1.36-1.42 -> 1.16-1.18 us, 256 KiB 4.06-4.22 -> 4.03-4.10, 1 MiB
 * 18.0-19.0 -> 17.1-17.4, 2 MiB 40.4-41.1 -> 37.1-38.2; 4-32 MiB level. Cells of 12, 16, 64 or
 * 128 KiB: the same or slower than 32 KiB. From CELL_SPAN private caches on (4 MiB at 2 ranks on
 * Zen 5) a round is one cell of a whole bank, as before the cells: the close following lost there
 * (16 MiB 530-700 us against 460-490).
 *
 * Copies: the copy out to a receive buffer follows the paper's adaptive rule (non-temporal data,
 * read only after the collective: streamed when the working set W = s + s (p - 1) + 2 I exceeds
 * the cache), and its ordinary stores are in the form this process measured faster (copy.h: the
 * string copy on Zen 5; the rounds' places below keep it unskewed). The copy into the bank keeps
 * the paper's ordinary stores, which leave the cells in the cache for the readers. Two things make
 * them pay: the rounds rotate through the banks (sync.h), so the root never stores into a line a
 * reader still holds; and where ordinary stores crawl anyway (the host's slow spells), the root
 * measures it and streams (stores.h). 2 ranks, Zen 4, Open MPI 4.1, back to back, malloc'd
 * buffers, builds alternating, medians of 6 runs: 64 KiB 7.7 -> 4.4 us, 256 KiB 22.6 -> 11.4, 1
 * MiB 66.6 -> 45.1 (before: streaming stores into one place per bank).
 *
 * Every rank posts once per round (the root's announces the first cell; the others' only keep
 * every rank's seq equal, which the next collective relies on), and the root does not refill a
 * bank until every rank is done with the round two before, which is what makes two banks a
 * double buffer.
 */
#include "coll/shm/shm.h"

#include "config.h"

#include "local/copy.h"
#include "local/topo.h"

#include <stdint.h>

/* Cells: the unit of the pipeline inside a round (below); VRED_SHM_CELL replaces it. */
enum { CELL_DEFAULT = 32 << 10 };
/* Messages up to this many private caches go in cells; larger ones in whole-bank rounds. */
enum { CELL_SPAN = 4, WHOLE_ROUNDS = 4 };
/*
 * A round's place: its lines (the first holds the root's buffer's offset in a line, c = sbuf mod
 * 64; the others a cell's flag each), then the slice from offset c of a line on. Why: the string
 * copy (`rep movsb`), the faster form on Zen 5 both into the bank and out of it, runs at half its
 * rate where (dst - src) mod 4096 is 1..63, and is not used there (copy.c); from slices at a
 * page's start into a malloc'd buffer (16 mod 64) that is every copy out. A slice at the root's
 * offset makes the copy in and, wherever the ranks' buffers share their offset in a line (as
 * blocks from the same allocator do), every copy out unskewed. 2 ranks, Zen 5, over Open MPI
 * 4.1, malloc'd buffers, back to back, builds alternating, 4 quiet pairs, against vector stores
 * out of slices at a page's start: 64 KiB 1.45-1.66 -> 1.35-1.43 us, 256 KiB 4.69-4.87 ->
 * 4.12-4.18, 1 MiB 19.4-21.2 -> 18.3-18.8. Whole-bank rounds (one cell each) keep line 0 and
 * the root's offset too: at a place's start they made both copies skewed wherever the buffers
 * are not 64-byte aligned, and on the Xeon guest (family 6 model 207) the string copy loses
 * 15-20% there as well (pipe at 64 MiB, every offset 4..48 and 1 against 0/0: 0.80-0.85 ->
 * 0.98-1.01, `bench/run_align.sh --coll bcast --algs pipe`, builds in turn).
 */
enum { PLACE_EXTRA = 64 + 63 };

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }
static size_t cells_of(size_t n, size_t cell) { return n ? (n + cell - 1) / cell : 1; }
static size_t place_bytes(size_t slice, size_t cell)
{
    return cells_of(slice, cell) * 64 + 63 + slice;
}

typedef struct {
    size_t slice; /* bytes per round (the last may be short) */
    size_t cell;  /* bytes per cell, at most slice (whole-bank rounds: one cell each) */
} bcast_plan;

/* The bytes a round of the plan takes in its bank (vred_shm_round_begin). */
static size_t place_of(bcast_plan pl) { return place_bytes(pl.slice, pl.cell); }

/* The bytes of a round's lines, for a round of n bytes. */
static size_t lines_of(bcast_plan pl, size_t n) { return cells_of(n, pl.cell) * 64; }

/* The message in as few rounds as a bank holds, of equal size (so that the last is not a
 * stub), each in cells; from CELL_SPAN private caches on, one cell per round. */
static bcast_plan plan_of(const vred_shm *s, size_t bytes)
{
    long knob = vred_config_get()->shm_cell;
    size_t cell = round_up(knob > 0 ? (size_t)knob : CELL_DEFAULT, 64);
    size_t big = vred_topo_get()->private_bytes;
    if (big < CELL_DEFAULT) big = CELL_DEFAULT; /* a topology that reports none */
    size_t room = (s->bank_bytes - PLACE_EXTRA) / 64 * 64; /* what a place holds besides line 0 */
    if (bytes > CELL_SPAN * big || cell + 64 > room) {
        /* at least WHOLE_ROUNDS rounds, should a bank hold the message */
        size_t slice = round_up((bytes + WHOLE_ROUNDS - 1) / WHOLE_ROUNDS, 64);
        if (slice > room) slice = room;
        return (bcast_plan){slice, slice};
    }
    size_t most = room / (cell + 64) * cell;
    /* VRED_SHM_SLICE, where set, bounds a round too (I_max; tests run many rounds so) */
    if (vred_config_get()->shm_slice > 0 && s->slice_max < most) most = s->slice_max / 64 * 64;
    size_t rounds = (bytes + most - 1) / most;
    size_t slice = round_up((bytes + rounds - 1) / rounds, 64);
    bcast_plan pl = {slice < most ? slice : most, cell};
    if (pl.cell > pl.slice) pl.cell = pl.slice;
    return pl;
}

/* 1 if the agreement's out[] lets the pipeline serve the call: every rank ok, one root, one
 * message size (the key). */
static int agreed(const int out[5])
{
    return out[0] && out[1] == -out[2] && out[3] == -out[4];
}

/* The root: round by round into the banks, each round's cells stored in order, the first
 * announced by the post, each later one by its flag (its lines cleared before that post, so that
 * a receiver, which reads them only after it, never takes a word an earlier call left in the
 * bank for a flag); with ordinary or streaming stores as measured (stores.h; the first cell of
 * each round timed). With `out`, the agreement the front began ends once the first cell is
 * stored, before it is announced: where it does not let the call be served, that round is taken
 * back (nothing was announced, no peer reads it) and the root returns 0 having moved nothing. */
static int root_rounds(vred_shm *s, const char *buf, size_t bytes, bcast_plan pl, int *out)
{
    size_t slice = pl.slice, cell = pl.cell;
    vred_stores_call c;
    vred_stores_begin(&c, &s->stores, VRED_STORES_BCAST, bytes, cell);
    size_t at = (uintptr_t)buf & 63;
    for (size_t off = 0; off < bytes; off += slice) {
        size_t n = bytes - off < slice ? bytes - off : slice, cells = cells_of(n, cell);
        size_t next = s->bank_next[(s->round + 1) & 1];
        char *place = vred_shm_round_begin(s, place_of(pl));
        uint64_t *line = (uint64_t *)(void *)place;
        uint64_t tag = s->round; /* the same on every rank, new in each round */
        char *data = place + lines_of(pl, n) + at;
        line[0] = at;
        for (size_t i = 1; i < cells; i++) line[i * 8] = 0;
        for (size_t i = 0; i < cells; i++) {
            size_t o = i * cell, m = n - o < cell ? n - o : cell;
            vred_stores_copy(&c, data + o, buf + off + o, m, i == 0 && m == cell);
            if (i) {
                __atomic_store_n(&line[i * 8], tag, __ATOMIC_RELEASE);
                continue;
            }
            if (out && off == 0) {
                vred_shm_agree_end(s, out);
                if (!agreed(out)) {
                    vred_shm_round_cancel(s, next);
                    vred_stores_end(&c);
                    return 0;
                }
            }
            vred_shm_post(s);
        }
        vred_shm_round_end(s); /* the root reads nothing back */
    }
    vred_stores_end(&c);
    return 1;
}

/* A non-root: wait for round k's post from the root, copy its cells out as their flags are
 * set, free the bank. */
static void leaf_rounds(vred_shm *s, int root, char *buf, size_t bytes, bcast_plan pl, int nt)
{
    size_t slice = pl.slice, cell = pl.cell;
    uint64_t seq0 = s->seq;
    uint64_t k = 0;
    for (size_t off = 0; off < bytes; off += slice, k++) {
        size_t n = bytes - off < slice ? bytes - off : slice, cells = cells_of(n, cell);
        const char *place = vred_shm_round_begin(s, place_of(pl));
        const uint64_t *line = (const uint64_t *)(const void *)place;
        uint64_t tag = s->round;
        vred_shm_wait(s, root, seq0 + k + 1);
        const char *data = place + lines_of(pl, n) + (size_t)(line[0] & 63);
        for (size_t i = 0; i < cells; i++) {
            size_t o = i * cell, m = n - o < cell ? n - o : cell;
            if (i) vred_shm_wait_flag(s, root, &line[i * 8], tag);
            if (nt) vred_copy(buf + off + o, data + o, m, 1);
            else vred_copy_measured(buf + off + o, data + o, m);
        }
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
    bcast_plan pl = plan_of(s, bytes);
    if (a->n->rank == a->root) return root_rounds(s, a->sbuf, bytes, pl, out);
    size_t w = bytes + bytes * (size_t)(p - 1) + 2 * pl.slice;
    leaf_rounds(s, a->root, a->rbuf, bytes, pl, vred_copy_use_nt(1, w));
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
