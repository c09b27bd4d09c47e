/* The per-process shared-memory bound (budget.h). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include "config.h"
#include "coll/shm/budget.h"

/* The automatic bound: half of /dev/shm's size shared by the node's ranks (the other half left to
 * the MPI's own segments and to other programs; a memfd takes no room in /dev/shm, but /dev/shm's
 * size is what a container or an administrator set aside for shared memory), and at most 32 MiB
 * a process: 64 regions of the default size at 2 ranks, 32 at 64 ranks (docs/shm.md, "Bounded
 * resources"). */
enum { AUTO_CAP = 32 << 20 };

static int local_ranks = 1;
static size_t taken;

void vred_shm_budget_set_local_ranks(int n)
{
    if (n > 0) __atomic_store_n(&local_ranks, n, __ATOMIC_RELAXED);
}

static size_t automatic(void)
{
    struct statvfs st;
    size_t cap = AUTO_CAP;
    if (statvfs("/dev/shm", &st) == 0 && st.f_blocks > 0) {
        size_t total = (size_t)st.f_blocks * (size_t)st.f_frsize;
        size_t each = total / 2 / (size_t)__atomic_load_n(&local_ranks, __ATOMIC_RELAXED);
        if (each < cap) cap = each;
    }
    return cap;
}

size_t vred_shm_budget_limit(void)
{
    /* Computed once (the first region: after MPI_Init has set local_ranks); a race between two
     * threads computes the same value twice. */
    static size_t limit = SIZE_MAX;
    size_t l = __atomic_load_n(&limit, __ATOMIC_ACQUIRE);
    if (l != SIZE_MAX) return l;
    long set = vred_config_get()->shm_limit;
    l = set > 0 ? (size_t)set : automatic();
    __atomic_store_n(&limit, l, __ATOMIC_RELEASE);
    return l;
}

size_t vred_shm_budget_left(void)
{
    size_t limit = vred_shm_budget_limit(), t = __atomic_load_n(&taken, __ATOMIC_ACQUIRE);
    return t < limit ? limit - t : 0;
}

int vred_shm_budget_take(size_t share)
{
    size_t limit = vred_shm_budget_limit(), t = __atomic_load_n(&taken, __ATOMIC_ACQUIRE);
    do {
        if (t > limit || share > limit - t) return 0;
    } while (!__atomic_compare_exchange_n(&taken, &t, t + share, 1, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    return 1;
}

void vred_shm_budget_give(size_t share) { __atomic_sub_fetch(&taken, share, __ATOMIC_ACQ_REL); }
