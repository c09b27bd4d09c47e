#!/usr/bin/env bash
# One rank failing inside each algorithm (issue 15, item 5; docs/reliability.md, "One rank
# failing"): for every case below, tests/mpi/fail_one.c runs the collective with its algorithm
# forced and VRED_TEST_FAIL making world rank 1 fail inside it (a scratch allocation, a
# point-to-point send, a shared-memory round). The job must end within the time limit, either
# with every rank reporting an MPI error, or with a nonzero status and vred's message naming the
# failed rank. A case that hangs, ends with status 0 without the failure being seen (nothing
# injected), or dies without vred's message fails the test.
# usage: fail_one.sh <mpiexec and its options...> -- <fail_one binary>
set -u
launch=()
while [ "$1" != "--" ]; do launch+=("$1"); shift; done
shift
exe=$1
limit=${FAIL_ONE_TIMEOUT:-60}
# collective algorithm failure-point ranks [env]: point alloc/pmpi/step as VRED_TEST_FAIL's
cases=(
  "allreduce binomial pmpi:1 3"
  "allreduce recdbl pmpi:1 3"
  "allreduce redscat pmpi:1:2 3"
  "allreduce ring alloc:1 3"
  "allreduce ring pmpi:1:3 3"
  "allreduce dpml step:1:1 3"
  "allreduce ma step:1:3 3"
  "reduce binomial alloc:1 4"
  "reduce redscat alloc:1 3"
  "reduce_scatter ring pmpi:1:2 3"
  "reduce_scatter redscat alloc:1 3"
  "scan recdbl alloc:1 3"
  "scan recdbl pmpi:1 3"
  "bcast pipe step:1:2 3"
  "allgather pipe step:1:2 3"
  "reduce ma alloc:2 4 VRED_NODE_SIZE=2"
  "allreduce ma pmpi:2 4 VRED_NODE_SIZE=2"
  "bcast pipe pmpi:0 4 VRED_NODE_SIZE=2"
  # the automatic choice measuring its class (VRED_LEARN): a candidate failing on one rank
  "allreduce auto pmpi:1:1 2 VRED_LEARN=on XDG_CACHE_HOME=@FRESH@"
)
failures=0
log=$(mktemp)
for c in "${cases[@]}"; do
  set -- $c
  coll=$1 alg=$2 spec=$3 np=$4
  shift 4
  up=$(tr a-z A-Z <<<"$coll")
  fresh=$(mktemp -d) # an empty learned cache, where a case asks for one: measured in this run
  set -- "${@//@FRESH@/$fresh}"
  start=$(date +%s)
  env VRED_LEARN=off "VRED_${up}_ALG=$alg" "VRED_TEST_FAIL=$spec" "$@" \
    timeout -k 5 "$limit" "${launch[@]}" -np "$np" "$exe" "$coll" >"$log" 2>&1
  rc=$?
  rm -rf "$fresh"
  took=$(( $(date +%s) - start ))
  errors=$(grep -c '^fail_one: rank [0-9]*: MPI error' "$log")
  frank=$(cut -d: -f2 <<<"$spec")
  vred_msg=$(grep -c "^vred: rank $frank (pid [0-9]*): .*aborting the job" "$log")
  what="$coll $alg VRED_TEST_FAIL=$spec np=$np $*"
  if [ "$took" -ge "$limit" ]; then
    verdict="FAILED: hung (killed after ${limit} s)"
  elif [ "$rc" -eq 0 ] && [ "$errors" -eq "$np" ]; then
    verdict="ok: an MPI error on every rank"
  elif [ "$rc" -ne 0 ] && [ "$vred_msg" -ge 1 ]; then
    verdict="ok: aborted with vred's message"
  elif [ "$rc" -eq 0 ]; then
    verdict="FAILED: status 0 with $errors of $np ranks reporting an error (nothing injected?)"
  else
    verdict="FAILED: status $rc without vred's message"
  fi
  echo "fail_one: $what: ${took} s, status $rc: $verdict"
  case $verdict in FAILED*) failures=$((failures + 1)); tail -15 "$log" ;; esac
done
rm -f "$log"
echo "fail_one: ${#cases[@]} cases, $failures failed"
[ "$failures" -eq 0 ]
