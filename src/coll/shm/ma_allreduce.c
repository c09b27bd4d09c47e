/*
 * Movement-avoiding allreduce (the second paper, sec. 3.4 and algorithm 2): MA reduce-scatter
 * of the even split into the shared bank, then every rank copies the whole chunk out, with
 * streaming stores when the working set s p + s p + m p I (in place: s p + m p I) exceeds the
 * cache (sec. 4.3.1).
 * Every rank copies the same bank bytes: identical results everywhere.
 */
#include "coll/shm/ma.h"

int vred_shm_allreduce_ma(const vred_shm_args *a)
{
    return vred_ma_run(a, VRED_MA_ALLREDUCE);
}
