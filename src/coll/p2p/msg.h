/*
 * Messages of the point-to-point algorithms, on the MPI library's PMPI calls over vred's private
 * communicator. A message of n elements is cut into segments the same way on both sides (256 KiB;
 * up to 1 MiB uncut), so that a receiver folds segment k while k+1 is still on the wire. Each
 * segment travels dense (tag VRED_TAG_DENSE) or, when VRED_SPARSE allows and its data is sparse
 * enough, packed as Bits or Idx (tag VRED_TAG_SPARSE); the receiver takes any tag and learns the
 * format from the status.
 * dst/src may be MPI_PROC_NULL (nothing sent / received).
 */
#ifndef VRED_P2P_MSG_H
#define VRED_P2P_MSG_H

#include "coll/coll.h"

enum { VRED_TAG_DENSE = 7301, VRED_TAG_SPARSE = 7302 };

/* out = (received op local) if recv_left, else (local op received): n elements from src, while
 * sn elements of sbuf go to dst. out may be local; sbuf may overlap out (then the message is
 * received whole before out is written). */
int vred_msg_sendrecv_reduce(const vred_coll_args *a, const void *sbuf, size_t sn, int dst,
                             int src, const void *local, void *out, size_t n, int recv_left);

/* Plain transfers (gather, bcast, allgather phases): rbuf gets rn elements from src while sn
 * elements of sbuf go to dst. rbuf must not overlap sbuf. */
int vred_msg_sendrecv(const vred_coll_args *a, const void *sbuf, size_t sn, int dst, void *rbuf,
                      size_t rn, int src);

static inline int vred_msg_send(const vred_coll_args *a, const void *buf, size_t n, int dst)
{
    return vred_msg_sendrecv(a, buf, n, dst, NULL, 0, MPI_PROC_NULL);
}
static inline int vred_msg_recv(const vred_coll_args *a, void *buf, size_t n, int src)
{
    return vred_msg_sendrecv(a, NULL, 0, MPI_PROC_NULL, buf, n, src);
}
static inline int vred_msg_recv_reduce(const vred_coll_args *a, int src, const void *local,
                                       void *out, size_t n, int recv_left)
{
    return vred_msg_sendrecv_reduce(a, NULL, 0, MPI_PROC_NULL, src, local, out, n, recv_left);
}

#endif
