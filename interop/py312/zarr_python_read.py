"""zarr-python 3.4 reads what libzarr wrote (interop.py312.c_writes ->
interop.py312.python_reads_c), then writes the same arrays itself and compares the stored
bytes with libzarr's.

Usage: zarr_python_read.py DATA_DIR
       zarr_python_read.py --compare-rewrite DATA_DIR   (see compare_rewrite)

DATA_DIR is what `py312_interop write` made: store/, input/<n>, expected/<n> (.bin in host
byte order, or .arrow: u64le n, n + 1 u64le offsets, the bytes) and manifest.jsonl. For
each array this checks

- the metadata as zarr-python parses it: the data type's JSON, the fill value (against the
  host bytes or text libzarr meant), the codec names, the scale_offset and cast_value
  parameters (offset, scale, target type, rounding, out_of_range, scalar_map), and the
  chunk grid (a rectilinear grid's chunk lengths, run-length pairs expanded; edges past
  the shape kept);
- the whole array and an interior sub-region, value for value (bit for bit: NaN payloads
  and -0 included);
- byte-exactness: zarr-python creates the array from libzarr's own zarr.json in a fresh
  store, writes the same input to the same regions, and every stored key (chunks, shards,
  their indexes) must exist in both stores with the same bytes. BY_DESIGN lists the arrays
  whose bytes differ on purpose, with the reason: shards, whose inner chunks zarr-python
  lays out in Morton order by default and libzarr in C order; there every index entry must
  still point at byte-identical inner chunks, and zarr-python writing the same shards with
  `subchunk_write_order="lexicographic"` must match libzarr's byte for byte.
"""

import dataclasses
import json
import os
import shutil
import struct
import sys
import warnings

import numpy as np
import zarr
from zarr.core.array import AsyncArray

warnings.simplefilter("ignore")
zarr.config.set({"array.rectilinear_chunks": True})

# Arrays whose stored bytes libzarr and zarr-python 3.4 write differently by design
# (path -> why). Everything else -- chunks, zstd frames, shards -- is byte-identical.
MORTON = ("inner-chunk order: zarr-python's default subchunk_write_order is Morton, "
          "libzarr writes C order; the sharding spec leaves the order free")
BY_DESIGN = {"/vlen/strings_sharded": MORTON, "/rectilinear/sharded": MORTON}

# zarr-python's names for registry data types (zarr-python 3.4.2 reads the registry name
# `bytes` but writes and reports `variable_length_bytes`, as 3.0 and 3.1 did).
ZARR_PYTHON_NAMES = {"variable_length_bytes": "bytes"}


