/*
 * The message engine of the point-to-point algorithms (see msg.h for the wire protocol).
 *
 * A message is a run of segments cut the same way on both sides. The sender posts every segment
 * at once (PMPI_Isend), each either dense (VRED_TAG_DENSE) or, when VRED_SPARSE allows and the
 * segment's data is sparse enough, packed as Bits or Idx (VRED_TAG_SPARSE; local/sparse.c).
 * The receiver keeps a window of VRED_MSG_WINDOW segment receives and consumes each segment as
 * soon as it lands (PMPI_Waitany): folds it into `out`, or for a plain transfer leaves it in
 * place (unpacking a packed one). The fold of one segment thus overlaps the transfer of the next
 * ones, and compression is pipelined the same way (pack k+1 while k travels, unpack-and-fold k
 * while k+1 travels), so a compressed message is never a serial pack, send, unpack.
 *
 * A segment lands in its final place in `out` whenever `out` is not the local operand, and is
 * folded there (two memory streams, not three: at 1 MiB this alone took the fold from 82 to
 * ~40 us); otherwise in a ring of scratch slots. A packed segment that landed in `out` is copied
 * aside (it is at most the segment's size, usually much less) before it is unpacked over itself.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "coll/p2p/msg.h"
#include "coll/p2p/wait.h"
#include "coll/fail.h"
#include "local/copy.h"
#include "local/sparse.h"

enum {
    VRED_MSG_SEG = 256 << 10,  /* bytes per segment */
    VRED_MSG_WHOLE = 1 << 20,  /* messages up to this size are not cut */
    VRED_MSG_SEG_NET = 4 << 20, /* both, between nodes */
    VRED_MSG_WINDOW = 4,       /* segment receives in flight into scratch slots (one node) */
    VRED_MSG_WINDOW_NET = 16,  /* the same between nodes */
    VRED_MSG_POSTED_MAX = 256, /* receives posted at once landing in place (64 MiB of 256 KiB
                                  segments; more would make each PMPI_Waitany scan a long array) */
    VRED_SPARSE_MIN_BYTES = 64 << 10, /* smaller segments are always dense */
    SAMPLE_RUNS = 16, SAMPLE_RUN = 64 /* elements sampled before any segment is counted */
};

/* Segments hold whole elements: VRED_MSG_SEG bytes, or the largest multiple of the element size
 * below it (12- and 24-byte pair types). A message of up to VRED_MSG_WHOLE bytes is one segment:
 * over TCP a message costs ~20 us more than its bytes, more than pipelining saves there
 * (1 MiB reduce, 2 ranks: 1.00x the MPI's as one segment, 0.87x as four). Between nodes
 * (the communicator spans several) segments of VRED_MSG_SEG_NET: where the transport's CPU cost
 * per message is the limit (2 namespaced hosts, 10 Gbit/s link, one core each, Open MPI's TCP
 * BTL: a rendezvous per segment), 64 MiB reduce ran at 0.84-0.89x Open MPI's speed with 256 KiB
 * segments, 0.84-0.85x with 1 MiB, 0.97-1.05x with 4 MiB (allreduce 1.19-1.53x, 1.34-1.40x,
 * 1.42-1.71x); the fold of one 4 MiB segment (~1 ms) is what overlap gives up. */
static size_t seg_bytes(size_t es, size_t bytes, int net)
{
    size_t seg = net ? VRED_MSG_SEG_NET : VRED_MSG_SEG;
    size_t whole = net ? VRED_MSG_SEG_NET : VRED_MSG_WHOLE;
    return bytes <= whole ? (bytes ? bytes : es) : seg / es * es;
}

/* A message of n elements: segments of `elems` elements, the last one shorter. */
typedef struct {
    size_t n, es, elems, count;
    int sparse; /* the sender may pack segments of at least VRED_SPARSE_MIN_BYTES */
} cut;

static cut cut_of(const vred_coll_args *a, size_t n)
{
    cut c;
    c.n = n;
    c.es = a->esize;
    c.elems = seg_bytes(c.es, n * c.es, a->vc->nodes > 1) / c.es;
    c.count = n ? (n + c.elems - 1) / c.elems : 0;
    c.sparse = vred_config_get()->sparse != VRED_SPARSE_OFF &&
               c.elems * c.es >= VRED_SPARSE_MIN_BYTES;
    return c;
}

