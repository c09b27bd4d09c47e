/*
 * Cross-memory attach denied by the kernel, as a container's seccomp profile denies it: a
 * seccomp filter on the calling thread (and whatever it execs or creates from then on) makes
 * process_vm_readv and process_vm_writev fail with EPERM; every other system call is allowed.
 * No libseccomp: a classic BPF program, after PR_SET_NO_NEW_PRIVS (which an unprivileged filter
 * needs; it only forbids gaining privileges through exec). For tests/mpi/deny_cma.c (the whole
 * program, from before MPI_Init) and tests/mpi/cma_midway.c (one rank, mid-job).
 */
#ifndef VRED_TEST_DENY_CMA_H
#define VRED_TEST_DENY_CMA_H

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define DENY_CMA_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define DENY_CMA_ARCH AUDIT_ARCH_AARCH64
#endif

/* 0 if the filter is in force; -1 (errno set) if this kernel or architecture has none. */
static int deny_cma(void)
{
#ifdef DENY_CMA_ARCH
    struct sock_filter code[] = {
        /* Another architecture's numbers mean other calls (none of ours): let them be. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DENY_CMA_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0 ? 0 : -1;
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
