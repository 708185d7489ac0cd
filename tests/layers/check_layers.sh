#!/usr/bin/env bash
# The layer check (check_layers.py): CMake's dependency graph of the project, configured
# afresh in a scratch folder (no tests, no CUDA: the graph of the libraries the product
# ships), then the rules. Usage: check_layers.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
src=$1 scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
if ! cmake -S "$src" -B "$scratch/build" -DWARPWATCH_BUILD_TESTS=OFF -DWARPWATCH_CUDA=OFF \
    --graphviz="$scratch/deps.dot" >"$scratch/configure.log" 2>&1; then
  cat "$scratch/configure.log"
  exit 1
fi
python3 "$(dirname "$0")/check_layers.py" "$src" "$scratch/deps.dot"
