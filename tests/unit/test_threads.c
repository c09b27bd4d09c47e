/*
 * The thread pool (src/local/threads.c): a split reduction equals one call of the kernel, byte for
 * byte, for every valid (op, type) (every element size: 1 .. 32 bytes, bf16/f16, the pair types),
 * lengths 0 .. ~1 MiB including odd ones, operands at byte offsets 0 .. 3 (misaligned), 1 .. 4
 * threads, in place (out == a, out == b); synthetic 3-, 12- and 24-byte element types check that
 * parts start on whole elements and on 64-byte boundaries of out where one exists; several threads
 * call at once; a forked child starts without the pool and makes its own; the pool is created only
 * by a call that splits.
 *
 * VRED_TEST_SEED changes the data; VRED_TEST_QUICK=1 thins the sweep (emulators, TSan).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <float.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch.h"
#include "kernel.h"
#include "local/threads.h"
#include "vred.h"

static _Atomic long passed, failed;
static int quick;

#include "check.h"

static uint64_t rnd_r(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *xmalloc(size_t b)
{
    void *p = malloc(b ? b : 1);
    if (!p) {
        perror("malloc");
        exit(2);
    }
    return p;
}

static void fill(unsigned char *p, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(rnd_r(s) >> 24);
}

/* Element layouts: the value fields of each type, so that padding bytes (indeterminate in every
 * kernel's output: a struct assembled on the stack) are not compared, no operand holds an invalid
 * _Bool, and no element is NaN in both operands (which NaN payload an x86 instruction keeps depends
 * on the operand order, and the kernels' main loops and tails do not all use the same one: an
 * element's payload would then depend on its position, split or not). */
enum { F_INT, F_F32, F_F64, F_LDBL, F_HALF, F_BOOL };
typedef struct {
    unsigned char kind, off, size;
} field;
typedef struct {
    field f[2];
    int n;
} layout;

static layout layout_of(vred_type t)
{
    layout L = {{{0}}, 1};
#define F1(k, s) L.f[0] = (field){k, 0, s}
#define F2(k0, s0, k1, o1, s1) L.f[0] = (field){k0, 0, s0}, L.f[1] = (field){k1, o1, s1}, L.n = 2
    switch (t) {
    case VRED_FLOAT: F1(F_F32, 4); break;
    case VRED_DOUBLE: F1(F_F64, 8); break;
    case VRED_LONG_DOUBLE: F1(F_LDBL, sizeof(long double)); break;
    case VRED_C_FLOAT_COMPLEX: case VRED_2FLOAT: F2(F_F32, 4, F_F32, 4, 4); break;
    case VRED_C_DOUBLE_COMPLEX: case VRED_2DOUBLE: F2(F_F64, 8, F_F64, 8, 8); break;
    case VRED_C_LONG_DOUBLE_COMPLEX:
        F2(F_LDBL, sizeof(long double), F_LDBL, offsetof(vred_cldbl, im), sizeof(long double));
        break;
    case VRED_BOOL: F1(F_BOOL, 1); break;
    case VRED_BFLOAT16: case VRED_FLOAT16: F1(F_HALF, 2); break;
    case VRED_FLOAT_INT: F2(F_F32, 4, F_INT, offsetof(vred_float_int, i), 4); break;
    case VRED_DOUBLE_INT: F2(F_F64, 8, F_INT, offsetof(vred_double_int, i), 4); break;
    case VRED_LONG_INT: F2(F_INT, 8, F_INT, offsetof(vred_long_int, i), 4); break;
    case VRED_2INT: F2(F_INT, 4, F_INT, 4, 4); break;
    case VRED_SHORT_INT: F2(F_INT, 2, F_INT, offsetof(vred_short_int, i), 4); break;
    case VRED_LONG_DOUBLE_INT:
        F2(F_LDBL, sizeof(long double), F_INT, offsetof(vred_ldbl_int, i), 4);
        break;
    default: F1(F_INT, (unsigned char)vred_type_size(t)); break;
    }
#undef F1
#undef F2
    return L;
}

/* Significant bytes of a long double (x87: 10 of 16) and where its exponent's top bit is. */
static size_t ldbl_bytes(void) { return LDBL_MANT_DIG == 64 ? 10 : sizeof(long double); }

