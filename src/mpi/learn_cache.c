/*
 * Where the learned selection is kept: $XDG_CACHE_HOME/vred/learned (else ~/.cache/vred/learned),
 * one text file per key, named by the key's hash. The key holds everything a measurement
 * depends on that can change between runs: the CPU (vendor, family, model, stepping, name: the
 * machine kind's CPU changes from day to day), the ISA vred runs, the CPUs online, the MPI
 * library's version, this libvred build (path, size, mtime: a rebuilt library may run other
 * code), the communicator's shape, the link between its nodes (the decade of the rate the model
 * measured: 0.1, 1, 10, 100 Gbit/s, so that a job on another network measures again while the
 * probe's spread, 0.5-0.9 Gbit/s on a 1 Gbit/s link, keeps one key) and the knobs that change
 * vred's algorithms. The file repeats the key, so a hash collision or a stale file is never read
 * as a match.
 *
 *   # vred learned selection (VRED_LEARN, docs/collectives.md); delete to measure again
 *   key cpu=AuthenticAMD 25/17/1 AMD EPYC;isa=avx512;...
 *   allreduce 20 ma mpi=4.52e-04 ma=2.10e-04 ring=3.01e-04
 *
 * Only rank 0 of a communicator reads or writes it. Private to the user: the directories are
 * made 0700 and the file 0600, written to a temporary name and renamed, so a reader never sees
 * half a file and two jobs writing at once lose at most one cell. Only what the user alone
 * could have made is used: vred's directories and the files must be the user's and writable
 * by no one else, a file is read only if it is a regular one (not a link, not a FIFO), and a
 * line too long for a cell is skipped whole.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/kernel.h"
#include "mpi/learn.h"
#include "mpi/learn_pick.h"

/* The first processor's identity lines of /proc/cpuinfo, in the file's order (x86: vendor, family,
 * model, name, stepping; Arm: implementer, variant, part, revision), '/'-separated, each up to a
 * ';' (the key's separator). */
static void cpu_id(char *buf, size_t size)
{
    static const char *const fields[] = {"vendor_id", "cpu family", "model", "model name",
                                         "stepping", "CPU implementer", "CPU variant",
                                         "CPU part", "CPU revision"};
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char v[256];
        if (!vred_cpuinfo(fields[i], v, sizeof v)) continue;
        v[strcspn(v, ";")] = 0;
        int w = snprintf(buf + used, size - used, "%s%s", used ? "/" : "", v);
        if (w > 0 && (size_t)w < size - used) used += (size_t)w;
    }
}

/* This library's file: a rebuild gives a new key. */
static void build_id(char *buf, size_t size)
{
    Dl_info info;
    struct stat st;
    if (dladdr((void *)&build_id, &info) && info.dli_fname && !stat(info.dli_fname, &st))
        snprintf(buf, size, "%s:%lld:%lld", info.dli_fname, (long long)st.st_size,
                 (long long)st.st_mtime);
    else
        snprintf(buf, size, "?");
}

static void mpi_id(char *buf, size_t size)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (PMPI_Get_library_version(v, &len) != MPI_SUCCESS) len = 0;
    v[len < (int)sizeof v ? len : (int)sizeof v - 1] = 0;
    v[strcspn(v, "\n;")] = 0; /* the first line names the library and version */
    snprintf(buf, size, "%.200s", v);
}

static void dir_of(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') snprintf(buf, size, "%s/vred/learned", xdg);
    else if (home && home[0] == '/') snprintf(buf, size, "%s/.cache/vred/learned", home);
    else buf[0] = 0;
}

void vred_learn_file_for(const vred_comm *vc, vred_learn_file *f)
{
    static const char *const knobs[] = {
        "VRED_ISA",       "VRED_TAIL",     "VRED_THREADS",   "VRED_SPARSE",
        "VRED_NODE_SIZE", "VRED_SHM",      "VRED_NT",        "VRED_SOCKETS",
        "VRED_SHM_SLICE", "VRED_SHM_CELL", "VRED_TUNE_FILE", "VRED_CMA",
        "VRED_CMA_ROOT_SHARE", "VRED_CMA_BALANCE", "VRED_COPY_SKEW", "VRED_REALIGN_FROM",
        /* the size of the regions (which algorithms fit, their slices) and of kept scratch */
        "VRED_SHM_LIMIT", "VRED_SCRATCH_LIMIT"};
    char cpu[512], mpi[256], build[1024], dir[3800];
    cpu_id(cpu, sizeof cpu);
    mpi_id(mpi, sizeof mpi);
    build_id(build, sizeof build);
    int n = snprintf(f->key, sizeof f->key, "cpu=%s;isa=%s;cpus=%ld;mpi=%s;vred=%s;ranks=%d;"
                     "nodes=%d;ppn=%d", cpu, vred_isa_name(vred_isa_active()),
                     sysconf(_SC_NPROCESSORS_ONLN), mpi, build, vc->size, vc->nodes, vc->ppn);
    if (vc->nodes > 1 && vc->model.beta_net > 0 && n > 0 && (size_t)n < sizeof f->key)
        n += snprintf(f->key + n, sizeof f->key - (size_t)n, ";link_gbit=%g",
                      pow(10, lround(log10(8e-9 / vc->model.beta_net))));
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        const char *v = getenv(knobs[i]);
        if (v && *v && n > 0 && (size_t)n < sizeof f->key)
            n += snprintf(f->key + n, sizeof f->key - (size_t)n, ";%s=%s", knobs[i], v);
    }
    for (char *c = f->key; *c; c++)
        if (*c == '\n') *c = ' ';
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = f->key; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    f->hash = (unsigned long long)h;
    dir_of(dir, sizeof dir);
    if (dir[0]) snprintf(f->path, sizeof f->path, "%s/%016llx.txt", dir, f->hash);
    else f->path[0] = 0;
}

