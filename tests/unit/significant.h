/*
 * Which bytes of an element carry its value, for bit-for-bit comparisons that must ignore padding
 * (the pair types' gap, x87 long double's 6 unused bytes). Shared by the kernel unit test and the
 * kernel fuzzer (tests/fuzz).
 */
#ifndef VRED_TEST_SIGNIFICANT_H
#define VRED_TEST_SIGNIFICANT_H
#include <float.h>
#include <stddef.h>
#include <string.h>
#include "kernel.h"

/* Bytes of an element that carry meaning (padding of pair types and x87 long double excluded). */
static inline void significant(vred_type t, unsigned char *mask)
{
    size_t size = vred_type_size(t);
    memset(mask, 1, size);
#define FIELDS(T)                                                                              \
    do {                                                                                       \
        memset(mask, 0, size);                                                                 \
        memset(mask + offsetof(T, v), 1, sizeof(((T *)0)->v));                                 \
        memset(mask + offsetof(T, i), 1, sizeof(((T *)0)->i));                                 \
    } while (0)
    switch (t) {
    case VRED_DOUBLE_INT: FIELDS(vred_double_int); break;
    case VRED_LONG_INT: FIELDS(vred_long_int); break;
    case VRED_SHORT_INT: FIELDS(vred_short_int); break;
    case VRED_LONG_DOUBLE_INT: FIELDS(vred_ldbl_int); break;
    default: break;
    }
#if LDBL_MANT_DIG == 64
    /* x87 extended: 10 meaningful bytes */
    if (t == VRED_LONG_DOUBLE || t == VRED_LONG_DOUBLE_INT) memset(mask + 10, 0, 6);
    if (t == VRED_C_LONG_DOUBLE_COMPLEX) { memset(mask + 10, 0, 6); memset(mask + 26, 0, 6); }
#endif
}

#endif
