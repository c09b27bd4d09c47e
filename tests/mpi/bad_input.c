/*
 * Bad input through vred's collectives ends as it does through the MPI alone. Every case runs
 * once through MPI_X (vred's front, linked first) and once through the MPI's own PMPI_X, taken
 * from the MPI library's handle (not by name from this program: vred may export PMPI_X too),
 * and the two must agree on the error class, on how often the communicator's error handler
 * ran, and, where the call succeeds, on the result bytes.
 *
 * The arguments are the same on every rank (an erroneous call on some ranks only leaves the
 * others waiting, through the MPI alone as well), and large enough that vred serves the valid
 * call (checked: the test fails if vred would hand even the valid call to the MPI, since then
 * nothing of vred's is exercised). Cases: negative count, null buffers with a non-zero count,
 * MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_BAND on MPI_FLOAT, a root out of range, MPI_COMM_NULL,
 * MPI_IN_PLACE where it is not allowed, a contiguous datatype never committed (as the datatype,
 * as allgather's sendtype); then user-defined ops and derived datatypes (valid: the
 * MPI serves them, results equal; a contiguous type vred may serve, with the MPI's result). Once with MPI_ERRORS_RETURN (the code comes back), once with
 * a counting handler (invoked exactly as often as by the MPI).
 * Cases an MPI crashes on run apart, one job at a time (--isolated, driven by bad_input.sh);
 * --roots: mismatched roots (bad_input_roots.c); --counts vred: bcasts and allgathers with
 * mismatched counts between valid ones (bad_input_counts.c); --deadlock: ranks that would wait
 * for each other for ever (the same file); --valid: each valid call once
 * (config_knobs.sh, disable_untouched.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bad_input.h"

/* libvred-mpi.so's extension API, weak: null when the MPI runs alone. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

static int failures, rank, nprocs;

/* The MPI library's own entry points, from its handle. */
static void *mpi_sym(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "bad_input: %s not in the MPI library\n", name);
        exit(2);
    }
    return f;
}

static void load_apis(bi_api *vred, bi_api *mpi)
{
    Dl_info info;
    /* MPI_Comm_rank is never vred's: its object is the MPI library. */
    if (!dladdr((void *)MPI_Comm_rank, &info) || !info.dli_fname) exit(2);
    void *lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) exit(2);
#define BI_FN(name, field)                                                                      \
    vred->field = MPI_##name;                                                                   \
    mpi->field = (__typeof__(mpi->field))mpi_sym(lib, "PMPI_" #name);
    BI_FUNCTIONS
#undef BI_FN
}

static int hits;
static void count_hit(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    hits++;
}

static int errclass(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

/* The class's name (MPICH's error strings do not name it). */
static const char *class_name(int cls)
{
#define CLS(c) {c, #c}
    static const struct {
        int cls;
        const char *name;
    } names[] = {CLS(MPI_SUCCESS),  CLS(MPI_ERR_BUFFER), CLS(MPI_ERR_COUNT), CLS(MPI_ERR_TYPE),
                 CLS(MPI_ERR_COMM), CLS(MPI_ERR_ROOT),   CLS(MPI_ERR_OP),    CLS(MPI_ERR_ARG),
                 CLS(MPI_ERR_RANK), CLS(MPI_ERR_INTERN), CLS(MPI_ERR_OTHER), CLS(MPI_ERR_TRUNCATE)};
#undef CLS
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].cls == cls) return names[i].name;
    return "another class";
}

typedef struct {
    int cls, hits;
    unsigned long sum; /* of the receive buffer's bytes after the call (a successful one) */
} outcome;

static outcome run(const bi_api *api, int coll, const bi_case *c, MPI_Comm comm)
{
    bi_args a;
    bi_args_valid(&a, coll, comm, rank, nprocs);
    if (c->edit) c->edit(&a, coll, rank, nprocs);
    hits = 0;
    outcome o = {errclass(bi_call(api, coll, &a)), hits, 0};
    /* (Exscan leaves rank 0's receive buffer undefined.) */
    if (o.cls == MPI_SUCCESS && !(coll % BI_NBASE == BI_EXSCAN && rank == 0)) o.sum = bi_sum(&a);
    bi_args_free(&a);
    return o;
}

/* Every case on every collective it applies to; the valid call first. */
static void table(const bi_api *vred, const bi_api *mpi, MPI_Comm comm, const char *handler)
{
    for (int coll = 0; coll < BI_NCOLL; coll++) {
        /* The valid call must be vred's: otherwise the bad ones would test nothing of it. */
        bi_args a;
        bi_args_valid(&a, coll, comm, rank, nprocs);
        int rc = bi_call(vred, coll, &a);
        bi_args_free(&a);
        const char *alg = vred_mpi_last_alg ? vred_mpi_last_alg() : "?";
        if (rc != MPI_SUCCESS || !vred_mpi_last_alg || !strcmp(alg, "mpi")) {
            printf("FAIL rank %d: %s valid call: rc %d, served by %s (not vred)\n", rank,
                   bi_coll_name[coll], rc, alg);
            failures++;
        }
        for (int k = 0; k < bi_ncases; k++) {
            const bi_case *c = &bi_cases[k];
            if (!(c->colls >> coll & 1) || c->isolate) continue;
            outcome v = run(vred, coll, c, comm);
            /* Every case here is erroneous, or valid but the MPI's (user op, derived type other
             * than a contiguous one), or valid through a contiguous type, which vred may serve. */
            const char *by = vred_mpi_last_alg ? vred_mpi_last_alg() : "?";
            outcome p = run(mpi, coll, c, comm);
            int passed = !strcmp(by, "mpi") || c->contiguous;
            int ok = v.cls == p.cls && v.hits == p.hits && v.sum == p.sum && passed;
            if (!passed) printf("FAIL rank %d: vred served it (%s)\n", rank, by);
            if (c->must_fail && p.cls == MPI_SUCCESS && rank == 0)
                printf("note: this MPI accepts \"%s\" in %s\n", c->name, bi_coll_name[coll]);
            if (!ok || rank == 0)
                printf("%-4s %-22s %-24s %-8s vred: %-32s (%d) MPI: %-32s (%d)\n",
                       ok ? "ok" : "FAIL", bi_coll_name[coll], c->name, handler,
                       class_name(v.cls), v.hits, class_name(p.cls), p.hits);
            failures += !ok;
        }
    }
}

