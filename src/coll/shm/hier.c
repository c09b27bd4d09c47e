/*
 * Hierarchical collectives (hier.h). Every stage runs on every rank that takes part in it even
 * after an earlier stage failed on this rank, so that no peer is left waiting; the first error
 * is returned.
 */
#include <limits.h>
#include <string.h>
#include "coll/shm/hier.h"
#include "coll/p2p/p2p.h"
#include "coll/p2p/wait.h"
#include "coll/fail.h"

enum { TAG_HIER = 7310 };

/* The argument block for the leaders' communicator. */
static vred_coll_args cross_args(const vred_coll_args *a, const void *sbuf, void *rbuf,
                                 size_t count)
{
    vred_comm *x = a->vc->node->cross;
    vred_coll_args c = *a;
    c.vc = x;
    c.comm = x->comm;
    c.rank = x->rank;
    c.size = x->size;
    c.scratch = &x->scratch;
    c.sbuf = sbuf;
    c.rbuf = rbuf;
    c.count = count;
    c.counts = NULL;
    return c;
}

/* The leaders' stage: the model's cheapest point-to-point algorithm for the leaders (at least two:
 * the hierarchical algorithms run only across nodes). */
static int leaders(vred_coll coll, const vred_coll_args *c)
{
    vred_coll_fn fn = vred_select_between_nodes(coll, c->vc, c->count * c->esize);
    return fn(c);
}

static int first_error(int rc, int next) { return rc != MPI_SUCCESS ? rc : next; }

