#!/usr/bin/env bash
# /dev/shm unusable: vred must fall back to its point-to-point algorithms with one warning per
# process that tried, and give the MPI's results. Runs the collectives test (forced
# shared-memory algorithms included) in a private mount namespace (the MPI itself over TCP),
# with /dev/shm
#   full (default)  a 100 KiB tmpfs: the segment's pages cannot be reserved
#   --readonly      an empty read-only tmpfs: the segment cannot be created
#   --absent        no /dev/shm at all: a fresh /dev holding only the few devices the MPI opens
# The segment is the named one there (VRED_SHM_MEMFD=off): by default vred makes a memfd, which
# needs no /dev/shm. With --memfd it does so, and the same /dev/shm must not matter: no warning,
# and the forced shared-memory algorithms serve. With --refused rank 0 cannot make the memfd
# (VRED_TEST_FAIL=memfd:0), so the named segment follows and fails too: rank 0's warning must
# name both causes, not the full /dev/shm alone.
# Skips (77) where a mount namespace cannot be made (not root, no unshare).
# usage: shm_full.sh [--memfd|--refused] [--readonly|--absent] <mpiexec and its options...> -- <coll test binary>
set -u
mode=full memfd=0 refused=0
[ "$1" = "--memfd" ] && { memfd=1; shift; }
[ "$1" = "--refused" ] && { refused=1; shift; }
case "$1" in --readonly) mode=readonly; shift ;; --absent) mode=absent; shift ;; esac
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
exe=$1
if ! unshare -m true 2>/dev/null; then echo "shm_$mode: cannot make a mount namespace: skipped"; exit 77; fi
case $mode in
  full) setup='mount -t tmpfs -o size=100k tmpfs /dev/shm'
        why='/dev/shm is full' ;;
  readonly) setup='mount -t tmpfs -o ro,size=4k tmpfs /dev/shm'
        why='shm_open failed' ;;
  # The old /dev stays reachable under a private directory, for bind-mounting single devices.
  absent) setup='old=$(mktemp -d) && mount --rbind /dev "$old" && mount -t tmpfs -o mode=755 tmpfs /dev &&
          for d in null zero full random urandom tty; do
            touch /dev/$d && mount --bind "$old/$d" /dev/$d || exit 1; done &&
          mkdir /dev/pts && mount --rbind "$old/pts" /dev/pts && umount -l "$old" && rmdir "$old" &&
          test ! -e /dev/shm'
        why='shm_open failed' ;;
esac
log=$(mktemp)
export VRED_ALLREDUCE_ALG=ma VRED_REDUCE_ALG=dpml
if [ "$memfd" -eq 0 ]; then export TEST_SHM_UNAVAILABLE=1 VRED_SHM_MEMFD=off; fi
if [ "$refused" -eq 1 ]; then export VRED_SHM_MEMFD=auto VRED_TEST_FAIL=memfd:0; fi
# No bound (VRED_SHM_LIMIT's default, a share of /dev/shm, would shrink the regions to fit the
# 100 KiB): the reservation itself must meet the full tmpfs. The bound's own test is
# many_comms.sh.
export VRED_SHM_LIMIT=1099511627776
unshare -m --propagation private sh -c "$setup"' && exec "$@"' sh \
  "${launch[@]}" --mca btl tcp,self -np 3 "$exe" --expect-vred --quick >"$log" 2>&1
rc=$?
warnings=$(grep -c "vred: no shared memory ($why" "$log")
others=$(grep -c 'vred: no shared memory' "$log")
refusals=$(grep -c "vred: no shared memory ($why; before that, memfd_create failed)" "$log")
tail -1 "$log" | grep '^coll:' || tail -5 "$log"
echo "shm_$mode: status $rc, $warnings warning line(s) (one per process that tried to create a region)"
[ -n "${SHM_FULL_KEEP_LOG:-}" ] && cp "$log" "$SHM_FULL_KEEP_LOG"
rm -f "$log"
if [ "$refused" -eq 1 ]; then
  [ "$rc" -eq 0 ] && [ "$refusals" -eq 1 ] && [ "$others" -eq 1 ] &&
    echo "shm_$mode: ok (rank 0's warning names both causes)" && exit 0
  echo "shm_$mode: FAILED (one warning, naming the full /dev/shm and the memfd)"
  exit 1
fi
if [ "$memfd" -eq 1 ]; then
  [ "$rc" -eq 0 ] && [ "$others" -eq 0 ] && echo "shm_$mode: ok (a memfd: no /dev/shm needed)" && exit 0
  echo "shm_$mode: FAILED (with a memfd, shared memory must work without /dev/shm)"
  exit 1
fi
[ "$rc" -eq 0 ] && [ "$warnings" -ge 1 ] && [ "$warnings" -le 3 ] && [ "$others" -eq "$warnings" ] &&
  echo "shm_$mode: ok" && exit 0
echo "shm_$mode: FAILED"
exit 1
