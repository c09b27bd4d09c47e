/* Every VRED_* knob, parsed in one place (config.c), once. */
#ifndef VRED_CONFIG_H
#define VRED_CONFIG_H

#include <stdint.h>
#include <stdio.h>
#include "vred.h"

/* Thread-local state of the per-call paths. The initial-exec model reads it at a fixed offset
 * from the thread pointer: the default (global-dynamic, for a shared library) calls
 * __tls_get_addr on every access, about 2% of a 4 KiB allgather that vred passes to the MPI.
 * It takes a few bytes of the static TLS that glibc keeps spare for libraries loaded later, so
 * a dlopen of libvred-mpi (Python's mpi4py, say) still works. */
#define VRED_TLS __thread __attribute__((tls_model("initial-exec")))

typedef enum { VRED_TAIL_AUTO, VRED_TAIL_MASK, VRED_TAIL_CASCADE } vred_tail_mode;
typedef enum { VRED_SPARSE_AUTO, VRED_SPARSE_OFF, VRED_SPARSE_BITS, VRED_SPARSE_IDX } vred_sparse_mode;

/* The collectives vred serves, each with a VRED_<NAME>_ALG knob (the registry, coll/algs.def). */
typedef enum {
#define VRED_COLL(C, name, mpi) VRED_COLL_##C,
#include "coll/algs.def"
#undef VRED_COLL
    VRED_COLL_COUNT
} vred_coll;

/* Algorithms, one enum for every collective (coll/algs.def); VRED_ALG_AUTO lets vred
 * choose and VRED_ALG_MPI hands the collective to the MPI library. */
typedef enum {
#define VRED_ALG_NAME(A, name) VRED_ALG_##A,
#include "coll/algs.def"
#undef VRED_ALG_NAME
    VRED_ALG_COUNT
} vred_alg;

/* VRED_NT: non-temporal (streaming) stores in shared-memory copies. */
typedef enum { VRED_NT_AUTO, VRED_NT_ON, VRED_NT_OFF } vred_nt_mode;

/* VRED_COPY_SKEW: whether copies whose destination sits 1-63 bytes past their source in a page
 * are slow for the CPU's string copy (local/copy.h, vred_copy_skew_slow): measured, or pinned. */
typedef enum { VRED_SKEW_AUTO, VRED_SKEW_SLOW, VRED_SKEW_FAST } vred_skew_mode;

/* VRED_STATS: what libvred-mpi prints at MPI_Finalize (src/mpi/stats.c): nothing, each process
 * its own lines, rank 0 every rank's lines, or rank 0 the sums over all ranks. */
typedef enum { VRED_STATS_OFF, VRED_STATS_ON, VRED_STATS_GATHER, VRED_STATS_SUM } vred_stats_mode;

/* VRED_LEARN: the automatic choice between vred's algorithms and the MPI's, per collective and
 * size class (src/mpi/learn.c): measured at first use and kept in the user's cache directory;
 * only read from there (cells not found there follow the model); measured again, replacing
 * what is kept; or never (the cost model and its thresholds alone). */
typedef enum { VRED_LEARN_ON, VRED_LEARN_READ, VRED_LEARN_REDO, VRED_LEARN_OFF } vred_learn_mode;
/* Its size classes: class k holds [2^k, 2^(k+1)) bytes, from VRED_LEARN_MIN_CLASS (bcast and
 * allgather, which move bytes) or VRED_LEARN_MIN_CLASS_SUM (the reductions, whose calibration
 * sums floats: from one of them); calibration allocates at most VRED_LEARN_MAX_BYTES of input
 * (allgather: of its whole result), and larger calls share the top class (coll/select.c;
 * vred-info labels it so). */
enum { VRED_LEARN_MIN_CLASS = 0, VRED_LEARN_MIN_CLASS_SUM = 2, VRED_LEARN_MAX_BYTES = 64 << 20 };

/* VRED_CMA_BALANCE: a cma allreduce's blocks follow the ranks' measured rates; are even; or
 * (testing) sit at the bounds, rank by rank in turn. */
