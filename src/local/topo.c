/*
 * Machine topology for the collectives: the last-level cache and the level below it (the
 * adaptive copy's C), cores, and sockets (the socket-aware algorithms).
 *
 * Two sources, one result:
 *   - hwloc (built with VRED_HAVE_HWLOC): caches, cores, packages and NUMA nodes as hwloc sees
 *     them, inclusiveness from the cache object's "Inclusive" info (hwloc reads it from CPUID).
 *   - sysfs otherwise (cross builds, machines without libhwloc): cpu0's cache/index* entries,
 *     every CPU's topology/physical_package_id, node<N>/cpulist; inclusiveness from CPUID leaf 4
 *     (Intel) or 0x8000001D (AMD) on x86, unknown elsewhere.
 * Both fill the same table cpu -> socket, so vred_topo_my_socket() needs neither hwloc nor the
 * files after start-up: it only reads the calling thread's affinity.
 *
 * Detection runs once (pthread_once). Anything missing or unreadable leaves a default in place
 * (LLC 8 MiB, private 1 MiB, 1 socket, cores from sysconf): a wrong guess costs performance,
 * never correctness, so nothing here may fail or crash.
 */
#define _GNU_SOURCE
#include "local/topo.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef VRED_HAVE_HWLOC
#include <hwloc.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define DEFAULT_LLC ((size_t)8 << 20)
#define DEFAULT_PRIVATE ((size_t)1 << 20)

static vred_topo topo;
static int *socket_of_cpu; /* Linux CPU id -> socket index, -1 unknown; ncpu_ids entries */
static int ncpu_ids;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* One more CPU of a socket; grows the table (a failed allocation only loses the mapping). */
static void map_cpu(int cpu, int socket)
{
    if (cpu < 0 || cpu > (1 << 20)) return;
    if (cpu >= ncpu_ids) {
        int n = cpu + 64;
        int *p = realloc(socket_of_cpu, (size_t)n * sizeof *p);
        if (!p) return;
        for (int i = ncpu_ids; i < n; i++) p[i] = -1;
        socket_of_cpu = p;
        ncpu_ids = n;
    }
    socket_of_cpu[cpu] = socket;
}

/* ---- small file readers (sysfs): every failure returns "nothing" ---- */

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char *r = fgets(buf, (int)len, f);
    fclose(f);
    if (!r) return 0;
    buf[strcspn(buf, "\n")] = 0;
    return 1;
}

static long read_long(const char *path, long dflt)
{
    char buf[64], *end;
    if (!read_line(path, buf, sizeof buf)) return dflt;
    long v = strtol(buf, &end, 10);
    return end == buf ? dflt : v;
}

/* "48K", "2048K", "32M", "1048576" -> bytes; 0 if unreadable. */
static size_t read_size(const char *path)
{
    char buf[64], *end;
    if (!read_line(path, buf, sizeof buf)) return 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end == buf) return 0;
    switch (*end) {
    case 'K': case 'k': v <<= 10; break;
    case 'M': case 'm': v <<= 20; break;
    case 'G': case 'g': v <<= 30; break;
    default: break;
    }
    return (size_t)v;
}

/* Calls fn(cpu, arg) for every CPU of a list "0-3,8,10-11"; returns how many. */
static int for_cpulist(const char *s, void (*fn)(int, void *), void *arg)
{
    int count = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s) break;
        long b = a;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1) break;
            s = end;
        }
        for (long c = a; c <= b && c < (1 << 20); c++, count++)
            if (fn) fn((int)c, arg);
        if (*s != ',') break;
        s++;
    }
    return count;
}

static int list_count(const char *path)
{
    char buf[4096];
    return read_line(path, buf, sizeof buf) ? for_cpulist(buf, NULL, NULL) : 0;
}

static void map_cb(int cpu, void *arg) { map_cpu(cpu, *(int *)arg); }

/* ---- x86: is the cache of `level` inclusive? From the deterministic cache parameters. ---- */
static int cpuid_inclusive(int level)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d, leaf;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return -1;
    if (b == 0x756e6547) { /* "Genu"ineIntel: leaf 4 */
        if (a < 4) return -1;
        leaf = 4;
    } else if (b == 0x68747541 || b == 0x6f677948) { /* "Auth"enticAMD, "Hygo"nGenuine */
        unsigned ext = __get_cpuid_max(0x80000000u, NULL);
        if (ext < 0x8000001Du) return -1;
        leaf = 0x8000001Du;
    } else {
        return -1;
    }
    for (unsigned i = 0; i < 16; i++) {
        __cpuid_count(leaf, i, a, b, c, d);
        unsigned type = a & 0x1f, lvl = (a >> 5) & 7;
        if (type == 0) break;
        if (type != 2 && (int)lvl == level) return (int)((d >> 1) & 1); /* data or unified */
    }
