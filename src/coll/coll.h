/*
 * The collectives layer: one argument block and one signature for every algorithm of every
 * reduction collective. The PMPI front (src/mpi/) fills the block, select.c picks the algorithm,
 * the algorithm runs on vred's private duplicate of the user's communicator with the MPI
 * library's own point-to-point calls (p2p/msg.c).
 */
#ifndef VRED_COLL_H
#define VRED_COLL_H

#include <stddef.h>
#include <string.h>
#include <mpi.h>
#include "config.h"
#include "kernels/dispatch.h"
#include "coll/scratch.h"
/* The collectives fold with vred_par_reduce3 (out = a op b, a the left operand, MPI's `in`),
 * split across threads when large: the one name for the threaded 3-buffer fold. */
#include "local/threads.h"

/* Cost-model parameters (model.c): seconds per message, seconds per byte on the wire, seconds
 * per byte of reduction (gamma); one set for links inside a node and one between nodes. */
typedef struct {
    double alpha_node, beta_node; /* between ranks of one node (the MPI's shared-memory path) */
    double alpha_net, beta_net;   /* between nodes */
    double gamma;                 /* local reduction, per byte of one operand */
    double mpi_min_bytes[VRED_COLL_COUNT]; /* below this, the MPI library's own algorithm wins */
    double shm_dpml_max;  /* shared memory: DPML-like up to here, movement-avoiding above */
    /* On one node of two ranks, the point-to-point algorithms (on the MPI's single-copy
     * transport) beat shared memory for sizes in [p2p_node_min, p2p_node_max). */
    double p2p_node_min[VRED_COLL_COUNT], p2p_node_max[VRED_COLL_COUNT];
} vred_model;

typedef struct vred_node vred_node; /* shm/node.h */

/* The learned selection (VRED_LEARN, src/mpi/learn.c): per collective and size class (class k
 * holds the sizes in [2^k, 2^(k+1)) bytes), the vred_alg measured fastest on this machine with
 * this MPI and communicator shape (VRED_ALG_MPI: the MPI's own), or VRED_ALG_AUTO where nothing
 * was learned (the model decides). Identical on every rank: rank 0's, broadcast. */