typedef enum { VRED_CMA_BALANCE_OFF, VRED_CMA_BALANCE_AUTO, VRED_CMA_BALANCE_ENDS } vred_cma_balance;

typedef struct {
    vred_isa isa_cap;        /* VRED_ISA; VRED_ISA_COUNT = no cap */
    vred_tail_mode tail;     /* VRED_TAIL */
    int disable;             /* VRED_DISABLE: the MPI library passes every call through */
    int threads;             /* VRED_THREADS: threads per local reduction; 0 = auto */
    vred_sparse_mode sparse; /* VRED_SPARSE */
    int node_size;           /* VRED_NODE_SIZE: k consecutive ranks form a node; 0 = real nodes */
    vred_alg alg[VRED_COLL_COUNT]; /* VRED_<COLLECTIVE>_ALG */
    vred_nt_mode nt;         /* VRED_NT */
    vred_skew_mode copy_skew; /* VRED_COPY_SKEW */
    long realign_from;       /* VRED_REALIGN_FROM: bytes; 0 = measured at first use */
    int shm;                 /* VRED_SHM: 0 = never use a shared region (point-to-point only) */
    int shm_memfd;           /* VRED_SHM_MEMFD: 1 = a nameless segment where the node allows it */
    int cma;                 /* VRED_CMA: 0 = never read a peer's memory (cross-memory attach) */
    int cma_balance;         /* VRED_CMA_BALANCE: how a cma allreduce cuts its blocks
                                (vred_cma_balance, cma_split.h) */
    int cma_root_share;      /* VRED_CMA_ROOT_SHARE: percent of a cma reduce's vector the root
                                reduces, and of a cma bcast's message it writes into each
                                reader; 0 = balanced by measurement (coll/shm/cma_split.h) */
    int sockets;             /* VRED_SOCKETS: split each node's ranks into k groups; 0 = hwloc */
    long shm_slice;          /* VRED_SHM_SLICE: largest slice I_max in bytes; 0 = built in */
    long shm_cell;           /* VRED_SHM_CELL: the bcast pipeline's cell in bytes; 0 = built in */
    long shm_limit;          /* VRED_SHM_LIMIT: this process's share of regions; 0 = automatic */
    long scratch_limit;      /* VRED_SCRATCH_LIMIT: scratch bytes kept between calls */
    long comm_limit;         /* VRED_COMM_LIMIT: communicators with vred's state at once */
    const char *tune_file;   /* VRED_TUNE_FILE: measured cost-model parameters; NULL = built in */
    vred_stats_mode stats;   /* VRED_STATS */
    vred_learn_mode learn;   /* VRED_LEARN */
    int learn_spell;         /* VRED_LEARN_SPELL: percent; 0 = no spell check (src/mpi/learn.c) */
    /* VRED_TEST_FAIL (testing only): fail at point 1 alloc, 2 pmpi, 3 step (0: off) on world
     * rank test_fail_rank, the test_fail_nth time it gets there (src/coll/fail.c) */
    int test_fail_point, test_fail_rank;
    long test_fail_nth;
} vred_config;

/* Parsed on first call; a malformed value is reported once on stderr with the accepted values,
 * and the default is used. */
const vred_config *vred_config_get(void);

/* One line per knob: name, value in effect, accepted values (for vred-info). */
void vred_config_print(FILE *out);

/* The knobs one by one (for the ranks' check that they all run with the same settings,
 * src/mpi/pmpi_init.c): how many, the name of knob k, and a 64-bit digest of its value in
 * effect (equal values, equal digests). */
enum { VRED_CONFIG_KNOBS_MAX = 64 }; /* vred_config_knobs() is at most this */
size_t vred_config_knobs(void);
const char *vred_config_knob_name(size_t k);
uint64_t vred_config_knob_digest(size_t k);

/* "binomial", ... for an algorithm; "?" if out of range. */
const char *vred_alg_name(vred_alg a);
const char *vred_coll_name(vred_coll c);

#endif
