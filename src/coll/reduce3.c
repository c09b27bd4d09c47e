/* The one way the collectives reduce: the dispatch table's kernel, split across the thread pool
 * when the block is large (local/threads.c decides). */
#include "coll.h"
#include "local/threads.h"

void vred_coll_reduce3(const vred_coll_args *a, const void *x, const void *y, void *out, size_t n)
{
    if (n) vred_par_reduce3(a->e, a->esize, x, y, out, n);
}
