/*
 * Cross-memory attach: the node's probe, the reads, and the agreement after a failed read
 * (cma.h for the rules).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "config.h"
#include "coll/shm/cma.h"
#include "local/copy.h"

/* Bytes per process_vm_readv: the kernel caps one call near 2 GiB (MAX_RW_COUNT) and returns a
 * short count past it; 1 GiB keeps every call well inside, and a syscall per GiB costs nothing. */
static const size_t READ_MAX = (size_t)1 << 30;

/* n bytes between `local` and `remote` in node rank `peer`, read (write = 0) or written. */
static int transfer(const vred_shm *s, int peer, void *local, uint64_t remote, size_t n,
                    int write)
{
    pid_t pid = __atomic_load_n(&s->ctl[peer].pid, __ATOMIC_RELAXED);
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < READ_MAX ? n - done : READ_MAX;
        struct iovec here = {(char *)local + done, want};
        struct iovec there = {(void *)(uintptr_t)(remote + done), want};
        ssize_t got = write ? process_vm_writev(pid, &here, 1, &there, 1, 0)
                            : process_vm_readv(pid, &here, 1, &there, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return done ? EFAULT : errno; /* a refusal comes before the first byte */
        if (got == 0) return EFAULT; /* nothing more can be moved there */
        done += (size_t)got;
    }
    return 0;
}

/*
 * The kernel copies with `rep movsb`, which crawls where the destination sits a few bytes past
 * the source in the page on AMD Zen (vred_copy_skew_slow): process_vm_readv of 256 KiB at 1.6
 * GB/s against 8.3 at skews 1-31 (Zen 3). At such a skew the transfer goes through a bounce
 * buffer placed at the remote address's page offset (skew 0 for the kernel), BOUNCE bytes at a
 * time, and between it and `local` vred_copy's vector stores (the same speed at every skew) copy
 * the bytes. An allgather by cross-memory attach with the receive buffer 16 bytes past the send
 * buffer's page offset (2 ranks, Zen 3) took 382-405 us at 1 MiB straight and 120-128 bounced
 * (87-90 at 0/0), 1.7-2.0 ms at 4 MiB and 0.57-0.77 bounced (0.37-0.43 at 0/0); bounces of 16 KiB
 * were slower (176-192 us at 1 MiB), of 256 KiB no faster.
 */
enum { BOUNCE = 64 << 10 };

static int bounced(const vred_shm *s, int peer, void *local, uint64_t remote, size_t n, int write)
{
    char *mem = malloc(BOUNCE + 4096);
    if (!mem) return transfer(s, peer, local, remote, n, write);
    char *b = mem + (((uintptr_t)remote - (uintptr_t)mem) & 4095); /* b = remote mod 4096 */
    int err = 0;
    for (size_t done = 0; done < n && !err; done += BOUNCE) {
        size_t len = n - done < BOUNCE ? n - done : BOUNCE;
        char *here = (char *)local + done;
        if (write) {
            vred_copy(b, here, len, 0);
            err = transfer(s, peer, b, remote + done, len, 1);
        } else if (!(err = transfer(s, peer, b, remote + done, len, 0))) {
            vred_copy(here, b, len, 0);
        }
        if (err && done) err = EFAULT; /* part was moved: not a refusal (cma.h) */
    }
    free(mem);
    return err;
}

/* Whether the kernel's copy between `to` and `from` would crawl (above); only for transfers
 * long enough for a second copy through a bounce buffer to pay. */
static int skewed(uintptr_t to, uintptr_t from, size_t n)
{
    return n >= 4096 && vred_copy_skew_slow((size_t)(to - from));
}

int vred_cma_read(const vred_shm *s, int peer, void *local, uint64_t remote, size_t n)
{
    if (skewed((uintptr_t)local, (uintptr_t)remote, n)) return bounced(s, peer, local, remote, n, 0);
    return transfer(s, peer, local, remote, n, 0);
}

int vred_cma_write(const vred_shm *s, int peer, const void *local, uint64_t remote, size_t n)
{
    if (skewed((uintptr_t)remote, (uintptr_t)local, n))
        return bounced(s, peer, (void *)local, remote, n, 1);
    return transfer(s, peer, (void *)local, remote, n, 1);
}

int vred_cma_probe(vred_shm *s)
{
    vred_shm_ctl *me = &s->ctl[s->rank];
    uint64_t token = 0;
    /* Only where every peer's pid names it here: the dead-peer check's condition (region.c),
     * one PID namespace, each pid alive; a pid from another namespace would name some other
     * process. */
    int ok = vred_config_get()->cma && s->check_peers &&
             getrandom(&token, sizeof token, 0) == (ssize_t)sizeof token && token != 0;
    s->cma_probe = ok ? token : 0;
    s->cma_word = 0;
    me->cma_token = s->cma_probe;
    me->cma_bad = 0;
    me->cma_word = (uint64_t)(uintptr_t)&s->cma_word;
    vred_cma_publish(s, &s->cma_probe);
    /* Every rank's token and addresses are in place before anyone reads (and every rank takes
     * part, whatever its own verdict, so that none waits alone). */
    PMPI_Barrier(s->comm);
    for (int i = 0; i < s->size && ok; i++) {
        if (i == s->rank) continue;
        const vred_shm_ctl *c = &s->ctl[i];
        uint64_t got = 0;
        ok = c->cma_token != 0 &&
             vred_cma_read(s, i, &got, c->cma_addr, sizeof got) == 0 && got == c->cma_token;
    }
    /* Writes (the reductions, cma_reduce.c): this rank's token into the next rank's word; after
     * the barrier, the previous rank's must be in this rank's. */
    int next = (s->rank + 1) % s->size, prev = (s->rank + s->size - 1) % s->size;
    if (ok && next != s->rank)
        ok = vred_cma_write(s, next, &s->cma_probe, s->ctl[next].cma_word, sizeof token) == 0;
    PMPI_Barrier(s->comm);
    if (ok && prev != s->rank)
        ok = __atomic_load_n(&s->cma_word, __ATOMIC_RELAXED) == s->ctl[prev].cma_token;
    return ok;
}

void vred_cma_report(vred_shm *s, int err, uint64_t step)
{
    if (!err) return;
    __atomic_store_n(&s->ctl[s->rank].cma_bad, step, __ATOMIC_RELAXED);
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "vred: cross-memory attach failed during a collective (%s); this node "
                        "moves data through its shared segment from now on\n", strerror(err));
}

int vred_cma_failed(vred_shm *s, uint64_t step)
{
    /* Keyed by the step: a peer already in a later collective may have reported a later
     * failure, which must not be taken for one of this step. */
    for (int i = 0; i < s->size; i++)
        if (__atomic_load_n(&s->ctl[i].cma_bad, __ATOMIC_RELAXED) == step) {
            s->cma = 0; /* the failed rank said why (vred_cma_report) */
            return 1;
        }
    return 0;
}
