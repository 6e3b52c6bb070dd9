#!/bin/sh
# End-to-end tests of the zarr command-line tool, one ctest test per case_<name> function.
#
# usage: sh cli_tests.sh CASE ZARR FIXTURE CORPUS
#   ZARR     the zarr executable
#   FIXTURE  the zarr_cli_fixture helper (writes stores with known values)
#   CORPUS   tests/data/corpus (v3 arrays written by zarrs, GDAL and zarrita.js)
set -u
CASE=$1
ZARR=$2
FIXTURE=$3
CORPUS=$4
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zarr-cli-XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

fail() {
    echo "FAIL ($CASE): $*" >&2
    echo "--- stdout:" >&2
    cat out >&2 2>/dev/null
    echo "--- stderr:" >&2
    cat err >&2 2>/dev/null
    exit 1
}
# run ARGS...: run zarr, stdout in ./out, stderr in ./err, exit status in $rc
run() {
    "$ZARR" "$@" >out 2>err
    rc=$?
}
# ok ARGS...: run zarr, which must succeed with nothing on stderr
ok() {
    run "$@"
    [ "$rc" = 0 ] || fail "zarr $* exited with $rc"
    [ -s err ] && fail "zarr $* wrote to stderr"
    return 0
}
expect_rc() { [ "$rc" = "$1" ] || fail "expected exit status $1, got $rc"; }
# has FILE TEXT: FILE holds the line TEXT exactly
has_line() { grep -Fx -- "$2" "$1" >/dev/null || fail "$1 has no line '$2'"; }
# contains FILE TEXT: FILE contains TEXT somewhere
contains() { grep -F -- "$2" "$1" >/dev/null || fail "$1 does not contain '$2'"; }
# out_is TEXT: stdout is exactly TEXT (plus a final newline)
out_is() {
    printf '%s\n' "$1" >expected
    diff -u expected out >&2 || fail "unexpected output"
}
# same_cat A B [ARGS]: `zarr cat` of A and B print the same text
same_cat() {
    "$ZARR" cat "$1" >cat_a 2>err || fail "zarr cat $1"
    "$ZARR" cat "$2" >cat_b 2>err || fail "zarr cat $2"
    cmp cat_a cat_b >/dev/null || { diff cat_a cat_b | head >&2; fail "cat $1 and cat $2 differ"; }
}
mixed() { "$FIXTURE" mixed m.zarr || fail "fixture"; }
cf() { "$FIXTURE" cf cf.zarr || fail "fixture"; }
# future DIR: a v3 array at DIR whose codec no build of libzarr knows (as a string array or
# a zfp-compressed one is to a build without them): the tool must describe it and go on.
future() {
    mkdir -p "$1" && printf '%s' '{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"float32",'\
'"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},'\
'"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,'\
'"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"example.future_codec"}],'\
'"attributes":{"units":"m"},"dimension_names":["station"]}' >"$1/zarr.json" || fail "future array"
}
# future_v2 DIR: the same in Zarr v2 (a compressor no build knows)
future_v2() {
    mkdir -p "$1" && printf '%s' '{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<f4","fill_value":0,'\
'"order":"C","filters":null,"compressor":{"id":"example_future"}}' >"$1/.zarray" || fail "future v2 array"
}
# json_check FILE PYTHON-EXPRESSION: FILE is JSON and the expression (on `d`) is true
json_check() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" || { cat "$1" >&2; fail "JSON check failed: $2"; }
}
# zip_store DIR ZIP: zip the store DIR "from within" (its root metadata at the top)
zip_store() {
    (cd "$1" && python3 -m zipfile -c "$2" .) || fail "zip $1"
}

# ---- help, version, usage errors ------------------------------------------------------

case_help() {
    ok --help
    contains out "STORE::/node/path"
    contains out "exit status: 0 success, 1 runtime error"
    contains out "2 usage error"
    for c in info tree cat cp; do
        ok "$c" --help
        contains out "usage: zarr $c"
    done
    ok cat --help
    contains out "--region"
    ok cp --help
    contains out "--shards"
}

case_version() {
    ok --version
    grep -E '^zarr \(libzarr\) [0-9]+\.[0-9]+\.[0-9]+$' out >/dev/null || fail "version line"
}

case_usage_errors() {
    run
    expect_rc 2
    contains err "usage: zarr"
    run frobnicate
    expect_rc 2
    has_line err "zarr: unknown command 'frobnicate' (see zarr --help)"
    run info
    expect_rc 2
    run info a b
    expect_rc 2
    run tree --bogus x
    expect_rc 2
    contains err "zarr: tree: unknown option '--bogus'"
    run cat
    expect_rc 2
    run cp onlyone
    expect_rc 2
    run cp a b --format 4
    expect_rc 2
    run cp a b --chunks 2,x
    expect_rc 2
    run cp a b --chunks 0,2
    expect_rc 2
    run cp a b --codec lzma
    expect_rc 2
    run cp a b --codec gzip:12
    expect_rc 2
    run cp a b --shards 4,4
    expect_rc 2
    contains err "--shards needs --chunks"
    run cp a b --format 2 --chunks 2,2 --shards 4,4
    expect_rc 2
}

# ---- info ------------------------------------------------------------------------------

case_info_array_corpus() {
    ok info "$CORPUS/zarrs/hierarchy.zarr/a/baz"
    has_line out "node:               array"
    contains out "store:              "
    grep -E '^store: +/.*/zarrs/hierarchy\.zarr$' out >/dev/null || fail "store root"
    has_line out "path:               /a/baz"
    has_line out "zarr_format:        3"
    has_line out "shape:              [10000, 1000]"
    has_line out "chunk_shape:        [1000, 100]"
    has_line out "data_type:          float64"
    has_line out "fill_value:         NaN"
    has_line out "codecs:"
    has_line out "  bytes endian=little"
    has_line out "  gzip level=1"
    has_line out "variable:           float64 baz(rows, columns)"
    has_line out "dimension_names:    [rows, columns]"
    # every attribute with its value, as ncdump -h shows them
    has_line out "attributes:         3"
    has_line out "  foo = 42"
    has_line out '  bar = "apples"'
    has_line out "  baz = 1, 2, 3, 4"
    has_line out "chunks:             100 (grid 10 x 10)"
    has_line out "size:               80000000 bytes (76.3 MiB) decoded"
    grep inner out >/dev/null && fail "inner chunk shape shown for an unsharded array"
    return 0
}

