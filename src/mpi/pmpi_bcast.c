/* MPI_Bcast (+ _c) through vred's algorithms; see coll_front.h for what passes through. */
#include "coll_front.h"

static int serve(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 int *rc)
{
    vred_coll_args a;
    if (count < 0 || buffer == MPI_IN_PLACE) return 0;
    if (count > 0 && !buffer) return 0;
    if (!vred_front_begin_bytes(&a, comm, datatype)) return 0;
    /* After begin: an invalid root is the MPI's to report, and begin told us the size. */
    if (root < 0 || root >= a.size) return 0;
    a.sbuf = a.rbuf = buffer; /* the root sends from it, the others receive into it */
    a.count = (size_t)count;
    a.root = root;
    return vred_front_run(VRED_COLL_BCAST, &a, rc, comm);
}

VRED_MPI_EXPORT int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm)
{
    int rc;
    if (serve(buffer, count, datatype, root, comm, &rc)) return rc;
    vred_front_passed();
    return PMPI_Bcast(buffer, count, datatype, root, comm);
}

#if MPI_VERSION >= 4
VRED_MPI_EXPORT int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                                MPI_Comm comm)
{
    int rc;
    if (serve(buffer, count, datatype, root, comm, &rc)) return rc;
    vred_front_passed();
    return PMPI_Bcast_c(buffer, count, datatype, root, comm);
}
#endif
