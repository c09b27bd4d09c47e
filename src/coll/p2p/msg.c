/*
 * The message engine of the point-to-point algorithms (see msg.h for the wire protocol).
 *
 * A call posts every outgoing piece at once (MPI_Isend), then drives the incoming side: a
 * window of VRED_MSG_WINDOW segment receives, each segment folded as soon as it lands
 * (PMPI_Waitany) and its receive reposted for the next one. The fold of a segment thus overlaps
 * the transfer of the following ones, and reads the received data from cache. A segment lands in
 * its place in `out` and is folded there when `out` is not the local operand (two streams, not
 * three: at 1 MiB this alone took the fold from 82 to ~40 us), else in a ring of scratch slots.
 */
#include <stdint.h>
#include <string.h>
#include "msg.h"
#include "local/sparse.h"

enum {
    VRED_MSG_SEG = 256 << 10,  /* bytes per dense segment */
    VRED_MSG_WHOLE = 1 << 20,  /* messages up to this size are not cut */
    VRED_MSG_WINDOW = 4,       /* segment receives in flight */
    VRED_SPARSE_MIN_BYTES = 64 << 10, /* smaller messages are always dense: no probe, no count */
    VRED_SPARSE_CHUNK = 1 << 30,      /* a compressed message travels in pieces of <= 1 GiB */
    SAMPLE_RUNS = 16, SAMPLE_RUN = 64 /* elements sampled before counting every non-zero */
};

/* Segments hold whole elements: VRED_MSG_SEG bytes, or the largest multiple of the element size
 * below it (12- and 24-byte pair types). A message of up to VRED_MSG_WHOLE bytes is one segment:
 * over TCP a message costs ~20 us more than its bytes, more than pipelining saves there
 * (1 MiB reduce, 2 ranks: 1.00x the MPI's as one segment, 0.87x as four). Both sides cut a
 * message the same way. */
static size_t seg_bytes(size_t es, size_t bytes)
{
    return bytes <= VRED_MSG_WHOLE ? (bytes ? bytes : es) : VRED_MSG_SEG / es * es;
}
static size_t nsegs(size_t bytes, size_t es)
{
    return (bytes + seg_bytes(es, bytes) - 1) / seg_bytes(es, bytes);
}

static int sparse_on(size_t bytes)
{
    return vred_config_get()->sparse != VRED_SPARSE_OFF && bytes >= VRED_SPARSE_MIN_BYTES;
}

static double link_rate(const vred_coll_args *a)
{
    const vred_model *m = &a->vc->model;
    double beta = a->vc->nodes > 1 ? m->beta_net : m->beta_node;
    return beta > 0 ? 1.0 / beta : 1e10;
}

/* In auto mode a dense message must cost no more than without compression (the BIGSTICK
 * lesson of the paper): a sample of SAMPLE_RUNS x SAMPLE_RUN elements decides whether counting
 * every non-zero is worth a pass over the data. */
static int sample_says_dense(const void *buf, size_t n, size_t esize)
{
    if (n < 4 * SAMPLE_RUNS * SAMPLE_RUN) return 0;
    size_t nz = 0, stride = n / SAMPLE_RUNS;
    for (size_t r = 0; r < SAMPLE_RUNS; r++)
        nz += vred_sparse_nonzeros((const char *)buf + r * stride * esize, SAMPLE_RUN, esize);
    /* Above 90% non-zero no format pays on any link (docs/sparse.md). */
    return nz * 10 > (size_t)SAMPLE_RUNS * SAMPLE_RUN * 9;
}

