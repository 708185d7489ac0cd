#!/bin/sh
# The learn benchmark (run_learn_bench.py): BUILD_DIR [DATA_DIR] [options].
exec python3 "$(dirname "$0")/run_learn_bench.py" "$@"
