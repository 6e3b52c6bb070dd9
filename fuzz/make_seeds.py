#!/usr/bin/env python3
"""Writes the fuzz targets' seed inputs into fuzz/seeds-raw/<target>/ (not committed).

Sources: the peer stores vendored in tests/data/corpus (and /work/shared/corpus when it is
there), and arrays libzarr itself writes with every codec it has (through the C API, with
ctypes: pass the path of libzarr.so). `scripts/fuzz.sh --make-seeds` runs this and then
minimises the result into fuzz/seeds/<target>/, which is what is committed.

Input formats (see src/fuzzing.rs and fuzz/src/lib.rs):
- container: records [key length u8][key][value length u32 LE][value];
- metadata: a container of metadata documents;
- codec_chain: an array metadata document on one line, a newline, one stored chunk;
- zip: a zip archive;
- c_api: 8 control bytes, then a container of a whole store;
- reference_json: a Kerchunk JSON reference set (version 0 or 1);
- reference_parquet: a container of a Kerchunk Parquet reference directory's files.

Usage: make_seeds.py LIBZARR_SO OUT_DIR
"""

import ctypes
import hashlib
import io
import json
import os
import pathlib
import struct
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPORA = [ROOT / "tests/data/corpus", pathlib.Path("/work/shared/corpus")]
METADATA_NAMES = {"zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"}
MAX_SEED = 4 * 1024  # bytes per seed
MAX_STORE_FILES = 64


def container(entries):
    out = bytearray()
    for key, value in entries:
        k = key.encode()
        if len(k) > 255:
            continue
        out += bytes([len(k)]) + k + struct.pack("<I", len(value)) + value
    return bytes(out)


def is_metadata(rel):
    name = rel.rsplit("/", 1)[-1]
    return name in METADATA_NAMES or (rel.startswith("meta/") and name.endswith(".json"))


def store_roots():
    """Directories holding a Zarr hierarchy root (zarr.json/.zgroup/.zarray/.zmetadata at
    the top, and no such file in the parent)."""
    for corpus in CORPORA:
        if not corpus.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(corpus):
            dirnames.sort()
            here = pathlib.Path(dirpath)
            if METADATA_NAMES & set(filenames) and not any(
                (here.parent / n).exists() for n in METADATA_NAMES
            ):
                yield here


def store_files(root):
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.endswith((".py", ".md", ".csv", ".png", ".cdl")):
            files.append((path.relative_to(root).as_posix(), path.read_bytes()))
    return files


def seed_name(data):
    return hashlib.sha1(data).hexdigest()[:16]


def write(out, target, data, limit=MAX_SEED):
    if len(data) <= limit:
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        (d / seed_name(data)).write_bytes(data)


def arrays_of(files):
    """(metadata document, smallest chunk) for each array of a store's files."""
    by_key = dict(files)
    for key, value in files:
        name = key.rsplit("/", 1)[-1]
        prefix = key[: -len(name)]
        if name not in ("zarr.json", ".zarray"):
            continue
        try:
            doc = json.loads(value)
        except ValueError:
            continue
        if name == "zarr.json" and doc.get("node_type") != "array":
            continue
        # A chunk of this array: below its prefix, not a metadata document, and not inside
        # a child node (a first path segment that holds node metadata).
        def in_child(k):
            first = k[len(prefix):].split("/")[0]
            return any(f"{prefix}{first}/{m}" in by_key for m in METADATA_NAMES)

        own = [(len(v), k) for k, v in files
               if k.startswith(prefix) and not is_metadata(k) and not in_child(k)]
        if own:
            yield doc, by_key[min(own)[1]]
        else:
            yield doc, b""


def from_corpus(out):
    for root in store_roots():
        files = store_files(root)[:4096]
        meta = [(k, v) for k, v in files if is_metadata(k)]
        write(out, "metadata", container(meta))
        small = [(k, v) for k, v in files if len(v) <= 4096][:MAX_STORE_FILES]
        write(out, "c_api", b"\x00" * 8 + container(small))
        write(out, "c_api", b"\x01\x40\x80\x10\x02\x03\x04\x05" + container(small))
        for doc, chunk in arrays_of(files):
            write(out, "codec_chain", json.dumps(doc).encode() + b"\n" + chunk)
        if len(small) >= 2:
            for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                buf = io.BytesIO()
                with zipfile.ZipFile(buf, "w", method) as z:
                    for k, v in small[:16]:
                        z.writestr(k, v)
                write(out, "zip", buf.getvalue())
    # Single metadata documents (zarr-python's per-codec and fill-value cases).
    for corpus in CORPORA:
        for path in sorted((corpus / "zarr-python").rglob("*.json")) if (corpus / "zarr-python").is_dir() else []:
            value = path.read_bytes()
            for key in ("zarr.json", ".zarray", ".zmetadata"):
                write(out, "metadata", container([(key, value)]))


