"""zarr-python writes arrays of variable-length strings and bytes for libzarr to read
(interop, direction 1, variable-length elements).

Usage: python_write_vlen.py OUT_DIR

Zarr v3 `string` (vlen-utf8, with and without zstd, a non-empty fill value, 2-d with ragged
edge chunks) and zarr-python's `variable_length_bytes` (vlen-bytes); Zarr v2 `|O` with the
vlen-utf8 and vlen-bytes object codecs; v3 `string` and `bytes` in shards (`shards=`: a
`sharding_indexed` codec with the vlen codec inside, its index at the end or the start).
Every array has chunks (or shards, or inner chunks) that were never written.
(The zarrs codec pipeline, `zarrs` 0.2.3, refuses both data types: UnsupportedDataTypeError.)

OUT_DIR gets store/, expected/<n>.arrow and manifest.txt (`<node path> <string|bytes>
<file>`), the format interop/read_vlen.c reads. An .arrow file holds what zarr-python reads
back, in C order: u64le n, then n + 1 u64le offsets, then the elements' bytes.
"""

import os
import shutil
import struct
import sys
import warnings

import numpy as np
import zarr
from zarr.codecs import ZstdCodec
from zarr.core.dtype import VariableLengthBytes

warnings.simplefilter("ignore")

WORDS = ["", "a", "zarr", "\u00e9t\u00e9", "\u65e5\u672c\u8a9e", "\U0001F600 grin",
         "quote \" and \\ backslash", "line\nbreak", "nul\x00inside", "x" * 300]


def text_values(shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return np.array([WORDS[i] for i in rng.integers(0, len(WORDS), n)],
                    dtype=object).reshape(shape)


def byte_values(shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return np.array([bytes(rng.integers(0, 256, rng.integers(0, 40), dtype=np.uint8))
                     for _ in range(n)], dtype=object).reshape(shape)


def arrow(elements):
    """u64le n, n + 1 u64le offsets, the bytes."""
    offsets, data = [0], bytearray()
    for element in elements:
        data += element.encode("utf-8") if isinstance(element, str) else bytes(element)
        offsets.append(len(data))
    return struct.pack("<Q", len(elements)) + struct.pack(f"<{len(offsets)}Q", *offsets) + data


def main(out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    store_dir = os.path.join(out_dir, "store")
    os.makedirs(os.path.join(out_dir, "expected"))
    manifest = []

    def add(path, kind, shape, chunks, fill_value, written, zarr_format=3, seed=0, **kwargs):
        dtype = str if kind == "string" else VariableLengthBytes()
        data = (text_values if kind == "string" else byte_values)(shape, seed)
        arr = zarr.create_array(store=store_dir, name=path, shape=shape, chunks=chunks,
                                dtype=dtype, fill_value=fill_value, zarr_format=zarr_format,
                                **kwargs)
        arr[written] = data[written]
        got = arr[...]
        name = f"expected/{len(manifest)}.arrow"
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(arrow(list(np.asarray(got).reshape(-1))))
        manifest.append(f"/{path} {kind} {name}")

    # Zarr v3: rows 1..5 and columns 0..3 written, the rest never.
    add("v3/strings", "string", (7, 5), (3, 2), "", np.s_[1:6, 0:4], seed=1)
    add("v3/strings_fill", "string", (6,), (4,), "n/a", np.s_[0:3], compressors=None, seed=2)
    add("v3/strings_zstd", "string", (10,), (4,), "", np.s_[0:8],
        compressors=[ZstdCodec(level=5, checksum=True)], seed=3)
    add("v3/bytes", "bytes", (9,), (4,), b"", np.s_[0:6], seed=4)
    # Sharded (zarr-python 3 puts vlen-utf8 / vlen-bytes and the compressors inside
    # sharding_indexed): shards partly written, edge shards, inner chunks never written.
    add("v3/strings_sharded", "string", (7, 5), (2, 2), "", np.s_[1:6, 0:4], seed=5,
        shards=(4, 4))
    add("v3/strings_sharded_start", "string", (9, 6), (2, 3), "", np.s_[0:9, 3:6], seed=6,
        shards={"shape": (4, 6), "index_location": "start"},
        compressors=[ZstdCodec(level=3, checksum=True)])
    add("v3/bytes_sharded", "bytes", (9,), (2,), b"", np.s_[1:7], seed=7, shards=(4,))
    # Zarr v2 `|O`.
    add("v2/strings", "string", (6, 3), (4, 2), "", np.s_[0:4, :], zarr_format=2, seed=21)
    add("v2/bytes", "bytes", (7,), (3,), b"", np.s_[0:5], zarr_format=2, compressors=None,
        seed=22)

    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"wrote {len(manifest)} arrays")


if __name__ == "__main__":
    main(sys.argv[1])
