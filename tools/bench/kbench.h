/* Subcommands of vred-kbench, one file each: argc/argv after the subcommand name. */
#ifndef VRED_KBENCH_H
#define VRED_KBENCH_H

int kbench_sparse(int argc, char **argv);  /* kbench_sparse.c: pack/unpack rates vs density */
int kbench_threads(int argc, char **argv); /* kbench_threads.c: 1 vs N threads, 64 KiB-128 MiB */
int kbench_copy(int argc, char **argv);    /* kbench_copy.c: slice copy, memmove / t-copy / nt-copy */
int kbench_align(int argc, char **argv);   /* kbench_align.c: folds and copies at buffer offsets */
int kbench_xcore(int argc, char **argv);   /* kbench_xcore.c: one core reading another's writes */

#endif
