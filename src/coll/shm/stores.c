/* Ordinary or streaming stores into the banks, as measured (stores.h). */
#include "coll/shm/stores.h"

#include <time.h>

#include "config.h"
#include "kernels/kernel.h"
#include "local/copy.h"

/* PROBE: after this many calls of a class, one tries a kind not in use; each probe that leaves
 * the choice as it was doubles the gap, up to PROBE_MAX, and a change of choice sets it back to
 * PROBE. Why the back-off: a probe costs its call the slower kind (2 ranks, Zen 5, bcast of 256
 * KiB: the root's vector stores at 0.02-0.04 ns per byte, streaming ones 0.019, the string copy
 * 0.011, and the receivers then read from memory), a few % of every call's time with one every
 * 32 calls (docs/shm.md, "Probes back off"). CRAWL: ordinary stores more than this many
 * times slower per byte than streaming ones crawl. 2 ranks on Zen 4, 64 KiB-1 MiB: outside the
 * slow spells ordinary stores ran at 0.02-0.05 ns per byte, streaming ones at 0.04-0.08; inside,
 * the ordinary ones took 5-10x as long, the streaming ones did not. */
enum { PROBE = 32, PROBE_MAX = 1024, CRAWL = 2 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static int size_class(size_t bytes)
{
    int c = 0;
    for (size_t b = (size_t)32 << 10; b < bytes && c < VRED_STORES_CLASSES - 1; b *= 2) c++;
    return c;
}

/* The ordinary form in use for st, and whether the CPU offers the string copy at all. */
static int ordinary(const vred_stores *st) { return st->string ? VRED_STORES_STRING : VRED_STORES_LINES; }
static int have_string(void) { return vred_cpu()->erms; }

/* The kind a timed call of st starts with: each kind's first measurement (streaming, then
 * vector stores, then the string copy), then the kinds in use, but after every gap of calls
 * (PROBE, backing off) another: alternately the other ordinary form and the other of streaming
 * and ordinary. */
static int kind_for(vred_stores *st, int *probe)
{
    const double *rate = st->ns_per_byte;
    int ord = ordinary(st);
    if (rate[VRED_STORES_STREAM] == 0) return VRED_STORES_STREAM;
    if (rate[VRED_STORES_LINES] == 0) return VRED_STORES_LINES;
    if (rate[VRED_STORES_STRING] == 0 && have_string()) return VRED_STORES_STRING;
    if (st->gap == 0) st->gap = PROBE;
    if (++st->calls < st->gap) return st->stream ? VRED_STORES_STREAM : ord;
    st->calls = 0;
    *probe = 1;
    if (st->probes++ & 1 && have_string())
        return ord == VRED_STORES_LINES ? VRED_STORES_STRING : VRED_STORES_LINES;
    return st->stream ? ord : VRED_STORES_STREAM;
}

void vred_stores_begin(vred_stores_call *c, vred_stores_table *t, vred_stores_use use,
                       size_t bytes, size_t slice)
{
    int mode = vred_copy_mode();
    *c = (vred_stores_call){0};
    if (mode != VRED_NT_AUTO || slice < VRED_STORES_MIN_SLICE) {
        c->kind = mode == VRED_NT_ON ? VRED_STORES_STREAM : VRED_STORES_LINES;
        return;
    }
    c->st = &t->by[use][size_class(bytes)];
    c->kind = kind_for(c->st, &c->probe);
    c->was = c->st->stream << 1 | c->st->string;
}

void vred_stores_copy(vred_stores_call *c, void *bank, const void *src, size_t n, int whole)
{
    int kind = c->kind, timed = c->st && whole;
    double t0 = timed ? now_ns() : 0;
    /* Where the string copy is not offered for these buffers, the call's slices are vector
     * stores, timed as such. */
    if (kind == VRED_STORES_STRING && !vred_copy_string(bank, src, n)) kind = VRED_STORES_LINES;
    if (kind != VRED_STORES_STRING) vred_copy(bank, src, n, kind == VRED_STORES_STREAM);
    if (kind == VRED_STORES_STREAM) vred_copy_fence();
    if (!timed) return;
    double dt = now_ns() - t0, stream_rate = c->st->ns_per_byte[VRED_STORES_STREAM];
    c->ns[kind] += dt, c->bytes[kind] += (double)n;
    if (kind != VRED_STORES_STREAM && stream_rate > 0 && dt > CRAWL * stream_rate * (double)n)
        c->kind = VRED_STORES_STREAM; /* crawls */
}

/* Kind k's rate for the choices: the best of its last VRED_STORES_RECENT calls with `latest`
 * (a call that another process or an interrupt slowed says nothing of the kind, and a choice
 * taken from one such call flipped the string copy and vector stores back and forth: 2 ranks,
 * Zen 5, allgather of 512 KiB, one in every 30-150 calls). A slow spell that lasts shows in
 * every recent call. */
static double recent_best(vred_stores *st, int k, double latest)
{
    st->recent[k][st->recent_at[k]++ % VRED_STORES_RECENT] = latest;
    double best = latest;
    for (int i = 0; i < VRED_STORES_RECENT; i++)
        if (st->recent[k][i] > 0 && st->recent[k][i] < best) best = st->recent[k][i];
    return best;
}

void vred_stores_end(vred_stores_call *c)
{
    if (!c->st) return;
    double *rate = c->st->ns_per_byte;
    for (int k = 0; k < VRED_STORES_KINDS; k++)
        if (c->bytes[k] > 0) rate[k] = recent_best(c->st, k, c->ns[k] / c->bytes[k]);
    if (rate[VRED_STORES_LINES] > 0 && rate[VRED_STORES_STRING] > 0)
        c->st->string = rate[VRED_STORES_STRING] < rate[VRED_STORES_LINES];
    double ord = rate[ordinary(c->st)];
    if (ord > 0 && rate[VRED_STORES_STREAM] > 0)
        c->st->stream = ord > CRAWL * rate[VRED_STORES_STREAM];
    /* a probe, or a crawl, that changed the choice: look again soon; a probe that kept it: later */
    if ((c->st->stream << 1 | c->st->string) != c->was) c->st->gap = PROBE;
    else if (c->probe && c->st->gap < PROBE_MAX) c->st->gap *= 2;
}
