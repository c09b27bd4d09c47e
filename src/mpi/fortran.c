/*
 * Fortran entry points (docs/fortran.md): what vred must define so that a Fortran program gets
 * what a C program gets, on each MPI.
 *
 * Open MPI: its Fortran bindings (libmpi_mpifh: mpif.h and `use mpi`; libmpi_usempif08:
 * `use mpi_f08`, which calls libmpi_mpifh's ompi_<x>_f) convert the handles and call the C
 * PMPI_<X> directly, which is the MPI's own unless a PMPI tool sits above vred (next/next.h): a
 * Fortran program would get nothing from vred. So libvred-mpi.so defines the same Fortran
 * symbols for every collective it serves, before the MPI's in the lookup order, and does what
 * Open MPI's binding does — PMPI_*_f2c on the handles, MPI_IN_PLACE and MPI_BOTTOM recognised
 * by the addresses of Open MPI's common blocks, ierror set when present — but calls vred's own
 * C front (the hidden vred_own_<X> of VRED_PMPI) where the binding calls PMPI_<X>. That front
 * serves the call or passes it to the MPI's PMPI_<X>: a call vred does not serve reaches the
 * MPI's C function with the very arguments Open MPI's binding would have given it, and
 * VRED_STATS counts it. A call whose handles do not convert (an invalid handle) goes to the
 * MPI's own Fortran binding unchanged, which reports the error as it always does.
 *
 * MPICH: its libmpifort calls the C MPI_<X> (vred's) for every collective in all three
 * bindings, and for MPI_INIT/MPI_FINALIZE in mpif.h and `use mpi`; only its mpi_f08
 * MPI_Init, MPI_Init_thread and MPI_Finalize call PMPI_*. So vred defines just those three.
 *
 * Both: vred wraps the Fortran MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE that bypass its C
 * fronts, to do around the MPI's own (called unchanged) what those fronts do (pmpi_hooks.h:
 * VRED_THREADS' default, the VRED_STATS summary, freeing what vred keeps).
 *
 * A PMPI tool above vred that wraps the Fortran calls (its mpi_allreduce_ calling
 * pmpi_allreduce_) keeps working by the C rules (docs/reliability.md): vred defines the pmpi_
 * names too, vred's entry when a tool's mpi_ name comes first, else the MPI's own.
 */
#define _GNU_SOURCE
#include <mpi.h>
#if defined(OPEN_MPI) || defined(MPICH)
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "next/next.h"
#include "vred.h"
#include "mpi/pmpi_hooks.h"


