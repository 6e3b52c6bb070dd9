#!/usr/bin/env bash
# Builds libzarr and everything around it, then runs the whole test suite with ctest.
# Extra arguments go to ctest (e.g. scripts/test.sh -L array).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# The test suite is built only on request (-DZARR_BUILD_TESTS=ON; a plain configure builds
# the library, the bindings and the tool).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DZARR_BUILD_TESTS=ON
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2 "$@"
