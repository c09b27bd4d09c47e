/*
 * Datatypes with holes (MPI_DOUBLE_INT: 12 bytes in 16; MPI_LONG_INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT): the MPI reads and writes only the bytes of the type map, so a program
 * may keep its own data in the holes (a struct {double v; int i; int tag;} reduced as
 * MPI_DOUBLE_INT keeps its tags) and may pass buffers that end at the last element's true
 * extent. vred's collectives move whole elements, so they pass such datatypes to the MPI;
 * MPI_Reduce_local serves them with its kernels but stops at the true extent. Checked here:
 *
 *   1. MPI_Allreduce, MPI_Reduce, MPI_Reduce_scatter_block and MPI_Scan under MAXLOC, with
 *      every vred algorithm of the collective forced in turn and the automatic choice: the
 *      result's significant bytes equal the MPI's own (PMPI_) and every hole of the receive
 *      buffer keeps the tag written there;
 *   2. MPI_Reduce_local the same (holes of inout kept);
 *   3. buffers of (n - 1) extent + true extent bytes that end where a PROT_NONE page begins,
 *      for MPI_Reduce_local (n = 1 and 1000) and MPI_Allreduce (forced to a vred algorithm):
 *      no fault, the MPI's result.
 *
 * Before vred passed these datatypes on, 1 found every tag overwritten (allreduce by "ma" and
 * "cma") and 3 ended in SIGSEGV. Run on 1+ ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { N = 1000, TAG = 0x5A };

typedef struct {
    const char *name;
    MPI_Datatype type;
    int kind;   /* the value's C type: 0 double, 1 long, 2 short, 3 long double */
    int index;  /* the index's offset */
} pair_type;

static int rank, size, failures;

static void fail(const char *what, const char *type, const char *alg)
{
    if (failures++ < 20) printf("FAIL rank %d: %s %s (alg %s)\n", rank, type, what, alg);
}

/* The bytes of one element the MPI moves (1) and the holes (0): a copy by the MPI itself of an
 * element of zeros over one of 0xFF leaves the holes at 0xFF. */
static void significant(MPI_Datatype t, size_t ext, unsigned char *mask)
{
    unsigned char src[64], dst[64];
    memset(src, 0, sizeof src);
    memset(dst, 0xFF, sizeof dst);
    PMPI_Sendrecv(src, 1, t, 0, 7, dst, 1, t, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    for (size_t k = 0; k < ext; k++) mask[k] = dst[k] == 0;
}

/* Element i of rank r's input: values with ties (MAXLOC takes the lower index), holes TAG. */
static void fill(const pair_type *p, size_t ext, const unsigned char *mask, unsigned char *buf,
                 size_t n, int r)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = buf + i * ext;
        for (size_t k = 0; k < ext; k++) e[k] = mask[k] ? 0 : TAG;
        int v = (int)((i * 7 + (size_t)r * 3) % 5), idx = r * 1000 + (int)i;
        switch (p->kind) {
        case 0: { double d = v; memcpy(e, &d, sizeof d); break; }
        case 1: { long l = v; memcpy(e, &l, sizeof l); break; }
        case 2: { short s = (short)v; memcpy(e, &s, sizeof s); break; }
        default: { long double x = v; memcpy(e, &x, sizeof x); break; }
        }
        memcpy(e + p->index, &idx, sizeof idx);
    }
}

/* vred's result against the MPI's on the significant bytes, and vred's holes still TAG. */
static void compare(const pair_type *p, size_t ext, const unsigned char *mask,
                    const unsigned char *got, const unsigned char *want, size_t n,
                    const char *what, const char *alg)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < ext; k++) {
            unsigned char g = got[i * ext + k];
            /* x87 long double: the 6 unused bytes of the value are the MPI's to fill */
            int unused = p->kind == 3 && k >= 10 && k < 16;
            if (mask[k] && !unused && g != want[i * ext + k]) {
                fail(what, p->name, alg);
                return;
            }
            if (!mask[k] && g != TAG) {
                char w[96];
                snprintf(w, sizeof w, "%s: a hole overwritten (element %zu, byte %zu)", what, i, k);
                fail(w, p->name, alg);
                return;
            }
        }
}

/* One collective through vred (MPI_X) and the MPI (PMPI_X) on the same inputs. */
static void one(const pair_type *p, size_t ext, const unsigned char *mask, const char *coll,
                const char *alg)
{
    size_t bytes = (size_t)N * ext;
    unsigned char *in = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    fill(p, ext, mask, in, N, rank);
    fill(p, ext, mask, got, N, -1); /* holes TAG, values overwritten by the call */
    memcpy(want, got, bytes);
    MPI_Comm w = MPI_COMM_WORLD;
    int n = N, block = N / size, rc1, rc2;
    if (!strcmp(coll, "allreduce")) {
        rc1 = MPI_Allreduce(in, got, n, p->type, MPI_MAXLOC, w);
        rc2 = PMPI_Allreduce(in, want, n, p->type, MPI_MAXLOC, w);
    } else if (!strcmp(coll, "reduce")) {
        rc1 = MPI_Reduce(in, got, n, p->type, MPI_MAXLOC, size - 1, w);
        rc2 = PMPI_Reduce(in, want, n, p->type, MPI_MAXLOC, size - 1, w);
        if (rank != size - 1) n = 0;
    } else if (!strcmp(coll, "reduce_scatter")) {
        rc1 = MPI_Reduce_scatter_block(in, got, block, p->type, MPI_MAXLOC, w);
        rc2 = PMPI_Reduce_scatter_block(in, want, block, p->type, MPI_MAXLOC, w);
        n = block;
    } else {
        rc1 = MPI_Scan(in, got, n, p->type, MPI_MAXLOC, w);
        rc2 = PMPI_Scan(in, want, n, p->type, MPI_MAXLOC, w);
    }
    char what[64];
    snprintf(what, sizeof what, "%s", coll);
    if (rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS) fail("returned an error", p->name, alg);
    else compare(p, ext, mask, got, want, (size_t)n, what, alg);
    free(in), free(got), free(want);
}

