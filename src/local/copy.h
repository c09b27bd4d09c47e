/*
 * Adaptive copy (the second paper, sec. 4): ordinary stores, which allocate the destination in
 * the cache, or non-temporal (streaming) stores, which write it to memory without the
 * read-for-ownership. Streaming pays when the destination is not read again soon ("non-
 * temporal data") and the collective's working set W is larger than the cache C: then the
 * ordinary store would evict dirty lines and read each line before writing it.
 */
#ifndef VRED_COPY_H
#define VRED_COPY_H

#include <stddef.h>

/* 1 if the byte ranges [p, p + pb) and [q, q + qb) share a byte (an empty range shares none):
 * whether a copy or fold between them may run as if they were apart. */
static inline int vred_overlaps(const void *p, size_t pb, const void *q, size_t qb)
{
    const char *x = p, *y = q;
    return pb && qb && x < y + qb && y < x + pb;
}

/* dst = src, n bytes, buffers not overlapping; nt = 0: memcpy. nt = 1 (x86_64): streaming
 * stores for the whole 64-byte lines of the destination, with the widest vectors the active ISA
 * (VRED_ISA cap) allows (AVX-512, AVX2, else SSE2); ordinary stores for the unaligned head and
 * tail, for copies below 4 KiB, and everywhere on aarch64 (memcpy). The source may have any
 * alignment. After nt copies, call vred_copy_fence() before publishing the data to another
 * process. */
void vred_copy(void *dst, const void *src, size_t n, int nt);

/* dst = src, n bytes, with ordinary stores in the form this process measured faster on its CPU
 * (once, at first use, which the shared region's set-up makes: a few milliseconds; copy.c): from 4
 * KiB on x86_64 the string copy (vred_copy_string) where it beat vector stores into destinations
 * out of the private caches, else vred_copy(dst, src, n, 0). For a copy into a buffer that has
 * left the private caches and is not shared with another core (the allgather's own block: Zen 5, 2
 * ranks, 1 MiB 27.9 -> 24.1 us); not vred_copy's default, since MA's copies at 16 MiB lost 5-10%
 * with it. vred_copy_string_form: 1 if the string copy was chosen, 0 if not (measuring first if
 * need be); *gain, if not NULL: vector time / string time as measured (0: not measured, e.g. no
 * fast strings). vred_copy_set_string_form: 0 or 1 pins the form, -1 measures again at the next
 * copy (tests, benchmarks). */
void vred_copy_measured(void *dst, const void *src, size_t n);
int vred_copy_string_form(double *gain);
void vred_copy_set_string_form(int form);

/* dst = src by the CPU's string copy (x86_64 `rep movsb` where the CPU reports fast strings):
 * 1 if it copied, 0 if the string copy is not offered for these buffers (nothing copied; use
 * vred_copy). For stores into lines another core holds: a string copy writes whole lines without
 * reading them first (no read-for-ownership), where vector stores fetch each line before
 * overwriting it. Not offered below 256 bytes, on other architectures, nor where (dst - src)
 * mod 4096 is 1..63 (Zen 2-4 run it several times slower there; see copy.c). */
int vred_copy_string(void *dst, const void *src, size_t n);

/* 1 if a copy by the CPU's string copy (x86_64 `rep movsb`, which glibc's memcpy uses from 2 KiB
 * to a few MiB and the kernel uses for cross-memory attach at every size) runs several times
 * slower where (dst - src) mod 4096 is `skew` than at 0: on AMD Zen for skews up to 15 (Zen 4)
 * or 31 (Zen 3), 4 KiB aliasing between its loads and stores. Measured at the first question for
 * each skew 1..63 (copy.c); 0 for other skews, on other architectures and without fast strings.
 * VRED_COPY_SKEW=slow|fast pins the answer for every skew 1..63. */
int vred_copy_skew_slow(size_t skew);

/* Orders earlier streaming stores before later stores (sfence on x86; a no-op where streaming
 * stores are ordinary stores). */
void vred_copy_fence(void);

/* The paper's rule (its algorithm 1, with the branches as the text states them): 1 = use
 * streaming stores for a copy whose destination is non-temporal (`non_temporal` = 1) in a
 * collective whose working set is `working_set` bytes. VRED_NT=on/off overrides. */
int vred_copy_use_nt(int non_temporal, size_t working_set);

/* Override VRED_NT at run time: a vred_nt_mode (config.h), or -1 to follow VRED_NT again. */
void vred_copy_set_mode(int mode);

/* This thread's current call only: a vred_nt_mode the learned selection measured faster for it
 * (-1: none). It applies where the mode would otherwise be automatic (VRED_NT=auto and no
 * run-time override): a setting the user pinned always wins. */
void vred_copy_set_call_mode(int mode);

/* The copy mode in force: the run-time override if set, else VRED_NT (a vred_nt_mode); where
 * that is automatic, this thread's call mode if set. */
int vred_copy_mode(void);

/* C: bytes of cache a node's working set can occupy (the last level, plus the private levels
 * of every core where the last level is not inclusive), from hwloc when built with it, else
 * from sysfs. Computed once. The paper's C = c' + p c'' with c' = llc_bytes, c'' =
 * private_bytes, p = cores_per_llc (vred_topo); unknown inclusiveness counts as inclusive
 * (C = c'), the smaller and safer value: streaming starts early rather than late. */
size_t vred_copy_cache_bytes(void);

#endif