case_info_sharded_corpus() {
    ok info "$CORPUS/gdal/v3/nested_sharding.zarr"
    has_line out "shape:              [5, 10]"
    has_line out "chunk_shape:        [4, 8] (shards)"
    has_line out "inner_chunk_shape:  [2, 4]"
    has_line out "data_type:          uint16"
    has_line out "  sharding_indexed chunk_shape=[2,4] index_location=end"
    has_line out "    codecs:"
    has_line out "      sharding_indexed chunk_shape=[1,2] index_location=end"
    has_line out "          bytes endian=little"
    has_line out "    index_codecs:"
    has_line out "chunks:             4 (grid 2 x 2)"
    ok info "$CORPUS/gdal/v3/sharded_3d.zarr"
    has_line out "inner_chunk_shape:  [1, 6, 4]"
    has_line out "      zstd level=0 checksum=false"
    has_line out "      crc32c"
    has_line out "chunks:             4 (grid 1 x 2 x 2)"
}

case_info_group_corpus() {
    ok info "$CORPUS/gdal/v3/test.zr3"
    has_line out "node:               group"
    has_line out "path:               /"
    has_line out "zarr_format:        3"
    has_line out "attributes:         1"
    has_line out '  root_foo = "bar"'
    has_line out "children:           2"
    has_line out "  ar                uint8 [2] chunks [2] codecs bytes"
    has_line out "  marvin/"
    # a node inside: the store root is found by walking up
    ok info "$CORPUS/gdal/v3/test.zr3/marvin/android"
    has_line out "path:               /marvin/android"
    has_line out "fill_value:         255"
    grep -E '^store: +/.*/gdal/v3/test\.zr3$' out >/dev/null || fail "store root"
}

case_info_fixture() {
    mixed
    ok info m.zarr/f32
    has_line out "path:               /f32"
    has_line out "fill_value:         NaN"
    has_line out "dimension_names:    [y, x]"
    has_line out "attributes:         1"
    has_line out '  units = "K"'
    has_line out "chunks:             4 (grid 2 x 2)"
    ok info m.zarr/scalar
    has_line out "shape:              []"
    has_line out "chunks:             1 (grid scalar)"
    ok info m.zarr/sub/empty
    has_line out "chunks:             0 (grid 0 x 1)"
    ok info m.zarr/r16
    has_line out "data_type:          r16"
    ok info m.zarr
    has_line out "attributes:         2"
    has_line out '  title = "fixture"'
    has_line out "  n = 3"
    has_line out "children:           11"
    has_line out "  sub/"
    has_line out "  f16               float16 [3] chunks [2] codecs bytes(endian=little)"
}

case_explicit_store_syntax() {
    ok info "$CORPUS/zarrs/hierarchy.zarr::/a/foo"
    has_line out "path:               /a/foo"
    cp out walked_not
    ok info "$CORPUS/zarrs/hierarchy.zarr/a/foo"
    diff out walked_not >/dev/null || fail "STORE::/node and the walked path differ"
    ok info "$CORPUS/zarrs/hierarchy.zarr::"
    has_line out "path:               /"
    # a metadata file names its node
    ok info "$CORPUS/zarrs/hierarchy.zarr/a/zarr.json"
    has_line out "path:               /a"
}

# ---- tree ------------------------------------------------------------------------------

case_tree_corpus() {
    ok tree "$CORPUS/gdal/v3/test.zr3"
    out_is "/
  ar  uint8 [2] chunks [2] codecs bytes
  marvin/
    android  uint8 [5, 4] chunks [5, 4] codecs bytes"
    ok tree "$CORPUS/zarrs/hierarchy.zarr"
    out_is "/
  a/
    baz  float64 [10000, 1000] (rows, columns) chunks [1000, 100] codecs bytes(endian=little) gzip(level=1)
    foo  float64 [10000, 1000] (rows, columns) chunks [1000, 100] codecs bytes(endian=little) gzip(level=1)"
    ok tree "$CORPUS/zarrs/sharded_array_write_read.zarr/group/array"
    contains out "uint16 [8, 8] (y, x) chunks [4, 8] inner [4, 4] codecs sharding_indexed(chunk_shape=[4,4],"
}

case_tree_fixture() {
    mixed
    ok tree m.zarr
    has_line out "/"
    has_line out "  f32  float32 [3, 4] (y, x) chunks [2, 3] codecs bytes(endian=little) zstd(level=1,checksum=false)"
    has_line out "  scalar  int32 [] chunks [] codecs bytes(endian=little)"
    has_line out "  sub/"
    has_line out "    grid  uint16 [100, 60] chunks [10, 10] codecs bytes(endian=little) gzip(level=1)"
    has_line out "    sharded  int32 [20, 30] chunks [10, 10] inner [5, 5] codecs sharding_indexed(chunk_shape=[5,5],codecs=[bytes(endian=little),zstd(level=1,checksum=false)],index_codecs=[bytes(endian=little)],index_location=end)"
    [ "$(wc -l <out)" = 15 ] || fail "15 lines expected"
    ok tree m.zarr/sub
    has_line out "/sub"
    has_line out "  empty  float64 [0, 5] chunks [1, 5] codecs bytes(endian=little)"
}

# ---- cat -------------------------------------------------------------------------------

