#!/usr/bin/env bash
# Builds libzarr and everything around it, then runs the whole test suite with ctest.
# Extra arguments go to ctest (e.g. scripts/test.sh -L array).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2 "$@"
