#!/usr/bin/env bash
# The shared region's security, checked from outside a running job (docs/reliability.md):
#  1. libvred-mpi.so and libvred.so import nothing that reaches into other processes or needs
#     privileges (ptrace, process_vm_readv/writev, raw syscall(), module loading, set*id,
#     capabilities), and neither asks for an executable stack;
#  2. under strace, every /dev/shm/vred-* segment is created with O_CREAT|O_EXCL and mode 0600,
#     named /vred-<uid>-<32 hex digits> (128 random bits), opened by the other ranks without
#     O_CREAT, and unlinked; two runs (30 regions each) never reuse a name; nothing is left, and
#     nothing vred made in /dev/shm is writable by others;
#  3. as an unprivileged user (root only: setpriv to nobody), the region is made and checked
#     (mapped and unlinked; made by that user with O_EXCL and 0600, under strace) and the
#     collectives test passes.
# Exit 1 on a failed check; 77 if a part could not run (strace or setpriv missing, not root),
# after running the others; the message names what to install.
# usage: security.sh <mpiexec and its options...> -- <shm_safety> <coll test> <libvred-mpi.so> <libvred.so>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
safety=$1 coll=$2 mpilib=$3 lib=$4
failed=0 skipped=""
fail() { echo "security: FAILED: $*"; failed=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. What the libraries import.
for l in "$mpilib" "$lib"; do
  bad=$(nm -D --undefined-only "$l" | awk '{print $NF}' | sed 's/@.*//' |
        grep -xE 'ptrace|process_vm_readv|process_vm_writev|syscall|init_module|finit_module|delete_module|set(e|re|res)?[ug]id|capset|cap_set_proc|personality' || true)
  [ -z "$bad" ] || fail "$(basename "$l") imports: $(echo $bad)"
  if readelf -lW "$l" | grep -q 'GNU_STACK.*RWE'; then fail "$(basename "$l") asks for an executable stack"; fi
done
echo "security: imports of $(basename "$mpilib") and $(basename "$lib"): none that reaches another process or needs privileges"

# 2. How segments are created, named and removed.
if ! command -v strace >/dev/null; then
  skipped="$skipped strace (apt-get install strace)"
elif ! strace -f -qq -o /dev/null true 2>/dev/null; then
  skipped="$skipped strace (installed, but ptrace is not allowed here)"
else
  for run in 1 2; do
    strace -f -qq -o "$tmp/trace$run" -e trace=openat,unlink,fchmod \
      "${launch[@]}" -np 2 "$safety" --cycles 30 >"$tmp/out$run" 2>&1 ||
      { cat "$tmp/out$run"; fail "the traced run $run failed"; }
    grep '/dev/shm/vred-' "$tmp/trace$run" | grep openat | grep O_CREAT > "$tmp/created$run"
    n=$(wc -l < "$tmp/created$run")
    [ "$n" -ge 30 ] || fail "run $run: $n segments created, expected 30 (one per communicator)"
    grep -v 'O_EXCL' "$tmp/created$run" | grep -q . && fail "run $run: a segment created without O_EXCL"
    grep -v ', 0600) = [0-9]' "$tmp/created$run" | grep -q . && fail "run $run: a segment created with a mode other than 0600"
    grep -o '"/dev/shm/vred-[^"]*"' "$tmp/created$run" | tr -d '"' | sed 's|/dev/shm/||' > "$tmp/names$run"
    grep -vxE "vred-[0-9]+-[0-9a-f]{32}" "$tmp/names$run" | grep -q . && fail "run $run: a name without 128 random bits: $(head -1 "$tmp/names$run")"
    while read -r name; do
      grep -q "unlink(\"/dev/shm/$name\") = 0" "$tmp/trace$run" || fail "run $run: $name never unlinked"
    done < "$tmp/names$run"
    opened=$(grep '/dev/shm/vred-' "$tmp/trace$run" | grep openat | grep -vc O_CREAT || true)
    [ "$opened" -ge "$n" ] || fail "run $run: $opened opens by the other rank for $n segments"
  done
  total=$(cat "$tmp/names1" "$tmp/names2" | wc -l)
  distinct=$(cat "$tmp/names1" "$tmp/names2" | sort -u | wc -l)
  [ "$total" -eq "$distinct" ] || fail "a segment name was used twice ($distinct distinct of $total)"
  echo "security: $total segments in 2 runs, all O_CREAT|O_EXCL 0600, $distinct distinct names like $(head -1 "$tmp/names1"), all unlinked"
fi
# By name: other tests running at the same time (ctest -j) have segments of their own for a moment.
for name in $(cat "$tmp"/names? 2>/dev/null); do
  [ ! -e "/dev/shm/$name" ] || fail "$name left in /dev/shm"
done
ww=$(find /dev/shm -maxdepth 1 -name 'vred-*' -perm -o+w 2>/dev/null | wc -l)
[ "$ww" -eq 0 ] || fail "$ww world-writable vred segment(s) in /dev/shm"

# 3. As an unprivileged user: copies readable by anyone, the MPI's session files in a temp dir.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  cp "$safety" "$coll" "$mpilib" "$tmp/"
  chmod 755 "$tmp" "$tmp"/*
  mkdir "$tmp/home" && chown 65534:65534 "$tmp/home"
  as_nobody() {
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
      env HOME="$tmp/home" TMPDIR="$tmp/home" LD_LIBRARY_PATH="$tmp" "$@"
  }
  # (/proc/self/map_files is root's only: shm_safety then skips the owner check, and the trace
  # shows the segment made by uid 65534.)
  trace=()
  strace -f -qq -o /dev/null true 2>/dev/null && trace=(strace -f -qq -o "$tmp/home/trace" -e trace=openat)
  as_nobody "${trace[@]}" "${launch[@]}" -np 2 "$tmp/$(basename "$safety")" --segment > "$tmp/nobody1" 2>&1 ||
    { cat "$tmp/nobody1"; fail "shm_safety as nobody failed"; }
  if [ -n "${trace[*]}" ]; then
    grep '"/dev/shm/vred-65534-[0-9a-f]\{32\}", O_RDWR|O_CREAT|O_EXCL.*, 0600) = [0-9]' "$tmp/home/trace" |
      grep -q . || fail "as nobody: no segment made by uid 65534 with O_EXCL and 0600"
  fi
  as_nobody "${launch[@]}" -np 2 "$tmp/$(basename "$coll")" --expect-vred --quick > "$tmp/nobody2" 2>&1 ||
    { tail -5 "$tmp/nobody2"; fail "the collectives test as nobody failed"; }
  echo "security: as uid 65534: $(grep -h 'segment:\|shm_safety:' "$tmp/nobody1" | tr '\n' ' ')"
  echo "security: as uid 65534: $(grep "^coll:" "$tmp/nobody2")"
else
  skipped="$skipped unprivileged-run (needs root and setpriv from util-linux)"
fi

[ "$failed" -eq 0 ] || exit 1
if [ -n "$skipped" ]; then echo "security: passed what ran; skipped:$skipped"; exit 77; fi
echo "security: ok"
