#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "coll/fail.h"
#include "mpi/coll_front.h"
#include "mpi/comm.h"
#include "mpi/learn.h"
#include "mpi/types.h"
#include "coll/shm/node.h"
#include "coll/shm/shm.h"
#include "local/copy.h"

/* The algorithm of this thread's last reduction collective (vred_mpi_last_alg). */
VRED_TLS int vred_front_last_alg = VRED_ALG_MPI;

int vred_front_alg(void) { return vred_front_last_alg; }

/* vred_front_known_pass (coll_front.h): the calls the selection passed, per thread and
 * collective, the arguments of the call in progress, and the generation they hold for. */
uint64_t vred_front_gen = 1;
VRED_TLS vred_pass_key vred_front_passed_calls[VRED_COLL_COUNT], vred_front_pending;

void vred_front_invalidate(void) { __atomic_add_fetch(&vred_front_gen, 1, __ATOMIC_ACQ_REL); }

void vred_front_no_pass_key(void) { vred_front_pending.gen = 0; }

/* The selection passed this call: remember it for vred_front_known_pass (above). */
static void remember_pass(vred_coll coll)
{
    if (vred_front_pending.coll == (int)coll && vred_front_pending.gen &&
        vred_mpi_find(vred_mpi_type_slots, VRED_MPI_TYPE_BITS,
                      VRED_MPI_HANDLE_BITS(vred_front_pending.datatype)))
        vred_front_passed_calls[coll] = vred_front_pending;
    vred_front_pending.gen = 0;
}

/* vred_front_pin: calibration's pinned selection on this thread, and the pass key it saved. */
static VRED_TLS struct {
    int on;
    vred_coll coll;
    vred_alg alg;
    vred_pass_key saved;
} pin;

void vred_front_pin(vred_coll coll, vred_alg alg)
{
    pin.saved = vred_front_pending;
    pin.coll = coll;
    pin.alg = alg;
    pin.on = 1;
}

void vred_front_unpin(void)
{
    pin.on = 0;
    vred_front_pending = pin.saved;
}

int vred_front_pinned(void) { return pin.on; }

/* What vred_mpi_force set for each collective (VRED_ALG_AUTO: nothing), read only to explain
 * why a call went to the MPI (select_why). */
static vred_alg forced[VRED_COLL_COUNT];

/* A zeroed argument block on comm's state (made on first use); 0 if vred does not serve comm. */
static int with_comm(vred_coll_args *a, MPI_Comm comm)
{
    vred_comm *vc = vred_comm_get(comm);
    if (!vc) return vred_pass_comm(comm);
    /* (assigned whole: gcc zeroes the struct with `rep stosq` for a memset, ~10 ns on the Xeon
     * guest, 5% of an 8-byte reduce) */
    *a = (vred_coll_args){.vc = vc, .comm = vc->comm, .rank = vc->rank, .size = vc->size,
                          .scratch = &vc->scratch};
    return 1;
}

int vred_front_begin(vred_coll_args *a, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op)
{
    vred_type vt;
    vred_op vo;
    if (vred_mpi_disabled) return vred_pass(VRED_WHY_DISABLED);
    if (!vred_mpi_map(datatype, op, &vt, &vo)) return vred_pass_unmapped(datatype, op);
    /* The algorithms copy and send whole elements: a datatype with holes would have them
     * overwritten in the receive buffer (the MPI leaves them alone: a user's field may live
     * there) and its last element read past a buffer that ends at its true extent. */
    if (vred_mpi_holes[vt]) return vred_pass(VRED_WHY_UNSUPPORTED_TYPE);
    if (!with_comm(a, comm)) return 0;
    a->e = &vred_entries[vo][vt];
    a->esize = vred_type_size(vt);
    a->op = vo;
    a->type = vt;
    return 1;
}

