/* The next library's PMPI_<X> (next.h): resolved once, on first use. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "next.h"

vred_next_fns vred_next_table;
int vred_next_ready;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *find(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        /* Not expected: libvred-mpi.so is linked against the MPI library, which defines them
         * all. Reached if the library was loaded in a way that hides the MPI behind it. */
        const char *why = dlerror();
        fprintf(stderr,
                "vred: fatal: no %s after libvred-mpi.so (%s); load libvred-mpi.so before the "
                "MPI library (LD_PRELOAD, or -lvred-mpi before -lmpi)\n",
                name, why ? why : "not found");
        abort();
    }
    return f;
}

static void resolve(void)
{
#define VRED_NEXT_FIND(name) vred_next_table.name = (__typeof__(PMPI_##name) *)find("PMPI_" #name);
    VRED_NEXT_FUNCS(VRED_NEXT_FIND) VRED_NEXT_FUNCS_C(VRED_NEXT_FIND)
#undef VRED_NEXT_FIND
    __atomic_store_n(&vred_next_ready, 1, __ATOMIC_RELEASE);
}

const vred_next_fns *vred_next_resolve(void)
{
    pthread_once(&once, resolve);
    return &vred_next_table;
}
