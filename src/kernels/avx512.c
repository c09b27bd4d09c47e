/*
 * The AVX-512 kernels' table: every part's kernels (avx512_int.c, avx512_bits.c,
 * avx512_float.c, avx512_loc.c, avx512_half.c; avx512_kernel.h has their shape and says why
 * they are split).
 */
#include "kernels/kernel.h"
#include "kernels/avx512_kernel.h"

void vred_fill_avx512(vred_kernel_table *t, int masked_tail)
{
    vred_fill_avx512_int(t, masked_tail);
    vred_fill_avx512_bits(t, masked_tail);
    vred_fill_avx512_float(t, masked_tail);
    vred_fill_avx512_loc(t, masked_tail);
    vred_fill_avx512_half(t, masked_tail);
}
