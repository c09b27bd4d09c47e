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
/* Where the MPI's call takes under VRED_LEARN_TINY_S, the band is VRED_LEARN_CLOSE_TINY instead:
 * calls of a few microseconds are a handful of handoffs of lines between the cores, and the MPI
 * alone runs them at one of two speeds for a whole launch, up to 2x apart (below: MPICH 4.0's
 * bcast of 4 KiB, Intel MPI's allreduce of 4 KiB at 1.36 us in one calibration and 2.66 in the
 * next). One launch's verdict there says little: Intel MPI's bcast of 4 KiB was calibrated at
 * 0.90 us in a slow launch against the pipeline's 0.69, vred 23% ahead, not a close call, and
 * the cell kept the pipeline, which the benchmark then found at 0.80 us against the MPI's
 * 0.66-0.69 in every launch (0.83-0.87x; Xeon guest, 2026-12-07). */
#define VRED_LEARN_TINY_S 5e-6
#define VRED_LEARN_CLOSE_TINY 0.5
/* Candidates at most, the MPI included (learn.c's NCAND fits in it). */
#define VRED_LEARN_MAX_CAND 8

/* The index of the pick: the fastest of vred's if it beats the MPI by the margin, else 0. */
static inline int vred_learn_pick(const double *med, int nc)
{
    int best = 0;
    for (int i = 1; i < nc; i++)
        if (med[i] < med[best]) best = i;
    return best && med[best] < (1 - VRED_LEARN_MARGIN) * med[0] ? best : 0;
}

/* The close band for a class whose MPI call took mpi_s seconds (above). */
static inline double vred_learn_close_band(double mpi_s)
{
    return mpi_s > 0 && mpi_s < VRED_LEARN_TINY_S ? VRED_LEARN_CLOSE_TINY : VRED_LEARN_CLOSE;
}

/* 1 if the verdict could be noise: the MPI wins (vred_learn_pick gives 0) against a candidate
 * that came within the close band of it, or vred's pick beats the MPI by less than that. Both
 * ways a five-round median has kept the wrong one: the MPI's 1 MiB reduce over cma (above), and
 * Intel MPI's allgather of 4 KiB, where calibration timed vred's pipeline 7% ahead (1.08 us
 * against 1.17) and the benchmark then found the MPI 16% ahead (0.98 against 1.17; Xeon guest,
 * 2026-12-06). */
static inline int vred_learn_close_call(const double *med, int nc)
{
    int pick = vred_learn_pick(med, nc);
    double band = vred_learn_close_band(med[0]);
    if (pick) return med[pick] > (1 - band) * med[0];
    for (int i = 1; i < nc; i++)
        if (med[i] < (1 + band) * med[0]) return 1;
    return 0;
}

/*
 * A close call is followed over VRED_LEARN_RUNS runs: the MPI alone can run at one of two speeds
 * for a whole launch (docs/peers.md, "The MPI's own speed from launch to launch": MPICH 4.0's
 * bcast of 4 KiB at 0.67-0.78 us in some launches, 0.95-1.07 in others, vred's at 0.82-0.94 in
 * all), so one calibration sees one of them and its pick then held for every later run. Each of
 * the next runs measures the class again and keeps each candidate's time over the MPI's; the
 * pick is made on the median of those ratios over the runs so far, and stands once
 * VRED_LEARN_RUNS runs have measured it.
 */
#define VRED_LEARN_RUNS 5

/* The median of v[0..n) (n >= 1; v is reordered): the middle value, or of the two middle ones
 * the larger: a candidate's ratio to the MPI, so that over an even count of runs vred must win
 * in the slower of them (run 4 of MPICH 4.0's 4 KiB bcast, ratios 1.056, 0.902, 0.964, 0.849:
 * the mean 0.933 picked the pipeline, the fifth run's 1.026 the MPI again). */
static inline double vred_learn_median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n <= VRED_LEARN_RUNS */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return v[n / 2];
}

/* The index of the pick over `runs` runs (1..VRED_LEARN_RUNS): ratio[r][i] is candidate i's
 * median time over the MPI's in run r (ratio[r][0] = 1, the MPI). Each candidate's median ratio
 * over the runs, then vred_learn_pick on those. */
static inline int vred_learn_pick_runs(double ratio[][VRED_LEARN_MAX_CAND], int runs,
                                      int nc)
{
    double med[VRED_LEARN_MAX_CAND];
    for (int i = 0; i < nc && i < VRED_LEARN_MAX_CAND; i++) {
        double v[VRED_LEARN_RUNS];
        int n = 0;
        for (int r = 0; r < runs && r < VRED_LEARN_RUNS; r++) v[n++] = ratio[r][i];
        med[i] = n ? vred_learn_median(v, n) : 1;
    }
    return vred_learn_pick(med, nc < VRED_LEARN_MAX_CAND ? nc : VRED_LEARN_MAX_CAND);
}

#endif
