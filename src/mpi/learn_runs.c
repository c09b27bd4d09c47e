/*
 * A close call followed over runs (learn_pick.h, VRED_LEARN_RUNS; docs/collectives.md, "Close
 * calls over runs"). The MPI alone can run at one of two speeds for a whole launch, so one
 * calibration of a close call sees one of them. Such a cell keeps, in its cache line, each of
 * vred's candidates' median time over the MPI's in every run that measured it:
 *
 *   bcast 12 mpi mpi=7.19e-07 pipe=7.38e-07 ... close=3 pipe/mpi=1.056,0.902,0.964 cma/mpi=...
 *
 * learn_cache.c makes a cell with close=N < VRED_LEARN_RUNS due again in the next run (unless
 * a spell mark says when: the spell rule's own), vred_learn measures it, and this file adds the
 * run's ratios and picks on each candidate's median over the runs. Only rank 0 reads and writes
 * the file; the pick and the count reach every rank by one broadcast.
 *
 * Once per run: the cell's line is read by a communicator when it is made, and communicators of
 * one shape are often made at different times (a library's duplicate of MPI_COMM_WORLD at its
 * first call). One made after another has measured the class would find it due again and add a
 * second run of the same launch, so rank 0 keeps a record of the cells this process measured or
 * took from the file (vred_learn_runs_mark), and a communicator made later leaves those be
 * (vred_learn_runs_settle).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/learn.h"
#include "mpi/learn_pick.h"
#include "next/next.h"

/* Calls of at most this long are followed: each later run measures the class again, tens of
 * milliseconds at these sizes where a 64 MiB class takes up to a second; the launch-to-launch
 * modes seen so far were those of small calls (docs/peers.md). A followed class whose MPI call
 * takes longer in a later run (the machine loaded) ends with that run's verdict. */
static const double FOLLOW_MAX_S = 1e-3;

/* The earlier runs' ratios of cell (coll, k) from rank 0's file into ratio[0..N); N, or 0 where
 * the kept line has none for exactly these candidates (a set that changed, a line edited). */
static int kept_runs(const vred_comm *vc, vred_coll coll, int k, const char *const *names,
                     int nc, double ratio[][VRED_LEARN_MAX_CAND])
{
    vred_learn_file f;
    char line[1024], token[48];
    vred_learn_file_for(vc, &f);
    if (vred_learn_file_cell(&f, coll, k, line, sizeof line)) return 0;
    const char *at = strstr(line, " close=");
    long n = at ? strtol(at + 7, NULL, 10) : 0;
    if (n < 1 || n >= VRED_LEARN_RUNS) return 0;
    for (long r = 0; r < n; r++) ratio[r][0] = 1;
    for (int i = 1; i < nc; i++) {
        snprintf(token, sizeof token, " %s/mpi=", names[i]); /* the space: not " cma/" for "ma" */
        const char *p = strstr(line, token);
        if (!p) return 0;
        p += strlen(token);
        for (long r = 0; r < n; r++) {
            char *end;
            double v = strtod(p, &end);
            if (end == p || !(v > 0 && v < 1e30)) return 0; /* a positive finite ratio */
            if (r < n - 1 && *end != ',') return 0;          /* and a comma before the next */
            ratio[r][i] = v;
            p = end + (r < n - 1);
        }
        if (*p && *p != ' ') return 0; /* more runs than close=N says */
    }
    return (int)n;
}

/* " close=N ALG/mpi=r1,...,rN ..." for the cell line: 0, or -1 if it does not fit in size (then
 * the cell is not followed: a history cut short would be read as another one). */
static int runs_text(char *buf, size_t size, const char *const *names, int nc,
                     double ratio[][VRED_LEARN_MAX_CAND], int runs)
{
    int n = snprintf(buf, size, " close=%d", runs);
    for (int i = 1; i < nc && n > 0 && (size_t)n < size; i++) {
        n += snprintf(buf + n, size - (size_t)n, " %s/mpi=", names[i]);
        for (int r = 0; r < runs && n > 0 && (size_t)n < size; r++)
            n += snprintf(buf + n, size - (size_t)n, "%s%.4g", r ? "," : "", ratio[r][i]);
    }
    if (n > 0 && (size_t)n < size) return 0;
    buf[0] = 0;
    return -1;
}

int vred_learn_runs_follow(vred_comm *vc, vred_coll coll, int k, const char *const *names,
                           int nc, const double *med, int add, int *best, char *text,
                           size_t size)
{
    int before = vc->learned.close_runs[coll][k];
    int follow = vc->learned.mode == VRED_LEARN_ON && before > 0 && before < VRED_LEARN_RUNS;
    text[0] = 0;
    if (!follow && (!add || !vred_learn_close_call(med, nc))) return 0;
    if (add && (!(med[0] > 0) || med[0] > FOLLOW_MAX_S)) return 0;
    int got[2] = {*best, 0}; /* the pick, the runs */
    if (vc->rank == 0) {
        double ratio[VRED_LEARN_RUNS][VRED_LEARN_MAX_CAND];
        int runs = follow ? kept_runs(vc, coll, k, names, nc, ratio) : 0;
        if (add) {
            for (int i = 0; i < nc; i++) ratio[runs][i] = med[i] / med[0];
            runs++;
        }
        if (runs && runs_text(text, size, names, nc, ratio, runs) == 0)
            got[0] = vred_learn_pick_runs(ratio, runs, nc), got[1] = runs;
    }
    if (vred_next()->Bcast(got, 2, MPI_INT, 0, vc->comm) != MPI_SUCCESS) {
        text[0] = 0;
        return 0;
    }
    if (got[0] >= 0 && got[0] < nc) *best = got[0];
    return got[1];
}

/* The cells this process has measured or taken, per cache file (its key's hash, f->hash);
 * files beyond MARKED_FILES are not recorded (their followed cells may then be measured twice
 * in a run). */
enum { MARKED_FILES = 16 };
static struct {
    uint64_t key;
    unsigned char cell[VRED_COLL_COUNT][VRED_LEARN_CLASSES];
} marked[MARKED_FILES];
static int nmarked;
static pthread_mutex_t marked_lock = PTHREAD_MUTEX_INITIALIZER;

/* marked[] slot of f's key, made if `make` and there is room; -1 if none (marked_lock held). */
static int slot_of(const vred_learn_file *f, int make)
{
    uint64_t h = f->hash;
    for (int i = 0; i < nmarked; i++)
        if (marked[i].key == h) return i;
    if (!make || nmarked == MARKED_FILES) return -1;
    memset(&marked[nmarked], 0, sizeof marked[nmarked]);
    marked[nmarked].key = h;
    return nmarked++;
}

void vred_learn_runs_mark(const vred_learn_file *f, vred_coll coll, int k)
{
    pthread_mutex_lock(&marked_lock);
    int i = slot_of(f, 1);
    if (i >= 0) marked[i].cell[coll][k] = 1;
    pthread_mutex_unlock(&marked_lock);
}

void vred_learn_runs_settle(const vred_learn_file *f, vred_learned *l)
{
    pthread_mutex_lock(&marked_lock);
    int i = slot_of(f, 0);
    for (int c = 0; i >= 0 && c < VRED_COLL_COUNT; c++)
        for (int k = 0; k < VRED_LEARN_CLASSES; k++)
            if (marked[i].cell[c][k] && l->close_runs[c][k] && !l->spell_runs[c][k])
                l->spell[c][k] = 0;
    pthread_mutex_unlock(&marked_lock);
}
