/*
 * The node view of a communicator (node.h): made once, by the first collective that selects a
 * shared-memory algorithm, on every rank of the communicator at the same call.
 */
#include <stdio.h>
#include <stdlib.h>
#include "coll/shm/node.h"
#include "coll/shm/cma.h"
#include "local/copy.h"
#include "local/topo.h"
#include "next/next.h"

/* I_max: two banks of p slices stay in a core's L2 at 2 ranks (measured: docs/collectives.md),
 * and the region stays below 64 MiB however many ranks a node has. */
enum { SLICE_DEFAULT = 256 << 10, SLICE_MIN = VRED_SHM_SLICE_MIN, BANK_CAP = 32 << 20 };

static size_t slice_max(int size)
{
    long want = vred_config_get()->shm_slice;
    size_t s = want > 0 ? (size_t)want : SLICE_DEFAULT;
    if (s < SLICE_MIN) s = SLICE_MIN;
    if (s * (size_t)size > BANK_CAP) s = BANK_CAP / (size_t)size;
    s &= ~(size_t)63;
    return s < SLICE_MIN ? SLICE_MIN : s;
}

/* Socket groups: VRED_SOCKETS=k splits the node's ranks into k contiguous groups; otherwise
 * hwloc's socket of each rank, used only when every rank knows its socket and the groups are
 * contiguous in node-rank order (the socket-aware algorithms need that). */
static int socket_groups(vred_node *n)
{
    int k = vred_config_get()->sockets, p = n->size;
    if (k > 0) {
        if (k > p) k = p;
        for (int i = 0; i < p; i++) n->socket[i] = (int)((long)i * k / p);
        n->sockets = k;
        return MPI_SUCCESS;
    }
    int mine = vred_topo_my_socket();
    int rc = vred_next()->Allgather(&mine, 1, MPI_INT, n->socket, 1, MPI_INT, n->comm);
    if (rc != MPI_SUCCESS) return rc;
    int groups = 1, ok = n->socket[0] >= 0;
    for (int i = 1; i < p && ok; i++) {
        if (n->socket[i] < 0) ok = 0;
        else if (n->socket[i] != n->socket[i - 1]) {
            for (int j = 0; j < i - 1; j++)
                if (n->socket[j] == n->socket[i]) ok = 0; /* not contiguous */
            groups++;
        }
    }
    for (int i = 0, g = 0; i < p; i++) {
        if (ok && i && n->socket[i] != n->socket[i - 1]) g++;
        n->socket[i] = ok ? g : 0;
    }
    n->sockets = ok ? groups : 1;
    return MPI_SUCCESS;
}

/* Node index of every rank (node keys in increasing order), and each node's leader. */
static int across(vred_comm *vc, vred_node *n)
{
    int p = vc->size, rc;
    int *keys = malloc((size_t)p * sizeof *keys);
    if (!keys) return MPI_ERR_NO_MEM;
    rc = vred_next()->Allgather(&vc->node_key, 1, MPI_INT, keys, 1, MPI_INT, vc->comm);
    if (rc == MPI_SUCCESS) {
        n->nodes = 0;
        for (int r = 0; r < p; r++) n->node_of[r] = -1;
        /* Repeatedly take the smallest key not yet numbered. */
        for (;;) {
            int best = -1;
            for (int r = 0; r < p; r++)
                if (n->node_of[r] < 0 && (best < 0 || keys[r] < keys[best])) best = r;
            if (best < 0) break;
            for (int r = 0; r < p; r++)
                if (n->node_of[r] < 0 && keys[r] == keys[best]) n->node_of[r] = n->nodes;
            n->leader[n->nodes++] = best; /* the smallest rank of the node: its node rank 0 */
        }
        n->node_index = n->node_of[vc->rank];
    }
    free(keys);
    return rc;
}

/* The leaders' communicator, as a point-to-point-only view with the parent's model; none on a
 * communicator of one node (the hierarchical algorithms run only across nodes), where it would
 * only cost the MPI a communicator (MPICH has about 2,000 per process). */
static int make_cross(vred_comm *vc, vred_node *n)
{
    if (n->nodes < 2) return MPI_SUCCESS;
    MPI_Comm c = MPI_COMM_NULL;
    int leader = n->rank == 0;
    int rc = PMPI_Comm_split(vc->comm, leader ? 0 : MPI_UNDEFINED, n->node_index, &c);
    if (rc != MPI_SUCCESS || !leader) return rc;
    vred_comm *x = calloc(1, sizeof *x);
    if (!x) {
        PMPI_Comm_free(&c);
        return MPI_ERR_NO_MEM;
    }
    PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    x->comm = c;
    PMPI_Comm_rank(c, &x->rank);
    PMPI_Comm_size(c, &x->size);
    x->nodes = x->size;
    x->ppn = 1;
    x->node_key = x->rank;
    x->model = vc->model;
    x->shm_state = -1;
    x->cma_state = -1;
    x->p2p_only = 1;
    n->cross = x;
    return MPI_SUCCESS;
}