/* 1 if st is this user's and no one else may write it. */
static int own_private(const struct stat *st)
{
    return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* A cache file opened for reading, or NULL: only a regular file of this user that no one else
 * may write, not through a symbolic link, and without blocking (a FIFO planted at the path
 * would otherwise hold rank 0 in fopen while its peers wait in the broadcast). */
static FILE *open_cache(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !own_private(&st)) {
        close(fd);
        return NULL;
    }
    FILE *in = fdopen(fd, "r");
    if (!in) close(fd);
    return in;
}

/* The next line of `in` into buf (newline dropped): 1, or 0 at the end. A line longer than
 * buf is read to its end and comes back empty, so that its tail is never taken for a line of
 * its own. */
static int next_line(FILE *in, char *buf, size_t size)
{
    if (!fgets(buf, (int)size, in)) return 0;
    size_t n = strcspn(buf, "\n");
    if (buf[n] == '\n' || feof(in)) {
        buf[n] = 0;
        return 1;
    }
    for (int ch = 0; ch != '\n' && ch != EOF;) ch = getc(in);
    buf[0] = 0;
    return 1;
}

/* Opens f's file if its key line matches (positioned after it), else NULL. */
static FILE *open_matching(const vred_learn_file *f)
{
    if (!f->path[0]) return NULL;
    FILE *in = open_cache(f->path);
    char line[4096];
    while (in && next_line(in, line, sizeof line)) {
        if (line[0] == '#') continue;
        if (!strncmp(line, "key ", 4) && !strcmp(line + 4, f->key)) return in;
        break;
    }
    if (in) fclose(in);
    return NULL;
}

/* A cell line's collective and class, or -1. */
static int parse_cell(const char *line, vred_coll *coll, int *k, vred_alg *alg)
{
    char cname[32], aname[32], kname[16];
    if (sscanf(line, "%31s %15s %31s", cname, kname, aname) != 3) return -1;
    char *end;
    errno = 0;
    long kl = strtol(kname, &end, 10);
    if (errno || *end || end == kname || kl < 0 || kl >= VRED_LEARN_CLASSES) return -1;
    *k = (int)kl;
    int c = 0, a = 0;
    while (c < VRED_COLL_COUNT && strcmp(cname, vred_coll_name((vred_coll)c))) c++;
    while (a < VRED_ALG_COUNT && strcmp(aname, vred_alg_name((vred_alg)a))) a++;
    /* "auto" is not a measurement, and an algorithm the collective lacks cannot be one */
    if (c == VRED_COLL_COUNT || a == VRED_ALG_COUNT || a == VRED_ALG_AUTO ||
        (a != VRED_ALG_MPI && !vred_select_fn((vred_coll)c, (vred_alg)a)))
        return -1;
    *coll = (vred_coll)c;
    *alg = (vred_alg)a;
    return 0;
}

/* A cell line measured with the spell probe and outside a spell (learn.c). */
static int quiet_cell(const char *line)
{
    return !strstr(line, " spell=") && strstr(line, " ordinary/streaming=");
}

/* 1 if a file of this machine (any MPI, shape or build: the key's fields before "mpi=") holds a
 * cell measured outside a spell: the machine has quiet times, worth waiting for. */
static int machine_has_quiet(const vred_learn_file *f)
{
    char dir[sizeof f->path], path[sizeof f->path + 256], line[4096];
    const char *end = strstr(f->key, ";mpi=");
    if (!f->path[0] || !end) return 0;
    size_t prefix = (size_t)(end - f->key) + 1;
    snprintf(dir, sizeof dir, "%s", f->path);
    *strrchr(dir, '/') = 0;
    DIR *d = opendir(dir);
    int quiet = 0;
    for (struct dirent *e; d && !quiet && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".txt")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *in = open_cache(path);
        int mine = 0;
        while (in && !quiet && next_line(in, line, sizeof line)) {
            if (line[0] == '#') continue;
            if (!strncmp(line, "key ", 4)) mine = !strncmp(line + 4, f->key, prefix);
            else if (!mine) break;
            else quiet = quiet_cell(line);
        }
        if (in) fclose(in);
    }
    if (d) closedir(d);
    return quiet;
}

