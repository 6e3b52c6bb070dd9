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
# array1d DIR FORMAT DTYPE VALUES ATTRS [FILL]: a 1-D uncompressed array of VALUES (Python
# literals separated by spaces; nan allowed) written by hand, its data type a numpy code
# (<f8, <i4, <i8...), its attributes the JSON object ATTRS, its fill value FILL (JSON,
# default 0) in Zarr FORMAT 2 or 3.
array1d() {
    python3 - "$@" <<'PY' || fail "array1d $1"
import json, os, struct, sys
d, fmt, dt, values, attrs = sys.argv[1:6]
fill = json.loads(sys.argv[6]) if len(sys.argv) > 6 else 0
vals = [float(v) if dt[1] == "f" else int(v) for v in values.split()]
code = {"f8": "d", "f4": "f", "i4": "i", "i8": "q", "i2": "h", "u1": "B"}[dt[1:]]
data = struct.pack("<%d%s" % (len(vals), code), *vals)
v3 = {"f8": "float64", "f4": "float32", "i4": "int32", "i8": "int64", "i2": "int16", "u1": "uint8"}[dt[1:]]
os.makedirs(d, exist_ok=True)
if fmt == "3":
    os.makedirs(d + "/c", exist_ok=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": [len(vals)], "data_type": v3,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [len(vals)]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "attributes": json.loads(attrs), "dimension_names": ["time"]}
    open(d + "/zarr.json", "w").write(json.dumps(meta))
    open(d + "/c/0", "wb").write(data)
else:
    meta = {"zarr_format": 2, "shape": [len(vals)], "chunks": [len(vals)], "dtype": dt,
            "fill_value": fill, "order": "C", "filters": None, "compressor": None}
    open(d + "/.zarray", "w").write(json.dumps(meta))
    a = json.loads(attrs)
    a["_ARRAY_DIMENSIONS"] = ["time"]
    open(d + "/.zattrs", "w").write(json.dumps(a))
    open(d + "/0", "wb").write(data)
PY
}
cf() { "$FIXTURE" cf cf.zarr || fail "fixture"; }
# future DIR: a v3 array at DIR whose codec no build of libzarr knows (as a zfp-compressed
# array is to a build without zfp), with one chunk file written by hand: the tool must
# describe it from its metadata, go on, and copy it as stored.
future() {
    mkdir -p "$1/c" && printf '%s' '{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"float32",'\
'"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},'\
'"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,'\
'"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"example.future_codec"}],'\
'"attributes":{"units":"m"},"dimension_names":["station"]}' >"$1/zarr.json" &&
        printf 'opaque \001\002\377 bytes' >"$1/c/0" || fail "future array"
}
# future_v2 DIR: the same in Zarr v2 (a compressor no build knows), its dimension names in
# xarray's attribute, one chunk
future_v2() {
    mkdir -p "$1" && printf '%s' '{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<f4","fill_value":0,'\
'"order":"C","filters":null,"compressor":{"id":"example_future"}}' >"$1/.zarray" &&
        printf '%s' '{"_ARRAY_DIMENSIONS":["station"],"long_name":"x"}' >"$1/.zattrs" &&
        printf 'v2 \003 chunk' >"$1/0" || fail "future v2 array"
}
# strings DIR: a v3 array of variable-length strings (not readable before zarr_array_read_vlen)
strings_array() {
    mkdir -p "$1" && printf '%s' '{"zarr_format":3,"node_type":"array","shape":[2],"data_type":"string",'\
'"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},'\
'"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":"",'\
'"codecs":[{"name":"vlen-utf8"}]}' >"$1/zarr.json" || fail "strings array"
}
# same_file A B: the files are byte for byte the same
same_file() { cmp "$1" "$2" >/dev/null || fail "$1 and $2 differ"; }
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

case_info_icechunk() {
    "$FIXTURE" icechunk "$WORK/ic" || fail "fixture"
    ok info "icechunk+file://$WORK/ic"
    has_line out "repository: icechunk (spec version 2)"
    has_line out "branches:"
    grep -E '^  main  [0-9A-Z]{20}$' out >/dev/null || fail "no branch main with its id"
    has_line out "tags:"
    has_line out "history of main:"
    # newest first: second, the fixture's commit, the repository's first snapshot
    grep -E '^  [0-9A-Z]{20}  20[0-9-]+T[0-9:.]+(Z|\+00:00)  ' out | sed 's/.*  //' >history
    printf 'second\nfixture: mixed\nRepository initialized\n' >expected
    diff -u expected history >&2 || fail "history"
    main=$(sed -n 's/^  main  //p' out)
    newest=$(sed -n '/^history of main:$/{n;p;}' out)
    case "$newest" in "  $main  "*"  second") ;; *) fail "main is not the newest snapshot: $newest" ;; esac
    # and then what info prints for the root group
    has_line out "node:               group"
    contains out "title"
    # a tag-less snapshot opened by id, and an unknown branch
    first=$(grep 'fixture: mixed$' out | awk '{print $1}')
    ok info "icechunk+file://$WORK/ic" --store-options "{\"snapshot\": \"$first\"}"
    has_line out "history of $first:"
    run info "icechunk+file://$WORK/ic" --store-options '{"branch": "nope"}'
    expect_rc 1
    contains err "branch nope does not exist"
    return 0
}

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
    has_line out "fill_value:         nan"
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
    has_line out "fill_value:         nan"
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
    has_line out "fill_value:         nan"
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

# The issue's round trip: a v2 array to sharded v3 and back, values identical throughout.
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
    contains out "lz4  uint8 [512, 512, 3] chunks [100, 100, 1] codecs bytes numcodecs.blosc(cname=lz4"
    contains out "gzip  uint8 [512, 512, 3] chunks [100, 100, 1] codecs bytes gzip(level=1)"
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
    has_line out "fill_value:         nan"
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
    contains out "    future  float32 [4] (station) chunks [4] codecs bytes(endian=little) example.future_codec  (not decodable here: zarr_array_open: "
    contains out "example.future_codec')"
    has_line out "    grid  uint16 [100, 60] chunks [10, 10] codecs bytes(endian=little) gzip(level=1)"
    has_line out "    sharded  int32 [20, 30] chunks [10, 10] inner [5, 5] codecs sharding_indexed(chunk_shape=[5,5],codecs=[bytes(endian=little),zstd(level=1,checksum=false)],index_codecs=[bytes(endian=little)],index_location=end)"
    has_line err "zarr: tree: note: 1 array not decodable here (described from its metadata): /sub/future"
    run info m.zarr/sub
    expect_rc 0
    has_line out "children:           4"
    has_line out "dimensions:         station = 4"
    contains out "  future            float32 [4] (station) chunks [4] codecs bytes(endian=little) example.future_codec  (not decodable here: "
    has_line out '      units = "m"'
    contains out "  grid              uint16 [100, 60]"
    contains err "described from its metadata): /sub/future"
    run info m.zarr/sub/future
    expect_rc 0
    has_line out "path:               /sub/future"
    contains out "status:             not decodable here: zarr_array_open: "
    has_line out "zarr_format:        3"
    has_line out "variable:           float32 future(station)"
    has_line out "shape:              [4]"
    has_line out "dimension_names:    [station]"
    has_line out "chunk_shape:        [4]"
    has_line out "data_type:          float32"
    has_line out "fill_value:         0"
    has_line out "  bytes endian=little"
    has_line out "  example.future_codec"
    has_line out "attributes:         1"
    has_line out '  units = "m"'
    has_line out "chunks:             1 (grid 1)"
    has_line out "size:               16 bytes decoded"
    has_line out "stored:             1 of 1 chunks (the store listing; their sizes are not known without decoding support)"
    run tree --json m.zarr
    expect_rc 0
    json_check out "[c for c in [c for c in d['children'] if c['name'] == 'sub'][0]['children'] if c['name'] == 'future'][0] == {'name': 'future', 'path': '/sub/future', 'node_type': 'array', 'decodable': False, 'error': [c for c in [c for c in d['children'] if c['name'] == 'sub'][0]['children'] if c['name'] == 'future'][0]['error'], 'zarr_format': 3, 'data_type': 'float32', 'shape': [4], 'chunk_shape': [4], 'dimension_names': ['station'], 'fill_value': 0, 'attributes': {'units': 'm'}, 'chunks': 1, 'nbytes': 16}"
    json_check out "'example.future_codec' in [c for c in d['children'] if c['name'] == 'sub'][0]['children'][1]['error']"
    run info --json m.zarr/sub/future
    json_check out "d['metadata']['codecs'][1]['name'] == 'example.future_codec' and d['stored'] == {'chunks': 1, 'nbytes': None, 'method': 'the store listing', 'estimated': False}"
    run cat m.zarr/sub/future
    expect_rc 1
    contains err "zarr: cat: m.zarr/sub/future: this build of libzarr cannot decode the array: "
    # Zarr v2: the same from .zarray and .zattrs (the dimension names are xarray's attribute)
    future_v2 m.zarr/sub/future2
    # variable-length strings: decoded (zarr_array_read_vlen), so not in the note
    strings_array m.zarr/sub/strs
    run tree m.zarr/sub
    expect_rc 0
    contains out "  future2  float32 [4] (station) chunks [4] v2 compressor example_future  (not decodable here: "
    has_line out "  strs  string [2] chunks [2] codecs vlen-utf8"
    has_line err "zarr: tree: note: 2 arrays not decodable here (described from their metadata): /sub/future /sub/future2"
    run info m.zarr/sub/future2
    has_line out "zarr_format:        2"
    has_line out "dimension_names:    [station]"
    has_line out "data_type:          float32 (<f4)"
    has_line out "  example_future"
    has_line out "attributes:         1"
    has_line out '  long_name = "x"'
    has_line out "stored:             1 of 1 chunks (the store listing; their sizes are not known without decoding support)"
    run info m.zarr/sub/strs
    has_line out "data_type:          string"
    has_line out "  variable-length UTF-8 strings"
    has_line out '  vlen-utf8'
    run cat m.zarr/sub/strs
    expect_rc 0
    has_line out '"" ""'
    # a zip store: the same
    zip_store m.zarr "$WORK/m.zip"
    run tree m.zip
    contains out "    future  float32 [4] (station) chunks [4] codecs bytes(endian=little) example.future_codec  (not decodable here: "
    contains err "2 arrays not decodable here"
}

