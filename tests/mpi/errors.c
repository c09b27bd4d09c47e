/*
 * Erroneous MPI_Reduce_local calls must reach the MPI library untouched: through libvred-mpi
 * the call ends as PMPI_Reduce_local's does (the same error class, or the same crash: MPICH 4.0
 * does not check a negative count, Open MPI not MPI_IN_PLACE, MPICH 5.0 aborts on
 * MPI_DATATYPE_NULL), with the same buffer.
 * MPI_ERRORS_RETURN is set on MPI_COMM_WORLD only: Open MPI 4.1 and MPICH 4.0 raise
 * MPI_Reduce_local's errors there (MPI-4.1 would name MPI_COMM_SELF). A counting handler on both
 * communicators then checks that the handler is invoked exactly as often through vred as
 * through PMPI. Finally a valid call must still be served, and after MPI_Finalize a call must end
 * as PMPI's does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <mpi.h>

typedef struct {
    const char *what;
    int in_place;
    int count;
    MPI_Datatype dt;
    MPI_Op op;
    int must_fail; /* erroneous by the standard (an MPI may still accept it) */
} bad_call;

static int errclass(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

static const char *class_name(int cls)
{
    static char buf[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (cls == MPI_SUCCESS) return "MPI_SUCCESS";
    MPI_Error_string(cls, buf, &len);
    return buf;
}

typedef int (*reduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op);

/* What one call did: its error class, 1000 + the signal that killed it, or 2000 + the exit status
 * it aborted with; and the inout buffer.
 * Each call runs in a child process: some MPIs crash on some erroneous calls (MPICH 4.0 on a
 * negative count, both on MPI_IN_PLACE), and then vred must crash the same way. */
typedef struct {
    int status;
    double io[8];
} outcome;

static outcome run(const bad_call *c, reduce_fn f)
{
    outcome o = {-1, {0}};
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0) return o;
    pid_t pid = fork();
    if (pid == 0) {
        double in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        outcome r = {0, {8, 7, 6, 5, 4, 3, 2, 1}};
        int rc = f(c->in_place ? MPI_IN_PLACE : in, r.io, c->count, c->dt, c->op);
        r.status = errclass(rc);
        if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(2);
        _exit(0);
    }
    close(fd[1]);
    int st = 0;
    ssize_t got = read(fd[0], &o, sizeof o);
    close(fd[0]);
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
        memset(&o, 0, sizeof o);
        o.status = 1000 + WTERMSIG(st);
    } else if (got != (ssize_t)sizeof o) {
        memset(&o, 0, sizeof o);
        o.status = 2000 + (WIFEXITED(st) ? WEXITSTATUS(st) : 255);
    }
    return o;
}

static const char *describe(int status, char *buf)
{
    if (status >= 2000) snprintf(buf, MPI_MAX_ERROR_STRING + 32, "aborted, exit status %d", status - 2000);
    else if (status >= 1000) snprintf(buf, MPI_MAX_ERROR_STRING + 32, "killed by signal %d", status - 1000);
    else if (status < 0) snprintf(buf, MPI_MAX_ERROR_STRING + 32, "child failed");
    else snprintf(buf, MPI_MAX_ERROR_STRING + 32, "%s", class_name(status));
    return buf;
}

