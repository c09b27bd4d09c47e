/* The cases of tests/mpi/bad_input.c: each edits a valid call (bad_input_calls.c). */
#include <stdlib.h>
#include "bad_input.h"

static MPI_Op user_sum, user_noncomm;
static MPI_Datatype pair, strided, loose; /* loose: pair's twin, never committed */

static void set_count(bi_args *a, MPI_Count n, int nprocs)
{
    a->count = a->scount = n;
    for (int i = 0; i < nprocs; i++) a->counts[i] = (int)(a->ccounts[i] = n);
}

static void neg_count(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank;
    set_count(a, -1, nprocs);
}
static void null_bufs(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->sbuf = a->rbuf = NULL;
}
static void null_send(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->sbuf = NULL;
}
static void null_recv(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->rbuf = NULL;
}
static void null_type(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->dt = a->sdt = MPI_DATATYPE_NULL;
}
static void null_sendtype(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->sdt = MPI_DATATYPE_NULL;
}
static void null_op(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->op = MPI_OP_NULL;
}
static void band_float(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->dt = MPI_FLOAT;
    a->op = MPI_BAND;
}
static void root_size(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank;
    a->root = nprocs;
}
static void root_neg(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->root = -1;
}
static void comm_null(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->comm = MPI_COMM_NULL;
}
static void recv_in_place(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->rbuf = MPI_IN_PLACE;
}
static void counts_null(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->counts = NULL; /* the _c variant passes NULL too (bi_call); bi_args_free frees ccounts */
}
static void op_user(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->op = user_sum;
}
static void op_noncomm(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->op = user_noncomm;
}
/* Pairs of ints, half as many: the same bytes through a derived type. */
static void type_pair(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank;
    set_count(a, a->count / 2, nprocs);
    a->dt = a->sdt = pair;
}
static void type_pair_user(bi_args *a, int coll, int rank, int nprocs)
{
    type_pair(a, coll, rank, nprocs);
    a->op = user_sum;
}
/* Every other int (bcast, allgather): a layout vred does not read. */
static void type_strided(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank;
    set_count(a, a->count / 2 / 64, nprocs);
    a->dt = a->sdt = strided;
}
/* The pairs through a contiguous type the program never committed (erroneous: MPI-4.1 5.1.9):
 * vred served it in bcast and allgather, moving its bytes, where the MPI answers
 * MPI_ERR_TYPE. */
static void type_loose(bi_args *a, int coll, int rank, int nprocs)
{
    type_pair(a, coll, rank, nprocs);
    a->dt = a->sdt = loose;
}
/* Allgather's sendtype alone uncommitted (ints as pairs, as sendtype_pair). */
static void sendtype_loose(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->scount = a->count / 2;
    a->sdt = loose;
}
/* Allgather sending N ints as N/2 pairs: the same signature, different types. */
static void sendtype_pair(bi_args *a, int coll, int rank, int nprocs)
{
    (void)coll, (void)rank, (void)nprocs;
    a->scount = a->count / 2;
    a->sdt = pair;
}

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int n = *len, size = 4;
    MPI_Type_size(*dt, &size);
    n *= size / 4; /* MPI_INT or pairs of it */
    for (int i = 0; i < n; i++) ((int *)inout)[i] += ((int *)in)[i];
}
/* Not commutative: the MPI must keep the ranks' order. */
static void noncomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = ((int *)in)[i] * 3 - ((int *)inout)[i];
}

void bi_cases_init(void)
{
    MPI_Op_create(sum_fn, 1, &user_sum);
    MPI_Op_create(noncomm_fn, 0, &user_noncomm);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(64, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Type_contiguous(2, MPI_INT, &loose);
}

void bi_cases_free(void)
{
    MPI_Op_free(&user_sum);
    MPI_Op_free(&user_noncomm);
    MPI_Type_free(&pair);
    MPI_Type_free(&strided);
    MPI_Type_free(&loose);
}

#define RED BI_REDUCTIONS
#define ROOTED (BI_BIT(BI_REDUCE) | BI_BIT(BI_BCAST))
/* Where every rank's receive buffer is significant (Reduce: the root's; Exscan: not rank 0's). */
#define RECV_ALL (BI_BIT(BI_ALLREDUCE) | BI_BIT(BI_RSB) | BI_BIT(BI_RS) | BI_BIT(BI_SCAN) |      \
                  BI_BIT(BI_ALLGATHER))
#define MOVE (BI_BIT(BI_BCAST) | BI_BIT(BI_ALLGATHER))

/* Isolated (1 in the fourth column): MPICH 4.0 crashes on a negative count in the reductions
 * (it does not check it) and on null recvcounts, Open MPI 4.1 on null buffers and on
 * MPI_COMM_NULL in MPI_Allgather, MPICH 5.0 on MPI_DATATYPE_NULL (an assertion, dt_ptr in
 * mpir_datatype.h) as a datatype and as allgather's sendtype. Null send and receive buffers
 * apart: together they are the union of the two. */
const bi_case bi_cases[] = {
    {"count -1", BI_ALL, 1, 1, neg_count, 0},
    {"null buffer", BI_BIT(BI_BCAST), 1, 1, null_bufs, 0},
    {"null send buffer", RED | BI_BIT(BI_ALLGATHER), 1, 1, null_send, 0},
    {"null receive buffer", RECV_ALL, 1, 1, null_recv, 0},
    {"MPI_DATATYPE_NULL", BI_ALL, 1, 1, null_type, 0},
    {"null sendtype", BI_BIT(BI_ALLGATHER), 1, 1, null_sendtype, 0},
    {"MPI_OP_NULL", RED, 1, 0, null_op, 0},
    {"MPI_BAND on MPI_FLOAT", RED, 1, 0, band_float, 0},
    {"root = size", ROOTED, 1, 0, root_size, 0},
    {"root = -1", ROOTED, 1, 0, root_neg, 0},
    {"MPI_COMM_NULL", BI_ALL, 1, 1, comm_null, 0},
    {"recvbuf MPI_IN_PLACE", RECV_ALL, 1, 1, recv_in_place, 0},
    {"recvcounts NULL", BI_BIT(BI_RS), 1, 1, counts_null, 0},
    {"user op", RED, 0, 0, op_user, 0},
    {"user op, noncommutative", RED, 0, 0, op_noncomm, 0},
    {"contiguous type", BI_ALL, 0, 0, type_pair, 1},
    {"user op, contiguous type", RED, 0, 0, type_pair_user, 0},
    {"vector type", MOVE, 0, 0, type_strided, 0},
    {"sendtype differs", BI_BIT(BI_ALLGATHER), 0, 0, sendtype_pair, 1},
    {"uncommitted type", BI_ALL, 1, 0, type_loose, 0},
    {"uncommitted sendtype", BI_BIT(BI_ALLGATHER), 1, 0, sendtype_loose, 0},
};
const int bi_ncases = sizeof bi_cases / sizeof bi_cases[0];
