/*
 * The VRED_* environment knobs: one table, one parser, one message per malformed value.
 * Add a knob by adding a row to `knobs` and a field to vred_config.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"

/* KNOB_ALG: a VRED_<COLL>_ALG knob, an ENUM whose accepted values come from the registry
 * (coll/algs.def): "auto|mpi" and the collective's algorithms, in vred_alg order. */
/* KNOB_SPEC: free text checked by the row's `valid` (as the `lo` field cannot hold it, the
 * check is looked up by name in spec_valid). */
typedef enum { KNOB_ENUM, KNOB_INT, KNOB_PATH, KNOB_ALG, KNOB_SPEC } knob_kind;

typedef struct {
    const char *name;
    knob_kind kind;
    const char *accepted; /* ENUM: '|'-separated, as printed; INT: "lo..hi"; PATH: a description */
    const char *deflt;
    /* ENUM: index of the accepted value; INT: the value; PATH: unused (the string is kept). */
    void (*apply)(vred_config *cfg, long value, const char *text);
    const char *help;
    long lo, hi; /* KNOB_INT bounds */
} knob;

static void apply_isa(vred_config *c, long i, const char *t)
{
    (void)t;
    c->isa_cap = i < 0 ? VRED_ISA_COUNT : (vred_isa)i;
}
static void apply_tail(vred_config *c, long i, const char *t) { (void)t; c->tail = (vred_tail_mode)i; }
static void apply_disable(vred_config *c, long i, const char *t) { (void)t; c->disable = i > 0; }
static void apply_threads(vred_config *c, long v, const char *t) { (void)t; c->threads = (int)v; }
static void apply_sparse(vred_config *c, long i, const char *t)
{
    (void)t;
    c->sparse = (vred_sparse_mode)i;
}
static void apply_node(vred_config *c, long v, const char *t) { (void)t; c->node_size = (int)v; }
static void apply_tune(vred_config *c, long v, const char *t)
{
    (void)v;
    c->tune_file = t && *t ? t : NULL;
}
/* An algorithm knob (KNOB_ALG; its collective is the row's `lo`): the value is stored by name,
 * not by its place in the knob's own list, which has only the collective's algorithms. */
static void apply_alg(vred_config *c, long coll, const char *t)
{
    for (int a = 0; a < VRED_ALG_COUNT; a++)
        if (!strcmp(t, vred_alg_name((vred_alg)a))) c->alg[coll] = (vred_alg)a;
}

/* Which algorithms each collective has (the registry's rows). */
static const unsigned char has_alg[VRED_COLL_COUNT][VRED_ALG_COUNT] = {
#define VRED_ALG(C, A, family, band, fn, cost) [VRED_COLL_##C][VRED_ALG_##A] = 1,
#include "coll/algs.def"
#undef VRED_ALG
};

/* Each algorithm knob's accepted values: "auto|mpi" and the collective's algorithms, in
 * vred_alg order (so that vred-info and the malformed-value message list them alike). */
static char alg_accepted[VRED_COLL_COUNT][128];

static void alg_accepted_fill(void)
{
    for (int c = 0; c < VRED_COLL_COUNT; c++) {
        char *s = alg_accepted[c];
        size_t size = sizeof alg_accepted[c];
        snprintf(s, size, "%s|%s", vred_alg_name(VRED_ALG_AUTO), vred_alg_name(VRED_ALG_MPI));
        for (int a = 0; a < VRED_ALG_COUNT; a++)
            if (has_alg[c][a])
                snprintf(s + strlen(s), size - strlen(s), "|%s", vred_alg_name((vred_alg)a));
    }
}

