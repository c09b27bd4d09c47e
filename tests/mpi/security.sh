#!/usr/bin/env bash
# The shared region's security, checked from outside a running job (docs/reliability.md):
#  1. libvred-mpi.so and libvred.so import nothing that needs privileges or attaches to another
#     process (ptrace, prctl (PR_SET_PTRACER would open this process to others), raw syscall(),
#     module loading, set*id, capabilities), and neither asks for an executable stack. The one
#     way into another process's memory is cross-memory attach, and only libvred-mpi.so may
#     import it (process_vm_readv/writev: the single-copy bcast, allgather and reductions,
#     docs/shm.md);
#  2. under strace, with the named segment (VRED_SHM_MEMFD=off), every /dev/shm/vred-* segment
#     is created with O_CREAT|O_EXCL and mode 0600, named /vred-<uid>-<32 hex digits> (128
#     random bits), opened by the other ranks without O_CREAT, and unlinked; two runs (30
#     regions each) never reuse a name; nothing is left, and nothing vred made in /dev/shm is
#     writable by others; by default (a memfd, coll/shm/region.c), every region is a memfd made
#     0600, which the other rank opens through /proc/<pid>/fd of a process of the same job, and
#     nothing of vred's is opened in /dev/shm; in the same traces, no process of the job calls
#     ptrace, and every process_vm_readv/writev (vred's probe of each region reads and writes,
#     and the MPI's own) targets a process of the same job (a pid the trace follows);
#  3. as an unprivileged user (root only: setpriv to nobody), the region is made and checked
#     (mapped and unlinked, a memfd by default; with the named segment, made by that user with
#     O_EXCL and 0600, under strace) and the collectives test passes;
#  4. with cross-memory attach denied by the kernel (deny_cma: a seccomp filter, as in a
#     container), vred's bcast and allgather fall back to the pipeline through the segment, and
#     its reductions forced to "cma" to its other algorithms, and give the MPI's results
#     (coll_move and coll --cma=no check both).
# Exit 1 on a failed check; 77 if a part could not run (strace or setpriv missing, not root),
# after running the others; the message names what to install.
# usage: security.sh <mpiexec and its options...> -- <shm_safety> <coll test> <libvred-mpi.so> <libvred.so> <deny_cma> <coll_move test>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
safety=$1 coll=$2 mpilib=$3 lib=$4 deny=$5 move=$6
failed=0 skipped=""
fail() { echo "security: FAILED: $*"; failed=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. What the libraries import.
forbidden='ptrace|prctl|syscall|init_module|finit_module|delete_module|set(e|re|res)?[ug]id|capset|cap_set_proc|personality'
for l in "$mpilib" "$lib"; do
  refused="$forbidden"
  [ "$l" = "$mpilib" ] || refused="$refused|process_vm_readv|process_vm_writev"
  bad=$(nm -D --undefined-only "$l" | awk '{print $NF}' | sed 's/@.*//' | grep -xE "$refused" || true)
  [ -z "$bad" ] || fail "$(basename "$l") imports: $(echo $bad)"
  if readelf -lW "$l" | grep -q 'GNU_STACK.*RWE'; then fail "$(basename "$l") asks for an executable stack"; fi
done
cma=$(nm -D --undefined-only "$mpilib" | awk '{print $NF}' | sed 's/@.*//' | grep -xE 'process_vm_readv|process_vm_writev' | paste -sd' ')
echo "security: imports of $(basename "$mpilib") and $(basename "$lib"): none that attaches to another process or needs privileges; cross-memory attach: ${cma:-none} ($(basename "$mpilib") only)"

# 2. How segments are created, named and removed.
if ! command -v strace >/dev/null; then
  skipped="$skipped strace (apt-get install strace)"
elif ! strace -f -qq -o /dev/null true 2>/dev/null; then
  skipped="$skipped strace (installed, but ptrace is not allowed here)"
else
  for run in 1 2 3; do
    # Runs 1 and 2 with the named segment, run 3 with the memfd (the default).
    named=(env VRED_SHM_MEMFD=off)
    [ "$run" -eq 3 ] && named=()
    strace -f -qq -o "$tmp/trace$run" -e trace=openat,unlink,fchmod,memfd_create,ptrace,process_vm_readv,process_vm_writev \
      "${named[@]}" "${launch[@]}" -np 2 "$safety" --cycles 30 >"$tmp/out$run" 2>&1 ||
      { cat "$tmp/out$run"; fail "the traced run $run failed"; }
    awk '{print $1}' "$tmp/trace$run" | sort -u > "$tmp/pids$run"
    if [ "$run" -eq 3 ]; then
      made=$(grep -cE '^[0-9]+ +memfd_create\("vred", MFD_CLOEXEC[^)]*\) += [0-9]' "$tmp/trace3" || true)
      [ "$made" -ge 30 ] || fail "run 3: $made memfds made, expected 30 (one per communicator)"
      modes=$(grep -cE '^[0-9]+ +fchmod\([0-9]+, 0600\) += 0' "$tmp/trace3" || true)
      [ "$modes" -ge "$made" ] || fail "run 3: $modes fchmod 0600 for $made memfds"
      grep -E 'openat\(.*"/proc/[0-9]+/fd/[0-9]+", O_RDWR\|O_CLOEXEC\) += [0-9]' "$tmp/trace3" |
        grep -oE '"/proc/[0-9]+/' | tr -dc '0-9\n' | sort > "$tmp/fdowners"
      [ "$(wc -l < "$tmp/fdowners")" -ge "$made" ] || fail "run 3: $(wc -l < "$tmp/fdowners") opens through /proc for $made memfds"
      outside=$(sort -u "$tmp/fdowners" | comm -23 - "$tmp/pids3" | tr '\n' ' ')
      [ -z "$outside" ] || fail "run 3: a memfd opened through a process outside the job: $outside"
      grep '/dev/shm/vred-' "$tmp/trace3" | grep -q . && fail "run 3: a /dev/shm/vred-* segment with the memfd on"
      echo "security: $made memfds made 0600, each opened by the other rank through /proc/<pid>/fd of the job's own process ($(sort -u "$tmp/fdowners" | wc -l) distinct), nothing in /dev/shm"
    fi
    [ "$run" -eq 3 ] || {
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
    }
    # Cross-memory attach: never ptrace; reads only of the job's own processes.
    grep -E '^[0-9]+ +ptrace\(' "$tmp/trace$run" | grep -q . && fail "run $run: a process of the job called ptrace"
    grep -oE '^[0-9]+ +process_vm_(readv|writev)\([0-9]+' "$tmp/trace$run" |
      sed -E 's/.*\(//' | sort -u > "$tmp/targets$run"
    [ -s "$tmp/targets$run" ] || fail "run $run: no process_vm_readv at all (vred probes each region)"
    outside=$(comm -23 "$tmp/targets$run" "$tmp/pids$run" | tr '\n' ' ')
    [ -z "$outside" ] || fail "run $run: cross-memory attach to pids outside the job: $outside"
  done
  total=$(cat "$tmp/names1" "$tmp/names2" | wc -l)
  distinct=$(cat "$tmp/names1" "$tmp/names2" | sort -u | wc -l)
  [ "$total" -eq "$distinct" ] || fail "a segment name was used twice ($distinct distinct of $total)"
  echo "security: $total segments in 2 runs, all O_CREAT|O_EXCL 0600, $distinct distinct names like $(head -1 "$tmp/names1"), all unlinked"
  count() { grep -chE "^[0-9]+ +process_vm_$1" "$tmp/trace1" "$tmp/trace2" "$tmp/trace3" | awk '{s += $1} END {print s + 0}'; }
  writes=$(count writev)
  [ "$writes" -gt 0 ] || fail "no process_vm_writev at all (vred's probe checks writes)"
  echo "security: no ptrace; process_vm_readv/writev only towards the job's own $(cat "$tmp"/targets? | sort -u | wc -l) processes ($(count readv) reads, $writes writes)"
fi
# By name: other tests running at the same time (ctest -j) have segments of their own for a moment.
for name in $(cat "$tmp"/names? 2>/dev/null); do
  [ ! -e "/dev/shm/$name" ] || fail "$name left in /dev/shm"
done
ww=$(find /dev/shm -maxdepth 1 -name 'vred-*' -perm -o+w 2>/dev/null | wc -l)
[ "$ww" -eq 0 ] || fail "$ww world-writable vred segment(s) in /dev/shm"

# 3. As an unprivileged user: copies readable by anyone, the MPI's session files in a temp dir.
launcher=$(command -v "${launch[0]}" || echo "${launch[0]}")
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
   ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$launcher"; then
  # An MPI installed under root's home (scripts/install-peers.sh's default, ~/.cache) is not
  # reachable by another user: nothing to run as nobody.
  skipped="$skipped unprivileged-run ($launcher cannot be run by uid 65534: an MPI outside /root)"
elif [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  cp "$safety" "$coll" "$mpilib" "$tmp/"
  chmod 755 "$tmp" "$tmp"/*
  mkdir "$tmp/home" && chown 65534:65534 "$tmp/home"
  as_nobody() {
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
      env -u OMPI_MCA_orte_tmpdir_base HOME="$tmp/home" TMPDIR="$tmp/home" LD_LIBRARY_PATH="$tmp" "$@"
  }
  # (/proc/self/map_files is root's only: shm_safety then skips the owner check, and the trace
  # shows the segment made by uid 65534.)
  trace=()
  strace -f -qq -o /dev/null true 2>/dev/null && trace=(strace -f -qq -o "$tmp/home/trace" -e trace=openat)
  as_nobody "${launch[@]}" -np 2 "$tmp/$(basename "$safety")" --memfd --segment > "$tmp/nobody0" 2>&1 ||
    { cat "$tmp/nobody0"; fail "shm_safety as nobody (a memfd) failed"; }
  as_nobody VRED_SHM_MEMFD=off "${trace[@]}" "${launch[@]}" -np 2 "$tmp/$(basename "$safety")" --named --segment > "$tmp/nobody1" 2>&1 ||
    { cat "$tmp/nobody1"; fail "shm_safety as nobody (named) failed"; }
  if [ -n "${trace[*]}" ]; then
    grep '"/dev/shm/vred-65534-[0-9a-f]\{32\}", O_RDWR|O_CREAT|O_EXCL.*, 0600) = [0-9]' "$tmp/home/trace" |
      grep -q . || fail "as nobody: no segment made by uid 65534 with O_EXCL and 0600"
  fi
  as_nobody "${launch[@]}" -np 2 "$tmp/$(basename "$coll")" --expect-vred --quick > "$tmp/nobody2" 2>&1 ||
    { tail -5 "$tmp/nobody2"; fail "the collectives test as nobody failed"; }
  echo "security: as uid 65534: $(grep -h 'segment:\|shm_safety:' "$tmp/nobody0" "$tmp/nobody1" | tr '\n' ' ')"
  echo "security: as uid 65534: $(grep "^coll:" "$tmp/nobody2")"
else
  skipped="$skipped unprivileged-run (needs root and setpriv from util-linux)"
fi

# 4. Cross-memory attach denied by the kernel: the pipeline serves, with the MPI's results. (Open
# MPI's own single-copy transport would be refused as well: off for this run, by its environment
# variable, which MPICH ignores; MPICH's UCX kept to its shared-memory transports, without which it
# falls back to TCP, where MPICH 4.0.2 hangs in MPI_Finalize now and then; MPICH 5.0's and Intel
# MPI's own cross-memory attach off, which abort when refused: tests/mpi/cma.cmake.)
nocma=(env OMPI_MCA_btl_vader_single_copy_mechanism=none UCX_TLS=self,sm MPIR_CVAR_CH4_CMA_ENABLE=0 I_MPI_SHM_CMA=0)
if "$deny" true 2>/dev/null; then
  "${nocma[@]}" "${launch[@]}" -np 2 "$deny" "$move" \
    --expect-vred --cma=no --sample=8:0 > "$tmp/denied" 2>&1 ||
    { tail -5 "$tmp/denied"; fail "bcast/allgather with cross-memory attach denied failed"; }
  echo "security: cross-memory attach denied (seccomp): $(grep '^coll_move:' "$tmp/denied")"
  "${nocma[@]}" "${launch[@]}" -np 2 "$deny" "$coll" \
    --expect-vred --alg=cma --cma=no --sample=4:0 > "$tmp/denied_red" 2>&1 ||
    { tail -5 "$tmp/denied_red"; fail "reductions forced to cma with cross-memory attach denied failed"; }
  echo "security: cross-memory attach denied (seccomp), reductions forced to cma: $(grep '^coll:' "$tmp/denied_red")"
else
  skipped="$skipped cma-denied (no seccomp filters in this kernel)"
fi

[ "$failed" -eq 0 ] || exit 1
if [ -n "$skipped" ]; then echo "security: passed what ran; skipped:$skipped"; exit 77; fi
echo "security: ok"
