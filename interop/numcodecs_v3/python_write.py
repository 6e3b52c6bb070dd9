"""zarr-python 3.4 writes one array per numcodecs.* v3 codec that libzarr implements, with
the numcodecs 0.17 classes of `zarr.codecs.numcodecs` (the registry's `numcodecs.<name>`).

Usage: python_write.py OUT_DIR

OUT_DIR gets py/<name> (the arrays: 20x30, chunks 8x16, so with edge chunks; a fill value;
rows 16..19 never written, so their chunks are not stored), expected/<name>.bin (the values
zarr-python reads back: C order, native byte order) and manifest.txt, lines
`<name> <data type> <codec name> <same>`, where <same> is 1 when libzarr must store the very
same chunk bytes (filters, checksums, shuffle, pcodec and zfpy: no free choice in the
format) and 0 for compressors whose output may legitimately differ between libraries.
"""

import os
import shutil
import sys
import warnings

import numpy as np
import zarr
import zarr.codecs.numcodecs as nc
from zarr.codecs import BytesCodec

warnings.simplefilter("ignore")  # numcodecs.zarr3 warns that its API may change

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(os.path.join(out, "expected"))
store = zarr.storage.LocalStore(os.path.join(out, "py"))

SHAPE = (20, 30)
CHUNKS = (8, 16)


def values(dtype, seed):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, SHAPE).astype(bool)
    if dtype.kind == "f":
        # Smooth data with noise, so that compressors and filters have work to do.
        base = np.linspace(-50.0, 250.0, num=int(np.prod(SHAPE))).reshape(SHAPE)
        return (base + rng.normal(0, 0.5, SHAPE)).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 100000)
    walk = np.cumsum(rng.integers(0, 9, SHAPE), axis=1)
    return (walk % (int(hi) - int(lo)) + int(lo)).astype(dtype)


# (name, dtype, fill value, filters, serializer, compressors, codec name, same bytes)
CASES = [
    ("delta", "int32", 7, [nc.Delta(dtype="<i4")], "auto", None, "numcodecs.delta", 1),
    ("fixedscaleoffset", "float64", 1.5,
     [nc.FixedScaleOffset(offset=100, scale=10, dtype="<f8", astype="<i4")], "auto", None,
     "numcodecs.fixedscaleoffset", 1),
    ("quantize", "float64", 0.25, [nc.Quantize(digits=3, dtype="<f8")], "auto", None,
     "numcodecs.quantize", 1),
    ("bitround", "float32", -1.0, [nc.BitRound(keepbits=9)], "auto", None,
     "numcodecs.bitround", 1),
    ("astype", "float64", 2.0, [nc.AsType(encode_dtype="<f4", decode_dtype="<f8")], "auto",
     None, "numcodecs.astype", 1),
    ("pcodec", "int64", 3, None, nc.PCodec(level=8), None, "numcodecs.pcodec", 1),
    ("zfpy", "float64", 0.0, None,
     nc.ZFPY(mode=3, tolerance=-1, rate=-1, precision=40), None, "numcodecs.zfpy", 1),
    ("zlib", "int16", 5, None, "auto", [nc.Zlib(level=6)], "numcodecs.zlib", 0),
    ("gzip", "uint32", 5, None, "auto", [nc.GZip(level=7)], "numcodecs.gzip", 0),
    ("bz2", "float32", 0.5, None, "auto", [nc.BZ2(level=3)], "numcodecs.bz2", 0),
    ("lzma", "int64", 9, None, "auto", [nc.LZMA(preset=4)], "numcodecs.lzma", 0),
    ("lz4", "uint16", 1, None, "auto", [nc.LZ4(acceleration=2)], "numcodecs.lz4", 0),
    ("zstd", "float64", 1.0, None, "auto", [nc.Zstd(level=5, checksum=True)],
     "numcodecs.zstd", 0),
    ("blosc", "float32", 0.0, None, "auto",
     [nc.Blosc(cname="zstd", clevel=4, shuffle=2, blocksize=0)], "numcodecs.blosc", 0),
    ("blosc_lz4", "int32", 4, None, "auto", [nc.Blosc()], "numcodecs.blosc", 0),
    ("shuffle", "float64", 0.0, None, "auto", [nc.Shuffle(elementsize=8)],
     "numcodecs.shuffle", 1),
    ("adler32", "int8", -3, None, "auto", [nc.Adler32()], "numcodecs.adler32", 1),
    ("crc32", "uint8", 200, None, "auto", [nc.CRC32(location="end")], "numcodecs.crc32", 1),
    ("crc32c", "int16", 0, None, "auto", [nc.CRC32C()], "numcodecs.crc32c", 1),
    ("fletcher32", "uint64", 11, None, "auto", [nc.Fletcher32()], "numcodecs.fletcher32", 1),
    ("jenkins_lookup3", "int32", 1, None, "auto", [nc.JenkinsLookup3(initval=5)],
     "numcodecs.jenkins_lookup3", 1),
    ("jenkins_lookup3_default", "float32", 0.0, None, "auto", [nc.JenkinsLookup3()],
     "numcodecs.jenkins_lookup3", 1),
    ("packbits", "bool", False, [nc.PackBits()], "auto", [nc.Zstd(level=1)],
     "numcodecs.packbits", 0),
    # A chain of several: filter, compressor and checksum together.
    ("chain", "float64", 0.0, [nc.Quantize(digits=2, dtype="<f8")], "auto",
     [nc.Shuffle(elementsize=8), nc.Zlib(level=1), nc.CRC32()], "numcodecs.quantize", 0),
]

lines = []
for i, (name, dtype, fill, filters, serializer, compressors, codec, same) in enumerate(CASES):
    kwargs = dict(store=store, name=name, shape=SHAPE, chunks=CHUNKS, dtype=dtype,
                  fill_value=fill, serializer=serializer, zarr_format=3)
    kwargs["filters"] = filters if filters else None
    kwargs["compressors"] = compressors if compressors else None
    a = zarr.create_array(**kwargs)
    a[:16, :] = values(dtype, 100 + i)[:16, :]
    got = zarr.open_array(store, path=name, mode="r")[...]
    with open(os.path.join(out, "expected", name + ".bin"), "wb") as f:
        f.write(np.ascontiguousarray(got).tobytes())
    lines.append(f"{name} {dtype} {codec} {same}\n")

with open(os.path.join(out, "manifest.txt"), "w") as f:
    f.writelines(lines)
print(f"zarr-python {zarr.__version__} wrote {len(lines)} arrays with numcodecs.* codecs")
