/*
 * What every reduction collective's PMPI front does: decide whether vred serves the call, fill
 * the argument block, pick the algorithm, run it, report errors through the communicator's
 * error handler. A call vred does not serve goes to the MPI library untouched.
 */
#ifndef VRED_MPI_COLL_FRONT_H
#define VRED_MPI_COLL_FRONT_H

#include "coll/coll.h"
#include "coll/shm/sync.h"
#include "mpi/pmpi_define.h"
#include "mpi/stats.h"
#include "vred_mpi.h"


/*
 * The body of a collective's MPI_<X>, with rc declared: KNOWN is an expression, 1 if the call
 * is one the selection passed before (vred_front_known_pass; not evaluated while counting),
 * then the MPI's call is the function's last act (a tail call: no frame of vred's around it);
 * SERVE is an expression, 1 if vred served the call (its result in rc) and 0 if not, having
 * noted why (vred_pass); PASS is the MPI's call. Counting (VRED_STATS), the call is timed and
 * counted as COLL (a vred_stats_coll) with BYTES, an expression that may read the call's
 * arguments (evaluated after the call, when it succeeded or vred served it). Not counting, one
 * branch. A known pass has no mark to end (vred_front_pass_end): only the selection's pass and a
 * calibration set one, and both end it before the application's call returns.
 */
#define VRED_FRONT_BODY(COLL, KNOWN, SERVE, PASS, BYTES)                                        \
    int rc;                                                                                     \
    if (__builtin_expect(vred_stats_on != 0, 0)) {                                              \
        uint64_t t0_ = vred_stats_now();                                                        \
        if (SERVE) {                                                                            \
            vred_stats_served(COLL, vred_front_alg(), (BYTES), t0_);                            \
        } else {                                                                                \
            vred_front_passed();                                                                \
            rc = PASS;                                                                          \
            vred_front_pass_end();                                                              \
            vred_stats_passed(COLL, rc == MPI_SUCCESS ? (BYTES) : 0, t0_);                      \
        }                                                                                       \
        return rc;                                                                              \
    }                                                                                           \
    if (KNOWN) {                                                                                \
        vred_front_passed();                                                                    \
        return PASS;                                                                            \
    }                                                                                           \
    if (SERVE) return rc;                                                                       \
    vred_front_passed();                                                                        \
    rc = PASS;                                                                                  \
    vred_front_pass_end();                                                                      \
    return rc;

/* Fill a for (comm, datatype, op) if vred may serve it: 1, else 0 (pass through, the reason
 * noted). Every 0 a front returns notes its reason the same way (vred_pass, stats.h). */
int vred_front_begin(vred_coll_args *a, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op);

/* Fill a for moving bytes (bcast, allgather: no op, a->e NULL, a->esize 1: the algorithms see
 * bytes, the one thing equal on every rank, since the MPI lets ranks use different datatypes
 * of the same type signature). 1, else 0 (pass through; the same on every rank: it depends
 * only on comm and the MPI's state). *type_bytes: the datatype's size. *packed: 1 if on this
 * rank count elements are count * size contiguous bytes (a named type with size == extent ==
 * true extent, true lb 0, or a committed contiguous type over one: vred_front_packed_size);
 * this may differ between ranks, see vred_front_run_agreed. */
int vred_front_begin_bytes(vred_coll_args *a, MPI_Comm comm, MPI_Datatype datatype,
                           size_t *type_bytes, int *packed);

/* The bytes of one element of datatype if it is a named type whose elements are packed (size ==
 * extent == true extent, true lb 0), or a committed contiguous derived type over one, else 0.
 * probe: a communicator of vred's whose errors return (a->comm), which asks a derived type
 * whether it is committed (an uncommitted one is the MPI's to refuse). */
size_t vred_front_packed_size(MPI_Datatype datatype, MPI_Comm probe);
/* At MPI_Finalize: what the front keeps of the MPI's (the committed types' keyval). */
void vred_front_finalize(void);

/* Select and run. 1 if vred served the call (*rc = its result), 0 if the MPI library must. */
int vred_front_run(vred_coll coll, vred_coll_args *a, int *rc, MPI_Comm user_comm);

/* vred_front_run for a call whose servability on this rank (local_ok) may differ between ranks:
 * when the selection picks a vred algorithm (equal on every rank), the ranks agree first
 * (vred_front_agree, or the one-step path of small calls) and all pass the call to the MPI
 * unless every rank can be served. Calls the selection passes pay nothing. The agreement compares
 * a->root (set it to the same value on every rank when the collective has none): different
 * roots give MPI_ERR_ROOT on every rank, through the communicator's error handler. The one-step
 * bcast (shm/small.c) is the exception: its root does not wait, the root's local_ok alone
 * decides, a receiver not local_ok is served through a->unpack where the front gives one, and
 * a rank that names itself root is not told of different roots. */
int vred_front_run_agreed(vred_coll coll, vred_coll_args *a, int local_ok, int *rc,
                          MPI_Comm user_comm);

/* A bcast receiver whose datatype is not contiguous (a->unpack): the root of a small bcast does
 * not wait for its receivers' agreement (shm/small.c), so such a receiver is served by unpacking
 * the root's bytes into buf (PMPI_Unpack; at MPI_BOTTOM, buf null with a datatype of absolute
 * addresses, by a message to itself) instead of every rank passing the call on. */
typedef struct {
    void *buf;
    MPI_Datatype type;
    size_t type_bytes; /* the datatype's size */
    MPI_Comm comm;     /* the user's */
} vred_front_unpack;

