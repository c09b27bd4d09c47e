/*
 * Per-communicator state. The private communicator is made with PMPI_Comm_split (same group,
 * same order) rather than PMPI_Comm_dup, which would run the user's attribute copy callbacks.
 * Node structure: ranks with the same node key share a node; the key is the world rank of the
 * node's first rank (MPI_COMM_TYPE_SHARED) or world rank / VRED_NODE_SIZE.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include "mpi/coll_front.h"
#include "mpi/comm.h"
#include "mpi/learn.h"
#include "next/next.h"
#include "mpi/types.h"
#include "coll/link_fit.h"
#include "coll/shm/node.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* Communicators with vred's state (each holds one private communicator of the MPI's: MPICH has
 * about 2,000 a process), bounded by VRED_COMM_LIMIT. A communicator refused for want of room
 * keeps `refused` as its attribute: its calls go to the MPI without asking again. */
static int live;
static char refused;

/* The last communicator each thread used and its state: a collective that then goes to the MPI
 * (small messages) should not pay an attribute lookup. Any state freed bumps the generation,
 * which invalidates every thread's entry (a freed handle may be reused by a new communicator). */
static uint64_t generation;
static VRED_TLS struct {
    MPI_Comm comm;
    vred_comm *vc;
    uint64_t gen;
} last;

