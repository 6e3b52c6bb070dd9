#!/usr/bin/env bash
# Collective writes under MPI: libzarr's zarr_array_write_collective against parallel HDF5
# and against gathering the field to rank 0 (zarr_array_write there), in one run,
# implementations alternating, for 2 and 4 ranks. See bench/mpi/README.md.
#
#   bash bench/mpi/run.sh                  512 x 512 x 256 float32 (256 MiB), 5 repetitions
#   bash bench/mpi/run.sh --reps N         N repetitions
#   bash bench/mpi/run.sh --shape "X Y Z"  another field (a smoke run:
#                                          --shape "128 128 64" --reps 1 --max-others 1)
#   bash bench/mpi/run.sh --configs "2 4 2:none"
#                                          rank counts, each with Open MPI's default binding
#                                          or N:POLICY for --bind-to POLICY (the default
#                                          list; "2:none" lets 2 ranks float over the cores)
#   bash bench/mpi/run.sh --no-lib-build   use build/cargo/release/libzarr.so as it is
#   bash bench/mpi/run.sh --lib PATH       measure this libzarr.so instead (for example one
#                                          built from a clean export of a commit)
#   bash bench/mpi/run.sh --max-others X   take a measurement again when other processes
#                                          took more than X of the machine meanwhile
#                                          (default 0.10; 1 never does)
#
# Installs nothing. Needs Open MPI (mpicc, mpirun), the libzarr build (cmake) and, for
# the HDF5 column, Debian's libhdf5-openmpi-dev. Not part of the test suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
shape=(512 512 256)
reps=5
configs=(2 4 2:none)
lib_build=1
lib=build/cargo/release/libzarr.so
max_others=0.10
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --shape) read -r -a shape <<< "${2:?--shape needs 'X Y Z'}"; shift 2 ;;
    --configs) read -r -a configs <<< "${2:?--configs needs a list}"; shift 2 ;;
    --no-lib-build) lib_build=0; shift ;;
    --lib) lib=${2:?--lib needs a path to libzarr.so}; lib_build=0; shift 2 ;;
    --max-others) max_others=${2:?--max-others needs a share, e.g. 0.1}; shift 2 ;;
    *) echo "usage: bench/mpi/run.sh [--reps N] [--shape 'X Y Z'] [--configs '2 4 2:none'] [--no-lib-build] [--lib PATH] [--max-others 0.1]" >&2
       exit 2 ;;
  esac
done
out=bench/out/mpi
mkdir -p "$out"

for tool in mpicc mpirun; do
  command -v "$tool" > /dev/null || {
    echo "bench/mpi/run.sh: $tool not found: install Open MPI (apt-get install libopenmpi-dev openmpi-bin)" >&2
    exit 1
  }
done

# The MPI glue: compiled straight into the program (no dependence on the CMake wiring).
if [ ! -f mpi/zarr_mpi.c ] || [ ! -f mpi/zarr_mpi.h ]; then
  echo "bench/mpi/run.sh: mpi/zarr_mpi.c and mpi/zarr_mpi.h (zarr_comm_create_mpi) are missing" >&2
  exit 1
fi