static size_t seg_len(const cut *c, size_t k)
{
    size_t off = k * c->elems;
    return c->n - off < c->elems ? c->n - off : c->elems;
}

static double link_rate(const vred_coll_args *a)
{
    const vred_model *m = &a->vc->model;
    double beta = a->vc->nodes > 1 ? m->beta_net : m->beta_node;
    return beta > 0 ? 1.0 / beta : 1e10;
}

/*
 * When compression pays (VRED_SPARSE=auto). Measured end to end (bench/run_sparse.sh: 64 MiB
 * float, 2 ranks over TCP), packing and unpacking cost ~0.2 ns per byte of dense data that the
 * pipeline does not hide (the receiver folds from memory instead of from the segment the network
 * just wrote), so a message of D dense bytes sent as P packed bytes over a link of L bytes/s
 * wins when 0.2e-9 D + P / L < D / L, i.e. P / D < 1 - 0.2e-9 L. Over TCP here (L = 4.35 GB/s
 * in the model) that is 13% of the dense size: compression from ~95% zeros, where the forced
 * formats measured 1.06x (Bits) and 1.15x (Idx) the dense time and 0.97-1.00x at 90%; over
 * shared memory (L ~7.5 GB/s) never. The sample decides whether a message is worth packing at all, so a dense
 * rank among sparse ones pays only the sample (the paper's BIGSTICK lesson).
 */
#define VRED_SPARSE_UNHIDDEN_S_PER_BYTE 0.2e-9

static double max_ratio(const vred_coll_args *a)
{
    return 1.0 - VRED_SPARSE_UNHIDDEN_S_PER_BYTE * link_rate(a);
}

/* Non-zero fraction of a sample of SAMPLE_RUNS x SAMPLE_RUN elements spread over buf. */
static double sample_density(const void *buf, size_t n, size_t esize)
{
    if (n < 4 * SAMPLE_RUNS * SAMPLE_RUN) return 0; /* small: count each segment */
    size_t nz = 0, stride = n / SAMPLE_RUNS;
    for (size_t r = 0; r < SAMPLE_RUNS; r++)
        nz += vred_sparse_nonzeros((const char *)buf + r * stride * esize, SAMPLE_RUN, esize);
    return (double)nz / (SAMPLE_RUNS * SAMPLE_RUN);
}

/* Is packing this message worth trying? Forced formats: always; auto: by the sample. */
static int worth_packing(const vred_coll_args *a, int mode, const void *buf, size_t n)
{
    if (mode != VRED_SPARSE_AUTO) return 1;
    double r = max_ratio(a);
    /* Bits costs d + 1/(8 esize) of the dense size; the sample gets 10% of room, but never
     * past the dense size itself: on a slow link (r near 1: the link measured at 1 Gbit/s
     * gives 0.975) dense data would otherwise be packed in vain, segment by segment until one
     * fails (2 namespaced hosts, 1 Gbit/s, 1 MiB reduce: 11.3 ms against 9.2 unpacked). */
    return r > 0 && sample_density(buf, n, a->esize) + 1.0 / (8.0 * a->esize) < fmin(1.0, 1.1 * r);
}

/*
 * Pack segment seg (m elements) into slot as the format it pays to send; returns the packed
 * bytes, or 0 to send it dense. Bits is packed in the same pass that counts the non-zeros (one
 * read of the data); only if Idx turns out better is the segment, now in cache, packed again.
 */
static size_t pack_segment(const vred_coll_args *a, int mode, const char *seg, size_t m,
                           char *slot)
{
    size_t es = a->esize, nnz, pb = 0, dense = m * es;
    if (mode == VRED_SPARSE_IDX) {
        nnz = vred_sparse_nonzeros(seg, m, es);
    } else {
        pb = vred_sparse_pack(VRED_FMT_BITS, seg, m, es, VRED_SPARSE_NNZ_UNKNOWN, slot);
        if (!pb) return 0;
        uint64_t got;
        memcpy(&got, slot + 24, sizeof got); /* the header's nnz (local/sparse.h) */
        nnz = (size_t)got;
    }
    size_t bits = vred_sparse_packed_size(VRED_FMT_BITS, m, es, nnz);
    size_t idx = vred_sparse_packed_size(VRED_FMT_IDX, m, es, nnz);
    vred_sparse_fmt f = mode == VRED_SPARSE_BITS ? VRED_FMT_BITS
                        : mode == VRED_SPARSE_IDX ? VRED_FMT_IDX
                        : idx < bits ? VRED_FMT_IDX : VRED_FMT_BITS;
    size_t want = f == VRED_FMT_IDX ? idx : bits;
    if (want == (size_t)-1 || want >= dense) return 0;
    if (mode == VRED_SPARSE_AUTO && (double)want >= max_ratio(a) * (double)dense) return 0;
    if (f == VRED_FMT_IDX) pb = vred_sparse_pack(VRED_FMT_IDX, seg, m, es, nnz, slot);
    return pb && pb < dense ? pb : 0;
}

