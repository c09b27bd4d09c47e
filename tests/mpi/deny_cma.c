/*
 * deny_cma PROGRAM [ARGS...]: run PROGRAM with cross-memory attach denied by the kernel, as a
 * container's seccomp profile denies it: a seccomp filter makes process_vm_readv and
 * process_vm_writev fail with EPERM (every other system call is allowed), then PROGRAM is
 * exec'd with it in force (filters survive exec and are inherited by children; no_new_privs,
 * which an unprivileged filter needs, only forbids gaining privileges through exec).
 *
 * Started by mpiexec in place of the MPI program (tests/mpi/CMakeLists.txt): vred's probe must
 * find cross-memory attach denied, and every collective must still be right, through the
 * shared segment. Exits 77 (skipped) if the kernel has no seccomp filters.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "deny_cma: add this architecture's AUDIT_ARCH value"
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: deny_cma PROGRAM [ARGS...]\n");
        return 2;
    }
    struct sock_filter code[] = {
        /* Another architecture's system call numbers mean other calls: refuse them all. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        fprintf(stderr, "deny_cma: cannot install a seccomp filter: %s; skipped\n",
                strerror(errno));
        return 77;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "deny_cma: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
