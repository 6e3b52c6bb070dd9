"""tensorstore writes Zarr v3 arrays of the sub-byte, 8-bit float, bfloat16 and complex
data types it has, for libzarr to read byte for byte (interop.tensorstore_types.*).

Usage: ts_write.py OUT_DIR

For every data type, two arrays of shape (24, 30): `<type>_plain` (chunks 8 x 8, `bytes`
codec) and `<type>_sharded` (shards 12 x 10 of inner chunks 4 x 5, inner codecs `bytes`
and zstd, crc32c index, at the end for one type and at the start for the next). Only the
region [0:17, 0:17] is written, so both hold chunks (shards, inner chunks) never written,
which read as the fill value, and chunks written in part. The written elements cycle
through every bit pattern of the 1-byte types (4 for int2, 16 for int4 and float4, 256 for
the float8s: NaNs, infinities, negative zero and subnormals included); bfloat16 and the
complex types get random bits plus NaN, infinities and -0.

OUT_DIR gets store/<name>/ (tensorstore's arrays), expected/<name>.bin (tensorstore's own
read of the whole array: `read().tobytes()`, which is numpy's / ml_dtypes' layout: one
byte per int2/int4/float4 element with the code in the low bits), expected/<name>.fill.bin
(the fill value as one such element), expected/<name>.int8.bin for int2/int4 (the values
as int8, by ml_dtypes' conversion), and manifest.txt, one line per array:
`name dtype element_size rows cols start0 start1 count0 count1` (the written region).
"""

import os
import shutil
import sys

import ml_dtypes
import numpy as np
import tensorstore as ts

SHAPE = (24, 30)
REGION = (slice(0, 17), slice(0, 17))
LE = {"name": "bytes", "configuration": {"endian": "little"}}
BE = {"name": "bytes", "configuration": {"endian": "big"}}
ONE_BYTE = {"name": "bytes"}  # no endian for 1-byte elements, as tensorstore writes it
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
CRC = {"name": "crc32c"}

# (type, element size, fill value of the plain array, of the sharded array). The fill
# values are spelled as tensorstore accepts them: numbers, "NaN", "Infinity", "0x.." bit
# patterns (tensorstore stores its own canonical spelling, which libzarr must read).
TYPES = [
    ("int2", 1, -2, 1),
    ("int4", 1, -8, 5),
    ("float4_e2m1fn", 1, -1.5, "0x7"),
    ("float8_e3m4", 1, "-Infinity", 0.3125),
    ("float8_e4m3fn", 1, "NaN", -448.0),
    ("float8_e4m3fnuz", 1, "NaN", "0x01"),
    ("float8_e4m3b11fnuz", 1, 0.5, "NaN"),
    ("float8_e5m2", 1, "Infinity", -0.0),
    ("float8_e5m2fnuz", 1, "NaN", 57344.0),
    # tensorstore 0.1.86 converts float8_e8m0fnu fill values between JSON and bits wrongly
    # (4.0 becomes the bits 0x41, 2^-62, where ml_dtypes and libzarr have 0x81; "0x81" is
    # read as 4 but written back as -7.378697629483821e+19), so only "NaN" (0xff) can
    # compare byte for byte. The elements themselves are right.
    ("float8_e8m0fnu", 1, "NaN", "NaN"),
    ("bfloat16", 2, "-Infinity", 1.5),
    ("complex64", 8, [1.0, "NaN"], [0.0, -2.5]),
    ("complex128", 16, ["Infinity", 3.0], [-0.0, 0.0]),
]


# The types whose host element is a byte holding a narrower code in its low bits.
SUB_BYTE = {"int2": 0x03, "int4": 0x0F, "float4_e2m1fn": 0x0F}


def mask(array, dtype):
    """`array` with every byte's bits above the type's width cleared."""
    return (array.view(np.uint8) & SUB_BYTE[dtype]).view(array.dtype)