case_cat_corpus() {
    ok cat "$CORPUS/zarrs/v3/array_zstd.zarr" --region 1:3,2:5
    out_is "12 13 14
22 23 24"
    ok cat "$CORPUS/zarrs/v3/array_blosc_transpose.zarr" --region 8:,7:
    out_is "87 88 89
97 98 99"
    ok cat "$CORPUS/zarrita.js/v3/data.zarr/1d.contiguous.b1"
    out_is "true false true false"
    ok cat "$CORPUS/zarrita.js/v3/data.zarr/1d.contiguous.f2.le"
    out_is "-1000.5 0 1000.5 0"
    ok cat "$CORPUS/zarrita.js/v3/data.zarr/1d.contiguous.compressed.sharded.f8"
    out_is "1.5 2.5 3.5 4.5"
    ok cat "$CORPUS/zarrita.js/v3/data.zarr/1d.chunked.filled.compressed.sharded.i2"
    out_is "1 2 0 0"
    ok cat "$CORPUS/zarrita.js/v3/data.zarr/3d.chunked.compressed.sharded.i2" --region 1,2:4,1:3
    out_is "[1, :, :]
25 26
29 30"
    ok cat "$CORPUS/gdal/v3/f2_be.zarr/f2_be"
    out_is "1.5 nan"
    ok cat "$CORPUS/gdal/v3/order_f_u2.zarr/order_f_u2"
    out_is "0 1 2 3
4 5 6 7
8 9 10 11
12 13 14 15"
    # never-written chunks read as the NaN fill value
    ok cat "$CORPUS/zarrs/hierarchy.zarr/a/foo" --region 9999,998:
    out_is "nan nan"
}

case_cat_formats() {
    mixed
    ok cat m.zarr/f32
    out_is "-1 nan inf -inf
0 0.1 3.4028235e+38 0.75
1 1.25 1.5 1.75"
    ok cat m.zarr/f64
    out_is "0.1 1e+300 -2.5 0.3333333333333333"
    ok cat m.zarr/c64
    out_is "1.5-2j nan+infj"
    ok cat m.zarr/c128
    out_is "0.1+0j"
    ok cat m.zarr/b
    out_is "true false true false"
    ok cat m.zarr/i64
    out_is "-9223372036854775808 9223372036854775807"
    ok cat m.zarr/u64
    out_is "18446744073709551615"
    ok cat m.zarr/f16
    out_is "1.5 -0 65504"
    ok cat m.zarr/r16
    out_is "0x0102 0xabcd"
    ok cat m.zarr/scalar
    out_is "42"
    ok cat m.zarr/sub/empty
    [ -s out ] && fail "an empty array prints nothing"
    return 0
}

case_cat_region_forms() {
    mixed
    ok cat m.zarr/sub/sharded --region 0:2,28:30
    out_is "-272 -271
-242 -241"
    ok cat m.zarr/sub/sharded --region=19,:3
    out_is "270 271 272"
    ok cat m.zarr/sub/sharded --region 19:,29:
    out_is "299"
    ok cat m.zarr/sub/sharded --region :,29
    [ "$(wc -l <out)" = 20 ] || fail "20 rows expected"
    ok cat m.zarr/sub/sharded --region ,5:5
    [ "$(wc -l <out)" = 0 ] || fail "an empty region prints nothing"
    ok cat m.zarr/sub/grid --region 4:6,58:
    out_is "298 299
358 359"
}

case_cat_blocks() {
    # tiny read blocks: rows split across blocks still print one row per line
    mixed
    ok cat m.zarr/sub/grid
    cp out whole
    ZARR_CAT_BLOCK_BYTES=6 "$ZARR" cat m.zarr/sub/grid >out 2>err || fail "cat with small blocks"
    cmp whole out >/dev/null || fail "cat in 6-byte blocks differs"
    ZARR_CAT_BLOCK_BYTES=500 "$ZARR" cat m.zarr/sub/sharded --region 3:17,2:29 >out 2>err || fail "cat"
    "$ZARR" cat m.zarr/sub/sharded --region 3:17,2:29 >whole 2>err || fail "cat"
    cmp whole out >/dev/null || fail "cat in 500-byte blocks differs"
}

case_cat_limit() {
    "$FIXTURE" big big.zarr || fail "fixture"
    run cat big.zarr
    expect_rc 1
    contains err "zarr: cat: big.zarr: the selection has 12000000 elements, more than the limit of 10000000"
    contains err "--region"
    contains err "--all"
    [ -s out ] && fail "nothing printed when refused"
    ok cat big.zarr --region 3999,2997:
    out_is "7 7 7"
}

case_cat_errors() {
    mixed
    for r in 1:2:3 a:b 3:1 -1:2 "1,,x" " 1:2" "1:2;"; do
        run cat m.zarr/sub/grid --region "$r"
        expect_rc 2
        contains err "zarr: cat: malformed --region"
    done
    run cat m.zarr/sub/grid --region
    expect_rc 2
    run cat m.zarr/sub/grid --region 0:101,0:2
    expect_rc 1
    contains err "zarr: cat: m.zarr/sub/grid: region 0:101,0:2 is outside the array of shape [100, 60]: zarr_array_selection_nbytes"
    run cat m.zarr/sub/grid --region 200:,0:2
    expect_rc 1
    contains err "past its extent 100"
    run cat m.zarr/sub/grid --region 0:2
    expect_rc 1
    contains err "--region has 1 dimensions, the array has 2"
    run cat m.zarr
    expect_rc 1
    contains err "is a group"
}

case_missing_path() {
    for c in info tree cat; do
        run "$c" does/not/exist
        expect_rc 1
        has_line err "zarr: $c: does/not/exist: No such file or directory"
    done
    run cp does/not/exist x.zarr
    expect_rc 1
    contains err "zarr: cp: does/not/exist: No such file or directory"
    mkdir plain
    run info plain
    expect_rc 1
    contains err "zarr: info: cannot open node / in store "
    contains err "no node at"
    run info "plain::/x"
    expect_rc 1
    contains err "cannot open node /x in store plain"
}

