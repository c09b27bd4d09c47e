/*
 * The learned selection (VRED_LEARN; docs/collectives.md, "Learned selection"): whether vred or
 * the MPI underneath serves a collective at a size class, and with which of vred's algorithms,
 * measured on this machine the first time the class is met and kept in the user's cache
 * directory, one file per (CPU, ISA, MPI library, libvred build, communicator shape, knobs).
 */
#ifndef VRED_MPI_LEARN_H
#define VRED_MPI_LEARN_H

#include "coll/coll.h"

/* At communicator creation, collective over vc->comm: rank 0 reads what is cached for vc's
 * shape into vc->learned and broadcasts it. MPI_SUCCESS or the broadcast's error. */
int vred_learn_load(vred_comm *vc);

/* Measure (coll, class k) on vc, collective over vc->comm (every rank calls it on the same
 * call), and store the pick in vc->learned; rank 0 adds it to the cache file. user: the
 * application's communicator whose state vc is (vred's candidates are timed through it). */
void vred_learn(vred_comm *vc, MPI_Comm user, vred_coll coll, int k);

/* learn_cache.c: rank 0's side. The cache file for vc's shape ("" if there is no cache
 * directory) and its key line; read the cells it holds into l; replace one cell's line; read
 * one cell's line. */
typedef struct {
    char path[4096];
    char key[2048];
    unsigned long long hash; /* the key's, which names the file */
} vred_learn_file;
void vred_learn_file_for(const vred_comm *vc, vred_learn_file *f);
void vred_learn_file_read(const vred_learn_file *f, vred_learned *l);
int vred_learn_file_put(const vred_learn_file *f, vred_coll coll, int k, const char *line);
/* The kept line of cell (coll, k) into line: 0, or -1 if the file holds none. */
int vred_learn_file_cell(const vred_learn_file *f, vred_coll coll, int k, char *line,
                         size_t size);

/* learn_runs.c: a close call followed over runs (learn_pick.h, VRED_LEARN_RUNS). After (coll,
 * k) was measured on vc (med[]: the candidates' medians, names[]: "ALG" or "ALG/nt", [0] the
 * MPI; *best the run's pick): where that verdict is a close call, or earlier runs began to follow
 * the cell, the pick over the runs into *best (every rank alike: collective over vc->comm where
 * it applies, which every rank decides alike) and the cell line's history into text (rank 0).
 * add = 0 (a run in a slow spell): the kept runs decide and stay as they are. Returns the runs
 * the cell now holds (0: not followed). */
int vred_learn_runs_follow(vred_comm *vc, vred_coll coll, int k, const char *const *names,
                           int nc, const double *med, int add, int *best, char *text,
                           size_t size);
/* Rank 0: this process measured (or took from the file) cell (coll, k) of f's key. */
void vred_learn_runs_mark(const vred_learn_file *f, vred_coll coll, int k);
/* Rank 0, after vred_learn_file_read: a followed cell this process has already measured or
 * taken is not due again in this run (a communicator made later reads the count it wrote). */
void vred_learn_runs_settle(const vred_learn_file *f, vred_learned *l);

#endif
