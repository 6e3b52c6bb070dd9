"""zarr-python writes arrays of the fixed-size non-numeric data types and the zfpy/pcodec
codecs for libzarr to read (interop, direction 1, data types).

Usage: python_write_dtypes.py OUT_DIR [--zarrs]

With --zarrs, zarr-python runs the zarrs codec pipeline (the `zarrs` package, strict) and
writes only the arrays zarrs supports (the pcodec ones; zarrs 0.2.3 refuses the other types
and zfpy).

Zarr v3 (zarr-python 3.1's names): fixed_length_utf32 (both byte orders), null_terminated_bytes,
raw_bytes, numpy.datetime64 / timedelta64 in several units, its legacy `structured`, and
float64 arrays through numcodecs.zfpy and numcodecs.pcodec. Zarr v2: `<U`/`>U`, `|S`, `|V`,
`<M8`/`>m8`, a structured dtype with mixed byte orders, a sub-array and a nested record, and
the zfpy and pcodec compressors. Every array has a fill value and an unwritten chunk.

OUT_DIR gets store/, expected/<n>.bin (the values zarr-python reads back, C order, native
byte order) and manifest.txt (`<node path> <libzarr data type name> <bin>`), the format
interop/read_peer.c reads.
"""

import os
import shutil
import sys
import warnings

import numpy as np
import zarr
from zarr.codecs import BytesCodec, ZstdCodec
from zarr.codecs.numcodecs import PCodec, ZFPY
import numcodecs

warnings.simplefilter("ignore")

# libzarr's name for each kind of numpy dtype (what read_peer prints for the type code).
KIND_NAMES = {"U": "fixed_length_utf32", "S": "null_terminated_bytes", "M": "datetime64",
              "m": "timedelta64"}


def kind_name(dtype):
    dtype = np.dtype(dtype)
    if dtype.fields is not None:
        return "struct"
    if dtype.kind == "V":
        return "raw_bytes"
    return KIND_NAMES.get(dtype.kind, str(dtype))


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype.fields is not None:
        out = np.zeros(n, dtype=dtype)
        for name in dtype.names:
            sub = dtype.fields[name][0]
            out[name] = values(sub.base if sub.shape else sub, (n,) + sub.shape, seed + 1)
        return out.reshape(shape)
    if dtype.kind == "U":
        words = ["", "a", "é", "日本", "\U0001F600x", "zarr", "abcdefgh"]
        chars = dtype.itemsize // 4
        return np.array([words[i][:chars] for i in rng.integers(0, len(words), n)],
                        dtype=dtype).reshape(shape)
    if dtype.kind == "S":
        return np.array([bytes(rng.integers(1, 255, rng.integers(0, dtype.itemsize + 1),
                                            dtype=np.uint8)) for _ in range(n)],
                        dtype=dtype).reshape(shape)
    if dtype.kind == "V":
        return np.frombuffer(rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).tobytes(),
                             dtype=dtype).reshape(shape)
    if dtype.kind in "Mm":
        v = rng.integers(-10**12, 10**12, n).astype("i8")
        v[0] = np.iinfo("i8").min  # NaT
        return v.view(dtype).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        native = dtype.newbyteorder("=")
        v = rng.integers(info.min, info.max, n, dtype=native, endpoint=True)
        return v.astype(dtype).reshape(shape)
    if dtype.kind == "f":
        return np.cumsum(rng.normal(0, 1, n)).astype(dtype).reshape(shape)
    raise ValueError(dtype)


