/*
 * What this process holds, for the leak and growth checks of the MPI tests (shm_safety.c,
 * soak_mixed.c): resident KiB, KiB malloc'ed and not freed, mappings, open descriptors.
 */
#ifndef VRED_TEST_PROC_USAGE_H
#define VRED_TEST_PROC_USAGE_H

long usage_rss_kib(void);
long usage_heap_kib(void);
long usage_maps(void);
long usage_fds(void);

#endif