# Arrays libzarr writes: every codec, in small chunks.
BYTES = '{"name": "bytes", "configuration": {"endian": "little"}}'
BYTES_BE = '{"name": "bytes", "configuration": {"endian": "big"}}'
CHAINS = [
    ("int16", [BYTES]),
    ("float64", [BYTES_BE]),
    ("int32", ['{"name": "transpose", "configuration": {"order": [1, 0]}}', BYTES]),
    ("int32", [BYTES, '{"name": "gzip", "configuration": {"level": 6}}']),
    ("int32", [BYTES, '{"name": "zstd", "configuration": {"level": 3, "checksum": true}}']),
    ("int32", [BYTES, '{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}']),
    ("int32", [BYTES, '{"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 256}}']),
    ("int32", [BYTES, '{"name": "blosc", "configuration": {"cname": "zlib", "clevel": 4, "shuffle": "noshuffle", "typesize": 4, "blocksize": 0}}']),
    ("int32", [BYTES, '{"name": "crc32c"}']),
    ("int32", ['{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3], "codecs": [%s, {"name": "zstd", "configuration": {"level": 1, "checksum": false}}], "index_codecs": [%s, {"name": "crc32c"}], "index_location": "end"}}' % (BYTES, BYTES)]),
    ("int32", ['{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3], "codecs": [%s], "index_codecs": [%s], "index_location": "start"}}' % (BYTES, BYTES)]),
    ("int32", ['{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 6], "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3], "codecs": [%s], "index_codecs": [%s, {"name": "crc32c"}], "index_location": "end"}}], "index_codecs": [%s, {"name": "crc32c"}], "index_location": "end"}}' % (BYTES, BYTES, BYTES)]),
    ("int32", [BYTES, '{"name": "numcodecs.zlib", "configuration": {"level": 1}}']),
    ("int32", [BYTES, '{"name": "numcodecs.gzip", "configuration": {"level": 1}}']),
    ("int32", [BYTES, '{"name": "numcodecs.bz2", "configuration": {"level": 1}}']),
    ("int32", [BYTES, '{"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}']),
    ("int32", [BYTES, '{"name": "numcodecs.lzma", "configuration": {"format": 1, "check": -1, "preset": null, "filters": null}}']),
    ("int32", [BYTES, '{"name": "numcodecs.lzma", "configuration": {"format": 2, "check": -1, "preset": 1, "filters": null}}']),
    ("int32", [BYTES, '{"name": "numcodecs.lzma", "configuration": {"format": 3, "check": -1, "preset": null, "filters": [{"id": 3, "dist": 4}, {"id": 33, "preset": 1}]}}']),
    ("int32", [BYTES, '{"name": "numcodecs.zstd", "configuration": {"level": 1, "checksum": true}}']),
    ("int32", [BYTES, '{"name": "numcodecs.blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}}']),
    ("int32", [BYTES, '{"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}']),
    ("int32", [BYTES, '{"name": "numcodecs.adler32", "configuration": {"location": "start"}}']),
    ("int32", [BYTES, '{"name": "numcodecs.crc32", "configuration": {"location": "end"}}']),
    ("int32", [BYTES, '{"name": "numcodecs.fletcher32"}']),
    ("int32", ['{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}', BYTES]),
    ("float64", ['{"name": "numcodecs.fixedscaleoffset", "configuration": {"offset": 1, "scale": 10, "dtype": "<f8", "astype": "<i2"}}', BYTES]),
    ("float64", ['{"name": "numcodecs.quantize", "configuration": {"digits": 2, "dtype": "<f8"}}', BYTES]),
    ("float32", ['{"name": "numcodecs.bitround", "configuration": {"keepbits": 5}}', BYTES]),
    ("float64", ['{"name": "numcodecs.astype", "configuration": {"encode_dtype": "<f4", "decode_dtype": "<f8"}}', BYTES]),
]