static void sanitize(vred_type t, unsigned char *p, size_t count, int no_nan)
{
    layout L = layout_of(t);
    size_t es = vred_type_size(t);
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < L.n; k++) {
            unsigned char *q = p + i * es + L.f[k].off;
            switch (L.f[k].kind) {
            case F_BOOL: q[0] &= 1; break;
            /* Clearing the exponent's top bit makes it neither Inf nor NaN (little-endian). */
            case F_F32: if (no_nan) q[3] &= 0xbf; break;
            case F_F64: if (no_nan) q[7] &= 0xbf; break;
            case F_HALF: if (no_nan) q[1] &= 0xbf; break;
            case F_LDBL:
                if (no_nan) q[ldbl_bytes() - 1] &= 0xbf;
                if (LDBL_MANT_DIG == 64) q[7] |= 0x80; /* the explicit integer bit: no unnormals */
                break;
            default: break;
            }
        }
}

/* 1 if the value bytes of count elements are equal. */
static int same(vred_type t, const unsigned char *x, const unsigned char *y, size_t count)
{
    layout L = layout_of(t);
    size_t es = vred_type_size(t);
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < L.n; k++) {
            size_t n = L.f[k].kind == F_LDBL ? ldbl_bytes() : L.f[k].size;
            if (memcmp(x + i * es + L.f[k].off, y + i * es + L.f[k].off, n)) return 0;
        }
    return 1;
}

/* One case: out = a op b by one kernel call (reference) and by the pool with `threads` threads
 * (forced: no threshold), out-of-place and in place on a and on b; offsets in bytes. The bytes
 * around the operands must be untouched. */
static void one_case(const vred_entry *e, vred_type t, size_t count, int threads, size_t oa, size_t ob,
                     size_t oo, uint64_t *seed, const char *name)
{
    size_t es = vred_type_size(t), bytes = count * es;
    unsigned char *A = xmalloc(bytes + 4), *B = xmalloc(bytes + 4), *O = xmalloc(bytes + 4),
                  *R = xmalloc(bytes + 4), *I = xmalloc(bytes + 4);
    unsigned char *a = A + oa, *b = B + ob, *o = O + oo;
    fill(A, bytes + 4, seed);
    fill(B, bytes + 4, seed);
    fill(O, bytes + 4, seed);
    sanitize(t, a, count, 0);
    sanitize(t, b, count, 1);
    memcpy(R, O, bytes + 4);
    if (count) e->fn(a, b, R + oo, count * e->scale);
    vred_par_reduce3_n(e, es, a, b, o, count, threads);
    CHECK(same(t, o, R + oo, count) && !memcmp(O, R, oo) &&
              !memcmp(O + oo + bytes, R + oo + bytes, 4 - oo),
          "%s count %zu threads %d offsets %zu/%zu/%zu: out differs", name, count, threads, oa, ob, oo);
    /* out == a */
    memcpy(I, A, bytes + 4);
    if (count) e->fn(a, b, a, count * e->scale);
    vred_par_reduce3_n(e, es, I + oa, b, I + oa, count, threads);
    CHECK(same(t, I + oa, a, count), "%s count %zu threads %d: out == a differs", name, count, threads);
    /* out == b */
    memcpy(I, B, bytes + 4);
    if (count) e->fn(a, b, b, count * e->scale);
    vred_par_reduce3_n(e, es, a, I + ob, I + ob, count, threads);
    CHECK(same(t, I + ob, b, count), "%s count %zu threads %d: out == b differs", name, count, threads);
    free(A), free(B), free(O), free(R), free(I);
}

static void all_types(uint64_t seed)
{
    static const size_t counts[] = {0, 1, 2, 3, 7, 63, 64, 65, 127, 1000, 4097, 33333, 100003};
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            if (!vred_op_valid((vred_op)op, (vred_type)ty)) continue;
            const vred_entry *e = &vred_entries[op][ty];
            char name[64];
            snprintf(name, sizeof name, "%s:%s", vred_type_name((vred_type)ty), vred_op_name((vred_op)op));
            CHECK(e->fn != NULL, "%s: no kernel", name);
            if (!e->fn) continue;
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                if (quick && c % 3 != 1) continue;
                int t = 1 + (int)((c + (size_t)op + (size_t)ty) % 4);
                size_t off = (c + (size_t)ty) % 4;
                one_case(e, (vred_type)ty, counts[c], t, off, (off + 1) % 4, (off + 3) % 4, &seed, name);
            }
        }
    /* Large: every thread count, aligned and not, on a few element sizes. */
    static const struct { vred_op op; vred_type ty; } big[] = {
        {VRED_OP_SUM, VRED_FLOAT}, {VRED_OP_SUM, VRED_UINT8}, {VRED_OP_MAX, VRED_DOUBLE},
        {VRED_OP_SUM, VRED_BFLOAT16}, {VRED_OP_MINLOC, VRED_DOUBLE_INT},
        {VRED_OP_MAXLOC, VRED_FLOAT_INT}, {VRED_OP_SUM, VRED_C_DOUBLE_COMPLEX},
        {VRED_OP_PROD, VRED_LONG_DOUBLE}, {VRED_OP_BXOR, VRED_INT64}};
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
        const vred_entry *e = &vred_entries[big[k].op][big[k].ty];
        size_t es = vred_type_size(big[k].ty);
        char name[64];
        snprintf(name, sizeof name, "%s:%s", vred_type_name(big[k].ty), vred_op_name(big[k].op));
        size_t count = ((size_t)(quick ? 300 : 1100) << 10) / es + 13;
        for (int t = 1; t <= 4; t++) one_case(e, big[k].ty, count, t, (size_t)t % 4, 0, (size_t)(t + 1) % 4, &seed, name);
    }
}

