#include <stdlib.h>
#include "config.h"
#include "coll/scratch.h"
#include "coll/fail.h"

/* A slot above KEEP_SMALL whose calls used at most a quarter of it this many times in a row is
 * released (the next call that needs it allocates what it needs then). Slots up to KEEP_SMALL
 * stay (under VRED_SCRATCH_LIMIT): a mix of small and medium calls would otherwise free and
 * fault in the same few MiB over and over. */
enum { IDLE_TRIMS = 4 };
static const size_t KEEP_SMALL = 4 << 20;

/* Scratch held by this process, over every communicator (and every thread). */
static size_t held;

size_t vred_scratch_held(void) { return __atomic_load_n(&held, __ATOMIC_RELAXED); }

static void release(vred_scratch *s, int slot)
{
    __atomic_sub_fetch(&held, s->bytes[slot], __ATOMIC_RELAXED);
    free(s->p[slot]);
    s->p[slot] = NULL;
    s->bytes[slot] = 0;
    s->idle[slot] = 0;
}

void *vred_scratch_get(vred_scratch *s, int slot, size_t bytes)
{
    if (vred_fail_inject(VRED_FAIL_ALLOC)) return NULL; /* testing: as if out of memory */
    if (bytes > s->used[slot]) s->used[slot] = bytes;
    if (bytes <= s->bytes[slot] && s->p[slot]) return s->p[slot];
    /* Grow by at least half again, so a sweep of rising sizes reallocates O(log) times. */
    size_t want = bytes + bytes / 2;
    if (want < bytes) want = bytes;
    want = (want + 63) & ~(size_t)63;
    void *p = NULL;
    if (posix_memalign(&p, 64, want ? want : 64)) return NULL;
    if (s->p[slot]) release(s, slot);
    s->p[slot] = p;
    s->bytes[slot] = want;
    __atomic_add_fetch(&held, want, __ATOMIC_RELAXED);
    return p;
}

void vred_scratch_trim(vred_scratch *s)
{
    size_t limit = (size_t)vred_config_get()->scratch_limit;
    int over = __atomic_load_n(&held, __ATOMIC_RELAXED) > limit;
    for (int i = 0; i < VRED_SCRATCH_SLOTS; i++) {
        if (!s->p[i]) continue;
        s->idle[i] = s->used[i] <= s->bytes[i] / 4 ? s->idle[i] + 1 : 0;
        s->used[i] = 0;
        if (over || (s->idle[i] >= IDLE_TRIMS && s->bytes[i] > KEEP_SMALL)) release(s, i);
    }
}

void vred_scratch_free(vred_scratch *s)
{
    for (int i = 0; i < VRED_SCRATCH_SLOTS; i++)
        if (s->p[i]) release(s, i);
}