# ---- cp --------------------------------------------------------------------------------

case_cp_rechunk_shard_zstd() {
    mixed
    ok cp m.zarr/sub/grid out.zarr --chunks 7,9 --shards 14,18 --codec zstd
    [ -s out ] && fail "cp prints nothing on stdout"
    same_cat m.zarr/sub/grid out.zarr
    ok info out.zarr
    has_line out "chunk_shape:        [14, 18] (shards)"
    has_line out "inner_chunk_shape:  [7, 9]"
    has_line out "      zstd level=3 checksum=false"
    has_line out "      crc32c"
    # sharded corpus data into plain gzip chunks, and into sharded zstd:7 chunks
    ok cp "$CORPUS/gdal/v3/simple_sharding.zarr" plain.zarr --chunks 5,5 --codec gzip:1
    same_cat "$CORPUS/gdal/v3/simple_sharding.zarr" plain.zarr
    ok info plain.zarr
    has_line out "chunk_shape:        [5, 5]"
    has_line out "  gzip level=1"
    ok cp "$CORPUS/zarrita.js/v3/data.zarr/3d.chunked.mixed.i2.F" f.zarr --chunks 1,3,3 --shards 3,3,3 --codec zstd:7
    same_cat "$CORPUS/zarrita.js/v3/data.zarr/3d.chunked.mixed.i2.F" f.zarr
    ok info f.zarr
    has_line out "      zstd level=7 checksum=false"
}

case_cp_defaults_keep_layout() {
    mixed
    # without options the chunking, sharding and compressor of the source are kept
    ok cp m.zarr/sub/sharded s.zarr
    ok tree s.zarr
    contains out "int32 [20, 30] chunks [10, 10] inner [5, 5] codecs sharding_indexed(chunk_shape=[5,5],codecs=[bytes(endian=little),zstd(level=1,checksum=false)]"
    same_cat m.zarr/sub/sharded s.zarr
    ok cp "$CORPUS/zarrs/v3/array_blosc.zarr" b.zarr
    ok tree b.zarr
    contains out "float32 [10, 10] chunks [5, 5] codecs bytes(endian=little) blosc(cname=zstd,clevel=1,shuffle=bitshuffle,typesize=4"
    same_cat "$CORPUS/zarrs/v3/array_blosc.zarr" b.zarr
    ok cp m.zarr/sub/grid n.zarr --codec none --chunks 100,60
    ok tree n.zarr
    has_line out "/  uint16 [100, 60] chunks [100, 60] codecs bytes(endian=little)"
}

case_cp_every_type() {
    mixed
    for a in f32 f64 c64 c128 b i64 u64 f16 r16 scalar sub/empty; do
        ok cp "m.zarr/$a" "copy_$(echo $a | tr / _).zarr" --codec gzip
        same_cat "m.zarr/$a" "copy_$(echo $a | tr / _).zarr"
    done
    ok info copy_f32.zarr
    has_line out "fill_value:         NaN"
    has_line out "dimension_names:    [y, x]"
    has_line out "attributes:         1"
    has_line out '  units = "K"'
}

case_cp_group() {
    mixed
    ZARR_CP_BLOCK_BYTES=64 "$ZARR" cp m.zarr all.zarr --codec zstd:1 >out 2>err || fail "cp of a group"
    [ -s err ] && fail "no progress bar when stderr is not a terminal"
    ok tree all.zarr
    [ "$(wc -l <out)" = 15 ] || fail "15 lines expected"
    for a in f32 f64 c64 c128 b i64 u64 f16 r16 scalar sub/grid sub/sharded sub/empty; do
        same_cat "m.zarr/$a" "all.zarr/$a"
    done
    ok info all.zarr
    has_line out '  title = "fixture"'
    has_line out "  n = 3"
    # a subgroup into a node of an existing store (found by walking up from DST's parent)
    ok cp m.zarr/sub all.zarr/sub2
    ok tree all.zarr/sub2
    has_line out "/sub2"
    has_line out "  grid  uint16 [100, 60] chunks [10, 10] codecs bytes(endian=little) gzip(level=1)"
    same_cat m.zarr/sub/grid all.zarr/sub2/grid
    # explicit destination
    ok cp m.zarr/sub/grid "all.zarr::/deep/er/grid"
    same_cat m.zarr/sub/grid all.zarr/deep/er/grid
}

case_cp_blocks_aligned() {
    mixed
    # 100 x 60 in 30 x 7 chunks: 4 x 9 chunks; blocks of one chunk each with a tiny budget
    ZARR_CP_BLOCK_BYTES=100 "$ZARR" cp m.zarr/sub/grid small.zarr --chunks 30,7 --codec none >out 2>err ||
        fail "cp in small blocks"
    same_cat m.zarr/sub/grid small.zarr
    ZARR_CP_BLOCK_BYTES=1000 "$ZARR" cp m.zarr/sub/sharded sh.zarr --chunks 3,4 --shards 6,8 >out 2>err ||
        fail "cp sharded in small blocks"
    same_cat m.zarr/sub/sharded sh.zarr
    return 0
}

