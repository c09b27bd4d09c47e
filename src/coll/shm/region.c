/*
 * The node's shared segment (see region.h for the security and cleanup rules).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "coll/shm/region.h"
#include "coll/fail.h"
#include "coll/shm/budget.h"
#include "coll/shm/sync.h"
#include "local/topo.h"
#include "next/next.h"

enum { NAME_MAX_LEN = 64, PAGE = 4096 };

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* /vred-<uid>-<128 random bits>: nobody can guess it to pre-create or open it in between. */
static int make_name(char *name)
{
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
    int n = snprintf(name, NAME_MAX_LEN, "/vred-%u-", (unsigned)getuid());
    for (int i = 0; i < 16; i++) n += snprintf(name + n, (size_t)(NAME_MAX_LEN - n), "%02x", r[i]);
    return 0;
}

/* The segment's pages reserved, mode 0600 made explicit: 0 or an errno. fchmod as well as the
 * creation's mode: a umask cannot widen 0600, but a memfd starts at 0777. tmpfs's fallocate
 * gives up with EINTR whenever a signal is pending on kernels before 6.4 (a profiler's timer):
 * try again, a bounded number of times. */
static int reserve(int fd, size_t bytes)
{
    int err = fchmod(fd, 0600) ? errno : posix_fallocate(fd, 0, (off_t)bytes);
    for (int tries = 1; err == EINTR && tries < 100; tries++)
        err = posix_fallocate(fd, 0, (off_t)bytes);
    return err;
}

static const char *reserve_why(int err)
{
    return err == ENOSPC ? "/dev/shm is full" : "cannot reserve the segment's pages";
}

/* A segment opened from elsewhere, by its status: 0 unless it is ours, private and large
 * enough. */
static int private_enough(const struct stat *st, size_t bytes)
{
    return st->st_uid == getuid() && (st->st_mode & 0777) == 0600 && (size_t)st->st_size >= bytes;
}

/* Creator: a fresh segment, only ours, with its pages reserved. */
static int create_segment(char *name, size_t bytes, const char **why)
{
    for (int attempt = 0; attempt < 4; attempt++) {
        if (make_name(name)) {
            *why = "getrandom failed";
            name[0] = 0;
            return -1;
        }
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) {
            *why = "shm_open failed (is /dev/shm mounted and writable?)";
            name[0] = 0; /* the others learn of the failure from the empty name */
            return -1;
        }
        int err = reserve(fd, bytes);
        if (err) {
            *why = reserve_why(err);
            close(fd);
            shm_unlink(name);
            name[0] = 0;
            return -1;
        }
        return fd;
    }
    *why = "could not pick an unused segment name";
    name[0] = 0;
    return -1;
}

/* Others: the creator's segment, refused unless it is ours and private. */
static int open_segment(const char *name, size_t bytes, const char **why)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        *why = "cannot open the node's segment";
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !private_enough(&st, bytes)) {
        *why = "the node's segment is not private to this user";
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * Without a name (VRED_SHM_MEMFD): the creator makes an anonymous memory file (memfd_create,
 * the same shared memory as /dev/shm's, never in any directory) and the node's other ranks
 * open it through the creator's descriptor table, /proc/<pid>/fd/<fd>. The kernel allows that
 * to a process that may read the creator's memory (the same user, PTRACE_MODE_READ: Yama does
 * not restrict it) and has it in its /proc, so only in the creator's PID namespace; and a pid
 * there could still name another process (a container's own namespace with the same inode
 * numbers is not ours), so the opened file must be the creator's: the same device and inode.
 * Nothing can then be left behind: a killed rank's descriptors close with it, and the memory
 * goes with the last mapping. Where any rank cannot open it, the named segment follows.
 */
typedef struct {
    int64_t pid, fd;         /* the memfd in the creator's table; fd -1 if none */
    uint64_t dev, ino;       /* and its identity */
    uint64_t ns_dev, ns_ino; /* the creator's PID namespace (0: unknown) */
} locator;

/* This process's PID namespace, as the inode of /proc/self/ns/pid; 0 if it cannot tell. */
static int my_pidns(uint64_t *dev, uint64_t *ino)
{
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) != 0) return 0;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return 1;
}

/* Not executable, ever (MFD_NOEXEC_SEAL, Linux 6.3): without it, newer kernels log a warning
 * for every memfd and refuse one under vm.memfd_noexec=2; older kernels refuse the flag. */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

