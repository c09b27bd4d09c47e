/*
 * The learned selection's verdict on one class from the candidates' median times (learn.c
 * measures them): pure arithmetic, so that tests/unit/test_learn_pick.c checks it. med[0] is
 * the MPI's collective, med[1..nc-1] vred's candidates.
 */
#ifndef VRED_MPI_LEARN_PICK_H
#define VRED_MPI_LEARN_PICK_H

/* vred's pick must beat the MPI by this fraction, more than the spread of one batch's median
 * between two runs (3-5% measured): a tie kept as vred's was found 0.9x the MPI by benchmarks. */
#define VRED_LEARN_MARGIN 0.06
/* A close call: the MPI ahead, yet one of vred's candidates within this fraction above it; or
 * vred's pick ahead of the MPI by less than it. learn.c measures such a class again, longer
 * (CLOSE_ROUNDS says why). */
#define VRED_LEARN_CLOSE 0.15

/* The index of the pick: the fastest of vred's if it beats the MPI by the margin, else 0. */
static inline int vred_learn_pick(const double *med, int nc)
{
    int best = 0;
    for (int i = 1; i < nc; i++)
        if (med[i] < med[best]) best = i;
    return best && med[best] < (1 - VRED_LEARN_MARGIN) * med[0] ? best : 0;
}

/* 1 if the verdict could be noise: the MPI wins (vred_learn_pick gives 0) against a candidate
 * that came within VRED_LEARN_CLOSE of it, or vred's pick beats the MPI by less than that. Both
 * ways a five-round median has kept the wrong one: the MPI's 1 MiB reduce over cma (above), and
 * Intel MPI's allgather of 4 KiB, where calibration timed vred's pipeline 7% ahead (1.08 us
 * against 1.17) and the benchmark then found the MPI 16% ahead (0.98 against 1.17; Xeon guest,
 * 2026-12-06). */
static inline int vred_learn_close_call(const double *med, int nc)
{
    int pick = vred_learn_pick(med, nc);
    if (pick) return med[pick] > (1 - VRED_LEARN_CLOSE) * med[0];
    for (int i = 1; i < nc; i++)
        if (med[i] < (1 + VRED_LEARN_CLOSE) * med[0]) return 1;
    return 0;
}

#endif