# With a terminal on stderr (script(1) provides one) cp shows the current array with its
# bytes, the whole copy's progress, the rate, and a closing summary; without one, nothing.
case_cp_progress() {
    mixed
    command -v script >/dev/null 2>&1 || { echo "script(1) missing: cannot give cp a terminal" >&2; exit 1; }
    ZARR_CP_BLOCK_BYTES=100 script -qec "'$ZARR' cp m.zarr/sub/grid tty.zarr --chunks 30,7" /dev/null >tty.txt 2>&1
    [ -d tty.zarr ] || { cat tty.txt >&2; fail "cp under script(1) did not copy"; }
    tr '\r' '\n' <tty.txt | sed "s/$(printf '\033')\[K//g" >lines.txt
    contains lines.txt "[1/1] / [####################] 11.7 KiB/11.7 KiB"
    grep -E '[0-9.]+ (B|KiB|MiB)/s' lines.txt >/dev/null || fail "no rate in the progress line"
    grep -E '^zarr cp: copied 1 array \(11\.7 KiB\) and 0 groups in [0-9.]+ s \([0-9.]+ (B|KiB|MiB)/s\)' lines.txt \
        >/dev/null || { cat lines.txt >&2; fail "summary line"; }
    # a group: each array counted against the whole copy
    ZARR_CP_BLOCK_BYTES=100 script -qec "'$ZARR' cp m.zarr/sub tty2.zarr" /dev/null >tty.txt 2>&1
    tr '\r' '\n' <tty.txt | sed "s/$(printf '\033')\[K//g" >lines.txt
    contains lines.txt "[1/3] /empty ["
    contains lines.txt "[2/3] /grid ["
    contains lines.txt "[3/3] /sharded ["
    contains lines.txt "  all 100% of 14.1 KiB"
    grep -E '^zarr cp: copied 3 arrays \(14\.1 KiB\) and 1 group in' lines.txt >/dev/null || { cat lines.txt >&2; fail "summary"; }
    # not a terminal: silent
    ZARR_CP_BLOCK_BYTES=100 "$ZARR" cp m.zarr/sub quiet.zarr >out 2>err || fail "cp"
    [ -s err ] && fail "progress drawn without a terminal"
    return 0
}

case_cp_errors() {
    mixed
    ok cp m.zarr/sub/grid one.zarr
    run cp m.zarr/sub/grid one.zarr
    expect_rc 1
    contains err "zarr: cp: cannot create array /: zarr_array_create: "
    run cp m.zarr/sub/grid two.zarr --chunks 5,5 --shards 12,10
    expect_rc 1
    contains err "shard shape must be a multiple of the chunk shape"
    run cp m.zarr/sub/grid three.zarr --chunks 5,5,5
    expect_rc 1
    contains err "--chunks has 3 values but the array has 2 dimensions"
    run cp m.zarr/sub/grid no/such/parent/x.zarr
    expect_rc 1
    contains err "parent directory"
    run cp m.zarr m.zarr/inner
    expect_rc 1
    contains err "zarr: cp: cannot copy the group m.zarr into itself"
    run cp m.zarr/sub "m.zarr::/sub/again"
    expect_rc 1
    contains err "into itself"
}

# ---- Zarr v2 (enabled when the library's v2 support lands) ------------------------------

case_v2_cp_to_v2_and_back() {
    mixed
    ok cp m.zarr/sub/grid v2.zarr --format 2 --codec zstd:1 --chunks 30,7
    [ -f v2.zarr/.zarray ] || fail "no .zarray written"
    ok info v2.zarr
    has_line out "zarr_format:        2"
    has_line out "data_type:          uint16 (<u2)"
    has_line out "order:              C"
    has_line out "filters:            none"
    has_line out "compressor:"
    contains out "  zstd level=1"
    has_line out "dimension_separator: ."
    ok tree v2.zarr
    contains out "/  uint16 [100, 60] chunks [30, 7] v2 compressor zstd(level=1"
    same_cat m.zarr/sub/grid v2.zarr
    ok cp v2.zarr back.zarr --format 3
    ok info back.zarr
    has_line out "zarr_format:        3"
    has_line out "  zstd level=1 checksum=false"
    same_cat m.zarr/sub/grid back.zarr
}

# The round trip: a v2 array to sharded v3 and back, values identical throughout.
case_v2_to_sharded_v3_and_back() {
    mixed
    ok cp m.zarr/sub/grid v2.zarr --format 2 --codec gzip:1 --chunks 25,20
    ok cp v2.zarr sharded.zarr --format 3 --chunks 10,10 --shards 50,20 --codec zstd:1
    ok info sharded.zarr
    has_line out "zarr_format:        3"
    contains out "sharding_indexed"
    ok cp sharded.zarr v2again.zarr --format 2 --chunks 30,30
    [ -f v2again.zarr/.zarray ] || fail "no .zarray written"
    same_cat m.zarr/sub/grid v2.zarr
    same_cat v2.zarr sharded.zarr
    same_cat sharded.zarr v2again.zarr
}

# A whole group hierarchy copied to v2 and back to v3.
case_v2_cp_group() {
    mixed
    ok cp m.zarr/sub g2.zarr --format 2
    [ -f g2.zarr/.zgroup ] || fail "no .zgroup written"
    ok tree g2.zarr
    contains out "grid"
    same_cat m.zarr/sub/grid g2.zarr/grid
    ok cp g2.zarr g3.zarr
    [ -f g3.zarr/.zgroup ] || fail "the copy of a v2 group is not v2"
    ok cp g2.zarr g4.zarr --format 3
    [ -f g4.zarr/zarr.json ] || fail "no zarr.json written"
    same_cat m.zarr/sub/grid g4.zarr/grid
}

# info and tree on peer stores in all three layouts: v3, v2 and the 2022 draft.
case_three_layouts_corpus() {
    ok tree "$CORPUS/zarrita.js/v2/data.zarr"
    contains out "1d.contiguous.zlib.i2"
    ok info "$CORPUS/zarrita.js/v2/data.zarr/1d.contiguous.zlib.i2"
    has_line out "zarr_format:        2"
    ok tree "$CORPUS/zarr_implementations/examples/zarrita.zr3"
    contains out "lz4  uint8 [512, 512, 3] chunks [100, 100, 1] codecs blosc(cname=lz4"
    contains out "gzip  uint8 [512, 512, 3] chunks [100, 100, 1] codecs gzip(level=1)"
    ok info "$CORPUS/zarr_implementations/examples/zarrita.zr3::/gzip"
    contains out "512, 512, 3"
    ok tree "$CORPUS/zarrita.js/v3/data.zarr"
    contains out "1d.chunked.i2"
    # The draft store and its v2 twin print the same values (a corner region).
    "$ZARR" cat "$CORPUS/zarr_implementations/examples/zarrita.zr3::/raw" --region 0:3,0:4,0:3 >cat_a 2>err ||
        fail "zarr cat of the draft array"
    "$ZARR" cat "$CORPUS/zarr_implementations/examples/zarr.zr/raw" --region 0:3,0:4,0:3 >cat_b 2>err ||
        fail "zarr cat of the v2 array"
    cmp cat_a cat_b >/dev/null || fail "the draft array and its v2 twin print differently"
    [ -s cat_a ] || fail "nothing printed"
}