/*
 * Whether a derived datatype may be used in communication: committed (MPI-4.1 5.1.9). Using one
 * that is not is erroneous, and the MPIs answer MPI_ERR_TYPE (Open MPI 4.1 and MPICH 4.0 in
 * MPI_Bcast and MPI_Allgather); served by vred, an uncommitted contiguous type moved its bytes
 * and returned MPI_SUCCESS, hiding the program's error until it ran without vred. No MPI function
 * asks the question; MPI_Pack of no element refuses an uncommitted type (and takes a committed
 * one) in Open MPI 4.1 and 5.0, MPICH 4.0 and 5.0 and Intel MPI 2021 alike, through the error
 * handler of the communicator it is given: `probe`, a private one that returns errors. A
 * type found committed stays so until it is freed, so the answer is kept as an attribute of the
 * type (not copied by MPI_Type_dup, deleted with the type); one found uncommitted is asked again
 * at its next call (it may have been committed since).
 */
static int committed_key = MPI_KEYVAL_INVALID;
static pthread_once_t committed_once = PTHREAD_ONCE_INIT;

static void make_committed_key(void)
{
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &committed_key, NULL);
}

static int committed(MPI_Datatype datatype, MPI_Comm probe)
{
    void *mark;
    int flag = 0, pos = 0;
    char in = 0, out[1];
    pthread_once(&committed_once, make_committed_key);
    if (committed_key != MPI_KEYVAL_INVALID &&
        PMPI_Type_get_attr(datatype, committed_key, &mark, &flag) == MPI_SUCCESS && flag)
        return 1;
    if (PMPI_Pack(&in, 0, datatype, out, (int)sizeof out, &pos, probe) != MPI_SUCCESS) return 0;
    if (committed_key != MPI_KEYVAL_INVALID)
        PMPI_Type_set_attr(datatype, committed_key, &committed_key); /* any non-null mark */
    return 1;
}

void vred_front_finalize(void)
{
    if (committed_key != MPI_KEYVAL_INVALID) PMPI_Type_free_keyval(&committed_key);
}

