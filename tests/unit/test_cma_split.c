/*
 * The root's share of a reduce by cross-memory attach (coll/shm/cma_split.h): the blocks it
 * makes for every count, rank count, root and share, and the share's walk towards the balance
 * under a model of the ranks' costs.
 */
#include <math.h>
#include <stdio.h>
#include "check.h"
#include "coll/shm/cma_split.h"

static int passed, failed;

/* Blocks cover [0, count) in order; inner boundaries on lines where the element size divides
 * 64; the root holds its share to within a line per rank, the others within a line of each
 * other's. */
static void check_split(size_t count, int p, int root, double share, size_t es)
{
    size_t disp[17], line = 64 % es == 0 ? 64 / es : 1;
    vred_cma_split(count, p, root, share, es, disp);
    int ok = disp[0] == 0 && disp[p] == count;
    size_t lo = (size_t)-1, hi = 0;
    for (int q = 0; q < p; q++) {
        ok = ok && disp[q] <= disp[q + 1];
        if (q + 1 < p) ok = ok && disp[q + 1] % line == 0;
        size_t n = disp[q + 1] - disp[q];
        if (q != root) lo = n < lo ? n : lo, hi = n > hi ? n : hi;
    }
    double mine = (double)(disp[root + 1] - disp[root]), want = share * (double)count;
    double slack = (double)(line * (size_t)p);
    ok = ok && fabs(mine - want) <= slack && (p < 2 || hi - lo <= 2 * line);
    CHECK(ok, "split count=%zu p=%d root=%d share=%.2f es=%zu: root %zu (want %.0f), others "
              "%zu..%zu",
          count, p, root, share, es, disp[root + 1] - disp[root], want, lo, hi);
}

/* The share's walk when the root costs c_root per element and the others c_other plus a fixed
 * cost per call (their write's system call); returns where it settles after `calls` calls, starting from 1/p. */
static double walk(int p, double c_root, double c_other, double fixed, size_t count, int calls)
{
    double share = 1.0 / p;
    size_t disp[17];
    for (int i = 0; i < calls; i++) {
        vred_cma_split(count, p, 0, share, 4, disp);
        size_t n_root = disp[1], n_other = disp[2] - disp[1];
        double t_root = c_root * (double)n_root, t_other = fixed + c_other * (double)n_other;
        double next = vred_cma_share_next(share, p, t_root, n_root, t_other, n_other);
        CHECK(fabs(next - share) <= VRED_CMA_SHARE_STEP + 1e-12, "one call moves at most a step "
              "(%.4f -> %.4f)", share, next);
        share = next;
    }
    return share;
}

int main(void)
{
    static const size_t counts[] = {0, 1, 2, 15, 16, 17, 63, 64, 65, 1000, 4097, 262147, 1 << 24};
    static const double shares[] = {0.02, 0.3, 0.5, 0.565, 0.9, 0.98};
    static const size_t sizes[] = {1, 4, 8, 12};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (int p = 2; p <= 16; p += p < 4 ? 1 : 5)
            for (int root = 0; root < p; root++)
                for (size_t s = 0; s < sizeof shares / sizeof *shares; s++)
                    for (size_t e = 0; e < sizeof sizes / sizeof *sizes; e++)
                        check_split(counts[c], p, root, shares[s], sizes[e]);

    /* Balanced times: the share stays. */
    CHECK(fabs(vred_cma_share_next(0.5, 2, 1e-4, 1000, 1e-4, 1000) - 0.5) < 1e-12,
          "equal costs: the share stays");
    /* The root faster per element: it takes more, by a quarter of the way (2 ranks, c_other
     * twice c_root: the balance is 2/3), at most a step. */
    double up = vred_cma_share_next(0.5, 2, 1e-4, 1000, 2e-4, 1000);
    CHECK(up > 0.5 && up <= 0.5 + VRED_CMA_SHARE_STEP + 1e-12, "root cheaper: up (%.4f)", up);
    double near = vred_cma_share_next(0.66, 2, 1e-4, 1000, 2e-4, 1000);
    CHECK(fabs(near - (0.66 + (2.0 / 3 - 0.66) / 4)) < 1e-9, "a quarter of the way (%.5f)", near);
    double down = vred_cma_share_next(0.5, 3, 3e-4, 1000, 1e-4, 1000);
    CHECK(down < 0.5, "root dearer: down (%.4f)", down);
    /* A side without elements waited for the other: a step towards it. No time: unchanged. */
    CHECK(fabs(vred_cma_share_next(0.4, 2, 0, 0, 1e-4, 1000) - (0.4 + VRED_CMA_SHARE_STEP)) < 1e-12,
          "root's block empty: up a step");
    CHECK(fabs(vred_cma_share_next(0.9, 3, 1e-4, 1000, 0, 0) - (0.9 - VRED_CMA_SHARE_STEP)) < 1e-12,
          "the others' blocks empty: down a step");
    CHECK(vred_cma_share_next(0.4, 2, 0, 0, 0, 0) == 0.4, "nothing anywhere: unchanged");
    CHECK(vred_cma_share_next(0.4, 2, 1e-4, 1000, 0, 1000) == 0.4, "no time on the others");
    CHECK(vred_cma_share_next(0.4, 2, NAN, 1000, 1e-4, 1000) == 0.4, "a NaN time");
    /* The bounds. */
    CHECK(vred_cma_share_next(VRED_CMA_SHARE_MAX, 2, 1e-9, 1000, 1, 1) == VRED_CMA_SHARE_MAX,
          "at most VRED_CMA_SHARE_MAX");
    CHECK(vred_cma_share_next(VRED_CMA_SHARE_MIN, 2, 1, 1, 1e-9, 1000) == VRED_CMA_SHARE_MIN,
          "at least VRED_CMA_SHARE_MIN");

    /* Settling under a cost model: the balance s * c_root = (1 - s) / (p - 1) * c_other. The
     * Xeon's 2-rank reduce settled near 0.56 (c_other / c_root about 1.3). */
    double s2 = walk(2, 1.0, 1.3, 0, 1 << 20, 200);
    CHECK(fabs(s2 - 1.3 / 2.3) < 0.005, "2 ranks, c_other 1.3 c_root: settles at %.4f (%.4f)",
          s2, 1.3 / 2.3);
    double s4 = walk(4, 1.0, 1.5, 0, 1 << 20, 200);
    CHECK(fabs(s4 - 1.5 / 4.5) < 0.005, "4 ranks, c_other 1.5 c_root: settles at %.4f (%.4f)",
          s4, 1.5 / 4.5);
    double even = walk(3, 1.0, 1.0, 0, 1 << 20, 200);
    CHECK(fabs(even - 1.0 / 3) < 0.005, "3 ranks, equal costs: stays near 1/3 (%.4f)", even);
    /* A fixed cost per call that only the others pay (their write's system call) pulls work
     * to the root; bounded. */
    double fixed = walk(2, 1.0, 1.0, 1e4, 1024, 400);
    CHECK(fixed > 0.9 && fixed <= VRED_CMA_SHARE_MAX, "the others' fixed cost: %.4f", fixed);

    printf("cma_split: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
