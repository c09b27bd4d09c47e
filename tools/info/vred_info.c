/*
 * vred-info: what vred sees and does on this machine, like ompi_info. MPI-free.
 *
 *   vred-info            version, build, CPU features, ISA chosen and best, tail mode, kernel
 *                        coverage per ISA, caches and sockets, effective VRED_* settings
 *   vred-info --kernels  also: which ISA serves each valid (op, type) pair
 *
 * Everything is read through the library itself (vred_cpu(), the dispatch table, the config
 * parser), so what is printed is what a reduction in this process would use.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vred.h"
#include "kernel.h"
#include "dispatch.h"
#include "config.h"
#include "local/copy.h"
#include "local/topo.h"
#ifdef VRED_HAVE_HWLOC
#include <hwloc.h>
#endif

/* The ISAs of this build, worst to best (dispatch.c's list); at most VRED_ISA_COUNT. */
static const vred_isa *ladder;
static int ladder_len;

static const char *yesno(int v) { return v ? "yes" : "no"; }

static void print_size(char *buf, size_t n, unsigned long long bytes)
{
    if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
        snprintf(buf, n, "%llu GiB", bytes >> 30);
    else if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
        snprintf(buf, n, "%llu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, n, "%llu KiB", bytes >> 10);
    else
        snprintf(buf, n, "%llu B", bytes);
}

static void print_build(void)
{
    printf("vred %d.%d\n", VRED_VERSION_MAJOR, VRED_VERSION_MINOR);
#if defined(__x86_64__)
    const char *arch = "x86_64";
#elif defined(__aarch64__)
    const char *arch = "aarch64";
#else
    const char *arch = "generic";
#endif
    printf("  build:           %s, %s\n", arch,
#ifdef __VERSION__
           "cc " __VERSION__
#else
           "cc unknown"
#endif
    );
    printf("  kernels built:   scalar");
#ifdef VRED_HAVE_SSE41
    printf(" sse41");
#endif
#ifdef VRED_HAVE_AVX2
    printf(" avx2");
#endif
#ifdef VRED_HAVE_AVX512
    printf(" avx512");
#endif
#ifdef VRED_HAVE_NEON
    printf(" neon");
#endif
#ifdef VRED_HAVE_SVE
    printf(" sve");
#endif
    printf("\n");
}

static void print_cpu(void)
{
    const vred_cpu_features *f = vred_cpu();
    char model[256];
    vred_cpu_name(model, sizeof model);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    printf("\nCPU\n");
    printf("  model:           %s, %ld online\n", model, online);
#if defined(__x86_64__) || defined(__i386__)
    printf("  features:        sse4.1 %s, avx %s, avx2 %s, f16c %s, fma %s\n", yesno(f->sse41),
           yesno(f->avx), yesno(f->avx2), yesno(f->f16c), yesno(f->fma));
    printf("  avx-512:         f %s, bw %s, vl %s, dq %s, bf16 %s, fp16 %s, vbmi %s, vbmi2 %s\n",
           yesno(f->avx512f), yesno(f->avx512bw), yesno(f->avx512vl), yesno(f->avx512dq),
           yesno(f->avx512_bf16), yesno(f->avx512_fp16), yesno(f->avx512_vbmi),
           yesno(f->avx512_vbmi2));
    printf("  OS state (XCR0): ymm %s, zmm+opmask %s\n", yesno(f->os_ymm), yesno(f->os_zmm));
#elif defined(__aarch64__)
    printf("  features:        asimd %s, fphp %s, sve %s, sve2 %s\n", yesno(f->asimd), yesno(f->fphp),
           yesno(f->sve), yesno(f->sve2));
    if (f->sve)
        printf("  SVE vector:      %u bits\n", f->sve_bits);
#else
    (void)f;
    printf("  features:        (no SIMD detection on this architecture)\n");
#endif
}

/* Each rung's table in both tail forms (which tail the active kernels use). */
static vred_kernel_table tables[VRED_ISA_COUNT][2];
static int tables_built[VRED_ISA_COUNT];

static const vred_kernel_table *table_at(int rung, int masked)
{
    if (!tables_built[rung]) {
        vred_table_build(&tables[rung][0], ladder[rung], 0);
        vred_table_build(&tables[rung][1], ladder[rung], 1);
        tables_built[rung] = 1;
    }
    return &tables[rung][masked];
}

/* The rung of the ISA whose kernel serves (op, ty) now (the dispatch notes it per entry). */
static int serving_rung(vred_op op, vred_type ty)
{
    vred_isa isa = vred_entries[op][ty].isa;
    for (int r = 0; r < ladder_len; r++)
        if (ladder[r] == isa) return r;
    return -1;
}

static void print_isa(int list_kernels)
{
    vred_isa active = vred_isa_active(), best = vred_isa_best();
    const vred_config *cfg = vred_config_get();
    printf("\nISA\n");
    printf("  active:          %s\n", vred_isa_name(active));
    printf("  best available:  %s\n", vred_isa_name(best));
    int cap_built = 0;
    for (int r = 0; r < ladder_len; r++) cap_built |= ladder[r] == cfg->isa_cap;
    printf("  cap (VRED_ISA):  %s%s\n",
           cfg->isa_cap == VRED_ISA_COUNT ? "none (best)" : vred_isa_name(cfg->isa_cap),
           cfg->isa_cap == VRED_ISA_COUNT || cap_built ? "" : " (refused: not an ISA of this build)");
    printf("  runnable here:  ");
    for (int r = 0; r < ladder_len; r++)
        printf(" %s %s%s", vred_isa_name(ladder[r]), yesno(vred_isa_supported(ladder[r])),
               r + 1 < ladder_len ? "," : "\n");

    /* Tail: compare the active SUM f32 kernel with the two forms at the active ISA. */
    const char *tail = "n/a (only avx512 and sve have a choice)";
    int arung = -1;
    for (int r = 0; r < ladder_len; r++)
        if (ladder[r] == active) arung = r;
    if ((active == VRED_ISA_AVX512 || active == VRED_ISA_SVE) && arung >= 0) {
        vred_binary_fn fn = vred_active.bin[VRED_OP_SUM][VRED_FLOAT];
        if (fn == table_at(arung, 1)->bin[VRED_OP_SUM][VRED_FLOAT])
            tail = "masked";
        else if (fn == table_at(arung, 0)->bin[VRED_OP_SUM][VRED_FLOAT])
            tail = "cascade (512 -> 256 -> 128 -> scalar Duff's device)";
        else
            tail = "unknown";
    }
    const char *why = cfg->tail == VRED_TAIL_MASK      ? "VRED_TAIL=mask"
                      : cfg->tail == VRED_TAIL_CASCADE ? "VRED_TAIL=cascade"
                                                       : "auto: the measured default";
    printf("  tail:            %s [%s]\n", tail, why);

    /* Coverage: canonical pairs each runnable ISA accelerates over the scalar reference. */
    int valid = 0, served[VRED_ISA_COUNT] = {0};
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            if (!vred_op_valid((vred_op)op, (vred_type)ty)) continue;
            valid++;
            int r = serving_rung((vred_op)op, (vred_type)ty);
            if (r >= 0) served[r]++;
        }
    printf("  (op,type) pairs: %d valid; served now by:", valid);
    for (int r = 0; r < ladder_len; r++)
        if (served[r]) printf(" %s %d", vred_isa_name(ladder[r]), served[r]);
    printf("\n");

    if (list_kernels) {
        printf("\nKernels in use ((op, type) -> ISA; canonical form in brackets)\n");
        for (int op = 0; op < VRED_OP_COUNT; op++)
            for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
                if (!vred_op_valid((vred_op)op, (vred_type)ty)) continue;
                vred_canon c = vred_canonical((vred_op)op, (vred_type)ty);
                int r = serving_rung((vred_op)op, (vred_type)ty);
                char canon[64] = "";
                if (c.op != (vred_op)op || c.type != (vred_type)ty || c.scale != 1)
                    snprintf(canon, sizeof canon, "[%s %s x%u]", vred_op_name(c.op),
                             vred_type_name(c.type), c.scale);
                printf("  %-7s %-11s %-8s %s\n", vred_op_name((vred_op)op),
                       vred_type_name((vred_type)ty), r >= 0 ? vred_isa_name(ladder[r]) : "?",
                       canon);
            }
    }
}

