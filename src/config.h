/* Every VRED_* knob, parsed in one place (config.c), once. */
#ifndef VRED_CONFIG_H
#define VRED_CONFIG_H

#include <stdio.h>
#include "vred.h"

typedef enum { VRED_TAIL_AUTO, VRED_TAIL_MASK, VRED_TAIL_CASCADE } vred_tail_mode;

typedef struct {
    vred_isa isa_cap;        /* VRED_ISA; VRED_ISA_COUNT = no cap */
    vred_tail_mode tail;     /* VRED_TAIL */
    int disable;             /* VRED_DISABLE: the MPI library passes every call through */
} vred_config;

/* Parsed on first call; a malformed value is reported once on stderr with the accepted values,
 * and the default is used. */
const vred_config *vred_config_get(void);

/* One line per knob: name, value in effect, accepted values (for vred-info). */
void vred_config_print(FILE *out);

#endif
