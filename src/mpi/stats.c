/*
 * VRED_STATS (stats.h): one table of counters per process, cells of (collective, size class,
 * slot), where a slot is one of vred's algorithms (MPI_Reduce_local: the ISA of its kernels) or
 * one reason for passing the call to the MPI. Relaxed atomic adds: a count is exact once the
 * threads that made the calls are done with them; a summary taken while calls run may see a
 * call's count without its bytes or time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/stats.h"
#include "mpi/coll_front.h"
#include "next/next.h"
#include "mpi/types.h"
#include "mpi/comm.h"
#include "vred_mpi.h"

int vred_stats_on;

__attribute__((constructor)) static void read_stats(void)
{
    vred_stats_on = (int)vred_config_get()->stats;
}

/* Size classes by the bytes of the call: powers of 16 from 4 KiB. */
enum { NSIZE = 5 };
static const char *const size_names[NSIZE] = {"<4K", "4K-64K", "64K-1M", "1M-16M", ">=16M"};

static int size_class(uint64_t bytes)
{
    int c = 0;
    for (uint64_t limit = 4096; c < NSIZE - 1 && bytes >= limit; limit <<= 4) c++;
    return c;
}

static const char *const coll_names[VRED_SC_COUNT] = {
    "reduce", "allreduce", "reduce_scatter", "scan",
    "exscan", "bcast",     "allgather",      "reduce_local"};

static const char *const why_names[VRED_WHY_COUNT] = {
#define VRED_WHY_NAME(id, name) name,
    VRED_WHY_LIST(VRED_WHY_NAME)
#undef VRED_WHY_NAME
};

/* Served slots first (an algorithm, or an ISA), then one per reason. */
enum {
    NALG = (int)VRED_ALG_COUNT > (int)VRED_ISA_COUNT ? (int)VRED_ALG_COUNT : (int)VRED_ISA_COUNT,
    NSLOT = NALG + VRED_WHY_COUNT
};

typedef struct {
    uint64_t calls, bytes, ns;
} cell;

static cell table[VRED_SC_COUNT][NSIZE][NSLOT];
enum { NWORDS = sizeof table / sizeof(uint64_t) };

static VRED_TLS unsigned char why_now; /* VRED_WHY_UNKNOWN until a front notes one */

void vred_stats_set_why(vred_why why) { why_now = (unsigned char)why; }

static void add(vred_stats_coll coll, int slot, uint64_t bytes, uint64_t t0)
{
    uint64_t ns = vred_stats_now() - t0;
    if ((unsigned)coll >= VRED_SC_COUNT || slot < 0 || slot >= NSLOT) return;
    if (vred_front_pinned()) return; /* calibration's, not the application's */
    cell *c = &table[coll][size_class(bytes)][slot];
    __atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->ns, ns, __ATOMIC_RELAXED);
}

void vred_stats_served(vred_stats_coll coll, int slot, uint64_t bytes, uint64_t t0)
{
    why_now = VRED_WHY_UNKNOWN; /* a reason noted on the way is moot */
    add(coll, slot >= 0 && slot < NALG ? slot : NALG - 1, bytes, t0);
}

void vred_stats_passed(vred_stats_coll coll, uint64_t bytes, uint64_t t0)
{
    /* VRED_DISABLE is the reason for every call, whatever else a front saw first. */
    vred_why why = vred_mpi_disabled ? VRED_WHY_DISABLED : (vred_why)why_now;
    why_now = VRED_WHY_UNKNOWN;
    add(coll, NALG + (int)why, bytes, t0);
}