/* vred_front_run_agreed's agreement: through the node's control lines where the communicator
 * is one node whose region is made (vred_shm_agree), else one allreduce. all[0] = 1 if every
 * rank's local_ok is,
 * all[1] = the least root, -all[2] = the greatest; all[3] = the least key, -all[4] = the
 * greatest (vred_front_run_agreed's: the message's bytes and the buffers' offsets mod 64; equal
 * keys, equal bytes and no skew). 0 if the allreduce failed. (Also
 * timed by the learned selection, which must measure what a call costs.) */
int vred_front_agree(const vred_coll_args *a, int local_ok, int key, int all[5]);

/*
 * Calls the selection passed to the MPI, remembered per thread and collective, so that the
 * next call alike (the same communicator, predefined datatype and count: the same bytes) goes
 * straight to the MPI without the datatype, state and selection lookups (about 30 ns, 3-6% of
 * a 4 KiB bcast or allgather). Anything that can change a selection bumps vred_front_gen:
 * vred_mpi_force, a class learned, a node's region made, a communicator's state freed (its
 * handle may come back as another communicator). Only predefined datatypes, whose handles and
 * sizes never change: every rank then passes the call exactly where its own selection would,
 * as the ranks must (one in the MPI and another in vred's algorithm would wait forever).
 * Inline, first in each MPI_<X> (VRED_FRONT_BODY), with the MPI's call as a tail call: a call
 * of a few bytes that the MPI serves takes 90-250 ns, and vred's layer over it took 15-25 with
 * the check and the bookkeeping out of line, 0.78-0.97x of the MPI alone (Open MPI 4.1, Xeon
 * guest, 2 ranks, bcast, reduce, allreduce of 4-256 B); now 0.96-1.04x (medians).
 */
typedef struct {
    MPI_Comm comm;
    MPI_Datatype datatype;
    MPI_Count count;
    uint64_t gen;
    int coll;
} vred_pass_key;
extern uint64_t vred_front_gen;
extern VRED_TLS vred_pass_key vred_front_passed_calls[VRED_COLL_COUNT], vred_front_pending;

/* 1 if this thread's last call of coll with these arguments was passed to the MPI by the
 * selection and nothing that could change it has happened since: the front passes it at once
 * (VRED_FRONT_BODY's KNOWN, not asked while counting: counted calls keep their exact reason). 0
 * otherwise, the arguments kept in case the selection passes this call too. */
static inline int vred_front_known_pass(vred_coll coll, MPI_Comm comm, MPI_Datatype datatype,
                                        MPI_Count count)
{
    uint64_t gen = __atomic_load_n(&vred_front_gen, __ATOMIC_ACQUIRE);
    const vred_pass_key *k = &vred_front_passed_calls[coll];
    if (k->gen == gen && k->comm == comm && k->datatype == datatype && k->count == count)
        return 1;
    vred_front_pending = (vred_pass_key){comm, datatype, count, gen, (int)coll};
    return 0;
}

/* A call that has no key for vred_front_known_pass (MPI_Reduce_scatter's counts): the arguments
 * of an earlier call are not kept for it, so that if the selection passes it, nothing is
 * remembered. */
void vred_front_no_pass_key(void);

/* Forget every vred_front_known_pass: a selection may change (comm.c, learn.c, the front). */
void vred_front_invalidate(void);

/* Calibration (learn.c) times vred's candidates the way an application's call runs, through
 * the public entry (vred_own_MPI_<name>: the datatype and op lookups, the communicator's state,
 * the selection, the agreement of a bcast or allgather, the scratch's trim): on this thread,
 * until vred_front_unpin, the selection of coll gives alg (and no other copy mode than the
 * caller's), VRED_STATS does not count the calls, and the front's memory of the thread's last
 * pass (vred_front_known_pass) is left as it was. */
void vred_front_pin(vred_coll coll, vred_alg alg);
void vred_front_unpin(void);
/* 1 while this thread's selection is pinned (VRED_STATS leaves those calls out). */
int vred_front_pinned(void);
/* The entries calibration calls (defined by the fronts, VRED_PMPI in pmpi_define.h). */
extern __typeof__(MPI_Reduce) vred_own_Reduce __attribute__((visibility("hidden")));
extern __typeof__(MPI_Allreduce) vred_own_Allreduce __attribute__((visibility("hidden")));
extern __typeof__(MPI_Reduce_scatter_block) vred_own_Reduce_scatter_block
    __attribute__((visibility("hidden")));
extern __typeof__(MPI_Scan) vred_own_Scan __attribute__((visibility("hidden")));
extern __typeof__(MPI_Bcast) vred_own_Bcast __attribute__((visibility("hidden")));
extern __typeof__(MPI_Allgather) vred_own_Allgather __attribute__((visibility("hidden")));

/* Bytes (bcast: the message; allgather: one block) from which an automatic cma call whose ranks'
 * buffers are skewed goes to the pipeline instead, unless calibration found cma faster there
 * too (coll_front.c, unskew; learn.c). */
enum { VRED_FRONT_SKEW_MIN = 4 << 20 };

/* The algorithm (a vred_alg) of this thread's last reduction collective. */
extern VRED_TLS int vred_front_last_alg;
int vred_front_alg(void);

/* For the fronts: note that the MPI library serves this call; and that it has returned (the
 * selection's pass is marked until then: shm/sync.h, vred_shm_mpi_begin). */
static inline void vred_front_passed(void) { vred_front_last_alg = VRED_ALG_MPI; }
static inline void vred_front_pass_end(void) { vred_shm_mpi_end(); }

#endif
