/* MPI_Bcast (+ _c) through vred's algorithms; see coll_front.h for what passes through. */
#include "mpi/coll_front.h"

static int serve(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 int *rc)
{
    vred_coll_args a;
    size_t tbytes;
    int packed;
    if (count < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (buffer == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    if (!vred_front_begin_bytes(&a, comm, datatype, &tbytes, &packed)) return 0;
    /* An invalid root is the MPI's to report, but it goes into the agreement (as -1) like any
     * root: when only some ranks name one, every rank then gets MPI_ERR_ROOT, where passing
     * the call on at those ranks alone would leave the others waiting in the agreement. */
    int root_ok = root >= 0 && root < a.size;
    int ok = root_ok && packed && (count == 0 || buffer);
    if (!ok) { /* why, should the ranks agree to pass the call on */
        if (root_ok && !packed) vred_pass_type(datatype);
        else vred_pass(VRED_WHY_INVALID_ARG);
    }
    a.sbuf = a.rbuf = buffer; /* the root sends from it, the others receive into it */
    vred_front_unpack u = {buffer, datatype, tbytes, comm};
    /* (buffer may be MPI_BOTTOM, null, with a datatype of absolute addresses: the front's
     * unpack_to handles it.) */
    if (root_ok && !packed && a.rank != root) a.unpack = &u;
    a.count = (size_t)count * tbytes; /* bytes: the same on every rank */
    a.root = root_ok ? root : -1;
    return vred_front_run_agreed(VRED_COLL_BCAST, &a, ok, rc, comm);
}

/* The C binding's two forms (int counts, and MPI-4's MPI_Count ones) differ only in the count
 * type: one front each, from this macro. */
#define VRED_BCAST_FRONT(NAME, CT)                                                                  \
    VRED_API int MPI_##NAME(void *buffer, CT count, MPI_Datatype datatype, int root,                \
                            MPI_Comm comm)                                                          \
    {                                                                                               \
        VRED_FRONT_BODY(VRED_SC_BCAST, vred_front_known_pass(VRED_COLL_BCAST, comm, datatype, count), \
                        serve(buffer, count, datatype, root, comm, &rc),                            \
                        vred_next()->NAME(buffer, count, datatype, root, comm),                     \
                        vred_stats_bytes(count, datatype))                                          \
    }                                                                                               \
    VRED_PMPI(NAME, (void *buffer, CT count, MPI_Datatype datatype, int root, MPI_Comm comm),       \
              (buffer, count, datatype, root, comm))

VRED_BCAST_FRONT(Bcast, int)
#if MPI_VERSION >= 4
VRED_BCAST_FRONT(Bcast_c, MPI_Count)
#endif
