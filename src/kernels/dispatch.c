/*
 * Start-up dispatch: one flat table per process, filled before main() from the scalar kernels
 * and then from each better ISA the CPU supports, up to the VRED_ISA cap; then every registered
 * per-ISA choice (dispatch.h) made for the same cap. Kernels never check CPU flags themselves.
 */
#include <stdio.h>
#include <string.h>
#include "kernels/kernel.h"
#include "kernels/dispatch.h"
#include "config.h"

vred_kernel_table vred_active;
__thread int vred_kernels_far_now __attribute__((tls_model("initial-exec")));
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

/*
 * The ISAs of this build, worst to best (the order is the priority), each with its validity
 * check (cpu.c; NULL: always) and the filler of its kernels. Adding an ISA is one row here (and
 * its file, its check in cpu.c).
 */
typedef struct {
    vred_isa isa;
    int (*valid)(void);
    vred_fill_fn fill;
} isa_row;

static const isa_row isas[] = {
    {VRED_ISA_SCALAR, NULL, vred_fill_scalar},
#ifdef VRED_HAVE_SSE41
    {VRED_ISA_SSE41, vred_cpu_runs_sse41, vred_fill_sse41},
#endif
#ifdef VRED_HAVE_AVX2
    {VRED_ISA_AVX2, vred_cpu_runs_avx2, vred_fill_avx2},
#endif
#ifdef VRED_HAVE_AVX512
    {VRED_ISA_AVX512, vred_cpu_runs_avx512, vred_fill_avx512},
#endif
#ifdef VRED_HAVE_NEON
    {VRED_ISA_NEON, vred_cpu_runs_neon, vred_fill_neon},
#endif
#ifdef VRED_HAVE_SVE
    {VRED_ISA_SVE, vred_cpu_runs_sve, vred_fill_sve},
#endif
};
enum { LADDER = sizeof isas / sizeof isas[0] };

/* vred_isa_ladder's view of the list: the ISAs alone, made by the first call (the load-time
 * constructor below makes one, before any other thread exists). */
static vred_isa ladder[LADDER];
static int ladder_made;

size_t vred_isa_ladder(const vred_isa **list)
{
    if (!ladder_made) {
        for (int i = 0; i < LADDER; i++) ladder[i] = isas[i].isa;
        ladder_made = 1;
    }
    *list = ladder;
    return LADDER;
}

/* The priority of an ISA: its place on the ladder; -1 if not in this build. */
static int rung(vred_isa isa)
{
    for (int i = 0; i < LADDER; i++)
        if (isas[i].isa == isa) return i;
    return -1;
}

int vred_isa_supported(vred_isa isa)
{
    int r = rung(isa);
    return r >= 0 && (!isas[r].valid || isas[r].valid());
}

/* vred_table_build, noting in isa_of (if not NULL) which ISA's filler wrote each kernel slot
 * last: a filler sets only the pairs its ISA accelerates. */
static vred_isa table_build_traced(vred_kernel_table *t, vred_isa cap, int masked_tail,
                                   vred_isa isa_of[VRED_OP_COUNT][VRED_TYPE_COUNT])
{
    memset(t, 0, sizeof *t);
    if (isa_of)
        for (int op = 0; op < VRED_OP_COUNT; op++)
            for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) isa_of[op][ty] = VRED_ISA_SCALAR;
    int top = rung(cap);
    if (top < 0) top = LADDER - 1;
    vred_isa got = VRED_ISA_SCALAR;
    for (int i = 0; i <= top; i++) {
        if (!vred_isa_supported(isas[i].isa)) continue;
        int masked = masked_tail;
        if (masked < 0)
            masked = isas[i].isa == VRED_ISA_SVE ? VRED_SVE_MASKED_TAIL_DEFAULT
                                                 : VRED_AVX512_MASKED_TAIL_DEFAULT;
        vred_binary_fn before[VRED_OP_COUNT][VRED_TYPE_COUNT];
        if (isa_of) memcpy(before, t->bin, sizeof before);
        isas[i].fill(t, masked);
        got = isas[i].isa;
        if (isa_of)
            for (int op = 0; op < VRED_OP_COUNT; op++)
                for (int ty = 0; ty < VRED_TYPE_COUNT; ty++)
                    if (t->bin[op][ty] != before[op][ty]) isa_of[op][ty] = got;
    }
    return got;
}

vred_isa vred_table_build(vred_kernel_table *t, vred_isa cap, int masked_tail)
{
    return table_build_traced(t, cap, masked_tail, NULL);
}

void vred_entries_build(vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT], const vred_kernel_table *t)
{
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            vred_entry *x = &e[op][ty];
            x->fn = NULL;
            x->scale = 0;
            x->isa = VRED_ISA_SCALAR;
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
            __atomic_store_n(&vred_entries[op][ty].isa, e[op][ty].isa, __ATOMIC_RELAXED);
        }
}

/* The registered choices (vred_isa_choice_register), chosen again on every selection. */
static vred_isa_choice *choices;

static void choose(vred_isa_choice *c)
{
    const void *best = NULL;
    int best_rung = -1, top = rung(active_isa);
    for (size_t i = 0; i < c->n; i++) {
        const vred_isa_impl *m = &c->list[i];
        int r = rung(m->isa);
        if (r < 0 || r > top || r < best_rung || !vred_isa_supported(m->isa)) continue;
        if (m->valid && !m->valid()) continue;
        best = m->impl, best_rung = r;
    }
    __atomic_store_n(&c->chosen, best, __ATOMIC_RELAXED);
}

void vred_isa_choice_register(vred_isa_choice *c)
{
    c->next = choices;
    choices = c;
    choose(c);
}

vred_isa vred_dispatch_select(vred_isa cap, int masked_tail)
{
    static vred_kernel_table t;
    static vred_entry e[VRED_OP_COUNT][VRED_TYPE_COUNT];
    static vred_isa isa_of[VRED_OP_COUNT][VRED_TYPE_COUNT];
    vred_isa got = table_build_traced(&t, cap, masked_tail, isa_of);
    vred_entries_build(e, &t);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++)
            if (e[op][ty].fn) {
                vred_canon c = vred_canonical((vred_op)op, (vred_type)ty);
                e[op][ty].isa = isa_of[c.op][c.type];
            }
    publish(&t, e);
    active_isa = got;
    for (vred_isa_choice *c = choices; c; c = c->next) choose(c);
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
        if (vred_isa_supported(isas[i].isa)) best = isas[i].isa;
    return best;
}

__attribute__((constructor)) static void vred_dispatch_init(void)
{
    const vred_isa *list;
    vred_isa_ladder(&list);
    vred_isa cap = vred_config_get()->isa_cap;
    if (vred_isa_cap(cap) == VRED_ERR_ISA) {
        fprintf(stderr, "vred: VRED_ISA=%s is not an instruction set of this build (", vred_isa_name(cap));
        for (int i = 0; i < LADDER; i++) fprintf(stderr, "%s%s", i ? "|" : "", vred_isa_name(isas[i].isa));
        fprintf(stderr, "); using the best\n");
        vred_isa_cap(VRED_ISA_COUNT);
    }
}
