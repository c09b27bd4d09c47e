#include <stdlib.h>
#include "coll/scratch.h"

void *vred_scratch_get(vred_scratch *s, int slot, size_t bytes)
{
    if (bytes <= s->bytes[slot] && s->p[slot]) return s->p[slot];
    /* Grow by at least half again, so a sweep of rising sizes reallocates O(log) times. */
    size_t want = bytes + bytes / 2;
    if (want < bytes) want = bytes;
    want = (want + 63) & ~(size_t)63;
    void *p = NULL;
    if (posix_memalign(&p, 64, want ? want : 64)) return NULL;
    free(s->p[slot]);
    s->p[slot] = p;
    s->bytes[slot] = want;
    return p;
}

void vred_scratch_free(vred_scratch *s)
{
    for (int i = 0; i < VRED_SCRATCH_SLOTS; i++) {
        free(s->p[i]);
        s->p[i] = NULL;
        s->bytes[i] = 0;
    }
}
