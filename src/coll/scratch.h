/*
 * Buffers a communicator keeps between calls: a collective on 64 MiB would otherwise pay for
 * 16,384 fresh page faults every time. Grow-only per slot, freed with the communicator.
 */
#ifndef VRED_SCRATCH_H
#define VRED_SCRATCH_H

#include <stddef.h>

enum {
    VRED_SCRATCH_ACC,      /* an algorithm's accumulator (non-roots, temporaries) */
    VRED_SCRATCH_ACC2,     /* a second one (double buffering) */
    VRED_SCRATCH_OWN,      /* a rank's own result block (ring) */
    VRED_SCRATCH_RING,     /* msg.c: the window of received segments */
    VRED_SCRATCH_PACK_OUT, /* msg.c: a compressed message being sent */
    VRED_SCRATCH_PACK_IN,  /* msg.c: a compressed message received */
    VRED_SCRATCH_REQS,     /* msg.c: request arrays */
    VRED_SCRATCH_STATUS,   /* msg.c: statuses of a message received whole */
    VRED_SCRATCH_SLOTS
};

typedef struct {
    void *p[VRED_SCRATCH_SLOTS];
    size_t bytes[VRED_SCRATCH_SLOTS];
} vred_scratch;

/* At least `bytes` (64-byte aligned) in slot; NULL if memory is exhausted. */
void *vred_scratch_get(vred_scratch *s, int slot, size_t bytes);
void vred_scratch_free(vred_scratch *s);

#endif