case_v2_cp_every_type() {
    mixed
    for a in f32 f64 c64 c128 b i64 u64 f16 scalar sub/sharded; do
        ok cp "m.zarr/$a" "v2_$(echo $a | tr / _).zarr" --format 2
        same_cat "m.zarr/$a" "v2_$(echo $a | tr / _).zarr"
    done
    ok info v2_f32.zarr
    has_line out "data_type:          float32 (<f4)"
    has_line out "fill_value:         NaN"
    has_line out "attributes:         1"
}

case_v2_fixture() {
    "$FIXTURE" v2 fx.zarr || fail "fixture (v2 array)"
    ok info fx.zarr
    has_line out "zarr_format:        2"
    has_line out "data_type:          float32 (<f4)"
    contains out "  zstd level=1"
    has_line out "dimension_separator: /"
    ok cat fx.zarr --region 5,
    out_is "12.5 13 13.5 14 14.5"
}

# ---- arrays this build cannot decode ------------------------------------------------------

case_undecodable_tree_info() {
    mixed
    future m.zarr/sub/future
    run tree m.zarr
    expect_rc 0
    contains out "    future  (not decodable by this build: zarr_array_open: "
    contains out "example.future_codec"
    has_line out "    grid  uint16 [100, 60] chunks [10, 10] codecs bytes(endian=little) gzip(level=1)"
    has_line out "    sharded  int32 [20, 30] chunks [10, 10] inner [5, 5] codecs sharding_indexed(chunk_shape=[5,5],codecs=[bytes(endian=little),zstd(level=1,checksum=false)],index_codecs=[bytes(endian=little)],index_location=end)"
    has_line err "zarr: tree: note: 1 array this build of libzarr cannot decode, shown without details: /sub/future"
    run info m.zarr/sub
    expect_rc 0
    has_line out "children:           4"
    contains out "  future            (not decodable by this build: "
    contains out "  grid              uint16 [100, 60]"
    contains err "shown without details: /sub/future"
    run info m.zarr/sub/future
    expect_rc 0
    has_line out "path:               /sub/future"
    has_line out "status:             not decodable by this build of libzarr"
    contains out "reason:             zarr_array_open: "
    run tree --json m.zarr
    expect_rc 0
    json_check out "[c for c in d['children'] if c['name'] == 'sub'][0]['children'][1] == {'name': 'future', 'path': '/sub/future', 'node_type': 'array', 'decodable': False, 'error': [c for c in d['children'] if c['name'] == 'sub'][0]['children'][1]['error']}"
    json_check out "'example.future_codec' in [c for c in d['children'] if c['name'] == 'sub'][0]['children'][1]['error']"
    run cat m.zarr/sub/future
    expect_rc 1
    contains err "zarr: cat: m.zarr/sub/future: this build of libzarr cannot decode the array: "
    # Zarr v2 too
    future_v2 m.zarr/sub/future2
    run tree m.zarr/sub
    expect_rc 0
    contains out "  future2  (not decodable by this build: "
    contains err "shown without details: /sub/future /sub/future2"
}

case_undecodable_cp() {
    mixed
    future m.zarr/sub/future
    run cp m.zarr c.zarr
    expect_rc 0
    contains err "zarr: cp: skipped /sub/future: this build of libzarr cannot decode it (zarr_array_open: "
    has_line err "zarr: cp: 1 array not copied (this build of libzarr cannot decode them): /sub/future"
    [ -e c.zarr/sub/future ] && fail "the undecodable array was written"
    for a in f32 sub/grid sub/sharded; do same_cat "m.zarr/$a" "c.zarr/$a"; done
    # --strict: the same copy, but an error
    run cp m.zarr d.zarr --strict --format 2
    expect_rc 1
    contains err "1 array not copied"
    same_cat m.zarr/sub/grid d.zarr/sub/grid
    # the undecodable array itself
    run cp m.zarr/sub/future e.zarr
    expect_rc 1
    contains err "cannot decode the array"
    [ -e e.zarr ] && fail "nothing is written for an undecodable SRC"
    return 0
}

# ---- xarray's conventions across formats ----------------------------------------------------

case_cp_dimension_names_across_formats() {
    mixed
    ok cp m.zarr/f32 v2.zarr --format 2
    json_check v2.zarr/.zattrs "d == {'units': 'K', '_ARRAY_DIMENSIONS': ['y', 'x']}"
    json_check v2.zarr/.zarray "d['fill_value'] == 'NaN'"
    ok info v2.zarr
    has_line out "dimension_names:    [y, x]"
    has_line out "variable:           float32 /(y, x)"
    has_line out "attributes:         1"
    ok cp v2.zarr v3.zarr --format 3
    # the v2 fill value is what xarray masks with in v2: in v3 it is the _FillValue attribute
    json_check v3.zarr/zarr.json "d['dimension_names'] == ['y', 'x'] and d['attributes'] == {'units': 'K', '_FillValue': 'AAAAAAAA+H8='}"
    same_cat m.zarr/f32 v3.zarr
}

