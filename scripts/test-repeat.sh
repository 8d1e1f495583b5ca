#!/usr/bin/env bash
# Run one test (or any pytest arguments) N times in a row, each on a fresh test database, and
# print a summary: how many passed, the failures' run numbers, and the median and slowest
# duration. A test that depends on processes, timing or the broker is trusted only after this.
#
#   scripts/test-repeat.sh 20 tests/evaluation/test_run_parts_workers.py
#
# Each run's output goes to var/test-repeat/run-<i>.log; the summary to var/test-repeat/summary.txt.
set -u
cd "$(dirname "$0")/.."
runs=${1:?usage: scripts/test-repeat.sh N PYTEST_ARGS...}
shift
out=var/test-repeat
mkdir -p "$out"
: > "$out/durations"
failed=()
for i in $(seq 1 "$runs"); do
  start=$(date +%s%N)
  if .venv/bin/python -m pytest -q -p no:cacheprovider --create-db "$@" > "$out/run-$i.log" 2>&1; then
    result=passed
  else
    result=FAILED
    failed+=("$i")
  fi
  seconds=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN {printf "%.1f", ns / 1e9}')
  echo "$seconds" >> "$out/durations"
  printf '%s run %2d/%d %s in %s s: %s\n' "$(date -u +%H:%M:%S)" "$i" "$runs" "$result" \
    "$seconds" "$(tail -n 1 "$out/run-$i.log")" | tee -a "$out/summary.txt"
done
sorted=$(sort -n "$out/durations")
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
slowest=$(echo "$sorted" | tail -n 1)
printf 'summary: %d/%d passed; failed runs: %s; median %.1f s, slowest %.1f s; load average %s\n' \
  "$((runs - ${#failed[@]}))" "$runs" "${failed[*]:-none}" "$median" "$slowest" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/summary.txt"
[ ${#failed[@]} -eq 0 ]
