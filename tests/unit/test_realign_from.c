/*
 * The bound from which the AVX2 kernels read a shifted input in aligned lines (kernel.h,
 * src/kernels/avx2_realign_learn.c): what a process learns and how a setting pins it.
 *
 * Under VRED_REALIGN_FROM=N (N > 0) the bound is N, set by the setting, and nothing is measured.
 * Unset: on a CPU with AVX2 it is measured, either "at no size" (SIZE_MAX) or one of the sizes
 * measured (4, 8, ... 128 KiB) from which the lines were faster at every larger size too, with
 * every size's ratio recorded; on others it is the built-in default. Either way the answer does
 * not change when asked again; vred_realign_set_from pins another one, and 0 measures again.
 * The bytes do not depend on the bound: test_kernels runs the AVX2 kernels with lines at every
 * size and at none.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "dispatch.h"
#include "kernel.h"

static int failed;
#define CHECK(c, ...)                                                                           \
    do {                                                                                        \
        if (!(c)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                       \
            printf("\n");                                                                       \
            failed++;                                                                           \
        }                                                                                       \
    } while (0)

/* A bound the measurement can give: no size, or 4..128 KiB by powers of two. */
static int plausible(size_t from)
{
    if (from == SIZE_MAX) return 1;
    for (size_t k = 4; k <= 128; k *= 2)
        if (from == k << 10) return 1;
    return 0;
}

/* The measured bound against its own ratios: lines faster (by the margin) from it on, not at the
 * size just below. */
static void check_measured(size_t from, const double r[6])
{
    for (int s = 0; s < 6; s++) {
        size_t bytes = (size_t)4096 << s;
        CHECK(r[s] > 0, "size %zu KiB not measured", bytes >> 10);
        if (from != SIZE_MAX && bytes >= from)
            CHECK(r[s] > VRED_REALIGN_GAIN, "lines from %zu KiB, but split loads were faster at %zu (%.2f)",
                  from >> 10, bytes >> 10, r[s]);
        if (from != SIZE_MAX && bytes == from / 2)
            CHECK(r[s] <= VRED_REALIGN_GAIN, "lines from %zu KiB, but they also won at %zu (%.2f) and above",
                  from >> 10, bytes >> 10, r[s]);
    }
    if (from == SIZE_MAX) CHECK(r[5] <= VRED_REALIGN_GAIN, "lines at no size, yet faster at 128 KiB (%.2f)", r[5]);
}

int main(void)
{
    long setting = vred_config_get()->realign_from;
    int how = 0;
    double r[6];
    size_t from = vred_realign_from_info(&how, r);
    printf("bound: %zu bytes, how %d, ratios %.2f %.2f %.2f %.2f %.2f %.2f (VRED_REALIGN_FROM=%ld)\n",
           from, how, r[0], r[1], r[2], r[3], r[4], r[5], setting);
    if (setting > 0) {
        CHECK(from == (size_t)setting && how == VRED_REALIGN_SETTING,
              "VRED_REALIGN_FROM=%ld gave %zu (how %d)", setting, from, how);
        CHECK(r[0] == 0, "measured under a setting");
    } else if (vred_isa_supported(VRED_ISA_AVX2)) {
        CHECK(how == VRED_REALIGN_MEASURED && plausible(from), "measured bound %zu (how %d)", from, how);
        check_measured(from, r);
    } else {
        CHECK(from > 0 && from != SIZE_MAX, "no AVX2: bound %zu", from);
    }
    CHECK(vred_realign_from() == from, "another answer when asked again");

    vred_realign_set_from(5000);
    CHECK(vred_realign_from() == 5000 && vred_realign_from_info(&how, NULL) == 5000 &&
              how == VRED_REALIGN_PINNED,
          "pinned 5000, got %zu (how %d)", vred_realign_from(), how);
    vred_realign_set_from(0); /* ask again: measured again (or the setting) */
    size_t again = vred_realign_from_info(&how, r);
    if (setting > 0) CHECK(again == (size_t)setting, "after unpinning: %zu", again);
    else if (vred_isa_supported(VRED_ISA_AVX2)) {
        CHECK(how == VRED_REALIGN_MEASURED && plausible(again), "measured again: %zu (how %d)", again, how);
        check_measured(again, r);
    }
    printf("%s\n", failed ? "FAILED" : "passed");
    return failed != 0;
}
