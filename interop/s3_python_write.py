"""zarr-python writes arrays into the loopback S3 server (through obstore) for libzarr to
read (interop over S3, zarr-python -> libzarr); into Azurite through adlfs with
ZARR_INTEROP_STORAGE=azure (see s3_common.py).

Usage: s3_python_write.py DATA_DIR {v3|v2}

v3: every core data type, gzip, zstd, blosc, crc32c and transpose codecs, unwritten
chunks, and sharded arrays (index at the end and at the start, compressed inner chunks);
v2: data types in both byte orders with the zlib, blosc, zstd and gzip compressors and the
delta and shuffle filters. The hierarchy goes to a fresh prefix of s3://zarr-interop and
is consolidated; DATA_DIR gets store.url and store.options (how libzarr opens it),
manifest.txt (`<node path> <data type> expected/<n>.bin`), the values zarr-python reads
back (C order, native byte order) and attributes.json, the layout read_peer checks.
"""

import json
import os
import shutil
import sys

import numcodecs
import numpy as np
import zarr
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,
                         TransposeCodec, ZstdCodec)

import s3_common

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        native = dt.newbyteorder("=")
        v = rng.integers(info.min, info.max, n, dtype=native, endpoint=True)
        return v.astype(dt).reshape(shape)
    v = rng.normal(0, 1000, n)
    if dt.kind == "c":
        v = v + 1j * rng.normal(0, 10, n)
    v = v.astype(dt)
    if dt.kind == "f":
        v[:3] = [np.nan, np.inf, -0.0]
    return v.reshape(shape)


def main(data_dir, zarr_format):
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(os.path.join(data_dir, "expected"))
    prefix = s3_common.new_prefix(f"python-{zarr_format}")
    s3_common.write_store_files(data_dir, prefix)
    store = s3_common.zarr_store(prefix, read_only=False)
    attributes = {"title": "written by zarr-python into S3", "format": zarr_format}
    root = zarr.open_group(store=store, mode="w", zarr_format=int(zarr_format[1]),
                           attributes=attributes)
    root.create_group("sub", attributes={"level": 1})
    with open(os.path.join(data_dir, "attributes.json"), "w", encoding="utf-8") as f:
        json.dump(attributes, f, separators=(",", ":"), ensure_ascii=False)
    manifest = []

    def add(path, dtype, shape, chunks, seed, region=None, fill_value=0, **options):
        arr = root.create_array(path, shape=shape, chunks=chunks, dtype=dtype,
                                fill_value=fill_value, **options)
        data = values(dtype, shape, seed)
        if region is None:
            arr[...] = data
        else:
            arr[region] = data[region]
        got = arr[...]
        expected = np.ascontiguousarray(got, dtype=got.dtype.newbyteorder("="))
        bin_name = f"expected/{len(manifest)}.bin"
        with open(os.path.join(data_dir, bin_name), "wb") as f:
            f.write(expected.tobytes())
        manifest.append(f"/{path} {np.dtype(dtype).newbyteorder('=').name} {bin_name}")

    if zarr_format == "v3":
        for i, dtype in enumerate(DTYPES):
            fill = False if dtype == "bool" else 0
            add(f"dtypes/{dtype}", dtype, (7, 9), (3, 4), seed=i, fill_value=fill,
                region=(slice(0, 5), slice(0, 6)), serializer=BytesCodec(endian="big"),
                compressors=None)
        add("gzip", "int32", (50, 40), (16, 16), seed=30, compressors=GzipCodec(level=5))
        add("zstd", "float64", (50, 40), (16, 16), seed=31,
            compressors=ZstdCodec(level=3, checksum=True))
        add("blosc", "uint16", (50, 40), (16, 16), seed=32,
            compressors=BloscCodec(cname="lz4", clevel=5, shuffle="bitshuffle"))
        add("crc32c", "int16", (20, 30), (8, 8), seed=33, compressors=Crc32cCodec())
        add("transpose", "int32", (6, 10), (4, 3), seed=34,
            filters=[TransposeCodec(order=(1, 0))], compressors=None)
        add("sharded", "float32", (40, 30), (5, 6), seed=40, shards=(20, 30),
            compressors=ZstdCodec(level=1))
        add("sharded_partial", "uint8", (33, 17), (4, 4), seed=41, shards=(16, 8),
            region=(slice(0, 20), slice(0, 9)))
        add("sharded_index_start", "int64", (24, 24), (12, 12), seed=42, compressors=None,
            serializer=ShardingCodec(chunk_shape=(4, 4), codecs=[BytesCodec(), GzipCodec()],
                                     index_location="start"))
    else:
        for i, dtype in enumerate(["int16", ">i4", "<u8", ">f4", "float64", "complex64"]):
            add(f"dtypes/{np.dtype(dtype).name}_{i}", dtype, (7, 9), (3, 4), seed=50 + i,
                region=(slice(0, 5), slice(0, 6)),
                compressors=numcodecs.Zlib(level=3))
        add("blosc", "float32", (50, 40), (16, 16), seed=60,
            compressors=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=2))
        add("zstd", "int64", (30, 30), (10, 7), seed=61, compressors=numcodecs.Zstd(level=2))
        add("gzip_delta", "int32", (100,), (32,), seed=62,
            filters=[numcodecs.Delta(dtype="<i4")], compressors=numcodecs.GZip(level=4))
        add("shuffle", "uint16", (40, 40), (16, 16), seed=63,
            filters=[numcodecs.Shuffle(elementsize=2)], compressors=numcodecs.Zlib(level=1))
    zarr.consolidate_metadata(store)
    with open(os.path.join(data_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"s3_python_write: {len(manifest)} {zarr_format} arrays written to "
          f"{s3_common.url(prefix)}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
