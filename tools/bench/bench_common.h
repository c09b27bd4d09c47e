/* Small helpers both benchmarks use. */
#ifndef VRED_BENCH_COMMON_H
#define VRED_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
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

#endif
