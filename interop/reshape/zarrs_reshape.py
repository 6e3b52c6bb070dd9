"""The `reshape` codec between zarrs (the zarrs codec pipeline for zarr-python, 0.2.3) and
libzarr, both ways.

Usage: zarrs_reshape.py write OUT_DIR | zarrs_reshape.py read OUT_DIR

zarr-python 3.1.6 does not know `reshape`, so it would refuse the metadata before the
zarrs pipeline (which implements the codec) sees it: a placeholder codec class registered
under the name lets zarr-python parse the document, and the strict zarrs pipeline does all
the encoding and decoding (the placeholder raises if zarr-python ever calls it).

write: OUT_DIR gets py/<name> (24x32 arrays in 8x16 chunks, rows 0..15 written through
zarrs, rows 16..23 left unstored; no edge chunks, because zarrs 0.2.3 cannot decode part of
a chunk through reshape: "partial decoding with the reshape codec is not yet supported"), expected/<name>.bin (what zarrs reads back, C
order, native byte order) and manifest.txt (`<name> <data type> reshape <same>`), the
layout interop/numcodecs_v3/numcodecs_v3.c reads and writes.
read: zarrs reads c/<name> (libzarr's copies) and compares them with expected/<name>.bin
and, byte for byte, their chunks with py/<name>'s (no compressor in these chains, or zstd
from the same library).
"""

import json
import os
import shutil
import sys
from dataclasses import dataclass

import numpy as np
import zarr
from zarr.abc.codec import ArrayArrayCodec
from zarr.registry import register_codec


@dataclass(frozen=True)
class ReshapePlaceholder(ArrayArrayCodec):
    configuration: str = "{}"
    is_fixed_size = True

    @classmethod
    def from_dict(cls, data):
        return cls(configuration=json.dumps(data.get("configuration", {})))

    def to_dict(self):
        return {"name": "reshape", "configuration": json.loads(self.configuration)}

    def resolve_metadata(self, chunk_spec):
        raise NotImplementedError("reshape placeholder: only the zarrs pipeline encodes")

    def compute_encoded_size(self, input_byte_length, chunk_spec):
        return input_byte_length

    async def _decode_single(self, chunk_array, chunk_spec):
        raise NotImplementedError("reshape placeholder: only the zarrs pipeline decodes")

    async def _encode_single(self, chunk_array, chunk_spec):
        raise NotImplementedError("reshape placeholder: only the zarrs pipeline encodes")


register_codec("reshape", ReshapePlaceholder)
zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                 "codec_pipeline.strict": True})

LE = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
# (name, data type, fill value, codecs)
CASES = [
    ("flat", "int32", 7, [{"name": "reshape", "configuration": {"shape": [-1]}}, LE]),
    ("merged", "float64", 0.5, [{"name": "reshape", "configuration": {"shape": [[0, 1]]}}, LE]),
    # zarrs 0.2.3 refuses the equivalent [2, 4, [1]] ("data did not match any variant of
    # untagged enum ReshapeCodecConfiguration"), which the spec allows and libzarr reads.
    ("split", "uint16", 3,
     [{"name": "reshape", "configuration": {"shape": [2, 4, 16]}}, LE, ZSTD]),
    ("split_last", "int16", -1,
     [{"name": "reshape", "configuration": {"shape": [[0], 4, -1]}}, LE]),
    ("then_transpose", "float32", 1.0,
     [{"name": "reshape", "configuration": {"shape": [4, -1]}},
      {"name": "transpose", "configuration": {"order": [1, 0]}}, LE]),
]


def values(dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.normal(10, 3, (24, 32)).astype(dtype)
    return rng.integers(0, 1000, (24, 32)).astype(dtype)


def chunks(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f != "zarr.json":
                with open(os.path.join(dirpath, f), "rb") as fh:
                    out[os.path.relpath(os.path.join(dirpath, f), root)] = fh.read()
    return out


mode, out = sys.argv[1], sys.argv[2]
if mode == "write":
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "expected"))
    lines = []
    for i, (name, dtype, fill, codecs) in enumerate(CASES):
        path = os.path.join(out, "py", name)
        os.makedirs(path)
        with open(os.path.join(path, "zarr.json"), "w") as f:
            json.dump({"zarr_format": 3, "node_type": "array", "shape": [24, 32],
                       "data_type": dtype,
                       "chunk_grid": {"name": "regular",
                                      "configuration": {"chunk_shape": [8, 16]}},
                       "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
                       "codecs": codecs, "attributes": {}}, f)
        a = zarr.open_array(path, mode="r+")
        a[:16, :] = values(dtype, 200 + i)[:16, :]
        got = zarr.open_array(path, mode="r")[...]
        with open(os.path.join(out, "expected", name + ".bin"), "wb") as f:
            f.write(np.ascontiguousarray(got).tobytes())
        lines.append(f"{name} {dtype} reshape 1\n")
    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.writelines(lines)
    print(f"zarrs wrote {len(lines)} arrays with reshape")
else:
    failures = 0
    for name, dtype, _, _ in CASES:
        try:
            got = zarr.open_array(os.path.join(out, "c", name), mode="r")[...]
            with open(os.path.join(out, "expected", name + ".bin"), "rb") as f:
                if np.ascontiguousarray(got).tobytes() != f.read():
                    raise AssertionError("values differ from zarrs' own array")
            mine = chunks(os.path.join(out, "c", name))
            theirs = chunks(os.path.join(out, "py", name))
            if mine != theirs:
                raise AssertionError(f"stored chunks differ: {sorted(mine)} vs {sorted(theirs)}")
            print(f"ok   {name} ({len(mine)} chunks byte-identical)")
        except Exception as e:
            failures += 1
            print(f"FAIL {name}: {e!r}", file=sys.stderr)
    print(f"{len(CASES) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)
