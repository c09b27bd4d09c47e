/*
 * Sparse message compression (local layer, MPI-free): Bits and Idx of Shan, Williams, Johnson.
 * See docs/sparse.md.
 *
 * A "zero" is an element whose bytes are all zero: -0.0 is a non-zero, so packing is lossless for
 * every type and op. Any element size (esize >= 1) works; 4/8-byte elements (and any multiple of 4
 * up to 64) use VPCOMPRESSD/VPEXPANDD (AVX-512) or COMPACT/TBL (SVE), 1/2-byte and other sizes up to
 * 64 bytes VPCOMPRESSB/W with VBMI2, 4/8-byte VPERMD tables under an AVX2 cap; the rest is scalar.
 * The ISA is vred_isa_active()'s (VRED_ISA caps it). Buffers may start at any byte address.
 *
 * Packed layout (native byte order; every field unaligned-safe):
 *   header, 32 bytes: u32 magic "VRSP", u8 format, u8 version (1), u16 0, u32 esize, u32 0,
 *                     u64 n, u64 nnz
 *   DENSE: n * esize bytes of the elements
 *   BITS:  bitmask, bit i (bit i%8 of byte i/8) set iff element i is non-zero, ceil(n/64)*8 bytes
 *          (padding bits 0), then the nnz non-zero elements in order
 *   IDX:   nnz u32 indices, strictly increasing, < n (n <= UINT32_MAX), then the nnz elements
 */
#ifndef VRED_SPARSE_H
#define VRED_SPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum { VRED_FMT_DENSE = 0, VRED_FMT_BITS = 1, VRED_FMT_IDX = 2 } vred_sparse_fmt;

#define VRED_SPARSE_HEADER 32u
/* Pass as nnz to vred_sparse_pack: DENSE and BITS then count while packing (one pass over src;
 * dst must hold vred_sparse_packed_size(f, n, esize, n)); IDX counts first. */
#define VRED_SPARSE_NNZ_UNKNOWN ((size_t)-1)

/* Number of non-zero elements of buf[0..n). */
size_t vred_sparse_nonzeros(const void *buf, size_t n, size_t esize);

/* Exact bytes of a packed message, header included; SIZE_MAX if impossible (esize 0, nnz > n,
 * IDX with n > UINT32_MAX, overflow). */
size_t vred_sparse_packed_size(vred_sparse_fmt f, size_t n, size_t esize, size_t nnz);

/* The format to send. mode is a vred_sparse_mode (src/config.h):
 *   OFF -> DENSE; BITS / IDX -> that format if it is smaller than DENSE, else DENSE;
 *   AUTO -> the least predicted pack + transfer + unpack time at link_bytes_per_s (the cost model
 *   and its measured constants: docs/sparse.md); link_bytes_per_s <= 0: the fewest bytes. */
vred_sparse_fmt vred_sparse_choose(int mode, size_t n, size_t esize, size_t nnz,
                                   double link_bytes_per_s);

/* Writes the packed message to dst (which holds vred_sparse_packed_size(f, n, esize, nnz) bytes)
 * and returns its size. nnz must be the true count (or VRED_SPARSE_NNZ_UNKNOWN): if src has more
 * non-zeros, packing stops without writing past that size and returns 0 (also 0 on bad
 * arguments). src and dst must not overlap. */
size_t vred_sparse_pack(vred_sparse_fmt f, const void *src, size_t n, size_t esize, size_t nnz,
                        void *dst);

/* dst[0..n) = the dense elements. 0, or -1 if the message is not a valid one of n elements of
 * esize bytes in exactly `bytes` bytes (dst is then untouched). Never reads outside packed[0..bytes). */
int vred_sparse_unpack(const void *packed, size_t bytes, size_t n, size_t esize, void *dst);

/* Streaming unpack, so a receiver can reduce block by block while the block is in L1. init
 * validates the whole message (as vred_sparse_unpack does); read then cannot fail. */
typedef struct {
    const unsigned char *mask; /* BITS: the bitmask */
    const unsigned char *idx;  /* IDX: the indices */
    const unsigned char *vals; /* the packed elements (all n of them for DENSE) */
    size_t n, esize, nnz, mbytes;
    size_t pos; /* next element */
    size_t cnt; /* packed elements consumed */
    int fmt;
} vred_sparse_reader;

int vred_sparse_reader_init(vred_sparse_reader *r, const void *packed, size_t bytes, size_t n,
                            size_t esize);
/* The next k elements, dense, zeros filled; k is clamped to what is left. */
void vred_sparse_read(vred_sparse_reader *r, size_t k, void *dst);

/* ---- internal to sparse*.c: the per-ISA primitives ---- */

/* The bits of the bitmask from bit position pos, at least ne <= 64 of them in the low bits (the
 * caller masks the rest away, each ISA its own way), never reading past mbytes. */
static inline uint64_t vred_sparse_mask_bits(const unsigned char *mask, size_t mbytes, size_t pos,
                                             unsigned ne)
{
    size_t byte = pos >> 3;
    unsigned off = (unsigned)(pos & 7);
    uint64_t lo = 0;
    if (byte + 8 <= mbytes) memcpy(&lo, mask + byte, 8);
    else memcpy(&lo, mask + byte, mbytes - byte);
    uint64_t r = lo >> off;
    if (off && ne + off > 64) r |= (uint64_t)mask[byte + 8] << (64 - off);
    return r;
}
typedef struct {
    /* Can this table pack/unpack esize? (count works for every esize) */
    int (*handles)(size_t esize);
    size_t (*count)(const unsigned char *src, size_t n, size_t esize);
    /* Return the count, or SIZE_MAX as soon as it would exceed cap (nothing written past cap). */
    size_t (*pack_bits)(const unsigned char *src, size_t n, size_t esize, size_t cap,
                        unsigned char *mask, unsigned char *vals);
    size_t (*pack_idx)(const unsigned char *src, size_t n, size_t esize, size_t cap,
                       unsigned char *idx, unsigned char *vals);
    /* Elements [pos, pos+k) into dst; returns the packed elements consumed. */
    size_t (*expand_bits)(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                          const unsigned char *vals, size_t esize, unsigned char *dst);
} vred_sparse_ops;

extern const vred_sparse_ops vred_sparse_scalar_ops;
/* sparse_avx512.c, sparse_sve.c: listed in sparse.c's choice (usable: the ISA is). */
extern const vred_sparse_ops vred_sparse_avx512_ops;
extern const vred_sparse_ops vred_sparse_sve_ops;

#endif
