#!/usr/bin/env python3
"""Select and vendor the Zarr v3 arrays of the peer corpus that libzarr supports.

Usage (from the crate root):

    python3 tests/data/corpus/select.py [--src ../shared/corpus] [--dst tests/data/corpus] [--copy]

Walks the peer corpus `manifest.json`, keeps the Zarr v3 arrays whose metadata (read from each
array's own `zarr.json`, not from the manifest summary) uses only the features implemented today
and whose manifest entry carries usable expected values, and prints the excluded v3 entries with
the reason. With `--copy` it copies the selected arrays (their `zarr.json`, the chunk files named
by the chunk grid and chunk key encoding, and the `zarr.json` of every parent group) into `--dst`
keeping the relative layout, and writes `--dst/manifest.json` with the selected entries.

The vendored manifest is strict JSON (serde_json rejects the bare `NaN` tokens Python writes):
a non-finite float in `expected` or `fill_value` is written as the string "NaN", "Infinity" or
"-Infinity" (the Zarr v3 fill-value spelling). `decoded_head` keeps the original "nan" strings.
Standard library only.
"""

import argparse
import itertools
import json
import math
import os
import re
import shutil
import sys

SUPPORTED_DTYPES = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "bfloat16",
    "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e3m4", "float8_e8m0fnu",
    # variable length (zarr-python 3.0 spelled `bytes` as `variable_length_bytes`)
    "string", "bytes", "variable_length_bytes",
}
# Data types written as {"name": ..., "configuration": ...} (all fixed size).
SUPPORTED_CONFIGURED_DTYPES = {
    "fixed_length_utf32", "null_terminated_bytes", "raw_bytes", "numpy.datetime64",
    "numpy.timedelta64", "struct", "structured",
}
SUPPORTED_CODECS = {
    "bytes", "endian", "transpose", "gzip", "zstd", "blosc", "crc32c", "sharding_indexed", "zfp",
    "bitround", "vlen-utf8", "vlen-bytes",
}
SUPPORTED_KEY_ENCODINGS = {"default", "v2"}
# numcodecs ids libzarr implements (as v2 compressor/filters and as v3 `numcodecs.<id>`).
SUPPORTED_NUMCODECS = {
    "zlib", "gzip", "bz2", "lzma", "lz4", "zstd", "blosc", "shuffle", "adler32", "fletcher32",
    "crc32", "crc32c", "delta", "fixedscaleoffset", "quantize", "bitround", "astype", "zfpy",
    "pcodec", "vlen-utf8", "vlen-bytes", "json2",
}
# The object codecs that make a v2 `|O` array readable (one must be among its filters or be
# its compressor).
OBJECT_CODECS = {"vlen-utf8", "vlen-bytes", "json2"}
SUPPORTED_CODECS |= {"numcodecs." + c for c in SUPPORTED_NUMCODECS}
V2_DTYPE = re.compile(r"[<>|=]?([biufc]\d+|[SUV][1-9]\d*|[Mm]8(\[\d*(Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\])?)")


def v2_dtype_supported(dt):
    """A numpy dtype string libzarr reads, or a structured dtype made of them."""
    if isinstance(dt, str):
        return bool(V2_DTYPE.fullmatch(dt))
    if isinstance(dt, list) and dt:
        return all(isinstance(f, list) and len(f) in (2, 3) and isinstance(f[0], str)
                   and v2_dtype_supported(f[1]) for f in dt)
    return False
KNOWN_ARRAY_KEYS = {
    "zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
    "fill_value", "codecs", "attributes", "storage_transformers", "dimension_names",
}


def dtype_supported(dt):
    if isinstance(dt, dict):
        return dt.get("name") in SUPPORTED_CONFIGURED_DTYPES
    if isinstance(dt, str):
        if dt in SUPPORTED_DTYPES:
            return True
        m = re.fullmatch(r"r(\d+)", dt)
        return bool(m) and int(m.group(1)) > 0 and int(m.group(1)) % 8 == 0
    return False


def dtype_label(dt):
    return dt if isinstance(dt, str) else dt.get("name", json.dumps(dt))


