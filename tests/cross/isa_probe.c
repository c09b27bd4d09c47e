/*
 * Checks that the emulated CPU is the one a cross test asked for, so that a test meant for SVE at
 * N bits cannot silently run at another length (or on NEON only).
 *   isa_probe <isa> <sve bits>     e.g. isa_probe sve 2048, isa_probe neon 0
 * Exit 0 if vred sees that best ISA and that SVE vector length, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <isa> <sve bits>\n", argv[0]);
        return 2;
    }
    const char *isa = vred_isa_name(vred_isa_best());
    unsigned bits = vred_cpu()->sve_bits;
    printf("best ISA %s, SVE vector length %u bits\n", isa, bits);
    if (strcmp(isa, argv[1]) != 0 || bits != (unsigned)strtoul(argv[2], NULL, 10)) {
        fprintf(stderr, "expected %s with %s-bit SVE\n", argv[1], argv[2]);
        return 1;
    }
    return 0;
}
