/*
 * The learned selection's verdict (mpi/learn_pick.h): vred's fastest candidate only where it
 * beats the MPI by the margin, and a close call (the MPI ahead, a candidate within
 * VRED_LEARN_CLOSE of it, VRED_LEARN_CLOSE_TINY for calls under VRED_LEARN_TINY_S) measured
 * again, and followed over runs (the pick on each candidate's median ratio to the MPI over the
 * runs). med[0] is the MPI's median, then vred's.
 */
#include <stdio.h>
#include "check.h"
#include "mpi/learn_pick.h"

static int passed, failed;

int main(void)
{
    /* vred's fastest, well ahead: picked, no second measurement. */
    double ahead[] = {100, 120, 80, 90};
    CHECK(vred_learn_pick(ahead, 4) == 2, "fastest of vred's well ahead: pick %d",
          vred_learn_pick(ahead, 4));
    CHECK(!vred_learn_close_call(ahead, 4), "a clear win (20%%) is not a close call");

    /* Ahead by less than the margin (95 against 100): the MPI keeps the class, and it is close. */
    double tie[] = {100, 95, 130};
    CHECK(vred_learn_pick(tie, 3) == 0, "within the margin: the MPI (pick %d)",
          vred_learn_pick(tie, 3));
    CHECK(vred_learn_close_call(tie, 3), "vred 5%% ahead, under the margin: a close call");

    /* The case that went wrong (Open MPI 4.1 reduce 1 MiB, Xeon guest): the MPI at 121 us, cma
     * at 124, the others a few percent slower: a close call. */
    double xeon[] = {121.4, 128.1, 123.6, 126.3, 142.7};
    CHECK(vred_learn_pick(xeon, 5) == 0, "cma 2%% behind: the MPI");
    CHECK(vred_learn_close_call(xeon, 5), "cma 2%% behind the MPI: a close call");

    /* Every candidate more than VRED_LEARN_CLOSE behind: the MPI, measured once. */
    double behind[] = {100, 116, 150};
    CHECK(vred_learn_pick(behind, 3) == 0 && !vred_learn_close_call(behind, 3),
          "every candidate 16%%+ behind: the MPI, not a close call");

    /* Just inside the margin and just outside it. */
    double in_margin[] = {100, 93.9};
    double at_margin[] = {100, 94.1};
    CHECK(vred_learn_pick(in_margin, 2) == 1, "6.1%% faster: vred");
    CHECK(vred_learn_pick(at_margin, 2) == 0 && vred_learn_close_call(at_margin, 2),
          "5.9%% faster: the MPI, a close call");

    /* vred's pick ahead by more than the margin but less than VRED_LEARN_CLOSE: picked, and a
     * close call (Intel MPI's allgather of 4 KiB on the Xeon guest: the pipeline 7% ahead in
     * calibration, 16% behind in the benchmark). */
    double impi[] = {1.169, 1.083};
    CHECK(vred_learn_pick(impi, 2) == 1 && vred_learn_close_call(impi, 2),
          "vred 7%% ahead: picked, a close call");
    double clear[] = {100, 84, 95};
    CHECK(vred_learn_pick(clear, 3) == 1 && !vred_learn_close_call(clear, 3),
          "vred 16%% ahead: picked, not a close call");
    double edge[] = {100, 85.5};
    CHECK(vred_learn_close_call(edge, 2), "vred 14.5%% ahead: a close call");

    /* Calls of a few microseconds (times in seconds): the band is VRED_LEARN_CLOSE_TINY. Intel
     * MPI's bcast of 4 KiB calibrated in a slow launch (the MPI 0.90 us, the pipeline 0.69):
     * picked, and a close call, followed over runs; ahead by more than half, not close; the MPI
     * ahead with a candidate 40% behind, close; a call of 6 us takes the ordinary band. */
    double tiny[] = {0.90e-6, 0.69e-6, 1.70e-6};
    CHECK(vred_learn_pick(tiny, 3) == 1 && vred_learn_close_call(tiny, 3),
          "tiny calls, vred 23%% ahead: picked, a close call");
    double tiny_clear[] = {2.0e-6, 0.9e-6};
    CHECK(vred_learn_pick(tiny_clear, 2) == 1 && !vred_learn_close_call(tiny_clear, 2),
          "tiny calls, vred 55%% ahead: picked, not a close call");
    double tiny_behind[] = {0.66e-6, 0.92e-6, 1.7e-6};
    CHECK(vred_learn_pick(tiny_behind, 3) == 0 && vred_learn_close_call(tiny_behind, 3),
          "tiny calls, the MPI 40%% ahead: a close call");
    double small[] = {6e-6, 4.6e-6};
    CHECK(vred_learn_pick(small, 2) == 1 && !vred_learn_close_call(small, 2),
          "6 us calls, vred 23%% ahead: the ordinary band, not a close call");

    /* Only the MPI to measure. */
    double alone[] = {100};
    CHECK(vred_learn_pick(alone, 1) == 0 && !vred_learn_close_call(alone, 1), "the MPI alone");

    /* Close calls over runs: each candidate's median ratio to the MPI over the runs so far. */
    double m5[] = {3, 1, 5, 2, 4}, m4[] = {4, 1, 3, 2}, m1[] = {7};
    CHECK(vred_learn_median(m5, 5) == 3, "median of 5 values");
    CHECK(vred_learn_median(m4, 4) == 3, "median of 4 values: the larger middle one");
    CHECK(vred_learn_median(m1, 1) == 7, "median of one value");
    /* MPICH 4.0's 4 KiB bcast (docs/peers.md): the MPI fast in one launch (vred's pipe at 1.3x
     * its time), slow in the next four (pipe at 0.8x): the first run alone keeps the MPI, the
     * median over the runs takes pipe. */
    double modes[VRED_LEARN_RUNS][VRED_LEARN_MAX_CAND] = {
        {1, 1.30}, {1, 0.80}, {1, 0.82}, {1, 0.79}, {1, 1.25}};
    CHECK(vred_learn_pick_runs(modes, 1, 2) == 0, "one run with the MPI fast: the MPI");
    CHECK(vred_learn_pick_runs(modes, 2, 2) == 0, "two runs, 1.30 and 0.80: the MPI");
    CHECK(vred_learn_pick_runs(modes + 1, 2, 2) == 1, "two runs, 0.80 and 0.82: vred");
    CHECK(vred_learn_pick_runs(modes, 3, 2) == 1, "three runs: median 0.82, vred");
    CHECK(vred_learn_pick_runs(modes, 5, 2) == 1, "five runs: median 0.82, vred");
    /* The other way: one launch put vred ahead by 10%, the MPI is ahead in the rest. */
    double lucky[VRED_LEARN_RUNS][VRED_LEARN_MAX_CAND] = {
        {1, 0.90, 1.40}, {1, 1.05, 1.30}, {1, 1.08, 1.50}};
    CHECK(vred_learn_pick_runs(lucky, 1, 3) == 1, "one lucky run: vred");
    CHECK(vred_learn_pick_runs(lucky, 3, 3) == 0, "median over three runs 1.05: the MPI");
    /* Several candidates: the fastest median wins, with the margin against the MPI. */
    double three[VRED_LEARN_RUNS][VRED_LEARN_MAX_CAND] = {
        {1, 0.93, 0.70}, {1, 0.91, 0.99}, {1, 0.92, 0.98}};
    CHECK(vred_learn_pick_runs(three, 3, 3) == 1,
          "medians 0.92 and 0.98: the first, although the second won one run by more");
    double margin[VRED_LEARN_RUNS][VRED_LEARN_MAX_CAND] = {{1, 0.95}, {1, 0.90}, {1, 0.96}};
    CHECK(vred_learn_pick_runs(margin, 3, 2) == 0, "median 0.95, inside the margin: the MPI");

    printf("learn_pick: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
