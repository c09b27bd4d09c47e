/* The collectives of tests/mpi/bad_input.c: valid arguments, one call, the result's checksum. */
#include <stdlib.h>
#include <string.h>
#include "bad_input.h"

const char *const bi_coll_name[2 * BI_NBASE] = {
    "MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter",
    "MPI_Scan", "MPI_Exscan", "MPI_Bcast", "MPI_Allgather",
    "MPI_Allreduce_c", "MPI_Reduce_c", "MPI_Reduce_scatter_block_c", "MPI_Reduce_scatter_c",
    "MPI_Scan_c", "MPI_Exscan_c", "MPI_Bcast_c", "MPI_Allgather_c"};

/* Elements per rank: 128 KiB of MPI_INT, which vred serves with its own algorithms. */
enum { N = 1 << 15 };

void bi_args_valid(bi_args *a, int coll, MPI_Comm comm, int rank, int nprocs)
{
    memset(a, 0, sizeof *a);
    size_t elems = (size_t)N * (size_t)nprocs; /* the largest buffer: allgather's, RSB's input */
    int *s = malloc(elems * sizeof *s), *r = malloc(elems * sizeof *r);
    for (size_t i = 0; i < elems; i++) {
        s[i] = (int)(i * 7 + (size_t)rank * 13);
        r[i] = (int)(i * 3 + 1);
    }
    a->sbuf = a->smem = s;
    a->rbuf = a->rmem = r;
    a->rbytes = elems * sizeof *r;
    a->count = a->scount = N;
    a->dt = a->sdt = MPI_INT;
    a->op = MPI_SUM;
    a->root = nprocs - 1;
    a->comm = comm;
    a->counts = malloc((size_t)nprocs * sizeof *a->counts);
    a->ccounts = malloc((size_t)nprocs * sizeof *a->ccounts);
    for (int i = 0; i < nprocs; i++) a->counts[i] = a->ccounts[i] = N;
    /* Bcast's buffer is the one compared. */
    if (coll % BI_NBASE == BI_BCAST) a->sbuf = a->rbuf;
}

void bi_args_free(bi_args *a)
{
    free(a->smem);
    free(a->rmem);
    free(a->counts);
    free(a->ccounts);
}

int bi_call(const bi_api *f, int coll, const bi_args *a)
{
    int n = (int)a->count;
    switch (coll) {
    case BI_ALLREDUCE: return f->allreduce(a->sbuf, a->rbuf, n, a->dt, a->op, a->comm);
    case BI_REDUCE: return f->reduce(a->sbuf, a->rbuf, n, a->dt, a->op, a->root, a->comm);
    case BI_RSB: return f->rsb(a->sbuf, a->rbuf, n, a->dt, a->op, a->comm);
    case BI_RS: return f->rs(a->sbuf, a->rbuf, a->counts, a->dt, a->op, a->comm);
    case BI_SCAN: return f->scan(a->sbuf, a->rbuf, n, a->dt, a->op, a->comm);
    case BI_EXSCAN: return f->exscan(a->sbuf, a->rbuf, n, a->dt, a->op, a->comm);
    case BI_BCAST: return f->bcast(a->rbuf, n, a->dt, a->root, a->comm);
    case BI_ALLGATHER:
        return f->allgather(a->sbuf, (int)a->scount, a->sdt, a->rbuf, n, a->dt, a->comm);
#if MPI_VERSION >= 4
    case BI_NBASE + BI_ALLREDUCE:
        return f->allreduce_c(a->sbuf, a->rbuf, a->count, a->dt, a->op, a->comm);
    case BI_NBASE + BI_REDUCE:
        return f->reduce_c(a->sbuf, a->rbuf, a->count, a->dt, a->op, a->root, a->comm);
    case BI_NBASE + BI_RSB: return f->rsb_c(a->sbuf, a->rbuf, a->count, a->dt, a->op, a->comm);
    case BI_NBASE + BI_RS:
        return f->rs_c(a->sbuf, a->rbuf, a->counts ? a->ccounts : NULL, a->dt, a->op, a->comm);
    case BI_NBASE + BI_SCAN:
        return f->scan_c(a->sbuf, a->rbuf, a->count, a->dt, a->op, a->comm);
    case BI_NBASE + BI_EXSCAN:
        return f->exscan_c(a->sbuf, a->rbuf, a->count, a->dt, a->op, a->comm);
    case BI_NBASE + BI_BCAST: return f->bcast_c(a->rbuf, a->count, a->dt, a->root, a->comm);
    case BI_NBASE + BI_ALLGATHER:
        return f->allgather_c(a->sbuf, a->scount, a->sdt, a->rbuf, a->count, a->dt, a->comm);
#endif
    }
    return -1;
}

unsigned long bi_sum(const bi_args *a)
{
    const unsigned char *p = a->rmem;
    unsigned long s = 0;
    for (size_t i = 0; i < a->rbytes; i++) s = s * 31 + p[i];
    return s;
}
