#!/usr/bin/env bash
# The Kerchunk reference benchmark (see bench/reference/README.md). Not part of CI.
# Usage: bash bench/reference/run.sh [--size-gib 1] [--reps 3]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [ ! -f build/CMakeCache.txt ]; then
  source scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j2 --target zarr_cargo
# h5py, kerchunk and zarr-python 3.4 with fsspec, as the tests install them.
bash interop/setup_venv312.sh build/py312-venv
mkdir -p build/bench-reference
cc -O2 -std=c99 -Wall -Wextra -Iinclude bench/reference/read_reference.c \
  -o build/bench-reference/read_reference -Lbuild/cargo/release -lzarr \
  -Wl,-rpath,"$PWD/build/cargo/release"
exec build/py312-venv/bin/python -W ignore bench/reference/bench.py "$@"
