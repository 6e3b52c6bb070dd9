"""Check with zarr-python the arrays libzarr resized, appended to and erased chunks of
(interop/resize_c.c).

Usage: check_resize.py DATA_DIR

resize_c wrote f(i, j) = 100 i + j + 1 into int32 arrays of shape [10, 7] with a [4, 4]
chunk (for the sharded one: shard) grid, resized them to [6, 3], then to [9, 4], appended
4 rows g(i, j) = 10000 + 100 i + j along dimension 0 and erased chunk (1, 0). Each array
must open in zarr-python with shape [13, 4] and data type int32 and hold, byte for byte:
g for rows 9..12, the fill value in rows 4..7 (the erased chunk) and wherever the array
grew, f elsewhere (rows 0..5, columns 0..2). No chunk key may lie outside the new
[4, 1] grid (the shrink deleted column 1), and the erased chunk's key must be gone.
"""

import json
import os
import sys

import numpy as np
import zarr

SHAPE = (13, 4)
CHUNKS = (4, 4)
ERASED = (1, 0)

# (store, array name, zarr format, fill value)
ARRAYS = [
    ("v3", "plain_fill0", 3, 0),
    ("v3", "plain_fillm1", 3, -1),
    ("v3", "sharded", 3, -1),
    ("v2", "zlib", 2, -1),
    ("v2", "blosc_f", 2, 0),
]


def expected_values(fill):
    i, j = np.indices(SHAPE, dtype=np.int64)
    f = 100 * i + j + 1
    g = 10000 + 100 * i + j
    out = np.full(SHAPE, fill, dtype=np.int64)
    kept = (i < 6) & (j < 3)  # what survived the shrink to [6, 3]
    out[kept] = f[kept]
    out[(i // CHUNKS[0] == ERASED[0]) & (j // CHUNKS[1] == ERASED[1])] = fill
    out[i >= 9] = g[i >= 9]  # the appended rows
    return out.astype(np.int32)


def chunk_keys(array_dir, zarr_format):
    """The chunk grid indices of the keys stored under array_dir, and any other files."""
    if zarr_format == 3:
        with open(os.path.join(array_dir, "zarr.json")) as f:
            meta = json.load(f)
        assert meta["chunk_key_encoding"]["name"] == "default"
        separator = meta["chunk_key_encoding"]["configuration"]["separator"]
        prefix, metadata_files = "c" + separator, {"zarr.json"}
        chunk_shape = meta["chunk_grid"]["configuration"]["chunk_shape"]
    else:
        with open(os.path.join(array_dir, ".zarray")) as f:
            meta = json.load(f)
        separator = meta.get("dimension_separator") or "."
        prefix, metadata_files = "", {".zarray", ".zattrs"}
        chunk_shape = meta["chunks"]
    keys, strays = [], []
    for root, _, files in os.walk(array_dir):
        for name in files:
            key = os.path.relpath(os.path.join(root, name), array_dir).replace(os.sep, "/")
            if key in metadata_files:
                continue
            parts = key[len(prefix):].split(separator) if key.startswith(prefix) else []
            if len(parts) == len(SHAPE) and all(p.isdigit() for p in parts):
                keys.append(tuple(int(p) for p in parts))
            else:
                strays.append(key)
    return sorted(keys), strays, tuple(chunk_shape)


def check(data_dir, store_name, name, zarr_format, fill):
    label = f"{store_name}/{name}"
    problems = []
    try:
        arr = zarr.open_array(
            store=os.path.join(data_dir, store_name), path=name, mode="r", zarr_format=zarr_format
        )
        values = arr[...]
    except Exception as e:
        print(f"FAIL {label}: zarr-python cannot read it: {type(e).__name__}: {e}")
        return False
    if arr.shape != SHAPE:
        problems.append(f"shape is {arr.shape}, expected {SHAPE}")
    if values.dtype.newbyteorder("=") != np.dtype("int32"):
        problems.append(f"data type is {values.dtype}, expected int32")
    if arr.fill_value != fill:
        problems.append(f"fill value is {arr.fill_value!r}, expected {fill}")
    if not problems:
        expected = expected_values(fill)
        got = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("="))
        if got.tobytes() != expected.tobytes():
            wrong = np.argwhere(got != expected)
            shown = ", ".join(
                f"[{i}, {j}] = {got[i, j]} (expected {expected[i, j]})" for i, j in wrong[:8]
            )
            problems.append(f"{len(wrong)} values differ: {shown}")
    keys, strays, chunk_shape = chunk_keys(os.path.join(data_dir, store_name, name), zarr_format)
    if chunk_shape != CHUNKS:
        problems.append(f"chunk grid is {list(chunk_shape)}, expected {list(CHUNKS)}")
    grid = tuple(-(-s // c) for s, c in zip(SHAPE, CHUNKS))
    outside = [k for k in keys if any(i >= n for i, n in zip(k, grid))]
    if outside:
        problems.append(f"chunk keys {outside} lie outside the {list(grid)} grid")
    if ERASED in keys:
        problems.append(f"the erased chunk {ERASED} is still stored")
    if strays:
        problems.append(f"unexpected files {strays}")
    for p in problems:
        print(f"FAIL {label}: {p}")
    if not problems:
        print(f"ok   {label}: shape {list(SHAPE)}, values byte-exact, chunks {keys}")
    return not problems


def main(data_dir):
    results = [check(data_dir, *a) for a in ARRAYS]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