static int create_memfd(size_t bytes, locator *loc, const char **why)
{
    loc->fd = -1;
    int fd = -1;
    if (!vred_fail_inject(VRED_FAIL_MEMFD)) { /* testing: as if refused */
        fd = memfd_create("vred", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
        if (fd < 0 && errno == EINVAL) fd = memfd_create("vred", MFD_CLOEXEC);
    }
    if (fd < 0) {
        *why = "memfd_create failed";
        return -1;
    }
    struct stat st;
    int err = reserve(fd, bytes);
    if (err || fstat(fd, &st) || !my_pidns(&loc->ns_dev, &loc->ns_ino)) {
        *why = err ? "cannot reserve the memfd's pages" : "cannot read /proc/self/ns/pid";
        close(fd);
        return -1;
    }
    loc->pid = getpid();
    loc->fd = fd;
    loc->dev = (uint64_t)st.st_dev;
    loc->ino = (uint64_t)st.st_ino;
    return fd;
}

/* A rank other than the creator: its memfd, or -1 with *why set ("" where the creator made
 * none: it says why itself). */
static int open_memfd(const locator *loc, size_t bytes, const char **why)
{
    uint64_t dev, ino;
    if (loc->fd < 0) {
        *why = "";
        return -1;
    }
    if (!my_pidns(&dev, &ino) || dev != loc->ns_dev || ino != loc->ns_ino) {
        *why = "the node's memfd is in another PID namespace";
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/fd/%lld", (long long)loc->pid, (long long)loc->fd);
    int fd = vred_fail_inject(VRED_FAIL_MEMFD) ? -1 /* testing: as if refused */
                                               : open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        *why = "cannot open the node's memfd through /proc";
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || (uint64_t)st.st_dev != loc->dev || (uint64_t)st.st_ino != loc->ino ||
        !private_enough(&st, bytes)) {
        *why = "the file opened is not the node's private memfd";
        close(fd);
        return -1;
    }
    return fd;
}

static void *map_segment(int fd, size_t bytes, const char **why)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        *why = "mmap of the node's segment failed";
        return NULL;
    }
    return p;
}

/* Every rank's verdict, agreed: 1 if all succeeded. */
static int all_ok(MPI_Comm node, int ok)
{
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS)
        return 0;
    return ok;
}

static void layout(vred_shm *s, int size, size_t bank_bytes)
{
    s->ctl = s->base;
    char *data = (char *)s->base + round_up((size_t)size * sizeof(vred_shm_ctl), PAGE);
    s->bank[0] = data;
    s->bank[1] = data + bank_bytes;
    s->bank_bytes = bank_bytes;
    s->slices_bytes = round_up(s->slice_max * (size_t)size, PAGE);
}

/* The bytes of a region with slices of `slice` on `size` ranks and banks of at least `floor`,
 * and its bank bytes. */
static size_t region_bytes(size_t slice, int size, size_t floor, size_t *bank_bytes)
{
    size_t slices = slice * (size_t)size;
    *bank_bytes = round_up(slices > floor ? slices : floor, PAGE);
    return round_up((size_t)size * sizeof(vred_shm_ctl), PAGE) + 2 * *bank_bytes;
}

/* The least bank worth making: a core's private cache (L2), up to BANK_FLOOR_MAX. Rounds
 * rotate through a bank (sync.h), so a line is stored into again only after a bank's worth of
 * others: by then the readers' private caches no longer hold it. And the pipelined bcast sends
 * slices of a whole bank with ordinary stores, which beat both smaller slices and streaming
 * stores from 4 MiB (bcast_pipe.c). At 2 ranks and 256 KiB slices this doubles the region
 * (1 -> 2 MiB); from 4 ranks p slices already fill such a bank. */
enum { BANK_FLOOR_MAX = 4 << 20 };
static size_t bank_floor(void)
{
    size_t c = vred_topo_get()->private_bytes;
    return c < BANK_FLOOR_MAX ? c : BANK_FLOOR_MAX;
}

/* The largest slice up to `want` (a multiple of 64) whose region costs each of the `size`
 * ranks at most `left` bytes (its share: the region's bytes / size, rounded up); 0 if not even
 * VRED_SHM_SLICE_MIN fits. */
