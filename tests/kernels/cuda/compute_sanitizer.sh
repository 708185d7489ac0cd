#!/usr/bin/env bash
# The GPU suite under compute-sanitizer, one process per test, JOBS at a time (the tools
# slow a kernel 10-100x; the suite's tests are independent, so they run side by side on one
# device). Appends one line per test to OUT_DIR/summary.txt as it ends, prints them sorted
# and a total; exits non-zero when any test failed, had a sanitizer error, or ran past
# TIMEOUT seconds.
# Usage: compute_sanitizer.sh TOOL TEST_BINARY OUT_DIR [JOBS] [TIMEOUT] [GTEST_FILTER|@LIST]
#   @LIST: a file of test names (Suite.Test), one a line, run in that order.
#   TOOL: memcheck | racecheck | initcheck | synccheck
#   WARPWATCH_TEST_SHRINK=N in the environment (tests/support/conformance/conformance.hpp)
#   runs the conformance scenarios N times smaller: the largest tests then finish under a
#   tool. Each log's "[ shrink ]" line says when it was set.
# memcheck runs with --leak-check full. The process-lifetime DeviceContext
# (kernels/cuda/device_context.hpp) is never destroyed by design, so what its engine holds
# at exit is reported as leaked: those blocks (an allocation under ElasticEngine or
# DeviceContext) are counted apart, and every other leaked block is an error.
set -uo pipefail
tool=${1:?tool}
bin=${2:?test binary}
out=${3:?output folder}
jobs=${4:-8}
limit=${5:-500}
filter=${6:-*}
mkdir -p "$out"
: > "$out/summary.txt"
if [[ $filter == @* ]]; then
  mapfile -t tests < "${filter#@}"
else
  mapfile -t tests < <("$bin" --gtest_list_tests --gtest_filter="$filter:-*DISABLED_*" | awk '
    /^[^ ]/ { suite = $1; next }
    /^  /   { print suite $1 }')
fi
export tool bin out limit
run_one() {
  local name=$1 log="$out/$1.log"
  local extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  local start=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" "${extra[@]}" "$bin" \
    --gtest_filter="$name" > "$log" 2>&1
  local status=$?
  # Leaked blocks: those of the process-lifetime context, and the others.
  local leaks
  leaks=$(awk '/Leaked [0-9,]+ bytes/ { if (inblock) n[own]++; inblock = 1; own = "other"; next }
               inblock && /ElasticEngine|DeviceContext/ { own = "context" }
               inblock && /^========= *$/ { n[own]++; inblock = 0 }
               END { if (inblock) n[own]++; printf "%d %d", n["context"], n["other"] }' "$log")
  local context_leaks=${leaks% *} other_leaks=${leaks#* }
  local errors
  errors=$(grep -oP '(ERROR|RACECHECK) SUMMARY: \K[0-9]+' "$log" | tail -1)
  # Errors that are not leak reports: hazards, invalid accesses, uninitialized reads.
  local access_errors=$(( ${errors:-0} - context_leaks - other_leaks ))
  local verdict=ok
  grep -q "\[  PASSED  \] 1 test" "$log" || verdict=FAILED
  [ "$status" -eq 124 ] && verdict=TIMEOUT
  # A test that makes no CUDA call (a host-side check of the kernel families) has nothing
  # for the tool to watch; it says so instead of a summary.
  local note=""
  if [ -z "$errors" ] && grep -q "terminated before first instrumented API call" "$log"; then
    note=" (no CUDA call)"
  elif [ -z "$errors" ] && [ "$verdict" = ok ]; then
    verdict=NO_SUMMARY
  fi
  { [ "$access_errors" -gt 0 ] || [ "$other_leaks" -gt 0 ]; } && verdict=SANITIZER_ERROR
  printf '%-16s %-72s errors %s (context leaks %s, other leaks %s) %ss%s\n' "$verdict" "$name" \
    "$access_errors" "$context_leaks" "$other_leaks" "$((SECONDS - start))" "$note" \
    >> "$out/summary.txt"
}
export -f run_one
printf '%s\n' "${tests[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}
sort -k2 "$out/summary.txt"
total=$(wc -l < "$out/summary.txt")
bad=$(grep -vc '^ok ' "$out/summary.txt")
echo "$tool: ${#tests[@]} tests, $total ended, $((total - bad)) clean, $bad not"
[ "$bad" -eq 0 ] && [ "$total" -eq "${#tests[@]}" ]
