#!/usr/bin/env bash
# The benchmark: libzarr against zarr-python, zarr-python with the zarrs codec pipeline,
# and tensorstore, on the same data, alternating, several repetitions.
#
#   bash bench/run.sh            1024 x 1024 x 256 float32 (1 GiB), 5 repetitions
#   bash bench/run.sh --quick    256 x 256 x 128, 2 repetitions (a smoke run)
#   bash bench/run.sh [--quick] --reps N    N repetitions instead
#   --layouts "b c" --ops "read decode_limit"   only these (a shorter run while working;
#                                               the published table is a whole run)
#   --pages huge   every implementation's arrays get transparent huge pages, as numpy
#                  advises by default; without it, all get plain 4 KiB pages
#                  (bench/README.md, "Buffers")
#
# Needs about 6 GiB of free disk for the full size. Reads are measured with a warm page
# cache (dropping it needs privileges this script does not assume).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shape=(1024 1024 256)
reps=5
layouts=(a b c)
ops=(write read read_again read_inner read_element decode_limit decode_limit_reused bare_read)
pages=4k
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) shape=(256 256 128); reps=2; shift ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --layouts) read -r -a layouts <<< "${2:?--layouts needs a list}"; shift 2 ;;
    --ops) read -r -a ops <<< "${2:?--ops needs a list}"; shift 2 ;;
    --pages) pages=${2:?--pages needs 4k or huge}; shift 2 ;;
    *) echo "usage: bench/run.sh [--quick] [--reps N] [--layouts 'a b c'] [--ops 'read ...']" \
            "[--pages 4k|huge]" >&2
       exit 2 ;;
  esac
done
case "$pages" in
  4k|huge) export ZARR_BENCH_PAGES=$pages ;;
  *) echo "bench/run.sh: --pages takes 4k or huge" >&2; exit 2 ;;
esac
wants() { [[ " ${ops[*]} " == *" $1 "* ]]; }
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

for layout in "${layouts[@]}"; do
  inner=64; [ "$layout" = c ] && inner=32
  common="$out/$layout-zarr-python.zarr"
  if wants write; then
    echo "layout $layout: write" >&2
    for rep in $(seq "$reps"); do
      for impl in "${impls[@]}"; do
        store="$out/$layout-$impl.zarr"
        rm -rf "$store"
        "$py" bench/peers.py create "$store" "$layout" "${shape[@]}"
        run_one "$impl" write "$store" "$inner"
      done
    done
  elif [ ! -f "$common/.written-${shape[0]}x${shape[1]}x${shape[2]}" ]; then
    # The readers' store, written once (untimed) when this run measures no writes.
    rm -rf "$common"
    "$py" bench/peers.py create "$common" "$layout" "${shape[@]}"
    "$py" bench/peers.py zarr-python write "$common" "${shape[@]}" "$inner" "$raw" > /dev/null
  fi
  touch "$common/.written-${shape[0]}x${shape[1]}x${shape[2]}"
  # Every reader reads the same store (the one zarr-python wrote).
  for op in read read_inner read_element; do
    wants "$op" || continue
    echo "layout $layout: $op" >&2
    for rep in $(seq "$reps"); do
      for impl in "${impls[@]}"; do
        run_one "$impl" "$op" "$common" "$inner"
      done
    done
  done
  # libzarr alone: a whole read into a buffer already used; the decode limit of the same
  # store (libzarr's codecs on chunks already in memory); and the bare read (regular chunks
  # only, not shards): the read's work by the simplest loop.
  for op in read_again decode_limit decode_limit_reused bare_read; do
    wants "$op" || continue
    [ "$op" = bare_read ] && [ "$layout" = c ] && continue
    echo "layout $layout: $op" >&2
    for rep in $(seq "$reps"); do
      run_one libzarr "$op" "$common" "$inner"
    done
  done
  for impl in "${impls[@]}"; do
    [ "$impl" = zarr-python ] || rm -rf "$out/$layout-$impl.zarr"
  done
done

echo "shape ${shape[*]} float32, $reps repetitions, $(nproc) cores, $pages pages," \
  "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" bench/peers.py report "$results"