/* Post the outgoing message. *reqs gets the requests (count in *nreq). */
static int post_send(const vred_coll_args *a, const void *buf, size_t n, int dst,
                     MPI_Request *reqs, int *nreq)
{
    size_t bytes = n * a->esize;
    *nreq = 0;
    if (!n || dst == MPI_PROC_NULL) return MPI_SUCCESS;
    if (sparse_on(bytes)) {
        int mode = vred_config_get()->sparse;
        vred_sparse_fmt f = VRED_FMT_DENSE;
        if (mode != VRED_SPARSE_AUTO || !sample_says_dense(buf, n, a->esize)) {
            size_t nnz = vred_sparse_nonzeros(buf, n, a->esize);
            f = vred_sparse_choose(mode, n, a->esize, nnz, link_rate(a));
            if (f != VRED_FMT_DENSE) {
                size_t pbytes = vred_sparse_packed_size(f, n, a->esize, nnz);
                char *p = vred_scratch_get(a->scratch, VRED_SCRATCH_PACK_OUT, pbytes);
                if (!p) f = VRED_FMT_DENSE; /* no memory for it: send dense */
                else {
                    pbytes = vred_sparse_pack(f, buf, n, a->esize, nnz, p);
                    for (size_t off = 0; off < pbytes; off += VRED_SPARSE_CHUNK) {
                        size_t len = pbytes - off < VRED_SPARSE_CHUNK ? pbytes - off
                                                                      : VRED_SPARSE_CHUNK;
                        int rc = PMPI_Isend(p + off, (int)len, MPI_BYTE, dst, VRED_TAG_SPARSE,
                                            a->comm, &reqs[(*nreq)++]);
                        if (rc != MPI_SUCCESS) return rc;
                    }
                    return MPI_SUCCESS;
                }
            }
        }
    }
    size_t sb = seg_bytes(a->esize, bytes);
    for (size_t off = 0; off < bytes; off += sb) {
        size_t len = bytes - off < sb ? bytes - off : sb;
        int rc = PMPI_Isend((const char *)buf + off, (int)len, MPI_BYTE, dst, VRED_TAG_DENSE,
                            a->comm, &reqs[(*nreq)++]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

static size_t max_send_reqs(const vred_coll_args *a, size_t n)
{
    size_t bytes = n * a->esize;
    size_t dense = nsegs(bytes, a->esize), sparse = bytes / VRED_SPARSE_CHUNK + 2;
    return dense > sparse ? dense : sparse;
}

/* Bytes of the whole compressed message whose first piece (>= the header) is p; 0 if the
 * header is not one of n elements of esize bytes (layout: local/sparse.h). */
static size_t packed_total(const char *p, size_t first, size_t n, size_t esize)
{
    uint8_t fmt;
    uint64_t nnz;
    if (first < VRED_SPARSE_HEADER) return 0;
    memcpy(&fmt, p + 4, 1);
    memcpy(&nnz, p + 24, 8);
    if (fmt != VRED_FMT_BITS && fmt != VRED_FMT_IDX) return 0;
    size_t total = vred_sparse_packed_size((vred_sparse_fmt)fmt, n, esize, (size_t)nnz);
    return total == (size_t)-1 ? 0 : total;
}

/* Is the next message from src compressed? Then receive it whole into PACK_IN. */
static int recv_packed(const vred_coll_args *a, int src, size_t n, const char **packed,
                       size_t *pbytes)
{
    MPI_Status st;
    int rc = PMPI_Probe(src, MPI_ANY_TAG, a->comm, &st);
    if (rc != MPI_SUCCESS) return rc;
    *packed = NULL;
    if (st.MPI_TAG != VRED_TAG_SPARSE) return MPI_SUCCESS;
    int first = 0;
    PMPI_Get_count(&st, MPI_BYTE, &first);
    /* The whole size is in the header of the first piece; the pieces arrive in order. */
    char *p = vred_scratch_get(a->scratch, VRED_SCRATCH_PACK_IN, (size_t)first);
    if (!p) return MPI_ERR_NO_MEM;
    rc = PMPI_Recv(p, first, MPI_BYTE, src, VRED_TAG_SPARSE, a->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    size_t total = packed_total(p, (size_t)first, n, a->esize);
    if (total < (size_t)first) return MPI_ERR_TRUNCATE;
    if (total > (size_t)first) {
        char *q = vred_scratch_get(a->scratch, VRED_SCRATCH_PACK_IN, total);
        if (!q) return MPI_ERR_NO_MEM;
        if (q != p) memcpy(q, p, (size_t)first);
        p = q;
        for (size_t off = (size_t)first; off < total; off += VRED_SPARSE_CHUNK) {
            size_t len = total - off < VRED_SPARSE_CHUNK ? total - off : VRED_SPARSE_CHUNK;
            rc = PMPI_Recv(p + off, (int)len, MPI_BYTE, src, VRED_TAG_SPARSE, a->comm,
                           MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return rc;
        }
    }
    *packed = p;
    *pbytes = total;
    return MPI_SUCCESS;
}

/* out = recv op local (or local op recv) for a received piece of m elements at element offset. */
static void reduce_piece(const vred_coll_args *a, const void *piece, const void *local, void *out,
                         size_t off, size_t m, int recv_left)
{
    const char *l = vred_at(local, off, a->esize);
    char *o = vred_at(out, off, a->esize);
    if (recv_left) vred_coll_reduce3(a, piece, l, o, m);
    else vred_coll_reduce3(a, l, piece, o, m);
}

/* Unpack a compressed message block by block (in L1) into the reduction. */
static int reduce_packed(const vred_coll_args *a, const char *packed, size_t pbytes,
                         const void *local, void *out, size_t n, int recv_left)
{
    vred_sparse_reader r;
    if (vred_sparse_reader_init(&r, packed, pbytes, n, a->esize)) return MPI_ERR_TRUNCATE;
    _Alignas(64) char block[16384];
    size_t per = sizeof block / a->esize;
    for (size_t off = 0; off < n; off += per) {
        size_t m = n - off < per ? n - off : per;
        vred_sparse_read(&r, m, block);
        reduce_piece(a, block, local, out, off, m, recv_left);
    }
    return MPI_SUCCESS;
}

/* gcc reads MPICH's MPI_STATUSES_IGNORE (a null array) as a zero-length buffer: a false alarm. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
/* Post the receive of segment k (of seg elements each) of an n-element message into buf. */
static int post_segment(const vred_coll_args *a, void *buf, size_t n, size_t k, size_t seg,
                        int src, MPI_Request *req)
{
    size_t m = n - k * seg < seg ? n - k * seg : seg;
    return PMPI_Irecv(buf, (int)(m * a->esize), MPI_BYTE, src, VRED_TAG_DENSE, a->comm, req);
}

static int wait_all(MPI_Request *reqs, int n)
{
    return n ? PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
}
#pragma GCC diagnostic pop

static int overlaps(const void *p, size_t pb, const void *q, size_t qb)
{
    const char *a = p, *b = q;
    return pb && qb && a < b + qb && b < a + pb;
}

int vred_msg_sendrecv_reduce(const vred_coll_args *a, const void *sbuf, size_t sn, int dst,
                             int src, const void *local, void *out, size_t n, int recv_left)
{
    if (src == MPI_PROC_NULL) n = 0;
    size_t es = a->esize, rbytes = n * es;
    size_t nsend = max_send_reqs(a, dst == MPI_PROC_NULL ? 0 : sn);
    MPI_Request *reqs = vred_scratch_get(a->scratch, VRED_SCRATCH_REQS,
                                         (nsend + nsegs(rbytes, es) + VRED_MSG_WINDOW) *
                                             sizeof(MPI_Request));
    if (!reqs) return MPI_ERR_NO_MEM;
    int ns = 0, rc = post_send(a, sbuf, sn, dst, reqs, &ns);
    if (rc != MPI_SUCCESS || !n) return rc != MPI_SUCCESS ? rc : wait_all(reqs, ns);
    int hold = dst != MPI_PROC_NULL && overlaps(sbuf, sn * es, out, rbytes);

    if (sparse_on(rbytes)) {
        const char *packed;
        size_t pbytes;
        rc = recv_packed(a, src, n, &packed, &pbytes);
        if (rc != MPI_SUCCESS) return rc;
        if (packed) {
            if (hold && (rc = wait_all(reqs, ns)) != MPI_SUCCESS) return rc;
            rc = reduce_packed(a, packed, pbytes, local, out, n, recv_left);
            return rc != MPI_SUCCESS ? rc : wait_all(reqs, ns);
        }
    }
    size_t sbytes = seg_bytes(es, rbytes), seg_elems = sbytes / es, segs = nsegs(rbytes, es);
    if (hold) {
        /* out is being sent: receive the whole message, finish the sends, then reduce. */
        char *all = vred_scratch_get(a->scratch, VRED_SCRATCH_RING, rbytes);
        if (!all) return MPI_ERR_NO_MEM;
        MPI_Request *rr = reqs + ns;
        for (size_t k = 0; k < segs; k++) {
            size_t off = k * sbytes, len = rbytes - off < sbytes ? rbytes - off : sbytes;
            rc = PMPI_Irecv(all + off, (int)len, MPI_BYTE, src, VRED_TAG_DENSE, a->comm, &rr[k]);
            if (rc != MPI_SUCCESS) return rc;
        }
        if ((rc = wait_all(reqs, ns + (int)segs)) != MPI_SUCCESS) return rc;
        reduce_piece(a, all, local, out, 0, n, recv_left);
        return MPI_SUCCESS;
    }
    /* Where a segment lands: straight into its place in out when out is not the local operand
     * (then folded there in place: two streams instead of three, and no scratch), else in the
     * ring of scratch slots. */
    int direct = !overlaps(local, rbytes, out, rbytes);
    int win = segs < VRED_MSG_WINDOW ? (int)segs : VRED_MSG_WINDOW;
    char *ring = direct ? NULL
                        : vred_scratch_get(a->scratch, VRED_SCRATCH_RING, (size_t)win * sbytes);
    if (!direct && !ring) return MPI_ERR_NO_MEM;
    MPI_Request *rr = reqs + ns;
    size_t slot_seg[VRED_MSG_WINDOW];
    size_t posted = 0, done = 0;
    for (int s = 0; s < win; s++) {
        rc = post_segment(a, direct ? vred_at(out, posted * seg_elems, es) : ring + (size_t)s * sbytes,
                          n, posted, seg_elems, src, &rr[s]);
        if (rc != MPI_SUCCESS) return rc;
        slot_seg[s] = posted++;
    }
    while (done < segs) {
        int s;
        rc = PMPI_Waitany(win, rr, &s, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        size_t k = slot_seg[s], off = k * seg_elems;
        size_t m = n - off < seg_elems ? n - off : seg_elems;
        const void *piece = direct ? vred_at(out, off, es) : ring + (size_t)s * sbytes;
        reduce_piece(a, piece, local, out, off, m, recv_left);
        done++;
        if (posted < segs) {
            rc = post_segment(a, direct ? vred_at(out, posted * seg_elems, es)
                                        : ring + (size_t)s * sbytes,
                              n, posted, seg_elems, src, &rr[s]);
            if (rc != MPI_SUCCESS) return rc;
            slot_seg[s] = posted++;
        }
    }
    return wait_all(reqs, ns);
}

int vred_msg_sendrecv(const vred_coll_args *a, const void *sbuf, size_t sn, int dst, void *rbuf,
                      size_t rn, int src)
{
    if (src == MPI_PROC_NULL) rn = 0;
    size_t es = a->esize, rbytes = rn * es;
    size_t nsend = max_send_reqs(a, dst == MPI_PROC_NULL ? 0 : sn);
    MPI_Request *reqs = vred_scratch_get(a->scratch, VRED_SCRATCH_REQS,
                                         (nsend + nsegs(rbytes, es) + 1) * sizeof(MPI_Request));
    if (!reqs) return MPI_ERR_NO_MEM;
    int ns = 0, rc = post_send(a, sbuf, sn, dst, reqs, &ns);
    if (rc != MPI_SUCCESS || !rn) return rc != MPI_SUCCESS ? rc : wait_all(reqs, ns);
    if (sparse_on(rbytes)) {
        const char *packed;
        size_t pbytes;
        rc = recv_packed(a, src, rn, &packed, &pbytes);
        if (rc != MPI_SUCCESS) return rc;
        if (packed) {
            if (vred_sparse_unpack(packed, pbytes, rn, es, rbuf)) return MPI_ERR_TRUNCATE;
            return wait_all(reqs, ns);
        }
    }
    /* Dense: every segment straight into rbuf. */
    size_t sbytes = seg_bytes(es, rbytes), segs = nsegs(rbytes, es);
    for (size_t k = 0; k < segs; k++) {
        size_t off = k * sbytes, len = rbytes - off < sbytes ? rbytes - off : sbytes;
        rc = PMPI_Irecv((char *)rbuf + off, (int)len, MPI_BYTE, src, VRED_TAG_DENSE, a->comm,
                        &reqs[ns + (int)k]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return wait_all(reqs, ns + (int)segs);
}
