/*
 * MPI handle -> vred (type, op), through two small open-addressing tables keyed on the handle's
 * bits (Open MPI handles are pointers to global structs, MPICH handles are ints). Built once, on
 * the first call made after MPI_Init; a lookup is a multiply, a shift and usually one compare.
 */
#ifndef VRED_MPI_TYPES_H
#define VRED_MPI_TYPES_H

#include <stdint.h>
#include <mpi.h>
#include "vred.h"
#include "vred_mpi.h"

/* Classes of mpi_types.def. */
enum {
    VRED_MPI_C_SINT, VRED_MPI_C_UINT, VRED_MPI_ML_INT, VRED_MPI_C_FIXED,
    VRED_MPI_F_INT, VRED_MPI_F_REAL, VRED_MPI_F_COMPLEX, VRED_MPI_F_LOGICAL,
    VRED_MPI_F_2REAL, VRED_MPI_F_2INT
};

/* ~60 datatypes in 256 slots, 12 ops in 64: short probe runs, and never a full table. */
enum { VRED_MPI_TYPE_BITS = 8, VRED_MPI_OP_BITS = 6 };

typedef struct {
    uint64_t key;    /* handle bits */
    uint16_t used;   /* 1: slot holds a handle */
    uint16_t type;   /* vred_type (types table) or vred_op (ops table) */
    uint32_t ops;    /* types table: bit o set if vred serves op o on this datatype */
} vred_mpi_slot;

extern vred_mpi_slot vred_mpi_type_slots[1u << VRED_MPI_TYPE_BITS];
extern vred_mpi_slot vred_mpi_op_slots[1u << VRED_MPI_OP_BITS];
/* Per vred type, once the tables are built: 1 if the MPI's datatypes of that layout have holes
 * (size below extent: the padded MINLOC/MAXLOC pairs), whose bytes the MPI never touches; and
 * then the bytes from an element's start to the end of its last significant one (its true
 * extent, at most the element's size). The reduction collectives pass such datatypes to the MPI
 * (their copies move whole elements); MPI_Reduce_local serves them without touching memory past
 * the last element's true extent. */
extern unsigned char vred_mpi_holes[VRED_TYPE_COUNT];
extern unsigned char vred_mpi_span[VRED_TYPE_COUNT];
/* Life of the tables (atomic): built lazily after MPI_Init, and everything passes through to the
 * MPI again once MPI_Finalize was called (the MPI decides what a call after that means). */
enum { VRED_MPI_UNBUILT = 0, VRED_MPI_READY = 1, VRED_MPI_FINALIZED = 2 };
extern int vred_mpi_state;
extern int vred_mpi_disabled; /* VRED_DISABLE, read at load */

/* Builds the tables if MPI is initialized and not finalized (thread-safe, once). Returns 1 if
 * they are ready. */
int vred_mpi_tables_init(void);

#define VRED_MPI_HANDLE_BITS(h) ((uint64_t)(uintptr_t)(h))

static inline const vred_mpi_slot *vred_mpi_find(const vred_mpi_slot *t, unsigned bits,
                                                 uint64_t key)
{
    unsigned mask = (1u << bits) - 1u;
    unsigned i = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    for (;; i = (i + 1) & mask) { /* a table is at most a quarter full: ends */
        const vred_mpi_slot *s = &t[i];
        if (!s->used) return NULL;
        if (s->key == key) return s;
    }
}

/* 1 (and the vred type and op stored) if vred serves (op, datatype); 0: the MPI library does. */
static inline int vred_mpi_map(MPI_Datatype dt, MPI_Op op, vred_type *vt, vred_op *vo)
{
    int state = __atomic_load_n(&vred_mpi_state, __ATOMIC_ACQUIRE);
    if (state != VRED_MPI_READY && (state == VRED_MPI_FINALIZED || !vred_mpi_tables_init()))
        return 0;
    const vred_mpi_slot *o =
        vred_mpi_find(vred_mpi_op_slots, VRED_MPI_OP_BITS, VRED_MPI_HANDLE_BITS(op));
    if (!o) return 0;
    const vred_mpi_slot *t =
        vred_mpi_find(vred_mpi_type_slots, VRED_MPI_TYPE_BITS, VRED_MPI_HANDLE_BITS(dt));
    if (!t || !(t->ops >> o->type & 1u)) return 0;
    *vt = (vred_type)t->type;
    *vo = (vred_op)o->type;
    return 1;
}

/* The named datatype and the count of its elements in one element of dt, when dt is made only
 * of MPI_Type_contiguous (nested) over a named type: its layout is then that type's elements one
 * after another, bytes vred's bcast and allgather can move. 0 for anything else (vector,
 * struct, resized, indexed, ...: the MPI's to read) and for named types themselves. (The
 * reductions take named types only: both MPIs refuse a predefined op on a derived datatype,
 * MPI_ERR_OP, as the standard lists only basic datatypes for them.) */
int vred_mpi_contiguous_of(MPI_Datatype dt, MPI_Datatype *named, size_t *per);

/* vred_mpi_lookup (include/vred_mpi.h) is the exported form of vred_mpi_map. */

#endif
