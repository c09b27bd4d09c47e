/*
 * Movement-avoiding reduce-scatter (the second paper, sec. 3.3): node rank q's result is block
 * q (a->counts[q] elements, any sizes, 0 included). Each chunk's own slot is reduced straight
 * into rbuf with C = A + B, so no rank copies its own data anywhere; in place with the own block
 * not at the start, the sum goes through the bank (see finish_round in ma.c). Total copy volume
 * 2s, total data access s (3p - 1) (paper table 1).
 */
#include "coll/shm/ma.h"

int vred_shm_reduce_scatter_ma(const vred_shm_args *a)
{
    return vred_ma_run(a, VRED_MA_REDUCE_SCATTER);
}
