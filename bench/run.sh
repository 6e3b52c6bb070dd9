#!/usr/bin/env bash
# The benchmark: libzarr against zarr-python, zarr-python with the zarrs codec pipeline,
# and tensorstore, on the same data, alternating, several repetitions.
#
#   bash bench/run.sh            1024 x 1024 x 256 float32 (1 GiB), 5 repetitions
#   bash bench/run.sh --quick    256 x 256 x 128, 2 repetitions (a smoke run)
#   bash bench/run.sh [--quick] --reps N    N repetitions instead
#
# Needs about 6 GiB of free disk for the full size. Reads are measured with a warm page
# cache (dropping it needs privileges this script does not assume).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shape=(1024 1024 256)
reps=5
if [ "${1:-}" = "--quick" ]; then
  shape=(256 256 128)
  reps=2
  shift
fi
if [ "${1:-}" = "--reps" ]; then
  reps=${2:?--reps needs a number}
fi
out=bench/out
mkdir -p "$out"

# Peers, pinned, in a private virtual environment.
if [ ! -f "$out/venv/.installed" ]; then
  python3 -m venv "$out/venv"
  "$out/venv/bin/pip" install --quiet --disable-pip-version-check \
    zarr==3.1.6 zarrs==0.2.3 tensorstore==0.1.86 numpy==2.4.6
  touch "$out/venv/.installed"
fi
py="$out/venv/bin/python"

cargo build --release --locked --lib
# The library's SONAME is libzarr.so.0; give the loader that name next to the program.
mkdir -p "$out/lib"
ln -sf "$PWD/target/release/libzarr.so" "$out/lib/libzarr.so.0"
gcc -O2 -std=c99 -Wall -Wextra -o "$out/bench_zarr" bench/bench_zarr.c -Iinclude \
  -Ltarget/release -lzarr -lpthread -Wl,-rpath,"$PWD/$out/lib"

raw="$out/data-${shape[0]}x${shape[1]}x${shape[2]}.f32"
[ -f "$raw" ] || "$py" bench/peers.py gen "$raw" "${shape[@]}"
results="$out/results.jsonl"
: > "$results"
impls=(libzarr zarr-python zarrs tensorstore)

run_one() { # impl op store inner
  local impl=$1 op=$2 store=$3 inner=$4 line
  if [ "$impl" = libzarr ]; then
    line=$("$out/bench_zarr" "$op" "$store" "${shape[@]}" "$raw")
  else
    line=$("$py" bench/peers.py "$impl" "$op" "$store" "${shape[@]}" "$inner" "$raw")
  fi
  echo "${line%\}}, \"layout\": \"$layout\"}" >> "$results"
}

for layout in a b c; do
  inner=64; [ "$layout" = c ] && inner=32
  echo "layout $layout: write" >&2
  for rep in $(seq "$reps"); do
    for impl in "${impls[@]}"; do
      store="$out/$layout-$impl.zarr"
      rm -rf "$store"
      "$py" bench/peers.py create "$store" "$layout" "${shape[@]}"
      run_one "$impl" write "$store" "$inner"
    done
  done
  # Every reader reads the same store (the one zarr-python wrote).
  common="$out/$layout-zarr-python.zarr"
  for op in read read_inner read_element; do
    echo "layout $layout: $op" >&2
    for rep in $(seq "$reps"); do
      for impl in "${impls[@]}"; do
        run_one "$impl" "$op" "$common" "$inner"
      done
    done
  done
  # The decode limit of the same store: libzarr's codecs on chunks already in memory.
  for op in decode_limit decode_limit_reused; do
    echo "layout $layout: $op" >&2
    for rep in $(seq "$reps"); do
      run_one libzarr "$op" "$common" "$inner"
    done
  done
  for impl in "${impls[@]}"; do
    [ "$impl" = zarr-python ] || rm -rf "$out/$layout-$impl.zarr"
  done
done

echo "shape ${shape[*]} float32, $reps repetitions, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" bench/peers.py report "$results"
