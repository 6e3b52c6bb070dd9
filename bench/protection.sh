#!/usr/bin/env bash
# The cost of protecting partial chunk updates across processes (a lock per chunk on the
# file system): libzarr as built in build/ against libzarr at a baseline revision without
# the protection, on the same data, alternating, one writer.
#
#   bash bench/protection.sh [--baseline REV] [--reps N] [--size NX,NY,NZ] [--dir DIR]
#
# REV (default e214b0c, the last revision before the locks) is built once into
# bench/out/baseline-REV with cargo. Both libraries run the same bench_zarr program (built
# here from bench/bench_zarr.c), which times only the writes:
#   write          the whole array in one call: every chunk covered whole, no lock taken
#   write_partial  slabs that start half a chunk in: every chunk written in two partial
#                  updates (read, merge, write back; with the protection, under the lock)
# for layouts b (64^3 chunks, zstd) and c (256^3 shards of 32^3 inner chunks, zstd). It
# prints each median, its min-max, and the ratio protected / baseline (above 1: slower).
# The stores go to DIR (default bench/out/protection); on a disk, the kernel's write-back of
# one run's 256 MiB slows the next at random, so a tmpfs such as /dev/shm shows the CPU
# cost of the protection more steadily (its lock files are created and removed there too).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

baseline=e214b0c
reps=7
size=512,512,256
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    *) echo "usage: $0 [--baseline REV] [--reps N] [--size NX,NY,NZ] [--dir DIR]" >&2; exit 2 ;;
  esac
done
IFS=, read -r nx ny nz <<<"$size"

out=bench/out/protection
dir=${dir:-$out}
mkdir -p "$out" "$dir"
new_lib=build/cargo/release
[ -f "$new_lib/libzarr.so" ] || { echo "build libzarr first (cmake --build build)" >&2; exit 1; }

# The baseline library, built once in a worktree of its own.
base_dir="bench/out/baseline-$baseline"
if [ ! -f "$base_dir/target/release/libzarr.so" ]; then
  rm -rf "$base_dir/src"
  git worktree add --force --detach "$base_dir/src" "$baseline" >/dev/null
  cargo build --release --locked --manifest-path "$base_dir/src/Cargo.toml" \
    --target-dir "$base_dir/target"
  git worktree remove --force "$base_dir/src"
fi
base_lib="$base_dir/target/release"
# Programs ask for the library by its SONAME.
ln -sf libzarr.so "$base_lib/libzarr.so.0"

cc -O2 -std=c99 -Iinclude bench/bench_zarr.c -o "$out/bench_zarr" -L"$new_lib" -lzarr -lpthread

python=build/interop-venv/bin/python
[ -x "$python" ] || python=python3
raw="$out/data_${nx}x${ny}x${nz}.f32"
[ -f "$raw" ] || "$python" bench/peers.py gen "$raw" "$nx" "$ny" "$nz"

results="$out/results.jsonl"
: >"$results"
for layout in b c; do
  for op in write write_partial; do
    for rep in $(seq "$reps"); do
      # Alternate which goes first, and let the previous run's writes reach the disk
      # before each run, so that neither inherits the other's write-back.
      order="protected baseline"
      [ $((rep % 2)) -eq 0 ] && order="baseline protected"
      for impl in $order; do
        lib=$new_lib
        [ "$impl" = baseline ] && lib=$base_lib
        store="$dir/libzarr_protection_${layout}_$impl"
        rm -rf "$store"
        "$python" bench/peers.py create "$store" "$layout" "$nx" "$ny" "$nz"
        sync
        LD_LIBRARY_PATH="$lib" "$out/bench_zarr" "$op" "$store" "$nx" "$ny" "$nz" "$raw" |
          "$python" -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(impl='$impl', layout='$layout'); print(json.dumps(r))" >>"$results"
      done
    done
  done
done

"$python" - "$results" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"{'layout':6} {'operation':14} {'protected':>22} {'baseline':>22} {'ratio':>6}")
for layout in ("b", "c"):
    for op in ("write", "write_partial"):
        cells, medians = [], {}
        for impl in ("protected", "baseline"):
            t = [r["seconds"] for r in rows if (r["layout"], r["op"], r["impl"]) == (layout, op, impl)]
            medians[impl] = statistics.median(t)
            cells.append(f"{medians[impl]:.3f} s ({min(t):.3f}-{max(t):.3f})")
        sums = {r["checksum"] for r in rows if (r["layout"], r["op"]) == (layout, op)}
        flag = "" if len(sums) == 1 else "  CHECKSUMS DIFFER"
        print(f"{layout:6} {op:14} {cells[0]:>22} {cells[1]:>22} "
              f"{medians['protected'] / medians['baseline']:6.3f}{flag}")
EOF
