#!/bin/bash
# Every VRED_* knob (the Settings table vred-info prints from src/config.c) with a malformed value:
# exactly one message on stderr, naming the variable and the accepted values, and the default in
# effect (vred-info shows the default, "[malformed]", and every other knob as without it). A
# well-formed value: no message, "[set]". Then, through libvred-mpi in an MPI job, one message per
# process for each knob (VRED_TUNE_FILE: an unreadable file, read by one rank, once).
#
# usage: config_knobs.sh [--mpi-only] VRED_INFO [MPIEXEC... -- MPI_EXE]
#   MPI_EXE: test_mpi_bad_input (its --valid mode); --mpi-only: the vred-info checks were done
#   (by the first MPI flavor's test: they do not depend on the MPI).
set -u
info_checks=1
[ "$1" = --mpi-only ] && { info_checks=0; shift; }
info=$1
shift
mpiexec=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do mpiexec+=("$1"); shift; done
[ $# -gt 0 ] && shift
mpi_exe=${1:-}

# Start from no VRED_* at all.
for v in $(env | grep -o '^VRED_[A-Z0-9_]*'); do unset "$v"; done
ALGS="auto mpi binomial redscat ring recdbl ma dpml pipe cma"
fail=0
tried=0
errfile=$(mktemp)
trap 'rm -f "$errfile"' EXIT
base=$("$info" 2>/dev/null | sed -n '/^Settings/,$p' | grep '^  VRED_')
[ -n "$base" ] || { echo "FAIL: no Settings table from $info"; exit 1; }
knobs=$(awk '{print $1}' <<<"$base")

# The knob's line: name, value, state, (accepted), help.
field() { grep "^  $1 " <<<"$2" | awk -v f="$3" '{print $f}'; }
accepted_of() { grep "^  $1 " <<<"$base" | sed 's/^[^(]*(\([^)]*\)).*/\1/'; }

# check NAME VALUE malformed|set: run vred-info with NAME=VALUE and check what it says.
check() {
    local name=$1 value=$2 want=$3 acc def out err lines state shown
    acc=$(accepted_of "$name")
    def=$(field "$name" "$base" 2)
    out=$(env "$name=$value" "$info" 2>"$errfile" | sed -n '/^Settings/,$p' | grep '^  VRED_')
    err=$(cat "$errfile")
    lines=$(grep -c . <<<"$err")
    state=$(field "$name" "$out" 3)
    shown=$(field "$name" "$out" 2)
    tried=$((tried + 1))
    local why=""
    if [ "$want" = malformed ]; then
        [ "$lines" = 1 ] || why="$lines messages"
        grep -qF "$name" <<<"$err" && grep -qF "$acc" <<<"$err" ||
            why="$why; the message does not name $name and $acc"
        [ "$shown" = "$def" ] && [ "$state" = "[malformed]" ] ||
            why="$why; in effect: $shown $state, not the default $def [malformed]"
    else
        # (A well-formed value this build cannot honour, VRED_ISA=sve on x86: one message.)
        [ -z "$err" ] || { [ "$lines" = 1 ] && grep -q "^vred: $name=.* of this build" <<<"$err"; } ||
            why="a message: $err"
        [ "$state" = "[set]" ] || why="$why; state $state"
    fi
    # Every other knob as without it.
    [ "$(grep -v "^  $name " <<<"$out")" = "$(grep -v "^  $name " <<<"$base")" ] ||
        why="$why; other knobs changed"
    if [ -n "$why" ]; then
        echo "FAIL $name='$value' ($want): ${why#; }"
        fail=$((fail + 1))
    fi
}

for name in $knobs; do
    [ $info_checks = 1 ] || break
    acc=$(accepted_of "$name")
    if [[ $acc =~ ^([0-9]+)\.\.([0-9]+)$ ]]; then
        lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
        for v in abc -1 $((hi + 1)) 12x 1.5 0x10 99999999999999999999; do check "$name" "$v" malformed; done
        check "$name" "$hi" set
        check "$name" "$lo" set
    elif [[ $acc == *"|"* ]]; then
        check "$name" bogus malformed
        up=$(tr a-z A-Z <<<"${acc%%|*}")
        [ "$up" = "${acc%%|*}" ] || check "$name" "$up" malformed
        check "$name" "${acc%%|*} " malformed
        for v in ${acc//|/ }; do check "$name" "$v" set; done
        # An algorithm knob: the names its collective lacks are malformed too.
        if [[ $name == *_ALG ]]; then
            for v in $ALGS; do
                [[ "|$acc|" == *"|$v|"* ]] || check "$name" "$v" malformed
            done
        fi
    elif [ "$name" = VRED_TEST_FAIL ]; then
        # POINT:RANK[:N] (testing only, src/coll/fail.c).
        for v in bogus pmpi alloc: step:-1 step:1:0 pmpi:1x 'pmpi:1 ' ALLOC:1; do
            check "$name" "$v" malformed
        done
        for v in off alloc:0 pmpi:1:3 step:2; do check "$name" "$v" set; done
    else
        # A path: any text is well formed; an unreadable file is checked in the MPI job.
        check "$name" /some/file set
    fi
done
[ $info_checks = 0 ] || echo "vred-info: $(wc -w <<<"$knobs") knobs, $tried values, $fail failures"

if [ -n "$mpi_exe" ]; then
    # Every knob malformed at once in an MPI job of two ranks: one message per process for each
    # (VRED_TUNE_FILE, unreadable: one in all, from the rank that reads it, for every
    # communicator the job uses).
    setting=()
    for name in $knobs; do
        acc=$(accepted_of "$name")
        if [[ $acc =~ \.\. ]]; then setting+=("$name=abc")
        elif [[ $acc == *"|"* ]]; then setting+=("$name=bogus")
        else setting+=("$name=/nonexistent/vred-tune"); fi
    done
    err=$(env "${setting[@]}" "${mpiexec[@]}" -np 2 "$mpi_exe" --valid 2>&1 >/dev/null)
    rc=$?
    [ $rc = 0 ] || { echo "FAIL MPI job: exit status $rc"; fail=$((fail + 1)); }
    for name in $knobs; do
        want=2
        [ "$name" = VRED_TUNE_FILE ] && want=1
        got=$(grep -c "^vred: $name[=' ]" <<<"$err")
        if [ "$got" != "$want" ]; then
            echo "FAIL MPI job: $got messages naming $name (want $want)"
            fail=$((fail + 1))
        fi
    done
    others=$(grep -v -E "^vred: ($(tr ' \n' '||' <<<"$knobs" | sed 's/|*$//'))" <<<"$err" | grep .)
    [ -z "$others" ] || { echo "FAIL MPI job: other messages:"; echo "$others"; fail=$((fail + 1)); }
    echo "MPI job: $(wc -w <<<"$knobs") knobs malformed at once"
fi
echo "config_knobs: $fail failures"
[ "$fail" = 0 ]
