#!/usr/bin/env bash
# Builds the fuzz targets of fuzz/ with libFuzzer and AddressSanitizer (C codecs included)
# and runs each for a bounded time on top of the committed seed corpus (fuzz/seeds/).
# Fails on any crash, sanitizer report, leak, or hang, printing the input. See
# docs/reliability.md.
#
#   scripts/fuzz.sh [--seconds N] [TARGET...]   run each target (all by default) N seconds (60)
#   scripts/fuzz.sh --make-seeds                regenerate and minimise fuzz/seeds/
#
# Needs cargo and a C/C++ compiler; installs cargo-fuzz into build/fuzz-tools once.
# libFuzzer needs rustc's unstable sanitizer flags: RUSTC_BOOTSTRAP=1 lets the stable
# toolchain accept them (only for this build, in its own target directory).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

seconds=60
make_seeds=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --make-seeds) make_seeds=1; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(metadata codec_chain zip c_api reference_json reference_parquet)

CARGO_FUZZ_VERSION=0.13.2
tools=$root/build/fuzz-tools
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
  echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION into $tools"
  cargo install --locked --quiet --root "$tools" --version "$CARGO_FUZZ_VERSION" cargo-fuzz
fi
export PATH="$tools/bin:$PATH"

# The sanitised build: Rust code through cargo-fuzz's flags, C code (zstd, c-blosc, lz4,
# liblzma) through CFLAGS.
export RUSTC_BOOTSTRAP=1
export CFLAGS="-fsanitize=address -fno-omit-frame-pointer"
export CXXFLAGS="$CFLAGS"
target_dir=$root/build/fuzz
build() {
  echo "== cargo fuzz build ${*}"
  cargo fuzz build --fuzz-dir fuzz --target-dir "$target_dir" -O --debug-assertions "$@"
}

# One executable per target; the thread pool costs ~15 ms per execution, so one thread.
export ZARR_NUM_THREADS=1
# cargo-fuzz builds for the host triple explicitly: build/fuzz/<triple>/release/<target>.
bin_dir() { echo "$target_dir/$(rustc -vV | sed -n 's/^host: //p')/release"; }

if [ "$make_seeds" = 1 ]; then
  build
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j2 --target zarr_cargo >/dev/null
  raw=$root/build/fuzz-seeds-raw
  rm -rf "$raw"
  python3 fuzz/make_seeds.py "$root/build/cargo/release/libzarr.so" "$raw"
  for t in "${targets[@]}"; do
    rm -rf "fuzz/seeds/$t"
    mkdir -p "fuzz/seeds/$t"
    # -set_cover_merge=1 keeps a small subset of the inputs with the same coverage.
    "$(bin_dir)/$t" -set_cover_merge=1 -timeout=10 -rss_limit_mb=4096 "fuzz/seeds/$t" "$raw/$t" 2>&1 |
      grep -E "MERGE-OUTER: [0-9]+ new files" || true
    echo "fuzz/seeds/$t: $(ls "fuzz/seeds/$t" | wc -l) inputs, $(du -sk "fuzz/seeds/$t" | cut -f1) KiB"
  done
  exit 0
fi

mkdir -p build
if ! build >build/fuzz-build.log 2>&1; then
  tail -n 80 build/fuzz-build.log
  echo "fuzz.sh: the fuzz targets do not build (build/fuzz-build.log)" >&2
  exit 1
fi
bins=$(bin_dir)

failed=()
for t in "${targets[@]}"; do
  work=$root/build/fuzz-corpus/$t
  artifacts=$root/build/fuzz-artifacts/$t/
  mkdir -p "$work" "$artifacts"
  log=$root/build/fuzz-$t.log
  echo "== fuzzing $t for $seconds s"
  # -timeout: an input taking over 10 s is a hang. -rss_limit_mb: the default (2048), also
  # the limit of a single allocation (see docs/reliability.md).
  if "$bins/$t" "$work" "fuzz/seeds/$t" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts" >"$log" 2>&1; then
    execs=$(grep -m1 -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
    echo "   $t: $execs executions, no crash"
  else
    failed+=("$t")
    echo "   $t: FAILED; the end of the log ($log):"
    grep -v "^#[0-9]" "$log" | tail -n 60
    for input in "$artifacts"*; do
      [ -f "$input" ] || continue
      echo "   input $input ($(stat -c %s "$input") bytes), base64:"
      head -c 4096 "$input" | base64 | sed 's/^/     /'
    done
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: crash or hang in: ${failed[*]} (inputs above; reproduce with" \
       "$bins/<target> <input>)" >&2
  exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets, $seconds s each, no crash"
