/*
 * The learned selection's verdict (mpi/learn_pick.h): vred's fastest candidate only where it
 * beats the MPI by the margin, and a close call (the MPI ahead, a candidate within
 * VRED_LEARN_CLOSE of it) measured again. med[0] is the MPI's median, then vred's.
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

    /* Only the MPI to measure. */
    double alone[] = {100};
    CHECK(vred_learn_pick(alone, 1) == 0 && !vred_learn_close_call(alone, 1), "the MPI alone");

    printf("learn_pick: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
