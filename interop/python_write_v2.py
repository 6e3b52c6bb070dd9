"""Write Zarr v2 arrays with zarr-python for libzarr to read (interop, v2, direction 1).

Usage: python_write_v2.py OUT_DIR

Writes a v2 hierarchy under OUT_DIR/store: every numeric dtype in both byte orders, C and
F order, both dimension separators, NaN and null fill values, unwritten chunks, each
numcodecs compressor (zlib, gzip, blosc, zstd, lz4, bz2, lzma) and filter (delta, shuffle,
fixedscaleoffset, quantize, bitround, astype), then consolidates the metadata (.zmetadata).
The output format is the one read_peer.c reads (see python_write.py): OUT_DIR/manifest.txt
with `<node path> <data type> <bin file>` lines, the values zarr-python reads back in
OUT_DIR/expected/, and the root group's attributes in OUT_DIR/attributes.json.
"""

import json
import os
import shutil
import sys

import numcodecs
import numpy as np
import zarr

from python_write import values

V3_NAMES = {
    "b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
}


def main(out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    store_dir = os.path.join(out_dir, "store")
    os.makedirs(os.path.join(out_dir, "expected"))
    attributes = {"title": "interop v2", "count": 2, "nested": {"list": [1, 2], "flag": False}}
    root = zarr.open_group(store=store_dir, mode="w", zarr_format=2, attributes=attributes)
    root.create_group("sub", attributes={"level": 1})
    root.create_group("dtypes")
    manifest = []

    def add(name, dtype, shape, chunks, fill_value, compressor=None, filters=None, order="C",
            separator=".", region=None, seed=0, smooth=False):
        arr = zarr.create(shape=shape, chunks=chunks, dtype=dtype, fill_value=fill_value,
                          compressor=compressor, filters=filters, order=order,
                          dimension_separator=separator, store=store_dir, path=name,
                          zarr_format=2)
        if smooth:
            # Finite values in a modest range: lossy filters convert to narrower types, and
            # what NaN or 1e38 become there is up to the platform's float-to-int casts.
            n = int(np.prod(shape))
            data = (np.sin(np.arange(n) * 0.37 + seed) * 90 + 100).astype(dtype).reshape(shape)
        else:
            data = values(np.dtype(dtype).newbyteorder("="), shape, seed).astype(dtype)
        if region is None:
            arr[...] = data
        else:
            arr[region] = data[region]
        got = arr[...]
        expected = np.ascontiguousarray(got, dtype=got.dtype.newbyteorder("="))
        bin_name = f"expected/{len(manifest)}.bin"
        with open(os.path.join(out_dir, bin_name), "wb") as f:
            f.write(expected.tobytes())
        manifest.append(f"/{name} {V3_NAMES[np.dtype(dtype).str[1:]]} {bin_name}")

    # Every dtype in both byte orders, edge chunks, part of the array unwritten.
    for i, code in enumerate(V3_NAMES):
        for prefix in ["<", ">"]:
            dtype = np.dtype(prefix + code)
            if dtype.byteorder == "|" and prefix == ">":
                continue  # single-byte types have no byte order
            fill = False if dtype.kind == "b" else (1 if dtype.kind in "iu" else 0.5)
            endian = "big" if prefix == ">" else "little"
            add(f"dtypes/{code}_{endian}", dtype.str, (7, 9), (3, 4), fill,
                region=(slice(0, 5), slice(0, 6)), seed=i)

    # Layout: F order (2-D and 3-D), "/" separator, both together with a compressor.
    add("layout/f_order_2d", "<i4", (10, 7), (4, 3), 0, order="F", seed=20)
    add("layout/f_order_3d", ">f8", (5, 6, 7), (2, 3, 4), 0.0, order="F", seed=21)
    add("layout/slash", "<u2", (9, 9), (4, 4), 0, separator="/", seed=22)
    add("layout/f_slash_zlib", "<f4", (12, 8), (5, 3), 0.0, order="F", separator="/",
        compressor=numcodecs.Zlib(level=3), seed=23)

    # Fill values.
    add("fill/nan", "<f4", (10,), (4,), float("nan"), region=(slice(0, 3),), seed=30)
    add("fill/null_int", "<i2", (10,), (4,), None, region=(slice(4, 6),), seed=31)
    add("fill/null_float", "<f8", (10,), (4,), None, region=(slice(0, 2),), seed=32)
    add("fill/neg_inf", ">f8", (10,), (4,), float("-inf"), region=(slice(5, 7),), seed=33)

    # Compressors.
    compressors = {
        "zlib": numcodecs.Zlib(level=5),
        "gzip": numcodecs.GZip(level=5),
        "blosc_lz4_shuffle": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
        "blosc_zstd_bitshuffle": numcodecs.Blosc(cname="zstd", clevel=3,
                                                 shuffle=numcodecs.Blosc.BITSHUFFLE),
        "blosc_blosclz_noshuffle": numcodecs.Blosc(cname="blosclz", clevel=9,
                                                   shuffle=numcodecs.Blosc.NOSHUFFLE),
        "zstd": numcodecs.Zstd(level=3),
        "lz4": numcodecs.LZ4(acceleration=1),
        "bz2": numcodecs.BZ2(level=5),
        "lzma": numcodecs.LZMA(preset=1),
    }
    for j, (name, compressor) in enumerate(compressors.items()):
        add(f"compressors/{name}", "<i4", (50, 40), (16, 16), 0, compressor=compressor,
            seed=40 + j)

    # Filters (each with a compressor where that is the usual pairing).
    add("filters/delta", "<i4", (100,), (30,), 0, filters=[numcodecs.Delta(dtype="<i4")],
        compressor=numcodecs.Zlib(level=1), seed=60)
    add("filters/delta_astype", "<i4", (100,), (30,), 0,
        filters=[numcodecs.Delta(dtype="<i4", astype="<i8")], seed=61)
    add("filters/shuffle", "<f8", (64,), (16,), 0.0, filters=[numcodecs.Shuffle(elementsize=8)],
        compressor=numcodecs.Zlib(level=1), seed=62, smooth=True)
    add("filters/fixedscaleoffset", "<f8", (40,), (16,), 0.0,
        filters=[numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="<i4")],
        seed=63, smooth=True)
    add("filters/quantize", "<f4", (40,), (16,), 0.0,
        filters=[numcodecs.Quantize(digits=2, dtype="<f4")], compressor=numcodecs.Zlib(level=1),
        seed=64, smooth=True)
    add("filters/bitround", "<f4", (40,), (16,), 0.0, filters=[numcodecs.BitRound(keepbits=6)],
        seed=65, smooth=True)
    add("filters/astype", "<f8", (40,), (16,), 0.0,
        filters=[numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")], seed=66, smooth=True)
    add("filters/chain", ">i2", (6, 10), (4, 4), 0, order="F",
        filters=[numcodecs.Delta(dtype=">i2"), numcodecs.Shuffle(elementsize=2)],
        compressor=numcodecs.Blosc(cname="zstd", clevel=1, shuffle=numcodecs.Blosc.NOSHUFFLE),
        seed=67)

    zarr.consolidate_metadata(store_dir)
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    with open(os.path.join(out_dir, "attributes.json"), "w", encoding="utf-8") as f:
        json.dump(attributes, f, separators=(",", ":"), ensure_ascii=False)
    print(f"python_write_v2: {len(manifest)} arrays written to {store_dir}")


if __name__ == "__main__":
    main(sys.argv[1])