def codec_names(codecs):
    """All codec names, including those nested in a sharding configuration."""
    out = []
    for c in codecs:
        name = c if isinstance(c, str) else c.get("name")
        out.append(name)
    return out


def is_negative(entry):
    """Entries the corpus marks as corrupt on purpose: reading them must fail cleanly."""
    return (entry.get("expected_note") or "").lower().startswith("corrupt")


def v2_exclusion_reasons(corpus, entry):
    """List of reasons why this v2 entry cannot be tested today (empty = selectable)."""
    zpath = os.path.join(corpus, entry["path"], ".zarray")
    if not os.path.isfile(zpath):
        return ["no .zarray at the entry path"]
    try:
        with open(zpath, encoding="utf-8") as f:
            z = json.load(f)
    except ValueError as e:
        return ["malformed .zarray (%s): a negative case" % e]
    reasons = []
    dt = z.get("dtype")
    if dt == "|O":
        ids = [c.get("id") for c in [z.get("compressor")] + list(z.get("filters") or [])
               if isinstance(c, dict)]
        if not OBJECT_CODECS.intersection(ids):
            reasons.append("dtype `|O` without an object codec")
    elif not v2_dtype_supported(dt):
        reasons.append("dtype `%s`" % (dt,))
    for codec in [z.get("compressor")] + list(z.get("filters") or []):
        if codec is None:
            continue
        if not isinstance(codec, dict) or codec.get("id") not in SUPPORTED_NUMCODECS:
            reasons.append("numcodecs `%s`" % (codec.get("id") if isinstance(codec, dict) else codec))
    if entry.get("shape") != z.get("shape"):
        reasons.append("manifest shape %r != .zarray shape %r" % (entry.get("shape"), z.get("shape")))
    if not reasons and expected_form(entry) is None and not is_negative(entry):
        reasons.append("no usable expected values in the manifest")
    return reasons


def exclusion_reasons(corpus, entry):
    """List of reasons why this v3 entry cannot be tested today (empty = selectable)."""
    reasons = []
    zpath = os.path.join(corpus, entry["path"], "zarr.json")
    if not os.path.isfile(zpath):
        return ["no zarr.json at the entry path (not the final v3 layout)"]
    with open(zpath, encoding="utf-8") as f:
        z = json.load(f)
    if z.get("zarr_format") != 3 or z.get("node_type") != "array":
        return ["zarr.json is not a v3 array document"]
    dt = z.get("data_type")
    if not dtype_supported(dt):
        reasons.append("data type `%s`" % dtype_label(dt))
    grid = z.get("chunk_grid", {})
    if grid.get("name") != "regular":
        reasons.append("chunk grid `%s`" % grid.get("name"))
    cke = z.get("chunk_key_encoding", {})
    if cke.get("name") not in SUPPORTED_KEY_ENCODINGS:
        reasons.append("chunk key encoding `%s`" % cke.get("name"))
    # A missing `codecs` (GDAL's pre-final form) reads as uncompressed little-endian.
    if "codecs" in z:
        for name in codec_names(z["codecs"]):
            if name not in SUPPORTED_CODECS:
                reasons.append("codec `%s`" % name)
    if z.get("storage_transformers"):
        reasons.append("storage transformers")
    for key, value in z.items():
        if key in KNOWN_ARRAY_KEYS:
            continue
        if isinstance(value, dict) and value.get("must_understand") is False:
            continue
        reasons.append("unknown metadata key `%s`" % key)
    # the manifest must agree with the document we will open
    if entry.get("shape") != z.get("shape"):
        reasons.append("manifest shape %r != zarr.json shape %r" % (entry.get("shape"), z.get("shape")))
    if not reasons and expected_form(entry) is None:
        reasons.append("no usable expected values in the manifest")
    # dedupe, keep order
    seen, out = set(), []
    for r in reasons:
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out