static const char *accepted(const knob *kb)
{
    return kb->kind == KNOB_ALG ? alg_accepted[kb->lo] : kb->accepted;
}
static void apply_nt(vred_config *c, long i, const char *t) { (void)t; c->nt = (vred_nt_mode)i; }
static void apply_copy_skew(vred_config *c, long i, const char *t)
{
    (void)t;
    c->copy_skew = (vred_skew_mode)i;
}
static void apply_realign_from(vred_config *c, long v, const char *t)
{
    (void)t;
    c->realign_from = v;
}
static void apply_shm(vred_config *c, long i, const char *t) { (void)t; c->shm = i == 0; }
static void apply_shm_memfd(vred_config *c, long i, const char *t)
{
    (void)t;
    c->shm_memfd = i == 0;
}
static void apply_cma(vred_config *c, long i, const char *t) { (void)t; c->cma = i == 0; }
static void apply_cma_balance(vred_config *c, long i, const char *t)
{
    (void)t;
    c->cma_balance = i == 0 ? VRED_CMA_BALANCE_AUTO : i == 1 ? VRED_CMA_BALANCE_OFF
                                                              : VRED_CMA_BALANCE_ENDS;
}
static void apply_cma_root_share(vred_config *c, long v, const char *t)
{
    (void)t;
    c->cma_root_share = (int)v;
}
static void apply_sockets(vred_config *c, long v, const char *t) { (void)t; c->sockets = (int)v; }
static void apply_slice(vred_config *c, long v, const char *t) { (void)t; c->shm_slice = v; }
static void apply_cell(vred_config *c, long v, const char *t) { (void)t; c->shm_cell = v; }
static void apply_shm_limit(vred_config *c, long v, const char *t) { (void)t; c->shm_limit = v; }
static void apply_comm_limit(vred_config *c, long v, const char *t) { (void)t; c->comm_limit = v; }
static void apply_scratch_limit(vred_config *c, long v, const char *t)
{
    (void)t;
    c->scratch_limit = v;
}
/* VRED_TEST_FAIL: "off", or POINT:RANK[:N] with POINT alloc, pmpi, step or memfd, RANK a rank of
 * MPI_COMM_WORLD, N >= 1 (default 1): the N-th time that rank reaches POINT inside a collective
 * algorithm, it fails there (src/coll/fail.c; test-only, docs/reliability.md). */
static int test_fail_parse(const char *t, vred_config *c)
{
    static const char *const points[] = {"alloc", "pmpi", "step", "memfd"};
    if (!strcmp(t, "off")) {
        if (c) c->test_fail_point = 0;
        return 1;
    }
    const char *colon = strchr(t, ':');
    if (!colon) return 0;
    int point = 0;
    for (int i = 0; i < (int)(sizeof points / sizeof points[0]); i++)
        if ((size_t)(colon - t) == strlen(points[i]) && !strncmp(t, points[i], strlen(points[i])))
            point = i + 1;
    char *end = NULL;
    errno = 0;
    long rank = strtol(colon + 1, &end, 10), nth = 1;
    if (!point || errno || end == colon + 1 || rank < 0 || rank > 1 << 24) return 0;
    if (*end == ':') {
        const char *n0 = end + 1;
        nth = strtol(n0, &end, 10);
        if (errno || end == n0 || nth < 1 || nth > 1L << 40) return 0;
    }
    if (*end) return 0;
    if (c) {
        c->test_fail_point = point;
        c->test_fail_rank = (int)rank;
        c->test_fail_nth = nth;
    }
    return 1;
}
static void apply_test_fail(vred_config *c, long v, const char *t)
{
    (void)v;
    test_fail_parse(t, c);
}

static void apply_learn(vred_config *c, long i, const char *t)
{
    (void)t;
    c->learn = (vred_learn_mode)i;
}
static void apply_learn_spell(vred_config *c, long v, const char *t)
{
    (void)t;
    c->learn_spell = (int)v;
}
static void apply_stats(vred_config *c, long i, const char *t)
{
    /* "0|1|off|on|gather|sum": 0 and off, 1 and on are the same. */
    static const vred_stats_mode modes[] = {VRED_STATS_OFF, VRED_STATS_ON,     VRED_STATS_OFF,
                                            VRED_STATS_ON,  VRED_STATS_GATHER, VRED_STATS_SUM};
    (void)t;
    c->stats = modes[i];
}

/* The order of `accepted` matches the enum each apply() stores (the algorithm knobs store by
 * name, see apply_alg). "best" in VRED_ISA is past the last ISA, i.e. no cap. */