/* vred_front_packed_size of a datatype whose size the caller has from the MPI (> 0). */
static size_t packed_size(MPI_Datatype datatype, int size, MPI_Comm probe)
{
    int ni, na, nd, combiner;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Datatype named;
    size_t per;
    /* Fast path (a call that then goes to the MPI should cost next to nothing): a datatype of
     * the reductions' table is named; it is packed when the MPI's size is vred's element size
     * (the pair types with padding differ: MPI_DOUBLE_INT is 12 bytes in a 16-byte element). */
    const vred_mpi_slot *t = vred_mpi_find(vred_mpi_type_slots, VRED_MPI_TYPE_BITS,
                                           VRED_MPI_HANDLE_BITS(datatype));
    if (t && (size_t)size == vred_type_size((vred_type)t->type)) return (size_t)size;
    if (PMPI_Type_get_envelope(datatype, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return 0;
    /* A contiguous type is walked only here, off the named types' path. */
    if (combiner == MPI_COMBINER_CONTIGUOUS && committed(datatype, probe) &&
        vred_mpi_contiguous_of(datatype, &named, &per)) {
        size_t one = vred_front_packed_size(named, probe);
        return one && per <= SIZE_MAX / one ? one * per : 0;
    }
    if (combiner != MPI_COMBINER_NAMED) return 0;
    if (PMPI_Type_get_extent(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(datatype, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    if (lb != 0 || tlb != 0 || extent != size || textent != size) return 0;
    return (size_t)size;
}

/* The bytes of one element of datatype if it is predefined and packed, or a committed contiguous
 * type over such a one (vred_mpi_contiguous_of), else 0: other derived types are the MPI's (their
 * layout is the MPI's to read). The extents rule out the pair types with padding
 * (MPI_DOUBLE_INT: size 12, extent 16). */
size_t vred_front_packed_size(MPI_Datatype datatype, MPI_Comm probe)
{
    int size;
    if (datatype == MPI_DATATYPE_NULL || PMPI_Type_size(datatype, &size) != MPI_SUCCESS ||
        size <= 0)
        return 0; /* erroneous (the MPI reports it) or nothing to move */
    return packed_size(datatype, size, probe);
}

int vred_front_begin_bytes(vred_coll_args *a, MPI_Comm comm, MPI_Datatype datatype,
                           size_t *type_bytes, int *packed)
{
    /* The same life rule as the reductions': nothing before MPI_Init or after MPI_Finalize. */
    int state = __atomic_load_n(&vred_mpi_state, __ATOMIC_ACQUIRE), size = 0;
    if (vred_mpi_disabled) return vred_pass(VRED_WHY_DISABLED);
    if (state == VRED_MPI_FINALIZED || (state != VRED_MPI_READY && !vred_mpi_tables_init()))
        return vred_pass(VRED_WHY_NOT_INITIALIZED);
    if (datatype == MPI_DATATYPE_NULL || PMPI_Type_size(datatype, &size) != MPI_SUCCESS ||
        size <= 0)
        return vred_pass_type(datatype); /* erroneous (the MPI reports it) or nothing to move */
    if (!with_comm(a, comm)) return 0;
    a->esize = 1; /* a->e stays NULL: nothing to reduce */
    *type_bytes = (size_t)size;
    *packed = packed_size(datatype, size, a->comm) != 0;
    return 1;
}

/* A communicator of one rank: the result is the input (bcast: already in place; allgather: one
 * block; exclusive scan: rank 0's result is undefined, nothing to write). */
static void single(vred_coll coll, const vred_coll_args *a)
{
    size_t bytes = (coll == VRED_COLL_REDUCE_SCATTER ? a->counts[0] : a->count) * a->esize;
    if (coll == VRED_COLL_BCAST || (coll == VRED_COLL_SCAN && a->exclusive)) bytes = 0;
    vred_one_rank(a->sbuf, a->rbuf, bytes);
}

/* Why vred_select gave (coll, bytes) on vc to the MPI (counting only). select.c does not say,
 * so this follows its order: a forced "mpi"; for the automatic choice, what was learned, then
 * the threshold; else no
 * algorithm could run, which happens only to a collective whose algorithms are all shared-memory
 * ones (bcast, allgather; the others have point-to-point ones), for the first reason of
 * select.c's usable() that holds. */
static vred_why select_why(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    vred_alg want = __atomic_load_n(&forced[coll], __ATOMIC_RELAXED);
    if (want == VRED_ALG_AUTO) {
        want = vred_config_get()->alg[coll];
        /* An algorithm the collective lacks is ignored (select.c warns): automatic. */
        if (want != VRED_ALG_AUTO && want != VRED_ALG_MPI && !vred_select_fn(coll, want))
            want = VRED_ALG_AUTO;
    }
    if (want == VRED_ALG_MPI) return VRED_WHY_FORCED;
    if (want == VRED_ALG_AUTO && vred_select_learned(coll, vc, bytes) == VRED_ALG_MPI)
        return VRED_WHY_MEASURED_FASTER;
    if (want == VRED_ALG_AUTO && (double)bytes < vc->model.mpi_min_bytes[coll])
        return VRED_WHY_BELOW_THRESHOLD;
    if (!vred_config_get()->shm) return VRED_WHY_SHM_OFF;
    if (vc->ppn < 2) return VRED_WHY_ONE_PER_NODE;
    if (coll == VRED_COLL_ALLGATHER && vc->nodes > 1) return VRED_WHY_MULTI_NODE;
    if (vc->shm_state < 0) return VRED_WHY_NO_SHM;
    return VRED_WHY_UNKNOWN;
}

/* The region in which a call of vc the MPI serves is marked (vred_shm_mpi_begin): a one-node
 * communicator's. Across nodes a rank may legitimately stay inside the MPI for as long as a rank
 * of another node keeps it waiting, while its node's peers have left that call and wait for it
 * in the next one: no deadlock, and not marked. */
static vred_shm *mpi_mark_region(const vred_comm *vc)
{
    return vc->nodes == 1 && vc->node ? vc->node->shm : NULL;
}

static int pass_select(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    /* marked until the MPI returns (vred_front_pass_end): a peer that took a vred algorithm
     * (different bytes on different ranks) can tell the deadlock (shm/sync.c) */
    vred_shm_mpi_begin(mpi_mark_region(vc), coll, bytes);
    if (vred_stats_on) vred_stats_set_why(select_why(coll, vc, bytes));
    else remember_pass(coll); /* counting, every call keeps its exact reason */
    return 0;
}

/* The selection of the last call per thread and collective, so that the next call alike (the
 * same communicator state and bytes) skips the selection's lookups: the class to learn, the
 * learned cell, the rules' scan, and the copy mode (a bcast or allgather past the one-step path
 * selects twice: before the ranks' agreement and after it). They took 8% of a 4 KiB
 * allgather's time (2 ranks, Intel MPI 2021, perf); remembered, 4 KiB calls ran 1-2% faster,
 * the allgather 7% (Open MPI 4.1, Xeon guest, medians of 14 alternating runs). Valid while
 * front_gen stands (vred_mpi_force, a class learned, a communicator freed bump it) and the
 * communicator's shared-memory and cross-memory-attach states are the ones seen: a region is
 * made in vred_front_run (which bumps front_gen too) or while a class is measured, and cma is
 * given up during a call (shm/entry.c). */
typedef struct {
    const vred_comm *vc;
    size_t bytes;
    uint64_t gen;
    int shm_state, cma_state;
    vred_coll_fn fn;
    vred_alg alg;
    int nt;
} select_memo;
static VRED_TLS select_memo selected[VRED_COLL_COUNT];

static const select_memo *memo_of(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    const select_memo *m = &selected[coll];
    uint64_t gen = __atomic_load_n(&vred_front_gen, __ATOMIC_ACQUIRE);
    return m->gen == gen && m->vc == vc && m->bytes == bytes && m->shm_state == vc->shm_state &&
                   m->cma_state == vc->cma_state
               ? m
               : NULL;
}

/* vred_select, having first measured the call's size class if it is still to be learned (every
 * rank calls this on the same call with the same bytes, so all measure together). */
static vred_coll_fn select_learned(vred_coll coll, const vred_comm *vc, size_t bytes,
                                   vred_alg *alg, MPI_Comm user_comm)
{
    if (__builtin_expect(pin.on, 0) && pin.coll == coll) { /* calibration (vred_front_pin) */
        *alg = pin.alg;
        return vred_select_fn(coll, pin.alg);
    }
    const select_memo *m = memo_of(coll, vc, bytes);
    if (m) {
        *alg = m->alg;
        return m->fn;
    }
    uint64_t gen = __atomic_load_n(&vred_front_gen, __ATOMIC_ACQUIRE); /* before what it covers */
    int k = vred_select_to_learn(coll, vc, bytes);
    if (k >= 0) { /* the front owns the state; marked as pass_select marks */
        vred_shm_mpi_begin(mpi_mark_region(vc), coll, bytes);
        vred_learn((vred_comm *)vc, user_comm, coll, k);
        vred_shm_mpi_end();
        vred_front_invalidate(); /* the cells it wrote: nothing remembered during it stands */
    }
    vred_coll_fn fn = vred_select(coll, vc, bytes, alg);
    if (k < 0) /* (a class just measured bumped front_gen: the next call selects afresh) */
        selected[coll] = (select_memo){vc, bytes, gen, vc->shm_state, vc->cma_state, fn, *alg,
                                       vred_select_learned_nt(coll, vc, bytes, *alg)};
    return fn;
}

/* vred_select_learned_nt for the call select_learned has just selected. */
static int learned_nt(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg alg)
{
    const select_memo *m = memo_of(coll, vc, bytes);
    return m && m->alg == alg ? m->nt : vred_select_learned_nt(coll, vc, bytes, alg);
}

/* The call's scratch (the communicator's, and the leaders' view's for a hierarchical one): kept
 * or released by VRED_SCRATCH_LIMIT and what recent calls used (scratch.h). */
static void trim(const vred_comm *vc)
{
    vred_comm *w = (vred_comm *)vc; /* the front owns the state */
    vred_scratch_trim(&w->scratch);
    if (w->node && w->node->cross) vred_scratch_trim(&w->node->cross->scratch);
}

/* An algorithm returned an error on this rank: its peers may be waiting for it (fail.h). */
static _Noreturn void failed(vred_coll coll, vred_alg alg, int rc)
{
    char what[96];
    snprintf(what, sizeof what, "%s by vred's %s", vred_coll_name(coll), vred_alg_name(alg));
    vred_fail(what, rc);
}

/* This rank's buffers mod 64 (0..63), or a value no other rank has (64..127; with 2 ranks or
 * more, some rank's differs) where its own layout is already skewed: the allgather's blocks land
 * at rbuf + q * block, in line with every sender only if the block is whole lines and sbuf and
 * rbuf agree. */
static int skew_of(vred_coll coll, const vred_coll_args *a)
{
    uintptr_t s = (uintptr_t)a->sbuf % 64, r = (uintptr_t)a->rbuf % 64;
    if (coll == VRED_COLL_BCAST) return (int)r;
    return s == r && a->count % 64 == 0 ? (int)r : 64 + a->rank % 64;
}

/* The agreement's key (vred_front_agree): the skew in its low SKEW_BITS bits, above them 24 bits
 * of a hash of the message's bytes (bcast: the message; allgather: one block). Erroneous calls
 * whose ranks pass different byte counts then differ in the high bits of the least and the
 * greatest key, and go to the MPI, whose answer they are: served, the pipelined allgather read
 * each part at its own stride and its rounds moved the ranks' banks apart, so that every later
 * call read the wrong places (Open MPI 4.1, 2 ranks, 64 and 32 KiB blocks; the MPI alone
 * answers MPI_ERR_TRUNCATE on the short rank). Ranks whose bytes differ and hash alike (1 in
 * 2^24) are not told apart. */
enum { SKEW_BITS = 7 };

static int agree_key(vred_coll coll, const vred_coll_args *a)
{
    uint64_t bytes = (uint64_t)(a->count * a->esize);
    uint32_t hash = (uint32_t)((bytes * 0x9e3779b97f4a7c15ull) >> 40); /* 24 bits */
    return (int)(hash << SKEW_BITS | (uint32_t)skew_of(coll, a));
}

/* From the agreed keys (all[3] the least, -all[4] the greatest): 1 if the ranks' bytes differ. */
static int bytes_differ(const int all[5]) { return all[3] >> SKEW_BITS != -all[4] >> SKEW_BITS; }

/* Single copy reads straight from the peer's buffer, and the kernel's copy slows down when
 * source and destination differ mod 64, the more so the larger the copy: allgather, 2 ranks,
 * offsets 0/16 against 0/0 (Zen 4): 0.94x at 1 MiB, 0.76x at 16 MiB. The pipeline copies
 * through its own aligned slices and keeps its speed; aligned, it is slower than single copy
 * up to a few MiB and level above. Measured at 0/16, cma still won with blocks up to 2 MiB
 * (allgather of 4 MiB: 229 us against 280) and lost from 4 MiB (8 MiB: 690 us against 610).
 * So from VRED_FRONT_SKEW_MIN bytes per block the automatic choice trades cma for the pipeline
 * when the ranks' buffers are skewed; a pinned cma (VRED_<COLL>_ALG, vred_mpi_force) stays. But
 * that is Zen 4's kernel copy: on the Xeon guest (family 6 model 207) cma kept 0.97x of its
 * aligned time at 0/16 and 16 MiB, and the pipeline it traded for ran at 0.79x of it. So where
 * calibration measured cma faster than the pipeline on skewed buffers too (learn.c), it stays. */
static vred_coll_fn unskew(vred_coll coll, const vred_coll_args *a, vred_coll_fn fn,
                           vred_alg *alg)
{
    size_t bytes = a->count * a->esize;
    if (!a->skewed || *alg != VRED_ALG_CMA || bytes < VRED_FRONT_SKEW_MIN || pin.on ||
        __atomic_load_n(&forced[coll], __ATOMIC_RELAXED) != VRED_ALG_AUTO ||
        vred_config_get()->alg[coll] != VRED_ALG_AUTO ||
        vred_select_learned_skew_cma(coll, a->vc, bytes))
        return fn;
    vred_coll_fn pipe = vred_select_fn(coll, VRED_ALG_PIPE);
    if (!pipe) return fn;
    *alg = VRED_ALG_PIPE;
    return pipe;
}

int vred_front_run(vred_coll coll, vred_coll_args *a, int *rc, MPI_Comm user_comm)
{
    vred_alg alg;
    size_t bytes = a->count * a->esize;
    vred_coll_fn fn = select_learned(coll, a->vc, bytes, &alg, user_comm);
    /* A shared-memory algorithm needs the node's region, made here the first time (collective:
     * every rank selected alike). Select again the first time (the region and cross-memory
     * attach are known now: cma may have to give way to the pipeline), or without a region
     * (point-to-point or the MPI). */
    int fresh = a->vc->shm_state == 0;
    if (fn && a->count && a->size > 1 && vred_alg_is_shm(coll, alg) &&
        (!vred_node_get((vred_comm *)a->vc) || fresh)) { /* the front owns the state */
        vred_front_invalidate(); /* the region (or its absence) is known now */
        fn = vred_select(coll, a->vc, bytes, &alg);
    }
    fn = unskew(coll, a, fn, &alg);
    vred_front_last_alg = alg;
    if (!fn) return pass_select(coll, a->vc, bytes);
    vred_shm_note_call(coll, alg, bytes); /* named if its waits deadlock (shm/sync.c) */
    *rc = MPI_SUCCESS;
    if (a->count == 0) return 1;
    if (a->size == 1) single(coll, a);
    else if (!pin.on && learned_nt(coll, a->vc, bytes, alg)) { /* pinned: the caller's mode */
        vred_copy_set_call_mode(VRED_NT_ON); /* measured faster here (learn.c) */
        *rc = fn(a);
        vred_copy_set_call_mode(-1);
    } else *rc = fn(a);
    if (*rc < 0 && a->vc->node && a->vc->node->nodes == 1)
        *rc = -*rc; /* the ranks' arguments differ (coll.h), every rank knows it: reported below */
    else if (*rc < 0)
        failed(coll, alg, -*rc); /* across nodes the other nodes cannot know: end the job */
    else if (*rc != MPI_SUCCESS && a->size > 1)
        failed(coll, alg, *rc);
    trim(a->vc);
    if (*rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(user_comm, *rc);
    return 1;
}

/* The node's region where the ranks can meet there instead of in the MPI: one node whose region
 * is made, two ranks or more (then its node ranks are the communicator's). The same on every
 * rank: it depends only on the communicator's state. */
static vred_shm *node_region(const vred_coll_args *a)
{
    const vred_comm *vc = a->vc;
    if (a->size < 2 || vc->nodes != 1 || vc->shm_state != 1 || !vc->node) return NULL;
    return vc->node->shm;
}

int vred_front_agree(const vred_coll_args *a, int local_ok, int key, int all[5])
{
    /* The agreement also checks that every rank names the same root (allgather: 0 on every
     * rank): with different roots, erroneous, vred's algorithms would wait forever or move the
     * wrong bytes, and neither MPI checks it (docs/reliability.md, "Bad input"). On one node
     * through the control lines rather than an MPI allreduce. */
    vred_shm *s = node_region(a);
    if (s) {
        vred_shm_agree(s, a->root, local_ok, key, all);
        return 1;
    }
    int mine[5] = {local_ok, a->root, -a->root, key, -key};
    memcpy(all, mine, sizeof mine);
    return a->size < 2 ||
           vred_next()->Allreduce(mine, all, 5, MPI_INT, MPI_MIN, a->comm) == MPI_SUCCESS;
}

/* The node's region for a one-step bcast or allgather (shm/small.c), or NULL: the region as
 * above, the pipeline selected (a pinned cma keeps its own path), and a message that fits. The
 * same on every rank: it depends only on the selection, the communicator's state and the
 * bytes, which are. */
static vred_shm *small_region(vred_coll coll, const vred_coll_args *a, vred_alg alg)
{
    vred_shm *s = alg == VRED_ALG_PIPE ? node_region(a) : NULL;
    return s && vred_shm_small_fits(s, coll == VRED_COLL_BCAST, a->count, a->size) ? s : NULL;
}

/* What the ranks' agreement decided (all[] as vred_front_agree gives it, agreed = 0 if the
 * ranks could not agree): -1 to serve the call, else the front's return value. */
static int settle(int agreed, const int all[5], int local_ok, vred_alg alg, int *rc,
                  MPI_Comm user_comm)
{
    if (agreed && all[1] != -all[2]) {
        vred_front_last_alg = alg;
        *rc = MPI_ERR_ROOT; /* on every rank, through the user's handler */
        PMPI_Comm_call_errhandler(user_comm, *rc);
        return 1;
    }
    if (!agreed || !all[0]) {
        vred_front_last_alg = VRED_ALG_MPI;
        /* Not served here: the front noted why. Served here, not on another rank (or the ranks
         * could not agree: every rank sees the same failure). */
        return local_ok ? vred_pass(VRED_WHY_OTHER_RANK) : 0;
    }
    return -1;
}

/* A small bcast's receiver whose datatype is not contiguous: the root's n bytes are the packed
 * form of n / type_bytes elements of its type (equal type signatures, one machine's
 * representation: what MPI_Pack makes of the root's contiguous elements in Open MPI and MPICH
 * alike). */
static int unpack_to(void *ctx, const void *bytes, size_t n)
{
    const vred_front_unpack *u = ctx;
    int pos = 0, count = (int)(n / u->type_bytes);
    if (u->buf)
        return PMPI_Unpack(bytes, (int)n, &pos, u->buf, count, u->type, u->comm);
    /* MPI_BOTTOM (a datatype of absolute addresses), which MPICH 4.0's MPI_Unpack refuses as a
     * null pointer: a message to itself, sent as MPI_PACKED (received by any datatype of the
     * packed data's signature). */
    return PMPI_Sendrecv(bytes, (int)n, MPI_PACKED, 0, 0, MPI_BOTTOM, count, u->type, 0, 0,
                         MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

/* The one-step bcast (shm/small.c) and what it decided: the front's return value. */
static int small_bcast(vred_shm *s, vred_coll_args *a, int local_ok, vred_alg alg, int *rc,
                       MPI_Comm user_comm)
{
    int r = vred_shm_small_bcast(s, a->rbuf, a->count, a->root, local_ok,
                                 a->unpack ? unpack_to : NULL, (void *)a->unpack);
    if (r == VRED_SMALL_PASS) {
        vred_front_last_alg = VRED_ALG_MPI;
        return local_ok ? vred_pass(VRED_WHY_OTHER_RANK) : 0; /* as settle() */
    }
    vred_front_last_alg = alg;
    *rc = r;
    if (r != MPI_SUCCESS) PMPI_Comm_call_errhandler(user_comm, r);
    return 1;
}

/* The region for a pipelined bcast whose agreement rides in its first step, or NULL: the region
 * as above and the pipeline selected (shm/bcast_pipe.c). The same on every rank (the selection
 * and the communicator's state). */
static vred_shm *pipe_bcast_region(vred_coll coll, const vred_coll_args *a, vred_alg alg)
{
    return coll == VRED_COLL_BCAST && alg == VRED_ALG_PIPE ? node_region(a) : NULL;
}

/* That bcast: the agreement begun here (the message's bytes as its key: ranks whose counts
 * differ pass the call on, where the pipeline would wait for slices that never come), ended in
 * the pipeline; MPI_SUCCESS, or MPI_ERR_INTERN where the agreement did not let it serve. The
 * learned copy mode applies as in vred_front_run. */
static int pipe_bcast_run(vred_shm *s, vred_coll_args *a, vred_alg alg, int local_ok, int all[5])
{
    size_t bytes = a->count * a->esize;
    vred_shm_agree_begin(s, a->root, local_ok, (int)(bytes & INT32_MAX));
    vred_shm_args sa = {a->vc->node, NULL, a->esize, a->sbuf, a->rbuf, a->count, NULL, a->root};
    int nt = learned_nt(VRED_COLL_BCAST, a->vc, bytes, alg);
    if (nt) vred_copy_set_call_mode(VRED_NT_ON);
    int served = vred_shm_bcast_pipe_agreeing(&sa, local_ok, all);
    if (nt) vred_copy_set_call_mode(-1);
    return served ? MPI_SUCCESS : MPI_ERR_INTERN;
}

/* The front's side of pipe_bcast_run: the agreement's verdict as settle() gives it, and a
 * message size that differs between ranks (erroneous) passed to the MPI. */
static int pipe_bcast(vred_shm *s, vred_coll_args *a, int local_ok, vred_alg alg, int *rc,
                      MPI_Comm user_comm)
{
    int all[5], ret;
    int served = pipe_bcast_run(s, a, alg, local_ok, all) == MPI_SUCCESS;
    if ((ret = settle(1, all, local_ok, alg, rc, user_comm)) >= 0) return ret;
    if (!served) {
        vred_front_last_alg = VRED_ALG_MPI;
        return vred_pass(VRED_WHY_INVALID_ARG);
    }
    vred_front_last_alg = alg;
    *rc = MPI_SUCCESS;
    trim(a->vc);
    return 1;
}

int vred_front_run_agreed(vred_coll coll, vred_coll_args *a, int local_ok, int *rc,
                          MPI_Comm user_comm)
{
    vred_alg alg;
    if (!select_learned(coll, a->vc, a->count * a->esize, &alg, user_comm)) {
        vred_front_last_alg = VRED_ALG_MPI;
        return pass_select(coll, a->vc, a->count * a->esize);
    }
    int all[5], ret;
    vred_shm_note_call(coll, alg, a->count * a->esize);
    vred_shm *small = small_region(coll, a, alg);
    if (small && coll == VRED_COLL_BCAST)
        return small_bcast(small, a, local_ok, alg, rc, user_comm);
    vred_shm *piped = small ? NULL : pipe_bcast_region(coll, a, alg);
    if (piped) return pipe_bcast(piped, a, local_ok, alg, rc, user_comm);
    if (small) { /* the agreement and the data in one step */
        int moved = vred_shm_small_allgather(small, a->sbuf, a->rbuf, a->count, local_ok, all);
        if ((ret = settle(1, all, local_ok, alg, rc, user_comm)) >= 0) return ret;
        vred_front_last_alg = moved ? alg : VRED_ALG_MPI; /* moved: settle served it, so moved is 1 */
        *rc = MPI_SUCCESS;
        return 1;
    }
    int agreed = vred_front_agree(a, local_ok, agree_key(coll, a), all);
    int differ = agreed && all[0] && bytes_differ(all);
    if (differ) all[0] = 0; /* erroneous: the MPI's to answer (settle passes it on) */
    if ((ret = settle(agreed, all, local_ok, alg, rc, user_comm)) >= 0)
        return differ && all[1] == -all[2] ? vred_pass(VRED_WHY_INVALID_ARG) : ret;
    a->skewed = all[3] != -all[4]; /* the bytes agree: only the skews can differ */
    return vred_front_run(coll, a, rc, user_comm);
}

/* The extension API (include/vred_mpi.h, where each function is described). */

int vred_mpi_force(const char *collective, const char *algorithm)
{
    for (int c = 0; c < VRED_COLL_COUNT; c++)
        if (!strcmp(collective, vred_coll_name((vred_coll)c)))
            for (int g = 0; g < VRED_ALG_COUNT; g++)
                if (!strcmp(algorithm, vred_alg_name((vred_alg)g))) {
                    if (vred_select_force((vred_coll)c, (vred_alg)g)) return -1;
                    __atomic_store_n(&forced[c], (vred_alg)g, __ATOMIC_RELAXED);
                    vred_front_invalidate();
                    return 0;
                }
    return -1;
}

const char *vred_mpi_last_alg(void) { return vred_alg_name(vred_front_last_alg); }

int vred_mpi_nt(const char *mode)
{
    static const char *const names[] = {"auto", "on", "off"}; /* vred_nt_mode order */
    if (!strcmp(mode, "env")) {
        vred_copy_set_mode(-1);
        return 0;
    }
    for (int m = 0; m < 3; m++)
        if (!strcmp(mode, names[m])) {
            vred_copy_set_mode(m);
            return 0;
        }
    return -1;
}

int vred_mpi_predict(const char *collective, const char *algorithm, MPI_Comm comm, size_t bytes,
                     double *seconds)
{
    if (!vred_mpi_tables_init()) return -1;
    vred_comm *vc = vred_comm_get(comm);
    if (!vc) return -1;
    for (int c = 0; c < VRED_COLL_COUNT; c++)
        if (!strcmp(collective, vred_coll_name((vred_coll)c)))
            for (int g = 0; g < VRED_ALG_COUNT; g++)
                if (!strcmp(algorithm, vred_alg_name((vred_alg)g))) {
                    double t = vred_predict((vred_coll)c, (vred_alg)g, vc, bytes);
                    if (t < 0) return -1;
                    *seconds = t;
                    return 0;
                }
    return -1;
}