/* n bytes from one rank to another on the private communicator, in pieces an int can count. */
static int move_bytes(const vred_coll_args *a, void *buf, size_t n, int from, int to)
{
    for (size_t off = 0; off < n; off += INT_MAX / 2 + 1) {
        if (a->rank == from && vred_fail_inject(VRED_FAIL_PMPI)) return MPI_ERR_OTHER; /* testing */
        int m = (int)(n - off < (size_t)INT_MAX / 2 + 1 ? n - off : (size_t)INT_MAX / 2 + 1);
        MPI_Request q;
        int rc = a->rank == from
                     ? PMPI_Isend((char *)buf + off, m, MPI_BYTE, to, TAG_HIER, a->comm, &q)
                     : PMPI_Irecv((char *)buf + off, m, MPI_BYTE, from, TAG_HIER, a->comm, &q);
        if (rc == MPI_SUCCESS) rc = vred_wait_all(1, &q, MPI_STATUSES_IGNORE); /* yields */
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Node reduce to node rank 0 into `out` (significant there only). A node may hold one rank of
 * the communicator (ranks spread unevenly over nodes): the one place below the front where a
 * stage has one rank, so the node algorithms themselves never see one. */
static int node_reduce(const vred_coll_args *a, vred_shm_fn fn, void *out)
{
    if (a->vc->node->size == 1) return vred_one_rank(a->sbuf, out, a->count * a->esize);
    vred_shm_args s = {a->vc->node, a->e, a->esize, a->sbuf, out, a->count, NULL, 0};
    return fn(&s);
}

static int node_bcast(const vred_coll_args *a, vred_shm_fn fn, void *buf, size_t count,
                      int root)
{
    if (a->vc->node->size == 1) return MPI_SUCCESS; /* the buffer is the result */
    vred_shm_args s = {a->vc->node, NULL, a->esize, buf, buf, count, NULL, root};
    return fn(&s);
}

/* The node bcast that hands a reduction's result back: single copy where the node's ranks can
 * read each other (the same node on every rank of it: s->cma and the size are), for the sizes
 * where the cma rows serve bcast too (above the model's shm_dpml_max); else the pipeline. */
static vred_shm_fn result_bcast(const vred_coll_args *a)
{
    size_t bytes = a->count * a->esize;
    return a->vc->node->shm->cma && (double)bytes > a->vc->model.shm_dpml_max
               ? vred_shm_bcast_cma
               : vred_shm_bcast_pipe;
}

int vred_hier_allreduce(const vred_coll_args *a, vred_shm_fn node_fn)
{
    vred_node *n = a->vc->node;
    int rc = node_reduce(a, node_fn, a->rbuf);
    if (n->rank == 0) {
        vred_coll_args c = cross_args(a, a->rbuf, a->rbuf, a->count);
        rc = first_error(rc, leaders(VRED_COLL_ALLREDUCE, &c));
    }
    return first_error(rc, node_bcast(a, result_bcast(a), a->rbuf, a->count, 0));
}

int vred_hier_reduce(const vred_coll_args *a, vred_shm_fn node_fn)
{
    vred_node *n = a->vc->node;
    int root_node = n->node_of[a->root];
    int root_leads = n->leader[root_node] == a->root;
    size_t bytes = a->count * a->esize;
    void *acc = a->rank == a->root ? a->rbuf : NULL;
    if (n->rank == 0 && !acc && !(acc = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, bytes)))
        return MPI_ERR_NO_MEM; /* its node waits: the front ends the job (coll/fail.h) */
    int rc = node_reduce(a, node_fn, acc);
    if (n->rank == 0) {
        vred_coll_args c = cross_args(a, acc, acc, a->count);
        c.root = root_node;
        rc = first_error(rc, leaders(VRED_COLL_REDUCE, &c));
    }
    if (!root_leads && n->node_index == root_node && (n->rank == 0 || a->rank == a->root))
        rc = first_error(rc, move_bytes(a, acc ? acc : a->rbuf, bytes, n->leader[root_node],
                                        a->root));
    return rc;
}

int vred_hier_reduce_scatter(const vred_coll_args *a, vred_shm_fn node_fn)
{
    vred_node *n = a->vc->node;
    size_t es = a->esize, total = a->count;
    void *all = NULL;
    if (n->rank == 0 && !(all = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, total * es)))
        return MPI_ERR_NO_MEM;
    int rc = node_reduce(a, node_fn, all);
    /* Leaders: the whole vector (any placement of ranks on nodes works). */
    if (n->rank == 0) {
        vred_coll_args c = cross_args(a, all, all, total);
        rc = first_error(rc, leaders(VRED_COLL_ALLREDUCE, &c));
    }
    /* Each rank of the node takes its block from the leader. */
    if (n->rank == 0) {
        size_t off = 0;
        for (int r = 0; r < a->size; off += a->counts[r], r++) {
            if (n->node_of[r] != n->node_index) continue;
            if (r == a->rank) {
                if (a->counts[r]) memmove(a->rbuf, (char *)all + off * es, a->counts[r] * es);
            } else {
                rc = first_error(rc, move_bytes(a, (char *)all + off * es, a->counts[r] * es,
                                                a->rank, r));
            }
        }
    } else {
        rc = first_error(rc, move_bytes(a, a->rbuf, a->counts[a->rank] * es,
                                        n->comm_rank[0], a->rank));
    }
    return rc;
}

int vred_hier_bcast(const vred_coll_args *a, vred_shm_fn node_fn)
{
    vred_node *n = a->vc->node;
    int root_node = n->node_of[a->root], rc = MPI_SUCCESS;
    void *buf = a->rbuf;
    /* The root's node first, from the root itself; then the leaders; then the other nodes. */
    if (n->node_index == root_node) {
        int node_root = 0;
        while (n->comm_rank[node_root] != a->root) node_root++;
        rc = node_bcast(a, node_fn, buf, a->count, node_root);
    }
    if (n->rank == 0) {
        vred_coll_args c = cross_args(a, buf, buf, a->count);
        rc = first_error(rc, vred_p2p_bcast_tree(&c, buf, a->count, root_node));
    }
    if (n->node_index != root_node)
        rc = first_error(rc, node_bcast(a, node_fn, buf, a->count, 0));
    return rc;
}