static const knob knobs[] = {
    {"VRED_ISA", KNOB_ENUM, "scalar|sse41|avx2|avx512|neon|sve|best", "best", apply_isa,
     "cap the instruction set (never raised past the hardware)", 0, 0},
    {"VRED_TAIL", KNOB_ENUM, "auto|mask|cascade", "auto", apply_tail,
     "vector tail: masked, or the 512->256->128->scalar cascade (auto = measured best)", 0, 0},
    {"VRED_DISABLE", KNOB_ENUM, "0|1", "0", apply_disable,
     "1: libvred-mpi passes every call to the MPI library untouched", 0, 0},
    {"VRED_THREADS", KNOB_INT, "0..256", "0", apply_threads,
     "threads per large local reduction; 0 = the cores this rank has that no other rank of the "
     "node uses", 0, 256},
    {"VRED_SPARSE", KNOB_ENUM, "auto|off|bits|idx", "auto", apply_sparse,
     "compress sparse messages: by measured density, never, or always in one format", 0, 0},
    {"VRED_NODE_SIZE", KNOB_INT, "0..1048576", "0", apply_node,
     "treat every k consecutive ranks as one node (testing); 0 = MPI_COMM_TYPE_SHARED", 0,
     1048576},
    /* The algorithms of each collective (coll/algs.def; accepted values filled at parse). */
#define VRED_COLL(C, name, mpi)                                                                 \
    {"VRED_" #C "_ALG", KNOB_ALG, NULL, "auto", NULL, "force " mpi "'s algorithm",              \
     VRED_COLL_##C, VRED_COLL_##C},
#include "coll/algs.def"
#undef VRED_COLL
    {"VRED_SHM", KNOB_ENUM, "auto|off", "auto", apply_shm,
     "shared-memory algorithms inside a node; off = point-to-point only", 0, 0},
    {"VRED_SHM_MEMFD", KNOB_ENUM, "auto|off", "auto", apply_shm_memfd,
     "the shared segment without a name (memfd, opened by the node's other ranks through /proc) "
     "where the node allows it; off = a name in /dev/shm until every rank has mapped it", 0, 0},
    {"VRED_CMA", KNOB_ENUM, "auto|off", "auto", apply_cma,
     "single copy inside a node by cross-memory attach (process_vm_readv/writev) where the "
     "kernel permits it: bcast, allgather and the cma reductions; off = through the shared "
     "segment only", 0, 0},
    {"VRED_CMA_BALANCE", KNOB_ENUM, "auto|off|ends", "auto", apply_cma_balance,
     "the blocks of an allreduce by `cma`: auto = each rank's follows how fast its part ran in "
     "the calls before, per size class (the cores need not run alike); off = equal blocks; ends "
     "(testing) = the ranks' parts at the bounds, a quarter and seven quarters of the even part "
     "in turn", 0, 0},
    {"VRED_CMA_ROOT_SHARE", KNOB_INT, "0..99", "0", apply_cma_root_share,
     "percent of the vector a reduce's root folds itself under `cma` (the other ranks split the "
     "rest and write their sums to it), and of the message a bcast's root writes into every "
     "reader under `cma` (they read the rest); 0 = balanced after every call by what each "
     "rank's part cost", 0, 99},
    {"VRED_NT", KNOB_ENUM, "auto|on|off", "auto", apply_nt,
     "streaming stores in shared-memory copies: auto = out of a bank when the working set "
     "exceeds the cache, into one where ordinary stores measure slow; on = always; off = never",
     0, 0},
    {"VRED_COPY_SKEW", KNOB_ENUM, "auto|slow|fast", "auto", apply_copy_skew,
     "copies whose destination sits 1-63 bytes past the source in its page (the CPU's string "
     "copy crawls there on AMD Zen): auto = measured per distance at first need; slow = always "
     "route the MPI's and cross-memory attach copies around them; fast = never", 0, 0},
    {"VRED_REALIGN_FROM", KNOB_INT, "0..1073741824", "0", apply_realign_from,
     "bytes from which the AVX2 and AVX-512 kernels read an input off the stores' alignment in "
     "aligned lines rather than by split loads (and the AVX-512 pair form takes four vectors a "
     "trip); 0 = measured per ISA on this CPU at first need; 1 = at every size",
     0, 1L << 30},
    {"VRED_SOCKETS", KNOB_INT, "0..64", "0", apply_sockets,
     "split each node's ranks into k socket groups (testing); 0 = hwloc's packages", 0, 64},
    {"VRED_SHM_SLICE", KNOB_INT, "0..67108864", "0", apply_slice,
     "largest shared-memory slice in bytes (I_max, at least 4096); 0 = built in", 0, 64 << 20},
    {"VRED_SHM_CELL", KNOB_INT, "0..67108864", "0", apply_cell,
     "the shared-memory bcast's cell in bytes (a multiple of 64: the unit its receivers follow the "
     "root by); 0 = built in", 0, 64 << 20},
    {"VRED_SHM_LIMIT", KNOB_INT, "0..1099511627776", "0", apply_shm_limit,
     "bytes of shared memory this process's share of vred's regions may hold, over all "
     "communicators (regions shrink, then new ones go point-to-point); 0 = /dev/shm's size / 2 "
     "/ ranks on the node, at most 32 MiB", 0, 1L << 40},
    {"VRED_COMM_LIMIT", KNOB_INT, "0..1048576", "1024", apply_comm_limit,
     "communicators vred keeps state for at once (one hidden communicator of the MPI's each); "
     "collectives on more go to the MPI", 0, 1048576},
    {"VRED_SCRATCH_LIMIT", KNOB_INT, "0..1099511627776", "268435456", apply_scratch_limit,
     "bytes of scratch buffers this process keeps between calls, over all communicators; a "
     "call's scratch beyond it is released when the call ends (0 = keep none)", 0, 1L << 40},
    {"VRED_STATS", KNOB_ENUM, "0|1|off|on|gather|sum", "0", apply_stats,
     "at MPI_Finalize, print what libvred-mpi did (vred-stats lines): per process (1, on), every "
     "rank's on rank 0 (gather), the sums over ranks on rank 0 (sum)", 0, 0},
    {"VRED_LEARN", KNOB_ENUM, "on|read|redo|off", "on", apply_learn,
     "automatic choice vs the MPI measured per size class at first use and cached per machine "
     "(on), taken from the cache only (read), measured again (redo), or the model alone (off)",
     0, 0},
    {"VRED_LEARN_SPELL", KNOB_INT, "0..100000", "200", apply_learn_spell,
     "percent: a class learned while ordinary stores between the node's cores took more than "
     "this much of the time of streaming ones (the host's slow spells) is measured again by "
     "later runs; 1 = every class (testing), 0 = never", 0, 100000},
    {"VRED_TUNE_FILE", KNOB_PATH, "a file written by vred-bench tune", "", apply_tune,
     "cost-model parameters measured on this machine (default: built in)", 0, 0},
    {"VRED_TEST_FAIL", KNOB_SPEC, "off or POINT:RANK[:N], POINT alloc, pmpi, step or memfd", "off",
     apply_test_fail,
     "testing only: world rank RANK fails the N-th time it reaches POINT inside a collective "
     "algorithm (a scratch allocation, a point-to-point call, a shared-memory step, opening the "
     "node's memfd)", 0, 0},
};

static const char *const alg_names[VRED_ALG_COUNT] = {
#define VRED_ALG_NAME(A, name) #name,
#include "coll/algs.def"
#undef VRED_ALG_NAME
};
static const char *const coll_names[VRED_COLL_COUNT] = {
#define VRED_COLL(C, name, mpi) #name,
#include "coll/algs.def"
#undef VRED_COLL
};

const char *vred_alg_name(vred_alg a)
{
    return (unsigned)a < VRED_ALG_COUNT ? alg_names[a] : "?";
}

const char *vred_coll_name(vred_coll c)
{
    return (unsigned)c < VRED_COLL_COUNT ? coll_names[c] : "?";
}

/* Position of value in the '|'-list, or -1. */
static int lookup(const char *list, const char *value)
{
    size_t len = strlen(value);
    int index = 0;
    for (const char *p = list;; index++) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, value, n) == 0) return index;
        if (!end) return -1;
        p = end + 1;
    }
}

