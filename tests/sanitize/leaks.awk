# Sorts LeakSanitizer reports into the MPI's own leaks and everybody else's.
# A leak belongs to whoever allocated it: walking its stack from the allocation outwards, past the
# sanitizer's interceptors and the C library's helpers (strdup, vasprintf, fopen, the loader), the
# first frame decides. A frame symbolized to a file under the vred source tree (-v src=DIR; vred and
# its tests are built with -g) makes it vred's: those fail. Any other frame is a library's: the
# MPI's, PMIx, hwloc, libevent, UCX, or a component the MPI has dlclose()d by exit time (shown as
# an unknown module, or under a wrong module with no symbol). A stack of helpers only is
# unclassified, and fails too.
# Prints one line per vred or unclassified leak (with its stack) and a count line; exits 1 if any.
function flush(   i, verdict, f) {
  if (!inleak) return
  verdict = "unclassified"
  for (i = 1; i <= nf; i++) {
    f = frame[i]
    if (f ~ /libsanitizer|asan_|lsan_|ubsan_/) continue
    # " DIR/..." is a source location; "(DIR/build/...so+0x...)" is only a module, and a build
    # directory inside the source tree must not make an unloaded component's frame vred's
    if (index(f, " " src "/") > 0) { verdict = "vred"; break }
    if (f ~ /libc\.so|ld-linux|libstdc\+\+|libgcc_s/) continue
    # glibc's own frames, symbolized with its relative source paths (libio/vasprintf.c, ...)
    if (f ~ / in [^ ]+ (\.\.\/)*[a-z_]+\/[^ ]+\.[ch]:[0-9]+/ && index(f, " /") == 0) continue
    verdict = "mpi"
    break
  }
  if (verdict == "mpi") mpi++
  else {
    bad++
    print "LEAK (" verdict "): " head
    for (i = 1; i <= nf && i <= 12; i++) print "    " frame[i]
  }
  inleak = 0
}
/^(Direct|Indirect) leak of/ { flush(); inleak = 1; head = $0; nf = 0; next }
inleak && /^ +#[0-9]+ / { sub(/^ +/, ""); frame[++nf] = $0; next }
inleak { flush() }
END {
  flush()
  printf "leaks: %d the MPI libraries' own (allowed), %d vred's or unclassified\n", mpi, bad
  exit bad > 0
}
