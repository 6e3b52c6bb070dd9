#!/usr/bin/env bash
# The Fortran binding reading a 1 GiB array three ways (see bench_fortran.f90), each
# repetition in fresh processes, alternating; prints the median seconds and peak resident
# memory per way, and each way's ratio to the strided read.
#   bash bench/fortran/run.sh [--reps N]      (default 5; needs the library built:
#                                              cmake --build build, and gfortran)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
reps=5
[ "${1:-}" = "--reps" ] && reps=$2
lib=build/cargo/release
[ -f "$lib/libzarr.so" ] || { echo "build the library first: cmake --build build" >&2; exit 1; }
out=bench/out/fortran
mkdir -p "$out"
gfortran -O2 -J"$out" bindings/fortran/zarr.f90 bench/fortran/bench_fortran.f90 \
  -L"$lib" -lzarr -Wl,-rpath,"$PWD/$lib" -o "$out/bench_fortran"
store=$out/store
if [ ! -d "$store/a" ]; then
  rm -rf "$store"
  "$out/bench_fortran" write "$store" >/dev/null
fi
results=$out/results.txt
: >"$results"
for ((r = 0; r < reps; r++)); do
  for mode in reversed strided copy; do
    "$out/bench_fortran" "$mode" "$store" >>"$results"
  done
done
echo "1024 x 1024 x 256 float32 (1 GiB), 64^3 chunks, zstd 1; $reps repetitions; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
by = {}
for mode, secs, mib, checksum in rows:
    by.setdefault(mode, []).append((float(secs), float(mib), checksum))
sums = {c for v in by.values() for _, _, c in v}
base = statistics.median(s for s, _, _ in by["strided"])
print(f"{'way':10} {'median s':>9} {'min-max s':>17} {'peak MiB':>9} {'vs strided':>10}")
for mode in ("reversed", "strided", "copy"):
    s = [x for x, _, _ in by[mode]]
    m = statistics.median(x for _, x, _ in by[mode])
    print(f"{mode:10} {statistics.median(s):9.3f} {min(s):8.3f}-{max(s):8.3f} {m:9.1f} {statistics.median(s) / base:9.2f}x")
print("checksums agree" if len(sums) == 1 else "CHECKSUMS DIFFER: " + ", ".join(sorted(sums)))
PY
