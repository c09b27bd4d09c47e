#!/bin/bash
# The learned selection (VRED_LEARN) end to end, in a private cache directory:
#   1. on: the first run measures each size class it meets, every rank picks alike (learn.c),
#      and rank 0 keeps one file (mode 0600 in 0700 directories) with one cell per class, the
#      pick of the run;
#   2. read: a second run picks exactly what the first did, from the file, which stays as it is;
#   3. the file decides: cells edited by hand (the MPI for allreduce and bcast at 1 MiB, ring for
#      allreduce at 4 KiB, ma with streaming stores for reduce at 64 KiB) are what the next runs
#      (read, and on) pick, and give the MPI's results;
#      An allgather cell edited to cma (4 MiB blocks) is picked, but not where one rank's buffers
#      sit 16 bytes further (single copy would run misaligned): the pipeline serves that call;
#   4. redo measures again and replaces the edited cells;
#   5. a file of another key or of garbage is not read, and is rewritten;
#   6. a class measured in one of the host's slow spells (VRED_LEARN_SPELL) is measured again
#      by the next run; again and again only where some class was measured outside a spell;
#   5b. files and directories others could have written, FIFOs, out-of-range classes and
#      overlong lines are not read (nor written into);
#   7. a duplicate of MPI_COMM_WORLD picks what world measured, from the file;
#   9. a close call is followed over runs: measured again while close=N < 5 (once per run,
#      whichever communicator), picked on the median of each candidate's ratio to the MPI over
#      the runs, then kept; a run in a slow spell adds nothing;
#   10. VRED_STATS counts the program's calls, not calibration's;
#   8. off writes nothing; a cache that cannot be written costs one warning, not the run.
# Every run also checks each result against the MPI's own (learn.c).
#
# usage: learn.sh NP MPIEXEC... -- EXE
set -u
np=$1
shift
mpiexec=()
while [ "$1" != -- ]; do mpiexec+=("$1"); shift; done
shift
exe=$1
calls=(allreduce:4096 allreduce:1048576 reduce:65536 reduce_scatter:245760 bcast:1048576
       allgather:65536 allgather:4194304 allgather:4194304:skew
       allreduce:64 reduce_scatter:96 bcast:256 allgather:8)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
