"""tensorstore reads the arrays libzarr wrote (ts_types write) and compares them byte for
byte with its own read of the arrays it wrote itself (interop.tensorstore_types.*).

Usage: ts_read.py TS_DIR C_DIR

For every array of C_DIR/manifest.txt: tensorstore opens C_DIR/store/<name> (libzarr's
zarr.json, in libzarr's spelling: fill value, codecs), and must find the same data type
and fill value, and read TS_DIR/expected/<name>.bin. Both stores must hold the same chunk
(shard) keys, but for chunks whose elements all equal the fill value, which libzarr does
not store (tensorstore stores those it was written to). The chunks of the arrays
without sharding (`bytes` codec only) must be byte-identical to tensorstore's; shards are
compared by value only, since the order of the inner chunks in a shard is free.

int2/int4: tensorstore 0.1.86 reads a negative fill value sign-extended (0xf8 for int4
-8), and libzarr writes the low bits only, as ml_dtypes lays values out: the registry says
the upper bits are ignored, so these compare on the low bits (ts_write.py stored the
expected bytes so).
"""

import os
import sys

import numpy as np
import tensorstore as ts

SUB_BYTE = {"int2": 0x03, "int4": 0x0F, "float4_e2m1fn": 0x0F}


def low_bits(raw, dtype):
    b = np.frombuffer(raw, dtype=np.uint8)
    return (b & SUB_BYTE[dtype]).tobytes() if dtype in SUB_BYTE else bytes(raw)


def chunk_files(root):
    """{key: bytes} of every stored chunk (or shard) under the array directory `root`."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f == "zarr.json":
                continue
            full = os.path.join(dirpath, f)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, root)] = fh.read()
    return out


def first_difference(want, got, size):
    for i, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return f"byte {i} (element {i // size}) is 0x{b:02x}, expected 0x{a:02x}"
    return f"lengths {len(got)} and {len(want)}"


def main(ts_dir, c_dir):
    failures = []
    with open(os.path.join(c_dir, "manifest.txt")) as f:
        entries = [line.split() for line in f if line.strip()]
    for name, dtype, size, *_ in entries:
        size = int(size)
        try:
            store = ts.open({"driver": "zarr3", "kvstore": {
                "driver": "file", "path": os.path.join(c_dir, "store", name)}},
                open=True).result()
        except Exception as e:  # tensorstore could not parse libzarr's zarr.json
            failures.append(f"{name}: tensorstore cannot open libzarr's array: {e}")
            continue
        if str(store.dtype.name) != dtype:
            failures.append(f"{name}: tensorstore sees data type {store.dtype.name}")
            continue
        with open(os.path.join(ts_dir, "expected", name + ".fill.bin"), "rb") as fh:
            want_fill = fh.read()
        got = np.asarray(store.fill_value, dtype=store.dtype.numpy_dtype).reshape(1).tobytes()
        if low_bits(got, dtype) != want_fill:
            failures.append(f"{name}: fill value {store.fill_value!r} ({got.hex()}), "
                            f"expected {want_fill.hex()}")
        with open(os.path.join(ts_dir, "expected", name + ".bin"), "rb") as fh:
            want = fh.read()
        got = low_bits(np.ascontiguousarray(store[...].read().result()).tobytes(), dtype)
        if got != want:
            failures.append(f"{name}: tensorstore's read of libzarr's array: "
                            + first_difference(want, got, size))
        ours = chunk_files(os.path.join(c_dir, "store", name))
        theirs = chunk_files(os.path.join(ts_dir, "store", name))
        # libzarr stores no chunk whose elements all equal the fill value (tensorstore
        # stores those it was written to): every other chunk must be in both.
        grid = store.spec().to_json()["metadata"]["chunk_grid"]["configuration"]["chunk_shape"]
        expected = np.frombuffer(want, dtype=np.uint8).reshape(
            list(store.shape) + [size])
        omitted = sorted(set(theirs) - set(ours))
        for key in omitted:
            index = [int(k) for k in key.split("/")[1:]]
            block = expected[tuple(slice(i * c, (i + 1) * c) for i, c in zip(index, grid))]
            if not np.all(block.reshape(-1, size) == np.frombuffer(want_fill, np.uint8)):
                failures.append(f"{name}: libzarr did not store chunk {key}, which holds "
                                "elements other than the fill value")
        if sorted(set(ours) - set(theirs)):
            failures.append(f"{name}: libzarr stored chunks tensorstore did not: "
                            f"{sorted(set(ours) - set(theirs))}")
        elif "sharded" not in name:
            for key in sorted(ours):
                if low_bits(ours[key], dtype) != low_bits(theirs[key], dtype):
                    failures.append(f"{name}: chunk {key} differs from tensorstore's: "
                                    + first_difference(low_bits(theirs[key], dtype),
                                                       low_bits(ours[key], dtype), size))
    for line in failures:
        print("FAIL", line)
    if failures:
        raise SystemExit(f"{len(failures)} failure(s)")
    print(f"tensorstore read {len(entries)} arrays libzarr wrote, byte for byte")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
