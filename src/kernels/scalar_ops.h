/*
 * Element-wise operators of the reference semantics, shared by scalar.c and by every ISA's
 * scalar tail. x is MPI's `in` operand, y the `inout` operand. Keep these the only definition of
 * the rules; docs/semantics.md explains them.
 */
#ifndef VRED_SCALAR_OPS_H
#define VRED_SCALAR_OPS_H

#include <stdint.h>

/* MAX/MIN: the MPI libraries' scalar rule; on NaN or a +0/-0 tie the result is x (`in`). */
#define VRED_MAX(x, y) ((y) > (x) ? (y) : (x))
#define VRED_MIN(x, y) ((y) < (x) ? (y) : (x))

/* Integer SUM/PROD in unsigned arithmetic: wraps, never undefined. The 32-bit widening keeps
 * uint16 products out of signed int promotion. */
#define VRED_USUM(T, x, y) ((T)((uint64_t)(x) + (uint64_t)(y)))
#define VRED_UPROD(T, x, y) ((T)((uint64_t)(x) * (uint64_t)(y)))

#define VRED_LAND(x, y) ((x) != 0 && (y) != 0)
#define VRED_LOR(x, y) ((x) != 0 || (y) != 0)
#define VRED_LXOR(x, y) (((x) != 0) != ((y) != 0))

/*
 * Duff's device: run a statement n times, eight per loop trip, entering the unrolled body at n % 8.
 * The statement (the variadic part, so that it may contain commas) advances its own index.
 */
#define VRED_DUFF8(n, ...)                                                                         \
    do {                                                                                           \
        size_t duff_n_ = (n);                                                                      \
        if (duff_n_ == 0) break;                                                                   \
        size_t duff_trips_ = (duff_n_ + 7) / 8;                                                    \
        switch (duff_n_ % 8) {                                                                     \
        case 0: do { __VA_ARGS__; __attribute__((fallthrough));                                    \
        case 7: __VA_ARGS__; __attribute__((fallthrough));                                         \
        case 6: __VA_ARGS__; __attribute__((fallthrough));                                         \
        case 5: __VA_ARGS__; __attribute__((fallthrough));                                         \
        case 4: __VA_ARGS__; __attribute__((fallthrough));                                         \
        case 3: __VA_ARGS__; __attribute__((fallthrough));                                         \
        case 2: __VA_ARGS__; __attribute__((fallthrough));                                         \
        case 1: __VA_ARGS__;                                                                       \
                } while (--duff_trips_ > 0);                                                       \
        }                                                                                          \
    } while (0)

#endif
