/*
 * The root's share of a reduce by cross-memory attach (coll/shm/cma_split.h): the blocks it
 * makes for every count, rank count, root and share, and the share's walk towards the balance
 * under a model of the ranks' costs. Then an allreduce's parts: the blocks cut from every
 * rank's published part, and the parts' walk, each rank its own, to equal times.
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

/* Blocks from parts: they cover [0, count) in order, inner boundaries on lines, each rank's
 * within a line per rank of its part of the whole (parts clamped to the bounds, NaN even). */
static void check_parts(size_t count, int p, const float *part, size_t es)
{
    size_t disp[17], line = 64 % es == 0 ? 64 / es : 1;
    vred_cma_split_parts(count, p, part, es, disp);
    double sum = 0;
    for (int q = 0; q < p; q++) sum += (double)vred_cma_part_units(part[q]);
    int ok = disp[0] == 0 && disp[p] == count;
    double worst = 0;
    for (int q = 0; q < p; q++) {
        ok = ok && disp[q] <= disp[q + 1];
        if (q + 1 < p) ok = ok && disp[q + 1] % line == 0;
        double want = (double)count * (double)vred_cma_part_units(part[q]) / sum;
        double off = fabs((double)(disp[q + 1] - disp[q]) - want);
        worst = off > worst ? off : worst;
    }
    ok = ok && worst <= (double)(line * (size_t)p);
    CHECK(ok, "parts count=%zu p=%d es=%zu part[0]=%.2f: off by %.0f elements", count, p, es,
          part[0], worst);
}

/* The parts' walk: rank q folds rate[q] elements a second (and pays `fixed` seconds a call);
 * every rank moves its own part from the rates all measured. Returns the slowest rank's time
 * over the fastest's after `calls` calls, and leaves the parts in part[]. */