static size_t fit_slice(size_t want, int size, size_t left)
{
    size_t bank, p = (size_t)size, ctl = round_up(p * sizeof(vred_shm_ctl), PAGE);
    if ((region_bytes(want, size, 0, &bank) + p - 1) / p <= left) return want;
    if (left > SIZE_MAX / p / 2 || left * p <= ctl) return 0;
    size_t bank_max = (left * p - ctl) / 2 / PAGE * PAGE;
    size_t slice = bank_max / p / 64 * 64;
    return slice >= VRED_SHM_SLICE_MIN ? slice : 0;
}

/* The slice every rank of the node can afford (agreed: the least budget left on the node), or
 * 0 if none; *why set on a rank whose own budget or memory was short. *left: that least budget
 * (the same on every rank). */
static size_t agree_slice(MPI_Comm node, int size, size_t want, int have_s, const char **why,
                          size_t *left)
{
    uint64_t mine[2] = {have_s ? vred_shm_budget_left() : 0, (uint64_t)have_s}, all[2];
    if (vred_next()->Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, node) != MPI_SUCCESS)
        return 0;
    if (!all[1]) return 0; /* a rank without memory (its *why says so) */
    *left = (size_t)all[0];
    size_t slice = fit_slice(want, size, (size_t)all[0]);
    if (!slice && !fit_slice(want, size, (size_t)mine[0]))
        *why = "this process has reached its bound VRED_SHM_LIMIT";
    return slice;
}

/* fd mapped on this rank at *base, then agreed: 1 if every rank of the node mapped its own, else
 * 0 with nothing left mapped here. fd is closed either way (the mapping keeps the segment), only
 * after the agreement: until every rank has opened a memfd, its creator's descriptor must stay. */
static int map_agreed(MPI_Comm node, int fd, size_t bytes, void **base, const char **why)
{
    *base = fd >= 0 ? map_segment(fd, bytes, why) : NULL;
    int ok = all_ok(node, *base != NULL);
    if (fd >= 0) close(fd);
    if (!ok && *base) munmap(*base, bytes);
    if (!ok) *base = NULL;
    return ok;
}

/* The nameless segment mapped on every rank at *base (1), or on none (0: every rank then
 * tries the named one; *why set on a rank that failed itself, reported only if the named one
 * fails too). Called by every rank of the node or by none: VRED_SHM_MEMFD is among the knobs
 * the ranks agree on (pmpi_init.c), and a rank that did not take its budget (`took` 0) takes
 * part, failing. */
static int attach_nameless(MPI_Comm node, int rank, int took, size_t bytes, void **base,
                           const char **why)
{
    locator loc = {.fd = -1};
    int fd = took && rank == 0 ? create_memfd(bytes, &loc, why) : -1;
    if (vred_next()->Bcast(&loc, (int)sizeof loc, MPI_BYTE, 0, node) != MPI_SUCCESS) {
        if (fd >= 0) close(fd);
        return 0;
    }
    if (took && rank != 0) fd = open_memfd(&loc, bytes, why);
    return map_agreed(node, fd, bytes, base, why);
}

/* The reason a rank gives when neither segment could be made: each attempt's where it failed
 * itself ("" where only another rank did). The memfd's would otherwise go unsaid, and a user
 * told only that /dev/shm is full would wonder why the memfd did not serve. */
static const char *both_why(const char *named, const char *nameless)
{
    static __thread char text[256];
    if (!nameless[0]) return named;
    if (!named[0]) return nameless;
    snprintf(text, sizeof text, "%s; before that, %s", named, nameless);
    return text;
}

/* The named segment mapped on every rank at *base (1), or on none (0, *why set on a rank that
 * failed itself). */
static int attach_named(MPI_Comm node, int rank, int took, size_t bytes, void **base,
                        const char **why)
{
    char name[NAME_MAX_LEN] = {0};
    int fd = took && rank == 0 ? create_segment(name, bytes, why) : -1;
    /* Rank 0 tells the others the name ("" if it failed). */
    if (vred_next()->Bcast(name, NAME_MAX_LEN, MPI_CHAR, 0, node) != MPI_SUCCESS) {
        if (rank == 0 && fd >= 0) shm_unlink(name);
        if (fd >= 0) close(fd);
        return 0;
    }
    if (took && name[0] && rank != 0) fd = open_segment(name, bytes, why);
    if (took && !name[0] && rank != 0) *why = "";
    int ok = map_agreed(node, fd, bytes, base, why);
    if (rank == 0 && name[0]) shm_unlink(name); /* every rank has mapped it, or given up */
    return ok;
}