# The library, then a private copy of it for this run (so that a rebuild by someone else
# during the run cannot change what is measured half-way).
if [ "$lib_build" = 1 ]; then
  [ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build build -j2 --target zarr_cargo > "$out/lib-build.log" 2>&1 || {
    echo "bench/mpi/run.sh: building libzarr failed, see $out/lib-build.log" >&2
    exit 1
  }
fi
[ -f "$lib" ] || { echo "bench/mpi/run.sh: $lib missing: cmake -S . -B build && cmake --build build -j2" >&2; exit 1; }
mkdir -p "$out/lib"
cp "$lib" "$out/lib/libzarr.so.0.tmp" && mv "$out/lib/libzarr.so.0.tmp" "$out/lib/libzarr.so.0"
ln -sf libzarr.so.0 "$out/lib/libzarr.so"

# Parallel HDF5, if installed.
h5flags=()
have_h5=0
if pkg-config --exists hdf5-openmpi 2> /dev/null; then
  read -r -a h5flags <<< "-DHAVE_HDF5 $(pkg-config --cflags --libs hdf5-openmpi) -lz"
  have_h5=1
elif command -v h5pcc > /dev/null && h5pcc -showconfig 2> /dev/null | grep -qi 'Parallel HDF5: yes'; then
  h5inc=$(h5pcc -show | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
  h5lib=$(h5pcc -show | tr ' ' '\n' | grep '^-L' | head -1)
  read -r -a h5flags <<< "-DHAVE_HDF5 $h5inc $h5lib -lhdf5 -lz"
  have_h5=1
fi
if [ "$have_h5" = 0 ]; then
  echo "NOTE: parallel HDF5 not found: the hdf5 column is left out." >&2
  echo "      Install it with: apt-get install libhdf5-openmpi-dev   (Debian/Ubuntu; gives h5pcc)" >&2
fi

mpicc -O2 -std=c11 -Wall -Wextra -o "$out/bench_mpi" bench/mpi/bench_mpi.c mpi/zarr_mpi.c \
  -Iinclude -Impi "${h5flags[@]}" -L"$out/lib" -lzarr -lm -Wl,-rpath,"$PWD/$out/lib"

impls=(hdf5 gather zarr)
[ "$have_h5" = 1 ] || impls=(gather zarr)
results="$out/results.txt"
: > "$results"
runs="$out/runs"
rm -rf "$runs"
mkdir -p "$runs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
retries_left=20
start_s=$(date +%s)
# Repetition after repetition; in each, every configuration, and in each the
# implementations in an order rotated every repetition (a b c, b c a, c a b...).
for rep in $(seq "$reps"); do
  for config in "${configs[@]}"; do
    n=${config%%:*}
    bind=()
    label=$n
    if [[ "$config" == *:* ]]; then
      bind=(--bind-to "${config#*:}")
      label="$n:${config#*:}"
    fi
    k=$(( (rep - 1) % ${#impls[@]} ))
    order=("${impls[@]:k}" "${impls[@]:0:k}")
    for impl in "${order[@]}"; do
      dir="$runs/$impl-${label/:/-}-$rep"
      verify=""
      [ "$rep" = 1 ] && verify="--verify"
      # A measurement during which other processes took more than --max-others of the
      # machine (they share it: builds, tests) is discarded and taken again, after a
      # pause, up to 4 times, and 20 times in the whole run; the last one is kept either
      # way (its others_cpu shows in the table).
      for attempt in 1 2 3 4 5; do
        rm -rf "$dir"
        sync  # earlier runs' dirty pages go to disk now, not during this run
        msg="repetition $rep, $label ranks: $impl"
        [ "$attempt" = 1 ] || msg+=" (attempt $attempt)"
        echo "$msg" >&2
        if ! line=$(timeout 600 mpirun -n "$n" "${bind[@]}" --oversubscribe --mca mpi_yield_when_idle 1 \
                      "$out/bench_mpi" "$impl" "$dir" "${shape[@]}" $verify 2> "$out/stderr.txt"); then
          echo "bench/mpi/run.sh: $impl with $label ranks failed:" >&2
          cat "$out/stderr.txt" >&2
          echo "$line" >&2
          exit 1
        fi
        others=$(echo "$line" | sed -n 's/^RESULT .* others_cpu=\([-0-9.]*\).*/\1/p')
        if awk -v o="$others" -v m="$max_others" 'BEGIN{exit !(o > m)}' \
           && [ "$attempt" -lt 5 ] && [ "$retries_left" -gt 0 ]; then
          retries_left=$((retries_left - 1))
          echo "  others took ${others} of the machine: discarded, again in 20 s" >&2
          echo "DISCARDED config=$label impl=$impl rep=$rep others_cpu=$others" >> "$results"
          sleep 20
          continue
        fi
        break
      done
      echo "$line" | sed "s/^RESULT /RESULT config=$label rep=$rep /; s/^STATS /STATS config=$label impl=$impl rep=$rep /; s/^RSS /RSS config=$label impl=$impl rep=$rep /" >> "$results"
      rm -rf "$dir"
    done
  done
done
# What HDF5's deflate 1 costs alone: the system zlib on every 64^3 chunk, one core.
if [ "$have_h5" = 1 ]; then
  echo "the system zlib alone" >&2
  timeout 600 mpirun -n 1 --oversubscribe "$out/bench_mpi" zlib - "${shape[@]}" >> "$results"
fi
elapsed=$(( $(date +%s) - start_s ))
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after;" \
  "$(mpirun --version | head -1);" \
  "$(if [ "$lib" = build/cargo/release/libzarr.so ]; then
       echo "libzarr: the work tree at $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
       [ -n "$(git status --porcelain -- src 2> /dev/null)" ] && echo '(with uncommitted changes in src/)'
     else
       echo "libzarr: $lib"
     fi | tr '\n' ' ')"

# The table.
python3 bench/mpi/report.py "$results" "$reps" "${shape[*]}" "$elapsed" "${configs[*]}"