static int hits;
static void count_hit(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    hits++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    Dl_info info;
    int (*f)(const void *, void *, int, MPI_Datatype, MPI_Op) = MPI_Reduce_local;
    int linked = dladdr((void *)f, &info) && info.dli_fname && strstr(info.dli_fname, "libvred-mpi");
    printf("MPI_Reduce_local from %s\n", linked ? info.dli_fname : "the MPI library");

    static const bad_call calls[] = {
        {"count -1", 0, -1, MPI_INT, MPI_SUM, 1},
        {"MPI_DATATYPE_NULL", 0, 4, MPI_DATATYPE_NULL, MPI_SUM, 1},
        {"MPI_OP_NULL", 0, 4, MPI_INT, MPI_OP_NULL, 1},
        {"BAND on MPI_FLOAT", 0, 4, MPI_FLOAT, MPI_BAND, 1},
        {"BXOR on MPI_DOUBLE", 0, 4, MPI_DOUBLE, MPI_BXOR, 1},
        {"SUM on MPI_DOUBLE_INT", 0, 4, MPI_DOUBLE_INT, MPI_SUM, 1},
        {"MAXLOC on MPI_INT", 0, 4, MPI_INT, MPI_MAXLOC, 1},
        {"SUM on MPI_C_BOOL", 0, 4, MPI_C_BOOL, MPI_SUM, 0},
        {"SUM on MPI_BYTE", 0, 4, MPI_BYTE, MPI_SUM, 0},
        {"MAX on MPI_C_DOUBLE_COMPLEX", 0, 4, MPI_C_DOUBLE_COMPLEX, MPI_MAX, 0},
        {"MPI_REPLACE", 0, 4, MPI_INT, MPI_REPLACE, 0},
        {"MPI_NO_OP", 0, 4, MPI_INT, MPI_NO_OP, 0},
        {"MPI_IN_PLACE", 1, 4, MPI_INT, MPI_SUM, 0},
    };
    int failures = 0, n = (int)(sizeof calls / sizeof calls[0]);
    for (int i = 0; i < n; i++) {
        outcome v = run(&calls[i], MPI_Reduce_local), p = run(&calls[i], PMPI_Reduce_local);
        int ok = v.status == p.status && memcmp(v.io, p.io, sizeof v.io) == 0;
        if (calls[i].must_fail && p.status == MPI_SUCCESS)
            printf("note: this MPI accepts \"%s\"\n", calls[i].what);
        char dv[MPI_MAX_ERROR_STRING + 32], dp[MPI_MAX_ERROR_STRING + 32];
        printf("%-4s %-28s vred: %-45.45s MPI: %.45s\n", ok ? "ok" : "FAIL", calls[i].what,
               describe(v.status, dv), describe(p.status, dp));
        failures += !ok;
    }

    /* The handler the MPI chose is the one vred's pass-through uses: with MPI_ERRORS_RETURN
     * replaced by a counting handler on both communicators, the same number of calls must land. */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_hit, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    hits = 0;
    float x = 1, y = 2;
    MPI_Reduce_local(&x, &y, 1, MPI_FLOAT, MPI_BAND);
    int hv = hits;
    hits = 0;
    PMPI_Reduce_local(&x, &y, 1, MPI_FLOAT, MPI_BAND);
    int hp = hits;
    printf("%-4s error handler invoked %d time(s) through MPI_Reduce_local, %d through PMPI\n",
           hv == hp && hp == 1 ? "ok" : "FAIL", hv, hp);
    failures += !(hv == hp && hp == 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    /* A valid call after all that. */
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    int rc = MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
    int good = rc == MPI_SUCCESS && b[0] == 11 && b[1] == 22 && b[2] == 33;
    printf("%-4s valid MPI_INT SUM afterwards\n", good ? "ok" : "FAIL");
    failures += !good;

    MPI_Finalize();
    /* MPICH 5.0's abort after MPI_Finalize sends "cmd=finalize" over the process manager's
     * socket, which a forked child shares with its parent; Hydra then closes it, and the next
     * write to it (the second child's abort, the parent's exit) dies of SIGPIPE. Ignored, every
     * child ends as the first one did, and the comparison is of the call, not of the order. */
    signal(SIGPIPE, SIG_IGN);

    /* After MPI_Finalize the MPI decides what a call means (both MPIs abort): vred must not serve
     * it from the tables it built while MPI ran. Only numbers are printed: no MPI call is allowed
     * here any more. */
    static const bad_call after = {"valid call after MPI_Finalize", 0, 4, MPI_INT, MPI_SUM, 1};
    outcome v = run(&after, MPI_Reduce_local), p = run(&after, PMPI_Reduce_local);
    int same_end = v.status == p.status && memcmp(v.io, p.io, sizeof v.io) == 0;
    printf("%-4s %s: status %d through vred, %d through PMPI (>= 1000: signal, >= 2000: exit)\n",
           same_end ? "ok" : "FAIL", after.what, v.status, p.status);
    failures += !same_end;

    printf("%d passed, %d failed\n", n + 3 - failures, failures);
    return failures != 0;
}