case_cp_xarray_fill_values() {
    cf
    ok cp cf.zarr v2.zarr --format 2
    # the v3 _FillValue attribute becomes the v2 fill_value (xarray's _FillValue in v2)
    json_check v2.zarr/pr/.zarray "d['fill_value'] == -32767"
    json_check v2.zarr/pr/.zattrs "d == {'units': 'mm/day', 'scale_factor': 0.01, 'add_offset': 1.5, '_ARRAY_DIMENSIONS': ['time', 'lat', 'lon']}"
    json_check v2.zarr/tas/.zarray "d['fill_value'] == 'NaN'"
    json_check v2.zarr/tas/.zattrs "'_FillValue' not in d"
    # no _FillValue attribute: xarray masks nothing in v3, so the v2 fill_value is null
    json_check v2.zarr/time/.zarray "d['fill_value'] is None"
    for a in time lat lon tas pr; do same_cat "cf.zarr/$a" "v2.zarr/$a"; done
    "$ZARR" cat cf.zarr/pr --decode >cat_a 2>err || fail "cat --decode"
    "$ZARR" cat v2.zarr/pr --decode >cat_b 2>err || fail "cat --decode of the v2 copy"
    cmp cat_a cat_b >/dev/null || { diff cat_a cat_b >&2; fail "decoded values differ"; }
    # and back: the v2 fill_value becomes xarray's _FillValue attribute
    ok cp v2.zarr v3.zarr --format 3
    json_check v3.zarr/pr/zarr.json "d['attributes'] == {'units': 'mm/day', 'scale_factor': 0.01, 'add_offset': 1.5, '_FillValue': -32767} and d['dimension_names'] == ['time', 'lat', 'lon']"
    json_check v3.zarr/tas/zarr.json "d['attributes']['_FillValue'] == 'AAAAAAAA+H8=' and d['fill_value'] == 'NaN'"
    json_check v3.zarr/time/zarr.json "'_FillValue' not in d['attributes'] and d['fill_value'] == 0"
    "$ZARR" cat v3.zarr/pr --decode >cat_b 2>err || fail "cat --decode of the v3 copy"
    cmp cat_a cat_b >/dev/null || { diff cat_a cat_b >&2; fail "decoded values differ after the round trip"; }
}

case_cp_consolidate() {
    cf
    ok info cf.zarr
    has_line out "consolidated:       yes"
    ok cp cf.zarr v2.zarr --format 2
    [ -f v2.zarr/.zmetadata ] || fail "a consolidated source gives a consolidated copy"
    ok info v2.zarr
    has_line out "consolidated:       yes"
    ok cp cf.zarr v3.zarr
    json_check v3.zarr/zarr.json "sorted(d['consolidated_metadata']['metadata']) == ['lat', 'lon', 'pr', 'tas', 'time']"
    ok cp cf.zarr none.zarr --no-consolidate
    ok info none.zarr
    has_line out "consolidated:       no"
    mixed
    ok cp m.zarr plain.zarr
    ok info plain.zarr
    has_line out "consolidated:       no"
    ok cp m.zarr asked.zarr --consolidate --format 2
    [ -f asked.zarr/.zmetadata ] || fail "--consolidate"
}

# ---- chunks by dimension name, subsets ------------------------------------------------------

case_cp_chunks_by_name() {
    cf
    ok cp cf.zarr r.zarr --chunks time/1,lon/2
    ok tree r.zarr
    contains out "  tas  float32 [4, 3, 5] (time, lat, lon) chunks [1, 3, 2] codecs"
    contains out "  pr  int16 [4, 3, 5] (time, lat, lon) chunks [1, 3, 2] codecs"
    contains out "  time  int64 [4] (time) chunks [1] codecs"
    contains out "  lat  float64 [3] (lat) chunks [3] codecs"
    contains out "  lon  float64 [5] (lon) chunks [2] codecs"
    for a in time lat lon tas pr; do same_cat "cf.zarr/$a" "r.zarr/$a"; done
    ok cp cf.zarr s.zarr --chunks time/1,lon/5 --shards time/4
    ok tree s.zarr
    contains out "  tas  float32 [4, 3, 5] (time, lat, lon) chunks [4, 3, 5] inner [1, 3, 5] codecs sharding_indexed"
    same_cat cf.zarr/tas s.zarr/tas
    # a name no array has is an error, found before anything is written
    run cp cf.zarr t.zarr --chunks tiem/2
    expect_rc 1
    has_line err "zarr: cp: --chunks names dimension 'tiem', which no array copied has"
    [ -e t.zarr ] && fail "nothing is written when the options do not fit"
    # positional chunks do not fit 1-D coordinates; the message says what to do
    run cp cf.zarr t.zarr --chunks 1,3,2
    expect_rc 1
    contains err "/lat: --chunks has 3 values but the array has 1 dimensions (name the dimensions instead"
    [ -e t.zarr ] && fail "nothing is written when the options do not fit"
    for bad in time/1,2 time/0 /3 time/x; do
        run cp cf.zarr t.zarr --chunks "$bad"
        expect_rc 2
        contains err "malformed --chunks"
    done
    return 0
}

case_cp_vars() {
    cf
    ok cp cf.zarr v.zarr --vars pr
    ok tree v.zarr
    # pr with its coordinate variables, not tas
    [ "$(grep -c '^  ' out)" = 4 ] || fail "pr, time, lat and lon expected"
    for a in pr time lat lon; do contains out "  $a  "; done
    grep -F "  tas  " out >/dev/null && fail "tas copied"
    same_cat cf.zarr/pr v.zarr/pr
    ok info v.zarr
    has_line out '  title = "cf fixture"'
    mixed
    ok cp m.zarr w.zarr --vars sub/grid,f32
    ok tree w.zarr
    out_is "/
  f32  float32 [3, 4] (y, x) chunks [2, 3] codecs bytes(endian=little) zstd(level=1,checksum=false)
  sub/
    grid  uint16 [100, 60] chunks [10, 10] codecs bytes(endian=little) gzip(level=1)"
    ok cp m.zarr x.zarr --vars /sub/
    ok tree x.zarr
    [ "$(wc -l <out)" = 5 ] || fail "the group sub and its three arrays expected"
    run cp m.zarr y.zarr --vars nosuch,f32
    expect_rc 1
    has_line err "zarr: cp: --vars: no array or group named 'nosuch' below the source"
    [ -e y.zarr ] && fail "nothing is written for an unknown name"
    run cp m.zarr/f32 y.zarr --vars f32
    expect_rc 2
    contains err "--vars selects arrays of a group"
    return 0
}

