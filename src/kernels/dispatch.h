/* The public (op, type) -> kernel map, derived from the active table at start-up. */
#ifndef VRED_DISPATCH_H
#define VRED_DISPATCH_H

#include "kernels/kernel.h"

typedef struct {
    vred_binary_fn fn; /* NULL: op not defined on type */
    unsigned scale;    /* elements of the canonical type per element of the public type */
    vred_isa isa;      /* the ISA whose kernel fn is (in vred_entries; scalar where only the
                        * scalar reference serves the pair, whatever the active ISA) */
} vred_entry;

extern vred_entry vred_entries[VRED_OP_COUNT][VRED_TYPE_COUNT];

/* Fill t with the best kernels up to `cap` that this CPU runs; returns the ISA reached.
 * masked_tail: 1 masked, 0 cascade, -1 the measured default. For tests and benchmarks. */
vred_isa vred_table_build(vred_kernel_table *t, vred_isa cap, int masked_tail);
void vred_entries_build(vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT], const vred_kernel_table *t);

/* The ISAs of this architecture's build, worst to best (scalar first). */
size_t vred_isa_ladder(const vred_isa **isas);

/* Make (cap, masked_tail) the process-wide table, and choose again every registered
 * vred_isa_choice; returns the ISA reached. Not thread-safe: for tests, benchmarks and
 * start-up. */
vred_isa vred_dispatch_select(vred_isa cap, int masked_tail);

/*
 * The one ISA-dispatch idiom (Linux raid6/xor style). Whatever vred implements once per ISA
 * lists its implementations in an array, each with the ISA it needs (its priority: the place of
 * that ISA on vred_isa_ladder) and, where the ISA says not enough, a validity check of its own.
 * The choice is the valid implementation of highest priority not above the active ISA (the
 * VRED_ISA cap), made at start-up and again whenever the active ISA changes: callers read one
 * pointer, never test the ISA per call. The kernel table itself is built from dispatch.c's list
 * of ISAs the same way (every valid ISA up to the cap, in priority order, each overwriting the
 * entries it accelerates). Users: local/copy.c (line copies), local/sparse.c (pack/unpack).
 */
typedef struct {
    vred_isa isa;          /* needs this ISA (the CPU, the OS and this build: vred_isa_supported) */
    int (*valid)(void);    /* and this, if not NULL */
    const void *impl;      /* what the user chooses between */
} vred_isa_impl;

typedef struct vred_isa_choice {
    const vred_isa_impl *list; /* worst to best */
    size_t n;
    const void *chosen;        /* read through vred_isa_chosen */
    struct vred_isa_choice *next;
} vred_isa_choice;

/* Chooses now and after every later vred_dispatch_select; call from a constructor (before
 * threads). The list must hold an entry valid everywhere (the baseline). */
void vred_isa_choice_register(vred_isa_choice *c);

static inline const void *vred_isa_chosen(const vred_isa_choice *c)
{
    return __atomic_load_n(&c->chosen, __ATOMIC_RELAXED);
}

/* A choice over the array `list`, registered before main(); `baseline` (list[0]'s
 * implementation) is what it holds until then. */
#define VRED_ISA_CHOICE(name, list, baseline)                                                   \
    static vred_isa_choice name = {list, sizeof list / sizeof list[0], baseline, NULL};         \
    __attribute__((constructor)) static void name##_register(void)                              \
    {                                                                                           \
        vred_isa_choice_register(&name);                                                        \
    }

#endif