uint64_t vred_stats_bytes(MPI_Count count, MPI_Datatype datatype)
{
    MPI_Count size = 0;
    if (count <= 0 || datatype == MPI_DATATYPE_NULL ||
        PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* A datatype that cannot be served: derived (not named), a named one vred has no kernel or
 * layout for, or not a datatype at all. */
static vred_why type_why(MPI_Datatype datatype)
{
    int ni, na, nd, combiner, size;
    if (datatype == MPI_DATATYPE_NULL ||
        PMPI_Type_get_envelope(datatype, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        PMPI_Type_size(datatype, &size) != MPI_SUCCESS)
        return VRED_WHY_INVALID_ARG;
    return combiner == MPI_COMBINER_NAMED ? VRED_WHY_UNSUPPORTED_TYPE : VRED_WHY_DERIVED_TYPE;
}

int vred_pass_type(MPI_Datatype datatype)
{
    if (vred_stats_on) vred_stats_set_why(type_why(datatype));
    return 0;
}

/* Why vred_mpi_map() refused (datatype, op), in its own order. */
static vred_why unmapped_why(MPI_Datatype datatype, MPI_Op op)
{
    if (__atomic_load_n(&vred_mpi_state, __ATOMIC_ACQUIRE) != VRED_MPI_READY)
        return VRED_WHY_NOT_INITIALIZED;
    if (op == MPI_OP_NULL) return VRED_WHY_INVALID_ARG;
    if (!vred_mpi_find(vred_mpi_op_slots, VRED_MPI_OP_BITS, VRED_MPI_HANDLE_BITS(op)))
        return VRED_WHY_USER_OP; /* (MPI_REPLACE and MPI_NO_OP too: not reductions) */
    if (!vred_mpi_find(vred_mpi_type_slots, VRED_MPI_TYPE_BITS, VRED_MPI_HANDLE_BITS(datatype)))
        return type_why(datatype);
    return VRED_WHY_UNSUPPORTED_PAIR;
}

int vred_pass_unmapped(MPI_Datatype datatype, MPI_Op op)
{
    if (vred_stats_on) vred_stats_set_why(unmapped_why(datatype, op));
    return 0;
}

int vred_pass_comm(MPI_Comm comm)
{
    if (vred_stats_on) {
        int inter = 0;
        vred_why why = comm == MPI_COMM_NULL ? VRED_WHY_INVALID_ARG
                       : PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter
                           ? VRED_WHY_INTERCOMM
                           : VRED_WHY_COMM_UNAVAILABLE;
        vred_stats_set_why(why);
    }
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------ */

static void snapshot(uint64_t *w)
{
    const uint64_t *t = (const uint64_t *)table;
    for (size_t i = 0; i < NWORDS; i++) w[i] = __atomic_load_n(&t[i], __ATOMIC_RELAXED);
}

/* The slot's algorithm name (NULL: an unused slot). */
static const char *alg_of(int coll, int slot)
{
    if (slot >= NALG) return "mpi";
    if (coll == VRED_SC_REDUCE_LOCAL)
        return slot < (int)VRED_ISA_COUNT ? vred_isa_name((vred_isa)slot) : NULL;
    return slot < (int)VRED_ALG_COUNT ? vred_alg_name((vred_alg)slot) : NULL;
}

/* Every non-empty cell of a snapshot, in table order. */
static int each(const uint64_t *w, void (*fn)(const vred_mpi_stat *, void *), void *arg)
{
    const cell *t = (const cell *)w;
    int rows = 0;
    for (int c = 0; c < VRED_SC_COUNT; c++)
        for (int s = 0; s < NSIZE; s++)
            for (int k = 0; k < NSLOT; k++) {
                const cell *x = &t[(c * NSIZE + s) * NSLOT + k];
                if (!x->calls) continue;
                vred_mpi_stat row = {coll_names[c], size_names[s], alg_of(c, k),
                                     k >= NALG ? why_names[k - NALG] : NULL,
                                     x->calls, x->bytes, (double)x->ns * 1e-9};
                if (!row.alg) row.alg = "?";
                rows++;
                if (fn) fn(&row, arg);
            }
    return rows;
}

int vred_mpi_stats(void (*fn)(const vred_mpi_stat *row, void *arg), void *arg)
{
    if (!vred_stats_on) return -1;
    uint64_t *w = malloc(sizeof table);
    if (!w) return -1;
    snapshot(w);
    int rows = each(w, fn, arg);
    free(w);
    return rows;
}

void vred_mpi_stats_reset(void)
{
    uint64_t *t = (uint64_t *)table;
    for (size_t i = 0; i < NWORDS; i++) __atomic_store_n(&t[i], 0, __ATOMIC_RELAXED);
}

/* ---- the summary ---------------------------------------------------------------------------- */

typedef struct {
    FILE *out;
    const char *rank;
    uint64_t calls, served, passed, bytes;
    double seconds;
} printer;

static void total(const vred_mpi_stat *r, void *arg)
{
    printer *p = arg;
    p->calls += r->calls;
    *(r->reason ? &p->passed : &p->served) += r->calls;
    p->bytes += r->bytes;
    p->seconds += r->seconds;
}

static void line(const vred_mpi_stat *r, void *arg)
{
    printer *p = arg;
    fprintf(p->out, "vred-stats rank=%s coll=%s size=%s alg=%s", p->rank, r->coll, r->size, r->alg);
    if (r->reason) fprintf(p->out, " reason=%s", r->reason);
    fprintf(p->out, " calls=%llu bytes=%llu time_s=%.6f\n", r->calls, r->bytes, r->seconds);
}

/* The lines of one snapshot (rank: "3", or "all" for sums); malloc'ed text, its length in *len. */
static char *format(const uint64_t *w, const char *rank, size_t *len)
{
    char *text = NULL;
    printer p = {open_memstream(&text, len), rank, 0, 0, 0, 0, 0};
    if (!p.out) return NULL;
    each(w, total, &p);
    fprintf(p.out, "vred-stats rank=%s total calls=%llu served=%llu passed=%llu bytes=%llu "
                   "time_s=%.6f\n", rank, (unsigned long long)p.calls,
            (unsigned long long)p.served, (unsigned long long)p.passed,
            (unsigned long long)p.bytes, p.seconds);
    each(w, line, &p);
    /* The link between nodes the cost model took (measured at the first multi-node
     * communicator, src/mpi/comm.c): per process only. */
    double alpha, beta;
    if (strcmp(rank, "all") && vred_mpi_link(&alpha, &beta))
        fprintf(p.out, "vred-stats rank=%s link alpha_net_us=%.2f beta_net_ns_per_byte=%.4f "
                       "gbit_s=%.2f source=measured\n", rank, alpha * 1e6, beta * 1e9,
                beta > 0 ? 8e-9 / beta : 0.0);
    if (fclose(p.out)) {
        free(text);
        return NULL;
    }
    return text;
}

static void emit(const char *text, size_t len)
{
    if (!text) return;
    fwrite(text, 1, len, stderr);
    fflush(stderr);
}

/* 1 if every rank has ok (rank 0's says for all: only it allocates), through the MPI's bcast. */
static int root_ok(int ok)
{
    return vred_next()->Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS && ok;
}

void vred_stats_finalize(void)
{
    int init = 0, fini = 0, rank = 0, size = 1;
    if (!vred_stats_on || PMPI_Initialized(&init) != MPI_SUCCESS || !init ||
        PMPI_Finalized(&fini) != MPI_SUCCESS || fini)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    static uint64_t w[NWORDS], sum[NWORDS]; /* once per process */
    char name[16], *text = NULL, *all = NULL;
    int *lens = NULL, *displs = NULL;
    size_t len = 0, at = 0;
    snapshot(w);
    snprintf(name, sizeof name, "%d", rank);
    switch (vred_stats_on) {
    case VRED_STATS_ON:
        text = format(w, name, &len);
        emit(text, len);
        break;
    case VRED_STATS_GATHER: {
        /* Rank 0 prints every rank's text, in rank order. */
        text = format(w, name, &len);
        int mine = text && len <= 0x7fffffff ? (int)len : 0;
        if (!rank) {
            lens = calloc((size_t)size, sizeof *lens);
            displs = calloc((size_t)size, sizeof *displs);
        }
        if (!root_ok(lens && displs) ||
            PMPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            break;
        if (!rank) {
            for (int r = 0; r < size; r++) {
                displs[r] = at <= 0x7fffffff ? (int)at : 0;
                at += (size_t)lens[r];
            }
            if (at <= 0x7fffffff) all = malloc(at ? at : 1);
        }
        if (root_ok(all != NULL) &&
            PMPI_Gatherv(text, mine, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD) ==
                MPI_SUCCESS &&
            !rank)
            emit(all, at);
        break;
    }
    case VRED_STATS_SUM:
        /* Rank 0 prints the sums over every rank, as rank=all. */
        if (vred_next()->Reduce(w, sum, (int)NWORDS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) ==
                MPI_SUCCESS &&
            !rank) {
            text = format(sum, "all", &len);
            emit(text, len);
        }
        break;
    }
    free(text);
    free(all);
    free(lens);
    free(displs);
}
