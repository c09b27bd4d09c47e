/*
 * The link between nodes as the cost model sees it (alpha per message, beta per byte), fitted
 * from round trips that mpi/comm.c times between two nodes. Pure arithmetic, apart from the MPI,
 * so that tests/unit/test_link_fit.c checks the cases that went wrong.
 */
#ifndef VRED_COLL_LINK_FIT_H
#define VRED_COLL_LINK_FIT_H

#include <math.h>

typedef struct {
    double alpha, beta; /* seconds per message, per byte; beta <= 0: no fit, keep the model's */
} vred_link_fit;

/*
 * small: the median round trip of a few bytes (the median, not the fastest: where ranks outnumber
 * cores the typical message waits for its receiver to be scheduled); mid, big: the fastest round
 * trip of big_bytes / 4 and of big_bytes.
 *
 * beta from the difference of the two sizes, so that a constant of the link (a rate limiter's
 * burst, a rendezvous) cancels out. But a big_bytes / 4 round trip that was slow in every try (as
 * when a peer waits for its core) shrinks the difference: a CI run beside other tests took a
 * 1 Gbit/s link for one of over 3 Gbit/s. So beta is at least what the fastest big round trip
 * alone says, which is never faster than the link (3/4 of its rate where a burst of
 * big_bytes / 4 went free).
 */
static inline vred_link_fit vred_link_fit_round_trips(double small, double mid, double big,
                                                      double big_bytes)
{
    vred_link_fit f;
    f.alpha = small / 2;
    f.beta = fmax((big - mid) / 2 / (big_bytes - big_bytes / 4), (big - small) / 2 / big_bytes);
    if (!(f.alpha > 0)) f.beta = 0;
    return f;
}

#endif