# The 2022 draft layout: an array with a codec no build knows, in a copy of the corpus's
# draft store; described from its .array.json, its chunk found under data/root.
case_undecodable_draft() {
    cp -r "$CORPUS/zarr_implementations/examples/zarrita.zr3" d.zr3 || fail "copy"
    sed 's#codec/gzip/1.0#codec/lzfuture/1.0#' d.zr3/meta/root/gzip.array.json >d.zr3/meta/root/fut.array.json
    mkdir -p d.zr3/data/root/fut/c0/0 && printf 'x' >d.zr3/data/root/fut/c0/0/0 || fail "draft chunk"
    run tree d.zr3
    expect_rc 0
    contains out "  fut  uint8 [512, 512, 3] chunks [100, 100, 1] codecs lzfuture(level=1)  (not decodable here: "
    contains out "  gzip  uint8 [512, 512, 3] chunks [100, 100, 1] codecs bytes gzip(level=1)"
    run info "d.zr3::/fut"
    has_line out "zarr_format:        3 (2022 draft layout)"
    has_line out "data_type:          uint8 (u1)"
    has_line out "  lzfuture level=1"
    has_line out "stored:             1 of 108 chunks (the store listing; their sizes are not known without decoding support)"
    # copied as stored only into the same layout, which this tool does not write
    run cp d.zr3 c.zarr --vars fut,gzip
    expect_rc 0
    has_line err "zarr: cp: skipped /fut: not decodable here (zarr_array_open: unsupported codec 'numcodecs.lzfuture'), and it is in the 2022 draft layout, which this tool only reads"
    same_cat "d.zr3::/gzip" c.zarr/gzip
}

case_undecodable_cp() {
    mixed
    future m.zarr/sub/future
    run cp m.zarr c.zarr
    expect_rc 0
    has_line err "zarr: cp: note: 1 array not decodable here, copied as stored (metadata and chunk bytes unchanged): /sub/future"
    same_file m.zarr/sub/future/zarr.json c.zarr/sub/future/zarr.json
    same_file m.zarr/sub/future/c/0 c.zarr/sub/future/c/0
    [ "$(find c.zarr/sub/future -type f | wc -l)" = 2 ] || fail "zarr.json and one chunk expected"
    for a in f32 sub/grid sub/sharded; do same_cat "m.zarr/$a" "c.zarr/$a"; done
    run tree c.zarr/sub
    contains out "  future  float32 [4] (station) chunks [4] codecs bytes(endian=little) example.future_codec  (not decodable here: "
    # --strict: a copy as stored is no skip
    run cp m.zarr/sub s.zarr --strict
    expect_rc 0
    same_file m.zarr/sub/future/c/0 s.zarr/future/c/0
    # a conversion cannot copy it as stored: skipped, said why, not an error without --strict
    run cp m.zarr d.zarr --format 2
    expect_rc 0
    has_line err "zarr: cp: skipped /sub/future: not decodable here (zarr_array_open: unsupported codec 'example.future_codec'), and --format 2 asks for a conversion (a copy as stored needs the same format and no --chunks, --shards or --codec)"
    has_line err "zarr: cp: 1 array not copied (not decodable here): /sub/future"
    [ -e d.zarr/sub/future ] && fail "the undecodable array was written"
    same_cat m.zarr/sub/grid d.zarr/sub/grid
    run cp m.zarr e.zarr --strict --codec gzip
    expect_rc 1
    contains err "skipped /sub/future: not decodable here (zarr_array_open: unsupported codec 'example.future_codec'), and --codec asks to recompress it"
    run cp m.zarr/sub e2.zarr --chunks 5,5 --vars grid,future
    contains err "and --chunks asks to rechunk it"
    # the undecodable array itself, to a new store and to a node whose parents do not exist
    run cp m.zarr/sub/future f.zarr
    expect_rc 0
    same_file m.zarr/sub/future/zarr.json f.zarr/zarr.json
    same_file m.zarr/sub/future/c/0 f.zarr/c/0
    run cp m.zarr/sub/future "c.zarr::/deep/er/fut"
    expect_rc 0
    same_file m.zarr/sub/future/c/0 c.zarr/deep/er/fut/c/0
    run tree c.zarr/deep
    has_line out "  er/"
    contains out "    fut  float32 [4] (station)"
    # never over an existing node
    run cp m.zarr/sub/future "c.zarr::/sub/future"
    expect_rc 1
    has_line err "zarr: cp: cannot copy /sub/future: a node exists at /sub/future"
    # Zarr v2: .zarray, .zattrs and the chunk, unchanged
    run cp m.zarr/sub g2.zarr --format 2
    expect_rc 0
    future_v2 g2.zarr/future2
    run cp g2.zarr g2c.zarr
    expect_rc 0
    contains err "copied as stored (metadata and chunk bytes unchanged): /future2"
    for f in .zarray .zattrs 0; do same_file "g2.zarr/future2/$f" "g2c.zarr/future2/$f"; done
    same_cat g2.zarr/grid g2c.zarr/grid
    # from a zip store
    zip_store m.zarr "$WORK/m.zip"
    run cp m.zip z.zarr
    expect_rc 0
    same_file m.zarr/sub/future/c/0 z.zarr/sub/future/c/0
    same_file m.zarr/sub/future/zarr.json z.zarr/sub/future/zarr.json
    # a consolidated copy lists it
    cf
    future cf.zarr/fut
    run cp cf.zarr cfc.zarr
    expect_rc 0
    json_check cfc.zarr/zarr.json "sorted(d['consolidated_metadata']['metadata']) == ['fut', 'lat', 'lon', 'pr', 'tas', 'time']"
}

# ---- stored size and compression ratio ------------------------------------------------------