def load_arrow(name, shape):
    with open(name, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack_from("<Q", blob)
    offsets = struct.unpack_from(f"<{n + 1}Q", blob, 8)
    head = 8 + 8 * (n + 1)
    return [blob[head + offsets[i]:head + offsets[i + 1]] for i in range(n)], shape


def host_dtype(arr):
    """The dtype of libzarr's host buffers: zarr-python's, fields packed, native order."""
    return arr.dtype.newbyteorder("=")


def expand_grid(doc_grid):
    """Chunk lengths per dimension from a zarr.json chunk_grid (an int stays an int)."""
    if doc_grid["name"] == "regular":
        return list(doc_grid["configuration"]["chunk_shape"])
    dims = []
    for spec in doc_grid["configuration"]["chunk_shapes"]:
        if isinstance(spec, int):
            dims.append(spec)
            continue
        edges = []
        for item in spec:
            edges.extend([item[0]] * item[1] if isinstance(item, list) else [item])
        dims.append(edges)
    return dims


def seen_grid(arr):
    grid = arr.metadata.chunk_grid
    if hasattr(grid, "chunk_shapes"):
        return [s if isinstance(s, int) else list(s) for s in grid.chunk_shapes]
    return list(grid.chunk_shape)


def to_host_bytes(values, dtype):
    return np.ascontiguousarray(values, dtype=dtype).tobytes()


def check_metadata(arr, doc, entry):
    problems = []
    seen = arr.metadata.to_dict()
    name = seen["data_type"]
    if (ZARR_PYTHON_NAMES.get(name, name) if isinstance(name, str) else name) != doc["data_type"]:
        problems.append(f"data type {seen['data_type']!r}, libzarr wrote {doc['data_type']!r}")
    if [c["name"] for c in seen["codecs"]] != [c["name"] for c in doc["codecs"]]:
        problems.append(f"codecs {[c['name'] for c in seen['codecs']]}")
    for codec, written in zip(arr.metadata.codecs, doc["codecs"]):
        config = written.get("configuration", {})
        if written["name"] == "scale_offset":
            got = {"offset": codec.offset, "scale": codec.scale}
            want = {"offset": config.get("offset", 0), "scale": config.get("scale", 1)}
        elif written["name"] == "cast_value":
            # Absent keys are the registry's defaults; scalar_map is zarr-python's.
            got = {"data_type": codec.dtype.to_json(zarr_format=3), "rounding": codec.rounding,
                   "out_of_range": codec.out_of_range or "error",
                   "scalar_map": {k: {str(a): str(b) for a, b in v.items()}
                                  for k, v in (codec.scalar_map or {}).items()}}
            want = {"data_type": config["data_type"],
                    "rounding": config.get("rounding", "nearest-even"),
                    "out_of_range": config.get("out_of_range", "error"),
                    "scalar_map": {k: {str(a): str(b) for a, b in v}
                                   for k, v in config.get("scalar_map", {}).items()}}
        else:
            continue
        if got != want:
            problems.append(f"{written['name']} seen as {got}, libzarr wrote {want}")
    if seen_grid(arr) != expand_grid(doc["chunk_grid"]):
        problems.append(f"chunk grid {seen_grid(arr)}, libzarr wrote {doc['chunk_grid']}")
    if list(arr.shape) != doc["shape"]:
        problems.append(f"shape {arr.shape}")
    fill = bytes.fromhex(entry["fill"])
    if entry["kind"] in ("string", "bytes"):
        got = arr.fill_value
        got = got.encode("utf-8") if isinstance(got, str) else bytes(got)
        if got != fill:
            problems.append(f"fill value {arr.fill_value!r}, libzarr meant {fill!r}")
    else:
        got = to_host_bytes(np.array(arr.fill_value, dtype=arr.dtype), host_dtype(arr))
        if got != fill:
            problems.append(f"fill value {arr.fill_value!r} ({got.hex()}), libzarr meant "
                            f"{fill.hex()}")
    return problems


def check_values(arr, entry, data_dir):
    """The whole array and a sub-region against libzarr's expectation; also the input
    values (for the rewrite) as zarr-python takes them."""
    problems = []
    shape = arr.shape
    inner = tuple(slice(s // 3, s - (1 if s > 2 else 0)) for s in shape)
    if entry["kind"] in ("string", "bytes"):
        want, _ = load_arrow(os.path.join(data_dir, entry["expected"]), shape)
        inputs, _ = load_arrow(os.path.join(data_dir, entry["input"]), shape)
        if entry["kind"] == "string":
            want = [w.decode("utf-8") for w in want]
            inputs = [w.decode("utf-8") for w in inputs]
        want = np.array(want, dtype=object).reshape(shape)
        inputs = np.array(inputs, dtype=object).reshape(shape)
        for where, sel in (("whole array", ...), ("sub-region", inner)):
            got = np.asarray(arr[sel], dtype=object)
            bad = [i for i, (g, w) in enumerate(zip(got.reshape(-1), want[sel].reshape(-1)))
                   if (bytes(g) if isinstance(g, (bytes, np.bytes_)) else g) != w]
            if got.shape != want[sel].shape or bad:
                problems.append(f"{where}: elements {bad[:5]} differ")
        return problems, inputs
    dtype = host_dtype(arr)
    with open(os.path.join(data_dir, entry["expected"]), "rb") as f:
        want = np.frombuffer(f.read(), dtype=dtype).reshape(shape)
    with open(os.path.join(data_dir, entry["input"]), "rb") as f:
        inputs = np.frombuffer(f.read(), dtype=dtype).reshape(shape)
    for where, sel in (("whole array", ...), ("sub-region", inner)):
        got = to_host_bytes(arr[sel], dtype)
        if got != to_host_bytes(want[sel], dtype):
            problems.append(f"{where}: {arr[sel]!r} != {want[sel]!r}")
    return problems, inputs


def stored_files(root):
    out = {}
    for base, _, files in os.walk(root):
        for name in files:
            full = os.path.join(base, name)
            key = os.path.relpath(full, root)
            if key != "zarr.json":
                with open(full, "rb") as f:
                    out[key] = f.read()
    return out


def inner_chunks(key, shard, doc):
    """The inner chunks of the shard stored at `key` ("c/i/j") by their index entries
    (None: left out), or None when the array has no sharding_indexed codec. The index is
    (offset, nbytes) u64le pairs in C order, then a crc32c, at the start or the end."""
    codec = doc["codecs"][0]
    if codec["name"] != "sharding_indexed":
        return None
    config = codec["configuration"]
    index = [int(i) for i in key.split("/")[1:]]
    outer = [dim if isinstance(dim, int) else dim[i]
             for dim, i in zip(expand_grid(doc["chunk_grid"]), index)]
    n = int(np.prod([-(-o // i) for o, i in zip(outer, config["chunk_shape"])]))
    size = 16 * n + 4
    at = 0 if config.get("index_location", "end") == "start" else len(shard) - size
    entries = struct.unpack_from(f"<{2 * n}Q", shard, at)
    out = []
    for k in range(n):
        offset, nbytes = entries[2 * k], entries[2 * k + 1]
        out.append(None if offset == nbytes == 2**64 - 1 else shard[offset:offset + nbytes])
    return out


def rewrite(path, doc, entry, inputs, scratch, order=None):
    """zarr-python writes `inputs` to the regions libzarr wrote, under libzarr's zarr.json,
    in a fresh store; `order` sets the sharding codec's subchunk_write_order (a write-time
    setting zarr-python keeps out of the metadata). Returns the stored files."""
    ours = os.path.join(scratch, order or "default", path.strip("/"))
    os.makedirs(ours)
    with open(os.path.join(ours, "zarr.json"), "w") as f:
        json.dump(doc, f)
    arr = zarr.open_array(ours, mode="r+")
    if order is not None:
        meta = arr.metadata
        codec = dataclasses.replace(meta.codecs[0], subchunk_write_order=order)
        meta = dataclasses.replace(meta, codecs=(codec, *meta.codecs[1:]))
        arr = zarr.Array(AsyncArray(metadata=meta, store_path=arr.async_array.store_path,
                                    config=arr.async_array.config))
    for region in entry["regions"]:
        sel = tuple(slice(a, b) for a, b in region)
        arr[sel] = inputs[sel]
    return stored_files(ours)


def compare(theirs, mine, who):
    problems = []
    if sorted(theirs) != sorted(mine):
        problems.append(f"stored keys: libzarr {sorted(theirs)}, {who} {sorted(mine)}")
    differ = sorted(k for k in theirs.keys() & mine.keys() if theirs[k] != mine[k])
    return problems, differ


def check_bytes(path, doc, entry, inputs, data_dir, scratch):
    """The stored keys and bytes of libzarr's array against zarr-python's writing of the
    same input (for shards: in zarr-python's default Morton order, where only the order of
    the inner chunks may differ, and in lexicographic (C) order, which must be identical)."""
    theirs = stored_files(os.path.join(data_dir, "store", path.strip("/")))
    sharded = doc["codecs"][0]["name"] == "sharding_indexed"
    mine = rewrite(path, doc, entry, inputs, scratch)
    problems, differ = compare(theirs, mine, "zarr-python")
    if path in BY_DESIGN:
        # Only the layout may differ: the same inner chunks, byte for byte, at each index.
        for key in differ:
            a, b = inner_chunks(key, theirs[key], doc), inner_chunks(key, mine[key], doc)
            if a is None or a != b:
                problems.append(f"{key}: inner chunks differ, not only their order")
        if not differ:
            problems.append("listed in BY_DESIGN but byte-identical now: update the list")
        note = f"{len(theirs)} stored keys; {differ} differ by design ({BY_DESIGN[path]})"
    elif differ:
        problems.append(f"stored bytes differ in {differ}")
        note = ""
    else:
        note = f"{len(theirs)} stored keys byte-identical"
    for key in differ[:2] if path not in BY_DESIGN else []:
        problems.append(f"  {key}: libzarr {theirs[key][:64].hex()} ...")
        problems.append(f"  {key}: zarr-python {mine[key][:64].hex()} ...")
    if sharded:
        more, lex_differ = compare(theirs, rewrite(path, doc, entry, inputs, scratch,
                                                   "lexicographic"), "zarr-python (C order)")
        problems += more
        if lex_differ:
            problems.append(f"shards differ from zarr-python's lexicographic order: {lex_differ}")
        note += "; with subchunk_write_order='lexicographic' byte-identical"
    return problems, note


def main(data_dir):
    scratch = os.path.join(data_dir, "zarr-python-rewrite")
    shutil.rmtree(scratch, ignore_errors=True)
    failures = passes = 0
    with open(os.path.join(data_dir, "manifest.jsonl")) as f:
        entries = [json.loads(line) for line in f if line.strip()]
    for entry in entries:
        path = entry["path"]
        node = os.path.join(data_dir, "store", path.strip("/"))
        try:
            with open(os.path.join(node, "zarr.json")) as f:
                doc = json.load(f)
            arr = zarr.open_array(node, mode="r")
            problems = check_metadata(arr, doc, entry)
            value_problems, inputs = check_values(arr, entry, data_dir)
            problems += value_problems
            byte_problems, note = check_bytes(path, doc, entry, inputs, data_dir, scratch)
            problems += byte_problems
        except Exception as e:  # a reader error is a failure of this array, not a crash
            problems, note = [f"{type(e).__name__}: {e}"], ""
        if problems:
            failures += 1
            print(f"FAIL {path}:\n    " + "\n    ".join(problems))
        else:
            passes += 1
            print(f"ok   {path} ({note})")
    print(f"{passes} passed, {failures} failed")
    return 0 if failures == 0 and passes == len(entries) and passes > 0 else 1


def compare_rewrite(data_dir):
    """What zarr-python wrote (zarr_python_write.py) against what libzarr wrote from the
    same zarr.json and input (py312_interop read): the same stored keys, the same bytes;
    shards may differ only in the order of identical inner chunks (BY_DESIGN)."""
    failures = passes = 0
    with open(os.path.join(data_dir, "manifest.txt")) as f:
        paths = [line.split()[0] for line in f if line.strip()]
    for path in paths:
        with open(os.path.join(data_dir, "store", path.strip("/"), "zarr.json")) as f:
            doc = json.load(f)
        theirs = stored_files(os.path.join(data_dir, "store", path.strip("/")))
        libzarr = stored_files(os.path.join(data_dir, "rewrite", path.strip("/")))
        problems, differ = compare(libzarr, theirs, "zarr-python")
        if path in BY_DESIGN:
            for key in differ:
                if inner_chunks(key, libzarr[key], doc) != inner_chunks(key, theirs[key], doc):
                    problems.append(f"{key}: inner chunks differ, not only their order")
            if not differ:
                problems.append("listed in BY_DESIGN but byte-identical now: update the list")
            note = f"{differ} differ by design ({BY_DESIGN[path]})"
        else:
            if differ:
                problems.append(f"stored bytes differ in {differ}")
            for key in differ[:2]:
                problems.append(f"  {key}: libzarr {libzarr[key][:64].hex()} ...")
                problems.append(f"  {key}: zarr-python {theirs[key][:64].hex()} ...")
            note = "byte-identical"
        if not theirs:
            problems.append("nothing stored")
        if problems:
            failures += 1
            print(f"FAIL {path}:\n    " + "\n    ".join(problems))
        else:
            passes += 1
            print(f"ok   {path} ({len(theirs)} stored keys; {note})")
    print(f"{passes} passed, {failures} failed")
    return 0 if failures == 0 and passes == len(paths) and passes > 0 else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare-rewrite"]:
        sys.exit(compare_rewrite(sys.argv[2]))
    sys.exit(main(sys.argv[1]))
