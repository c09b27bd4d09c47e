/*
 * The VRED_* environment knobs: one table, one parser, one message per malformed value.
 * Add a knob by adding a row to `knobs` and a field to vred_config.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"

typedef struct {
    const char *name;
    const char *accepted; /* '|'-separated, as printed */
    const char *deflt;
    /* Store the index of the accepted value in cfg; -1 = not accepted. */
    void (*apply)(vred_config *cfg, int index);
    const char *help;
} knob;

static void apply_isa(vred_config *c, int i) { c->isa_cap = i < 0 ? VRED_ISA_COUNT : (vred_isa)i; }
static void apply_tail(vred_config *c, int i) { c->tail = (vred_tail_mode)(i < 0 ? 0 : i); }
static void apply_disable(vred_config *c, int i) { c->disable = i > 0; }

/* The order of `accepted` matches the enum each apply() stores. "best" in VRED_ISA is past the
 * last ISA, i.e. no cap. */
static const knob knobs[] = {
    {"VRED_ISA", "scalar|sse41|avx2|avx512|neon|sve|best", "best", apply_isa,
     "cap the instruction set (never raised past the hardware)"},
    {"VRED_TAIL", "auto|mask|cascade", "auto", apply_tail,
     "vector tail: masked, or the 512->256->128->scalar cascade (auto = measured best)"},
    {"VRED_DISABLE", "0|1", "0", apply_disable,
     "1: libvred-mpi passes every call to the MPI library untouched"},
};

/* Position of value in the '|'-list, or -1. */
static int lookup(const char *list, const char *value)
{
    size_t len = strlen(value);
    int index = 0;
    for (const char *p = list;; index++) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, value, n) == 0) return index;
        if (!end) return -1;
        p = end + 1;
    }
}

static vred_config config;
static int in_effect[sizeof knobs / sizeof knobs[0]]; /* index into each knob's accepted list */

static void parse(void)
{
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
        const knob *kb = &knobs[k];
        const char *v = getenv(kb->name);
        int index = lookup(kb->accepted, kb->deflt);
        if (v && *v) {
            int got = lookup(kb->accepted, v);
            if (got < 0)
                fprintf(stderr, "vred: %s='%s' is not one of %s; using %s\n", kb->name, v,
                        kb->accepted, kb->deflt);
            else
                index = got;
        }
        in_effect[k] = index;
        kb->apply(&config, index);
    }
}

const vred_config *vred_config_get(void)
{
    /* First called from the load-time constructor, before threads exist. */
    static int done;
    if (!done) {
        parse();
        done = 1;
    }
    return &config;
}

/* Copies entry `index` of a '|'-list into buf. */
static const char *nth(const char *list, int index, char *buf, size_t size)
{
    const char *p = list;
    for (int i = 0; i < index && p; i++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    size_t n = p ? strcspn(p, "|") : 0;
    if (n >= size) n = size - 1;
    memcpy(buf, p ? p : "", n);
    buf[n] = 0;
    return buf;
}

void vred_config_print(FILE *out)
{
    vred_config_get();
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
        char value[32];
        const char *set = getenv(knobs[k].name);
        nth(knobs[k].accepted, in_effect[k], value, sizeof value);
        fprintf(out, "  %-14s %-8s %-12s (%s) %s\n", knobs[k].name, value,
                set && *set ? (strcmp(set, value) ? "[malformed]" : "[set]") : "[default]",
                knobs[k].accepted, knobs[k].help);
    }
}
