/*
 * The public reductions of the local layer: 2-buffer, 3-buffer, n-ary and reduce-to-one-value,
 * all built on the active kernel table. Argument checks happen here, once per call; the kernels
 * trust their arguments.
 */
#include <string.h>
#include "kernels/dispatch.h"

/* Work in blocks that stay in L1 while the n-ary form sweeps its sources over them. */
enum { BLOCK_BYTES = 4096, HALF_BLOCK = 1024 /* floats */, STRIPE_BYTES = 256 };

static const vred_entry *entry(vred_op op, vred_type type)
{
    if ((unsigned)op >= VRED_OP_COUNT || (unsigned)type >= VRED_TYPE_COUNT) return NULL;
    return &vred_entries[op][type];
}

static int check(const vred_entry *e, size_t count, const void *p, const void *q)
{
    if (!e) return VRED_ERR_ARG;
    if (!e->fn) return VRED_ERR_OP_TYPE;
    if (count && (!p || !q)) return VRED_ERR_ARG;
    return VRED_OK;
}

int vred_reduce(vred_op op, vred_type type, const void *in, void *inout, size_t count)
{
    const vred_entry *e = entry(op, type);
    int rc = check(e, count, in, inout);
    if (rc == VRED_OK && count) e->fn(in, inout, inout, count * e->scale);
    return rc;
}

int vred_reduce3(vred_op op, vred_type type, const void *a, const void *b, void *out, size_t count)
{
    const vred_entry *e = entry(op, type);
    int rc = check(e, count, a, b);
    if (rc == VRED_OK && count && !out) rc = VRED_ERR_ARG;
    if (rc == VRED_OK && count) e->fn(a, b, out, count * e->scale);
    return rc;
}

static int half_index(vred_type type)
{
    return type == VRED_BFLOAT16 ? VRED_HALF_BF16 : type == VRED_FLOAT16 ? VRED_HALF_F16 : -1;
}

/* Half types: widen src[n-1] into a float32 block, fold the others in from the right, round once. */
static void reduce_n_half(int h, vred_op op, const void *const *src, size_t nsrc, void *out,
                          size_t count)
{
    const vred_kernel_table *t = &vred_active;
    vred_half_acc_fn acc_fn = t->half_acc[h][op]; /* VRED_HOP_* follow vred_op's first four */
    float acc[HALF_BLOCK];
    for (size_t off = 0; off < count; off += HALF_BLOCK) {
        size_t m = count - off < HALF_BLOCK ? count - off : HALF_BLOCK;
        t->half_widen[h]((const uint16_t *)src[nsrc - 1] + off, acc, m);
        for (size_t i = nsrc - 1; i-- > 0;) acc_fn((const uint16_t *)src[i] + off, acc, m);
        t->half_narrow[h](acc, (uint16_t *)out + off, m);
    }
}

int vred_reduce_n(vred_op op, vred_type type, const void *const *src, size_t nsrc, void *out,
                  size_t count)
{
    const vred_entry *e = entry(op, type);
    int rc = check(e, count, src, out);
    if (rc != VRED_OK) return rc;
    if (nsrc == 0) return VRED_ERR_ARG;
    if (count == 0) return VRED_OK;
    for (size_t i = 0; i < nsrc; i++)
        if (!src[i]) return VRED_ERR_ARG;

    size_t size = vred_type_size(type);
    if (nsrc == 1) {
        if (out != src[0]) memmove(out, src[0], count * size);
        return VRED_OK;
    }
    int h = half_index(type);
    if (h >= 0) {
        reduce_n_half(h, op, src, nsrc, out, count);
        return VRED_OK;
    }
    /* out = src[n-2] op src[n-1], then out = src[i] op out for i = n-3..0, one block at a time.
     * If out is one of the sources still to be read, accumulate in a scratch block instead. */
    int aliased = 0;
    for (size_t i = 0; i + 2 < nsrc; i++) aliased |= src[i] == out;
    _Alignas(64) unsigned char scratch[BLOCK_BYTES];
    size_t per_block = BLOCK_BYTES / size;
    for (size_t off = 0; off < count; off += per_block) {
        size_t m = count - off < per_block ? count - off : per_block;
        size_t bytes = off * size;
        unsigned char *dst = aliased ? scratch : (unsigned char *)out + bytes;
        size_t n = m * e->scale;
        e->fn((const char *)src[nsrc - 2] + bytes, (const char *)src[nsrc - 1] + bytes, dst, n);
        for (size_t i = nsrc - 2; i-- > 0;) e->fn((const char *)src[i] + bytes, dst, dst, n);
        if (aliased) memcpy((unsigned char *)out + bytes, scratch, m * size);
    }
    return VRED_OK;
}

/*
 * The canonical order of reduce_all, identical on every ISA because it is a fixed sequence of
 * calls to bit-exact kernels: L = 256 bytes of elements are accumulated lane-wise
 * (acc[k] = in[s*L + k] op acc[k], a partial last stripe into the first lanes), then halved as
 * acc[k] = acc[k + m - h] op acc[k] with h = m / 2 until one value is left.
 */
static void fold(const vred_entry *e, size_t size, const void *in, size_t count, void *acc,
                 size_t lanes)
{
    const char *p = in;
    size_t m = count < lanes ? count : lanes;
    memmove(acc, p, m * size); /* acc may be in itself (the half path) */
    for (size_t i = m; i < count; i += lanes) {
        size_t k = count - i < lanes ? count - i : lanes;
        e->fn(p + i * size, acc, acc, k * e->scale);
    }
    for (; m > 1; m -= m / 2) {
        size_t h = m / 2;
        e->fn((char *)acc + (m - h) * size, acc, acc, h * e->scale);
    }
}

int vred_reduce_all(vred_op op, vred_type type, const void *in, size_t count, void *result)
{
    const vred_entry *e = entry(op, type);
    int rc = check(e, count, in, result);
    if (rc != VRED_OK || count == 0) return rc;
    size_t size = vred_type_size(type);
    _Alignas(64) unsigned char acc[STRIPE_BYTES];

    int h = half_index(type);
    if (h < 0) {
        fold(e, size, in, count, acc, STRIPE_BYTES / size);
        memcpy(result, acc, size);
        return VRED_OK;
    }
    /* Half types accumulate in float32: the same order over widened values, 128 lanes. */
    const vred_entry *ef = &vred_entries[op][VRED_FLOAT];
    enum { LANES = STRIPE_BYTES / 2 };
    float wide[HALF_BLOCK], facc[LANES];
    size_t filled = 0;
    for (size_t off = 0; off < count; off += HALF_BLOCK) {
        size_t m = count - off < HALF_BLOCK ? count - off : HALF_BLOCK;
        vred_active.half_widen[h]((const uint16_t *)in + off, wide, m);
        size_t j = 0;
        if (filled < LANES) { /* the first stripe seeds the lanes */
            size_t k = m < LANES - filled ? m : LANES - filled;
            memcpy(facc + filled, wide, k * sizeof(float));
            filled += k;
            j = k;
        }
        for (; j < m; j += LANES) {
            size_t k = m - j < LANES ? m - j : LANES;
            ef->fn(wide + j, facc, facc, k);
        }
    }
    fold(ef, sizeof(float), facc, filled, facc, LANES);
    vred_active.half_narrow[h](facc, result, 1);
    return VRED_OK;
}
