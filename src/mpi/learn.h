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
 * call), and store the pick in vc->learned; rank 0 adds it to the cache file. */
void vred_learn(vred_comm *vc, vred_coll coll, int k);

/* learn_cache.c: rank 0's side. The cache file for vc's shape ("" if there is no cache
 * directory) and its key line; read the cells it holds into l; replace one cell's line; read
 * one cell's line. */
typedef struct {
    char path[4096];
    char key[2048];
} vred_learn_file;
void vred_learn_file_for(const vred_comm *vc, vred_learn_file *f);
void vred_learn_file_read(const vred_learn_file *f, vred_learned *l);
int vred_learn_file_put(const vred_learn_file *f, vred_coll coll, int k, const char *line);
/* The kept line of cell (coll, k) into line: 0, or -1 if the file holds none. */
int vred_learn_file_cell(const vred_learn_file *f, vred_coll coll, int k, char *line,
                         size_t size);

#endif
