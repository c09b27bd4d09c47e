/* Consumer of an installed vred: vred.h and libvred.so only (tests/install). */
#include <stdio.h>
#include <vred.h>

int main(void)
{
    float in[37], inout[37];
    signed char a[64], b[64];
    for (int i = 0; i < 37; i++) {
        in[i] = (float)i;
        inout[i] = 0.5f;
    }
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 100;
    if (vred_reduce(VRED_OP_SUM, VRED_FLOAT, in, inout, 37) != VRED_OK ||
        vred_reduce(VRED_OP_SUM, VRED_INT8, a, b, 64) != VRED_OK) {
        fprintf(stderr, "vred_reduce failed\n");
        return 1;
    }
    for (int i = 0; i < 37; i++)
        if (inout[i] != (float)i + 0.5f) {
            fprintf(stderr, "float sum wrong at %d\n", i);
            return 1;
        }
    for (int i = 0; i < 64; i++)
        if (b[i] != -56) { /* 100 + 100 wraps, it does not saturate */
            fprintf(stderr, "int8 sum wrong at %d: %d\n", i, b[i]);
            return 1;
        }
    printf("vred %d.%d consumer: ok (ISA %s)\n", VRED_VERSION_MAJOR, VRED_VERSION_MINOR,
           vred_isa_name(vred_isa_active()));
    return 0;
}