# Expected values transcribed from the peer manifest's `expected_note` (free text) for arrays
# whose entry has no machine-readable list. Datetimes and timedeltas: the note's instants and
# durations converted to the array's unit with numpy (as int64 counts, "NaT" for NaT; the
# 8760 h of `timedelta64[ps]` overflows int64 and numpy wrapped it when writing, so the
# wrapped count is expected). Strings and byte strings: the note's values (the WKT polygons
# of `issue_287.zarr/meta/bbox`, which the note only describes as "boxes ±10, ±20, ±30",
# as zarr-python 3.1.6 reads them, ring order included). Structs: one
# object per element, {field: value}. Each list was also compared with what zarr-python
# 3.1.6 reads from the store, except `gdal/compound_complex.zarr`, which zarr-python cannot
# open (a nested structured dtype); its note gives both rows.
TRANSCRIBED = {
 "zarrs/issue_287.zarr/meta/bbox": [
  "POLYGON ((10 -10, 10 10, -10 10, -10 -10, 10 -10))",
  "POLYGON ((20 -20, 20 20, -20 20, -20 -20, 20 -20))",
  "POLYGON ((30 -30, 30 30, -30 30, -30 -30, 30 -30))"
 ],
 "zarrs/issue_287.zarr/meta/collection": ["collection_a", "collection_b", "collection_c"],
 "zarrs/zarr_python_compat/v3_bytes.zarr": ["New York", "Los Angeles", "Chicago"],
 "zarrs/zarr_python_compat/datetime64[10ms].zarr": [
  0,
  "NaT",
  110738880000,
  110740350000,
  110740350600,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[10us].zarr": [
  0,
  "NaT",
  110738880000000,
  110740350000000,
  110740350600000,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[D].zarr": [
  0,
  "NaT",
  12817,
  12817,
  12817,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[W].zarr": [
  0,
  "NaT",
  1831,
  1831,
  1831,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[Y].zarr": [
  0,
  "NaT",
  35,
  35,
  35,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[h].zarr": [
  0,
  "NaT",
  307608,
  307612,
  307612,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[m].zarr": [
  0,
  "NaT",
  18456480,
  18456725,
  18456725,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[ms].zarr": [
  0,
  "NaT",
  1107388800000,
  1107403500000,
  1107403506000,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[ns].zarr": [
  0,
  "NaT",
  1107388800000000000,
  1107403500000000000,
  1107403506000000000,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[s].zarr": [
  0,
  "NaT",
  1107388800,
  1107403500,
  1107403506,
  "NaT"
 ],
 "zarrs/zarr_python_compat/datetime64[us].zarr": [
  0,
  "NaT",
  1107388800000000,
  1107403500000000,
  1107403506000000,
  "NaT"
 ],
 "zarrs/zarr_python_compat/timedelta64[10ms].zarr": [
  3153600000,
  120960000,
  25920000,
  1440000,
  30000,
  600,
  700,
  800,
  900,
  0,
  "NaT"
 ],
 "zarrs/zarr_python_compat/timedelta64[10us].zarr": [
  3153600000000,
  120960000000,
  25920000000,
  1440000000,
  30000000,
  600000,
  700000,
  800000,
  900000,
  0,
  "NaT"
 ],
 "zarrs/zarr_python_compat/timedelta64[ms].zarr": [
  31536000000,
  1209600000,
  259200000,
  14400000,
  300000,
  6000,
  7000,
  8000,
  9000,
  0,
  "NaT"
 ],
 "zarrs/zarr_python_compat/timedelta64[ns].zarr": [
  31536000000000000,
  1209600000000000,
  259200000000000,
  14400000000000,
  300000000000,
  6000000000,
  7000000000,
  8000000000,
  9000000000,
  0,
  "NaT"
 ],
 "zarrs/zarr_python_compat/timedelta64[ps].zarr": [
  -5357488147419103232,
  1209600000000000000,
  259200000000000000,
  14400000000000000,
  300000000000000,
  6000000000000,
  7000000000000,
  8000000000000,
  9000000000000,
  0,
  "NaT"
 ],
 "zarrs/zarr_python_compat/timedelta64[us].zarr": [
  31536000000000,
  1209600000000,
  259200000000,
  14400000000,
  300000000,
  6000000,
  7000000,
  8000000,
  9000000,
  0,
  "NaT"
 ],
 "zarrs/issue_287.zarr/meta/date": [
  1672531200000,
  1672617600000,
  1672704000000
 ]
}
TRANSCRIBED.update({
    "gdal/v3/fixed_length_utf32.zarr/ar": ["AB", "CD"],
    "gdal/v3/null_terminated_bytes.zarr/ar": ["hi", "bye"],
    "gdal/v3/sharded_null_terminated_bytes.zarr/ar": ["hi", "bye", "foo", "bar"],
    "zarrs/zarr_python_compat/fixed_length_utf32_v3_le.zarr": ["abc", "\U0001f389", "hi", "te", ""],
    "gdal/compound_well_aligned.zarr": [
        {"a": 1000, "b": 3000}, {"a": 4000, "b": 5000}, {"a": 0, "b": 0}],
    "gdal/compound_not_aligned.zarr": [
        {"a": 1000, "b": 2, "c": 3000}, {"a": 4000, "b": 4, "c": 5000}, {"a": 0, "b": 0, "c": 0}],
    # zarrs tests/codec_bitround.rs inputs, rounded to keepbits=3: float32 by numcodecs'
    # BitRound (an independent implementation of the same mantissa rounding), uint8 by the
    # registry rule (keep 3 bits from the top set bit, round half to even, saturate).
    "zarrs/codec/bitround/bitround_float32.zarr": [
        0.0, 0.1015625, 1.25, 12.0, 120.0, 1280.0, "NaN", "Infinity", "-Infinity"],
    "zarrs/codec/bitround/bitround_uint8.zarr": [0, 1, 10, 12, 96, 128, 192, 192, 224, 224],
    "gdal/compound_complex.zarr": [
        {"a": 1, "b": {"b1": 2, "b2": 3, "b3": 1000, "b5": 4}, "c": "AAA", "d": -1},
        {"a": 2, "b": {"b1": 255, "b2": 254, "b3": 65534, "b5": 253}, "c": "ZZ", "d": -2}],
})


