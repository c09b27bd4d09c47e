/* Ordinary or streaming stores into the banks, as measured (stores.h). */
#include "coll/shm/stores.h"

#include <time.h>

#include "config.h"
#include "local/copy.h"

/* PROBE: every this many calls of a class try the kind not in use. CRAWL: ordinary stores more
 * than this many times slower per byte than streaming ones crawl. 2 ranks on Zen 4, 64 KiB-1 MiB:
 * outside the slow spells ordinary stores ran at 0.02-0.05 ns per byte, streaming ones at
 * 0.04-0.08; inside, the ordinary ones took 5-10x as long, the streaming ones did not. */
enum { PROBE = 32, CRAWL = 2 };

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

void vred_stores_begin(vred_stores_call *c, vred_stores_table *t, vred_stores_use use,
                       size_t bytes, size_t slice)
{
    int mode = vred_copy_mode();
    *c = (vred_stores_call){0};
    if (mode != VRED_NT_AUTO || slice < VRED_STORES_MIN_SLICE) {
        c->stream = mode == VRED_NT_ON;
        return;
    }
    vred_stores *st = &t->by[use][size_class(bytes)];
    const double *rate = st->ns_per_byte;
    c->st = st;
    c->stream = st->stream;
    if (rate[1] == 0 || ++st->calls % PROBE == 0)
        c->stream = rate[1] == 0 ? 1 : !st->stream; /* learn the streaming rate; then probe */
}

void vred_stores_copy(vred_stores_call *c, void *bank, const void *src, size_t n, int whole)
{
    int nt = c->stream, timed = c->st && whole;
    double t0 = timed ? now_ns() : 0;
    vred_copy(bank, src, n, nt);
    if (nt) vred_copy_fence();
    if (!timed) return;
    double dt = now_ns() - t0, *rate = c->st->ns_per_byte;
    c->ns[nt] += dt, c->bytes[nt] += (double)n;
    if (!nt && rate[1] > 0 && dt > CRAWL * rate[1] * (double)n) c->stream = 1; /* crawls */
}

void vred_stores_end(vred_stores_call *c)
{
    if (!c->st) return;
    double *rate = c->st->ns_per_byte;
    for (int k = 0; k < 2; k++)
        if (c->bytes[k] > 0) rate[k] = c->ns[k] / c->bytes[k];
    if (rate[0] > 0 && rate[1] > 0) c->st->stream = rate[0] > CRAWL * rate[1];
}