#else
    (void)level;
#endif
    return -1;
}

/* ---- hwloc ---- */
#ifdef VRED_HAVE_HWLOC
static int detect_hwloc(void)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) return 0;
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return 0;
    }
    int ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    if (ncores > 0) topo.cores = ncores;

    /* The last level is the deepest data or unified cache present; the private level the one
     * below it (split per core when a cluster of cores shares it, as on some Atom cores). */
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    for (int i = 0; i < 3; i++) {
        hwloc_obj_t llc = hwloc_get_obj_by_type(t, levels[i], 0);
        if (!llc || !llc->attr || llc->attr->cache.size == 0) continue;
        topo.llc_bytes = (size_t)llc->attr->cache.size;
        int cores_in = llc->cpuset ? hwloc_get_nbobjs_inside_cpuset_by_type(t, llc->cpuset, HWLOC_OBJ_CORE) : 0;
        if (cores_in > 0) topo.cores_per_llc = cores_in;
        const char *inc = hwloc_obj_get_info_by_name(llc, "Inclusive");
        if (inc) topo.llc_inclusive = atoi(inc) != 0;
        if (i + 1 < 3) {
            hwloc_obj_t p = hwloc_get_obj_by_type(t, levels[i + 1], 0);
            if (p && p->attr && p->attr->cache.size) {
                int share = p->cpuset ? hwloc_get_nbobjs_inside_cpuset_by_type(t, p->cpuset, HWLOC_OBJ_CORE) : 1;
                topo.private_bytes = (size_t)p->attr->cache.size / (size_t)(share > 0 ? share : 1);
            }
        }
        break;
    }

    /* Sockets: packages, or NUMA nodes when there is one package but several nodes (AMD NPS>1,
     * Intel SNC, or a VM that hides packages): the split the socket-aware algorithms want. */
    hwloc_obj_type_t st = HWLOC_OBJ_PACKAGE;
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    int nn = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    if (n <= 1 && nn > 1) st = HWLOC_OBJ_NUMANODE, n = nn;
    if (n >= 1) {
        topo.sockets = n;
        for (int s = 0; s < n; s++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(t, st, (unsigned)s);
            if (!o || !o->cpuset) continue;
            unsigned cpu;
            hwloc_bitmap_foreach_begin(cpu, o->cpuset) { map_cpu((int)cpu, s); }
            hwloc_bitmap_foreach_end();
        }
    }
    hwloc_topology_destroy(t);
    return 1;
}
#endif

