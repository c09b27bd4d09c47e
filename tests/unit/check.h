/* The unit tests' one assertion: counts passes in `passed`, prints the first 30 failures and
 * counts them in `failed` (both declared by the test, atomic where threads check). */
#ifndef VRED_TEST_CHECK_H
#define VRED_TEST_CHECK_H

#include <stdio.h>

#define CHECK(c, ...)                                                                         \
    do {                                                                                      \
        if (c) passed++;                                                                      \
        else if (failed++ < 30) {                                                             \
            printf("FAIL %s:%d ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                              \
            printf("\n");                                                                     \
        }                                                                                     \
    } while (0)

#endif
