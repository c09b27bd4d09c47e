/* Mixed collectives, generated alike on every rank and checked exactly (soak_mix.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "soak_mix.h"

/* libvred-mpi.so's extension API, weak: null when the MPI runs alone. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { ALLREDUCE, REDUCE, REDUCE_SCATTER, BCAST, ALLGATHER };
static const char *const coll_names[MIX_COLLS] = {"allreduce", "reduce", "reduce_scatter",
                                                  "bcast", "allgather"};
static const char *const alg_names[MIX_ALGS] = {"auto", "mpi", "binomial", "redscat", "ring",
                                                "recdbl", "ma", "dpml", "pipe", "cma"};
/* What vred_mpi_force accepts for each collective ("auto": vred's own choice). */
static const char *const forcible[MIX_COLLS][9] = {
    {"auto", "mpi", "recdbl", "binomial", "redscat", "ring", "dpml", "ma", NULL},
    {"auto", "mpi", "binomial", "redscat", "ring", "dpml", "ma", NULL},
    {"auto", "mpi", "binomial", "redscat", "ring", "dpml", "ma", NULL},
    {"auto", "mpi", "pipe", "cma", NULL},
    {"auto", "mpi", "pipe", "cma", NULL},
};

typedef enum { SIGNED, UNSIGNED, FLOATING } kind;
typedef struct {
    MPI_Datatype dt; /* a constant in MPICH, an address in Open MPI: filled at run time */
    int size;
    kind k;
} type_info;
static type_info types[7];
static const int ntypes = 7;
static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void init_types(void)
{
    types[0] = (type_info){MPI_INT, 4, SIGNED};
    types[1] = (type_info){MPI_INT64_T, 8, SIGNED};
    types[2] = (type_info){MPI_UINT8_T, 1, UNSIGNED};
    types[3] = (type_info){MPI_SHORT, 2, SIGNED};
    types[4] = (type_info){MPI_UNSIGNED, 4, UNSIGNED};
    types[5] = (type_info){MPI_DOUBLE, 8, FLOATING};
    types[6] = (type_info){MPI_FLOAT, 4, FLOATING};
}

enum { SUM, MAX, MIN, PROD, BAND, BOR, BXOR, NOPS };

static MPI_Op op_handle(int op)
{
    switch (op) {
    case SUM: return MPI_SUM;
    case MAX: return MPI_MAX;
    case MIN: return MPI_MIN;
    case PROD: return MPI_PROD;
    case BAND: return MPI_BAND;
    case BOR: return MPI_BOR;
    default: return MPI_BXOR;
    }
}

static uint64_t next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(uint64_t *s, size_t n) { return (size_t)(next(s) % n); }

/* Rank r's element i: small, so that no sum or product of <= 8 ranks overflows any type and
 * every floating-point result is exact whatever the order. */
static int64_t value(uint64_t salt, int r, size_t i, int op, kind k)
{
    uint64_t h = (uint64_t)i * 2654435761u + (uint64_t)r * 40503u + salt;
    if (op == PROD) return (int64_t)(h % 3) + 1;
    return (int64_t)(h % 61) - (k == SIGNED ? 30 : 0);
}