/* ---- sysfs ---- */
static void detect_sysfs(void)
{
    const char *base = "/sys/devices/system/cpu";
    char path[256], buf[4096];

    /* cpu0's caches: the highest level is the last one; Instruction caches do not hold data. */
    size_t size_at[8] = {0};
    int share_at[8] = {0};
    int top = 0;
    for (int i = 0; i < 16; i++) {
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/level", base, i);
        long lvl = read_long(path, -1);
        if (lvl < 0) break;
        if (lvl < 1 || lvl > 7) continue;
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/type", base, i);
        if (read_line(path, buf, sizeof buf) && !strcmp(buf, "Instruction")) continue;
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/size", base, i);
        size_t sz = read_size(path);
        if (!sz) continue;
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/shared_cpu_list", base, i);
        size_at[lvl] = sz;
        share_at[lvl] = list_count(path);
        if (lvl > top) top = (int)lvl;
    }
    /* hardware threads per core, to turn "CPUs sharing" into "cores sharing" */
    snprintf(path, sizeof path, "%s/cpu0/topology/thread_siblings_list", base);
    int smt = list_count(path);
    if (smt < 1) smt = 1;
    if (top >= 1) {
        topo.llc_bytes = size_at[top];
        if (share_at[top] > 0) topo.cores_per_llc = (share_at[top] + smt - 1) / smt;
        topo.llc_inclusive = cpuid_inclusive(top);
        if (top >= 2 && size_at[top - 1]) {
            int cores = share_at[top - 1] > 0 ? (share_at[top - 1] + smt - 1) / smt : 1;
            topo.private_bytes = size_at[top - 1] / (size_t)cores;
        }
    }

    /* Packages and cores over every present CPU. Package ids need not be dense: renumber them
     * in increasing order. */
    int ids[256], nids = 0, cores = 0;
    snprintf(path, sizeof path, "%s/present", base);
    int maxcpu = -1;
    if (read_line(path, buf, sizeof buf)) {
        const char *dash = strrchr(buf, '-'), *comma = strrchr(buf, ',');
        const char *last = dash && (!comma || dash > comma) ? dash + 1 : comma ? comma + 1 : buf;
        maxcpu = atoi(last);
    }
    for (int cpu = 0; cpu <= maxcpu; cpu++) {
        snprintf(path, sizeof path, "%s/cpu%d/topology/physical_package_id", base, cpu);
        long pk = read_long(path, -2);
        if (pk == -2) continue; /* offline or absent */
        if (pk < 0) pk = 0;     /* some VMs say -1: one package */
        int k = 0;
        while (k < nids && ids[k] != pk) k++;
        if (k == nids && nids < 256) ids[nids++] = (int)pk;
        /* a core is counted at its first hardware thread */
        snprintf(path, sizeof path, "%s/cpu%d/topology/thread_siblings_list", base, cpu);
        cores += !read_line(path, buf, sizeof buf) || atoi(buf) == cpu;
    }
    for (int cpu = 0; cpu <= maxcpu; cpu++) {
        snprintf(path, sizeof path, "%s/cpu%d/topology/physical_package_id", base, cpu);
        long pk = read_long(path, -2);
        if (pk == -2) continue;
        if (pk < 0) pk = 0;
        int rank = 0; /* the package's index among the ids in increasing order */
        for (int k = 0; k < nids; k++) rank += ids[k] < pk;
        map_cpu(cpu, rank);
    }
    if (cores > 0) topo.cores = cores;
    if (nids >= 1) topo.sockets = nids;

    /* One package but several NUMA nodes: the nodes are the sockets (as with hwloc). */
    if (topo.sockets == 1) {
        int nodes = 0;
        for (int node = 0; node < 64; node++) {
            snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
            if (!read_line(path, buf, sizeof buf)) continue;
            if (for_cpulist(buf, NULL, NULL) > 0) nodes++;
        }
        if (nodes > 1) {
            int s = 0;
            for (int node = 0; node < 64; node++) {
                snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
                if (!read_line(path, buf, sizeof buf) || for_cpulist(buf, NULL, NULL) == 0) continue;
                for_cpulist(buf, map_cb, &s);
                s++;
            }
            topo.sockets = nodes;
        }
    }
}

static void detect(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    topo.llc_bytes = DEFAULT_LLC;
    topo.private_bytes = DEFAULT_PRIVATE;
    topo.llc_inclusive = -1;
    topo.cores = n > 0 ? (int)n : 1;
    topo.cores_per_llc = 0; /* set below, or = cores */
    topo.sockets = 1;
    int done = 0;
#ifdef VRED_HAVE_HWLOC
    done = detect_hwloc();
#endif
    if (!done) detect_sysfs();
    if (topo.llc_bytes == 0) topo.llc_bytes = DEFAULT_LLC;
    if (topo.private_bytes == 0) topo.private_bytes = DEFAULT_PRIVATE;
    if (topo.cores < 1) topo.cores = 1;
    if (topo.cores_per_llc < 1 || topo.cores_per_llc > topo.cores) topo.cores_per_llc = topo.cores;
    if (topo.sockets < 1) topo.sockets = 1;
}

const vred_topo *vred_topo_get(void)
{
    pthread_once(&once, detect);
    return &topo;
}

int vred_topo_my_socket(void)
{
    pthread_once(&once, detect);
    if (topo.sockets == 1) return 0;
    /* The mask must be at least the kernel's cpumask size: grow it until the call accepts it. */
    for (int ncpu = 1024; ncpu <= (1 << 20); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        if (!set) return -1;
        size_t sz = CPU_ALLOC_SIZE(ncpu);
        CPU_ZERO_S(sz, set);
        if (sched_getaffinity(0, sz, set) != 0) { /* 0: the calling thread */
            CPU_FREE(set);
            if (errno == EINVAL) continue;
            return -1;
        }
        int mine = -1;
        for (int c = 0; c < ncpu; c++) {
            if (!CPU_ISSET_S(c, sz, set)) continue;
            int s = c < ncpu_ids ? socket_of_cpu[c] : -1;
            if (s < 0 || (mine >= 0 && s != mine)) {
                mine = -1;
                break;
            }
            mine = s;
        }
        CPU_FREE(set);
        return mine;
    }
    return -1;
}