#ifdef VRED_HAVE_HWLOC
static void print_topology(void)
{
    hwloc_topology_t topo;
    unsigned v = hwloc_get_api_version();
    printf("\nTopology (hwloc, API %u.%u.%u)\n", v >> 16, (v >> 8) & 0xff, v & 0xff);
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        printf("  hwloc could not load the topology\n");
        return;
    }
    printf("  packages:        %d\n", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
    printf("  NUMA nodes:      %d\n", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
    printf("  cores:           %d\n", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
    printf("  PUs:             %d\n", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
    static const struct {
        hwloc_obj_type_t type;
        const char *name;
    } levels[] = {{HWLOC_OBJ_L1CACHE, "L1d"}, {HWLOC_OBJ_L2CACHE, "L2"},
                  {HWLOC_OBJ_L3CACHE, "L3"},  {HWLOC_OBJ_L4CACHE, "L4"},
                  {HWLOC_OBJ_L5CACHE, "L5"}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        int n = hwloc_get_nbobjs_by_type(topo, levels[i].type);
        if (n <= 0) continue;
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, levels[i].type, 0);
        if (levels[i].type == HWLOC_OBJ_L1CACHE && o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
            continue;
        char sz[32];
        print_size(sz, sizeof sz, (unsigned long long)o->attr->cache.size);
        int pus = o->cpuset ? hwloc_bitmap_weight(o->cpuset) : -1;
        printf("  %-4s cache:      %s, %u B lines, %d-way, %d instance%s, each shared by %d PU%s\n",
               levels[i].name, sz, o->attr->cache.linesize, o->attr->cache.associativity, n,
               n == 1 ? "" : "s", pus, pus == 1 ? "" : "s");
    }
    hwloc_topology_destroy(topo);
}
#else
static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

static void print_topology(void)
{
    printf("\nTopology\n");
    printf("  hwloc:           not built in (caches from sysfs; rebuild with libhwloc-dev for "
           "sockets and NUMA)\n");
    char path[256], level[16], type[32], size[32], line[32], shared[256];
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(path, level, sizeof level)) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!read_line(path, type, sizeof type) || strcmp(type, "Instruction") == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!read_line(path, size, sizeof size)) continue;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        if (!read_line(path, line, sizeof line)) snprintf(line, sizeof line, "?");
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        if (!read_line(path, shared, sizeof shared)) snprintf(shared, sizeof shared, "?");
        char name[24];
        snprintf(name, sizeof name, "L%s%s", level, strcmp(level, "1") == 0 ? "d" : "");
        printf("  %-4s cache:      %s, %s B lines, shared by CPUs %s\n", name, size, line, shared);
    }
    /* Sockets: distinct physical_package_id values. */
    int ids[1024], nids = 0;
    for (int c = 0; c < 4096; c++) {
        char v[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        if (!read_line(path, v, sizeof v)) {
            if (c > 0) break;
            continue;
        }
        int id = atoi(v), seen = 0;
        for (int k = 0; k < nids; k++) seen |= ids[k] == id;
        if (!seen && nids < 1024) ids[nids++] = id;
    }
    if (nids) printf("  packages:        %d\n", nids);
}
#endif

/* Name of the byte size 2^k (the learned selection's classes). */
static const char *size_name(int k, char *buf, size_t size)
{
    static const char *const unit[] = {"B", "K", "M", "G", "T"};
    snprintf(buf, size, "%d%s", 1 << (k % 10), unit[k / 10 < 4 ? k / 10 : 4]);
    return buf;
}

/* The learned selection's top class for coll on `ranks` ranks: calibration allocates at most
 * VRED_LEARN_MAX_BYTES (allgather: of its whole result, `ranks` blocks). */
static int top_class(const char *coll, long ranks)
{
    unsigned long long cap = VRED_LEARN_MAX_BYTES / (strcmp(coll, "allgather") ? 1 : ranks);
    return cap ? 63 - __builtin_clzll(cap) : -1;
}

/* One file of the learned selection (libvred-mpi's cache, src/mpi/learn_cache.c): its key, then
 * per collective and size class the pick and the median time of each candidate. */
static void print_learned_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[4096];
    long ranks = 1;
    printf("  %s\n", path);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char coll[32], alg[32], lo[16], hi[16], range[40];
        int k, at = 0;
        if (line[0] == '#') continue;
        if (!strncmp(line, "key ", 4)) {
            /* key a=b;c=d;...: one field per line */
            for (char *tok = strtok(line + 4, ";"); tok; tok = strtok(NULL, ";")) {
                printf("    %s\n", tok);
                if (!strncmp(tok, "ranks=", 6) && atol(tok + 6) > 0) ranks = atol(tok + 6);
            }
        } else if (sscanf(line, "%31s %d %31s %n", coll, &k, alg, &at) == 3 && k >= 0 && k < 62) {
            if (k == top_class(coll, ranks)) /* it serves every larger call too */
                snprintf(range, sizeof range, ">=%s", size_name(k, lo, sizeof lo));
            else
                snprintf(range, sizeof range, "%s-%s", size_name(k, lo, sizeof lo),
                         size_name(k + 1, hi, sizeof hi));
            printf("    %-15s %11s -> %-8s (%s)\n", coll, range, alg, line + at);
        }
    }
    fclose(f);
}

