"""zarr-python 3.4 writes the arrays that zarr-python 3.1.6 could not, for libzarr to read
byte for byte (interop.py312.python_writes -> interop.py312.c_reads_python).

Usage: zarr_python_write.py OUT_DIR

- `struct`: nested fields, the big-endian `bytes` codec, dict fill values (also 2-d with
  zstd, little-endian);
- `scale_offset`: integer (exact) and float, and float64 -> scale_offset -> cast_value
  int16 (the packing the codec pair exists for);
- `cast_value` (through cast-value-rs): float32 -> uint8 clamped, float64 -> int16 with a
  NaN scalar map, float64 -> uint8 and int32 -> int8 wrapping, and one float64 -> int8
  array per rounding mode (values at .5 and beyond the range);
- `rectilinear` chunk grids: 1-d with run-length pairs and a last chunk past the shape,
  2-d varying along both axes, chunks never written, and shards of a rectilinear grid;
- `string` and `bytes` in shards (`shards=`): unicode, inner chunks of fill values only
  (left out of the shard), shards never written, the index at the start with zstd.

Every array has chunks (or inner chunks) never written. OUT_DIR gets store/, expected/<n>
(what zarr-python reads back, C order: .bin with host byte order for fixed-size elements,
.arrow for variable-length ones: u64le n, n + 1 u64le offsets, the bytes), input/<n> (the
values written, whole array, same formats) and manifest.txt (`<node path> <libzarr data
type name> <expected file> <input file> <regions written>`, the regions as JSON
[[[start, stop], ...per dimension], ...]), read by py312_interop.c, which checks the
values and writes the same input under the same zarr.json into rewrite/ for
zarr_python_read.py --compare-rewrite to compare the stored bytes.
"""

import json
import os
import shutil
import struct
import sys
import warnings

import numpy as np
import zarr
from zarr.codecs import BytesCodec, CastValue, ScaleOffset, ZstdCodec
from zarr.core.dtype import VariableLengthBytes
from zarr.core.metadata.v3 import RectilinearChunkGridMetadata

warnings.simplefilter("ignore")
# zarr-python 3.4 writes rectilinear grids only when asked to (experimental).
zarr.config.set({"array.rectilinear_chunks": True})

WORDS = ["", "a", "zarr", "\u00e9t\u00e9", "\u65e5\u672c\u8a9e", "\U0001F600 grin",
         "quote \" and \\ backslash", "line\nbreak", "x" * 70]


def arrow(elements):
    """u64le n, n + 1 u64le offsets, the bytes."""
    offsets, data = [0], bytearray()
    for element in elements:
        data += element.encode("utf-8") if isinstance(element, str) else bytes(element)
        offsets.append(len(data))
    return struct.pack("<Q", len(elements)) + struct.pack(f"<{len(offsets)}Q", *offsets) + data


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype.fields is not None:
        out = np.zeros(n, dtype=dtype)
        for k, name in enumerate(dtype.names):
            out[name] = values(dtype.fields[name][0], (n,), seed + 1 + k)
        return out.reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype).reshape(shape)
    return np.cumsum(rng.normal(0, 3, n)).astype(dtype).reshape(shape)


