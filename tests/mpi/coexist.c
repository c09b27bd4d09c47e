/*
 * vred together with another PMPI tool (tests/mpi/count_tool.c, a call counter), run on 2+ ranks
 * under LD_PRELOAD in one of three set-ups (docs/reliability.md, "Coexistence with another PMPI
 * tool"):
 *
 *   --expect=tool-first  LD_PRELOAD=libcount-tool.so:libvred-mpi.so (or the tool preloaded into
 *                        a program linked with vred): the tool counts exactly the application's
 *                        calls, vred serves every one of them, and PMPI_Allreduce called
 *                        directly reaches vred too (the tool's own route to "the MPI");
 *   --expect=vred-first  LD_PRELOAD=libvred-mpi.so:libcount-tool.so: vred serves, the tool sees
 *                        none of the calls vred intercepts (counts 0), still sees MPI_Send, and
 *                        PMPI_Allreduce is the MPI library's own;
 *   --expect=alone       vred without the tool: PMPI_Allreduce is the MPI library's own (what the
 *                        other tests and the benchmarks compare vred against).
 *
 * Every call's result is checked against the exact answer. Each collective's algorithm is
 * forced (vred_mpi_force), so "vred served it" is vred_mpi_last_alg() naming that algorithm.
 * vred's and the tool's functions are found with dlsym: the program links the MPI only.
 * Each rank prints its failures and exits 1 on any.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

enum { N = 4096 };

static int (*force)(const char *collective, const char *algorithm);
static const char *(*last_alg)(void);
static long (*tool_calls)(const char *name);
static int rank, size, failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
    }
}

/* vred must have served the call just made, with the forced algorithm. */
static void served(const char *alg, const char *what)
{
    char m[160];
    const char *la = last_alg();
    snprintf(m, sizeof m, "%s: served by '%s', expected vred's '%s'", what, la, alg);
    check(!strcmp(la, alg), m);
}

static void forced(const char *coll, const char *alg)
{
    char m[96];
    snprintf(m, sizeof m, "vred_mpi_force(%s, %s)", coll, alg);
    check(force(coll, alg) == 0, m);
}

/* Who serves PMPI_Allreduce called directly: 1 if vred. The last call vred saw goes to the MPI
 * ("mpi"); then, with "ring" forced, PMPI_Allreduce changes that only if it reaches vred. */
static int pmpi_reaches_vred(long *app_allreduces)
{
    int in = rank + 1, out = 0, want = size * (size + 1) / 2;
    forced("allreduce", "mpi");
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    (*app_allreduces)++;
    check(out == want && !strcmp(last_alg(), "mpi"), "MPI_Allreduce forced to the MPI");
    forced("allreduce", "ring");
    out = 0;
    PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(out == want, "PMPI_Allreduce result");
    return !strcmp(last_alg(), "ring");
}

int main(int argc, char **argv)
{
    const char *expect = "";
    for (int a = 1; a < argc; a++)
        if (!strncmp(argv[a], "--expect=", 9)) expect = argv[a] + 9;
    int tool_first = !strcmp(expect, "tool-first"), vred_first = !strcmp(expect, "vred-first");
    if (!tool_first && !vred_first && strcmp(expect, "alone")) {
        fprintf(stderr, "usage: %s --expect=tool-first|vred-first|alone\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    force = (int (*)(const char *, const char *))dlsym(RTLD_DEFAULT, "vred_mpi_force");
    last_alg = (const char *(*)(void))dlsym(RTLD_DEFAULT, "vred_mpi_last_alg");
    tool_calls = (long (*)(const char *))dlsym(RTLD_DEFAULT, "count_tool_calls");
    if (!force || !last_alg || (!tool_calls) != !strcmp(expect, "alone") || size < 2 ||
        size > 16) {
        fprintf(stderr, "rank %d: FAIL: set-up: vred %s, tool %s, %d ranks (need 2-16)\n", rank,
                force && last_alg ? "loaded" : "missing", tool_calls ? "loaded" : "missing",
                size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    static int in[N], out[N], all[N * 16];
    long app[4] = {0}; /* the application's Allreduce, Reduce, Bcast, Allgather calls */
    for (int i = 0; i < N; i++) in[i] = rank + i;
    forced("allreduce", "ring");
    for (int k = 0; k < 3; k++, app[0]++) {
        memset(out, 0, sizeof out);
        MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        served("ring", "MPI_Allreduce");
        int ok = 1;
        for (int i = 0; i < N; i++) ok &= out[i] == size * i + size * (size - 1) / 2;
        check(ok, "MPI_Allreduce result");
    }
    forced("reduce", "binomial");
    for (int k = 0; k < 2; k++, app[1]++) {
        memset(out, 0, sizeof out);
        MPI_Reduce(in, out, N, MPI_INT, MPI_MAX, k % size, MPI_COMM_WORLD);
        served("binomial", "MPI_Reduce");
        int ok = 1;
        for (int i = 0; i < N && rank == k % size; i++) ok &= out[i] == size - 1 + i;
        check(ok, "MPI_Reduce result");
    }
    forced("bcast", "pipe");
    for (int k = 0; k < 2; k++, app[2]++) {
        int root = (k + 1) % size;
        for (int i = 0; i < N; i++) out[i] = rank == root ? 7 * i + root : -1;
        MPI_Bcast(out, N, MPI_INT, root, MPI_COMM_WORLD);
        served("pipe", "MPI_Bcast");
        int ok = 1;
        for (int i = 0; i < N; i++) ok &= out[i] == 7 * i + root;
        check(ok, "MPI_Bcast result");
    }
    forced("allgather", "pipe");
    int block = N / 16; /* all[] holds 16 blocks */
    for (int k = 0; k < 2; k++, app[3]++) {
        for (int i = 0; i < block; i++) in[i] = 1000 * rank + i + k;
        MPI_Allgather(in, block, MPI_INT, all, block, MPI_INT, MPI_COMM_WORLD);
        served("pipe", "MPI_Allgather");
        int ok = 1;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < block; i++) ok &= all[r * block + i] == 1000 * r + i + k;
        check(ok, "MPI_Allgather result");
    }
    /* A call vred does not intercept: the tool sees it in either order. */
    int token = 41 + rank;
    if (rank == 0) MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(token == 41, "MPI_Send/MPI_Recv");
    }

    check(pmpi_reaches_vred(&app[0]) == tool_first,
          tool_first ? "PMPI_Allreduce did not reach vred under the tool"
                     : "PMPI_Allreduce reached vred, not the MPI library's own");

    if (tool_calls) {
        static const char *const colls[4] = {"Allreduce", "Reduce", "Bcast", "Allgather"};
        char m[128];
        for (int c = 0; c < 4; c++) {
            long want = tool_first ? app[c] : 0, got = tool_calls(colls[c]);
            snprintf(m, sizeof m, "tool counted %ld MPI_%s calls, expected %ld", got, colls[c],
                     want);
            check(got == want, m);
        }
        check(tool_calls("Init") == tool_first, "tool's MPI_Init count");
        check(tool_calls("Send") == (rank == 0), "tool's MPI_Send count");
    }
    forced("allreduce", "auto");
    MPI_Finalize();
    /* The tool's MPI_Finalize ran (tool first) and then vred's and the MPI's, or it did not. */
    if (tool_calls) check(tool_calls("Finalize") == tool_first, "tool's MPI_Finalize count");
    printf("rank %d: coexist %s: %s (%d failures)\n", rank, expect, failures ? "FAIL" : "ok",
           failures);
    return failures != 0;
}
