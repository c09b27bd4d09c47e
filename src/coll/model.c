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
#include "coll/coll.h"

/*
 * Measured on the development machine (2 cores, AVX-512), 2 ranks, `vred-bench tune`, quiet:
 * alpha/beta by ping-pong (8 B; slope 1 -> 16 MiB), gamma from MPI_Reduce_local f32 SUM on
 * 16 MiB, the net pair over Open MPI's TCP (`--mca btl tcp,self`, VRED_NODE_SIZE=1).
 * mpi_min_bytes: below it the MPI's own algorithm was faster on every size measured. Open MPI's
 * shared-memory reduce and scan are strong at small sizes; MPICH 4.0's lose to vred everywhere.
 * The library is built once per MPI, so each gets its own row.
 */
static const vred_model builtin = {
#if defined(OPEN_MPI)
    .alpha_node = 2.7e-7,
    .beta_node = 1.34e-10,
    .mpi_min_bytes = {[VRED_COLL_REDUCE] = 1 << 20, [VRED_COLL_ALLREDUCE] = 2048,
                      [VRED_COLL_REDUCE_SCATTER] = 2048, [VRED_COLL_SCAN] = 2 << 20,
                      [VRED_COLL_BCAST] = 16 << 20, [VRED_COLL_ALLGATHER] = 128 << 20},
#else
    .alpha_node = 3.5e-7,
    .beta_node = 1.08e-10,
    .mpi_min_bytes = {[VRED_COLL_BCAST] = 16 << 20, [VRED_COLL_ALLGATHER] = 128 << 20},
#endif
    .alpha_net = 3.8e-6,
    .beta_net = 2.3e-10,
    .gamma = 1.33e-10,
    /* bench/run_shm.sh, 2 ranks, both MPIs (docs/shm.md): DPML-like beats MA at 4 KiB, ties
     * at 16 KiB, loses by 4-10% from 32 KiB (Open MPI; MPICH's allreduce ties to 64 KiB); the
     * MPI's single-copy ring beats MA for allreduce at 1-4 MiB (1.6x against 1.4x of Open MPI's
     * time) and for reduce_scatter from 64 KiB to 16 MiB. */
    .shm_dpml_max = 16 << 10,
    .p2p_node_min = {[VRED_COLL_ALLREDUCE] = 1 << 20, [VRED_COLL_REDUCE_SCATTER] = 64 << 10},
    .p2p_node_max = {[VRED_COLL_ALLREDUCE] = 16 << 20, [VRED_COLL_REDUCE_SCATTER] = 32 << 20},
};

typedef struct {
    const char *name;
    size_t offset;
} field;

#define F(x) {#x, offsetof(vred_model, x)}
static const field fields[] = {
    F(alpha_node), F(beta_node), F(alpha_net), F(beta_net), F(gamma), F(shm_dpml_max),
    {"mpi_min_bytes_reduce", offsetof(vred_model, mpi_min_bytes[VRED_COLL_REDUCE])},
    {"mpi_min_bytes_allreduce", offsetof(vred_model, mpi_min_bytes[VRED_COLL_ALLREDUCE])},
    {"mpi_min_bytes_reduce_scatter", offsetof(vred_model, mpi_min_bytes[VRED_COLL_REDUCE_SCATTER])},
    {"mpi_min_bytes_scan", offsetof(vred_model, mpi_min_bytes[VRED_COLL_SCAN])},
    {"mpi_min_bytes_bcast", offsetof(vred_model, mpi_min_bytes[VRED_COLL_BCAST])},
    {"mpi_min_bytes_allgather", offsetof(vred_model, mpi_min_bytes[VRED_COLL_ALLGATHER])},
    {"p2p_node_min_allreduce", offsetof(vred_model, p2p_node_min[VRED_COLL_ALLREDUCE])},
    {"p2p_node_max_allreduce", offsetof(vred_model, p2p_node_max[VRED_COLL_ALLREDUCE])},
    {"p2p_node_min_reduce_scatter", offsetof(vred_model, p2p_node_min[VRED_COLL_REDUCE_SCATTER])},
    {"p2p_node_max_reduce_scatter", offsetof(vred_model, p2p_node_max[VRED_COLL_REDUCE_SCATTER])},
};
#undef F
enum { NFIELDS = sizeof fields / sizeof fields[0] };

void vred_model_load(vred_model *m)
{
    *m = builtin;
    const char *path = vred_config_get()->tune_file;
    if (!path) return;
    /* Read for every communicator vred serves; what is wrong with the file is said once. */
    static int said;
    int quiet = __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!quiet)
            fprintf(stderr,
                    "vred: VRED_TUNE_FILE '%s' cannot be read; using the built-in model\n", path);
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
            if (!quiet)
                fprintf(stderr,
                        "vred: %s:%d: not a 'name value' line of a known parameter; ignored\n",
                        path, lineno);
            continue;
        }
        *(double *)((char *)m + fields[k].offset) = v;
    }
    fclose(f);
}
