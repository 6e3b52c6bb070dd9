"""Write Zarr v3 arrays with zarr-python for libzarr to read (interop, direction 1).

Usage: python_write.py OUT_DIR

Writes a hierarchy under OUT_DIR/store covering every core data type and codec, both byte
orders, transpose orders, edge chunks, fill values (NaN included), unwritten chunks, both
chunk key encodings and separators, 0-d arrays, sharding and group attributes. For each
array it writes the values zarr-python reads back (full array, C order, native byte order)
to OUT_DIR/expected/<n>.bin and a line `<node path> <data type> <bin file>` to
OUT_DIR/manifest.txt; the root group's attributes go to OUT_DIR/attributes.json.
"""

import json
import os
import shutil
import sys

import numpy as np
import zarr
from zarr.codecs import (
    BloscCodec,
    BytesCodec,
    Crc32cCodec,
    GzipCodec,
    ShardingCodec,
    TransposeCodec,
    ZstdCodec,
)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape, seed):
    """Deterministic values of every interesting kind for `dtype`."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[:2] = [info.min, info.max][: min(2, n)]
        return v.reshape(shape)
    if dt.kind == "f":
        v = rng.normal(0, 1000, n).astype(dt)
        specials = [np.nan, np.inf, -np.inf, -0.0, np.finfo(dt).tiny / 2, np.finfo(dt).max]
        v[: min(n, len(specials))] = specials[: min(n, len(specials))]
        return v.reshape(shape)
    re = rng.normal(0, 10, n)
    im = rng.normal(0, 10, n)
    v = (re + 1j * im).astype(dt)
    if n > 1:
        v[1] = complex(np.nan, np.inf)
    return v.reshape(shape)


def main(out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    store_dir = os.path.join(out_dir, "store")
    os.makedirs(os.path.join(out_dir, "expected"))
    attributes = {"title": "interop", "count": 3, "nested": {"list": [1, 2, 3], "flag": True},
                  "unit": "\u00b5m"}
    root = zarr.open_group(store=store_dir, mode="w", zarr_format=3, attributes=attributes)
    root.create_group("sub", attributes={"level": 1})
    manifest = []

    def add(name, dtype, shape, chunks, codecs, fill_value, region=None,
            chunk_key_encoding=None, seed=0):
        path = name
        arr = zarr.create(shape=shape, chunks=chunks, dtype=dtype, fill_value=fill_value,
                          codecs=codecs, store=store_dir, path=path, zarr_format=3,
                          chunk_key_encoding=chunk_key_encoding or {"name": "default",
                                                                    "separator": "/"})
        data = values(dtype, shape, seed)
        if region is None:
            arr[...] = data
        else:
            arr[region] = data[region]
        got = arr[...]
        expected = np.ascontiguousarray(got, dtype=got.dtype.newbyteorder("="))
        bin_name = f"expected/{len(manifest)}.bin"
        with open(os.path.join(out_dir, bin_name), "wb") as f:
            f.write(expected.tobytes())
        manifest.append(f"/{path} {dtype} {bin_name}")

    # Every data type, little and big endian, edge chunks, part of the array unwritten.
    for i, dtype in enumerate(DTYPES):
        fill = False if dtype == "bool" else (1 if np.dtype(dtype).kind in "iu" else 0.5)
        for endian in ["little", "big"]:
            add(f"dtypes/{dtype}_{endian}", dtype, (7, 9), (3, 4),
                [BytesCodec(endian=endian)], fill, region=(slice(0, 5), slice(0, 6)), seed=i)

    # Fill values that need care.
    add("fill/f32_nan", "float32", (10,), (4,), [BytesCodec()], float("nan"),
        region=(slice(0, 3),), seed=20)
    add("fill/f64_neg_inf", "float64", (10,), (4,), [BytesCodec()], float("-inf"),
        region=(slice(5, 7),), seed=21)
    add("fill/u64_max", "uint64", (6,), (4,), [BytesCodec()], 2**64 - 1,
        region=(slice(0, 2),), seed=22)
    add("fill/c128", "complex128", (6,), (4,), [BytesCodec()], complex(1.5, -2.0),
        region=(slice(0, 2),), seed=23)

    # Codecs.
    add("codecs/gzip", "int32", (50, 40), (16, 16), [BytesCodec(), GzipCodec(level=5)], 0, seed=30)
    add("codecs/zstd", "float64", (50, 40), (16, 16),
        [BytesCodec(), ZstdCodec(level=3, checksum=True)], 0.0, seed=31)
    for j, (cname, shuffle) in enumerate([("lz4", "shuffle"), ("lz4hc", "noshuffle"),
                                          ("blosclz", "bitshuffle"), ("zstd", "shuffle"),
                                          ("zlib", "bitshuffle")]):
        add(f"codecs/blosc_{cname}_{shuffle}", "uint16", (50, 40), (16, 16),
            [BytesCodec(), BloscCodec(cname=cname, clevel=5, shuffle=shuffle)], 0, seed=32 + j)
    add("codecs/crc32c", "int16", (20, 30), (8, 8), [BytesCodec(), Crc32cCodec()], 0, seed=40)
    add("codecs/transpose_2d", "int32", (6, 10), (4, 3),
        [TransposeCodec(order=(1, 0)), BytesCodec()], 0, seed=41)
    add("codecs/transpose_3d", "uint8", (5, 6, 7), (2, 3, 4),
        [TransposeCodec(order=(2, 0, 1)), BytesCodec()], 0, seed=42)
    add("codecs/combined", "float32", (30, 20), (8, 8),
        [TransposeCodec(order=(1, 0)), BytesCodec(endian="big"),
         BloscCodec(cname="zstd", clevel=3, shuffle="shuffle"), Crc32cCodec()], 0.0, seed=43)

    # Chunk key encodings.
    add("keys/default_dot", "int32", (9, 9), (4, 4), [BytesCodec()], 0,
        chunk_key_encoding={"name": "default", "separator": "."}, seed=50)
    add("keys/v2_dot", "int32", (9, 9), (4, 4), [BytesCodec()], 0,
        chunk_key_encoding={"name": "v2", "separator": "."}, seed=51)
    add("keys/v2_slash", "int32", (9, 9), (4, 4), [BytesCodec()], 0,
        chunk_key_encoding={"name": "v2", "separator": "/"}, seed=52)

    # 0-d arrays and zero-length dimensions.
    add("scalar/f64", "float64", (), (), [BytesCodec()], 0.0, seed=60)
    add("scalar/v2_keys", "int16", (), (), [BytesCodec(endian="big")], 0,
        chunk_key_encoding={"name": "v2", "separator": "."}, seed=61)
    add("empty/zero_length", "int32", (0, 5), (2, 2), [BytesCodec()], 0, seed=62)

    # Sharding: index at the start and the end, crc32c index, edge shards, missing inner
    # chunks, nested sharding.
    index = [BytesCodec(), Crc32cCodec()]
    for location in ["start", "end"]:
        add(f"sharding/index_{location}", "int32", (20, 30), (8, 12),
            [ShardingCodec(chunk_shape=(4, 6),
                           codecs=[BytesCodec(), ZstdCodec(level=1)],
                           index_codecs=index, index_location=location)],
            -1, region=(slice(0, 13), slice(0, 17)), seed=70)
    add("sharding/nested", "uint16", (16, 16), (8, 8),
        [ShardingCodec(chunk_shape=(4, 4),
                       codecs=[ShardingCodec(chunk_shape=(2, 2), codecs=[BytesCodec()],
                                             index_codecs=index)],
                       index_codecs=index)], 0, seed=71)
    add("sharding/transpose_inner", "float32", (12, 12), (6, 6),
        [ShardingCodec(chunk_shape=(3, 3),
                       codecs=[TransposeCodec(order=(1, 0)), BytesCodec(endian="big"),
                               GzipCodec(level=1)],
                       index_codecs=[BytesCodec(endian="big")], index_location="start")],
        0.0, seed=72)

    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    with open(os.path.join(out_dir, "attributes.json"), "w", encoding="utf-8") as f:
        json.dump(attributes, f, separators=(",", ":"), ensure_ascii=False)
    print(f"python_write: {len(manifest)} arrays written to {store_dir}")


if __name__ == "__main__":
    main(sys.argv[1])
