#!/usr/bin/env bash
# Builds libzarr and runs the example program, which writes and reads an array on the
# local file system (build/example_data.zarr).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2 --target example
./build/examples/example build/example_data.zarr