static void store(int t, void *buf, size_t i, int64_t v)
{
    char *p = (char *)buf + i * (size_t)types[t].size;
    if (types[t].k == FLOATING) {
        if (types[t].size == 8) { double d = (double)v; memcpy(p, &d, 8); }
        else { float f = (float)v; memcpy(p, &f, 4); }
        return;
    }
    /* The low bytes (little-endian), each size a fixed-size copy: a memcpy call per element
     * was a tenth of the soak's time. */
    switch (types[t].size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static int64_t combine(int op, int64_t a, int64_t b)
{
    switch (op) {
    case SUM: return a + b;
    case MAX: return a > b ? a : b;
    case MIN: return a < b ? a : b;
    case PROD: return a * b;
    case BAND: return a & b;
    case BOR: return a | b;
    default: return a ^ b;
    }
}

/* want[j] for j < n: the reduction over ranks of element off + j. */
static void expect(mix_state *m, uint64_t salt, int op, int t, size_t off, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        int64_t acc = value(salt, 0, off + j, op, types[t].k);
        for (int r = 1; r < m->size; r++)
            acc = combine(op, acc, value(salt, r, off + j, op, types[t].k));
        store(t, m->want, j, acc);
    }
}

/* out starts as the complement of the answer: a call that writes nothing cannot pass. */
static void poison(mix_state *m, size_t bytes)
{
    for (size_t j = 0; j < bytes; j++) m->out[j] = (unsigned char)~m->want[j];
}

/* Bytes of one rank's message: mostly small (below the MPI's threshold and DPML's), some
 * medium, a few large (movement-avoiding, pipelined, point-to-point). */
static size_t pick_bytes(mix_state *m)
{
    size_t c = below(&m->rng, 1000), max = m->max_bytes, lo, hi;
    size_t rest = 1000 - (size_t)m->large; /* 70% tiny, 20% small, 10% medium of the rest */
    if (c < rest * 7 / 10) lo = 1, hi = 2048;
    else if (c < rest * 9 / 10) lo = 2048, hi = 16384;
    else if (c < rest) lo = 16384, hi = 256 << 10;
    else lo = 256 << 10, hi = max;
    if (hi > max) hi = max;
    if (lo > hi) lo = hi;
    return lo + below(&m->rng, hi - lo + 1);
}

static int alg_index(const char *name)
{
    for (int g = 0; g < MIX_ALGS; g++)
        if (!strcmp(name, alg_names[g])) return g;
    return 0;
}

static int mix_one_sized(mix_state *m, int coll, size_t bytes, int t, int op,
                         const char *alg, int root);

int mix_one(mix_state *m)
{
    int coll = (int)below(&m->rng, MIX_COLLS);
    int t = (int)below(&m->rng, (size_t)ntypes);
    int op = (int)below(&m->rng, NOPS);
    size_t bytes = pick_bytes(m);
    const char *alg = NULL;
    if (m->force) {
        /* auto a third of the time, else any algorithm of this collective */
        size_t na = 0;
        while (forcible[coll][na]) na++;
        size_t k = below(&m->rng, 3 * (na - 1));
        alg = k < na - 1 ? "auto" : forcible[coll][1 + k % (na - 1)];
    }
    return mix_one_sized(m, coll, bytes, t, op, alg, -1);
}

/* root < 0: a random one */
static int mix_one_sized(mix_state *m, int coll, size_t bytes, int t, int op,
                         const char *alg, int root)
{
    int p = m->size, me = m->rank, bad = 0;
    if (types[t].k == FLOATING && op >= BAND) op = SUM; /* no bitwise ops on floats */
    size_t es = (size_t)types[t].size, n = bytes / es ? bytes / es : 1;
    uint64_t salt = next(&m->rng) >> 40;
    int drawn = (int)below(&m->rng, (size_t)p), inplace = below(&m->rng, 4) == 0;
    if (root < 0) root = drawn;
    MPI_Datatype dt = types[t].dt;
    MPI_Op mop = op_handle(op);
    if (alg && vred_mpi_force) vred_mpi_force(coll_names[coll], alg);
    switch (coll) {
    case ALLREDUCE:
    case REDUCE:
        for (size_t i = 0; i < n; i++) store(t, m->in, i, value(salt, me, i, op, types[t].k));
        expect(m, salt, op, t, 0, n);
        poison(m, n * es);
        if (coll == ALLREDUCE && inplace) {
            memcpy(m->out, m->in, n * es);
            MPI_Allreduce(MPI_IN_PLACE, m->out, (int)n, dt, mop, m->comm);
        } else if (coll == ALLREDUCE) {
            MPI_Allreduce(m->in, m->out, (int)n, dt, mop, m->comm);
        } else {
            MPI_Reduce(m->in, m->out, (int)n, dt, mop, root, m->comm);
        }
        bad = (coll == ALLREDUCE || me == root) && memcmp(m->out, m->want, n * es);
        break;
    case REDUCE_SCATTER: {
        size_t b = n / (size_t)p ? n / (size_t)p : 1; /* each rank's block */
        for (size_t i = 0; i < b * (size_t)p; i++)
            store(t, m->in, i, value(salt, me, i, op, types[t].k));
        expect(m, salt, op, t, (size_t)me * b, b);
        poison(m, b * es);
        MPI_Reduce_scatter_block(m->in, m->out, (int)b, dt, mop, m->comm);
        bad = memcmp(m->out, m->want, b * es) != 0;
        break;
    }
    case BCAST:
        for (size_t i = 0; i < n; i++) store(t, m->want, i, value(salt, root, i, SUM, types[t].k));
        if (me == root) memcpy(m->out, m->want, n * es);
        else poison(m, n * es);
        MPI_Bcast(m->out, (int)n, dt, root, m->comm);
        bad = memcmp(m->out, m->want, n * es) != 0;
        break;
    default: /* ALLGATHER */
        for (int r = 0; r < p; r++)
            for (size_t i = 0; i < n; i++)
                store(t, m->want, (size_t)r * n + i, value(salt, r, i, SUM, types[t].k));
        poison(m, (size_t)p * n * es);
        if (inplace) {
            memcpy(m->out + (size_t)me * n * es, m->want + (size_t)me * n * es, n * es);
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m->out, (int)n, dt, m->comm);
        } else {
            memcpy(m->in, m->want + (size_t)me * n * es, n * es);
            MPI_Allgather(m->in, (int)n, dt, m->out, (int)n, dt, m->comm);
        }
        bad = memcmp(m->out, m->want, (size_t)p * n * es) != 0;
        break;
    }
    const char *served = vred_mpi_last_alg ? vred_mpi_last_alg() : "auto";
    m->by_alg[coll][alg_index(served)]++;
    m->calls++;
    if (bad) {
        m->mismatches++;
        if (m->mismatches <= 5)
            fprintf(stderr, "mix: rank %d: %s of %zu x %d bytes (op %d, root %d, alg %s) wrong\n",
                    me, coll_names[coll], n, types[t].size, op, root, served);
    }
    return bad;
}