def expected_form(entry):
    """'values' (full C-order list), 'digest' (decoded_sha256 + decoded_head) or None."""
    n = math.prod(entry["shape"]) if entry.get("shape") is not None else None
    exp = entry.get("expected")
    if not isinstance(exp, list):
        exp = TRANSCRIBED.get(entry["path"])
    if isinstance(exp, list) and n is not None and len(exp) == n:
        return "values"
    if entry.get("decoded_sha256") and isinstance(entry.get("decoded_head"), list):
        return "digest"
    return None


def strict(v):
    """Replace non-finite floats by their Zarr v3 string spelling (strict JSON)."""
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, list):
        return [strict(x) for x in v]
    if isinstance(v, dict):
        return {k: strict(x) for k, x in v.items()}
    return v


def chunk_keys(z):
    shape = z["shape"]
    cs = z["chunk_grid"]["configuration"]["chunk_shape"]
    cke = z["chunk_key_encoding"]
    name = cke["name"]
    conf = cke.get("configuration") or {}
    sep = conf.get("separator", "/" if name == "default" else ".")
    grid = [range(-(-s // c)) if c else range(0) for s, c in zip(shape, cs)]
    for coords in itertools.product(*grid):
        if name == "default":
            yield sep.join(["c"] + [str(i) for i in coords])
        else:
            yield sep.join(str(i) for i in coords) if coords else "0"


def v2_files_for(corpus, entry):
    """Relative paths of the files a v2 entry needs: .zarray/.zattrs, its chunks, and the
    .zgroup/.zattrs of its parent groups."""
    rel = entry["path"]
    with open(os.path.join(corpus, rel, ".zarray"), encoding="utf-8") as f:
        z = json.load(f)
    files = [os.path.join(rel, n) for n in (".zarray", ".zattrs")
             if os.path.isfile(os.path.join(corpus, rel, n))]
    sep = z.get("dimension_separator") or "."
    grid = [range(-(-s // c)) if c else range(0) for s, c in zip(z["shape"], z["chunks"])]
    for coords in itertools.product(*grid):
        key = sep.join(str(i) for i in coords) if coords else "0"
        if os.path.isfile(os.path.join(corpus, rel, key)):
            files.append(os.path.join(rel, key))
    parent = os.path.dirname(rel)
    while parent and os.path.isfile(os.path.join(corpus, parent, ".zgroup")):
        for n in (".zgroup", ".zattrs"):
            if os.path.isfile(os.path.join(corpus, parent, n)):
                files.append(os.path.join(parent, n))
        parent = os.path.dirname(parent)
    return files


def files_for(corpus, entry):
    """Relative paths (to the corpus root) of the files this entry needs."""
    rel = entry["path"]
    if entry.get("zarr_format") == 2:
        return v2_files_for(corpus, entry)
    with open(os.path.join(corpus, rel, "zarr.json"), encoding="utf-8") as f:
        z = json.load(f)
    files = [os.path.join(rel, "zarr.json")]
    for key in chunk_keys(z):
        p = os.path.join(rel, key)
        if os.path.isfile(os.path.join(corpus, p)):
            files.append(p)
    # parent groups up to the store root (the topmost directory with a zarr.json)
    parent = os.path.dirname(rel)
    while parent and os.path.isfile(os.path.join(corpus, parent, "zarr.json")):
        files.append(os.path.join(parent, "zarr.json"))
        parent = os.path.dirname(parent)
    return files


def vendored_entry(corpus, entry):
    """The manifest entry as vendored: negative cases marked; for a v2 array with no chunk
    at all (metadata only), the expectation is that every element is the fill value. The
    upstream digest of the netcdf-c chunkless arrays matches neither all-NaN nor any other
    constant we tried, while their decoded_head is all NaN, so it is replaced by that rule."""
    e = dict(entry)
    if e["path"] in TRANSCRIBED and not isinstance(e.get("expected"), list):
        e["expected"] = TRANSCRIBED[e["path"]]
        e["expected_source"] = (e.get("expected_source") or "") + \
            " (expected values transcribed from expected_note by select.py)"
    if is_negative(e):
        e["negative"] = True
    elif e.get("zarr_format") == 2 and e.get("decoded_sha256") and e.get("fill_value") is not None:
        chunks = [f for f in v2_files_for(corpus, e) if not os.path.basename(f).startswith(".")]
        if not chunks:
            e.pop("decoded_sha256")
            e["expected_all_fill"] = True
    return e


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "../../../../shared/corpus")))
    ap.add_argument("--dst", default=here)
    ap.add_argument("--copy", action="store_true")
    args = ap.parse_args()

    with open(os.path.join(args.src, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)

    selected, excluded = [], []
    for entry in manifest["arrays"]:
        if entry.get("zarr_format") == 3:
            reasons = exclusion_reasons(args.src, entry)
        elif entry.get("zarr_format") == 2:
            reasons = v2_exclusion_reasons(args.src, entry)
        else:
            continue
        if reasons:
            excluded.append((entry, reasons))
        else:
            selected.append(entry)

    print("selected %d" % len(selected))
    for e in selected:
        print("  %-70s %s" % (e["path"], expected_form(e)))
    print("excluded %d" % len(excluded))
    for e, reasons in excluded:
        print("  %-70s %s" % (e["path"], "; ".join(reasons)))

    if not args.copy:
        return 0
    needed = set()
    for e in selected:
        needed.update(files_for(args.src, e))
    for rel in sorted(needed):
        dst = os.path.join(args.dst, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(args.src, rel), dst)
    out = {
        "about": manifest.get("about", "")
        + " Vendored subset: the Zarr v3 and v2 arrays libzarr supports today (see README.md);"
        " non-finite floats in expected/fill_value are written as the strings NaN/Infinity/-Infinity.",
        "arrays": [strict(vendored_entry(args.src, e)) for e in selected],
    }
    with open(os.path.join(args.dst, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False, allow_nan=False)
        f.write("\n")
    print("copied %d files" % len(needed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
