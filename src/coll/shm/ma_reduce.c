/*
 * Movement-avoiding reduce (the second paper, sec. 3.5): MA reduce-scatter of the even split
 * into the shared bank, then only the root copies the chunk out. The other ranks never touch
 * their (possibly null) receive buffer; they move on to the next chunk at once, held back only
 * by the double-buffering of the banks until the root has read the chunk two rounds before.
 */
#include "ma.h"

int vred_shm_reduce_ma(const vred_shm_args *a)
{
    return vred_ma_run(a, VRED_MA_REDUCE);
}
