/*
 * How a rank stores a slice into the region's banks: ordinary or streaming stores, as measured,
 * and of the ordinary ones vector stores or the CPU's string copy, as measured.
 *
 * Ordinary stores into a bank are the fast kind where they run at their rate: the readers then
 * take the slice from the writer's cache, and banks used round robin (sync.h, round_begin) hold
 * no line a reader still caches. 2 ranks on Zen 4, back to back: bcast 64 KiB 4 us against 7.5
 * streaming, 1 MiB 37 against 71; MA reduce 1 MiB 35 us against 75. But this host has spells,
 * seconds to minutes long, in which lines written by one core and read by the other cross many
 * times more slowly, and ordinary stores then crawl (the same bcast 64 KiB took 30-37 us, the
 * reduce 1 MiB 340) while streaming ones keep their rate (they go to memory, and the reader
 * fetches from there: no line crosses from cache to cache).
 *
 * So a writer times its own copies, per use and size class: the first call streams, to learn
 * the streaming rate; later calls store ordinarily, and a whole slice stored at under 1/CRAWL of
 * the streaming rate switches the rest of the call, and the calls after it, to streaming, until
 * a probe (every 32nd call, less often while probes keep confirming the choice) tries the other
 * kind again. Not "whichever is faster": a streaming copy can
 * finish sooner and still cost the call more, since the readers then fetch the slice from
 * memory. Only the writer's own stores change, never the bytes nor what the readers do, so no
 * rank has to agree with another. VRED_NT=on/off pins the kind (vred_copy_mode).
 *
 * Ordinary stores come in two forms that leave the slice in the writer's cache alike, so there
 * the faster one is the better: vector stores (vred_copy), which read each line of the bank
 * before overwriting it, a line the readers still hold from an earlier round, and the string
 * copy (vred_copy_string, x86 `rep movsb`), which writes whole lines without reading them. On
 * Zen 5 (2 ranks, a two-process pipeline of 64 KiB slices through four shared slots, 1 MiB
 * messages back to back) the string copy made the writer's side 1.7x as fast (31 -> 18 us per
 * message; the reader's copy form changed it by 2-6%). Which form wins depends on the CPU, so
 * the second and third calls of a class time each form and the faster one stays; every other
 * probe tries the one not in use.
 */
#ifndef VRED_SHM_STORES_H
#define VRED_SHM_STORES_H

#include <stddef.h>
#include <stdint.h>

/* Who stores: each use has its own history (their slices differ in who reads them, and when). */
typedef enum {
    VRED_STORES_BCAST,     /* the bcast root's slices (bcast_pipe.c) */
    VRED_STORES_GATHER,    /* each rank's part of an allgather round (allgather_pipe.c) */
    VRED_STORES_MA,        /* an MA round's first copy (ma.c: every rank's at once) */
    VRED_STORES_REDUCE,    /* the MA reduce chain's first copy (ma_reduce.c) */
    VRED_STORES_USES
} vred_stores_use;

/* Size classes: calls of up to 32 KiB, 64 KiB, ... (message bytes), the last holding the rest. */
enum { VRED_STORES_CLASSES = 14 };

/* The kinds of store: ordinary vector stores, streaming stores, the string copy (ordinary). */
enum { VRED_STORES_LINES, VRED_STORES_STREAM, VRED_STORES_STRING, VRED_STORES_KINDS };

/* The calls whose rates a choice looks at, per kind (stores.c, recent_best). */
enum { VRED_STORES_RECENT = 4 };

/* One use and size class on one rank. */
typedef struct {
    uint32_t calls;        /* since the last probe */
    uint32_t gap;          /* calls between probes (0: not begun; stores.c, PROBE) */
    uint32_t probes;       /* probes made (they alternate between two kinds) */
    int stream;            /* streaming in use (else ordinary) */
    int string;            /* the ordinary form in use: 0 vector stores, 1 the string copy */
    double ns_per_byte[VRED_STORES_KINDS]; /* each kind's rate (0: none yet; stores.c) */
    double recent[VRED_STORES_KINDS][VRED_STORES_RECENT]; /* its last calls' (0: none) */
    uint8_t recent_at[VRED_STORES_KINDS];
} vred_stores;

/* One call's copies of one use. */
typedef struct {
    vred_stores *st;       /* NULL: the kind is fixed (pinned, or slices too small to time) */
    int kind;              /* VRED_STORES_LINES, _STREAM or _STRING */
    double ns[VRED_STORES_KINDS], bytes[VRED_STORES_KINDS];
    int was;               /* st's choice when the call began: stream << 1 | string */
    int probe;             /* this call tries a kind not in use */
} vred_stores_call;

/* The histories of one region (vred_shm). */
typedef struct {
    vred_stores by[VRED_STORES_USES][VRED_STORES_CLASSES];
} vred_stores_table;

/* Begin a call of `bytes` (the message, which picks the size class) whose slices are `slice`
 * bytes: timed from VRED_STORES_MIN_SLICE, else ordinary stores (VRED_NT=on: streaming). */
void vred_stores_begin(vred_stores_call *c, vred_stores_table *t, vred_stores_use use,
                       size_t bytes, size_t slice);

/* Copy n bytes into the bank with the call's kind, fenced when streamed (the data is there
 * before whatever the caller posts next). `whole`: n is a whole slice, worth timing. */
void vred_stores_copy(vred_stores_call *c, void *bank, const void *src, size_t n, int whole);

/* End the call: its rates go to the history. */
void vred_stores_end(vred_stores_call *c);

/* Slices below this are stored ordinarily, untimed: a clock read costs too much of their copy. */
enum { VRED_STORES_MIN_SLICE = 16 << 10 };

#endif
