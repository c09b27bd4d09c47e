/*
 * A minimal PMPI tool, built as a shared library for tests/mpi/coexist.c: each MPI_<X> below
 * counts the call and hands it to PMPI_<X>, as profilers and tracers do. The test reads the
 * counts through count_tool_calls(), found with dlsym (the tool may be absent).
 *
 * It wraps some functions vred intercepts (Init, Finalize, Allreduce, Reduce, Bcast, Allgather)
 * and one vred does not (Send), so the test can tell "the tool sees the application's calls"
 * apart from "vred serves them", in both preload orders.
 */
#include <string.h>
#include <mpi.h>

#define EXPORT __attribute__((visibility("default")))

enum { C_INIT, C_FINALIZE, C_ALLREDUCE, C_REDUCE, C_BCAST, C_ALLGATHER, C_SEND, C_COUNT };
static const char *const names[C_COUNT] = {"Init", "Finalize", "Allreduce", "Reduce",
                                           "Bcast", "Allgather", "Send"};
/* Atomic: a tool must not lose counts when an application calls MPI from several threads. */
static long counts[C_COUNT];

static void count(int c) { __atomic_fetch_add(&counts[c], 1, __ATOMIC_RELAXED); }

/* Calls of MPI_<name> the tool has seen so far ("Init" counts MPI_Init and MPI_Init_thread),
 * or -1 for a name it does not wrap. */
EXPORT long count_tool_calls(const char *name)
{
    for (int c = 0; c < C_COUNT; c++)
        if (!strcmp(name, names[c])) return __atomic_load_n(&counts[c], __ATOMIC_RELAXED);
    return -1;
}

EXPORT int MPI_Init(int *argc, char ***argv)
{
    count(C_INIT);
    return PMPI_Init(argc, argv);
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    count(C_INIT);
    return PMPI_Init_thread(argc, argv, required, provided);
}

EXPORT int MPI_Finalize(void)
{
    count(C_FINALIZE);
    return PMPI_Finalize();
}

EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count_, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm)
{
    count(C_ALLREDUCE);
    return PMPI_Allreduce(sendbuf, recvbuf, count_, datatype, op, comm);
}

EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count_, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm)
{
    count(C_REDUCE);
    return PMPI_Reduce(sendbuf, recvbuf, count_, datatype, op, root, comm);
}

EXPORT int MPI_Bcast(void *buffer, int count_, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    count(C_BCAST);
    return PMPI_Bcast(buffer, count_, datatype, root, comm);
}

EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    count(C_ALLGATHER);
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

EXPORT int MPI_Send(const void *buf, int count_, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm)
{
    count(C_SEND);
    return PMPI_Send(buf, count_, datatype, dest, tag, comm);
}
