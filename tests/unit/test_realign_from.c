/*
 * The bounds from which the AVX2 and AVX-512 kernels read a shifted input in aligned lines, and
 * from which the AVX-512 pair form takes two vectors a trip (kernel.h,
 * src/kernels/realign_learn.c): what a process learns and how a setting pins them.
 *
 * Under VRED_REALIGN_FROM=N (N > 0) each bound is N, set by the setting, and nothing is
 * measured. Unset: for each ISA the CPU runs, the bound is measured: "every size" (1), "no
 * size" (SIZE_MAX) or one of the sizes measured (8 ... 128 KiB), consistent with the ratios
 * recorded for every size (the lines faster by the margin from the bound on, not at the size
 * below); for an ISA the CPU lacks, the built-in default, nothing measured. Either way the
 * answer does not change when asked again; vred_realign_set_from pins another one, and 0
 * measures again. The bytes do not depend on the bounds: test_kernels runs the AVX2 kernels
 * with lines at every size and at none, the AVX-512 ones with lines and with split loads.
 */
#include <math.h>
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

static size_t size_at(int s) { return (size_t)4096 << s; }

/* The loss of lines from size index `first`, computed here from the ratios: beyond the faster
 * form at each size, relative. */
static double loss(const double r[VRED_REALIGN_SIZES], int first)
{
    double l = 0;
    for (int s = 0; s < VRED_REALIGN_SIZES; s++)
        l += s < first ? (r[s] > 1 ? r[s] - 1 : 0) : (r[s] < 1 ? 1 / r[s] - 1 : 0);
    return l;
}

/* A measured bound against its own ratios: one of the candidates, and none loses less. */
static void check_measured(const char *name, size_t from, const double r[VRED_REALIGN_SIZES])
{
    int first = -1;
    if (from == 1) first = 0;
    if (from == SIZE_MAX) first = VRED_REALIGN_SIZES;
    for (int s = 1; s < VRED_REALIGN_SIZES; s++)
        if (from == size_at(s)) first = s;
    CHECK(first >= 0, "%s: measured bound %zu is none of the candidates", name, from);
    if (first < 0) return;
    for (int s = 0; s < VRED_REALIGN_SIZES; s++)
        CHECK(r[s] > 0, "%s: %zu KiB not measured", name, size_at(s) >> 10);
    double mine = loss(r, first);
    CHECK(fabs(mine - vred_realign_loss(r, first)) < 1e-12, "%s: loss %.4f here, %.4f in the library", name,
          mine, vred_realign_loss(r, first));
    for (int k = 0; k <= VRED_REALIGN_SIZES; k++)
        CHECK(mine <= loss(r, k) + 1e-12, "%s: bound at index %d loses %.3f, index %d only %.3f",
              name, first, mine, k, loss(r, k));
}

static void check_isa(const char *name, vred_isa isa, vred_realign_isa which, long setting)
{
    int how = 0;
    double r[VRED_REALIGN_SIZES];
    size_t from = vred_realign_from_info(which, &how, r);
    printf("%s: bound %zu bytes, how %d, time off / on", name, from, how);
    for (int s = 0; s < VRED_REALIGN_SIZES; s++) printf(" %.2f", r[s]);
    printf("\n");
    if (setting > 0) {
        CHECK(from == (size_t)setting && how == VRED_REALIGN_SETTING,
              "%s: VRED_REALIGN_FROM=%ld gave %zu (how %d)", name, setting, from, how);
        CHECK(r[0] == 0, "%s: measured under a setting", name);
    } else if (vred_isa_supported(isa)) {
        CHECK(how == VRED_REALIGN_MEASURED, "%s: not measured (how %d)", name, how);
        check_measured(name, from, r);
    } else {
        CHECK(how == 0 && from > 0 && r[0] == 0, "%s (not on this CPU): bound %zu, how %d", name, from, how);
    }
    CHECK(vred_realign_from(which) == from, "%s: another answer when asked again", name);

    vred_realign_set_from(which, 5000);
    CHECK(vred_realign_from(which) == 5000 && vred_realign_from_info(which, &how, NULL) == 5000 &&
              how == VRED_REALIGN_PINNED,
          "%s: pinned 5000, got %zu (how %d)", name, vred_realign_from(which), how);
    vred_realign_set_from(which, 0); /* measured again (or the setting) */
    size_t again = vred_realign_from_info(which, &how, r);
    if (setting > 0) CHECK(again == (size_t)setting, "%s: after unpinning %zu", name, again);
    else if (vred_isa_supported(isa)) check_measured(name, again, r);
}

int main(void)
{
    long setting = vred_config_get()->realign_from;
    printf("VRED_REALIGN_FROM=%ld\n", setting);
    check_isa("avx2", VRED_ISA_AVX2, VRED_REALIGN_AVX2, setting);
    check_isa("avx2 16 bytes off", VRED_ISA_AVX2, VRED_REALIGN_AVX2_HALF, setting);
    check_isa("avx512", VRED_ISA_AVX512, VRED_REALIGN_AVX512, setting);
    check_isa("avx512 pair form", VRED_ISA_AVX512, VRED_REALIGN_PAIR, setting);
    check_isa("avx2, the output 4 bytes above", VRED_ISA_AVX2, VRED_REALIGN_AVX2_NEAR, setting);
    check_isa("avx2, the output 16 bytes above", VRED_ISA_AVX2, VRED_REALIGN_AVX2_HALF_NEAR, setting);
    check_isa("avx512, the output 16 bytes above", VRED_ISA_AVX512, VRED_REALIGN_AVX512_NEAR, setting);
    printf("%s\n", failed ? "FAILED" : "passed");
    return failed != 0;
}
