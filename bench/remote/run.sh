#!/usr/bin/env bash
# The remote benchmark (see bench/remote/README.md). Not part of CI.
# Usage: bash bench/remote/run.sh [--store http,gcs,azure] [--delay-ms 20] [--reps 3]
#                                 [--inner-reps 7] [--quick] [--gcs-as-is]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [ ! -f build/CMakeCache.txt ]; then
  source scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j2 --target zarr_cargo
bash interop/setup_venv.sh build/interop-venv
# The GCS and Azure legs' Python packages, and Azurite (npm) in the build tree.
requirements=bench/remote/requirements.txt
stamp="build/interop-venv/.bench-remote-$(md5sum "$requirements" | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  build/interop-venv/bin/pip install --quiet --disable-pip-version-check -r "$requirements"
  touch "$stamp"
fi
if [ ! -x build/test-tools/azurite/node_modules/.bin/azurite-blob ]; then
  mkdir -p build/test-tools/azurite
  npm install --prefix build/test-tools/azurite --no-audit --no-fund --loglevel=error \
    azurite@3.37.0
fi
mkdir -p build/bench-remote
cc -O2 -std=c99 -Wall -Wextra -Iinclude bench/remote/read_remote.c -o build/bench-remote/read_remote \
  -Lbuild/cargo/release -lzarr -Wl,-rpath,"$PWD/build/cargo/release"
exec build/interop-venv/bin/python -W ignore bench/remote/bench.py "$@"