/* Every root too: an algorithm's buffers differ between the root and the others. */
void mix_warm(mix_state *m)
{
    for (int c = 0; c < MIX_COLLS; c++)
        for (int g = 0; forcible[c][g]; g++)
            for (int root = 0; root < m->size && (m->force || g == 0); root++)
                mix_one_sized(m, c, m->max_bytes, 0, SUM, m->force ? forcible[c][g] : NULL, root);
    if (m->force && vred_mpi_force)
        for (int c = 0; c < MIX_COLLS; c++) vred_mpi_force(coll_names[c], "auto");
}

int mix_init(mix_state *m, MPI_Comm comm, uint64_t seed, size_t max_bytes, int force)
{
    pthread_once(&types_once, init_types);
    memset(m, 0, sizeof *m);
    m->rng = seed;
    m->comm = comm;
    m->force = force;
    m->large = 10;
    m->max_bytes = max_bytes;
    MPI_Comm_rank(comm, &m->rank);
    MPI_Comm_size(comm, &m->size);
    size_t total = (size_t)m->size * max_bytes + 64;
    m->in = malloc(total);
    m->out = malloc(total);
    m->want = malloc(total);
    return m->in && m->out && m->want ? 0 : -1;
}

void mix_free(mix_state *m)
{
    free(m->in);
    free(m->out);
    free(m->want);
    m->in = m->out = m->want = NULL;
}

void mix_print_algs(const mix_state *m, const char *prefix)
{
    for (int c = 0; c < MIX_COLLS; c++) {
        printf("%s%s:", prefix, coll_names[c]);
        for (int g = 0; g < MIX_ALGS; g++)
            if (m->by_alg[c][g]) printf(" %s=%ld", g == 0 ? "?" : alg_names[g], m->by_alg[c][g]);
        printf("\n");
    }
}
