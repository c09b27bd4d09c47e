/* The public (op, type) -> kernel map, derived from the active table at start-up. */
#ifndef VRED_DISPATCH_H
#define VRED_DISPATCH_H

#include "kernels/kernel.h"

typedef struct {
    vred_binary_fn fn; /* NULL: op not defined on type */
    unsigned scale;    /* elements of the canonical type per element of the public type */
} vred_entry;

extern vred_entry vred_entries[VRED_OP_COUNT][VRED_TYPE_COUNT];

/* Fill t with the best kernels up to `cap` that this CPU runs; returns the ISA reached.
 * masked_tail: 1 masked, 0 cascade, -1 the measured default. For tests and benchmarks. */
vred_isa vred_table_build(vred_kernel_table *t, vred_isa cap, int masked_tail);
void vred_entries_build(vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT], const vred_kernel_table *t);

/* The ISAs of this architecture's build, worst to best (scalar first). */
size_t vred_isa_ladder(const vred_isa **isas);

/* Make (cap, masked_tail) the process-wide table; returns the ISA reached. Not thread-safe:
 * for tests, benchmarks and start-up. */
vred_isa vred_dispatch_select(vred_isa cap, int masked_tail);

#endif