static double walk_parts(int p, const double *rate, double fixed, size_t count, int calls,
                         float *part)
{
    size_t disp[17];
    double t[16], ratio = 0;
    for (int q = 0; q < p; q++) part[q] = 1.0f;
    for (int i = 0; i < calls; i++) {
        vred_cma_split_parts(count, p, part, 4, disp);
        double sum = 0, lo = 1e300, hi = 0;
        int empty[16], any_empty = 0;
        for (int q = 0; q < p; q++) {
            size_t n = disp[q + 1] - disp[q];
            t[q] = fixed + (double)n / rate[q];
            empty[q] = !n;
            any_empty += !n;
            sum += n ? (double)n / t[q] : 0;
            lo = t[q] < lo ? t[q] : lo;
            hi = t[q] > hi ? t[q] : hi;
        }
        for (int q = 0; q < p; q++) {
            size_t n = disp[q + 1] - disp[q];
            double next = vred_cma_part_next(part[q], p, n, n ? (double)n / t[q] : 0, sum,
                                             any_empty - empty[q] > 0);
            CHECK(fabs(next - part[q]) <= VRED_CMA_SHARE_STEP * p + 1e-9,
                  "one call moves a part at most a step of the vector (%.4f -> %.4f)", part[q],
                  next);
            part[q] = (float)next;
        }
        ratio = hi / lo;
    }
    return ratio;
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

    /* An allreduce's parts. */
    static const float pattern[][4] = {{1, 1, 1, 1},       {0.25f, 1.75f, 0.25f, 1.75f},
                                       {1.3f, 0.7f, 1, 1}, {0.01f, 9, NAN, 1},
                                       {1.75f, 0.25f, 1.75f, 0.25f}};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (int p = 2; p <= 16; p += p < 4 ? 1 : 5)
            for (size_t k = 0; k < sizeof pattern / sizeof *pattern; k++)
                for (size_t e = 0; e < sizeof sizes / sizeof *sizes; e++) {
                    float part[16];
                    for (int q = 0; q < p; q++) part[q] = pattern[k][q % 4];
                    check_parts(counts[c], p, part, sizes[e]);
                }
    float halves[2] = {1, 1}, bounds[2] = {0.01f, 9};
    size_t d1[3], d2[3];
    vred_cma_split_parts(1 << 20, 2, halves, 4, d1);
    CHECK(d1[1] == 1 << 19, "even parts: halves (%zu)", d1[1]);
    vred_cma_split_parts(1 << 20, 2, bounds, 4, d2);
    CHECK(d2[1] == (1 << 20) / 8, "parts beyond the bounds count at the bounds: 1/8 (%zu)", d2[1]);
    /* One rank's step: a quarter of the way to p * rate_me / rate_sum, at most a step. */
    double half = vred_cma_part_next(1.0, 2, 1000, 1.0, 2.0, 0);
    CHECK(fabs(half - 1.0) < 1e-12, "equal rates: the part stays (%.4f)", half);
    double slow = vred_cma_part_next(1.0, 2, 1000, 1.0, 2.2, 0);
    CHECK(fabs(slow - (1.0 + (2 / 2.2 - 1.0) / 4)) < 1e-9, "a slower rank: down a quarter of the "
          "way (%.5f)", slow);
    double far = vred_cma_part_next(1.0, 2, 1000, 1.0, 10.0, 0);
    CHECK(fabs(far - (1.0 - VRED_CMA_SHARE_STEP * 2)) < 1e-9, "at most a step (%.4f)", far);
    CHECK(fabs(vred_cma_part_next(1.0, 3, 0, 0, 2.0, 0) - (1.0 + VRED_CMA_SHARE_STEP * 3)) < 1e-9,
          "an empty block: up a step");
    CHECK(fabs(vred_cma_part_next(1.0, 3, 10, 1.0, 2.0, 1) - (1.0 - VRED_CMA_SHARE_STEP * 3)) < 1e-9,
          "a peer's empty block: down a step");
    CHECK(vred_cma_part_next(1.0, 2, 10, NAN, 2.0, 0) == 1.0, "a NaN rate: unchanged");
    CHECK(vred_cma_part_next(1.0, 2, 10, INFINITY, INFINITY, 0) == 1.0, "no time: unchanged");
    CHECK(vred_cma_part_next(1.0, 1, 10, 1.0, 3.0, 0) == 1.0, "one rank: unchanged");
    CHECK(vred_cma_part_next(VRED_CMA_PART_MIN, 2, 10, 1.0, 100.0, 0) == VRED_CMA_PART_MIN,
          "at least VRED_CMA_PART_MIN");
    CHECK(vred_cma_part_next(VRED_CMA_PART_MAX, 2, 10, 100.0, 101.0, 0) == VRED_CMA_PART_MAX,
          "at most VRED_CMA_PART_MAX");
    /* The walk: equal times under the model. 2 ranks, one 10% slower (the Xeon's runs); 5
     * ranks, one at half speed (an efficiency core); equal rates stay even. */
    float parts[16];
    double r2[2] = {1.0e9, 0.9e9}, r5[5] = {1e9, 1e9, 0.5e9, 1e9, 1e9}, r3[3] = {1e9, 1e9, 1e9};
    double t2 = walk_parts(2, r2, 0, 1 << 20, 300, parts);
    CHECK(t2 < 1.01 && fabs(parts[0] / parts[1] - 1 / 0.9) < 0.02, "2 ranks, one 10%% slower: "
          "times within %.4f, parts %.3f %.3f", t2, parts[0], parts[1]);
    double t5 = walk_parts(5, r5, 0, 1 << 22, 300, parts);
    CHECK(t5 < 1.01 && fabs(parts[2] - 5.0 / 9) < 0.02, "5 ranks, one at half speed: times "
          "within %.4f, its part %.3f (%.3f)", t5, parts[2], 5.0 / 9);
    double t3 = walk_parts(3, r3, 1e-6, 1 << 20, 300, parts);
    CHECK(t3 < 1.001 && fabs(parts[0] - 1) < 0.01 && fabs(parts[2] - 1) < 0.01,
          "3 ranks alike: even (%.4f, %.3f %.3f %.3f)", t3, parts[0], parts[1], parts[2]);

    printf("cma_split: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
