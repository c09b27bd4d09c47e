#!/usr/bin/env bash
# vred starts no thread that can call MPI (what MPI_THREAD_SINGLE and FUNNELED require), shown on
# the built libraries:
#  1. libvred.so, the kernels and the local layer with the thread pool, imports no MPI symbol:
#     nothing compiled into it can call MPI (and libvred-mpi.so does import PMPI_ symbols, so
#     the same check on it must and does find them);
#  2. in libvred-mpi.so every call of pthread_create is made from a function that libvred.so
#     defines too (the pool's), so the only threads vred makes run code of (1). The workers run
#     e->fn, a kernel of the dispatch table, and nothing else (src/local/threads.c).
# threads_funneled.c checks the same at run time.
# usage: threads_no_mpi.sh <libvred.so> <libvred-mpi.so>
set -u
lib=$1 mpilib=$2
for tool in nm objdump; do
  command -v $tool >/dev/null || { echo "threads_no_mpi: $tool missing (binutils): skipped"; exit 77; }
done
mpi_syms='^(P?MPI_|MPIX?_|ompi_|opal_|MPIR_|MPID|MPII_|MPL_|PMIX|pmix)'
imports() { nm -D --undefined-only "$1" | awk '{print $NF}' | sed 's/@.*//'; }
in_core=$(imports "$lib" | grep -cE "$mpi_syms" || true)
in_mpi=$(imports "$mpilib" | grep -cE "$mpi_syms" || true)
echo "threads_no_mpi: MPI symbols imported: $(basename "$lib") $in_core, $(basename "$mpilib") $in_mpi"
[ "$in_mpi" -gt 0 ] || { echo "threads_no_mpi: FAILED: the import check finds nothing even in the MPI library"; exit 1; }
[ "$in_core" -eq 0 ] || { echo "threads_no_mpi: FAILED: $(basename "$lib") imports MPI:"; imports "$lib" | grep -E "$mpi_syms"; exit 1; }
callers=$(objdump -d --no-show-raw-insn "$mpilib" |
          awk '/^[0-9a-f]+ <.*>:$/ {fn = substr($2, 2, length($2) - 3)} /call.*<pthread_create@plt>/ {print fn}' |
          sort -u)
[ -n "$callers" ] || { echo "threads_no_mpi: FAILED: no pthread_create call found (the pool must make its threads somewhere)"; exit 1; }
core_fns=$(nm "$lib" | awk '$2 ~ /^[tT]$/ {print $3}')
for fn in $callers; do
  echo "$core_fns" | grep -qx "$fn" ||
    { echo "threads_no_mpi: FAILED: $fn in $(basename "$mpilib") creates a thread and is not libvred.so's"; exit 1; }
done
echo "threads_no_mpi: threads are created only by $(echo $callers), which libvred.so (no MPI) defines: ok"