/* A decimal integer in [lo, hi], the whole string; -1 if not. */
static long parse_int(const char *v, long lo, long hi)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) return -1;
    return x;
}

static vred_config config;
static long in_effect[sizeof knobs / sizeof knobs[0]]; /* ENUM: index; INT: value */
static char malformed[sizeof knobs / sizeof knobs[0]];
static uint64_t digest[sizeof knobs / sizeof knobs[0]]; /* of the value in effect (below) */

/* FNV-1a of the value in effect: the number (ENUM, ALG: its index; INT) or the text (PATH,
 * SPEC), so that "007" and "7", or a malformed value and none, give the same. */
static uint64_t digest_of(const knob *kb, long value, const char *text)
{
    uint64_t h = 14695981039346656037ull;
    int is_text = kb->kind == KNOB_PATH || kb->kind == KNOB_SPEC;
    unsigned char num[sizeof value];
    memcpy(num, &value, sizeof num);
    const unsigned char *b = is_text ? (const unsigned char *)text : num;
    size_t n = is_text ? strlen(text) : sizeof num;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void parse(void)
{
    alg_accepted_fill();
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
        const knob *kb = &knobs[k];
        const char *v = getenv(kb->name);
        int listed = kb->kind == KNOB_ENUM || kb->kind == KNOB_ALG;
        long value = listed ? lookup(accepted(kb), kb->deflt)
                     : kb->kind == KNOB_INT ? strtol(kb->deflt, NULL, 10) : 0;
        const char *text = kb->deflt;
        if (v && *v) {
            long got = listed                  ? lookup(accepted(kb), v)
                       : kb->kind == KNOB_INT  ? parse_int(v, kb->lo, kb->hi)
                       : kb->kind == KNOB_SPEC ? (test_fail_parse(v, NULL) ? 0 : -1)
                                               : 0;
            malformed[k] = got < 0;
            if (got < 0)
                fprintf(stderr, "vred: %s='%s' is not one of %s; using %s\n", kb->name, v,
                        accepted(kb), kb->deflt);
            else {
                value = got;
                text = v;
            }
        }
        in_effect[k] = value;
        digest[k] = digest_of(kb, value, text);
        if (kb->kind == KNOB_ALG) apply_alg(&config, kb->lo, text);
        else kb->apply(&config, value, text);
    }
}