dir=$XDG_CACHE_HOME/vred/learned
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run NAME: the picks of one run into $work/NAME (stderr into $work/NAME.err)
run() {
    "${mpiexec[@]}" -np "$np" "$exe" "${calls[@]}" >"$work/$1.out" 2>"$work/$1.err"
    local rc=$?
    grep '^pick ' "$work/$1.out" >"$work/$1"
    [ $rc = 0 ] || { bad "$1: exit status $rc"; cat "$work/$1.out" "$work/$1.err"; }
    [ "$(wc -l <"$work/$1")" = ${#calls[@]} ] || bad "$1: not one pick per call"
}
file() { ls "$dir"/*.txt 2>/dev/null; }
class() { # log2 of a byte count, rounded down
    local b=$1 k=0
    while [ $((b >>= 1)) -gt 0 ]; do k=$((k + 1)); done
    echo $k
}

# 1. on
VRED_LEARN=on run first
cat "$work/first"
f=$(file)
[ "$(file | wc -l)" = 1 ] || bad "on: expected one cache file, got: $(file)"
if [ -n "$f" ]; then
    [ "$(stat -c %a "$f")" = 600 ] || bad "cache file mode $(stat -c %a "$f")"
    for d in "$dir" "$(dirname "$dir")"; do
        [ "$(stat -c %a "$d")" = 700 ] || bad "directory $d mode $(stat -c %a "$d")"
    done
    grep -q '^key cpu=.*;mpi=.*;ranks='"$np"';' "$f" || bad "no key line naming CPU, MPI, ranks"
    while read -r _ coll bytes alg; do
        case $coll in *-skew) continue ;; esac # the same class as the call without
        k=$(class "$bytes")
        grep -q "^$coll $k $alg \(nt=on \)\?\(spell=[12] \)\?mpi=" "$f" || bad "no cell '$coll $k $alg' with timings in $f"
    done <"$work/first"
    # a measured cma pick from 4 MiB was timed on skewed buffers too, and the skewed call
    # followed that verdict
    if grep -q '^allgather 22 cma ' "$f"; then
        v=$(sed -n 's/^allgather 22 cma .* cma\/skewed=[0-9.e+-]* pipe\/skewed=[0-9.e+-]* skewed=\(cma\|pipe\) .*/\1/p' "$f")
        [ -n "$v" ] || bad "allgather 22 picked cma without the skewed timings: $(grep '^allgather 22 ' "$f")"
        [ -z "$v" ] || grep -qx "pick allgather-skew 4194304 $v" "$work/first" ||
            bad "skewed=$v, yet the skewed allgather picked: $(grep 'allgather-skew' "$work/first")"
    fi
    cat "$f"
    cp "$f" "$work/kept"
fi

# 2. read: the same picks, the file untouched
VRED_LEARN=read run second
cmp -s "$work/first" "$work/second" || { bad "read: picks differ from the first run"; diff "$work/first" "$work/second"; }
[ -z "$f" ] || cmp -s "$f" "$work/kept" || bad "read: the cache file changed"

# 3. the file decides
if [ -n "$f" ]; then
    sed -i -e 's/^allreduce 20 .*/allreduce 20 mpi/' -e 's/^allreduce 12 .*/allreduce 12 ring/' \
        -e 's/^bcast 20 .*/bcast 20 mpi/' -e 's/^allgather 22 .*/allgather 22 cma/' \
        -e 's/^reduce 16 .*/reduce 16 ma nt=on/' "$f"
    for mode in read on; do
        VRED_LEARN=$mode run edited_$mode
        for want in "allreduce 1048576 mpi" "allreduce 4096 ring" "bcast 1048576 mpi" \
                    "reduce 65536 ma"; do
            grep -qx "pick $want" "$work/edited_$mode" || bad "$mode after editing: no 'pick $want'"
        done
        # cma needs cross-memory attach (the node's probe); where it works the skewed call must
        # leave it for the pipeline
        if grep -qx "pick allgather 4194304 cma" "$work/edited_$mode"; then
            grep -qx "pick allgather-skew 4194304 pipe" "$work/edited_$mode" ||
                bad "$mode: skewed allgather did not leave cma for pipe: $(grep skew "$work/edited_$mode")"
        else
            echo "note: $mode: allgather 4194304 did not pick the edited cma (no cross-memory attach here?)"
        fi
    done
    # calibration found cma faster than the pipeline on skewed buffers as well: it stays
    sed -i -e 's/^allgather 22 .*/allgather 22 cma cma\/skewed=1e-3 pipe\/skewed=2e-3 skewed=cma/' "$f"
    VRED_LEARN=read run edited_skew
    if grep -qx "pick allgather 4194304 cma" "$work/edited_skew"; then
        grep -qx "pick allgather-skew 4194304 cma" "$work/edited_skew" ||
            bad "skewed=cma: skewed allgather left cma: $(grep skew "$work/edited_skew")"
    else
        echo "note: allgather 4194304 did not pick the edited cma (no cross-memory attach here?)"
    fi
    grep -qx 'allreduce 20 mpi' "$f" || bad "on: a cell that was known got measured again"
    grep -qx 'reduce 16 ma nt=on' "$f" || bad "on: the cell with streaming stores got measured again"

    # 4. redo
    VRED_LEARN=redo run redo
    grep -q '^allreduce 20 [a-z]* \(nt=on \)\?\(spell=[12] \)\?mpi=' "$f" || bad "redo: allreduce 20 not measured again"
    grep -q '^bcast 20 [a-z]* \(nt=on \)\?\(spell=[12] \)\?mpi=' "$f" || bad "redo: bcast 20 not measured again"

    # 5. another key, garbage
    printf 'key cpu=elsewhere\nallreduce 20 ring\n' >"$f"
    VRED_LEARN=read run foreign
    grep -qx 'pick allreduce 1048576 ring' "$work/foreign" && bad "a file of another key was read"
    printf '\001\002 garbage\nallreduce\nallreduce 99 ma\n' >"$f"
    VRED_LEARN=on run garbage
    grep -q '^key cpu=' "$f" || bad "on: a garbage file was not rewritten"

    # 5b. only what the user alone could have written is read: not a file others may write,
    #     not a FIFO (it would hold rank 0 in open while its peers wait), not a class number
    #     past the range (4294967316 wraps to 20 in an int), not the tail of an overlong line;
    #     and a cache directory others may write is not written into
    good=$(grep -v '^allreduce 20 \|^allreduce 12 ' "$f")
    { echo "$good"; echo 'allreduce 20 ring'; } >"$f"
    chmod 666 "$f"
    VRED_LEARN=read run writable
    grep -qx 'pick allreduce 1048576 ring' "$work/writable" && bad "read a cache file others may write"
    chmod 600 "$f"
    { echo "$good"; echo 'allreduce 4294967316 ring'
      printf 'reduce 21 ma%1200s allreduce 12 ring\n' ''; } >"$f"
    VRED_LEARN=read run hostile
    grep -qx 'pick allreduce 1048576 ring' "$work/hostile" && bad "class 4294967316 read as 20"
    grep -qx 'pick allreduce 4096 ring' "$work/hostile" && bad "an overlong line's tail read as a cell"
    rm -f "$f"
    mkfifo "$f"
    VRED_LEARN=read timeout -k 5 60 "${mpiexec[@]}" -np "$np" "$exe" "${calls[@]}" \
        >"$work/fifo.out" 2>&1
    [ $? = 124 ] && bad "a FIFO at the cache file's path held the run"
    rm -f "$f"
    chmod 777 "$dir"
    VRED_LEARN=on run shared_dir
    [ -z "$(file)" ] || bad "wrote into a cache directory others may write"
    grep -q 'cannot keep the learned selection' "$work/shared_dir.out" "$work/shared_dir.err" ||
        bad "no warning for a cache directory others may write"
    chmod 700 "$dir"
fi

# 6. slow spells: with VRED_LEARN_SPELL=1 every class counts as measured in one. The first run
#    marks every cell spell=1, the next measures each again and marks it spell=2, the third
#    measures nothing (no cell was ever measured outside a spell: the file stays as it is).
#    Every cell carries the probe's ratio.
rm -rf "$dir"
for pass in 1 2 3; do
    VRED_LEARN_SPELL=1 VRED_LEARN=on run spell$pass
    f=$(file)
    [ -n "$f" ] || { bad "spell pass $pass: no cache file"; break; }
    cells=$(grep -vc '^#\|^key ' "$f")
    [ "$cells" -gt 0 ] || bad "spell pass $pass: no cells"
    want=$((pass < 3 ? pass : 2))
    n=$(grep -c " spell=$want .*ordinary/streaming=[0-9.]*\$" "$f")
    [ "$n" = "$cells" ] || { bad "spell pass $pass: $n of $cells cells spell=$want with a ratio"; cat "$f"; }
    [ $pass = 3 ] && ! cmp -s "$f" "$work/spell_kept" && bad "spell pass 3: a spell=2 cell was measured again"
    cp "$f" "$work/spell_kept"
done
if [ -n "$f" ]; then
    # The default threshold: a cell marked spell=1 by hand is measured again, the others not.
    sed -i -e 's/^allreduce 20 .*/allreduce 20 mpi spell=1/' "$f"
    VRED_LEARN=on run spell_default
    grep -q '^allreduce 20 [a-z]* \(nt=on \)\?\(spell=2 \)\?mpi=' "$f" || bad "spell=1 by hand: allreduce 20 not measured again"
    grep '^bcast 20 ' "$f" | grep -q ' spell=2 ' || bad "spell=2: bcast 20 measured again"
    # Once this machine measured some class outside a spell, spell=2 cells are measured again
    # too: here in the file of another MPI (the same CPU), then in this file.
    other=$dir/0000000000000000.txt
    sed -i -e 's/^allreduce 20 .*/allreduce 20 mpi spell=2/' "$f" # no quiet cell in this file
    grep '^key ' "$f" | sed 's/;mpi=[^;]*;/;mpi=another MPI;/' >"$other"
    echo 'allreduce 20 mpi mpi=1e-4 ordinary/streaming=0.50' >>"$other"
    VRED_LEARN_SPELL=1 VRED_LEARN=on run spell_quiet_elsewhere
    grep '^bcast 20 ' "$f" | grep -q ' spell=3 ' || { bad "spell=2, another file quiet: bcast 20 not measured again"; cat "$f"; }
    rm -f "$other"
    sed -i -e 's/^allreduce 20 .*/allreduce 20 mpi mpi=1e-4 ordinary\/streaming=0.50/' "$f"
    VRED_LEARN_SPELL=1 VRED_LEARN=on run spell_quiet_here
    grep '^bcast 20 ' "$f" | grep -q ' spell=4 ' || { bad "spell=3 beside a quiet cell: bcast 20 not measured again"; cat "$f"; }
    grep -qx 'allreduce 20 mpi mpi=1e-4 ordinary/streaming=0.50' "$f" || bad "a quiet cell was measured again"
fi

# 7. two communicators of one shape (world and a duplicate, both made before any class is
#    learned): the duplicate takes the classes world measured from the file instead of
#    measuring them again, so the two pick alike and the file keeps one answer
rm -rf "$dir"
LEARN_DUP=1 VRED_LEARN=on run dup
grep '^dup-pick ' "$work/dup.out" | sed 's/^dup-//' >"$work/dup.twin"
cmp -s "$work/dup" "$work/dup.twin" ||
    { bad "the duplicate communicator picked otherwise than world"; diff "$work/dup" "$work/dup.twin"; }

# 9. close calls followed over runs (learn_pick.h, VRED_LEARN_RUNS): a cell kept with the
#    history of earlier runs (close=N, each of vred's candidates' time over the MPI's per run)
#    is measured again by the next run, which adds its ratios and picks on the median over the
#    runs; at close=5 it stands. The 4 KiB allreduce's candidates come from a measured line.
#    Histories are edited in so that the verdict is known whatever this run measures. Runs
#    without the spell probe (VRED_LEARN_SPELL=0), but for the spell step, and of that one call
#    alone (each run measures only its class).
rm -rf "$dir"
all_calls=("${calls[@]}")
calls=(allreduce:4096)
VRED_LEARN_SPELL=0 VRED_LEARN=on run close0
f=$(file)
line=$(grep '^allreduce 12 ' "$f" 2>/dev/null)
names=$(echo "$line" | grep -o ' [a-z]*\(/nt\)\?=[0-9]' | sed 's/^ //; s/=.*//' |
        grep -vx 'mpi\|spell\|close')
first=$(echo "$names" | head -n 1)
hist() { # hist N FIRST OTHERS: a close=N history, FIRST and OTHERS comma-separated lists
    local out=" close=$1" n
    for n in $names; do
        if [ "$n" = "$first" ]; then out="$out $n/mpi=$2"; else out="$out $n/mpi=$3"; fi
    done
    echo "$out"
}
cell() { grep '^allreduce 12 ' "$f"; }
edit() { sed -i "s|^allreduce 12 .*|allreduce 12 $1|" "$f"; }
# followed only where the MPI's call takes at most 1 ms: a loaded machine can take longer
slow() {
    local t
    t=$(cell | sed -n 's/.* mpi=\([0-9.e+-]*\).*/\1/p')
    awk -v t="$t" 'BEGIN { exit !(t > 1e-3) }' || return 1
    echo "note: close: $1: the MPI's 4 KiB allreduce took $t s, past what is followed; not checked"
}
if [ -z "$line" ] || [ -z "$first" ]; then
    bad "close: no measured allreduce 12 cell with vred candidates: '$line'"
else
    w=${first%/nt}
    # vred 5x slower in two earlier runs: whatever this run measures, the median keeps the MPI
    edit "dpml$(hist 2 5,5 5,5)"
    VRED_LEARN_SPELL=0 VRED_LEARN=on run close1
    if ! slow close1; then
        grep -qx 'pick allreduce 4096 mpi' "$work/close1" || bad "close=2 at 5x: not the MPI: $(grep 'allreduce 4096' "$work/close1")"
        case $(cell) in "allreduce 12 mpi "*" close=3 "*) ;; *) bad "close=2: not measured again into close=3: $(cell)" ;; esac
        for n in $names; do
            cell | grep -q " $n/mpi=5,5,[0-9.e+-]*\( \|\$\)" || bad "close=3: $n's history is not 5,5,this run's: $(cell)"
        done
    fi
    # the first candidate at half the MPI's time in three earlier runs: picked over four
    edit "mpi$(hist 3 0.5,0.5,0.5 5,5,5)"
    VRED_LEARN_SPELL=0 VRED_LEARN=on run close2
    if ! slow close2; then
        grep -qx "pick allreduce 4096 $w" "$work/close2" || bad "close=3, $first at 0.5x: not picked: $(grep 'allreduce 4096' "$work/close2")"
        cell | grep -q "^allreduce 12 $w .* close=4 " || bad "close=3: not measured again into close=4: $(cell)"
    fi
    # four runs: of the two middle ratios the larger decides (0.5, 1.5, 1.5 and this run's: 1.5;
    # the smaller would pick vred wherever this run measured it under 1.5x the MPI)
    edit "$w$(hist 3 0.5,1.5,1.5 5,5,5)"
    VRED_LEARN_SPELL=0 VRED_LEARN=on run close3
    slow close3 || grep -qx 'pick allreduce 4096 mpi' "$work/close3" ||
        bad "close=3 at 0.5,1.5,1.5: not the MPI: $(grep 'allreduce 4096' "$work/close3")"
    # five runs: the median, not the mean (0.5, 0.5, 0.5, 9 and this run's: 0.5), then it stands
    edit "mpi$(hist 4 0.5,0.5,0.5,9 5,5,5,5)"
    VRED_LEARN_SPELL=0 VRED_LEARN=on run close4
    if ! slow close4; then
        grep -qx "pick allreduce 4096 $w" "$work/close4" || bad "close=4 at 0.5,0.5,0.5,9: not $w: $(grep 'allreduce 4096' "$work/close4")"
        cell | grep -q "^allreduce 12 $w .* close=5 " || bad "close=4: not measured again into close=5: $(cell)"
        kept=$(cell)
        VRED_LEARN_SPELL=0 VRED_LEARN=on run close5
        grep -qx "pick allreduce 4096 $w" "$work/close5" || bad "close=5: the kept pick ($w) not followed"
        [ "$(cell)" = "$kept" ] || bad "close=5: the cell was measured again: $(cell)"
    fi
    # a duplicate of world made after world's calls: one more run in the cell, not two
    edit "dpml$(hist 2 5,5 5,5)"
    LEARN_DUP=late VRED_LEARN_SPELL=0 VRED_LEARN=on run close_dup
    if ! slow close_dup; then
        cell | grep -q " close=3 " || bad "late duplicate: close=2 did not become close=3: $(cell)"
        grep '^dup-pick ' "$work/close_dup.out" | sed 's/^dup-//' >"$work/close_dup.twin"
        cmp -s "$work/close_dup" "$work/close_dup.twin" ||
            { bad "the late duplicate picked otherwise than world"; diff "$work/close_dup" "$work/close_dup.twin"; }
    fi
    # a run in a slow spell (every class one with VRED_LEARN_SPELL=1) adds nothing: the kept
    # runs decide and stay; the next run outside a spell measures the class and adds to them
    edit "dpml$(hist 2 5,5 5,5)"
    VRED_LEARN_SPELL=1 VRED_LEARN=on run close_spell
    grep -qx 'pick allreduce 4096 mpi' "$work/close_spell" || bad "spell over close=2 at 5x: not the MPI"
    cell | grep -q " spell=1 .* close=2 " || bad "spell over close=2: history not kept as it was: $(cell)"
    cell | grep -q " $first/mpi=5,5\( \|\$\)" || bad "spell over close=2: $first's history changed: $(cell)"
    VRED_LEARN_SPELL=0 VRED_LEARN=on run close_after
    slow close_after || cell | grep -q " close=3 " || bad "after the spell: close=2 not measured again into close=3: $(cell)"
    # a history of other candidates (edited, or another set) starts again from this run
    edit "ring close=2 bogus/mpi=0.1,0.1"
    VRED_LEARN_SPELL=0 VRED_LEARN=on run close_bogus
    case $(cell) in *bogus*|*" close=3 "*) bad "a history of other candidates was carried on: $(cell)" ;; esac