#ifdef OPEN_MPI
/* vred's C fronts, not through the global lookup (pmpi_*.c, VRED_PMPI). */
#define VRED_OWN_DECL(name)                                                                     \
    extern __typeof__(MPI_##name) vred_own_##name __attribute__((visibility("hidden")));
VRED_OWN_DECL(Reduce_local)
VRED_OWN_DECL(Reduce)
VRED_OWN_DECL(Allreduce)
VRED_OWN_DECL(Reduce_scatter_block)
VRED_OWN_DECL(Reduce_scatter)
VRED_OWN_DECL(Scan)
VRED_OWN_DECL(Exscan)
VRED_OWN_DECL(Bcast)
VRED_OWN_DECL(Allgather)
#undef VRED_OWN_DECL

/*
 * Every collective: lower-case name, upper-case name, the Fortran parameters (the same for
 * mpif.h/`use mpi` and, with ierror optional = possibly NULL, for Open MPI 4's mpi_f08
 * wrappers without subarray support: every argument by address, handles as MPI_Fint) and the
 * arguments.
 */
#define VRED_F_COLLS(X)                                                                         \
    X(reduce_local, REDUCE_LOCAL,                                                               \
      (const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,             \
       MPI_Fint *ierr),                                                                         \
      (sbuf, rbuf, count, type, op, ierr))                                                      \
    X(reduce, REDUCE,                                                                           \
      (const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,             \
       MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),                                         \
      (sbuf, rbuf, count, type, op, root, comm, ierr))                                          \
    X(allreduce, ALLREDUCE,                                                                     \
      (const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,             \
       MPI_Fint *comm, MPI_Fint *ierr),                                                         \
      (sbuf, rbuf, count, type, op, comm, ierr))                                                \
    X(reduce_scatter_block, REDUCE_SCATTER_BLOCK,                                               \
      (const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,             \
       MPI_Fint *comm, MPI_Fint *ierr),                                                         \
      (sbuf, rbuf, count, type, op, comm, ierr))                                                \
    X(reduce_scatter, REDUCE_SCATTER,                                                           \
      (const void *sbuf, void *rbuf, MPI_Fint *counts, MPI_Fint *type, MPI_Fint *op,            \
       MPI_Fint *comm, MPI_Fint *ierr),                                                         \
      (sbuf, rbuf, counts, type, op, comm, ierr))                                               \
    X(scan, SCAN,                                                                               \
      (const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,             \
       MPI_Fint *comm, MPI_Fint *ierr),                                                         \
      (sbuf, rbuf, count, type, op, comm, ierr))                                                \
    X(exscan, EXSCAN,                                                                           \
      (const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,             \
       MPI_Fint *comm, MPI_Fint *ierr),                                                         \
      (sbuf, rbuf, count, type, op, comm, ierr))                                                \
    X(bcast, BCAST,                                                                             \
      (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,              \
       MPI_Fint *ierr),                                                                         \
      (buf, count, type, root, comm, ierr))                                                     \
    X(allgather, ALLGATHER,                                                                     \
      (const void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,      \
       MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr),                                        \
      (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr))
#else
#define VRED_F_COLLS(X) /* MPICH: its bindings call vred's C fronts */
#endif

/* MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE (Open MPI: every binding; MPICH: mpi_f08) call
 * PMPI_Init(_thread)/PMPI_Finalize, not vred's C fronts; vred wraps them to run what those
 * fronts do around the MPI's (pmpi_hooks.h), passing the call itself to the MPI's Fortran
 * binding unchanged. */
#define VRED_F_HOOKS(X)                                                                         \
    X(init, INIT, (MPI_Fint *ierr), (ierr))                                                     \
    X(init_thread, INIT_THREAD, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr),       \
      (required, provided, ierr))                                                               \
    X(finalize, FINALIZE, (MPI_Fint *ierr), (ierr))

/* Each function has five names, id = function * 5 + k: the four manglings Open MPI's
 * libmpi_mpifh exports (one per Fortran compiler convention: plain, one underscore (gfortran),
 * two, upper case) and the mpi_f08 one. */
enum {
#define VRED_F_ID(lc, UC, params, args) VRED_F_##lc,
    VRED_F_COLLS(VRED_F_ID) VRED_F_HOOKS(VRED_F_ID)
#undef VRED_F_ID
    VRED_F_NCOLL
};
#define VRED_F_NAMES 5
#define VRED_F_NSYM (VRED_F_NCOLL * VRED_F_NAMES) /* NCOLL: the hooks included */

/* The profiling name of an mpi_f08 procedure: Open MPI pmpi_<x>_f08_, MPICH pmpir_<x>_f08_. */
#ifdef OPEN_MPI
#define VRED_F_P08_STR(lc) "pmpi_" #lc "_f08_"
#define VRED_F_P08_SYM(lc) pmpi_##lc##_f08_
#else
#define VRED_F_P08_STR(lc) "pmpir_" #lc "_f08_"
#define VRED_F_P08_SYM(lc) pmpir_##lc##_f08_
#endif

/* The mpi_ and pmpi_ names of every symbol, by id. */
static const char *const mpi_names[VRED_F_NSYM] = {
#define VRED_F_STR(lc, UC, params, args)                                                        \
    "mpi_" #lc, "mpi_" #lc "_", "mpi_" #lc "__", "MPI_" #UC, "mpi_" #lc "_f08_",
    VRED_F_COLLS(VRED_F_STR) VRED_F_HOOKS(VRED_F_STR)
#undef VRED_F_STR
};
static const char *const pmpi_names[VRED_F_NSYM] = {
#define VRED_F_STR(lc, UC, params, args)                                                        \
    "pmpi_" #lc, "pmpi_" #lc "_", "pmpi_" #lc "__", "PMPI_" #UC, VRED_F_P08_STR(lc),
    VRED_F_COLLS(VRED_F_STR) VRED_F_HOOKS(VRED_F_STR)
#undef VRED_F_STR
};