enum { VRED_LEARN_CLASSES = 48 }; /* (VRED_LEARN_MIN_CLASS, VRED_LEARN_MAX_BYTES: config.h) */
typedef struct {
    signed char alg[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
    /* The host's slow spells (learn.c): 1 = the kept cell was measured in one, by an earlier
     * run, or is a close call still followed (close_runs), and is measured again by this one
     * (VRED_LEARN=on); 2 = measured in one and final for this run; 0 = neither. spell_runs:
     * how many measurements in a row fell in a spell (the cache's spell=N), counted on by the
     * next one. */
    signed char spell[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
    unsigned char spell_runs[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
    /* A close call followed over runs (learn_pick.h, VRED_LEARN_RUNS): how many runs have
     * measured it (the cache's close=N), 0 for a cell not followed. A cell with fewer than
     * VRED_LEARN_RUNS is due again (spell = 1, as a spell's) in the next run. */
    unsigned char close_runs[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
    /* 1 = the learned vred algorithm runs with streaming stores (VRED_NT=on for its calls),
     * measured faster so on this machine; 0 = the copy rule decides (local/copy.h). */
    signed char nt[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
    /* bcast and allgather picking cma: 1 = cma measured faster than the pipeline on skewed
     * buffers too (the ranks' offsets in a line differ), so a skewed call keeps it; 0 = such a
     * call trades cma for the pipeline (coll_front.c, unskew). */
    signed char skew_cma[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
    signed char mode; /* rank 0's VRED_LEARN (a vred_learn_mode): all ranks act on the same */
    int spell_pct;    /* rank 0's VRED_LEARN_SPELL, likewise */
} vred_learned;

/* What vred knows of a communicator, cached on it (src/mpi/comm.c). */
typedef struct vred_comm {
    MPI_Comm comm;      /* vred's private duplicate: its messages never meet the user's */
    int rank, size;
    int nodes;          /* nodes the communicator spans (VRED_NODE_SIZE or MPI_COMM_TYPE_SHARED) */
    int ppn;            /* most ranks on one node */
    int node_key;       /* equal on exactly the ranks of this rank's node */
    vred_model model;   /* identical on every rank of the communicator (broadcast at creation) */
    vred_learned learned; /* likewise; cells filled as the collectives first meet a size class */
    vred_scratch scratch;
    size_t *counts;     /* size entries for MPI_Reduce_scatter's counts (made with the state, so
                           that no call can fail on one rank only for want of it) */
    /* Shared memory (shm/node.c): made by the first collective that selects a shared-memory
     * algorithm. shm_state: 0 not tried yet, 1 ready (node != NULL), -1 unavailable. */
    vred_node *node;
    int shm_state;
    /* Cross-memory attach between the ranks of every node (shm/cma.h), probed with the node
     * view and agreed by every rank: 0 not known yet, 1 works, -1 not (or no region). */
    int cma_state;
    int p2p_only;       /* a view made for the point-to-point part of a hierarchical algorithm */
} vred_comm;

typedef struct {
    const vred_comm *vc;
    MPI_Comm comm;           /* = vc->comm */
    int rank, size;
    vred_scratch *scratch;   /* the communicator's cached buffers */
    const vred_entry *e;     /* the kernel: e->fn(in, inout, out, count * e->scale) */
    size_t esize;            /* bytes per element */
    vred_op op;
    vred_type type;
    /* The front never passes MPI_IN_PLACE: in place, sbuf == rbuf (reduce_scatter: the whole
     * input in rbuf, the result to rbuf[0 .. counts[rank])). */
    const void *sbuf;
    void *rbuf;              /* reduce: significant at the root only */
    size_t count;            /* elements: reduce, allreduce, scan; reduce_scatter: the sum */
    const size_t *counts;    /* reduce_scatter: elements of each rank's block; else NULL */
    int root;                /* reduce */
    int exclusive;           /* scan: 1 = MPI_Exscan */
    int skewed;              /* bcast, allgather: the ranks' buffers differ mod 64 (the front's
                                agreement), where a single copy would run misaligned */
    const void *unpack;      /* bcast: on a receiver whose datatype is not contiguous, how its
                                one-step path unpacks the root's bytes (vred_front_unpack,
                                mpi/coll_front.h); else NULL */
} vred_coll_args;

/* Every algorithm: MPI_SUCCESS or an MPI error class; or, from a shared-memory algorithm on
 * one node, an error class negated: the node's ranks passed arguments that differ (erroneous),
 * and every rank returns it (shm.h). */
typedef int (*vred_coll_fn)(const vred_coll_args *a);

/* The families of the registry's rows (coll/algs.def). */
typedef enum {
    VRED_FAMILY_P2P,
    VRED_FAMILY_HIER,
    VRED_FAMILY_SHM,
    VRED_FAMILY_HIER_CMA,
    VRED_FAMILY_SHM_CMA
} vred_family;
/* Where the automatic choice prefers a shared-memory row (coll/algs.def). */
typedef enum { VRED_BAND_ANY, VRED_BAND_SMALL, VRED_BAND_LARGE } vred_band;

/* A cost hook (cost.c): predicted seconds for n bytes over p ranks with the given link and
 * reduction parameters; < 0 if the algorithm is not modelled. */
typedef double (*vred_cost_fn)(double n, double p, double alpha, double beta, double gamma);
double vred_cost_unmodelled(double n, double p, double alpha, double beta, double gamma);

/*
 * Every algorithm and its cost hook, declared from the registry (coll/algs.def). Point to point
 * (src/coll/p2p/): each handles any size, any root, count 0, sbuf == rbuf. Shared memory
 * (src/coll/shm/, a->vc->node ready): inside the node when the communicator is one node, else
 * hierarchical (shm inside each node, point-to-point between node leaders). Bcast: rbuf (= sbuf)
 * of count elements of esize bytes from root; allgather: count elements per rank from sbuf
 * (== rbuf + rank's block: in place) to rbuf; a->e is NULL for both. None sees one rank (the
 * front serves a communicator of one rank itself).
 */
#define VRED_ALG(C, A, family, band, fn, cost)                                                  \
    int fn(const vred_coll_args *a);                                                            \
    double cost(double n, double p, double alpha, double beta, double gamma);
#include "coll/algs.def"
#undef VRED_ALG

/* select.c: the algorithm for this call (VRED_<COLL>_ALG, else the registry's rows); NULL = let the
 * MPI library do it. Depends only on arguments that are equal on every rank. */
vred_coll_fn vred_select(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg *chosen);
/* The class to measure before selecting (coll, bytes) on vc, or -1: the choice is automatic,
 * VRED_LEARN is on or redo, and the cell is still unknown. */
int vred_select_to_learn(vred_coll coll, const vred_comm *vc, size_t bytes);
/* The learned choice for (coll, bytes) on vc when the choice is automatic: VRED_ALG_MPI, a vred
 * algorithm, or VRED_ALG_AUTO (nothing learned, or not automatic). */
vred_alg vred_select_learned(vred_coll coll, const vred_comm *vc, size_t bytes);
/* 1 if `alg`, selected for (coll, bytes) on vc, is the learned pick and was measured faster with
 * streaming stores (the call then runs with vred_copy_set_call_mode(VRED_NT_ON)). */
int vred_select_learned_nt(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg alg);
/* 1 if cma is the learned pick for (coll, bytes) on vc and was measured faster than the
 * pipeline on skewed buffers as well (vred_learned.skew_cma). */
int vred_select_learned_skew_cma(vred_coll coll, const vred_comm *vc, size_t bytes);
/* What calibration compares for (coll, bytes) on vc: VRED_ALG_MPI first, then each of vred's
 * algorithms the automatic choice could pick at that size (the shared-memory ones usable on vc,
 * at most VRED_SELECT_SHM_CANDIDATES; the model's cheapest point-to-point one, across nodes its
 * two cheapest, or three where no node has two ranks). Returns how many (at most
 * VRED_SELECT_CANDIDATES). */
enum { VRED_SELECT_SHM_CANDIDATES = 3, VRED_SELECT_CANDIDATES = 5 };
int vred_select_candidates(vred_coll coll, const vred_comm *vc, size_t bytes,
                           vred_alg out[VRED_SELECT_CANDIDATES]);
/* The point-to-point algorithm the model picks (the leaders' stage of a hierarchical
 * algorithm: no thresholds, no forcing). */
vred_coll_fn vred_select_between_nodes(vred_coll coll, const vred_comm *vc, size_t bytes);
/* The function of `alg` for `coll`, NULL if the collective has no such algorithm. */
vred_coll_fn vred_select_fn(vred_coll coll, vred_alg alg);
/* 1 if `alg` of `coll` needs the node's shared region (vred_node_get before running it). */
int vred_alg_is_shm(vred_coll coll, vred_alg alg);
/* Predicted seconds of `alg` for `coll` on `bytes` (the cost model; < 0 if not applicable). */
double vred_predict(vred_coll coll, vred_alg alg, const vred_comm *vc, size_t bytes);
/* Force an algorithm at run time (tests, benchmarks): 0, or -1 if coll has no such algorithm. */
int vred_select_force(vred_coll coll, vred_alg alg);

/* model.c: the built-in parameters, or those of VRED_TUNE_FILE. */
void vred_model_load(vred_model *m);

/* Element block of rank i when count elements are split over p ranks as evenly as possible. */
static inline size_t vred_block_lo(size_t count, int p, int i)
{
    size_t q = count / (size_t)p, r = count % (size_t)p;
    return (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
}

static inline char *vred_at(const void *base, size_t elems, size_t esize)
{
    return (char *)base + elems * esize;
}

/* One rank (a communicator of one rank at the front, a node of one rank in a hierarchical
 * algorithm): the result is the input. The algorithms never see one rank. */
static inline int vred_one_rank(const void *sbuf, void *rbuf, size_t bytes)
{
    if (bytes && sbuf != rbuf) memcpy(rbuf, sbuf, bytes);
    return MPI_SUCCESS;
}

#endif
