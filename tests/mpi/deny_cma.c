/*
 * deny_cma PROGRAM [ARGS...]: run PROGRAM with cross-memory attach denied by the kernel
 * (deny_cma.h: process_vm_readv/writev fail with EPERM), the filter installed here and kept
 * across the exec and by every child.
 *
 * Started by mpiexec in place of the MPI program (tests/mpi/cma.cmake, security.sh): vred's
 * probe must find cross-memory attach denied, and every collective must still be right,
 * through the shared segment. Exits 77 (skipped) if the kernel has no seccomp filters.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "deny_cma.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: deny_cma PROGRAM [ARGS...]\n");
        return 2;
    }
    if (deny_cma() != 0) {
        fprintf(stderr, "deny_cma: cannot install a seccomp filter: %s; skipped\n",
                strerror(errno));
        return 77;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "deny_cma: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