#ifdef OPEN_MPI
/* The addresses Open MPI's C binding compares buffers against (ompi/mpi/fortran/base/
 * constants.h): its common blocks, under whichever of the four manglings the MPI defines. The
 * program's copy if it has one (a copy relocation): dlsym(RTLD_DEFAULT) finds what the MPI's
 * own references bind to. */
static const char *const in_place_names[4] = {"MPI_FORTRAN_IN_PLACE", "mpi_fortran_in_place",
                                              "mpi_fortran_in_place_", "mpi_fortran_in_place__"};
static const char *const bottom_names[4] = {"MPI_FORTRAN_BOTTOM", "mpi_fortran_bottom",
                                            "mpi_fortran_bottom_", "mpi_fortran_bottom__"};
#endif

static struct {
    void *pnext[VRED_F_NSYM]; /* the MPI's pmpi_<x>... (RTLD_NEXT) */
    unsigned char tool_above[VRED_F_NSYM];
#ifdef OPEN_MPI
    const void *in_place[4], *bottom[4]; /* Open MPI's MPI_IN_PLACE and MPI_BOTTOM */
#endif
} ft;
static pthread_once_t ft_once = PTHREAD_ONCE_INIT;

static void ft_resolve(void)
{
    for (int i = 0; i < VRED_F_NSYM; i++) {
        ft.pnext[i] = dlsym(RTLD_NEXT, pmpi_names[i]);
        ft.tool_above[i] = (unsigned char)vred_next_other_first(mpi_names[i]);
    }
#ifdef OPEN_MPI
    for (int i = 0; i < 4; i++) {
        ft.in_place[i] = dlsym(RTLD_DEFAULT, in_place_names[i]);
        ft.bottom[i] = dlsym(RTLD_DEFAULT, bottom_names[i]);
    }
#endif
}

static inline void ft_init(void) { pthread_once(&ft_once, ft_resolve); }

/* The MPI's function `name` (pnext[]), or abort: a Fortran symbol vred defines but the
 * libraries after it do not (not expected: the MPI defines every one of them). */
static void *ft_need(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (!f) { /* a Fortran library loaded after the first call (dlopen): look again */
        f = dlsym(RTLD_NEXT, name);
        if (!f) {
            fprintf(stderr, "vred: fatal: no %s after libvred-mpi.so\n", name);
            abort();
        }
        __atomic_store_n(slot, f, __ATOMIC_RELAXED);
    }
    return f;
}

#ifdef OPEN_MPI
static inline int is_in(const void *p, const void *const set[4])
{
    return p && (p == set[0] || p == set[1] || p == set[2] || p == set[3]);
}
/* OMPI_F2C_IN_PLACE, OMPI_F2C_BOTTOM */
#define IN_PLACE(p) (is_in((p), ft.in_place) ? MPI_IN_PLACE : (p))
#define BOTTOM(p) (is_in((p), ft.bottom) ? MPI_BOTTOM : (p))

/* The C handles, or 0 (the call goes to the MPI's Fortran binding, which reports the error):
 * Open MPI's *_f2c give NULL for an index out of range. */
static inline int c_comm(const MPI_Fint *f, MPI_Comm *c)
{
    return (*c = PMPI_Comm_f2c(*f)) != NULL;
}
static inline int c_type(const MPI_Fint *f, MPI_Datatype *c)
{
    return (*c = PMPI_Type_f2c(*f)) != NULL;
}
static inline int c_op(const MPI_Fint *f, MPI_Op *c) { return (*c = PMPI_Op_f2c(*f)) != NULL; }

static inline void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr) *ierr = (MPI_Fint)rc;
}

/*
 * to_c_<x>: what Open MPI's ompi_<x>_f does (ompi/mpi/fortran/mpif-h/<x>_f.c), calling vred's
 * C front instead of PMPI_<X>. 1 if it did (ierror set), 0 if a handle did not convert.
 */
static int to_c_reduce_local(const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                             MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Datatype t;
    MPI_Op o;
    if (!c_type(type, &t) || !c_op(op, &o)) return 0;
    /* Open MPI converts MPI_BOTTOM only here: MPI_IN_PLACE is not allowed. */
    set_ierr(ierr, vred_own_Reduce_local(BOTTOM(sbuf), BOTTOM(rbuf), (int)*count, t, o));
    return 1;
}