static int build(vred_comm *vc, vred_node *n, const char **why)
{
    /* One node: its communicator is the private one (same ranks, same order), not another
     * split; the node's collectives and the region's waits never overlap a point-to-point
     * algorithm on it (one collective at a time per communicator). */
    int rc = MPI_SUCCESS;
    if (vc->nodes == 1) n->comm = vc->comm;
    else if ((rc = PMPI_Comm_split(vc->comm, vc->node_key, vc->rank, &n->comm)) != MPI_SUCCESS)
        return rc;
    else n->own_comm = 1;
    PMPI_Comm_set_errhandler(n->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(n->comm, &n->rank);
    PMPI_Comm_size(n->comm, &n->size);
    n->comm_rank = malloc((size_t)n->size * sizeof(int));
    n->socket = malloc((size_t)n->size * sizeof(int));
    n->leader = malloc((size_t)vc->size * sizeof(int));
    n->node_of = malloc((size_t)vc->size * sizeof(int));
    n->disp = malloc(((size_t)n->size + 1) * sizeof(size_t));
    int ok = n->comm_rank && n->socket && n->leader && n->node_of && n->disp;
    /* Every rank of the node takes the same path from here. */
    rc = vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, vc->comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!ok) return MPI_ERR_NO_MEM;
    rc = vred_next()->Allgather(&vc->rank, 1, MPI_INT, n->comm_rank, 1, MPI_INT, n->comm);
    if (rc == MPI_SUCCESS) rc = socket_groups(n);
    if (rc == MPI_SUCCESS) rc = across(vc, n);
    if (rc == MPI_SUCCESS) rc = make_cross(vc, n);
    /* A rank that failed alone must not leave its node waiting in the region's creation. */
    ok = rc == MPI_SUCCESS;
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, vc->comm) != MPI_SUCCESS ||
        !ok)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    n->shm = vred_shm_create(n->comm, slice_max(n->size), why);
    /* This rank's verdict on cross-memory attach; the communicator agrees on it next. */
    if (n->shm) n->shm->cma = vred_cma_probe(n->shm);
    /* The measured copy's form (copy.h), measured here with the region's other set-up rather
     * than inside the first collective that copies (a few milliseconds, once per process). */
    if (n->shm) (void)vred_copy_string_form(NULL);
    return MPI_SUCCESS;
}

void vred_node_free(vred_node *n, int mpi_alive)
{
    if (!n) return;
    vred_shm_destroy(n->shm);
    if (n->cross) {
        if (mpi_alive) PMPI_Comm_free(&n->cross->comm);
        vred_scratch_free(&n->cross->scratch);
        free(n->cross);
    }
    if (mpi_alive && n->own_comm && n->comm != MPI_COMM_NULL) PMPI_Comm_free(&n->comm);
    free(n->comm_rank);
    free(n->socket);
    free(n->leader);
    free(n->node_of);
    free(n->disp);
    free(n);
}

vred_node *vred_node_get(vred_comm *vc)
{
    if (vc->shm_state) return vc->shm_state > 0 ? vc->node : NULL;
    vc->shm_state = -1;
    vc->cma_state = -1;
    if (!vred_config_get()->shm || vc->p2p_only) return NULL;
    const char *why = "";
    vred_node *n = calloc(1, sizeof *n);
    int ok = n != NULL;
    /* One rank without memory makes all go point-to-point, before any collective of the view. */
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, vc->comm) != MPI_SUCCESS ||
        !ok) {
        free(n);
        return NULL;
    }
    n->comm = MPI_COMM_NULL;
    int rc = build(vc, n, &why);
    /* Every node's region must exist, or no rank uses shared memory; and every rank must read
     * its node's peers, or none uses cross-memory attach (all ranks select alike). */
    int agree[2] = {rc == MPI_SUCCESS && n->shm, rc == MPI_SUCCESS && n->shm && n->shm->cma};
    if (vred_next()->Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT, MPI_MIN, vc->comm) !=
        MPI_SUCCESS)
        agree[0] = 0;
    ok = agree[0];
    vc->cma_state = ok && agree[1] ? 1 : -1;
    if (ok) n->shm->cma = agree[1];
    if (!ok) {
        static int warned;
        if (why[0] && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "vred: no shared memory (%s); using point-to-point algorithms\n", why);
        vred_node_free(n, 1);
        return NULL;
    }
    vc->node = n;
    vc->shm_state = 1;
    return n;
}
