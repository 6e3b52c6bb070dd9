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
# The interop venv (zarr-python, tensorstore, obstore, gcp-storage-emulator, gcsfs, adlfs)
# and Azurite (npm), as the tests install them.
bash interop/setup_venv.sh build/interop-venv
bash tests/servers/install_azurite.sh build/test-tools/azurite
mkdir -p build/bench-remote
cc -O2 -std=c99 -Wall -Wextra -Iinclude bench/remote/read_remote.c -o build/bench-remote/read_remote \
  -Lbuild/cargo/release -lzarr -Wl,-rpath,"$PWD/build/cargo/release"
exec build/interop-venv/bin/python -W ignore bench/remote/bench.py "$@"