# ---- info and tree as JSON ----------------------------------------------------------------

case_info_tree_json() {
    cf
    ok info --json cf.zarr/pr
    json_check out "d['node_type'] == 'array' and d['path'] == '/pr' and d['name'] == 'pr' and d['decodable']"
    json_check out "d['data_type'] == 'int16' and d['shape'] == [4, 3, 5] and d['chunk_shape'] == [4, 3, 5]"
    json_check out "d['dimension_names'] == ['time', 'lat', 'lon'] and d['fill_value'] == 0 and d['zarr_format'] == 3"
    json_check out "d['attributes']['scale_factor'] == 0.01 and d['chunks'] == 1 and d['nbytes'] == 120"
    json_check out "d['metadata']['codecs'][1]['name'] == 'zstd' and d['store'].endswith('cf.zarr')"
    ok info --json cf.zarr
    json_check out "d['node_type'] == 'group' and d['consolidated'] and d['zarr_format'] == 3"
    json_check out "d['dimensions'] == {'lat': 3, 'lon': 5, 'time': 4} and d['attributes']['title'] == 'cf fixture'"
    json_check out "[c['name'] for c in d['children']] == ['lat', 'lon', 'pr', 'tas', 'time']"
    mixed
    ok tree --json m.zarr
    json_check out "d['path'] == '/' and [c['name'] for c in d['children']][-2:] == ['sub', 'u64']"
    json_check out "[c for c in d['children'] if c['name'] == 'sub'][0]['children'][2]['inner_chunk_shape'] == [5, 5]"
    json_check out "[c for c in d['children'] if c['name'] == 'f64'][0]['dimension_names'] is None"
    ok tree --json m.zarr/f32
    json_check out "d['path'] == '/f32' and 'metadata' not in d"
    run info --json
    expect_rc 2
}

# ---- cat: slices and CF decoding ------------------------------------------------------------

case_cat_slices() {
    cf
    ok cat cf.zarr/tas --region 1:3,0:2,3:
    out_is "[time=1, :, :]
274.5 274.75
275.75 276

[time=2, :, :]
278.25 278.5
279.5 279.75"
    # without dimension names: the indices alone
    ok cat "$CORPUS/zarrita.js/v3/data.zarr/3d.chunked.compressed.sharded.i2" --region 0:2,0:1,0:2
    out_is "[0, :, :]
0 1

[1, :, :]
16 17"
    # 2-D arrays print no labels
    ok cat cf.zarr/pr --region 0,0:2,0:2
    out_is "[time=0, :, :]
0 10
-32767 60"
}

case_cat_decode() {
    cf
    ok cat cf.zarr/pr --region 0:2,0:2,0:3 --decode
    out_is "[time=0, :, :]
1.5 1.6 1.7
nan 2.1 2.2

[time=1, :, :]
3 3.1 3.2
3.5 3.6 3.7"
    ok cat cf.zarr/tas --region 0,1,0:4 --decode
    out_is "[time=0, :, :]
271.25 271.5 nan 272"
    # nothing to decode: the values as stored
    ok cat cf.zarr/time --decode
    out_is "0 1 2 3"
    ok cat cf.zarr/lat
    out_is "-10 0 10.5"
}

# ---- stores: zip files, URLs ------------------------------------------------------------------

case_zip_store() {
    mixed
    zip_store m.zarr "$WORK/m.zip"
    ok tree m.zarr
    cp out tree_dir
    ok tree m.zip
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree of the zip differs"; }
    ok info m.zip/sub/grid
    has_line out "path:               /sub/grid"
    grep -E '^store: +/.*/m\.zip$' out >/dev/null || fail "store is the zip file"
    same_cat m.zarr/sub/sharded m.zip/sub/sharded
    same_cat m.zarr/f32 "m.zip::/f32"
    ok cp m.zip copy.zarr
    for a in f32 f64 sub/grid sub/sharded; do same_cat "m.zarr/$a" "copy.zarr/$a"; done
    # zipped from the parent folder: the archive's one top-level directory is the root
    mkdir parent && cp -r m.zarr parent/ && (cd parent && python3 -m zipfile -c ../p.zip m.zarr) || fail "zip"
    same_cat m.zarr/sub/grid p.zip/sub/grid
    run cp m.zarr out.zip
    expect_rc 1
    has_line err "zarr: cp: $WORK/out.zip: zip stores are read-only; copy into a directory instead"
    run info m.zip/sub/nosuch
    expect_rc 1
    contains err "cannot open node /sub/nosuch in store"
    printf 'not a zip' >bad.zip
    run tree bad.zip
    expect_rc 1
    contains err "zarr: tree: cannot open the zip store $WORK/bad.zip: zarr_store_open_zip: "
}

case_url_store() {
    run info s3://bucket/data.zarr
    expect_rc 1
    has_line err "zarr: info: s3://bucket/data.zarr: URL stores are not supported by this build of libzarr (local directories and .zip files are)"
    run cp "https://example.org/x.zarr::/a" y.zarr
    expect_rc 1
    contains err "URL stores are not supported"
}

# ---- run the case named on the command line ---------------------------------------------
command -v "case_$CASE" >/dev/null 2>&1 || { echo "no case named '$CASE'" >&2; exit 2; }
"case_$CASE"
echo "PASS $CASE"