/* Where libvred-mpi keeps what it learned (VRED_LEARN), and every file there. */
static void print_learned(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (xdg && xdg[0] == '/') snprintf(dir, sizeof dir, "%s/vred/learned", xdg);
    else if (home && home[0] == '/') snprintf(dir, sizeof dir, "%s/.cache/vred/learned", home);
    else dir[0] = 0;
    printf("\nLearned selection (VRED_LEARN; per CPU, MPI, libvred build, communicator shape and link)\n");
    printf("  directory:       %s\n", dir[0] ? dir : "(none: no HOME or XDG_CACHE_HOME)");
    DIR *d = dir[0] ? opendir(dir) : NULL;
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 5 || strcmp(e->d_name + len - 4, ".txt")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        print_learned_file(path);
        n++;
    }
    if (d) closedir(d);
    if (!n) printf("  nothing learned yet (an MPI job with libvred-mpi learns at first use)\n");
}

static void usage(FILE *o)
{
    fprintf(o, "usage: vred-info [--kernels]\n"
               "  --kernels   list which ISA serves each (op, type) pair\n");
}

/* From which size the AVX2 and AVX-512 kernels read a shifted input in aligned lines, and the
 * pair form takes four vectors a trip (kernel.h), as every vred process that runs them measures
 * it. */