vred_shm *vred_shm_create(MPI_Comm node, size_t slice_max, const char **why)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(node, &rank);
    PMPI_Comm_size(node, &size);
    *why = "";
    vred_shm *s = calloc(1, sizeof *s);
    if (!s) *why = "out of memory";
    size_t wanted = slice_max, left = 0;
    slice_max = agree_slice(node, size, slice_max, s != NULL, why, &left);
    if (!slice_max) {
        free(s);
        return NULL;
    }
    /* Banks of a private cache where the budget allows it (agreed: the least budget left). */
    size_t bank_bytes, bytes = region_bytes(slice_max, size, bank_floor(), &bank_bytes);
    if ((bytes + (size_t)size - 1) / (size_t)size > left)
        bytes = region_bytes(slice_max, size, 0, &bank_bytes);
    /* Every rank maps the region rank 0 makes, so every rank takes rank 0's geometry: the
     * slice (VRED_SHM_SLICE may differ between the ranks' environments) and the banks (the L2
     * that hwloc shows each process may differ: cgroups on a hybrid CPU). Computed apart, a
     * rank with a smaller region placed its second bank elsewhere: wrong sums, then a hang. */
    uint64_t geometry[3] = {slice_max, bytes, bank_bytes};
    if (vred_next()->Bcast(geometry, 3, MPI_UINT64_T, 0, node) != MPI_SUCCESS) {
        free(s);
        return NULL;
    }
    slice_max = (size_t)geometry[0], bytes = (size_t)geometry[1], bank_bytes = (size_t)geometry[2];
    size_t share = (bytes + (size_t)size - 1) / (size_t)size;
    /* Another thread may have taken the budget since: then this rank fails like one that
     * cannot map, and every rank gives up below. */
    int took = vred_shm_budget_take(share);
    if (!took) *why = "this process has reached its bound VRED_SHM_LIMIT";
    void *base = NULL;
    const char *nameless_why = "";
    int ok = vred_config_get()->shm_memfd &&
             attach_nameless(node, rank, took, bytes, &base, &nameless_why);
    if (!ok) ok = attach_named(node, rank, took, bytes, &base, why);
    if (!ok) *why = both_why(*why, nameless_why);
    if (!ok) {
        if (took) vred_shm_budget_give(share);
        free(s);
        return NULL;
    }
    s->share = share;
    s->reduced = slice_max < wanted;
    s->base = base;
    s->map_bytes = bytes;
    s->rank = rank;
    s->size = size;
    s->slice_max = slice_max;
    s->comm = node;
    layout(s, size, bank_bytes); /* after slice_max: slices_bytes */
    /* Each rank initialises only its own line; the barrier orders that before any reading. */
    __atomic_store_n(&s->ctl[rank].seq, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->ctl[rank].round_done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->ctl[rank].pid, getpid(), __ATOMIC_RELAXED);
    uint64_t dev = 0, ino = 0;
    int ns_known = my_pidns(&dev, &ino);
    s->ctl[rank].pidns_dev = dev;
    s->ctl[rank].pidns_ino = ino;
    PMPI_Barrier(node);
    /* Every peer is alive now. Its pid names it here only in this PID namespace: ranks in
     * separate ones sharing /dev/shm (containers) publish pids that name other processes here,
     * or none, and the dead-peer check would watch those (as root, kill() reaches any of them)
     * and end a healthy job when one exits: then leave it off. */
    s->check_peers = ns_known;
    for (int i = 0; i < size; i++)
        if (i != rank && (s->ctl[i].pidns_dev != dev || s->ctl[i].pidns_ino != ino ||
                          kill(__atomic_load_n(&s->ctl[i].pid, __ATOMIC_RELAXED), 0) != 0))
            s->check_peers = 0;
    s->yield = vred_shm_oversubscribed(node, size);
    return s;
}

void vred_shm_destroy(vred_shm *s)
{
    if (!s) return;
    munmap(s->base, s->map_bytes);
    vred_shm_budget_give(s->share);
    free(s->cma_buf);
    free(s->cma_parts);
    free(s->cma_hold);
    free(s);
}
