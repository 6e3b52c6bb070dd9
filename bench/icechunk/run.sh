#!/usr/bin/env bash
# The Icechunk benchmark (see bench/icechunk/README.md). Not part of CI.
# Usage: bash bench/icechunk/run.sh [--size-mib 256] [--gib] [--layout chunks|sharded]
#                                   [--reps 5] [--chunk-reps 25]
# --gib is --size-mib 1024.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [ ! -f build/CMakeCache.txt ]; then
  source scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j2 --target zarr_cargo
# The Python 3.12 venv (icechunk-python 2.3, zarr-python 3.4), as the tests install it.
bash interop/setup_venv312.sh build/py312-venv
mkdir -p build/bench-icechunk
cc -O2 -std=c99 -Wall -Wextra -Iinclude bench/icechunk/read_icechunk.c \
  -o build/bench-icechunk/read_icechunk \
  -Lbuild/cargo/release -lzarr -Wl,-rpath,"$PWD/build/cargo/release"
args=()
for a in "$@"; do
  if [ "$a" = "--gib" ]; then args+=(--size-mib 1024); else args+=("$a"); fi
done
exec build/py312-venv/bin/python -W ignore bench/icechunk/bench.py "${args[@]}"
