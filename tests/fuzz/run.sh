#!/usr/bin/env bash
# Fuzzes every harness for a bounded time, both at once (one core each), each from a temporary
# copy of its seed corpus so the repository is never modified. Prints each harness's
# executions and what it found; a finding is kept in <build>/findings/ (replay it with
# `<build>/tests/fuzz/<harness> <file>`) and makes the exit status non-zero.
# Usage: tests/fuzz/run.sh <fuzz build dir> [seconds per harness, default 75]
set -uo pipefail
build=${1:?usage: run.sh <fuzz build dir> [seconds]}
secs=${2:-75}
here=$(cd "$(dirname "$0")" && pwd)
harnesses=(fuzz_kernels fuzz_sparse)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
findings=$build/findings
mkdir -p "$findings"

declare -A pid
for h in "${harnesses[@]}"; do
  mkdir -p "$work/$h"
  cp "$here/corpus/$h/"* "$work/$h/"
  # -timeout: one input taking 20 s is a hang, a finding too.
  "$build/tests/fuzz/$h" -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/$h-" "$work/$h" >"$work/$h.log" 2>&1 &
  pid[$h]=$!
done

status=0
for h in "${harnesses[@]}"; do
  wait "${pid[$h]}"
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$h.log")
  corpus=$(ls "$work/$h" | wc -l)
  if [ "$rc" = 0 ]; then
    echo "fuzz: $h: ${execs:-?} executions in ${secs} s, corpus $corpus inputs, no finding"
  else
    status=1
    echo "fuzz: $h: FINDING (exit $rc) after ${execs:-?} executions; the log's end:"
    tail -n 60 "$work/$h.log"
    ls -1 "$findings/$h-"* 2>/dev/null | sed 's/^/fuzz: kept /'
  fi
done
exit $status
