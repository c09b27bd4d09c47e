/*
 * Start-up dispatch: one flat table per process, filled before main() from the scalar kernels
 * and then from each better ISA the CPU supports, up to the VRED_ISA cap. Kernels never check
 * CPU flags themselves.
 */
#include <stdio.h>
#include <string.h>
#include "kernels/kernel.h"
#include "kernels/dispatch.h"
#include "config.h"

vred_kernel_table vred_active;
vred_entry vred_entries[VRED_OP_COUNT][VRED_TYPE_COUNT];
static vred_isa active_isa = VRED_ISA_SCALAR;

/* Measured with `vred-kbench tails` (docs/kernels.md): the faster tail per ISA. */
#define VRED_AVX512_MASKED_TAIL_DEFAULT 1
#define VRED_SVE_MASKED_TAIL_DEFAULT 1

static const char *const isa_names[VRED_ISA_COUNT] = {"scalar", "sse41", "avx2",
                                                      "avx512", "neon", "sve"};

const char *vred_isa_name(vred_isa isa)
{
    return (unsigned)isa < VRED_ISA_COUNT ? isa_names[isa] : "unknown";
}

vred_isa vred_isa_from_name(const char *name)
{
    for (int i = 0; i < VRED_ISA_COUNT; i++)
        if (name && strcmp(name, isa_names[i]) == 0) return (vred_isa)i;
    return VRED_ISA_COUNT;
}

/* The ISAs of this architecture, worst to best. */
#if defined(__aarch64__)
static const vred_isa ladder[] = {VRED_ISA_SCALAR, VRED_ISA_NEON, VRED_ISA_SVE};
#else
static const vred_isa ladder[] = {VRED_ISA_SCALAR, VRED_ISA_SSE41, VRED_ISA_AVX2,
                                  VRED_ISA_AVX512};
#endif
enum { LADDER = sizeof ladder / sizeof ladder[0] };

size_t vred_isa_ladder(const vred_isa **isas)
{
    *isas = ladder;
    return LADDER;
}

static int rung(vred_isa isa)
{
    for (int i = 0; i < LADDER; i++)
        if (ladder[i] == isa) return i;
    return -1;
}

static void fill_one(vred_kernel_table *t, vred_isa isa, int masked_tail)
{
    switch (isa) {
    case VRED_ISA_SCALAR: vred_fill_scalar(t); break;
#ifdef VRED_HAVE_SSE41
    case VRED_ISA_SSE41: vred_fill_sse41(t); break;
#endif
#ifdef VRED_HAVE_AVX2
    case VRED_ISA_AVX2: vred_fill_avx2(t); break;
#endif
#ifdef VRED_HAVE_AVX512
    case VRED_ISA_AVX512: vred_fill_avx512(t, masked_tail); break;
#endif
#ifdef VRED_HAVE_NEON
    case VRED_ISA_NEON: vred_fill_neon(t); break;
#endif
#ifdef VRED_HAVE_SVE
    case VRED_ISA_SVE: vred_fill_sve(t, masked_tail); break;
#endif
    default: (void)masked_tail; break;
    }
}

vred_isa vred_table_build(vred_kernel_table *t, vred_isa cap, int masked_tail)
{
    memset(t, 0, sizeof *t);
    int top = rung(cap);
    if (top < 0) top = LADDER - 1;
    vred_isa got = VRED_ISA_SCALAR;
    for (int i = 0; i <= top; i++) {
        if (!vred_isa_supported(ladder[i])) continue;
        int masked = masked_tail;
        if (masked < 0)
            masked = ladder[i] == VRED_ISA_SVE ? VRED_SVE_MASKED_TAIL_DEFAULT
                                               : VRED_AVX512_MASKED_TAIL_DEFAULT;
        fill_one(t, ladder[i], masked);
        got = ladder[i];
    }
    return got;
}

void vred_entries_build(vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT], const vred_kernel_table *t)
{
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            vred_entry *x = &e[op][ty];
            x->fn = NULL;
            x->scale = 0;
            if (!vred_op_valid((vred_op)op, (vred_type)ty)) continue;
            vred_canon c = vred_canonical((vred_op)op, (vred_type)ty);
            x->fn = t->bin[c.op][c.type];
            x->scale = c.scale;
        }
}

static int tail_setting(void)
{
    switch (vred_config_get()->tail) {
    case VRED_TAIL_MASK: return 1;
    case VRED_TAIL_CASCADE: return 0;
    default: return -1;
    }
}

/* Copies pointer by pointer into the live tables: a reduction running meanwhile sees the old or
 * the new kernel of an entry, never NULL (a memset-then-fill of the live table could). */
static void publish(const vred_kernel_table *t, vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT])
{
    const void *const *from = (const void *const *)t;
    void **to = (void **)&vred_active;
    for (size_t i = 0; i < sizeof *t / sizeof(void *); i++) __atomic_store_n(&to[i], (void *)from[i], __ATOMIC_RELAXED);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            __atomic_store_n(&vred_entries[op][ty].fn, e[op][ty].fn, __ATOMIC_RELAXED);
            __atomic_store_n(&vred_entries[op][ty].scale, e[op][ty].scale, __ATOMIC_RELAXED);
        }
}

vred_isa vred_dispatch_select(vred_isa cap, int masked_tail)
{
    static vred_kernel_table t;
    static vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT];
    vred_isa got = vred_table_build(&t, cap, masked_tail);
    vred_entries_build(e, &t);
    publish(&t, e);
    active_isa = got;
    return got;
}

int vred_isa_cap(vred_isa cap)
{
    if ((unsigned)cap > VRED_ISA_COUNT) return VRED_ERR_ARG;
    /* An ISA of another architecture is no cap at all here: refuse it. */
    if (cap != VRED_ISA_COUNT && rung(cap) < 0) return VRED_ERR_ISA;
    vred_dispatch_select(cap, tail_setting());
    return VRED_OK;
}

vred_isa vred_isa_active(void) { return active_isa; }

vred_isa vred_isa_best(void)
{
    vred_isa best = VRED_ISA_SCALAR;
    for (int i = 0; i < LADDER; i++)
        if (vred_isa_supported(ladder[i])) best = ladder[i];
    return best;
}

__attribute__((constructor)) static void vred_dispatch_init(void)
{
    vred_isa cap = vred_config_get()->isa_cap;
    if (vred_isa_cap(cap) == VRED_ERR_ISA) {
        fprintf(stderr, "vred: VRED_ISA=%s is not an instruction set of this build (", vred_isa_name(cap));
        for (int i = 0; i < LADDER; i++) fprintf(stderr, "%s%s", i ? "|" : "", vred_isa_name(ladder[i]));
        fprintf(stderr, "); using the best\n");
        vred_isa_cap(VRED_ISA_COUNT);
    }
}