static void print_realign_from(void)
{
    static const struct {
        vred_isa isa;
        vred_realign_isa which;
        const char *what, *ratio;
    } isas[] = {
        {VRED_ISA_AVX2, VRED_REALIGN_AVX2_HALF,
         "avx2 kernels read an input 16 bytes off in aligned lines", "split loads / lines"},
        {VRED_ISA_AVX2, VRED_REALIGN_AVX2,
         "avx2 kernels read an input 4..28 bytes off (not 16; and the pair form) in aligned lines",
         "split loads / lines"},
        {VRED_ISA_AVX512, VRED_REALIGN_AVX512,
         "avx512 kernels read a misaligned input in aligned lines", "split loads / lines"},
        {VRED_ISA_AVX512, VRED_REALIGN_PAIR,
         "avx512 pair form (doubles at 4 mod 8) takes four vectors a trip", "two a trip / four"},
        {VRED_ISA_AVX2, VRED_REALIGN_AVX2_HALF_NEAR,
         "avx2 kernels, the output 16 bytes above that input in its page: lines",
         "split loads / lines"},
        {VRED_ISA_AVX2, VRED_REALIGN_AVX2_NEAR,
         "avx2 kernels, the output 4 bytes above that input in its page: lines", "split loads / lines"},
        {VRED_ISA_AVX512, VRED_REALIGN_AVX512_NEAR,
         "avx512 kernels, the output 16 bytes above that input in its page: lines",
         "split loads / lines"},
    };
    for (size_t k = 0; k < sizeof isas / sizeof *isas; k++) {
        if (!vred_isa_supported(isas[k].isa)) continue;
        int how = 0;
        double r[VRED_REALIGN_SIZES];
        size_t from = vred_realign_from_info(isas[k].which, &how, r);
        printf("  %s ", isas[k].what);
        if (from == SIZE_MAX) printf("at no size");
        else if (from <= 1) printf("at every size");
        else printf("from %zu KiB", from >> 10);
        if (how == VRED_REALIGN_SETTING) printf(" (VRED_REALIGN_FROM)");
        if (how == VRED_REALIGN_MEASURED) {
            printf(" (measured; %s at 4-128 KiB:", isas[k].ratio);
            for (int s = 0; s < VRED_REALIGN_SIZES; s++) printf(" %.2f", r[s]);
            printf(")");
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    ladder_len = (int)vred_isa_ladder(&ladder);
    int list_kernels = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kernels") == 0 || strcmp(argv[i], "-k") == 0)
            list_kernels = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    print_build();
    print_cpu();
    print_isa(list_kernels);
    print_topology();
    /* What the collectives take from the topology (src/local/topo.c): the adaptive copy's C and
     * the socket the socket-aware algorithms would put this process in. */
    const vred_topo *t = vred_topo_get();
    printf("  as vred sees it: C = %.1f MiB for the adaptive copy (LLC inclusive: %s), %d socket%s, "
           "this process on socket %d\n",
           vred_copy_cache_bytes() / 1048576.0,
           t->llc_inclusive < 0 ? "unknown" : yesno(t->llc_inclusive), t->sockets,
           t->sockets == 1 ? "" : "s", vred_topo_my_socket());
    /* The measured copy's form (copy.h), measured by this process as every vred process does. */
    double gain = 0;
    int string = vred_copy_string_form(&gain);
    if (gain > 0)
        printf("  measured copy from 4 KiB: %s (vector stores / string copy = %.2f)\n",
               string ? "the string copy (rep movsb)" : "vector stores", gain);
    else
        printf("  measured copy from 4 KiB: vector stores (no fast string copy on this CPU)\n");
    print_realign_from();
    print_learned();
    /* The between-node pair of the cost model is measured by libvred-mpi at run time (issue 17,
     * src/mpi/comm.c): there is nothing to read here but where it comes from. */
    printf("\nCost model between nodes (alpha_net, beta_net)\n");
    const char *tune = vred_config_get()->tune_file;
    if (tune)
        printf("  from VRED_TUNE_FILE %s (nothing measured)\n", tune);
    else
        printf("  measured by libvred-mpi on the first communicator that spans nodes: a ping-pong "
               "between rank 0 and\n  another node's first rank; VRED_STATS=1 prints it "
               "(`vred-stats rank=N link alpha_net_us=... gbit_s=...`)\n");
    printf("\nSettings (environment; value in effect, accepted values)\n");
    vred_config_print(stdout);
    return 0;
}