fi
calls=("${all_calls[@]}")

# 10. the calibrating calls (made through vred's own entries) are not the application's:
#     VRED_STATS counts each collective's calls as the program made them on every rank, two per
#     argument (the MPI's and the automatic one) and learn.c's last allreduce, every class
#     measured afresh (redo)
VRED_STATS=sum VRED_LEARN=redo run stats
for coll in allreduce reduce reduce_scatter bcast; do
    last=0
    [ $coll = allreduce ] && last=1
    want=$((($(printf '%s\n' "${calls[@]}" | grep -c "^$coll:") * 2 + last) * np))
    got=$(cat "$work/stats.out" "$work/stats.err" |
          sed -n "s/^vred-stats rank=all coll=$coll .* calls=\([0-9]*\) .*/\1/p" |
          awk '{ n += $1 } END { print n + 0 }')
    [ "$got" = "$want" ] || bad "VRED_STATS with classes measured: $got $coll calls counted, the program made $want"
done

# 8. off, and a cache that cannot be written
rm -rf "$dir"
VRED_LEARN=off run off
[ -z "$(file)" ] || bad "off: a cache file was written"
touch "$work/not-a-directory" # even root cannot make a directory under a file
XDG_CACHE_HOME=$work/not-a-directory VRED_LEARN=on run unwritable
n=$(cat "$work/unwritable.out" "$work/unwritable.err" | grep -c 'cannot keep the learned selection')
[ "$n" = 1 ] || bad "unwritable cache: expected one warning, got $n"
cmp -s "$work/first" "$work/unwritable" || echo "note: picks measured again differ from the first run's"

[ $fail = 0 ] && echo "PASS: learned selection, $np ranks"
exit $fail
