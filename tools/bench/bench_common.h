/* Small helpers both benchmarks use. */
#ifndef VRED_BENCH_COMMON_H
#define VRED_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "vred.h"

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v. */
static double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* "64K", "16M", "1G", "4096" -> bytes; 0 if not a size. */
static size_t bench_parse_bytes(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    switch (*end) {
    case 'k': case 'K': v *= 1024; break;
    case 'm': case 'M': v *= 1024 * 1024; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return v > 0 ? (size_t)v : 0;
}

/* "f32:sum" or "sum:f32" -> (op, type); 0 unless both are known and the pair is valid. */
static int bench_parse_case(const char *s, vred_op *op, vred_type *ty)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    if (!colon) return 0;
    *colon = 0;
    const char *first = buf, *second = colon + 1;
    *op = vred_op_from_name(first);
    *ty = vred_type_from_name(second);
    if (*op == VRED_OP_COUNT || *ty == VRED_TYPE_COUNT) {
        *op = vred_op_from_name(second);
        *ty = vred_type_from_name(first);
    }
    return *op != VRED_OP_COUNT && *ty != VRED_TYPE_COUNT && vred_op_valid(*op, *ty);
}

/* ---- how the benchmarks call: the measuring mode ----------------------------------------------
 * The default is the way applications call (docs: DESIGN "Measuring"): calls back to back, a
 * barrier per timed batch and none per call (as IMB and OSU do), on buffers from plain malloc
 * (glibc returns 16 mod 64 for large blocks). The other modes, each labelled in every table header
 * and CSV row:
 *   --sync barrier     a barrier before every timed call (collectives only)
 *   --align A          buffers aligned to A bytes (a power of two, 8..4096; e.g. 64)
 *   --offset N         send and receive buffers N bytes past a 4096-aligned address
 *   --offset S/R       the send buffer S bytes past one, the receive buffer R bytes
 */
typedef struct {
    int barrier_each; /* 1: --sync barrier */
    int align;        /* 0: malloc; > 0: aligned_alloc(align) */
    int offset;       /* 1: --offset; soff/roff below */
    long soff, roff;  /* bytes past a 4096-aligned address (--offset) */
} bench_mode;

/* Parses one of --sync, --align, --offset with its value v. 1: taken; 0: not a mode option;
 * -1: a mode option with a bad or missing value (reported on stderr if loud). */
static int bench_mode_arg(bench_mode *m, const char *a, const char *v, int loud)
{
    if (strcmp(a, "--sync") && strcmp(a, "--align") && strcmp(a, "--offset")) return 0;
    if (!v) {
        if (loud) fprintf(stderr, "vred-bench: %s needs a value\n", a);
        return -1;
    }
    char *end;
    if (!strcmp(a, "--sync")) {
        if (!strcmp(v, "barrier") || !strcmp(v, "call")) m->barrier_each = 1;
        else if (!strcmp(v, "none") || !strcmp(v, "back-to-back") || !strcmp(v, "b2b") || !strcmp(v, "batch"))
            m->barrier_each = 0;
        else {
            if (loud) fprintf(stderr, "vred-bench: --sync %s: use back-to-back (the default) or barrier\n", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--align")) {
        long x = strtol(v, &end, 10);
        if (*end || x < 8 || x > 4096 || (x & (x - 1))) {
            if (loud) fprintf(stderr, "vred-bench: --align %s: a power of two from 8 to 4096\n", v);
            return -1;
        }
        m->align = (int)x, m->offset = 0;
        return 1;
    }
    long s = strtol(v, &end, 10), r = s;
    if (*end == '/') r = strtol(end + 1, &end, 10);
    if (*end || s < 0 || r < 0 || s > 4095 || r > 4095) {
        if (loud) fprintf(stderr, "vred-bench: --offset %s: N or S/R, bytes from 0 to 4095\n", v);
        return -1;
    }
    m->offset = 1, m->align = 0, m->soff = s, m->roff = r;
    return 1;
}

/* "back-to-back" or "barrier": the CSV's sync column. */
static const char *bench_sync_name(const bench_mode *m) { return m->barrier_each ? "barrier" : "back-to-back"; }

/* "malloc", "align64", "offset16" or "offset0/16": the CSV's buffers column. */
static void bench_buffers_name(const bench_mode *m, char *buf, size_t n)
{
    if (m->offset && m->soff == m->roff) snprintf(buf, n, "offset%ld", m->soff);
    else if (m->offset) snprintf(buf, n, "offset%ld/%ld", m->soff, m->roff);
    else if (m->align) snprintf(buf, n, "align%d", m->align);
    else snprintf(buf, n, "malloc");
}

/* One buffer of `bytes` in the mode's placement (recv: the receive/inout side). *base is what to
 * free(); NULL on failure. */
static void *bench_buf_alloc(const bench_mode *m, int recv, size_t bytes, void **base)
{
    if (!bytes) bytes = 1;
    if (m->offset) {
        long off = recv ? m->roff : m->soff;
        size_t total = (bytes + (size_t)off + 4095) / 4096 * 4096;
        *base = aligned_alloc(4096, total);
        return *base ? (char *)*base + off : NULL;
    }
    if (m->align) {
        size_t a = (size_t)m->align;
        *base = aligned_alloc(a, (bytes + a - 1) / a * a);
        return *base;
    }
    *base = malloc(bytes);
    return *base;
}

/* "buffers malloc (send 16 mod 64, recv 16 mod 64)": what the header prints. */
static void bench_buffers_desc(const bench_mode *m, const void *s, const void *r, char *buf, size_t n)
{
    char name[32];
    bench_buffers_name(m, name, sizeof name);
    const char *how = m->offset ? " (N bytes past a 4096-aligned address)"
                      : m->align ? " (aligned_alloc)" : " (plain malloc, as applications allocate)";
    snprintf(buf, n, "buffers %s%s: send %u mod 64, recv %u mod 64", name, how, (unsigned)((uintptr_t)s % 64),
             (unsigned)((uintptr_t)r % 64));
}

/* The CPU (vred_cpu_name: the name, and family and model where the kernel gives them, since a
 * virtual machine's name alone, "AMD EPYC", is the same for a Zen 3 and a Zen 5), then the ISA
 * vred runs here, in the name's parentheses: "AMD EPYC (family 25 model 1; avx2)"; where
 * VRED_ISA caps it below the CPU's best, both: "(...; avx2 by VRED_ISA of avx512)" (a table of
 * an AVX2 run on an AVX-512 machine said "avx512"). Commas replaced (CSV-safe). */
static void bench_cpu_model(char *buf, size_t n)
{
    char name[256], isa[64];
    vred_cpu_name(name, sizeof name);
    size_t len = strlen(name);
    vred_isa active = vred_isa_active(), best = vred_isa_best();
    if (active == best) snprintf(isa, sizeof isa, "%s", vred_isa_name(best));
    else snprintf(isa, sizeof isa, "%s by VRED_ISA of %s", vred_isa_name(active), vred_isa_name(best));
    if (len && name[len - 1] == ')') snprintf(buf, n, "%.*s; %s)", (int)(len - 1), name, isa);
    else snprintf(buf, n, "%s (%s)", name, isa);
    for (char *q = buf; *q; q++)
        if (*q == ',') *q = ';';
}

#endif
