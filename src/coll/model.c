/*
 * The cost model's parameters: built-in values measured on the development machine (see
 * docs/collectives.md for the runs), or a file written by `vred-bench tune` (VRED_TUNE_FILE):
 * lines of `name value`, '#' comments. An unknown name or a bad value is reported once and
 * ignored.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"

static const vred_model builtin = {
    /* Open MPI 4.1.4 and MPICH 4.0.2 shared-memory path, 2 ranks (vred-bench tune). */
    .alpha_node = 1.0e-6,
    .beta_node = 1.0 / 8.0e9,
    /* TCP over loopback (`--mca btl tcp,self`), 2 ranks. */
    .alpha_net = 15e-6,
    .beta_net = 1.0 / 3.4e9,
    /* The AVX-512 float SUM kernel from memory (per byte of one operand). */
    .gamma = 1.0 / 12e9,
    .mpi_min_bytes = {[VRED_COLL_REDUCE] = 0, [VRED_COLL_ALLREDUCE] = 0,
                      [VRED_COLL_REDUCE_SCATTER] = 0, [VRED_COLL_SCAN] = 0},
};

typedef struct {
    const char *name;
    size_t offset;
} field;

#define F(x) {#x, offsetof(vred_model, x)}
static const field fields[] = {
    F(alpha_node), F(beta_node), F(alpha_net), F(beta_net), F(gamma),
    {"mpi_min_bytes_reduce", offsetof(vred_model, mpi_min_bytes[VRED_COLL_REDUCE])},
    {"mpi_min_bytes_allreduce", offsetof(vred_model, mpi_min_bytes[VRED_COLL_ALLREDUCE])},
    {"mpi_min_bytes_reduce_scatter", offsetof(vred_model, mpi_min_bytes[VRED_COLL_REDUCE_SCATTER])},
    {"mpi_min_bytes_scan", offsetof(vred_model, mpi_min_bytes[VRED_COLL_SCAN])},
};
#undef F
enum { NFIELDS = sizeof fields / sizeof fields[0] };

void vred_model_load(vred_model *m)
{
    *m = builtin;
    const char *path = vred_config_get()->tune_file;
    if (!path) return;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "vred: VRED_TUNE_FILE '%s' cannot be read; using the built-in model\n",
                path);
        return;
    }
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char name[64];
        double v;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        int got = sscanf(line, "%63s %lf", name, &v);
        if (got <= 0) continue;
        int k = 0;
        while (k < NFIELDS && strcmp(fields[k].name, name)) k++;
        if (got != 2 || k == NFIELDS || !(v >= 0)) {
            fprintf(stderr, "vred: %s:%d: not a 'name value' line of a known parameter; ignored\n",
                    path, lineno);
            continue;
        }
        *(double *)((char *)m + fields[k].offset) = v;
    }
    fclose(f);
}

int vred_model_write(const vred_model *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "# vred cost model (alpha: s per message, beta: s per byte, gamma: s per byte "
               "reduced)\n");
    for (int k = 0; k < NFIELDS; k++)
        fprintf(f, "%s %.6g\n", fields[k].name, *(const double *)((const char *)m + fields[k].offset));
    return fclose(f);
}