void vred_learn_file_read(const vred_learn_file *f, vred_learned *l)
{
    FILE *in = open_matching(f);
    char line[1024];
    int quiet = 0, again = 0;
    while (in && next_line(in, line, sizeof line)) {
        vred_coll c;
        vred_alg a;
        int k;
        /* A line that is not a cell (edited by hand, cut short) is skipped: that cell is
         * measured again. */
        if (line[0] == '#' || parse_cell(line, &c, &k, &a)) continue;
        l->alg[c][k] = (signed char)a;
        /* nt=on: the pick runs with streaming stores (learn.c) */
        l->nt[c][k] = (signed char)(a != VRED_ALG_MPI && strstr(line, " nt=on") != NULL);
        /* skewed=cma: a cma pick keeps its lead on skewed buffers (learn.c, skewed_pick) */
        l->skew_cma[c][k] = (signed char)(a == VRED_ALG_CMA && strstr(line, " skewed=cma") != NULL);
        /* spell=N: the last N measurements fell in a slow spell (learn.c) */
        const char *sp = strstr(line, " spell=");
        int runs = sp ? atoi(sp + 7) : 0;
        l->spell_runs[c][k] = (unsigned char)(runs < 1 ? (sp ? 1 : 0) : runs > 99 ? 99 : runs);
        l->spell[c][k] = (signed char)(l->spell_runs[c][k] ? 1 : 0);
        /* close=N: a close call N runs have measured, due again until VRED_LEARN_RUNS have
         * (learn_runs.c), but where a spell mark is there too the spell rule says when */
        const char *cl = strstr(line, " close=");
        long seen = cl ? strtol(cl + 7, NULL, 10) : 0;
        l->close_runs[c][k] = (unsigned char)(seen < 0 ? 0 : seen > 99 ? 99 : seen);
        if (seen > 0 && seen < VRED_LEARN_RUNS && !sp) l->spell[c][k] = 1;
        quiet |= quiet_cell(line);
        again |= l->spell_runs[c][k] > 1;
    }
    if (in) fclose(in);
    /* Measured in a spell once: measure again. More often: again only if this machine was ever
     * measured outside one, else spells may be all it has (keep what it measured). */
    if (!again || quiet || machine_has_quiet(f)) return;
    for (int c = 0; c < VRED_COLL_COUNT; c++)
        for (int k = 0; k < VRED_LEARN_CLASSES; k++)
            if (l->spell_runs[c][k] > 1) l->spell[c][k] = 2;
}

int vred_learn_file_cell(const vred_learn_file *f, vred_coll coll, int k, char *line,
                         size_t size)
{
    FILE *in = open_matching(f);
    int found = 0;
    while (in && !found && next_line(in, line, size)) {
        vred_coll c;
        vred_alg a;
        int j;
        found = line[0] != '#' && !parse_cell(line, &c, &j, &a) && c == coll && j == k;
    }
    if (in) fclose(in);
    return found ? 0 : -1;
}

/* mkdir -p with mode 0700 for the components it makes; the last `owned` components (vred's
 * own, .../vred/learned) must then be directories of this user that no one else may write,
 * not symbolic links, whoever made them: else another user could replace the files in them. */
static int make_dirs(char *path, int owned)
{
    int depth = 0;
    for (const char *c = path + 1; *c; c++) depth += *c == '/';
    for (char *s = strchr(path + 1, '/');; s = strchr(s + 1, '/'), depth--) {
        if (s) *s = 0;
        int rc = mkdir(path, 0700);
        struct stat st;
        int bad = depth < owned && (lstat(path, &st) || !S_ISDIR(st.st_mode) || !own_private(&st));
        if (s) *s = '/';
        if ((rc && errno != EEXIST) || bad) return -1;
        if (!s) return 0;
    }
}

int vred_learn_file_put(const vred_learn_file *f, vred_coll coll, int k, const char *line)
{
    if (!f->path[0]) return -1;
    char dir[sizeof f->path], tmp[sizeof f->path + 16];
    snprintf(dir, sizeof dir, "%s", f->path);
    *strrchr(dir, '/') = 0;
    if (make_dirs(dir, 2)) return -1;
    snprintf(tmp, sizeof tmp, "%s/.learn-XXXXXX", dir);
    int fd = mkstemp(tmp); /* 0600 */
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        if (fd >= 0) close(fd), unlink(tmp);
        return -1;
    }
    fprintf(out, "# vred learned selection (VRED_LEARN, docs/collectives.md); delete to measure "
                 "again\nkey %s\n", f->key);
    /* The cells already kept, but this one's old line. */
    FILE *in = open_matching(f);
    char old[1024];
    while (in && next_line(in, old, sizeof old)) {
        vred_coll c;
        vred_alg a;
        int j;
        if (old[0] != '#' && !parse_cell(old, &c, &j, &a) && !(c == coll && j == k))
            fprintf(out, "%s\n", old);
    }
    if (in) fclose(in);
    fprintf(out, "%s\n", line);
    /* A write that failed (a full disk) must not replace the kept cells with part of them. */
    int failed = ferror(out) != 0;
    if (fclose(out) || failed || rename(tmp, f->path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
