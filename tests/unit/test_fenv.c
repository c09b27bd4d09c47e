/*
 * vred keeps the caller's floating-point environment, as the MPI's own scalar loops do:
 *  - a MINLOC/MAXLOC of {float, int} or {double, int} raises no FE_INVALID where the values are
 *    ordinary numbers, whatever the index and padding bits hold (-1 reads as a NaN when
 *    compared as a float: the SSE4.1 and AVX2 kernels compared those lanes, and a program that
 *    traps FE_INVALID died on SIGFPE), under every ISA this CPU runs, masked and cascaded tails;
 *    nor one of 2REAL or 2DOUBLE_PRECISION whose NaN indices belong to pairs whose values do
 *    not tie (the MPIs compare indices only on a tie; MINPS and FCMGT signal on any NaN);
 *  - an integer reduction leaves no flag behind (the first misaligned call measured the
 *    realignment bound by summing floats in the caller's thread: FE_INEXACT);
 *  - a reduction split over threads rounds in the caller's rounding mode on every part (the
 *    workers ran in their own, round-to-nearest: half of an upward-rounded sum came out down).
 * Each fails on the code before the fixes.
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "kernel.h"
#include "local/threads.h"
#include "vred.h"

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        failures++;
        printf("FAIL %s\n", what);
    }
}

typedef struct { float v; int i; } float_int;
typedef struct { double v; int i; int pad; } double_int;

static vred_entry entries[VRED_OP_COUNT][VRED_TYPE_COUNT];

static void loc_flags(vred_isa isa, int masked)
{
    vred_kernel_table t;
    vred_isa got = vred_table_build(&t, isa, masked);
    if (got != isa) return; /* not on this CPU */
    vred_entries_build(entries, &t);
    enum { N = 37 }; /* a main loop and a tail on every vector width */
    float_int fa[N], fb[N];
    double_int da[N], db[N];
    for (int k = 0; k < N; k++) {
        fa[k] = (float_int){1.0f + (float)k, -1};
        fb[k] = (float_int){2.0f, 3};
        da[k] = (double_int){1.0 + k, -1, -1};
        db[k] = (double_int){2.0, 3, -1};
    }
    /* Fortran 2REAL / 2DOUBLE_PRECISION: NaN indices, values that never tie. The scalar and the
     * MPIs compare indices only where the values tie, so no flag. */
    vred_2float ra[N], rb[N];
    vred_2double qa[N], qb[N];
    for (int k = 0; k < N; k++) {
        ra[k] = (vred_2float){10.0f + (float)k, NAN}, rb[k] = (vred_2float){2.0f, 3.0f};
        qa[k] = (vred_2double){10.0 + k, 3.0}, qb[k] = (vred_2double){2.0, NAN};
    }
    for (int op = VRED_OP_MINLOC; op <= VRED_OP_MAXLOC; op++) {
        char what[96];
        const vred_entry *er = &entries[op][VRED_2FLOAT], *eq = &entries[op][VRED_2DOUBLE];
        feclearexcept(FE_ALL_EXCEPT);
        er->fn(ra, rb, rb, (size_t)N * er->scale);
        eq->fn(qa, qb, qb, (size_t)N * eq->scale);
        snprintf(what, sizeof what, "%s 2REAL/2DOUBLE (NaN index, no tie), isa %d (%s tail): FE_INVALID raised",
                 op == VRED_OP_MINLOC ? "minloc" : "maxloc", (int)isa, masked ? "masked" : "cascade");
        check(!fetestexcept(FE_INVALID), what);
        for (int k = 0; k < N; k++) { /* as they were: the next op reads the same inputs */
            rb[k] = (vred_2float){2.0f, 3.0f};
            qb[k] = (vred_2double){2.0, NAN};
        }
    }
    for (int op = VRED_OP_MINLOC; op <= VRED_OP_MAXLOC; op++) {
        char what[96];
        const vred_entry *ef = &entries[op][VRED_FLOAT_INT], *ed = &entries[op][VRED_DOUBLE_INT];
        feclearexcept(FE_ALL_EXCEPT);
        ef->fn(fa, fb, fb, (size_t)N * ef->scale);
        snprintf(what, sizeof what, "%s float_int, isa %d (%s tail): FE_INVALID raised",
                 op == VRED_OP_MINLOC ? "minloc" : "maxloc", (int)isa, masked ? "masked" : "cascade");
        check(!fetestexcept(FE_INVALID), what);
        feclearexcept(FE_ALL_EXCEPT);
        ed->fn(da, db, db, (size_t)N * ed->scale);
        snprintf(what, sizeof what, "%s double_int, isa %d (%s tail): FE_INVALID raised",
                 op == VRED_OP_MINLOC ? "minloc" : "maxloc", (int)isa, masked ? "masked" : "cascade");
        check(!fetestexcept(FE_INVALID), what);
    }
}

static void integer_flags(void)
{
    enum { N = 4096 };
    char *a = aligned_alloc(64, N * 4 + 64), *b = aligned_alloc(64, N * 4 + 64);
    memset(a, 1, N * 4 + 64), memset(b, 2, N * 4 + 64);
    feclearexcept(FE_ALL_EXCEPT);
    vred_reduce(VRED_OP_SUM, VRED_INT32, a + 16, b, N); /* misaligned: the realignment's bound */
    check(!fetestexcept(FE_ALL_EXCEPT), "integer sum (first misaligned call): a flag raised");
    free(a), free(b);
}

static void split_rounding(void)
{
    enum { N = 1 << 22 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *o = malloc(N * sizeof *o);
    for (size_t k = 0; k < N; k++) a[k] = 1.0f, b[k] = 1e-8f;
    const vred_entry *e = &vred_entries[VRED_OP_SUM][VRED_FLOAT];
    /* The pool made first, in round-to-nearest: a thread starts in its creator's environment. */
    vred_par_reduce3_n(e, sizeof(float), a, b, o, N, 2);
    int r0 = fegetround();
    fesetround(FE_UPWARD);
    size_t down = 0;
    for (int call = 0; call < 3; call++) { /* the worker running from the second call at least */
        memset(o, 0, N * sizeof *o);
        vred_par_reduce3_n(e, sizeof(float), a, b, o, N, 2);
        for (size_t k = 0; k < N; k++) down += o[k] != nextafterf(1.0f, 2.0f);
    }
    fesetround(r0);
    if (down) printf("split sum under FE_UPWARD: %zu of 3 x %d elements not rounded up\n", down, N);
    check(down == 0, "split sum: the workers' parts ignored the caller's rounding mode");
    free(a), free(b), free(o);
}

int main(void)
{
    integer_flags(); /* first: before any other call has measured the realignment's bound */
    split_rounding();
    const vred_isa *isas;
    size_t n = vred_isa_ladder(&isas);
    for (size_t k = 0; k < n; k++)
        for (int masked = 0; masked < 2; masked++) loc_flags(isas[k], masked);
    printf("fenv: %d failures\n", failures);
    return failures != 0;
}
