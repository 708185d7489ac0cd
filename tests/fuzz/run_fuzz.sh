#!/usr/bin/env bash
# `make fuzz`: runs every fuzz_<name> of a WARPWATCH_FUZZ build for a bounded time each,
# starting from the tree's corpus and findings, then prints one summary row per target:
# executions, coverage (edges, features), the working corpus and the findings.
# Usage: run_fuzz.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
# New inputs go to BUILD_DIR/fuzz/corpus/<name>, crashes to BUILD_DIR/fuzz/findings/<name>;
# a finding, once fixed, is copied (minimized: fuzz_<name> -minimize_crash=1) into
# tests/fuzz/findings/<name>/ so that `make test` replays it forever.
set -euo pipefail
build=${1:?build dir}
seconds=${2:?seconds per target}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$here"/targets/fuzz_*.cpp; do n=$(basename "$f" .cpp); targets+=("${n#fuzz_}"); done
fi
rows=()
failed=0
for name in "${targets[@]}"; do
  exe=$bin/fuzz_$name
  [ -x "$exe" ] || { echo "run_fuzz: $exe is missing (build target fuzz_targets)" >&2; exit 2; }
  work=$build/fuzz/corpus/$name
  found=$build/fuzz/findings/$name
  log=$build/fuzz/$name.log
  mkdir -p "$work" "$found" "$here/corpus/$name" "$here/findings/$name"
  extra=()
  [ -f "$here/$name.options" ] && read -r -a extra < "$here/$name.options"
  echo "run_fuzz: $name for ${seconds}s (log $log)" >&2
  # -fork-free, one process: a crash ends the target's run and is counted as a finding.
  set +e
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$found/" "${extra[@]}" "$work" "$here/corpus/$name" "$here/findings/$name" \
    > "$log" 2>&1
  status=$?
  set -e
  execs=$(grep -oP 'stat::number_of_executed_units:\s*\K[0-9]+' "$log" | tail -1 || true)
  speed=$(grep -oP 'stat::average_exec_per_sec:\s*\K[0-9]+' "$log" | tail -1 || true)
  cov=$(grep -oP '\bcov: \K[0-9]+' "$log" | tail -1 || true)
  ft=$(grep -oP '\bft: \K[0-9]+' "$log" | tail -1 || true)
  corpus=$(find "$work" -type f | wc -l)
  findings=$(find "$found" -type f | wc -l)
  [ "$status" -eq 0 ] && [ "$findings" -eq 0 ] || failed=1
  rows+=("$(printf '| %-14s | %12s | %8s | %6s | %7s | %7s | %8s | %4s |' "$name" "${execs:-?}" \
    "${speed:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$findings" "$status")")
done
echo
echo "| target         |   executions |  execs/s |    cov |      ft |  corpus | findings | exit |"
echo "|----------------|-------------:|---------:|-------:|--------:|--------:|---------:|-----:|"
printf '%s\n' "${rows[@]}"
if [ "$failed" -ne 0 ]; then
  echo "run_fuzz: findings (see $build/fuzz/findings and the logs)" >&2
  exit 1
fi