static int to_c_reduce(const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,
                       MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Datatype t;
    MPI_Op o;
    MPI_Comm c;
    if (!c_type(type, &t) || !c_op(op, &o) || !c_comm(comm, &c)) return 0;
    set_ierr(ierr, vred_own_Reduce(BOTTOM(IN_PLACE(sbuf)), BOTTOM(rbuf), (int)*count, t, o,
                                   (int)*root, c));
    return 1;
}

/* allreduce, reduce_scatter_block, scan, exscan: the same arguments */
#define VRED_F_TO_C_PLAIN(lc, Name)                                                             \
    static int to_c_##lc(const void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type,         \
                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)                          \
    {                                                                                           \
        MPI_Datatype t;                                                                         \
        MPI_Op o;                                                                               \
        MPI_Comm c;                                                                             \
        if (!c_type(type, &t) || !c_op(op, &o) || !c_comm(comm, &c)) return 0;                  \
        set_ierr(ierr, vred_own_##Name(BOTTOM(IN_PLACE(sbuf)), BOTTOM(rbuf), (int)*count, t, o, \
                                       c));                                                     \
        return 1;                                                                               \
    }
VRED_F_TO_C_PLAIN(allreduce, Allreduce)
VRED_F_TO_C_PLAIN(reduce_scatter_block, Reduce_scatter_block)
VRED_F_TO_C_PLAIN(scan, Scan)
VRED_F_TO_C_PLAIN(exscan, Exscan)

static int to_c_reduce_scatter(const void *sbuf, void *rbuf, MPI_Fint *counts, MPI_Fint *type,
                               MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Datatype t;
    MPI_Op o;
    MPI_Comm c;
    /* recvcounts is read in place as int[]: only where INTEGER is an int (Open MPI would copy
     * it otherwise; such builds go to its binding). */
    if (sizeof(MPI_Fint) != sizeof(int)) return 0;
    if (!c_type(type, &t) || !c_op(op, &o) || !c_comm(comm, &c)) return 0;
    set_ierr(ierr, vred_own_Reduce_scatter(BOTTOM(IN_PLACE(sbuf)), BOTTOM(rbuf),
                                           (const int *)counts, t, o, c));
    return 1;
}

static int to_c_bcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root,
                      MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Datatype t;
    MPI_Comm c;
    if (!c_type(type, &t) || !c_comm(comm, &c)) return 0;
    set_ierr(ierr, vred_own_Bcast(BOTTOM(buf), (int)*count, t, (int)*root, c));
    return 1;
}

static int to_c_allgather(const void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf,
                          MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Datatype st, rt;
    MPI_Comm c;
    if (!c_type(stype, &st) || !c_type(rtype, &rt) || !c_comm(comm, &c)) return 0;
    set_ierr(ierr, vred_own_Allgather(BOTTOM(IN_PLACE(sbuf)), (int)*scount, st, BOTTOM(rbuf),
                                      (int)*rcount, rt, c));
    return 1;
}
#endif

/*
 * The entry points. mpi_<x> (every name): convert and call vred's front, or the MPI's binding.
 * pmpi_<x>: with a tool's mpi_<x> first in the lookup order, the tool calls pmpi_<x> to reach
 * "the MPI", which is then vred's mpi_<x>; otherwise the MPI's pmpi_<x>, untouched.
 */
/* The MPI's own function `id` of type `params`: ((VRED_F_NEXT(id, params)) args). Its pmpi_
 * name, as vred's C fronts pass calls on to PMPI_<X>: with vred loaded before a tool, the tool
 * does not see the calls vred intercepts (docs/reliability.md), Fortran ones included. */
#define VRED_F_NEXT(id, params) (void(*) params)ft_need(&ft.pnext[id], pmpi_names[id])