def from_libzarr(out, lib_path):
    lib = ctypes.CDLL(lib_path)
    lib.zarr_last_error_message.restype = ctypes.c_char_p
    sizes = {"int16": 2, "int32": 4, "float32": 4, "float64": 8}
    for data_type, codecs in CHAINS:
        shape, chunks = [6, 9], ([4, 6] if "sharding" in codecs[0] else [3, 4])
        doc = {
            "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": [json.loads(c) for c in codecs],
        }
        with tempfile.TemporaryDirectory() as tmp:
            store, array = ctypes.c_void_p(), ctypes.c_void_p()
            if lib.zarr_store_open_filesystem(tmp.encode(), ctypes.byref(store)) != 0:
                raise SystemExit(lib.zarr_last_error_message().decode())
            if lib.zarr_array_create(store, b"/a", json.dumps(doc).encode(), ctypes.byref(array)) != 0:
                raise SystemExit(f"{codecs}: {lib.zarr_last_error_message().decode()}")
            n = shape[0] * shape[1]
            size = sizes[data_type]
            values = bytes((i * 7 + i // 5) % 251 for i in range(n * size))
            if data_type.startswith("float"):
                fmt = "<%d%s" % (n, "f" if size == 4 else "d")
                values = struct.pack(fmt, *[i * 0.25 - 3 for i in range(n)])
            start = (ctypes.c_uint64 * 2)(0, 0)
            count = (ctypes.c_uint64 * 2)(*shape)
            if lib.zarr_array_write(array, 2, start, count, values, len(values)) != 0:
                raise SystemExit(lib.zarr_last_error_message().decode())
            lib.zarr_array_free(array)
            lib.zarr_store_free(store)
            files = store_files(pathlib.Path(tmp))
        write(out, "c_api", b"\x00\x10\x20\x30\x01\x02\x03\x04" + container(files))
        write(out, "metadata", container([(k, v) for k, v in files if is_metadata(k)]))
        a_doc = dict(files)["a/zarr.json"]
        for key in ("a/c/0/0", "a/c/1/1"):
            chunk = dict(files).get(key)
            if chunk is not None:
                write(out, "codec_chain", json.dumps(json.loads(a_doc)).encode() + b"\n" + chunk)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for k, v in files:
                z.writestr("data.zarr/" + k, v)
        write(out, "zip", buf.getvalue())


REFERENCE_DIR = ROOT / "tests/data/reference"


def from_references(out):
    """Kerchunk's own reference sets (tests/data/reference, see its README), as JSON and as
    Parquet directories, and version 1 sets with templates and gen."""
    refs = json.loads((REFERENCE_DIR / "refs.json").read_text())
    write(out, "reference_json", json.dumps(refs).encode())
    write(out, "reference_json", json.dumps(refs["refs"]).encode())  # version 0
    # A local target the fuzzer can read: a file in the temporary directory.
    target = os.path.join(tempfile.gettempdir(), "libzarr-fuzz-target.bin")
    write(out, "reference_json", json.dumps({
        "version": 1,
        "templates": {"t": target, "n": "x"},
        "gen": [{"key": "{{n}}/{{ i }}.{{ j }}", "url": "{{t}}",
                 "offset": "{{ (i * 2 + j) * 8 // 2 }}", "length": "4",
                 "dimensions": {"i": {"stop": 2}, "j": [0, 1]}}],
        "refs": {".zgroup": {"zarr_format": 2},
                 "x/.zarray": refs["refs"]["x/.zarray"],
                 "w/.zarray": '{"shape":[2],"chunks":[2],"dtype":">f8","compressor":null,'
                              '"filters":null,"fill_value":0,"order":"C","zarr_format":2}',
                 "w/0": "base64:AAAAAAAAAAA/8AAAAAAAAA==",
                 "whole": ["file://" + target]},
    }).encode())
    for name in ("refs.parq", "inline.parq"):
        root = REFERENCE_DIR / name
        files = [(str(p.relative_to(root)), p.read_bytes()) for p in sorted(root.rglob("*"))
                 if p.is_file()]
        # Four small Parquet files: twice the usual seed size.
        write(out, "reference_parquet", container(files), limit=2 * MAX_SEED)


def main():
    lib_path, out = sys.argv[1], pathlib.Path(sys.argv[2])
    from_corpus(out)
    from_libzarr(out, lib_path)
    from_references(out)
    for target in sorted(p.name for p in out.iterdir()):
        files = list((out / target).iterdir())
        print(f"{target}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