/* Post every segment of the outgoing message; *ns requests go to reqs. */
static int post_send(const vred_coll_args *a, const void *buf, size_t n, int dst,
                     MPI_Request *reqs, int *ns)
{
    *ns = 0;
    if (!n || dst == MPI_PROC_NULL) return MPI_SUCCESS;
    cut c = cut_of(a, n);
    int mode = vred_config_get()->sparse;
    /* A slot holds the largest packing tried: Bits of a segment with no zero. */
    size_t slot = vred_sparse_packed_size(VRED_FMT_BITS, c.elems, c.es, c.elems);
    char *pack = NULL;
    if (c.sparse && worth_packing(a, mode, buf, n))
        pack = vred_scratch_get(a->scratch, VRED_SCRATCH_PACK_OUT, c.count * slot);
    for (size_t k = 0; k < c.count; k++) {
        size_t m = seg_len(&c, k), bytes = m * c.es;
        const char *seg = vred_at(buf, k * c.elems, c.es);
        const void *p = seg;
        int tag = VRED_TAG_DENSE;
        if (pack && bytes >= VRED_SPARSE_MIN_BYTES) {
            size_t pb = pack_segment(a, mode, seg, m, pack + k * slot);
            if (pb) {
                p = pack + k * slot;
                bytes = pb;
                tag = VRED_TAG_SPARSE;
            } else if (mode == VRED_SPARSE_AUTO) {
                pack = NULL; /* a segment not worth it: the rest of the message is alike */
            }
        }
        /* (testing: a send the MPI refused) */
        if (vred_fail_inject(VRED_FAIL_PMPI)) return MPI_ERR_OTHER;
        int rc = PMPI_Isend(p, (int)bytes, MPI_BYTE, dst, tag, a->comm, &reqs[(*ns)++]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* out = recv op local (or local op recv) for a received piece of m elements at element offset. */
static void fold_piece(const vred_coll_args *a, const void *piece, const void *local, void *out,
                       size_t off, size_t m, int recv_left)
{
    const char *l = vred_at(local, off, a->esize);
    char *o = vred_at(out, off, a->esize);
    if (recv_left) vred_par_reduce3(a->e, a->esize, piece, l, o, m);
    else vred_par_reduce3(a->e, a->esize, l, piece, o, m);
}

/* A packed segment that landed over its own destination: moved aside before it is expanded. */
static const char *set_aside(const vred_coll_args *a, const char *land, size_t bytes)
{
    char *tmp = vred_scratch_get(a->scratch, VRED_SCRATCH_PACK_IN, bytes);
    if (tmp) memcpy(tmp, land, bytes);
    return tmp;
}

/*
 * Segment k of message c landed at `land` (bytes, tag from its status). Fold it into out (local
 * != NULL) or leave it in dest (a plain transfer; dest + its offset == land for dense segments).
 */
static int consume(const vred_coll_args *a, const cut *c, size_t k, const char *land, int bytes,
                   int tag, const void *local, void *out, int recv_left)
{
    size_t m = seg_len(c, k), off = k * c->elems;
    char *dest = vred_at(out, off, c->es);
    if (tag == VRED_TAG_DENSE) {
        if ((size_t)bytes != m * c->es) return MPI_ERR_TRUNCATE;
        if (local) fold_piece(a, land, local, out, off, m, recv_left);
        else if (land != dest) memcpy(dest, land, m * c->es);
        return MPI_SUCCESS;
    }
    if (land == dest && !(land = set_aside(a, land, (size_t)bytes))) return MPI_ERR_NO_MEM;
    if (!local) return vred_sparse_unpack(land, (size_t)bytes, m, c->es, dest) ? MPI_ERR_TRUNCATE
                                                                              : MPI_SUCCESS;
    /* Expand 16 KiB at a time into L1 and fold from there. */
    vred_sparse_reader r;
    if (vred_sparse_reader_init(&r, land, (size_t)bytes, m, c->es)) return MPI_ERR_TRUNCATE;
    _Alignas(64) char block[16384]; /* elements are at most 64 bytes */
    size_t per = sizeof block / c->es;
    for (size_t i = 0; i < m; i += per) {
        size_t q = m - i < per ? m - i : per;
        vred_sparse_read(&r, q, block);
        fold_piece(a, block, local, out, off + i, q, recv_left);
    }
    return MPI_SUCCESS;
}

static int post_recv(const vred_coll_args *a, const cut *c, size_t k, void *land, int src,
                     MPI_Request *req)
{
    /* A packed segment is smaller than the dense one: the dense size bounds both. Any tag: the
     * status says which format came, so a sender whose VRED_SPARSE differs is still read
     * right (messages between two ranks of the private communicator arrive in order). */
    return PMPI_Irecv(land, (int)(seg_len(c, k) * c->es), MPI_BYTE, src, MPI_ANY_TAG, a->comm,
                      req);
}

static int bytes_of(const MPI_Status *st)
{
    int b = 0;
    PMPI_Get_count(st, MPI_BYTE, &b);
    return b;
}

static int wait_all(MPI_Request *reqs, int n)
{
    return n ? vred_wait_all(n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
}

/*
 * Would the MPI's copy of the peer's segment into out be slow? The peer sends its own copy of
 * the block that `local` holds here (every rank lays out its buffers alike, as SPMD programs
 * and malloc do), so its source sits where local does in its page. Copies whose destination is
 * a few bytes past its source in the page run at a fraction of their speed on AMD Zen (`rep
 * movsb`, in glibc's memcpy and in the kernel's copy that single-copy transports use; skews
 * 1-15 on Zen 4, 1-31 on Zen 3, as this CPU measures: vred_copy_skew_slow): a u8 allreduce at
 * 1 MiB with the send buffer page-aligned and the receive buffer at 1 took 2.1-3.7x its aligned
 * time in ring, binomial and recdbl (Open MPI 4.1, Zen 4), and on Zen 3 every point-to-point
 * algorithm ran at 0.20-0.50x with the receive buffer at 16 (f32, 64 KiB-1 MiB). Such segments
 * land in page-aligned scratch instead, and the fold reads them from there (three memory
 * streams where two would do, far cheaper than the slow copy). Between nodes the data comes
 * from a socket, not from the peer's buffer: no such pair.
 */
static int slow_copy_pair(const void *out, const void *local)
{
    return vred_copy_skew_slow((size_t)((uintptr_t)out - (uintptr_t)local));
}

/*
 * The receive side of both calls: message c from src into out, folded with local (local !=
 * NULL) or plain. `hold`: out is being sent, so every segment is received into scratch and
 * consumed only once the sends (reqs[0..ns)) are complete.
 */
static int receive(const vred_coll_args *a, const cut *c, int src, const void *local, void *out,
                   int recv_left, int hold, MPI_Request *reqs, int ns)
{
    size_t sb = c->elems * c->es;
    MPI_Request *rr = reqs + ns;
    int rc;
    if (hold) {
        char *all = vred_scratch_get(a->scratch, VRED_SCRATCH_RING, c->count * sb);
        MPI_Status *st = vred_scratch_get(a->scratch, VRED_SCRATCH_STATUS,
                                          c->count * sizeof(MPI_Status));
        if (!all || !st) return MPI_ERR_NO_MEM;
        for (size_t k = 0; k < c->count; k++)
            if ((rc = post_recv(a, c, k, all + k * sb, src, &rr[k])) != MPI_SUCCESS) return rc;
        if ((rc = vred_wait_all((int)c->count, rr, st)) != MPI_SUCCESS) return rc;
        if ((rc = wait_all(reqs, ns)) != MPI_SUCCESS) return rc;
        for (size_t k = 0; k < c->count; k++)
            if ((rc = consume(a, c, k, all + k * sb, bytes_of(&st[k]), st[k].MPI_TAG, local, out,
                              recv_left)) != MPI_SUCCESS)
                return rc;
        return MPI_SUCCESS;
    }
    /* Straight into out unless out is the local operand of a fold or the copy there would be
     * slow (slow_copy_pair). Landing in out, every segment's receive (up to 256) is posted at
     * once (the request array has room): a segment whose receive is not yet posted arrives
     * unexpected, and over a transport with a rendezvous (Open MPI's TCP BTL above its 64 KiB
     * eager limit) it is buffered, then waits a round trip for its clear-to-send once it is
     * posted. Between namespaced hosts (docs/multihost.md) a window of 4 took allreduce at
     * 64 MiB from 1.6x faster than Open MPI's to 1.4x slower. Into scratch slots, a window of
     * them: wider between nodes. */
    int direct = !local || (!vred_overlaps(local, c->n * c->es, out, c->n * c->es) &&
                            !(a->vc->nodes == 1 && slow_copy_pair(out, local)));
    int maxwin = direct ? VRED_MSG_POSTED_MAX
                 : a->vc->nodes > 1 ? VRED_MSG_WINDOW_NET : VRED_MSG_WINDOW;
    int win = c->count < (size_t)maxwin ? (int)c->count : maxwin;
    char *ring = direct ? NULL : vred_scratch_get(a->scratch, VRED_SCRATCH_RING, (size_t)win * sb);
    if (!direct && !ring) return MPI_ERR_NO_MEM;
    size_t slot_seg[VRED_MSG_POSTED_MAX], posted = 0; /* the segment each request receives */
#define LAND(s, k) (direct ? vred_at(out, (k) * c->elems, c->es) : ring + (size_t)(s) * sb)
    for (int s = 0; s < win; s++, posted++) {
        slot_seg[s] = posted;
        if ((rc = post_recv(a, c, posted, LAND(s, posted), src, &rr[s])) != MPI_SUCCESS) return rc;
    }
    for (size_t done = 0; done < c->count; done++) {
        int s;
        MPI_Status st;
        if ((rc = vred_wait_any(win, rr, &s, &st)) != MPI_SUCCESS) return rc;
        size_t k = slot_seg[s];
        rc = consume(a, c, k, LAND(s, k), bytes_of(&st), st.MPI_TAG, local, out, recv_left);
        if (rc != MPI_SUCCESS) return rc;
        if (posted < c->count) {
            slot_seg[s] = posted;
            rc = post_recv(a, c, posted, LAND(s, posted), src, &rr[s]);
            if (rc != MPI_SUCCESS) return rc;
            posted++;
        }
    }
#undef LAND
    return wait_all(reqs, ns);
}

static int exchange(const vred_coll_args *a, const void *sbuf, size_t sn, int dst, int src,
                    const void *local, void *out, size_t n, int recv_left)
{
    if (src == MPI_PROC_NULL) n = 0;
    if (dst == MPI_PROC_NULL) sn = 0;
    cut sc = cut_of(a, sn), rc_ = cut_of(a, n);
    MPI_Request *reqs = vred_scratch_get(a->scratch, VRED_SCRATCH_REQS,
                                         (sc.count + rc_.count + 1) * sizeof(MPI_Request));
    if (!reqs) return MPI_ERR_NO_MEM;
    int ns = 0, rc = post_send(a, sbuf, sn, dst, reqs, &ns);
    if (rc != MPI_SUCCESS) return rc;
    if (!n) return wait_all(reqs, ns);
    int hold = local && sn && vred_overlaps(sbuf, sn * a->esize, out, n * a->esize);
    return receive(a, &rc_, src, local, out, recv_left, hold, reqs, ns);
}

int vred_msg_sendrecv_reduce(const vred_coll_args *a, const void *sbuf, size_t sn, int dst,
                             int src, const void *local, void *out, size_t n, int recv_left)
{
    return exchange(a, sbuf, sn, dst, src, local, out, n, recv_left);
}

int vred_msg_sendrecv(const vred_coll_args *a, const void *sbuf, size_t sn, int dst, void *rbuf,
                      size_t rn, int src)
{
    return exchange(a, sbuf, sn, dst, src, NULL, rbuf, rn, 0);
}