#define VRED_F_DEFINE(lc, id, mname, pname, params, args)                                       \
    static void own_##mname params                                                              \
    {                                                                                           \
        ft_init();                                                                              \
        if (!to_c_##lc args) (VRED_F_NEXT(id, params)) args;                                    \
    }                                                                                           \
    VRED_F_EXPORT_PAIR(id, mname, pname, params, args)

/* The hooks: the MPI's own binding, with vred's work before (finalize) or after (init). */
#define VRED_F_DEFINE_HOOK(lc, id, mname, pname, params, args)                                  \
    static void own_##mname params                                                              \
    {                                                                                           \
        MPI_Fint e_;                                                                            \
        ft_init();                                                                              \
        if (!ierr) ierr = &e_; /* mpi_f08: ierror absent; present is as good */                 \
        hook_before_##lc();                                                                     \
        (VRED_F_NEXT(id, params)) args;                                                         \
        if (*ierr == MPI_SUCCESS) hook_after_##lc();                                            \
    }                                                                                           \
    VRED_F_EXPORT_PAIR(id, mname, pname, params, args)

/* mname calls own_mname; pname too when a tool's mname comes first (not mname: that is the
 * tool's, which would call pname again), else the MPI's pmpi_ function untouched. */
#define VRED_F_EXPORT_PAIR(id, mname, pname, params, args)                                      \
    VRED_API void mname params { own_##mname args; }                                            \
    VRED_API void pname params                                                                  \
    {                                                                                           \
        ft_init();                                                                              \
        if (ft.tool_above[id]) own_##mname args;                                                \
        else (VRED_F_NEXT(id, params)) args;                                                    \
    }

static inline void hook_none(void) {}
#define hook_before_init hook_none
#define hook_after_init vred_mpi_after_init
#define hook_before_init_thread hook_none
#define hook_after_init_thread vred_mpi_after_init
#define hook_before_finalize vred_mpi_before_finalize
#define hook_after_finalize hook_none

/* The mpi_f08 collectives only where their ABI is known to be the one above: Open MPI 4 without
 * subarray support. Elsewhere (Open MPI 5, whose mpi_f08 may pass array descriptors) they stay
 * the MPI's: a buffer read as the wrong thing would corrupt data, where a call left to the MPI
 * is only not served. */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION == 4
#define VRED_F_DEFINE_F08 VRED_F_DEFINE
#else
#define VRED_F_DEFINE_F08(lc, id, mname, pname, params, args)
#endif

#define VRED_F_ALL(lc, UC, params, args)                                                        \
    VRED_F_DEFINE(lc, VRED_F_##lc * 5 + 0, mpi_##lc, pmpi_##lc, params, args)                   \
    VRED_F_DEFINE(lc, VRED_F_##lc * 5 + 1, mpi_##lc##_, pmpi_##lc##_, params, args)             \
    VRED_F_DEFINE(lc, VRED_F_##lc * 5 + 2, mpi_##lc##__, pmpi_##lc##__, params, args)           \
    VRED_F_DEFINE(lc, VRED_F_##lc * 5 + 3, MPI_##UC, PMPI_##UC, params, args)                   \
    VRED_F_DEFINE_F08(lc, VRED_F_##lc * 5 + 4, mpi_##lc##_f08_, VRED_F_P08_SYM(lc), params, args)
VRED_F_COLLS(VRED_F_ALL)

#ifdef OPEN_MPI
#define VRED_F_ALL_HOOK(lc, UC, params, args)                                                   \
    VRED_F_DEFINE_HOOK(lc, VRED_F_##lc * 5 + 0, mpi_##lc, pmpi_##lc, params, args)              \
    VRED_F_DEFINE_HOOK(lc, VRED_F_##lc * 5 + 1, mpi_##lc##_, pmpi_##lc##_, params, args)        \
    VRED_F_DEFINE_HOOK(lc, VRED_F_##lc * 5 + 2, mpi_##lc##__, pmpi_##lc##__, params, args)      \
    VRED_F_DEFINE_HOOK(lc, VRED_F_##lc * 5 + 3, MPI_##UC, PMPI_##UC, params, args)              \
    VRED_F_DEFINE_HOOK(lc, VRED_F_##lc * 5 + 4, mpi_##lc##_f08_, VRED_F_P08_SYM(lc), params, args)
#else /* MPICH: its mpi_f08 names only */
#define VRED_F_ALL_HOOK(lc, UC, params, args)                                                   \
    VRED_F_DEFINE_HOOK(lc, VRED_F_##lc * 5 + 4, mpi_##lc##_f08_, VRED_F_P08_SYM(lc), params, args)
#endif
VRED_F_HOOKS(VRED_F_ALL_HOOK)

#else
typedef int vred_fortran_unused; /* ISO C: no empty translation unit */
#endif /* OPEN_MPI || MPICH */