/* The isolated cases, in order: the int variants only (the _c ones share vred's front). */
static int isolated(int *k, int *coll, int index)
{
    for (int i = 0; i < bi_ncases; i++)
        for (int c = 0; c < BI_NBASE; c++)
            if (bi_cases[i].isolate && (bi_cases[i].colls >> c & 1) && index-- == 0) {
                *k = i;
                *coll = c;
                return 1;
            }
    return 0;
}

/* --isolated FROM vred|mpi: the isolated cases from index FROM on, with the counting handler;
 * each rank prints each outcome as soon as it has it. An MPI may crash or hang on one of them:
 * bad_input.sh then starts again after it, and compares what vred and the MPI did. */
static int isolated_run(int from, const bi_api *api, MPI_Comm comm)
{
    int k, coll, n = 0;
    while (isolated(&k, &coll, n)) n++;
    if (rank == 0) printf("cases %d\n", n);
    for (int i = from; isolated(&k, &coll, i); i++) {
        outcome o = run(api, coll, &bi_cases[k], comm);
        printf("%d rank %d: %s, %s: %s, handler %d, sum %lx\n", i, rank, bi_coll_name[coll],
               bi_cases[k].name, class_name(o.cls), o.hits, o.sum);
        fflush(stdout);
        /* No rank may end the job on the next case before every rank has printed this one. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return 0;
}

/* vred's own algorithms, not the MPI's: at 2 ranks vred's rules hand some of these sizes to the
 * MPI (docs/shm.md), which would leave the fronts' checks untested on a valid call. */
static void force_vred(void)
{
    static const char *const pairs[][2] = {{"reduce", "binomial"}, {"allreduce", "ring"},
                                           {"reduce_scatter", "ring"}, {"scan", "recdbl"},
                                           {"bcast", "pipe"}, {"allgather", "pipe"}};
    for (int i = 0; i < 6 && vred_mpi_force; i++)
        if (vred_mpi_force(pairs[i][0], pairs[i][1])) {
            printf("FAIL: vred_mpi_force(%s, %s) refused\n", pairs[i][0], pairs[i][1]);
            failures++;
        }
}

/* Everything the test made, freed (MPICH reports leaked handles at MPI_Finalize). */
static int finish(MPI_Comm *comm, MPI_Errhandler *eh, int rc)
{
    MPI_Comm handled[] = {*comm, MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 3; i++) MPI_Comm_set_errhandler(handled[i], MPI_ERRORS_RETURN);
    MPI_Errhandler_free(eh);
    bi_cases_free();
    MPI_Comm_free(comm);
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    bi_api vred, mpi;
    load_apis(&vred, &mpi);
    if (argc > 1 && !strcmp(argv[1], "--roots")) {
        force_vred();
        return bi_roots(argc, argv, &vred, &mpi);
    }
    if (argc == 3 && !strcmp(argv[1], "--counts") && !strcmp(argv[2], "vred")) {
        force_vred();
        return bi_counts(&vred);
    }
    if (argc == 3 && !strcmp(argv[1], "--deadlock")) return bi_deadlock(argv[2], &vred);
    bi_cases_init();

    /* The errors of MPI_COMM_NULL go to MPI_COMM_WORLD's handler (MPI-4.1: MPI_COMM_SELF's). */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm handled[] = {comm, MPI_COMM_WORLD, MPI_COMM_SELF};
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_hit, &eh);
    force_vred();
    if (argc == 4 && !strcmp(argv[1], "--isolated")) {
        for (int i = 0; i < 3; i++) MPI_Comm_set_errhandler(handled[i], eh);
        int rc = isolated_run(atoi(argv[2]), strcmp(argv[3], "mpi") ? &vred : &mpi, comm);
        return finish(&comm, &eh, rc);
    }
    if (argc == 2 && !strcmp(argv[1], "--valid")) {
        /* Each valid call once (config_knobs.sh: every knob read where the library reads it). */
        for (int coll = 0; coll < 2 * BI_NCOLL; coll++) {
            bi_args a; /* on two communicators: whatever vred does per communicator, twice */
            bi_args_valid(&a, coll % BI_NCOLL, coll < BI_NCOLL ? comm : MPI_COMM_WORLD, rank,
                          nprocs);
            if (bi_call(&vred, coll % BI_NCOLL, &a) != MPI_SUCCESS) failures++;
            bi_args_free(&a);
        }
        return finish(&comm, &eh, failures != 0);
    }
    for (int i = 0; i < 3; i++) MPI_Comm_set_errhandler(handled[i], MPI_ERRORS_RETURN);
    table(&vred, &mpi, comm, "return");
    for (int i = 0; i < 3; i++) MPI_Comm_set_errhandler(handled[i], eh);
    table(&vred, &mpi, comm, "counting");
    for (int i = 0; i < 3; i++) MPI_Comm_set_errhandler(handled[i], MPI_ERRORS_RETURN);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("bad_input: %d ranks, %d failures\n", nprocs, all);
    return finish(&comm, &eh, all != 0);
}
