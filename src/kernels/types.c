/* Type and op metadata derived from ops.def, and the canonical form of each (op, type). */
#include <strings.h>
#include "kernels/kernel.h"

static const struct {
    const char *name;
    size_t size;
    unsigned group;
} type_info[VRED_TYPE_COUNT] = {
#define VRED_TYPE(e, name, ctype, group) [e] = {#name, sizeof(ctype), group},
#include "kernels/ops.def"
#undef VRED_TYPE
};

static const struct {
    const char *name;
    unsigned groups;
} op_info[VRED_OP_COUNT] = {
#define VRED_OP(e, name, groups) [e] = {#name, groups},
#include "kernels/ops.def"
#undef VRED_OP
};

size_t vred_type_size(vred_type t) { return (unsigned)t < VRED_TYPE_COUNT ? type_info[t].size : 0; }
const char *vred_type_name(vred_type t)
{
    return (unsigned)t < VRED_TYPE_COUNT ? type_info[t].name : "unknown";
}
const char *vred_op_name(vred_op op)
{
    return (unsigned)op < VRED_OP_COUNT ? op_info[op].name : "unknown";
}
vred_type vred_type_from_name(const char *name)
{
    int t = 0;
    while (t < VRED_TYPE_COUNT && !(name && strcasecmp(name, type_info[t].name) == 0)) t++;
    return (vred_type)t;
}

vred_op vred_op_from_name(const char *name)
{
    int op = 0;
    while (op < VRED_OP_COUNT && !(name && strcasecmp(name, op_info[op].name) == 0)) op++;
    return (vred_op)op;
}

unsigned vred_type_group(vred_type t) { return (unsigned)t < VRED_TYPE_COUNT ? type_info[t].group : 0; }
static unsigned op_groups(vred_op op) { return (unsigned)op < VRED_OP_COUNT ? op_info[op].groups : 0; }

int vred_op_valid(vred_op op, vred_type t)
{
    return (op_groups(op) & vred_type_group(t)) != 0;
}

static vred_type unsigned_of_size(size_t size)
{
    switch (size) {
    case 1: return VRED_UINT8;
    case 2: return VRED_UINT16;
    case 4: return VRED_UINT32;
    default: return VRED_UINT64;
    }
}

vred_canon vred_canonical(vred_op op, vred_type t)
{
    vred_canon c = {op, t, 1};
    unsigned g = vred_type_group(t);
    size_t size = vred_type_size(t);
    switch (op) {
    case VRED_OP_BAND: case VRED_OP_BOR: case VRED_OP_BXOR:
        /* Bitwise ops do not see element boundaries. */
        c.type = VRED_UINT8;
        c.scale = (unsigned)size;
        break;
    case VRED_OP_LAND: case VRED_OP_LOR: case VRED_OP_LXOR:
        /* x != 0 does not depend on the sign. */
        c.type = unsigned_of_size(size);
        break;
    case VRED_OP_SUM:
        if (g & VRED_G_COMPLEX) {
            c.type = t == VRED_C_FLOAT_COMPLEX    ? VRED_FLOAT
                     : t == VRED_C_DOUBLE_COMPLEX ? VRED_DOUBLE
                                                  : VRED_LONG_DOUBLE;
            c.scale = 2;
            break;
        }
        /* wrapping integer SUM and PROD are sign-blind, as below */
        __attribute__((fallthrough));
    case VRED_OP_PROD:
        if (g & VRED_G_INT) c.type = unsigned_of_size(size);
        break;
    default: break;
    }
    return c;
}
