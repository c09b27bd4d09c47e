/* The next library's PMPI_<X>, and whether a PMPI tool sits above vred (next.h): resolved once,
 * on first use. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "next/next.h"

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

/* 1 if the first definition of name in the global lookup order is another object's: a PMPI
 * tool (or the executable) defines MPI_<X> before vred does. dli_saddr == f rules out a non-PIE
 * executable's PLT stub, which dlsym may return for a function whose address it takes. */
int vred_next_other_first(const char *name)
{
    Dl_info self, first;
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f || !dladdr((void *)find, &self) || !dladdr(f, &first)) return 0;
    return first.dli_saddr == f && first.dli_fbase != self.dli_fbase;
}

static void resolve(void)
{
#define VRED_NEXT_FIND(name)                                                                    \
    vred_next_table.name = (__typeof__(PMPI_##name) *)find("PMPI_" #name);                      \
    vred_next_table.tool_above[VRED_NEXT_ID_##name] =                                           \
        (unsigned char)vred_next_other_first("MPI_" #name);
    VRED_NEXT_FUNCS(VRED_NEXT_FIND) VRED_NEXT_FUNCS_C(VRED_NEXT_FIND)
#undef VRED_NEXT_FIND
    __atomic_store_n(&vred_next_ready, 1, __ATOMIC_RELEASE);
}

const vred_next_fns *vred_next_resolve(void)
{
    pthread_once(&once, resolve);
    return &vred_next_table;
}
