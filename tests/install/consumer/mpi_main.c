/* MPI consumer of an installed libvred-mpi.so (tests/install): MPI_Reduce_local must be the one
 * in libvred-mpi, whether linked before the MPI (VRED_LINKED: also calls the vred_* API that
 * libvred-mpi.so exports, declared by the installed vred.h and vred_mpi.h) or preloaded into a
 * plain MPI program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#ifdef VRED_LINKED
#include <vred.h>
#include <vred_mpi.h>
#endif

int main(int argc, char **argv)
{
    signed char a[64], b[64];
    Dl_info info;
    void *f;
    int bad = 0;

    MPI_Init(&argc, &argv);
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 100;
    MPI_Reduce_local(a, b, 64, MPI_SIGNED_CHAR, MPI_SUM);
    for (int i = 0; i < 64; i++)
        bad |= b[i] != -56;
    /* The definition the dynamic linker binds first: interposition means it is vred's. */
    f = dlsym(RTLD_DEFAULT, "MPI_Reduce_local");
    if (!f || !dladdr(f, &info) || !info.dli_fname || !strstr(info.dli_fname, "libvred-mpi")) {
        fprintf(stderr, "MPI_Reduce_local is not vred's (from %s)\n",
                f && info.dli_fname ? info.dli_fname : "?");
        bad = 1;
    }
#ifdef VRED_LINKED
    /* vred_mpi.h: a collective forced to the MPI is the MPI's. */
    int x = 1, y = 0;
    if (vred_mpi_force("allreduce", "mpi") != 0) bad = 1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(vred_mpi_last_alg(), "mpi") || y != 1) bad = 1;
    printf("vred ISA %s; ", vred_isa_name(vred_isa_active()));
#endif
    printf("MPI_Reduce_local from %s: %s\n", info.dli_fname ? info.dli_fname : "?", bad ? "FAIL" : "ok");
    MPI_Finalize();
    return bad;
}
