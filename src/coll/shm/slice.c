/*
 * Slice size of the movement-avoiding algorithms (the second paper, sec. 3.3):
 * I = max(min(s / p, I_max), cache line). s / p lets a message that fits go in one round;
 * I_max keeps the p slices of a round (the bank's working part) small enough to stay in the
 * cache across the p steps that read them; a cache line is the least that is worth a step.
 */
#include "coll/shm/ma.h"

enum { LINE = 64 };

static size_t gcd(size_t x, size_t y)
{
    while (y) {
        size_t t = x % y;
        x = y, y = t;
    }
    return x;
}

size_t vred_shm_slice_within(size_t count, size_t esize, int p, size_t imax)
{
    if (esize == 0) return 1;
    if (p < 1) p = 1;
    size_t want = count / (size_t)p * esize + (count % (size_t)p ? esize : 0); /* s/p, rounded up */
    if (want > imax) want = imax;
    if (want < LINE) want = LINE;
    size_t emax = imax / esize ? imax / esize : 1;   /* elements that fit in I_max */
    size_t e = (want + esize - 1) / esize;
    if (e > emax) e = emax;
    /* Slices of a whole number of cache lines keep every slot of the bank line-aligned, so no
     * two ranks write one line. Round up (fewer rounds) if that still fits in I_max, else down. */
    size_t unit = LINE / gcd(esize, LINE);           /* elements per lcm(esize, 64) bytes */
    size_t up = (e + unit - 1) / unit * unit;
    if (up <= emax) return up;
    size_t down = e / unit * unit;
    return down ? down : e;
}

size_t vred_shm_slice(const vred_shm *s, size_t count, size_t esize, int p)
{
    return vred_shm_slice_within(count, esize, p, s->slice_max);
}
