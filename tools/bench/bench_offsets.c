/*
 * vred-bench offsets: what a buffer's placement costs each algorithm, end to end (issue 16, item 1:
 * every algorithm within 10% of its own aligned time at any offset).
 *
 * For each collective, algorithm and size, one measurement (bc_measure) whose implementations are
 * that algorithm at each send/receive offset: 0/0 (4096-aligned) first, then every offset asked
 * for. They take turns in every round (rotated and reversed round by round), calls back to back
 * as an application makes them, each batch after leading calls of its own. The ratio of an offset
 * is the median over the rounds of (time at 0/0 / time at the offset) within the round: 1 is as
 * fast as aligned, < 1 slower. A round's batches run within a fraction of a second of each other,
 * so the machine's slow spells (another guest on the host, the two cores' shared-memory traffic
 * dropping for seconds: docs/peers.md) fall on the aligned and the offset calls alike. Runs at
 * each offset in separate processes minutes apart (bench/run_align.sh before this) put the MPI's
 * own collective at 0.76-0.87x of itself where nothing but the time of day differed.
 *
 * The buffers are one allocation per side (send, receive), 4096-aligned, and the offsets move the
 * pointers within it, so every offset runs on the same physical pages: separate allocations sit in
 * other cache sets, which moved the ratio of two identical implementations by up to 20% at L2
 * sizes (vred-bench local's note).
 *
 * Algorithms: "mpi" (the MPI's own collective, measured the same way: the gauge of what the
 * offsets cost where vred plays no part) and vred's (bc_algs: auto, binomial, ...). reduce_local
 * (MPI_Reduce_local, in = the send buffer, inout = the receive buffer): "vred" and "mpi"; one
 * process does it (run with -np 1), its inout restored before every batch.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_coll.h"
#include "bench_common.h"

#define OFF_DEFAULT "4/4,8/8,16/16,32/32,48/48,0/16,16/0"
#define OFF_BYTES "1/1,0/1," /* u8 runs these first too: a byte buffer can start anywhere */
#define COLL_DEFAULT "allreduce,reduce,reduce_scatter_block,bcast,allgather"
#define ALG_DEFAULT "mpi,vred,auto,binomial,redscat,ring,recdbl,ma,dpml,pipe,cma"

typedef struct {
    long s, r; /* bytes past a 4096-aligned address: send, receive */
} offset_pair;

/* The inout of reduce_local as filled, restored before each batch (bc_run.before): every offset's
 * calls then fold the same values, and the sums never drift into other magnitudes. */
typedef struct {
    const void *pristine;
    void *rbase;
    size_t bytes;
} restore_ctx;

static void restore_inout(const bc_run *r, int impl)
{
    (void)impl;
    const restore_ctx *x = r->ctx;
    memcpy(x->rbase, x->pristine, x->bytes);
}

static int parse_offsets(const char *spec, offset_pair *out, int max, int loud)
{
    char tok[BC_MAX_IMPL][32];
    int n = bc_split(spec, tok, BC_MAX_IMPL), k = 0;
    out[k++] = (offset_pair){0, 0}; /* the reference, always first */
    for (int i = 0; i < n; i++) {
        char *end;
        long s = strtol(tok[i], &end, 10), r = s;
        if (*end == '/') r = strtol(end + 1, &end, 10);
        if (*end || s < 0 || r < 0 || s > 4095 || r > 4095) {
            if (loud) fprintf(stderr, "vred-bench offsets: --offsets: '%s' is not N or S/R (bytes 0..4095)\n", tok[i]);
            return -1;
        }
        if (s == 0 && r == 0) continue;
        if (k == max) {
            if (loud) fprintf(stderr, "vred-bench offsets: at most %d offsets\n", max - 1);
            return -1;
        }
        out[k++] = (offset_pair){s, r};
    }
    return k;
}

/* Doubles read 4 bytes off their elements (offsets 4/4, 0/4) take one half of each of two
 * elements: with integer values (low half zero) those would be denormals, which some CPUs add
 * far slower. With the low half a copy of the high half, every double read at any whole-dword
 * offset is a normal number; the values are no longer integers (nothing here validates). */
static void dword_safe_doubles(void *buf, size_t count)
{
    uint32_t *w = buf;
    for (size_t i = 0; i < count; i++) w[2 * i] = w[2 * i + 1];
}

