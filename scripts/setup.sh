#!/usr/bin/env bash
# Installs what a fresh machine of this kind lacks for building and testing libzarr:
# CMake (>= 3.16), libclang (zfp-sys generates its bindings to the zfp C library with
# bindgen), pkg-config (for the `install` tests), gfortran (for the Fortran module in
# bindings/fortran), valgrind (for the `valgrind` tests) and Open MPI (for libzarr_mpi in
# mpi/ and the `mpi` tests), Node.js and npm (for Azurite in the `azure` tests). cargo, a
# C/C++ compiler and python3 are expected to be present.
# Idempotent and quiet when everything is already there. Source it or run it.
set -euo pipefail

have_cmake() {
  command -v cmake >/dev/null 2>&1 || return 1
  local version
  version=$(cmake --version | head -n1 | sed -E 's/[^0-9]*([0-9]+)\.([0-9]+).*/\1 \2/')
  read -r major minor <<<"$version"
  [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -ge 16 ]; }
}

if ! have_cmake; then
  echo "setup: installing CMake" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >/dev/null
  fi
  if ! have_cmake; then
    # Fall back to the CMake wheel from PyPI in a private virtual environment.
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    python3 -m venv "$root/build/cmake-venv"
    "$root/build/cmake-venv/bin/pip" install -q cmake
    export PATH="$root/build/cmake-venv/bin:$PATH"
  fi
  have_cmake || { echo "setup: could not install CMake" >&2; exit 1; }
fi

# libclang: bindgen (zfp-sys's build script) loads it to read zfp's header.
have_libclang() {
  [ -n "${LIBCLANG_PATH:-}" ] && return 0
  local lib
  for lib in /usr/lib/llvm-*/lib/libclang*.so* /usr/lib/*-linux-gnu/libclang*.so* \
             /usr/lib64/libclang*.so*; do
    case "$lib" in
      *libclang-cpp*) ;;
      *) [ -e "$lib" ] && return 0 ;;
    esac
  done
  return 1
}
if ! have_libclang; then
  echo "setup: installing libclang" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-dev >/dev/null || true
  fi
  if ! have_libclang; then
    # Fall back to the libclang wheel from PyPI, which ships libclang.so.
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    python3 -m venv "$root/build/libclang-venv"
    "$root/build/libclang-venv/bin/pip" install -q libclang
    LIBCLANG_PATH="$(dirname "$(find "$root/build/libclang-venv" -name 'libclang*.so*' | head -n1)")"
    export LIBCLANG_PATH
  fi
  have_libclang || { echo "setup: could not install libclang" >&2; exit 1; }
fi

# pkg-config: the install.pkgconfig_* tests build a program the way pkg-config users do.
if ! command -v pkg-config >/dev/null 2>&1; then
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if [ -x "$root/build/pkgconf-venv/bin/pkg-config" ]; then
    export PATH="$root/build/pkgconf-venv/bin:$PATH"
  else
    echo "setup: installing pkg-config" >&2
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config >/dev/null
    fi
    if ! command -v pkg-config >/dev/null 2>&1; then
      # Fall back to pkgconf's wheel from PyPI (it provides a pkg-config command).
      python3 -m venv "$root/build/pkgconf-venv"
      "$root/build/pkgconf-venv/bin/pip" install -q pkgconf
      export PATH="$root/build/pkgconf-venv/bin:$PATH"
    fi
  fi
  command -v pkg-config >/dev/null 2>&1 || { echo "setup: could not install pkg-config" >&2; exit 1; }
fi

if ! command -v gfortran >/dev/null 2>&1; then
  echo "setup: installing gfortran" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    # Optional, so a failing apt-get does not stop the set-up.
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gfortran >/dev/null || true
  fi
  # Optional: without a Fortran compiler CMake skips the Fortran module and its tests.
  command -v gfortran >/dev/null 2>&1 ||
    echo "setup: could not install gfortran; the Fortran module and its tests will be skipped" >&2
fi

# valgrind: the valgrind.* tests (ctest label valgrind) run the C tests under memcheck.
if ! command -v valgrind >/dev/null 2>&1; then
  echo "setup: installing valgrind" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    # Optional, so a failing apt-get does not stop the set-up.
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null || true
  fi
  command -v valgrind >/dev/null 2>&1 ||
    echo "setup: could not install valgrind; the valgrind tests will be skipped" >&2
fi

# Open MPI: mpicc and mpirun for libzarr_mpi (mpi/, zarr_mpi.h) and the `mpi` tests.
have_mpi() { command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; }
if ! have_mpi; then
  echo "setup: installing Open MPI" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    # Optional, so a failing apt-get does not stop the set-up.
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null || true
  fi
  # Optional: without MPI, CMake skips libzarr_mpi and its tests.
  have_mpi || echo "setup: could not install Open MPI; libzarr_mpi and the mpi tests will be skipped" >&2
fi

# Node.js and npm: the Azure tests (label azure) install Azurite, Microsoft's Azure Blob
# Storage emulator, from npm into the build tree (tests/servers/install_azurite.sh).
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing Node.js and npm" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    # Optional, so a failing apt-get does not stop the set-up.
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null || true
  fi
  command -v npm >/dev/null 2>&1 ||
    echo "setup: could not install npm; the Azure tests will fail to install Azurite" >&2
fi

for tool in cargo cc c++ python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "setup: '$tool' is required" >&2; exit 1; }
done