def values(dtype_name, n, rng):
    """n elements of `dtype_name` (a numpy dtype), covering every bit pattern of the
    1-byte types in turn."""
    dt = np.dtype(getattr(ml_dtypes, dtype_name, None) or dtype_name)
    if dtype_name == "int2":
        return (np.arange(n) % 4 - 2).astype(dt)
    if dtype_name == "int4":
        return (np.arange(n) % 16 - 8).astype(dt)
    if dtype_name == "float4_e2m1fn":
        # ml_dtypes keeps the 4-bit code in the low bits of each byte.
        return (np.arange(n) % 16).astype(np.uint8).view(dt)
    if dt.itemsize == 1:
        return (np.arange(n) % 256).astype(np.uint8).view(dt)
    if dtype_name == "bfloat16":
        bits = rng.integers(0, 1 << 16, size=n, dtype=np.uint32).astype(np.uint16)
        bits[:6] = [0x7FC0, 0x7F80, 0xFF80, 0x8000, 0x0001, 0xFFC1]  # NaN, +-inf, -0, subnormal, NaN payload
        return bits.view(dt)
    real = dt.type(0).real.dtype
    parts = rng.standard_normal(2 * n).astype(real) * 1000
    parts[:6] = [np.nan, np.inf, -np.inf, -0.0, np.finfo(real).tiny, -np.finfo(real).max]
    return parts.view(dt)


def main(out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(os.path.join(out_dir, "expected"))
    rng = np.random.default_rng(25)
    manifest = []
    for index, (dtype, size, plain_fill, sharded_fill) in enumerate(TYPES):
        bytes_codec = ONE_BYTE if size == 1 else LE
        location = "end" if index % 2 == 0 else "start"
        sharded_bytes = ONE_BYTE if size == 1 else BE
        layouts = [
            ("plain", [8, 8], [bytes_codec], plain_fill),
            ("sharded", [12, 10], [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [4, 5], "codecs": [sharded_bytes, ZSTD],
                "index_codecs": [LE, CRC], "index_location": location}}], sharded_fill),
        ]
        for layout, chunks, codecs, fill in layouts:
            name = f"{dtype}_{layout}"
            store = ts.open({
                "driver": "zarr3",
                "kvstore": {"driver": "file", "path": os.path.join(out_dir, "store", name)},
                "metadata": {
                    "shape": list(SHAPE), "data_type": dtype,
                    "chunk_grid": {"name": "regular",
                                   "configuration": {"chunk_shape": chunks}},
                    "chunk_key_encoding": {"name": "default"},
                    "fill_value": fill, "codecs": codecs,
                },
                "create": True, "delete_existing": True,
            }).result()
            rows = REGION[0].stop - REGION[0].start
            cols = REGION[1].stop - REGION[1].start
            data = values(dtype, rows * cols, rng).reshape(rows, cols)
            store[REGION].write(data).result()
            got = store[...].read().result()
            if got.dtype.itemsize != size:
                raise SystemExit(f"{name}: tensorstore reads {got.dtype} of "
                                 f"{got.dtype.itemsize} bytes, expected {size}")
            # tensorstore's own read is the reference: byte for byte what a reader's host
            # buffer must hold, with one exception. tensorstore 0.1.86 holds a negative
            # int2/int4 *fill value* sign-extended (int4 -8 reads and is stored as 0xf8
            # where elements written from numpy read as 0x08); the registry says the upper
            # bits are ignored, ml_dtypes ignores them, and libzarr's host layout has them
            # zero. Masking them changes no value (checked below).
            expected = np.ascontiguousarray(got)
            fill_element = np.asarray(store.fill_value, dtype=got.dtype).reshape(1)
            if dtype in SUB_BYTE:
                masked = mask(expected, dtype)
                if not np.array_equal(masked.astype(np.int8), expected.astype(np.int8)):
                    raise SystemExit(f"{name}: masking the upper bits changed values")
                changed = int(np.count_nonzero(masked.view(np.uint8) != expected.view(np.uint8)))
                if changed:
                    print(f"{name}: {changed} bytes tensorstore reads sign-extended "
                          f"(fill value {fill}) compared with the low bits only")
                expected, fill_element = masked, mask(fill_element, dtype)
            with open(os.path.join(out_dir, "expected", name + ".bin"), "wb") as f:
                f.write(expected.tobytes())
            with open(os.path.join(out_dir, "expected", name + ".fill.bin"), "wb") as f:
                f.write(fill_element.tobytes())
            if dtype in ("int2", "int4"):
                with open(os.path.join(out_dir, "expected", name + ".int8.bin"), "wb") as f:
                    f.write(expected.astype(np.int8).tobytes())
            manifest.append(f"{name} {dtype} {size} {SHAPE[0]} {SHAPE[1]} "
                            f"{REGION[0].start} {REGION[1].start} {rows} {cols}")
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"tensorstore wrote {len(manifest)} arrays of {len(TYPES)} data types")


if __name__ == "__main__":
    main(sys.argv[1])