def main(out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    store_dir = os.path.join(out_dir, "store")
    os.makedirs(os.path.join(out_dir, "expected"))
    os.makedirs(os.path.join(out_dir, "input"))
    manifest = []

    def add(path, kind, data, written, **kwargs):
        """Create `path`, write `data[region]` for each region of `written` (a tuple of
        slices, or a list of them), record what zarr-python reads back and the input."""
        arr = zarr.create_array(store=store_dir, name=path, shape=data.shape, **kwargs)
        regions = [r if isinstance(r, tuple) else (r,)
                   for r in (written if isinstance(written, list) else [written])]
        for region in regions:
            arr[region] = data[region]
        got = arr[...]
        n = len(manifest)
        if kind in ("string", "bytes"):
            name, source = f"expected/{n}.arrow", f"input/{n}.arrow"
            blobs = [arrow(list(np.asarray(a).reshape(-1))) for a in (got, data)]
        else:
            name, source = f"expected/{n}.bin", f"input/{n}.bin"
            blobs = [np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("=")).tobytes()
                     for a in (got, data)]
        for file, blob in zip((name, source), blobs):
            with open(os.path.join(out_dir, file), "wb") as f:
                f.write(blob)
        spans = [[[r.indices(s)[0], r.indices(s)[1]] for r, s in zip(region, data.shape)]
                 for region in regions]
        manifest.append(f"/{path} {kind} {name} {source} {json.dumps(spans, separators=(',', ':'))}")

    # struct: nested, big-endian bytes codec, dict fill value; chunk 2 never written.
    nested = np.dtype([("a", "<u2"), ("b", [("x", "i1"), ("y", "<f8")]), ("c", "<f4")])
    add("struct/nested_be", "struct", values(nested, (7,), 1), np.s_[0:4], chunks=(3,),
        dtype=nested, fill_value=(513, (-3, 1.5), -0.25), serializer=BytesCodec(endian="big"),
        compressors=None)
    flat = np.dtype([("i", "<i4"), ("f", "<f8"), ("u", "u1")])
    add("struct/flat_zstd", "struct", values(flat, (5, 4), 2), np.s_[0:4, 0:3], chunks=(2, 3),
        dtype=flat, fill_value=(-7, float("nan"), 255), compressors=[ZstdCodec(level=3)])

    # scale_offset: integers exactly ((x - 100) * 3 must fit int32), floats rounded.
    ints = (np.arange(-20, 25, dtype="int32") * 7).reshape(5, 9)
    add("scale_offset/int32", "int32", ints, np.s_[0:4, :], chunks=(2, 4), dtype="int32",
        fill_value=100, filters=[ScaleOffset(offset=100, scale=3)], compressors=None)
    add("scale_offset/float64", "float64", values("float64", (11,), 3), np.s_[0:8],
        chunks=(4,), dtype="float64", fill_value=0.5,
        filters=[ScaleOffset(offset=1000.5, scale=0.25)], compressors=None)
    # The pair the codecs exist for: float64 packed into int16 steps of 0.01 around 20.
    temps = np.round(20 + np.cumsum(np.random.default_rng(4).normal(0, 0.5, 24)), 2)
    add("scale_offset/packed_int16", "float64", temps.reshape(4, 6), np.s_[0:3, :],
        chunks=(2, 3), dtype="float64", fill_value=20.0,
        filters=[ScaleOffset(offset=20, scale=100),
                 CastValue(data_type="int16", rounding="nearest-even", out_of_range="clamp")],
        compressors=None)

    # cast_value: float32 -> uint8 clamped (values below 0 and above 255, halves).
    f32 = np.array([-5.0, 0.5, 1.5, 2.5, 254.5, 255.5, 300.0, 17.25, -0.5, 128.0],
                   dtype="float32")
    add("cast_value/float32_uint8_clamp", "float32", f32, np.s_[0:8], chunks=(4,),
        dtype="float32", fill_value=0.0,
        filters=[CastValue(data_type="uint8", rounding="nearest-even", out_of_range="clamp")],
        compressors=None)
    # float64 -> int16, NaN stored as -32768 and read back as NaN; column 3 and the row
    # past the shape are the NaN fill value inside written chunks, so mapped too.
    f64 = np.array([[np.nan, 1.0, -2.0, 3.0], [1000.0, np.nan, -32767.0, 32767.0],
                    [0.0, -0.0, 7.0, np.nan]], dtype="float64")
    add("cast_value/float64_int16_nan", "float64", f64, np.s_[:, 0:3], chunks=(2, 2),
        dtype="float64", fill_value=float("nan"),
        filters=[CastValue(data_type="int16",
                           scalar_map={"encode": [("NaN", -32768)],
                                       "decode": [(-32768, "NaN")]})],
        compressors=None)
    # out_of_range "wrap": modulo 256 after rounding, from floats and from integers.
    wraps = np.array([300.0, -1.0, 256.5, 255.5, -129.0, 1000.25, 0.0, 511.0], dtype="float64")
    add("cast_value/float64_uint8_wrap", "float64", wraps, np.s_[0:7], chunks=(3,),
        dtype="float64", fill_value=0.0,
        filters=[CastValue(data_type="uint8", out_of_range="wrap")], compressors=None)
    add("cast_value/int32_int8_wrap", "int32", np.arange(-300, 300, 37, dtype="int32"),
        np.s_[2:15], chunks=(4,), dtype="int32", fill_value=0,
        filters=[CastValue(data_type="int8", out_of_range="wrap")], compressors=None)
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.25, 1.75, 126.9, -127.9, 3.0,
                       -3.0], dtype="float64")
    for mode in ["nearest-even", "towards-zero", "towards-positive", "towards-negative",
                 "nearest-away"]:
        add(f"cast_value/round_{mode}", "float64", halves, np.s_[0:10], chunks=(5,),
            dtype="float64", fill_value=0.0,
            filters=[CastValue(data_type="int8", rounding=mode, out_of_range="clamp")],
            compressors=None)

    # rectilinear: chunk lengths 3,3,3 (a run-length pair) then 5 reaching past the end
    # (shape 10 covers 9 + 1 of it); chunk 1 never written.
    add("rectilinear/1d_pairs", "int16", np.arange(10, dtype="int16") * 11,
        [np.s_[0:3], np.s_[6:10]],
        chunks=RectilinearChunkGridMetadata(chunk_shapes=((3, 3, 3, 5),)), dtype="int16",
        fill_value=-1, compressors=None)
    add("rectilinear/2d", "float32", values("float32", (10, 7), 5), np.s_[0:5, :],
        chunks=[[2, 2, 2, 4], [4, 3]], dtype="float32", fill_value=-9.5,
        compressors=[ZstdCodec(level=1)])
    add("rectilinear/2d_edges_past", "uint16", values("uint16", (9, 6), 6), np.s_[2:9, 0:5],
        chunks=RectilinearChunkGridMetadata(chunk_shapes=((1, 3, 7), 4)), dtype="uint16",
        fill_value=7, compressors=None)

    # Shards on a rectilinear grid (4 then 8 rows, inner chunks 2 x 3): rows 1..8 written,
    # so the last shard's bottom inner chunks are fill values only and left out.
    add("rectilinear/sharded", "int32", values("int32", (12, 6), 8), np.s_[1:9, :],
        chunks=(2, 3), shards=[[4, 8], [6]], dtype="int32", fill_value=-1, compressors=None)

    # Variable-length elements in shards: rows 1..5, columns 0..3 written (inner chunks of
    # fill values only, and shards, left out); unicode throughout.
    rng = np.random.default_rng(7)
    text = np.array([WORDS[i] for i in rng.integers(0, len(WORDS), 63)], dtype=object)
    add("vlen/strings_sharded", "string", text[:35].reshape(7, 5), np.s_[1:6, 0:4],
        chunks=(2, 2), shards=(4, 4), dtype=str, fill_value="", compressors=None)
    add("vlen/strings_sharded_start_zstd", "string", text[:54].reshape(9, 6), np.s_[0:9, 3:6],
        chunks=(2, 3), shards={"shape": (4, 6), "index_location": "start"}, dtype=str,
        fill_value="\u2205", compressors=[ZstdCodec(level=3, checksum=True)])
    blobs = np.array([bytes(rng.integers(0, 256, rng.integers(0, 30), dtype=np.uint8))
                      for _ in range(11)], dtype=object)
    add("vlen/bytes_sharded", "bytes", blobs, np.s_[1:7], chunks=(2,), shards=(4,),
        dtype=VariableLengthBytes(), fill_value=b"", compressors=None)

    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"wrote {len(manifest)} arrays")


if __name__ == "__main__":
    main(sys.argv[1])