static void usage(FILE *f)
{
    fprintf(f,
        "vred-bench offsets [options]   (collectives: mpirun -np P; reduce_local: -np 1)\n"
        "  --coll LIST       " COLL_DEFAULT " (default), or reduce_local\n"
        "  --algs LIST       " ALG_DEFAULT " (default; each collective runs\n"
        "                    those it has; reduce_local: vred,mpi)\n"
        "  --offsets LIST    S/R or N, bytes past a 4096-aligned address; 0/0 is the reference and\n"
        "                    always runs (default " OFF_DEFAULT "; u8: " OFF_BYTES " too)\n"
        "  --sizes LIST      default 4K,64K,1M,16M,64M (bytes of the vector, as vred-bench coll)\n"
        "  --type T --op O   f32 | f64 | i32 | i64 | u8; sum | max | min | prod (default f32 sum)\n"
        "  --reps N          rounds, every one of them however long the calls (default 15)\n"
        "  --budget S        seconds per (collective, algorithm, size) (default 0.5)\n"
        "  --sync barrier    a barrier before every call (default: back to back)\n"
        "  --csv FILE        one row per (collective, algorithm, size, offset)\n"
        "Ratio: the median over the rounds of (time at 0/0 / time at the offset) in the same round.\n");
}

/* The algorithms of collective c in alg_spec's order: "mpi", then those it has. */
static int algs_of(bc_coll c, char algs[][32], int nalg, const char **out)
{
    int n = 0;
    for (int a = 0; a < nalg; a++) {
        if (strcmp(algs[a], "mpi") && !bc_in_list(bc_algs[c], algs[a])) continue;
        if (c != BC_REDUCE_LOCAL && strcmp(algs[a], "mpi") &&
            (!vred_mpi_force || vred_mpi_force(bc_vnames[c], algs[a]) != 0))
            continue;
        out[n++] = algs[a];
    }
    if (c != BC_REDUCE_LOCAL && vred_mpi_force) vred_mpi_force(bc_vnames[c], "auto");
    return n;
}

