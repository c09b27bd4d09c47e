/*
 * Per-communicator state. The private communicator is made with PMPI_Comm_split (same group,
 * same order) rather than PMPI_Comm_dup, which would run the user's attribute copy callbacks.
 * Node structure: ranks with the same node key share a node; the key is the world rank of the
 * node's first rank (MPI_COMM_TYPE_SHARED) or world rank / VRED_NODE_SIZE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include "mpi/comm.h"
#include "mpi/learn.h"
#include "next/next.h"
#include "mpi/types.h"
#include "coll/shm/node.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* The last communicator each thread used and its state: a collective that then goes to the MPI
 * (small messages) should not pay an attribute lookup. Any state freed bumps the generation,
 * which invalidates every thread's entry (a freed handle may be reused by a new communicator). */
static uint64_t generation;
static __thread struct {
    MPI_Comm comm;
    vred_comm *vc;
    uint64_t gen;
} last;

static void destroy(vred_comm *vc)
{
    __atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
    /* During PMPI_Finalize (an MPI deleting the attributes of communicators the user never
     * freed) the private communicator goes with the MPI. */
    int fini = 0;
    PMPI_Finalized(&fini);
    int alive = !fini && __atomic_load_n(&vred_mpi_state, __ATOMIC_ACQUIRE) != VRED_MPI_FINALIZED;
    vred_node_free(vc->node, alive);
    if (vc->comm != MPI_COMM_NULL && alive) PMPI_Comm_free(&vc->comm);
    vred_scratch_free(&vc->scratch);
    free(vc->counts);
    free(vc);
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    destroy(val);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* This rank's node key (equal on exactly the ranks of its node). */
static int node_key(MPI_Comm comm)
{
    int wrank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int k = vred_config_get()->node_size;
    if (k > 0) return wrank / k;
    MPI_Comm node;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return wrank; /* cannot tell: every rank its own node */
    int key = wrank;
    vred_next()->Allreduce(MPI_IN_PLACE, &key, 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    return key;
}

/* nodes and ranks per node from every rank's node key. */
static int shape(vred_comm *vc, int key, int *keys)
{
    int p = vc->size;
    int rc = vred_next()->Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, vc->comm);
    if (rc == MPI_SUCCESS) {
        qsort(keys, (size_t)p, sizeof *keys, cmp_int);
        vc->nodes = 0;
        vc->ppn = 0;
        for (int i = 0, run = 0; i < p; i++) {
            run = i && keys[i] == keys[i - 1] ? run + 1 : 1;
            if (run == 1) vc->nodes++;
            if (run > vc->ppn) vc->ppn = run;
        }
    }
    return rc;
}

static vred_comm *create(MPI_Comm comm)
{
    int rank = 0, size = 0, key, ok;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    vred_comm *vc = calloc(1, sizeof *vc);
    int *keys = malloc((size_t)size * sizeof *keys);
    size_t *counts = malloc((size_t)size * sizeof *counts);
    /* Every rank must take the same path: one rank out of memory gives up for all, before any
     * collective of vred's own could leave the others waiting for it. */
    ok = vc && keys && counts;
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS ||
        !ok) {
        free(keys);
        free(counts);
        free(vc);
        return NULL;
    }
    vc->counts = counts;
    vc->comm = MPI_COMM_NULL;
    if (PMPI_Comm_split(comm, 0, rank, &vc->comm) != MPI_SUCCESS) goto fail;
    /* vred's own calls report to vred, which reports to the user's communicator. */
    PMPI_Comm_set_errhandler(vc->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(vc->comm, &vc->rank);
    PMPI_Comm_size(vc->comm, &vc->size);
    key = node_key(vc->comm);
    vc->node_key = key;
    if (shape(vc, key, keys) != MPI_SUCCESS) goto fail;
    /* One model for the whole communicator, so that every rank selects alike. */
    if (vc->rank == 0) vred_model_load(&vc->model);
    if (vred_next()->Bcast(&vc->model, sizeof vc->model, MPI_BYTE, 0, vc->comm) != MPI_SUCCESS ||
        vred_learn_load(vc) != MPI_SUCCESS)
        goto fail;
    free(keys);
    return vc;
fail:
    free(keys);
    destroy(vc);
    return NULL;
}

static vred_comm *remember(MPI_Comm comm, vred_comm *vc, uint64_t gen)
{
    last.comm = comm;
    last.vc = vc;
    last.gen = gen;
    return vc;
}

vred_comm *vred_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return NULL;
    uint64_t gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    if (last.vc && last.comm == comm && last.gen == gen) return last.vc;
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return NULL;
    pthread_once(&keyval_once, make_keyval);
    if (keyval == MPI_KEYVAL_INVALID) return NULL;
    void *val = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS) return NULL;
    if (flag) return remember(comm, val, gen);
    /* Every rank of comm gets here on the same call: creation is collective and consistent. */
    vred_comm *vc = create(comm);
    if (!vc) return NULL;
    if (PMPI_Comm_set_attr(comm, keyval, vc) != MPI_SUCCESS) {
        destroy(vc);
        return NULL;
    }
    return remember(comm, vc, __atomic_load_n(&generation, __ATOMIC_ACQUIRE));
}

void vred_comm_finalize(void)
{
    if (keyval == MPI_KEYVAL_INVALID) return;
    /* Deleting the attribute runs delete_fn, which frees the private communicator while MPI
     * still runs. */
    MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        void *val;
        int flag = 0;
        if (PMPI_Comm_get_attr(comms[i], keyval, &val, &flag) == MPI_SUCCESS && flag)
            PMPI_Comm_delete_attr(comms[i], keyval);
    }
    PMPI_Comm_free_keyval(&keyval);
}
