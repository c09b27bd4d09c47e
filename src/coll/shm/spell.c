/*
 * Is the node in one of the host's slow spells? (shm.h, vred_shm_spell_ratio)
 *
 * Some hosts have spells, seconds to minutes long, in which lines written by one core and read
 * by another cross many times more slowly (docs/peers.md: on the project's Zen 4 VMs, 64 KiB
 * stored ordinarily into a bank and copied out by the other core took 30-37 us instead of 4).
 * Streaming stores keep their rate through a spell: their lines go to memory and the reader
 * fetches them from there, no line crosses from cache to cache. So the ratio of the two is a
 * measure of the spell that needs no figure from any particular CPU: outside a spell ordinary
 * stores are the faster kind (Zen 4: 0.5x the streaming time), inside they are several times
 * slower (4-5x).
 *
 * The rounds are those of the pipelined bcast, with the writer going round the node's ranks:
 * the writer stores BYTES into the bank (rotating, as the algorithms' rounds do), the others
 * wait for its post and copy the slice out. Blocks of ROUNDS rounds, the two kinds alternating,
 * after one block of each to warm up; the median block of each kind.
 */
#include "coll/shm/shm.h"

#include <stdlib.h>
#include <time.h>

#include "local/copy.h"
#include "next/next.h"
#include "coll/clock.h"

enum { BYTES = 64 << 10, ROUNDS = 8, BLOCKS = 4 };


/* ROUNDS rounds of n bytes stored with streaming (nt) or ordinary stores; seconds taken here. */
static double block(vred_shm *s, const char *src, char *dst, size_t n, int nt)
{
    uint64_t seq0 = s->seq;
    double t0 = vred_clock_s();
    for (int r = 0; r < ROUNDS; r++) {
        int writer = r % s->size;
        char *bank = vred_shm_round_begin(s, n);
        if (s->rank == writer) {
            vred_copy(bank, src, n, nt);
            if (nt) vred_copy_fence();
            vred_shm_post(s);
            vred_shm_round_end(s);
        } else {
            /* Every rank posts once a round, so the writer's post of round r is its r+1-th. */
            vred_shm_wait(s, writer, seq0 + (uint64_t)r + 1);
            vred_copy(dst, bank, n, 0);
            vred_shm_round_end(s);
            vred_shm_post(s);
        }
    }
    return vred_clock_s() - t0;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return v[n / 2];
}

double vred_shm_spell_ratio(vred_shm *s)
{
    size_t n = s->bank_bytes / 2 / 4096 * 4096;
    if (n > BYTES) n = BYTES;
    /* One rank has nobody to cross to; a bank of a few pages stays in place (no rotation). */
    if (s->size < 2 || n < VRED_STORES_MIN_SLICE) return 0;
    char *src = malloc(n), *dst = malloc(n);
    int ok = src && dst;
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, s->comm) != MPI_SUCCESS)
        ok = 0;
    double t[2][BLOCKS], ratio = 0;
    if (ok) {
        for (size_t i = 0; i < n; i++) src[i] = (char)i;
        block(s, src, dst, n, 0), block(s, src, dst, n, 1); /* first touch, both kinds */
        for (int b = 0; b < BLOCKS; b++)
            for (int j = 0; j < 2; j++) {
                int nt = (b + j) & 1; /* each block starts with the other kind */
                t[nt][b] = block(s, src, dst, n, nt);
            }
        ratio = median(t[0], BLOCKS) / median(t[1], BLOCKS);
    }
    free(src), free(dst);
    return ratio;
}
