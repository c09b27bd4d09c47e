/*
 * The ranks' arguments in one word, and their comparison (stamp.h).
 */
#include "coll/shm/stamp.h"
#include <stdio.h>
#include "coll/fail.h"

enum { ES_SHIFT = VRED_STAMP_ES_SHIFT, ALG_SHIFT = VRED_STAMP_ALG_SHIFT,
       ROOT_SHIFT = VRED_STAMP_ROOT_SHIFT };

size_t vred_shm_stamp_esize(vred_shm_stamp t) { return (size_t)(t >> ES_SHIFT & 0xFF); }

int vred_shm_stamp_alg(vred_shm_stamp t) { return (int)(t >> ALG_SHIFT & 3); }

int vred_shm_stamp_root(vred_shm_stamp t) { return (int)(t >> ROOT_SHIFT) - 1; }

uint64_t vred_shm_stamp_count(vred_shm_stamp t)
{
    return t & 1ull << 31 ? UINT64_MAX : t & 0x7FFFFFFFu;
}

int vred_shm_stamp_verdict(const vred_shm *s, vred_shm_stamp mine)
{
    return vred_shm_stamp_verdict_by(s, mine, vred_shm_stamp_read);
}

int vred_shm_stamp_verdict_by(const vred_shm *s, vred_shm_stamp mine, vred_shm_stamp_reader read)
{
    int type = 0, root = 0, count = 0;
    for (int i = 0; i < s->size; i++) {
        vred_shm_stamp t = read(s, i);
        if (i == s->rank || t == mine) continue;
        type |= vred_shm_stamp_esize(t) != vred_shm_stamp_esize(mine);
        root |= vred_shm_stamp_root(t) != vred_shm_stamp_root(mine);
        count |= 1; /* the count, or the algorithm its count chose */
    }
    return type ? MPI_ERR_TYPE : root ? MPI_ERR_ROOT : count ? MPI_ERR_COUNT : MPI_SUCCESS;
}

static const char *alg_name(int alg)
{
    switch (alg) {
    case VRED_STAMP_MA: return "movement-avoiding";
    case VRED_STAMP_CHAIN: return "movement-avoiding chain";
    case VRED_STAMP_DPML: return "DPML-like";
    default: return "?";
    }
}

_Noreturn void vred_shm_stamp_abort(const vred_shm *s, vred_shm_stamp mine, const char *coll)
{
    fprintf(stderr, "vred: the ranks of a node passed different arguments to %s (count, datatype "
                    "or root: an erroneous program) and cannot be kept in step. Aborting. The "
                    "ranks:\n", coll);
    for (int i = 0; i < s->size; i++) {
        vred_shm_stamp t = i == s->rank ? mine : vred_shm_stamp_read(s, i);
        uint64_t count = vred_shm_stamp_count(t);
        char n[32];
        if (count == UINT64_MAX) snprintf(n, sizeof n, "2^31 or more");
        else snprintf(n, sizeof n, "%llu", (unsigned long long)count);
        fprintf(stderr, "vred:   node rank %d: %s elements of %d bytes, root %d (vred's %s)\n", i,
                n, (int)vred_shm_stamp_esize(t), vred_shm_stamp_root(t),
                alg_name(vred_shm_stamp_alg(t)));
    }
    vred_abort_job();
}