int cmd_offsets(int argc, char **argv)
{
    const char *coll_spec = COLL_DEFAULT, *alg_spec = ALG_DEFAULT, *off_spec = NULL, *type = "f32";
    const char *opname = "sum", *csv = NULL, *size_spec = "4K,64K,1M,16M,64M";
    int reps = 15, rank, p;
    double budget = 0.5;
    bench_mode mode = {0};
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sync")) {
            if (bench_mode_arg(&mode, a, v, !rank) < 0) return 2;
            i++;
        } else if (!strcmp(a, "--coll") && v) coll_spec = v, i++;
        else if (!strcmp(a, "--algs") && v) alg_spec = v, i++;
        else if (!strcmp(a, "--offsets") && v) off_spec = v, i++;
        else if (!strcmp(a, "--sizes") && v) size_spec = v, i++;
        else if (!strcmp(a, "--type") && v) type = v, i++;
        else if (!strcmp(a, "--op") && v) opname = v, i++;
        else if (!strcmp(a, "--reps") && v) reps = atoi(v), i++;
        else if (!strcmp(a, "--budget") && v) budget = atof(v), i++;
        else if (!strcmp(a, "--csv") && v) csv = v, i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (!rank) usage(stdout);
            return 0;
        } else {
            if (!rank) fprintf(stderr, "vred-bench offsets: bad argument '%s'\n", a), usage(stderr);
            return 2;
        }
    }
    MPI_Datatype dt;
    MPI_Op op;
    size_t esize;
    if (!bc_type_of(type, &dt, &esize) || !bc_op_of(opname, &op)) {
        if (!rank) fprintf(stderr, "vred-bench offsets: unknown --type %s or --op %s\n", type, opname);
        return 2;
    }
    char offdef[128];
    snprintf(offdef, sizeof offdef, "%s%s", esize == 1 ? OFF_BYTES : "", OFF_DEFAULT);
    offset_pair offs[BC_MAX_IMPL];
    int noff = parse_offsets(off_spec ? off_spec : offdef, offs, BC_MAX_IMPL, !rank);
    if (noff < 0) return 2;
    char tok[64][32], colls[8][32], algs[16][32];
    size_t sizes[64], maxbytes = 0;
    int nsizes = 0, ntok = bc_split(size_spec, tok, 64);
    for (int j = 0; j < ntok; j++)
        if (bench_parse_bytes(tok[j])) sizes[nsizes++] = bench_parse_bytes(tok[j]);
    for (int j = 0; j < nsizes; j++)
        if (sizes[j] > maxbytes) maxbytes = sizes[j];
    int ncoll = bc_split(coll_spec, colls, 8), nalg = bc_split(alg_spec, algs, 16);

    /* One allocation per side, the offsets moving the pointers within it; the send side filled
     * past the largest offset, so every offset reads filled elements. */
    size_t span = (maxbytes / esize + 4096) * esize, alloc = (span + 4095) / 4096 * 4096;
    char *sbase = aligned_alloc(4096, alloc), *rbase = aligned_alloc(4096, alloc), *pristine = NULL;
    if (!sbase || !rbase) {
        fprintf(stderr, "vred-bench offsets: cannot allocate 2 x %zu bytes\n", alloc);
        return 1;
    }
    bc_fill(sbase, dt, op, span / esize, 1000u + (unsigned)rank, 0);
    bc_fill(rbase, dt, op, span / esize, 2000u + (unsigned)rank, 0);
    int odd_dwords = 0;
    for (int k = 0; k < noff; k++) odd_dwords |= (offs[k].s | offs[k].r) % 8 != 0;
    if (dt == MPI_DOUBLE && odd_dwords) dword_safe_doubles(sbase, span / 8), dword_safe_doubles(rbase, span / 8);
    char cpu[256], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    bench_cpu_model(cpu, sizeof cpu);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    for (char *c = lib; *c; c++)
        if (*c == ',') *c = ';';

    FILE *cf = NULL;
    if (csv && !rank) {
        cf = fopen(csv, "w");
        if (!cf) perror(csv);
        else fprintf(cf, "mpi_library,ranks,collective,type,op,size_bytes,alg,served_by,offset,sbuf_mod4096,"
                         "rbuf_mod4096,rounds,calls,median_us,min_us,ratio,sync,cpu\n");
    }
    if (!rank) {
        printf("# vred-bench offsets: %s; %d rank(s); %s:%s; cpu %s\n", lib, p, type, opname, cpu);
        printf("# mode: sync %s; buffers N bytes past a 4096-aligned address, every offset on the same pages\n",
               bench_sync_name(&mode));
        printf("# ratio = median over the rounds of (time at 0/0 / time at the offset) in the same round "
               "(< 1: slower than aligned)\n");
    }
    for (int ci = 0; ci < ncoll; ci++) {
        int c = 0;
        while (c < BC_COUNT && strcmp(colls[ci], bc_names[c]) && !(bc_vnames[c] && !strcmp(colls[ci], bc_vnames[c])))
            c++;
        if (c == BC_COUNT || c == BC_SCAN) {
            if (!rank) fprintf(stderr, "vred-bench offsets: unknown collective '%s'\n", colls[ci]);
            continue;
        }
        const char *which[16];
        int nwhich = algs_of((bc_coll)c, algs, nalg, which);
        restore_ctx rx = {.rbase = rbase};
        if (c == BC_REDUCE_LOCAL) {
            pristine = pristine ? pristine : malloc(span);
            if (!pristine) return fprintf(stderr, "vred-bench offsets: out of memory\n"), 1;
            memcpy(pristine, rbase, span);
            rx.pristine = pristine;
        }
        if (!rank) {
            printf("\n# %s: time at 0/0 (us), then the ratio at each offset\n# %-9s %-9s %-9s %10s", bc_names[c],
                   "size", "alg", "served", "0/0(us)");
            for (int k = 1; k < noff; k++) {
                char name[24];
                snprintf(name, sizeof name, "%ld/%ld", offs[k].s, offs[k].r);
                printf(" %7s", name);
            }
            printf("\n");
        }
        for (int si = 0; si < nsizes; si++)
            for (int a = 0; a < nwhich; a++) {
                /* every round however long the calls: a ratio is a median of rounds, and the
                 * largest sizes, whose rounds are few within any budget, swing most */
                bc_run r = {.coll = (bc_coll)c, .comm = comm, .dt = dt, .op = op, .esize = esize, .reps = reps,
                            .min_rounds = reps, .budget = budget, .sbuf = sbase, .rbuf = rbase,
                            .nimpl = noff, .barrier_each = mode.barrier_each};
                r.count = sizes[si] / esize;
                if (c == BC_RSB || c == BC_ALLGATHER) r.count = r.count / (size_t)p * (size_t)p;
                if (r.count == 0) continue;
                if (c == BC_REDUCE_LOCAL) { /* what the calls at any offset touch */
                    rx.bytes = r.count * esize + 4096 < span ? r.count * esize + 4096 : span;
                    r.before = restore_inout, r.ctx = &rx;
                }
                for (int k = 0; k < noff; k++) {
                    r.alg[k] = which[a];
                    r.sbufs[k] = sbase + offs[k].s, r.rbufs[k] = rbase + offs[k].r;
                }
                if (bc_measure(&r)) continue;
                if (rank) continue;
                printf("  %-9zu %-9s %-9s %10.3f", r.count * esize, which[a], r.served[0], r.med[0] * 1e6);
                for (int k = 1; k < noff; k++) printf(" %7.2f", r.paired[k]);
                printf("\n");
                fflush(stdout);
                for (int k = 0; cf && k < noff; k++)
                    fprintf(cf, "%s,%d,%s,%s,%s,%zu,%s,%s,%ld/%ld,%ld,%ld,%d,%d,%.3f,%.3f,%.4f,%s,%s\n", lib, p,
                            bc_names[c], type, opname, r.count * esize, which[a], r.served[k], offs[k].s, offs[k].r,
                            (long)((uintptr_t)r.sbufs[k] % 4096), (long)((uintptr_t)r.rbufs[k] % 4096), r.rounds,
                            r.iters, r.med[k] * 1e6, r.min[k] * 1e6, r.paired[k],
                            bench_sync_name(&mode), cpu);
                if (cf) fflush(cf);
            }
    }
    if (cf) fclose(cf);
    free(sbase), free(rbase), free(pristine);
    return 0;
}