/* Synthetic element types: bytes of an element depend on their position in it (so a part that
 * starts inside an element gives other bytes), and every call records where out started. */
static size_t syn_es;
static unsigned char *syn_base;
static _Atomic int syn_bad_start, syn_unaligned, syn_calls;
static void syn_fn(const void *a, const void *b, void *out, size_t n)
{
    const unsigned char *x = a, *y = b;
    unsigned char *o = out;
    size_t off = (size_t)(o - syn_base);
    if (off % syn_es) syn_bad_start++;
    /* Where an element of out starts on a 64-byte boundary, every part but the first must too. */
    if (off && (uintptr_t)o % 64) {
        for (size_t i = 0; i < 64; i++)
            if ((uintptr_t)(syn_base + i * syn_es) % 64 == 0) {
                syn_unaligned++;
                break;
            }
    }
    syn_calls++;
    for (size_t i = 0; i < n * syn_es; i++) o[i] = (unsigned char)(x[i] + y[i] * (i % syn_es + 1));
}

static void synthetic(uint64_t seed)
{
    static const size_t sizes[] = {3, 12, 24};
    vred_entry e = {syn_fn, 1, VRED_ISA_SCALAR};
    for (size_t s = 0; s < 3; s++)
        for (size_t off = 0; off < 4; off++)
            for (int t = 2; t <= 4; t++) {
                syn_es = sizes[s];
                size_t count = 50000 + off * 7 + (size_t)t;
                size_t bytes = count * syn_es;
                unsigned char *a = xmalloc(bytes), *b = xmalloc(bytes), *O = xmalloc(bytes + 64),
                              *r = xmalloc(bytes);
                fill(a, bytes, &seed);
                fill(b, bytes, &seed);
                syn_base = r;
                syn_fn(a, b, r, count);
                syn_base = O + off;
                syn_bad_start = syn_unaligned = syn_calls = 0;
                vred_par_reduce3_n(&e, syn_es, a, b, O + off, count, t);
                CHECK(!memcmp(O + off, r, bytes), "synthetic es %zu off %zu threads %d differs", syn_es,
                      off, t);
                CHECK(syn_bad_start == 0, "synthetic es %zu: a part starts inside an element", syn_es);
                CHECK(syn_unaligned == 0, "synthetic es %zu off %zu: a part not on 64 bytes of out",
                      syn_es, off);
                CHECK(syn_calls >= 2, "synthetic es %zu threads %d: not split (%d calls)", syn_es, t,
                      syn_calls);
                free(a), free(b), free(O), free(r);
            }
}

/* Several callers at once: each one's results are right whether it got the pool or not. */
typedef struct {
    int id;
    uint64_t seed;
} caller_arg;

static void *caller(void *arg)
{
    caller_arg *c = arg;
    const vred_entry *e = &vred_entries[VRED_OP_SUM][c->id % 2 ? VRED_UINT8 : VRED_FLOAT];
    size_t es = c->id % 2 ? 1 : 4;
    int rounds = quick ? 20 : 200;
    for (int r = 0; r < rounds; r++) {
        size_t count = 1000 + rnd_r(&c->seed) % 60000;
        unsigned char *a = xmalloc(count * es), *b = xmalloc(count * es), *o = xmalloc(count * es),
                      *ref = xmalloc(count * es);
        fill(a, count * es, &c->seed);
        fill(b, count * es, &c->seed);
        if (es == 4) /* finite floats */
            for (size_t i = 0; i < count; i++) ((float *)(void *)a)[i] = (float)(i % 77), ((float *)(void *)b)[i] = 0.5f;
        e->fn(a, b, ref, count * e->scale);
        if (r % 2) vred_par_reduce3(e, es, a, b, o, count);
        else vred_par_reduce3_n(e, es, a, b, o, count, 2 + r % 3);
        CHECK(!memcmp(o, ref, count * es), "caller %d round %d differs", c->id, r);
        free(a), free(b), free(o), free(ref);
    }
    return NULL;
}

