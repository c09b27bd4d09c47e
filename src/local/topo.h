/*
 * What the collectives need to know of the machine: cache sizes (for the adaptive copy) and
 * which socket (package, or NUMA node when packages are not told apart) the calling process
 * runs on (for the socket-aware algorithms). hwloc when built with it, else sysfs.
 */
#ifndef VRED_TOPO_H
#define VRED_TOPO_H

#include <stddef.h>

typedef struct {
    size_t llc_bytes;      /* one last-level cache */
    size_t private_bytes;  /* the next level down, per core (e.g. L2; divided among the cores
                              when a cluster of cores shares it) */
    int llc_inclusive;     /* 1 if the last level holds copies of the levels below, 0 if not
                              (hwloc's "Inclusive" info, or CPUID on x86); -1 unknown */
    int cores;             /* cores of the machine */
    int cores_per_llc;     /* cores sharing one last-level cache */
    int sockets;           /* packages (or NUMA nodes) of the machine; >= 1 */
} vred_topo;

/* The machine, detected once (thread-safe). Never fails: what cannot be read keeps a default
 * (LLC 8 MiB, private 1 MiB, 1 socket, cores from sysconf). */
const vred_topo *vred_topo_get(void);

/* The socket the calling thread's CPU affinity lies in, 0..sockets-1; -1 if it spans several or
 * cannot be told. */
int vred_topo_my_socket(void);

#endif
