/*
 * Buffers a communicator keeps between calls: a collective on 64 MiB would otherwise pay for
 * 16,384 fresh page faults every time. A slot grows to the largest request of a call; at the
 * end of every served call (vred_scratch_trim) a slot above 4 MiB that recent calls no longer
 * need is released, and so is all of the communicator's scratch while the process holds more than
 * VRED_SCRATCH_LIMIT bytes of scratch in all: a one-off 1 GiB call does not pin 1 GiB.
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
    size_t used[VRED_SCRATCH_SLOTS];        /* the largest request since the last trim */
    unsigned char idle[VRED_SCRATCH_SLOTS]; /* trims in a row whose calls used <= 1/4 of it */
} vred_scratch;

/* At least `bytes` (64-byte aligned) in slot; NULL if memory is exhausted. */
void *vred_scratch_get(vred_scratch *s, int slot, size_t bytes);
/* After a call: release what the bound or the recent calls say not to keep. */
void vred_scratch_trim(vred_scratch *s);
void vred_scratch_free(vred_scratch *s);
/* Bytes of scratch this process holds, over all communicators (for the tests' reports). */
size_t vred_scratch_held(void);

#endif