static void concurrent(uint64_t seed)
{
    enum { N = 4 };
    pthread_t th[N];
    caller_arg args[N];
    for (int i = 0; i < N; i++) {
        args[i] = (caller_arg){i, seed + (uint64_t)i * 7919};
        pthread_create(&th[i], NULL, caller, &args[i]);
    }
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
}

/* fork() with a pool: the child starts without one and makes its own; the parent keeps its. */
static void forked(uint64_t seed)
{
    const vred_entry *e = &vred_entries[VRED_OP_SUM][VRED_FLOAT];
    CHECK(vred_threads_pool_size() >= 2, "no pool before fork");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int bad = vred_threads_pool_size() != 1;
        long before = failed;
        one_case(e, VRED_FLOAT, 200000, 3, 0, 0, 0, &seed, "child");
        bad |= failed != before;
        bad |= vred_threads_pool_size() != 3;
        fflush(stdout);
        _exit(bad ? 1 : 0);
    }
    CHECK(pid > 0, "fork failed");
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    CHECK(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child after fork failed (status %d)", st);
    one_case(e, VRED_FLOAT, 200000, 2, 0, 0, 0, &seed, "parent after fork");
}

static void api(void)
{
    vred_threads_set_override(3);
    CHECK(vred_threads_count() == 3, "override: %d", vred_threads_count());
    size_t m = vred_threads_min_bytes();
    CHECK(m > 0, "threshold 0");
    CHECK(vred_threads_for(m - 1) == 1, "below the threshold: %d", vred_threads_for(m - 1));
    CHECK(vred_threads_for(m) == 2, "at the threshold: %d", vred_threads_for(m));
    CHECK(vred_threads_for(m / 2 * 3) == 3, "1.5 x the threshold: %d", vred_threads_for(m / 2 * 3));
    CHECK(vred_threads_for(m * 100) == 3, "large: %d", vred_threads_for(m * 100));
    vred_threads_set_override(0);
    if (!getenv("VRED_THREADS")) {
        vred_threads_set_auto(5);
        CHECK(vred_threads_count() == 5, "auto: %d", vred_threads_count());
        vred_threads_set_auto(0);
        CHECK(vred_threads_count() >= 1, "affinity default: %d", vred_threads_count());
    }
    vred_threads_set_min_bytes(123);
    CHECK(vred_threads_min_bytes() == 123, "set threshold");
    vred_threads_set_min_bytes((size_t)-1);
    CHECK(vred_threads_min_bytes() == m, "restore threshold");
}

int main(void)
{
    uint64_t seed = getenv("VRED_TEST_SEED") ? strtoull(getenv("VRED_TEST_SEED"), NULL, 0) : 0x9e3779b97f4a7c15ull;
    if (!seed) seed = 1;
    quick = getenv("VRED_TEST_QUICK") && atoi(getenv("VRED_TEST_QUICK"));

    /* Lazily: nothing at load, nothing for calls that do not split. */
    CHECK(vred_threads_pool_size() == 1, "a pool exists at start");
    const vred_entry *e = &vred_entries[VRED_OP_SUM][VRED_FLOAT];
    one_case(e, VRED_FLOAT, 100000, 1, 0, 0, 0, &seed, "one thread");
    vred_threads_set_override(1);
    {
        float a[4096] = {0}, b[4096] = {0}, o[4096];
        vred_threads_set_min_bytes(0);
        vred_par_reduce3(e, 4, a, b, o, 4096);
        vred_threads_set_min_bytes((size_t)-1);
    }
    vred_threads_set_override(0);
    CHECK(vred_threads_pool_size() == 1, "a pool exists after one-thread calls");

    api();
    all_types(seed);
    CHECK(vred_threads_pool_size() == 4, "pool of %d after 4-thread calls", vred_threads_pool_size());
    synthetic(seed);
    /* The threshold path with everything split. */
    vred_threads_set_override(4);
    vred_threads_set_min_bytes(0);
    concurrent(seed);
    vred_threads_set_min_bytes((size_t)-1);
    vred_threads_set_override(0);
    forked(seed);

    printf("test_threads: %ld checks, %ld failed\n", (long)passed, (long)failed);
    return failed ? 1 : 0;
}