static void destroy(vred_comm *vc)
{
    __atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
    vred_front_invalidate();
    /* During PMPI_Finalize (an MPI deleting the attributes of communicators the user never
     * freed) the private communicator goes with the MPI. */
    int fini = 0;
    PMPI_Finalized(&fini);
    int alive = !fini && __atomic_load_n(&vred_mpi_state, __ATOMIC_ACQUIRE) != VRED_MPI_FINALIZED;
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    vred_node_free(vc->node, alive);
    if (vc->comm != MPI_COMM_NULL && alive) PMPI_Comm_free(&vc->comm);
    vred_scratch_free(&vc->scratch);
    free(vc->counts);
    free(vc);
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    if (val != &refused) destroy(val);
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

/*
 * The link between nodes, measured (issue 17): the cost model's alpha_net and beta_net come from
 * a ping-pong between rank 0 and the first rank of another node, on the first communicator that
 * spans nodes (16 round trips of 8 bytes: alpha = the median / 2; then 2 of 256 KiB and 2 of
 * 1 MiB: beta from the difference of the fastest of each, but no less than the fastest 1 MiB
 * alone says; ~60 ms at 1 Gbit/s, ~7 ms at 10), and
 * from what this process measured or was given since (every rank keeps what rank 0 broadcast,
 * so a later communicator's rank 0 has it). Rank 0 alone decides and its model is broadcast:
 * every rank selects alike. VRED_TUNE_FILE given: its model is the user's, nothing measured.
 */
enum { TAG_LINK = 7399, LINK_SMALL_REPS = 16, LINK_BIG_REPS = 2, LINK_BIG = 1 << 20 };
static struct {
    int known;
    double alpha, beta;
} link_net;

int vred_mpi_link(double *alpha, double *beta)
{
    *alpha = link_net.alpha;
    *beta = link_net.beta;
    return link_net.known;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One round trip of n bytes between ranks a (starts) and b; its time on a. */
static double round_trip(MPI_Comm c, int me, int a, int b, char *buf, int n)
{
    double t0 = PMPI_Wtime();
    if (me == a) {
        PMPI_Send(buf, n, MPI_BYTE, b, TAG_LINK, c);
        PMPI_Recv(buf, n, MPI_BYTE, b, TAG_LINK, c, MPI_STATUS_IGNORE);
    } else {
        PMPI_Recv(buf, n, MPI_BYTE, a, TAG_LINK, c, MPI_STATUS_IGNORE);
        PMPI_Send(buf, n, MPI_BYTE, a, TAG_LINK, c);
    }
    return PMPI_Wtime() - t0;
}

/* Collective over vc->comm (vc->nodes > 1): rank 0's vc->model gets the link's alpha/beta. */
static int measure_link(vred_comm *vc, int key)
{
    int todo = vc->rank == 0 && !link_net.known && !vred_config_get()->tune_file, k0 = key;
    const vred_next_fns *nx = vred_next();
    if (nx->Bcast(&todo, 1, MPI_INT, 0, vc->comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
    if (!todo) {
        if (vc->rank == 0 && link_net.known) {
            vc->model.alpha_net = link_net.alpha;
            vc->model.beta_net = link_net.beta;
        }
        return MPI_SUCCESS;
    }
    /* The peer: the lowest rank on another node than rank 0. */
    int mine = INT32_MAX, peer = INT32_MAX;
    if (nx->Bcast(&k0, 1, MPI_INT, 0, vc->comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
    if (key != k0) mine = vc->rank;
    if (nx->Allreduce(&mine, &peer, 1, MPI_INT, MPI_MIN, vc->comm) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    if (vc->rank != 0 && vc->rank != peer) return MPI_SUCCESS;
    char *buf = calloc(LINK_BIG, 1);
    int ok = buf != NULL, both = 0;
    /* Both ends agree to go on (a failed allocation on one must not leave the other waiting). */
    PMPI_Sendrecv(&ok, 1, MPI_INT, vc->rank ? 0 : peer, TAG_LINK, &both, 1, MPI_INT,
                  vc->rank ? 0 : peer, TAG_LINK, vc->comm, MPI_STATUS_IGNORE);
    if (ok && both) {
        double rt[LINK_SMALL_REPS], mid = 1e9, big = 1e9;
        round_trip(vc->comm, vc->rank, 0, peer, buf, LINK_BIG); /* connection set-up */
        for (int i = 0; i < LINK_SMALL_REPS; i++)
            rt[i] = round_trip(vc->comm, vc->rank, 0, peer, buf, 8);
        /* the median (coll/link_fit.h says why) */
        qsort(rt, LINK_SMALL_REPS, sizeof rt[0], cmp_double);
        double small = rt[LINK_SMALL_REPS / 2];
        for (int i = 0; i < LINK_BIG_REPS; i++) {
            mid = fmin(mid, round_trip(vc->comm, vc->rank, 0, peer, buf, LINK_BIG / 4));
            big = fmin(big, round_trip(vc->comm, vc->rank, 0, peer, buf, LINK_BIG));
        }
        if (vc->rank == 0) {
            vred_link_fit f = vred_link_fit_round_trips(small, mid, big, LINK_BIG);
            if (f.beta > 0) {
                vc->model.alpha_net = f.alpha;
                vc->model.beta_net = f.beta;
            }
        }
    }
    free(buf);
    return MPI_SUCCESS;
}

/* Says once per process that VRED_COMM_LIMIT was reached. */
static void warn_full(void)
{
    static int warned;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "vred: %ld communicators already have vred's state (VRED_COMM_LIMIT); "
                        "collectives on more go to the MPI\n",
                vred_config_get()->comm_limit);
}

/* *full = 1 when the ranks agreed that some rank has no room for another state. */
static vred_comm *create(MPI_Comm comm, int *full)
{
    int rank = 0, size = 0, key, ok[2];
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    vred_comm *vc = calloc(1, sizeof *vc);
    int *keys = malloc((size_t)size * sizeof *keys);
    size_t *counts = malloc((size_t)size * sizeof *counts);
    /* Every rank must take the same path: one rank out of memory, or out of room under
     * VRED_COMM_LIMIT, gives up for all, before any collective of vred's own could leave the
     * others waiting for it. */
    int room = __atomic_load_n(&live, __ATOMIC_RELAXED) < vred_config_get()->comm_limit;
    ok[0] = vc && keys && counts;
    ok[1] = room;
    int agreed = vred_next()->Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS;
    if (!agreed || !ok[0] || !ok[1]) {
        *full = agreed && !ok[1];
        if (!room) warn_full();
        free(keys);
        free(counts);
        free(vc);
        return NULL;
    }
    __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED); /* destroy() takes it back */
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
    if (vc->nodes > 1 && measure_link(vc, key) != MPI_SUCCESS) goto fail;
    if (vred_next()->Bcast(&vc->model, sizeof vc->model, MPI_BYTE, 0, vc->comm) != MPI_SUCCESS ||
        vred_learn_load(vc) != MPI_SUCCESS)
        goto fail;
    if (vc->nodes > 1 && !vred_config_get()->tune_file) {
        link_net.alpha = vc->model.alpha_net;
        link_net.beta = vc->model.beta_net;
        link_net.known = 1;
    }
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
    if (flag) return val == &refused ? NULL : remember(comm, val, gen);
    /* Every rank of comm gets here on the same call: creation is collective and consistent. */
    int full = 0;
    vred_comm *vc = create(comm, &full);
    if (full) PMPI_Comm_set_attr(comm, keyval, &refused); /* on every rank alike */
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
