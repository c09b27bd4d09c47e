/*
 * The link fit (coll/link_fit.h): from round trips shaped like the links the multihost harness
 * makes (tc tbf at 1, 10 and 25 Gbit/s), the fitted rate is the link's, with a burst that goes free,
 * and with the quarter-size round trips slowed (a peer waiting for its core), which once made a
 * CI run take a 1 Gbit/s link for one of over 3 Gbit/s (docs/multihost.md).
 */
#include <stdio.h>
#include "check.h"
#include "coll/link_fit.h"

static int passed, failed;
enum { BIG = 1 << 20 };

/* A round trip of n bytes each way on a link of rate bytes/s, latency alpha s, the first
 * `free_bytes` of each message sent at once (a rate limiter's burst). */
static double trip(double rate, double alpha, double n, double free_bytes)
{
    double paced = n > free_bytes ? n - free_bytes : 0;
    return 2 * (alpha + paced / rate);
}

/* The fitted rate as a fraction of the true one. */
static double fitted(double rate, double small, double mid, double big)
{
    vred_link_fit f = vred_link_fit_round_trips(small, mid, big, BIG);
    return f.beta > 0 ? 1.0 / f.beta / rate : 0;
}

int main(void)
{
    const double rates[] = {1e9 / 8, 10e9 / 8, 25e9 / 8}, alphas[] = {20e-6, 100e-6, 400e-6};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double r = rates[i], a = alphas[j], small = trip(r, a, 8, 0);
            /* A plain link: the rate itself. */
            double x = fitted(r, small, trip(r, a, BIG / 4, 0), trip(r, a, BIG, 0));
            CHECK(x > 0.99 && x < 1.01, "plain link %.0f MB/s alpha %g: fitted %.3f of it",
                  r / 1e6, a, x);
            /* A burst of a quarter of the big message goes free: still the rate (the difference
             * cancels the burst; the big trip alone would say 4/3 of it). */
            x = fitted(r, small, trip(r, a, BIG / 4, BIG / 4), trip(r, a, BIG, BIG / 4));
            CHECK(x > 0.99 && x < 1.01, "burst %.0f MB/s alpha %g: fitted %.3f of it", r / 1e6, a,
                  x);
            /* The quarter-size trips slowed, a quarter to all of the way to the big one (the
             * difference alone then says 1.33x the link, up to no rate at all; the CI failure
             * fitted 10 Gbit/s on a 1 Gbit/s link): the big trip alone gives the rate, and with
             * a free burst as well never more than 4/3 of it. */
            double big = trip(r, a, BIG, 0), mid = trip(r, a, BIG / 4, 0);
            double bbig = trip(r, a, BIG, BIG / 4), bmid = trip(r, a, BIG / 4, BIG / 4);
            for (double s = 0.25; s <= 1.0; s += 0.25) {
                x = fitted(r, small, mid + s * (big - mid), big);
                CHECK(x > 0.99 && x < 1.01, "slow mid %.2f, %.0f MB/s alpha %g: fitted %.3f of it",
                      s, r / 1e6, a, x);
                x = fitted(r, small, bmid + s * (bbig - bmid), bbig);
                CHECK(x > 0.99 && x < 1.34, "slow mid %.2f with a burst, %.0f MB/s alpha %g: "
                      "fitted %.3f of it", s, r / 1e6, a, x);
            }
        }
    /* Nothing measured (a zero clock): no fit, the model keeps its constants. */
    vred_link_fit f = vred_link_fit_round_trips(0, 0, 0, BIG);
    CHECK(f.beta <= 0, "all-zero round trips gave beta %g", f.beta);
    f = vred_link_fit_round_trips(1e-4, 2e-3, 2e-3, BIG);
    CHECK(f.beta > 0 && f.alpha > 0, "equal mid and big trips: alpha %g beta %g", f.alpha, f.beta);
    printf("link fit: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