const vred_config *vred_config_get(void)
{
    /* First called from the load-time constructor, before threads exist. */
    static int done;
    if (!done) {
        parse();
        done = 1;
    }
    return &config;
}

_Static_assert(sizeof knobs / sizeof knobs[0] <= VRED_CONFIG_KNOBS_MAX, "the ranks' check holds every knob");

size_t vred_config_knobs(void)
{
    return sizeof knobs / sizeof knobs[0];
}

const char *vred_config_knob_name(size_t k)
{
    return k < vred_config_knobs() ? knobs[k].name : "?";
}

uint64_t vred_config_knob_digest(size_t k)
{
    vred_config_get();
    return k < vred_config_knobs() ? digest[k] : 0;
}

/* Copies entry `index` of a '|'-list into buf. */
static const char *nth(const char *list, int index, char *buf, size_t size)
{
    const char *p = list;
    for (int i = 0; i < index && p; i++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    size_t n = p ? strcspn(p, "|") : 0;
    if (n >= size) n = size - 1;
    memcpy(buf, p ? p : "", n);
    buf[n] = 0;
    return buf;
}

void vred_config_print(FILE *out)
{
    vred_config_get();
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
        const knob *kb = &knobs[k];
        char value[64];
        const char *set = getenv(kb->name);
        if (kb->kind == KNOB_ENUM || kb->kind == KNOB_ALG)
            nth(accepted(kb), (int)in_effect[k], value, sizeof value);
        else if (kb->kind == KNOB_INT)
            snprintf(value, sizeof value, "%ld", in_effect[k]);
        else if (kb->kind == KNOB_SPEC)
            snprintf(value, sizeof value, "%s", set && *set && !malformed[k] ? set : kb->deflt);
        else
            snprintf(value, sizeof value, "%s", set && *set ? set : "(none)");
        /* (Not by comparing the text: "007" is a well-formed 7.) */
        const char *state = !(set && *set) ? "[default]" : malformed[k] ? "[malformed]" : "[set]";
        fprintf(out, "  %-24s %-10s %-11s (%s) %s\n", kb->name, value, state, accepted(kb),
                kb->help);
    }
}