def main(out_dir, use_zarrs=False):
    if use_zarrs:
        import zarrs  # noqa: F401  (registers the pipeline)

        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                         "codec_pipeline.strict": True})
    shutil.rmtree(out_dir, ignore_errors=True)
    store_dir = os.path.join(out_dir, "store")
    os.makedirs(os.path.join(out_dir, "expected"))
    manifest = []

    def add(path, dtype, shape, chunks, fill_value, zarr_format=3, seed=0, **kwargs):
        if use_zarrs and "pcodec" not in path:
            return
        arr = zarr.create_array(store=store_dir, name=path, shape=shape, chunks=chunks,
                                dtype=dtype, fill_value=fill_value, zarr_format=zarr_format,
                                **kwargs)
        data = values(dtype, shape, seed)
        # Leave the last chunk along the first dimension unwritten.
        written = tuple(slice(0, s - (s % c or c)) if i == 0 else slice(None)
                        for i, (s, c) in enumerate(zip(shape, chunks)))
        arr[written] = data[written]
        got = arr[...]
        expected = np.ascontiguousarray(got, dtype=got.dtype.newbyteorder("="))
        bin_name = f"expected/{len(manifest)}.bin"
        with open(os.path.join(out_dir, bin_name), "wb") as f:
            f.write(expected.tobytes())
        manifest.append(f"/{path} {kind_name(dtype)} {bin_name}")

    # Zarr v3.
    for endian in ["little", "big"]:
        add(f"v3/utf32_{endian}", "<U5", (7, 3), (3, 2), "é", serializer=BytesCodec(endian=endian),
            seed=1)
    add("v3/utf32_zstd", "<U3", (10,), (4,), "", compressors=[ZstdCodec(level=3)], seed=2)
    add("v3/bytes", "S6", (9,), (4,), b"hi", seed=3)
    add("v3/raw", "V3", (9,), (4,), b"\x01\x02\x03", seed=4)
    for unit in ["ns", "10ms", "D", "s"]:
        add(f"v3/datetime_{unit}", f"M8[{unit}]", (9,), (4,), np.datetime64("NaT", unit),
            seed=5)
    add("v3/timedelta_big", "m8[us]", (9,), (4,), np.timedelta64(7, "us"),
        serializer=BytesCodec(endian="big"), seed=6)
    add("v3/structured", [("a", "<u2"), ("b", "i1"), ("c", "<f8")], (9,), (4,),
        (513, -1, 2.5), seed=7)
    add("v3/zfpy", "float64", (20, 30), (8, 16), 0.0, serializer=ZFPY(mode=4, tolerance=1e-3),
        compressors=None, seed=8)
    add("v3/zfpy_reversible", "int32", (40,), (16,), 0, serializer=ZFPY(),
        compressors=None, seed=9)
    add("v3/pcodec", "float32", (20, 30), (8, 16), 0.0, serializer=PCodec(level=8),
        compressors=None, seed=10)
    add("v3/pcodec_i64", "int64", (100,), (40,), 7, serializer=PCodec(level=3, mode_spec="classic"),
        compressors=None, seed=11)

    # Zarr v2.
    add("v2/utf32_le", "<U4", (7,), (3,), "xy", zarr_format=2, compressors=None, seed=21)
    add("v2/utf32_be", ">U4", (7,), (3,), "", zarr_format=2, compressors=None, seed=22)
    add("v2/bytes", "|S5", (7,), (3,), b"ab", zarr_format=2, seed=23)
    add("v2/datetime", "<M8[ms]", (7,), (3,), np.datetime64("NaT", "ms"), zarr_format=2, seed=24)
    add("v2/timedelta_be", ">m8[10s]", (7,), (3,), np.timedelta64(3, "10s"), zarr_format=2,
        compressors=None, seed=25)
    add("v2/structured", [("x", ">u2"), ("y", "<f4"), ("z", "<i2", (2,)),
                          ("n", [("p", "|u1"), ("q", ">i4")])], (7,), (3,), bytes(range(1, 16)),
        zarr_format=2, compressors=None, seed=26)
    add("v2/zfpy", "<f8", (20, 30), (8, 16), 0.0, zarr_format=2,
        compressors=numcodecs.ZFPY(mode=4, tolerance=1e-3), seed=27)
    add("v2/pcodec", "<i4", (100,), (40,), 0, zarr_format=2,
        compressors=numcodecs.PCodec(level=8), seed=28)

    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"wrote {len(manifest)} arrays")


if __name__ == "__main__":
    main(sys.argv[1], use_zarrs="--zarrs" in sys.argv[2:])