# stored_line ARRAY_DIR NCHUNKS_STORED NCHUNKS CHUNK_BYTES METHOD: the `stored:` line info must
# print, worked out here from the chunk files on disk
stored_line() {
    bytes=$(find "$1" -type f ! -name zarr.json ! -name .zarray ! -name .zattrs -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    ratio=$(awk -v n="$2" -v c="$4" -v b="$bytes" 'BEGIN {printf "%.2f", n * c / b}')
    human=$(awk -v b="$bytes" 'BEGIN {if (b >= 1024) printf " (%.*f KiB)", (b / 1024 < 10 ? 2 : 1), b / 1024}')
    echo "stored:             $bytes bytes$human in $2 of $3 chunks, ratio $ratio ($5)"
}

case_info_stored() {
    "$FIXTURE" packed p.zarr || fail "fixture"
    ok info p.zarr
    has_line out "size:               8000 bytes (7.81 KiB) decoded"
    has_line out "$(stored_line p.zarr 3 4 2000 'every chunk of the grid')"
    # compressed: more than 10 : 1
    awk '/^stored:/ {sub(/.*ratio /, ""); exit !($1 > 10)}' out || fail "ratio above 10 expected"
    # large grids go by the store listing: the same figures
    ZARR_INFO_GRID_LIMIT=2 "$ZARR" info p.zarr >out 2>err || fail "info"
    has_line out "$(stored_line p.zarr 3 4 2000 'the store listing')"
    ok info --json p.zarr
    bytes=$(find p.zarr -type f ! -name zarr.json -printf '%s\n' | awk '{s += $1} END {print s}')
    json_check out "d['stored'] == {'chunks': 3, 'nbytes': $bytes, 'method': 'every chunk of the grid', 'estimated': False}"
    mixed
    ok info m.zarr/sub/grid
    has_line out "$(stored_line m.zarr/sub/grid 60 60 200 'every chunk of the grid')"
    # shards: each shard's stored size
    ok info m.zarr/sub/sharded
    has_line out "$(stored_line m.zarr/sub/sharded 6 6 400 'every chunk of the grid')"
    ZARR_INFO_GRID_LIMIT=1 "$ZARR" info m.zarr/sub/sharded >out 2>err || fail "info"
    has_line out "$(stored_line m.zarr/sub/sharded 6 6 400 'the store listing')"
    # v2 chunk keys, and stray files that are no chunk keys
    ok cp m.zarr/sub/grid v2.zarr --format 2
    printf 'x' >v2.zarr/stray
    printf 'x' >v2.zarr/0.99
    rm v2.zarr/0.0
    ZARR_INFO_GRID_LIMIT=1 "$ZARR" info v2.zarr >out 2>err || fail "info"
    rm v2.zarr/stray v2.zarr/0.99
    has_line out "$(stored_line v2.zarr 59 60 200 'the store listing')"
    # nothing written
    "$FIXTURE" big big.zarr || fail "fixture"
    ok info big.zarr
    has_line out "stored:             0 bytes in 0 of 12 chunks (every chunk of the grid)"
}

# ---- data types beyond numbers -------------------------------------------------------------

case_types_cat() {
    "$FIXTURE" types t.zarr || fail "fixture"
    ok cat t.zarr/dt
    out_is "1970-01-01T00:00:00 NaT 2005-02-03T04:05:06 1969-12-31T23:59:59"
    ok cat t.zarr/dt_ns
    out_is "1970-01-01T00:00:00.000000001 1969-12-31T23:59:59.999999999"
    ok cat t.zarr/td
    out_is "2h -6h NaT"
    ok cat t.zarr/str
    out_is '"a\"b" "é\n" "\t\\\u0001" ""'
    ok cat t.zarr/bytes
    out_is 'b"ab" b"\x00\xff" b"q\"\\z"'
    ok cat t.zarr/st
    out_is '{x: -5, y: 0.5, name: b"ab"} {x: 7, y: -1.25, name: b"cd"}'
    ok cat t.zarr/bf
    out_is "1 0.1 0.334 -inf nan 9e-41"
    ok cat t.zarr/f8
    out_is "0 1 448 nan 0.002 -0"
    ok cat t.zarr/f8b
    out_is "inf -inf 1"
    ok cat t.zarr/v2/days
    out_is "1970-01-01 2005-02-03 1969-12-31"
    ok cat t.zarr/v2/s3
    out_is 'b"x" b"yzw"'
    ok cat t.zarr/v2/rec
    out_is "{id: 1, pos: [0.5, 1.5]} {id: 2, pos: [2.5, -1]}"
    # peers' arrays: every unit numpy has, scale factors, big-endian UTF-32, nested structs
    d="$CORPUS/zarrs/zarr_python_compat"
    ok cat "$d/datetime64[10ms].zarr"
    out_is "1970-01-01T00:00:00.000 NaT 2005-02-03T00:00:00.000 2005-02-03T04:05:00.000 2005-02-03T04:05:06.000 NaT"
    ok cat "$d/datetime64[W].zarr"
    out_is "1970-01-01 NaT 2005-02-03 2005-02-03 2005-02-03 NaT"
    ok cat "$d/datetime64[Y].zarr"
    out_is "1970 NaT 2005 2005 2005 NaT"
    ok cat "$d/datetime64[m].zarr"
    out_is "1970-01-01T00:00 NaT 2005-02-03T00:00 2005-02-03T04:05 2005-02-03T04:05 NaT"
    ok cat "$d/datetime64[10us].zarr" --region 4
    out_is "2005-02-03T04:05:06.000000"
    ok cat "$d/timedelta64[10ms].zarr" --region 0:2
    out_is "31536000000ms 1209600000ms"
    ok cat "$d/fixed_length_utf32_v2_be.zarr"
    out_is '"abc" "🎉" "hi" "te" ""'
    ok cat "$CORPUS/gdal/compound_complex.zarr"
    out_is '{a: 1, b: {b1: 2, b2: 3, b3: 1000, b5: 4}, c: b"AAA", d: -1} {a: 2, b: {b1: 255, b2: 254, b3: 65534, b5: 253}, c: b"ZZ", d: -2}'
}

# Variable-length strings and bytes: cat quotes and escapes them, the fill value where
# nothing was written (v2 null as ""); cp converts them between formats, rechunks them,
# and the copies print the same.
case_vlen() {
    "$FIXTURE" vlen t.zarr || fail "fixture"
    strings='"plain" "a \"quote\"" "tab\tnew\nline" "été 東" "" "?" "?"'
    ok cat t.zarr/s
    out_is "$strings"
    ok cat t.zarr/b
    out_is 'b"a\x00\xff\"" b""'
    ok cat t.zarr/v2/o
    out_is '"x" "yz" ""'
    ok cat t.zarr/s --region 1:3
    out_is '"a \"quote\"" "tab\tnew\nline"'
    ok info t.zarr/b
    has_line out "  variable-length byte strings"
    ok info t.zarr/v2/o
    has_line out "  variable-length UTF-8 strings"
    ok cp t.zarr c2.zarr --format 2 --chunks 2
    json_check c2.zarr/s/.zarray "d['dtype'] == '|O' and d['filters'] == [{'id': 'vlen-utf8'}] and d['fill_value'] == '?' and d['chunks'] == [2]"
    json_check c2.zarr/b/.zarray "d['filters'] == [{'id': 'vlen-bytes'}]"
    ok cat c2.zarr/s
    out_is "$strings"
    ok cat c2.zarr/b
    out_is 'b"a\x00\xff\"" b""'
    ok cp c2.zarr c3.zarr --format 3
    json_check c3.zarr/v2/o/zarr.json "d['data_type'] == 'string' and d['codecs'][0] == {'name': 'vlen-utf8'} and d['fill_value'] == ''"
    ok cat c3.zarr/s
    out_is "$strings"
    ok cat c3.zarr/v2/o
    out_is '"x" "yz" ""'
    # Into shards (as zarr-python writes them given shards=): the vlen codec and the
    # compressor become the inner codecs; a second copy keeps the sharding of its source.
    ok cp t.zarr sh.zarr --chunks 2 --shards 4
    json_check sh.zarr/s/zarr.json "d['codecs'][0]['name'] == 'sharding_indexed' and d['chunk_grid']['configuration']['chunk_shape'] == [4] and d['codecs'][0]['configuration']['chunk_shape'] == [2] and d['codecs'][0]['configuration']['codecs'][0] == {'name': 'vlen-utf8'}"
    json_check sh.zarr/b/zarr.json "[c['name'] for c in d['codecs'][0]['configuration']['codecs']] == ['vlen-bytes', 'zstd']"
    ok cat sh.zarr/s
    out_is "$strings"
    ok cat sh.zarr/s --region 3:6
    out_is '"été 東" "" "?"'
    ok cat sh.zarr/b
    out_is 'b"a\x00\xff\"" b""'
    ok cp sh.zarr sh2.zarr
    json_check sh2.zarr/s/zarr.json "d['codecs'][0]['name'] == 'sharding_indexed'"
    ok cat sh2.zarr/s
    out_is "$strings"
    ok cat sh2.zarr/b
    out_is 'b"a\x00\xff\"" b""'
}

# A rectilinear chunk grid: tree and info say so and count its chunks; cat reads across
# chunks of different shapes; cp writes a regular grid of the longest chunks (or --chunks).
case_rectilinear() {
    "$FIXTURE" rect r.zarr || fail "fixture"
    ok tree r.zarr
    has_line out "/  int32 [9, 4] chunks rectilinear, at most [3, 4] codecs bytes(endian=little) zstd(level=1,checksum=false)"
    ok info r.zarr
    has_line out "chunk_shape:        [3, 4] at most"
    has_line out "chunk_grid:         rectilinear [[1,2,[3,2]],4]"
    has_line out "chunks:             4 (grid 4 x 1)"
    contains out " in 4 of 4 chunks, ratio 0.8" # 144 decoded bytes (not 4 chunks of 3 x 4) in 180
    ok cat r.zarr --region 2:5,1:3
    out_is "21 22
31 32
41 42"
    run cp r.zarr c.zarr
    expect_rc 0
    contains err "the rectilinear chunk grid becomes a regular one of its longest chunks"
    json_check c.zarr/zarr.json "d['chunk_grid'] == {'name': 'regular', 'configuration': {'chunk_shape': [3, 4]}}"
    ok cat c.zarr --region 2:5,1:3
    out_is "21 22
31 32
41 42"
}

case_types_info() {
    "$FIXTURE" types t.zarr || fail "fixture"
    ok tree t.zarr
    has_line out "  dt  numpy.datetime64(unit=s,scale_factor=1) [4] chunks [4] codecs bytes(endian=little)"
    has_line out "  st  struct(x:int16,y:float32,name:null_terminated_bytes(length_bytes=3)) [2] chunks [2] codecs bytes(endian=little)"
    has_line out "    rec  struct(id:int32,pos:float32[2]) [2] chunks [2] v2 compressor none"
    ok info t.zarr/dt
    has_line out "data_type:          numpy.datetime64(unit=s,scale_factor=1)"
    has_line out "  int64 counting seconds since 1970-01-01T00:00:00; NaT = -2^63"
    has_line out "fill_value:         NaT"
    ok info t.zarr/td
    has_line out "  int64 counting 2 hours; NaT = -2^63"
    ok info t.zarr/str
    has_line out "  16 bytes: up to 4 characters as UTF-32, zero-padded"
    has_line out 'fill_value:         "-"'
    ok info t.zarr/st
    has_line out "  9 bytes in 3 fields, packed"
    has_line out "  x: int16 at byte 0"
    has_line out "  y: float32 at byte 2"
    has_line out "  name: null_terminated_bytes(length_bytes=3) at byte 6"
    has_line out 'fill_value:         {x: -1, y: 0.5, name: b"ab"}'
    ok info t.zarr/f8
    has_line out "  4 exponent bits (bias 7), 3 mantissa bits, no infinities, NaN 0x7f/0xff"
    ok info t.zarr/v2/days
    has_line out "data_type:          numpy.datetime64(unit=D,scale_factor=1) (<M8[D])"
    has_line out "fill_value:         1970-01-01"
    ok info t.zarr/v2/rec
    has_line out "  pos: float32 [2] at byte 4"
    has_line out "fill_value:         null (no fill value: unwritten chunks read as zero bytes)"
    ok info "$CORPUS/gdal/compound_complex.zarr"
    has_line out "    b3: uint16 at byte 3"
    # attributes of every JSON kind, through the typed accessors where they read them
    ok info t.zarr
    has_line out "attributes:         9"
    has_line out '  title = "types"'
    has_line out "  flag = true"
    has_line out "  nothing = null"
    has_line out '  names = "a", "b"'
    has_line out "  ratio = 0.25"
    has_line out "  big = 1e+300"
    has_line out "  ints = 1, 2, 3"
    has_line out "  floats = 0.5, 2"
    has_line out '  nested = {"k":1}'
}

case_types_cp() {
    "$FIXTURE" types t.zarr || fail "fixture"
    # the same format: every type
    ok cp t.zarr c.zarr
    for a in dt dt_ns td str bytes st bf f8 f8b v2/days v2/s3 v2/rec; do same_cat "t.zarr/$a" "c.zarr/$a"; done
    # to Zarr v2 and back to v3, with their fill values
    ok cp t.zarr v2.zarr --format 2 --vars dt,dt_ns,td,str,bytes,st
    json_check v2.zarr/dt/.zarray "d['dtype'] == '<M8[s]'"
    json_check v2.zarr/st/.zarray "d['dtype'] == [['x', '<i2'], ['y', '<f4'], ['name', '|S3']]"
    ok cp v2.zarr v3.zarr --format 3
    for a in dt dt_ns td str bytes st; do
        same_cat "t.zarr/$a" "v2.zarr/$a"
        same_cat "t.zarr/$a" "v3.zarr/$a"
        "$ZARR" info "t.zarr/$a" | grep '^fill_value:' >fill_a
        "$ZARR" info "v3.zarr/$a" | grep '^fill_value:' >fill_b
        cmp fill_a fill_b >/dev/null || fail "$a: the fill value changed: $(cat fill_a) / $(cat fill_b)"
    done
    ok cp t.zarr/v2 from2.zarr --format 3 --vars days,s3
    json_check from2.zarr/days/zarr.json "d['data_type'] == {'name': 'numpy.datetime64', 'configuration': {'unit': 'D', 'scale_factor': 1}}"
    same_cat t.zarr/v2/days from2.zarr/days
    same_cat t.zarr/v2/s3 from2.zarr/s3
    # what the other format cannot spell is refused before anything is written
    run cp t.zarr/bf nobf.zarr --format 2
    expect_rc 1
    has_line err "zarr: cp: /bf: Zarr v2 has no spelling for the data type bfloat16"
    run cp t.zarr/v2/rec norec.zarr --format 3
    expect_rc 1
    has_line err "zarr: cp: /v2/rec: Zarr v3 has no spelling for the data type struct(id:int32,pos:float32[2])"
    [ -e nobf.zarr ] || [ -e norec.zarr ] && fail "nothing is written"
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
    # a time axis (days since 2000-01-01, proleptic_gregorian): dates
    ok cat cf.zarr/time --decode
    out_is "2000-01-01T00:00:00 2000-01-02T00:00:00 2000-01-03T00:00:00 2000-01-04T00:00:00"
    ok cat cf.zarr/time
    out_is "0 1 2 3"
    ok cat cf.zarr/lat
    out_is "-10 0 10.5"
}

# cat --decode: CF time axes in each calendar
case_cat_decode_time() {
    # proleptic_gregorian: 2000 is a leap year (day 59 is 2000-02-29), negative offsets
    array1d pg 3 '<i4' '0 59 60 366 -1 -365' '{"units": "days since 2000-01-01", "calendar": "proleptic_gregorian"}'
    ok cat pg --decode
    out_is "2000-01-01T00:00:00 2000-02-29T00:00:00 2000-03-01T00:00:00 2001-01-01T00:00:00 1999-12-31T00:00:00 1999-01-01T00:00:00"
    # noleap / 365_day: day 59 is 2000-03-01
    array1d nl 3 '<i4' '58 59 365 -1' '{"units": "days since 2000-01-01", "calendar": "noleap"}'
    ok cat nl --decode
    out_is "2000-02-28T00:00:00 2000-03-01T00:00:00 2001-01-01T00:00:00 1999-12-31T00:00:00"
    array1d nl365 3 '<i4' '59' '{"units": "days since 2000-01-01", "calendar": "365_day"}'
    ok cat nl365 --decode
    out_is "2000-03-01T00:00:00"
    # all_leap / 366_day: 2001-02-29 exists
    array1d al 2 '<i4' '425 426' '{"units": "days since 2000-01-01", "calendar": "all_leap"}'
    ok cat al --decode
    out_is "2001-02-29T00:00:00 2001-03-01T00:00:00"
    # 360_day: day 30 is 2000-02-01, day 59 is 2000-02-30, day -1 is 1999-12-30
    array1d d360 3 '<i4' '30 59 360 -1' '{"units": "days since 2000-01-01", "calendar": "360_day"}'
    ok cat d360 --decode
    out_is "2000-02-01T00:00:00 2000-02-30T00:00:00 2001-01-01T00:00:00 1999-12-30T00:00:00"
    # standard (and no calendar): Julian before 1582-10-15, so the day after 1582-10-04 is
    # 1582-10-15, and 1500 is a leap year
    array1d std 3 '<i4' '0 1 -1' '{"units": "days since 1582-10-04", "calendar": "standard"}'
    ok cat std --decode
    out_is "1582-10-04T00:00:00 1582-10-15T00:00:00 1582-10-03T00:00:00"
    array1d nocal 3 '<i4' '0 -30612' '{"units": "days since 1584-01-01"}'
    ok cat nocal --decode
    out_is "1584-01-01T00:00:00 1500-02-29T00:00:00"
    array1d greg 3 '<i4' '0 -30612' '{"units": "days since 1584-01-01", "calendar": "gregorian"}'
    ok cat greg --decode
    out_is "1584-01-01T00:00:00 1500-02-29T00:00:00"
    array1d pro 3 '<i4' '-30612' '{"units": "days since 1584-01-01", "calendar": "proleptic_gregorian"}'
    ok cat pro --decode
    out_is "1500-03-10T00:00:00"
    array1d jul 3 '<i4' '0 1' '{"units": "days since 2000-02-28", "calendar": "julian"}'
    ok cat jul --decode
    out_is "2000-02-28T00:00:00 2000-02-29T00:00:00"
    # non-integral hours, a reference time of day with seconds, negative offsets, float64
    array1d hrs 3 '<f8' '1.5 -0.25 0.0002777777777777778 876576' '{"units": "hours since 1900-01-01 00:00:0.0"}'
    ok cat hrs --decode
    out_is "1900-01-01T01:30:00 1899-12-31T23:45:00 1900-01-01T00:00:01 2000-01-01T00:00:00"
    # seconds since an ISO reference with Z; fractions of a second; abbreviations
    array1d sec 3 '<f8' '1.5 0.000001 -0.001 1000000000' '{"units": "seconds since 1970-01-01T00:00:00Z"}'
    ok cat sec --decode
    out_is "1970-01-01T00:00:01.500 1970-01-01T00:00:00.000001 1969-12-31T23:59:59.999 2001-09-09T01:46:40"
    array1d abbr 3 '<i8' '1 2' '{"units": "h since 2000-1-1", "calendar": "proleptic_gregorian"}'
    ok cat abbr --decode
    out_is "2000-01-01T01:00:00 2000-01-01T02:00:00"
    array1d ms 3 '<i8' '86400001' '{"units": "milliseconds since 2000-01-01 00:00:00 +01:00"}'
    ok cat ms --decode
    out_is "2000-01-01T23:00:00.001"
    array1d mins 3 '<i4' '-90' '{"units": "minutes since 2000-01-01"}'
    ok cat mins --decode
    out_is "1999-12-31T22:30:00"
    # missing values (v3 _FillValue attribute, v2 fill_value) print as NaT; packed values
    # are unpacked first
    array1d miss3 3 '<f8' '0 nan 1' '{"units": "days since 2000-01-01", "_FillValue": "NaN"}'
    ok cat miss3 --decode
    out_is "2000-01-01T00:00:00 NaT 2000-01-02T00:00:00"
    array1d miss2 2 '<i4' '0 -9999 1' '{"units": "days since 2000-01-01", "calendar": "noleap"}' -9999
    ok cat miss2 --decode
    out_is "2000-01-01T00:00:00 NaT 2000-01-02T00:00:00"
    array1d packed 3 '<i2' '1 2' '{"units": "hours since 2000-01-01", "scale_factor": 12, "add_offset": 24}'
    ok cat packed --decode
    out_is "2000-01-02T12:00:00 2000-01-03T00:00:00"
    # an unknown calendar, months, a bad date: the numbers, one warning line, exit 0
    array1d unk 3 '<i4' '0 1' '{"units": "days since 2000-01-01", "calendar": "martian"}'
    run cat unk --decode
    expect_rc 0
    out_is "0 1"
    [ "$(wc -l <err)" = 1 ] || fail "one warning line expected"
    has_line err "zarr: cat: warning: unk: units \"days since 2000-01-01\": the calendar 'martian' is not supported; values printed undecoded"
    array1d mon 3 '<i4' '3' '{"units": "months since 2000-01-01"}'
    run cat mon --decode
    expect_rc 0
    out_is "3"
    contains err "the unit 'months' is not supported"
    array1d gap 3 '<i4' '0' '{"units": "days since 1582-10-10"}'
    run cat gap --decode
    expect_rc 0
    out_is "0"
    contains err "the date '1582-10-10' does not exist in the standard calendar"
    array1d bad 3 '<i4' '0' '{"units": "days since yesterday"}'
    run cat bad --decode
    expect_rc 0
    out_is "0"
    contains err "the reference date 'yesterday' is not a date"
    # not a time axis: units without "since"
    array1d temp 3 '<f8' '271.5' '{"units": "K"}'
    ok cat temp --decode
    out_is "271.5"
}

# info shows xarray's base64 attribute values decoded for the array's data type; --raw
# shows them as stored
case_info_base64_attributes() {
    mkdir g && printf '{"zarr_format":3,"node_type":"group","attributes":{}}' >g/zarr.json || fail "group"
    array1d g/f64 3 '<f8' '1 2' '{"_FillValue": "AAAAAAAA+H8=", "missing_value": "AAAAAAAA8P8=", "comment": "AAAAAAAA+H8="}' '"NaN"'
    ok info g/f64
    has_line out "  _FillValue = nan (base64 \"AAAAAAAA+H8=\")"
    has_line out "  missing_value = -inf (base64 \"AAAAAAAA8P8=\")"
    has_line out '  comment = "AAAAAAAA+H8="'
    ok info g/f64 --raw
    has_line out '  _FillValue = "AAAAAAAA+H8="'
    has_line out '  missing_value = "AAAAAAAA8P8="'
    # float32: xarray writes the 8 bytes of a float64; 4 bytes of a float32 are read too
    array1d g/f32 3 '<f4' '1' '{"_FillValue": "QIy1eB2vFUQ="}'
    ok info g/f32
    has_line out "  _FillValue = 1e+20 (base64 \"QIy1eB2vFUQ=\")"
    array1d g/f32b 3 '<f4' '1' '{"_FillValue": "ADwcxg=="}'
    ok info g/f32b
    has_line out "  _FillValue = -9999 (base64 \"ADwcxg==\")"
    # not decoded: other lengths, not base64, integer types
    array1d g/short 3 '<f8' '1' '{"_FillValue": "AAAA", "missing_value": "not base64!"}'
    ok info g/short
    has_line out '  _FillValue = "AAAA"'
    has_line out '  missing_value = "not base64!"'
    array1d g/int 3 '<i4' '1' '{"_FillValue": "AAAAAAAA+H8="}'
    ok info g/int
    has_line out '  _FillValue = "AAAAAAAA+H8="'
    # complex: a list of two base64 float64
    mkdir -p g/c && printf '%s' '{"zarr_format":3,"node_type":"array","shape":[1],"data_type":"complex128",'\
'"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1]}},'\
'"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":[0,0],'\
'"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],'\
'"attributes":{"_FillValue":["AAAAAAAA+D8=","AAAAAAAAAsA="]}}' >g/c/zarr.json || fail "complex"
    ok info g/c
    has_line out '  _FillValue = 1.5-2.25j (base64 ["AAAAAAAA+D8=","AAAAAAAAAsA="])'
    ok info g/c --raw
    has_line out '  _FillValue = "AAAAAAAA+D8=", "AAAAAAAAAsA="'
    # byte strings: numpy pads with zeros
    mkdir -p s.zarr && printf '%s' '{"zarr_format":2,"shape":[1],"chunks":[1],"dtype":"|S4","fill_value":"","order":"C","filters":null,"compressor":null}' >s.zarr/.zarray &&
        printf '%s' '{"_FillValue":"YWI="}' >s.zarr/.zattrs || fail "bytes"
    ok info s.zarr
    has_line out '  _FillValue = b"ab" (base64 "YWI=")'
    # the children of a group, too
    ok info g
    has_line out "      _FillValue = nan (base64 \"AAAAAAAA+H8=\")"
    ok info g --raw
    has_line out '      _FillValue = "AAAAAAAA+H8="'
    # tree takes no --raw
    run tree g --raw
    expect_rc 2
}

# cp removes what it wrote when the copy fails (here on a corrupt chunk), and only that;
# --keep-partial keeps it
case_cp_failure_cleanup() {
    mixed
    # a truncated gzip chunk of /sub/grid: the copy fails after other arrays were written
    head -c 5 m.zarr/sub/grid/c/3/3 >chunk && mv chunk m.zarr/sub/grid/c/3/3 || fail "truncate"
    run cp m.zarr out.zarr
    expect_rc 1
    contains err "zarr: cp: /sub/grid: cannot read the source: zarr_array_read: corrupt data in codec 'gzip'"
    has_line err "zarr: cp: removed the partial copy at out.zarr (--keep-partial keeps it)"
    [ -e out.zarr ] && fail "the partial copy out.zarr is still there"
    # --keep-partial: what was written stays
    run cp m.zarr kept.zarr --keep-partial
    expect_rc 1
    has_line err "zarr: cp: the partial copy at kept.zarr is left in place (--keep-partial)"
    [ -f kept.zarr/zarr.json ] && [ -f kept.zarr/f32/zarr.json ] || fail "the partial copy was not kept"
    same_cat m.zarr/f32 kept.zarr/f32
    # into an existing store: the new node (and the groups made to hold it) go, the rest stays
    ok cp m.zarr/f32 dest.zarr::/f32
    echo "not zarr" >dest.zarr/notes.txt
    find dest.zarr | sort >before
    cp dest.zarr/zarr.json root_before.json
    run cp m.zarr dest.zarr::/x/new
    expect_rc 1
    has_line err "zarr: cp: removed the partial copy at dest.zarr::/x/new (--keep-partial keeps it)"
    find dest.zarr | sort | diff before - >&2 || fail "the existing store changed"
    cmp dest.zarr/zarr.json root_before.json >/dev/null || fail "the root group's metadata changed"
    same_cat m.zarr/f32 dest.zarr/f32
    run cp m.zarr/sub/grid dest.zarr/grid2 --format 2
    expect_rc 1
    find dest.zarr | sort | diff before - >&2 || fail "the existing store changed (one array)"
    # an existing node is never removed: cp refuses to write into it
    run cp m.zarr dest.zarr::/f32
    expect_rc 1
    contains err "a node already exists at '/f32'"
    find dest.zarr | sort | diff before - >&2 || fail "the existing node changed"
    # an existing directory without Zarr metadata: only the new files go (the root group's
    # metadata written to hold /a/b too)
    mkdir plain && echo "keep me" >plain/README || fail "plain"
    run cp m.zarr/sub plain::/a/b
    expect_rc 1
    [ "$(find plain | sort | tr '\n' ' ')" = "plain plain/README " ] || { find plain >&2; fail "plain holds more than before"; }
    mkdir emptydir
    run cp m.zarr emptydir
    expect_rc 1
    [ -d emptydir ] && [ -z "$(ls -A emptydir)" ] || fail "emptydir must stay, empty"
    # a copy that succeeds is not touched
    ok cp m.zarr/f32 fine.zarr
    same_cat m.zarr/f32 fine.zarr
}

# cp keeps fill values exactly in every direction (v2/v3 to v2/v3): NaN, +-Infinity, 1e20
# (float64 and float32), 64-bit integer extremes, bool, strings; with xarray's dimension
# names the CF missing value moves between the v2 fill_value and the v3 _FillValue
# attribute (base64 for floats). The unwritten chunks read the same in every copy.
case_cp_fill_values() {
    python3 - "$ZARR" <<'PY' || fail "fill values"
import base64, json, math, os, struct, subprocess, sys
Z = sys.argv[1]
def write(d, fmt, dt, fill, dims, attrs=None):
    os.makedirs(d)
    if fmt == 2:
        m = {"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": dt, "fill_value": fill, "order": "C",
             "filters": [{"id": "vlen-utf8"}] if dt == "|O" else None, "compressor": None}
        json.dump(m, open(d + "/.zarray", "w"))
        a = dict(attrs or {}, **({"_ARRAY_DIMENSIONS": ["x"]} if dims else {}))
        json.dump(a, open(d + "/.zattrs", "w"))
    else:
        m = {"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": dt,
             "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
             "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
             "fill_value": fill, "attributes": attrs or {},
             "codecs": [{"name": "vlen-utf8"} if dt == "string" else {"name": "bytes", "configuration": {"endian": "little"}}]}
        if dims: m["dimension_names"] = ["x"]
        json.dump(m, open(d + "/zarr.json", "w"))
def read(d):
    if os.path.exists(d + "/zarr.json"):
        m = json.load(open(d + "/zarr.json"))
        return m["fill_value"], m["attributes"].get("_FillValue", "absent"), m["data_type"]
    m = json.load(open(d + "/.zarray"))
    za = json.load(open(d + "/.zattrs")) if os.path.exists(d + "/.zattrs") else {}
    return m["fill_value"], za.get("_FillValue", "absent"), m["dtype"]
def same(a, b, dt):
    if a == b: return True
    if isinstance(a, float) and isinstance(b, float) and dt in ("float32", "<f4"):
        return struct.pack("<f", a) == struct.pack("<f", b)  # libzarr spells v3 float32 as float64
    return False
b64 = lambda x: base64.b64encode(struct.pack("<d", x)).decode()
I64, U64 = -9223372036854775808, 18446744073709551615
# (format, data type v2, data type v3, fill) exact in every direction without dimension names
plain = [("<f8", "float64", "NaN"), ("<f8", "float64", "Infinity"), ("<f8", "float64", "-Infinity"),
         ("<f8", "float64", 1e20), ("<f4", "float32", 1e20), ("<i8", "int64", I64), ("<u8", "uint64", U64),
         ("|i1", "int8", -128), ("|b1", "bool", True), ("|O", "string", "x"), ("|O", "string", "")]
failures, n = [], 0
def check(src, fmt, want_fill, want_attr):
    global n
    n += 1
    dst = src + "_v%d" % fmt
    r = subprocess.run([Z, "cp", src, dst, "--format", str(fmt)], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("%s -> v%d: cp failed: %s" % (src, fmt, r.stderr)); return
    fill, attr, dt = read(dst)
    if not same(fill, want_fill, dt) or attr != want_attr:
        failures.append("%s -> v%d: fill_value %r _FillValue %r, expected %r %r" % (src, fmt, fill, attr, want_fill, want_attr))
    a = subprocess.run([Z, "cat", src], capture_output=True, text=True).stdout
    b = subprocess.run([Z, "cat", dst], capture_output=True, text=True).stdout
    if a != b or not a: failures.append("%s -> v%d: cat %r, copy %r" % (src, fmt, a, b))
for i, (t2, t3, fill) in enumerate(plain):
    for fmt, dt in ((2, t2), (3, t3)):
        src = "p%d_v%d" % (i, fmt)
        write(src, fmt, dt, fill, False)
        check(src, 2, fill, "absent")
        check(src, 3, fill, "absent")
# xarray's conventions (dimension names): v2 fill_value -> v3 _FillValue attribute
for i, (t2, t3, fill, attr) in enumerate([("<f8", "float64", "NaN", b64(math.nan)), ("<f8", "float64", "Infinity", b64(math.inf)),
                                           ("<f8", "float64", "-Infinity", b64(-math.inf)), ("<f8", "float64", 1e20, b64(1e20)),
                                           ("<f4", "float32", 1e20, b64(1e20)), ("<i8", "int64", I64, I64),
                                           ("<u8", "uint64", U64, U64), ("|b1", "bool", True, True)]):
    src = "x%d_v2" % i
    write(src, 2, t2, fill, True)
    check(src, 2, fill, "absent")
    check(src, 3, fill, attr)
    # ... and back: the attribute becomes the v2 fill_value, whatever the v3 fill_value
    src = "x%d_v3" % i
    write(src, 3, t3, 0 if t3 != "bool" else False, True, {"_FillValue": attr})
    check(src, 3, 0 if t3 != "bool" else False, attr)
    check(src, 2, fill, "absent")
# v3 without _FillValue: xarray masks nothing, so the v2 fill_value is null (NaN and strings stay)
for i, (t3, fill, want) in enumerate([("float64", "Infinity", None), ("float64", 1e20, None), ("int64", I64, None),
                                       ("bool", True, None), ("float64", "NaN", "NaN"), ("string", "x", "x")]):
    src = "n%d_v3" % i
    write(src, 3, t3, fill, True)
    check(src, 2, want, "absent")
    check(src, 3, fill, "absent")
# a v2 string array without a fill value: "" in v3 (which needs one), and no _FillValue
write("s_v2", 2, "|O", None, True)
check("s_v2", 3, "", "absent")
check("s_v2", 2, None, "absent")  # null stays null (xarray would mask "")
# the float32 fill value in v2 keeps its text
if '"fill_value": 1e+20' not in open("p4_v2_v2/.zarray").read() or '"fill_value": 1e+20' not in open("p4_v3_v2/.zarray").read():
    failures.append("float32 1e20 is not written 1e+20 in v2: " + open("p4_v3_v2/.zarray").read())
for f in failures: print(f, file=sys.stderr)
print("%d copies checked, %d failures" % (n, len(failures)), file=sys.stderr)
sys.exit(1 if failures else 0)
PY
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
    mixed
    # file:// URLs are the local store
    ok tree m.zarr
    cp out tree_dir
    ok tree "file://$WORK/m.zarr"
    cmp out tree_dir >/dev/null || fail "tree of the file:// URL differs"
    ok cp "file://$WORK/m.zarr::/sub" "file://$WORK/copy.zarr"
    same_cat m.zarr/sub/grid copy.zarr/grid
    # schemes the library lacks, and options it refuses, are the library's message
    run info ftp://host/data.zarr
    expect_rc 1
    contains err "zarr: info: cannot open the store ftp://host/data.zarr: zarr_store_open_url: "
    run tree s3://bucket/data.zarr --store-options '{"bogus": 1}'
    expect_rc 1
    contains err "zarr: tree: cannot open the store s3://bucket/data.zarr: zarr_store_open_url: "
    contains err "bogus"
    ZARR_STORE_OPTIONS='{"bogus": 2}' "$ZARR" cat s3://bucket/data.zarr::/a >out 2>err && fail "bad options accepted"
    contains err "bogus"
    ZARR_STORE_OPTIONS='{"bogus": 2}' "$ZARR" info --store-options '{"region": "eu-west-1", "max_retries": 0, "timeout_ms": 200, "endpoint": "http://127.0.0.1:9"}' s3://bucket/data.zarr >out 2>err && fail "no server there"
    grep -F bogus err >/dev/null && fail "--store-options replaces ZARR_STORE_OPTIONS"
    contains err "zarr: info: cannot open the store s3://bucket/data.zarr: zarr_store_open_url: HEAD http://127.0.0.1:9/bucket/: connection refused"
    run info s3://bucket/data.zarr --store-options
    expect_rc 2
    contains err "--store-options needs a JSON object"
    # HTTP is read-only
    run cp m.zarr "http://127.0.0.1:9/x.zarr"
    expect_rc 1
    has_line err "zarr: cp: http://127.0.0.1:9/x.zarr: HTTP stores are read-only; copy to a directory or an s3:// URL instead"
}

# $ZARR_STORE_OPTIONS is fitted to each store: keys of other schemes are dropped (named with
# ZARR_DEBUG=1), keys of no scheme are an error; --store-options stays strict.
case_env_store_options() {
    mixed
    export ZARR_STORE_OPTIONS='{"endpoint": "http://127.0.0.1:9", "region": "eu-west-1", "timeout_ms": 200, "max_retries": 0, "fsync": true}'
    # local paths, file:// URLs and zip files ignore the S3 keys
    ok info m.zarr/f32
    has_line out "variable:           float32 f32(y, x)"
    ok tree "file://$WORK/m.zarr"
    contains out "f32"
    (cd m.zarr && python3 -m zipfile -c ../m.zip .) || fail "zip"
    ok cat m.zip/f32
    ok cp "file://$WORK/m.zarr::/sub" "file://$WORK/copy.zarr"
    same_cat m.zarr/sub/grid copy.zarr/grid
    # http:// keeps timeout_ms and max_retries, drops endpoint, region and fsync: the error is
    # the (absent) server's, not the options'
    run info http://127.0.0.1:9/x.zarr
    expect_rc 1
    grep -F "does not apply" err >/dev/null && fail "S3 options reached the http:// store"
    contains err "zarr: info: cannot open node / in store http://127.0.0.1:9/x.zarr"
    [ "$(grep -c debug err)" = 0 ] || fail "debug notes without ZARR_DEBUG"
    ZARR_DEBUG=1 "$ZARR" info http://127.0.0.1:9/x.zarr >out 2>err
    has_line err "zarr: info: debug: \$ZARR_STORE_OPTIONS: 'endpoint' dropped for http://127.0.0.1:9/x.zarr (it does not apply to http(s):// URLs)"
    has_line err "zarr: info: debug: \$ZARR_STORE_OPTIONS: 'region' dropped for http://127.0.0.1:9/x.zarr (it does not apply to http(s):// URLs)"
    has_line err "zarr: info: debug: \$ZARR_STORE_OPTIONS: 'fsync' dropped for http://127.0.0.1:9/x.zarr (it does not apply to http(s):// URLs)"
    [ "$(grep -c debug err)" = 3 ] || fail "exactly the three misfits are dropped"
    ZARR_DEBUG=1 "$ZARR" tree "file://$WORK/m.zarr" >out 2>err || fail "tree file:// with ZARR_DEBUG"
    has_line err "zarr: tree: debug: \$ZARR_STORE_OPTIONS: 'timeout_ms' dropped for file://$WORK/m.zarr (it does not apply to file:// URLs)"
    [ "$(grep -c debug err)" = 4 ] || fail "endpoint, region, timeout_ms, max_retries dropped for file://"
    # s3:// keeps endpoint, region, timeout_ms and max_retries, drops fsync
    ZARR_DEBUG=1 "$ZARR" info s3://bucket/data.zarr >out 2>err && fail "no server there"
    has_line err "zarr: info: debug: \$ZARR_STORE_OPTIONS: 'fsync' dropped for s3://bucket/data.zarr (it does not apply to s3:// URLs)"
    [ "$(grep -c debug err)" = 1 ] || fail "only fsync dropped for s3://"
    contains err "zarr: info: cannot open the store s3://bucket/data.zarr: zarr_store_open_url: HEAD http://127.0.0.1:9/bucket/"
    # explicit options stay strict
    run info http://127.0.0.1:9/x.zarr --store-options '{"endpoint": "http://127.0.0.1:9"}'
    expect_rc 1
    contains err "option 'endpoint' does not apply to http(s):// URLs"
    # a key that no scheme knows is a typo: an error for every kind of store
    ZARR_STORE_OPTIONS='{"region": "x", "endpont": "http://127.0.0.1:9"}' "$ZARR" info m.zarr/f32 >out 2>err && fail "typo accepted"
    has_line err "zarr: info: \$ZARR_STORE_OPTIONS: unknown option 'endpont' (known options: endpoint, region, anonymous, access_key_id, secret_access_key, session_token, profile, force_path_style, service_account_path, token, account_name, account_key, sas_token, max_concurrency, timeout_ms, max_retries, read_only, create, fsync, follow_symlinks, locking, conditional_writes, update_attempts, branch, tag, snapshot, virtual_chunk_prefixes)"
    ZARR_STORE_OPTIONS='{"bogus": 2}' "$ZARR" info http://127.0.0.1:9/x.zarr >out 2>err && fail "typo accepted for http"
    contains err "unknown option 'bogus'"
    ZARR_STORE_OPTIONS='[1]' "$ZARR" cat m.zarr/f32 >out 2>err && fail "not an object accepted"
    has_line err "zarr: cat: \$ZARR_STORE_OPTIONS is not a JSON object"
    # cp: the source and the destination are fitted separately
    ZARR_DEBUG=1 "$ZARR" cp m.zarr/f32 "file://$WORK/f32.zarr" >out 2>err || fail "cp with env options"
    contains err "'endpoint' dropped for file://$WORK/f32.zarr"
    same_cat m.zarr/f32 f32.zarr
}

# servers: the addresses of the loopback servers (tests/servers, ctest fixture url_servers)
servers() {
    [ -n "${ZARR_TEST_SERVERS_ENV:-}" ] && [ -f "$ZARR_TEST_SERVERS_ENV" ] ||
        fail "ZARR_TEST_SERVERS_ENV names no servers.env: run through ctest (fixture url_servers)"
    . "$ZARR_TEST_SERVERS_ENV"
    unique="cli-$CASE-$$-$(date +%s)"
}

# S3 (moto): a hierarchy up and back down, an array that cannot be decoded copied as stored,
# S3 to S3, the stored size from the listing with a sample of the chunks' sizes.
case_url_s3() {
    servers
    export ZARR_STORE_OPTIONS="{\"endpoint\": \"$ZARR_TEST_MOTO\", \"access_key_id\": \"test\", \"secret_access_key\": \"test\", \"region\": \"us-east-1\"}"
    url="s3://zarr-test/$unique/m.zarr"
    mixed
    future m.zarr/sub/future
    run cp m.zarr "$url"
    expect_rc 0
    contains err "copied as stored (metadata and chunk bytes unchanged): /sub/future"
    # as a local copy (cp gives shards a crc32c-checked index)
    "$ZARR" cp m.zarr local.zarr 2>/dev/null && "$ZARR" tree local.zarr >tree_dir 2>/dev/null || fail "local copy"
    run tree "$url"
    expect_rc 0
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree of the S3 copy differs"; }
    "$ZARR" info m.zarr/sub/grid | grep -v '^store:' >info_dir
    ok info "$url::/sub/grid"
    grep -v '^store:' out | cmp - info_dir >/dev/null || { grep -v '^store:' out | diff info_dir - >&2; fail "info of the S3 copy differs"; }
    for a in f32 c64 r16 scalar sub/grid sub/sharded; do same_cat "m.zarr/$a" "$url::/$a"; done
    # the stored size from the listing, sizes of a sample of the chunks
    ZARR_INFO_GRID_LIMIT=1 ZARR_INFO_SAMPLE=6 "$ZARR" info "$url::/sub/grid" >out 2>err || fail "info"
    grep -E '^stored: +~[0-9]+ bytes \([0-9.]+ KiB\) in 60 of 60 chunks, ratio ~[0-9.]+ \(the store listing; sizes of 6 chunks, extrapolated\)$' out \
        >/dev/null || fail "a sampled stored size expected"
    run info --json "$url::/sub/future"
    expect_rc 0
    json_check out "d['decodable'] is False and d['stored']['chunks'] == 1"
    # S3 to S3 (the destination's own options), and back down
    run cp "$url" "s3://zarr-test/$unique/again.zarr" --dst-store-options "$ZARR_STORE_OPTIONS"
    expect_rc 0
    run cp "s3://zarr-test/$unique/again.zarr" back.zarr --format 2
    expect_rc 0
    contains err "skipped /sub/future"
    for a in f32 sub/grid sub/sharded; do same_cat "m.zarr/$a" "back.zarr/$a"; done
    run cp "$url" down.zarr
    expect_rc 0
    same_file m.zarr/sub/future/c/0 down.zarr/sub/future/c/0
    same_file m.zarr/sub/future/zarr.json down.zarr/sub/future/zarr.json
    # a failed copy removes the keys it wrote: a new prefix, and a node in an existing group
    cp -r m.zarr bad.zarr && head -c 5 bad.zarr/sub/grid/c/3/3 >chunk && mv chunk bad.zarr/sub/grid/c/3/3 || fail "bad"
    run cp bad.zarr "s3://zarr-test/$unique/bad.zarr"
    expect_rc 1
    has_line err "zarr: cp: removed the partial copy at s3://zarr-test/$unique/bad.zarr (--keep-partial keeps it)"
    run tree "s3://zarr-test/$unique/bad.zarr"
    expect_rc 1
    "$ZARR" tree "$url" >tree_before 2>/dev/null || fail "tree"
    run cp bad.zarr "$url::/x/bad"
    expect_rc 1
    has_line err "zarr: cp: removed the partial copy at $url::/x/bad (--keep-partial keeps it)"
    run tree "$url"
    expect_rc 0
    cmp out tree_before >/dev/null || { diff tree_before out >&2; fail "the S3 store changed"; }
    run info "$url::/x"
    expect_rc 1
    # without the options: the library's message (no credentials, the default endpoint)
    unset ZARR_STORE_OPTIONS
    run info "$url" --store-options '{"endpoint": "http://127.0.0.1:9", "anonymous": true, "max_retries": 0}'
    expect_rc 1
    # (opening an S3 store asks for its bucket, so an endpoint where nothing listens
    # fails at the open, with the request that failed)
    contains err "zarr: info: cannot open the store $url: zarr_store_open_url: HEAD http://127.0.0.1:9/zarr-test/: connection refused"
}

# HTTP: a consolidated hierarchy read whole through its consolidated metadata, nodes of a
# hierarchy without it opened by path, https with the test CA.
case_url_http() {
    servers
    cf
    mixed
    mkdir -p "$ZARR_TEST_HTTP_ROOT/$unique" && cp -r cf.zarr m.zarr "$ZARR_TEST_HTTP_ROOT/$unique/" || fail "serve"
    base="$ZARR_TEST_HTTP/$unique"
    "$ZARR" tree cf.zarr >tree_dir 2>/dev/null
    ok tree "$base/cf.zarr"
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree over HTTP differs"; }
    ok info "$base/cf.zarr"
    has_line out "consolidated:       yes"
    ok info "$base/cf.zarr::/pr"
    has_line out "variable:           int16 pr(time, lat, lon)"
    grep -E '^stored: +[0-9]+ bytes in 1 of 1 chunks, ratio' out >/dev/null || fail "stored size over HTTP"
    same_cat cf.zarr/tas "$base/cf.zarr::/tas"
    ok cp "$base/cf.zarr" local.zarr
    for a in time lat lon tas pr; do same_cat "cf.zarr/$a" "local.zarr/$a"; done
    # no consolidated metadata: HTTP cannot list, nodes open by path
    run tree "$base/m.zarr"
    expect_rc 1
    contains err "zarr: tree: cannot list the children of /: "
    same_cat m.zarr/sub/grid "$base/m.zarr::/sub/grid"
    ok info "$base/m.zarr::/sub/sharded"
    has_line out "inner_chunk_shape:  [5, 5]"
    SSL_CERT_FILE="$ZARR_TEST_CA_FILE" "$ZARR" cat "$ZARR_TEST_HTTPS/$unique/cf.zarr::/lat" >out 2>err || fail "https"
    out_is "-10 0 10.5"
}

# GCS (gcp-storage-emulator): a hierarchy copied up with `zarr cp` and read with tree, info
# and cat, through ZARR_STORE_OPTIONS' endpoint and through STORAGE_EMULATOR_HOST alone; an
# array that cannot be decoded copied as stored; GCS to GCS and back down; a failed copy
# removes what it wrote.
case_url_gcs() {
    servers
    unset STORAGE_EMULATOR_HOST GOOGLE_APPLICATION_CREDENTIALS
    # (anonymous: with only an endpoint the store would also probe the metadata server of a
    # Google Cloud machine; STORAGE_EMULATOR_HOST alone means no credential)
    export ZARR_STORE_OPTIONS="{\"endpoint\": \"$GCS_URL\", \"anonymous\": true}"
    url="gs://zarr-test/$unique/m.zarr"
    mixed
    future m.zarr/sub/future
    run cp m.zarr "$url"
    expect_rc 0
    contains err "copied as stored (metadata and chunk bytes unchanged): /sub/future"
    "$ZARR" cp m.zarr local.zarr 2>/dev/null && "$ZARR" tree local.zarr >tree_dir 2>/dev/null || fail "local copy"
    run tree "$url"
    expect_rc 0
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree of the GCS copy differs"; }
    "$ZARR" info m.zarr/sub/grid | grep -v '^store:' >info_dir
    ok info "$url::/sub/grid"
    grep -v '^store:' out | cmp - info_dir >/dev/null || { grep -v '^store:' out | diff info_dir - >&2; fail "info of the GCS copy differs"; }
    for a in f32 c64 r16 scalar sub/grid sub/sharded; do same_cat "m.zarr/$a" "$url::/$a"; done
    run info --json "$url::/sub/future"
    expect_rc 0
    json_check out "d['decodable'] is False and d['stored']['chunks'] == 1"
    # STORAGE_EMULATOR_HOST alone (without http://), no options
    unset ZARR_STORE_OPTIONS
    STORAGE_EMULATOR_HOST="${GCS_URL#http://}" "$ZARR" tree "$url" >out 2>err || fail "tree with STORAGE_EMULATOR_HOST"
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree with STORAGE_EMULATOR_HOST differs"; }
    STORAGE_EMULATOR_HOST="$GCS_URL" "$ZARR" cat "$url::/sub/grid" >cat_b 2>err || fail "cat with STORAGE_EMULATOR_HOST"
    "$ZARR" cat m.zarr/sub/grid >cat_a 2>err || fail "cat local"
    cmp cat_a cat_b >/dev/null || fail "cat with STORAGE_EMULATOR_HOST differs"
    # GCS to GCS (the destination's own options), and back down
    export ZARR_STORE_OPTIONS="{\"endpoint\": \"$GCS_URL\", \"anonymous\": true}"
    run cp "$url" "gs://zarr-test/$unique/again.zarr" --dst-store-options "$ZARR_STORE_OPTIONS"
    expect_rc 0
    run cp "gs://zarr-test/$unique/again.zarr" back.zarr --format 2
    expect_rc 0
    contains err "skipped /sub/future"
    for a in f32 sub/grid sub/sharded; do same_cat "m.zarr/$a" "back.zarr/$a"; done
    run cp "$url" down.zarr
    expect_rc 0
    same_file m.zarr/sub/future/c/0 down.zarr/sub/future/c/0
    same_file m.zarr/sub/future/zarr.json down.zarr/sub/future/zarr.json
    # a failed copy removes the keys it wrote
    cp -r m.zarr bad.zarr && head -c 5 bad.zarr/sub/grid/c/3/3 >chunk && mv chunk bad.zarr/sub/grid/c/3/3 || fail "bad"
    run cp bad.zarr "gs://zarr-test/$unique/bad.zarr"
    expect_rc 1
    has_line err "zarr: cp: removed the partial copy at gs://zarr-test/$unique/bad.zarr (--keep-partial keeps it)"
    run tree "gs://zarr-test/$unique/bad.zarr"
    expect_rc 1
    # a bucket that does not exist: the library's message names it
    run info "gs://no-such-bucket-zarr/x.zarr"
    expect_rc 1
    contains err "no-such-bucket-zarr"
}

# Azure Blob Storage (Azurite): up and back down with the account key in
# ZARR_STORE_OPTIONS, tree/info/cat through a connection string in the environment alone,
# a container SAS given as --store-options, a failed copy removed, a missing container named.
case_url_azure() {
    servers
    unset AZURE_STORAGE_CONNECTION_STRING AZURE_STORAGE_ACCOUNT_NAME AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_SAS_TOKEN
    export ZARR_STORE_OPTIONS="{\"endpoint\": \"$ZARR_TEST_AZURE\", \"account_key\": \"$ZARR_TEST_AZURE_KEY\"}"
    url="az://zarr-test/$unique/m.zarr"
    mixed
    future m.zarr/sub/future
    run cp m.zarr "$url"
    expect_rc 0
    contains err "copied as stored (metadata and chunk bytes unchanged): /sub/future"
    "$ZARR" cp m.zarr local.zarr 2>/dev/null && "$ZARR" tree local.zarr >tree_dir 2>/dev/null || fail "local copy"
    run tree "$url"
    expect_rc 0
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree of the Azure copy differs"; }
    "$ZARR" info m.zarr/sub/grid | grep -v '^store:' >info_dir
    ok info "$url::/sub/grid"
    grep -v '^store:' out | cmp - info_dir >/dev/null || { grep -v '^store:' out | diff info_dir - >&2; fail "info of the Azure copy differs"; }
    for a in f32 c64 r16 scalar sub/grid sub/sharded; do same_cat "m.zarr/$a" "$url::/$a"; done
    # a connection string in the environment alone (abfs:// is the same store)
    unset ZARR_STORE_OPTIONS
    AZURE_STORAGE_CONNECTION_STRING="AccountName=${ZARR_TEST_AZURE_ACCOUNT};AccountKey=${ZARR_TEST_AZURE_KEY};BlobEndpoint=${ZARR_TEST_AZURE}" \
        "$ZARR" tree "abfs://zarr-test/$unique/m.zarr" >out 2>err || fail "tree with a connection string"
    cmp out tree_dir >/dev/null || { diff tree_dir out >&2; fail "tree with a connection string differs"; }
    # the container's SAS token as --store-options, and back down (read from the file: a
    # SAS holds '&', which the shell's reading of servers.env takes apart)
    sas=$(sed -n 's/^ZARR_TEST_AZURE_SAS=//p' "$ZARR_TEST_SERVERS_ENV")
    [ -n "$sas" ] || fail "no ZARR_TEST_AZURE_SAS in servers.env"
    run cp "$url" down.zarr --store-options "{\"endpoint\": \"$ZARR_TEST_AZURE\", \"sas_token\": \"?$sas\"}"
    expect_rc 0
    for a in f32 sub/grid sub/sharded; do same_cat "m.zarr/$a" "down.zarr/$a"; done
    same_file m.zarr/sub/future/c/0 down.zarr/sub/future/c/0
    # a failed copy removes the blobs it wrote
    export ZARR_STORE_OPTIONS="{\"endpoint\": \"$ZARR_TEST_AZURE\", \"account_key\": \"$ZARR_TEST_AZURE_KEY\"}"
    cp -r m.zarr bad.zarr && head -c 5 bad.zarr/sub/grid/c/3/3 >chunk && mv chunk bad.zarr/sub/grid/c/3/3 || fail "bad"
    run cp bad.zarr "az://zarr-test/$unique/bad.zarr"
    expect_rc 1
    has_line err "zarr: cp: removed the partial copy at az://zarr-test/$unique/bad.zarr (--keep-partial keeps it)"
    run tree "az://zarr-test/$unique/bad.zarr"
    expect_rc 1
    # a container that does not exist: the library's message names it
    run info "az://no-such-container/x.zarr"
    expect_rc 1
    contains err "no-such-container"
}

# `zarr info` on Icechunk repositories that icechunk-python wrote (interop/icechunk, data
# dirs in ZARR_ICECHUNK_DATA and ZARR_ICECHUNK_SPEC1_DATA, each with the writer's
# manifest.json): the spec version, every branch and tag with its snapshot id, and the
# history of the opened branch, newest first, with the commit messages.
icechunk_expect() {
    python3 - "$1" "$2" >expected_lines <<'PY' || fail "reading $1/manifest.json"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
branch = sys.argv[2]
print(f"repository: icechunk (spec version {m['spec_version']})")
print("branches:")
for name, snapshot in sorted(m["branches"].items()):
    print(f"  {name}  {snapshot}")
print("tags:")
for name, snapshot in sorted(m["tags"].items()):
    print(f"  {name}  {snapshot}")
print(f"history of {branch}:")
for h in m["history"][branch]:
    print(f"HISTORY {h['id']} {h['message']}")
PY
    # Fixed lines must appear as such; history lines as `  <id>  <time>  <message>` in
    # this order.
    # (loops read files, not pipes, so that fail exits the script, not a subshell)
    grep -v '^HISTORY ' expected_lines >fixed_lines
    while IFS= read -r line; do
        grep -Fx -- "$line" out >/dev/null || fail "no line '$line'"
    done <fixed_lines
    grep '^HISTORY ' expected_lines | cut -d' ' -f2 >want_ids
    sed -n '/^history of/,$p' out | sed -n 's/^  \([0-9A-Z]\{20\}\)  .*$/\1/p' >got_ids
    diff want_ids got_ids >&2 || fail "history ids differ from icechunk-python's ancestry"
    grep '^HISTORY ' expected_lines >history_lines
    while IFS= read -r h; do
        id=$(echo "$h" | cut -d' ' -f2)
        message=$(echo "$h" | cut -d' ' -f3-)
        grep -E "^  $id  [^ ].*  " out | grep -F -- "  $message" >/dev/null ||
            fail "history line of $id lacks its time or message '$message'"
    done <history_lines
}
case_icechunk_info() {
    [ -n "${ZARR_ICECHUNK_DATA:-}" ] || fail "ZARR_ICECHUNK_DATA is not set"
    url=$(cat "$ZARR_ICECHUNK_DATA/store.url")
    ok info "$url"
    icechunk_expect "$ZARR_ICECHUNK_DATA" main
    # another branch, through the store options
    ZARR_STORE_OPTIONS='{"branch": "dev"}' "$ZARR" info "$url" >out 2>err || fail "info on dev"
    icechunk_expect "$ZARR_ICECHUNK_DATA" dev
    # a repository in spec version 1
    url=$(cat "$ZARR_ICECHUNK_SPEC1_DATA/store.url")
    ok info "$url"
    icechunk_expect "$ZARR_ICECHUNK_SPEC1_DATA" main
    # a node inside the repository: its shape and data type, as for any store
    ok info "$url::/grid/temp"
    contains out "float32"
    # a repository that does not exist: an error, exit status 1
    run info "icechunk+file://$WORK/no-such-repo"
    expect_rc 1
}

# ---- run the case named on the command line ---------------------------------------------
command -v "case_$CASE" >/dev/null 2>&1 || { echo "no case named '$CASE'" >&2; exit 2; }
"case_$CASE"
echo "PASS $CASE"