/* A buffer of `bytes` that ends where an inaccessible page begins. */
static unsigned char *at_page_end(size_t bytes, void **map, size_t *len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + pg - 1) / pg * pg;
    *len = body + pg;
    unsigned char *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (m == MAP_FAILED) return NULL;
    mprotect(m + body, pg, PROT_NONE);
    *map = m;
    return m + body - bytes;
}

/* 2 and 3: MPI_Reduce_local (holes kept; short buffers) and a short-buffered allreduce. */
static void short_buffers(const pair_type *p, size_t ext, const unsigned char *mask,
                          size_t text, const char *alg)
{
    static const int counts[] = {1, N};
    for (int c = 0; c < 2; c++) {
        size_t n = (size_t)counts[c], bytes = (n - 1) * ext + text, full = n * ext;
        void *m1, *m2;
        size_t l1, l2;
        unsigned char *in = at_page_end(bytes, &m1, &l1), *io = at_page_end(bytes, &m2, &l2);
        unsigned char *a = malloc(full), *b = malloc(full), *want = malloc(full);
        if (!in || !io || !a || !b || !want) {
            fail("could not allocate", p->name, alg);
            return;
        }
        fill(p, ext, mask, a, n, rank);
        fill(p, ext, mask, b, n, rank + 1);
        memcpy(in, a, bytes);
        memcpy(io, b, bytes);
        memcpy(want, b, full);
        if (MPI_Reduce_local(in, io, (int)n, p->type, MPI_MAXLOC) != MPI_SUCCESS ||
            PMPI_Reduce_local(a, want, (int)n, p->type, MPI_MAXLOC) != MPI_SUCCESS)
            fail("reduce_local returned an error", p->name, alg);
        else {
            memcpy(b, io, bytes); /* the last element's trailing holes: TAG from fill */
            compare(p, ext, mask, b, want, n, "reduce_local at a page's end", "local");
        }
        fill(p, ext, mask, b, n, -1);
        memcpy(io, b, bytes);
        memcpy(want, b, full);
        if (MPI_Allreduce(in, io, (int)n, p->type, MPI_MAXLOC, MPI_COMM_WORLD) != MPI_SUCCESS ||
            PMPI_Allreduce(a, want, (int)n, p->type, MPI_MAXLOC, MPI_COMM_WORLD) != MPI_SUCCESS)
            fail("allreduce at a page's end returned an error", p->name, alg);
        else {
            memcpy(b, io, bytes);
            compare(p, ext, mask, b, want, n, "allreduce at a page's end", alg);
        }
        munmap(m1, l1), munmap(m2, l2);
        free(a), free(b), free(want);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const pair_type types[] = {{"MPI_DOUBLE_INT", MPI_DOUBLE_INT, 0, 8},
                               {"MPI_LONG_INT", MPI_LONG_INT, 1, 8},
                               {"MPI_SHORT_INT", MPI_SHORT_INT, 2, 4},
                               {"MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, 3, 16}};
    static const char *const colls[][5] = {
        {"allreduce", "ma", "cma", "dpml", "ring"},
        {"reduce", "ma", "cma", "binomial", "dpml"},
        {"reduce_scatter", "ma", "cma", "ring", "redscat"},
        {"scan", "recdbl", "recdbl", "recdbl", "recdbl"}};
    int tested = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const pair_type *p = &types[t];
        MPI_Aint lb, ext, tlb, text;
        int tsize;
        if (p->type == MPI_DATATYPE_NULL) continue;
        MPI_Type_size(p->type, &tsize);
        MPI_Type_get_extent(p->type, &lb, &ext);
        MPI_Type_get_true_extent(p->type, &tlb, &text);
        if (tsize >= ext || ext > 64) continue; /* no holes in this MPI's layout */
        unsigned char mask[64];
        significant(p->type, (size_t)ext, mask);
        tested++;
        for (int c = 0; c < 4; c++)
            for (int g = 0; g < 5; g++) {
                const char *alg = g ? colls[c][g] : "auto";
                if (vred_mpi_force) vred_mpi_force(colls[c][0], alg);
                one(p, (size_t)ext, mask, colls[c][0], alg);
            }
        if (vred_mpi_force) vred_mpi_force("allreduce", "ma");
        short_buffers(p, (size_t)ext, mask, (size_t)text, "ma");
        if (vred_mpi_force) vred_mpi_force("allreduce", "auto");
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("holes: %d ranks, %d datatypes with holes, %d failures%s\n", size, tested, all,
               vred_mpi_force ? "" : " (vred not linked)");
    MPI_Finalize();
    return all != 0;
}
