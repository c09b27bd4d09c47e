/* The collectives' clock: seconds on CLOCK_MONOTONIC, for waits and for measuring their own
 * steps (never MPI_Wtime: these run inside the MPI's calls, and the clock may not be global). */
#ifndef VRED_COLL_CLOCK_H
#define VRED_COLL_CLOCK_H

#include <time.h>

static inline double vred_clock_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
