"""zarr-python reads what libzarr wrote with write_c_dtypes.c (interop, direction 2, data
types).

Usage: python_read_dtypes.py DATA_DIR [--zarrs]

With --zarrs, zarr-python runs the zarrs codec pipeline in strict mode (the `zarrs` package,
as the benchmark uses it): arrays whose data type or codecs zarrs does not support are
reported as skipped, the others must read byte-exact through zarrs.

DATA_DIR holds store/, expected/ and manifest.jsonl (see write_c_dtypes.c). Every array
must open in zarr-python with the numpy dtype of the manifest and read byte-identical
values (the unwritten chunk as the fill value); for zfpy and pcodec arrays the stored
first chunk must also equal, byte for byte, what numcodecs encodes from its values.
"""

import json
import os
import sys
import warnings

import numcodecs
import numpy as np
import zarr

warnings.simplefilter("ignore")


def numpy_dtype(description):
    if isinstance(description, list):
        return np.dtype([tuple(field) for field in description])
    return np.dtype(description)


def numcodecs_of(arr):
    """The numcodecs codec that compressed the array's chunks (v3: the numcodecs.* array
    to bytes codec; v2: the compressor)."""
    meta = arr.metadata.to_dict()
    if meta["zarr_format"] == 2:
        return numcodecs.get_codec(meta["compressor"])
    codec = meta["codecs"][0]
    config = dict(codec.get("configuration") or {})
    config["id"] = codec["name"].removeprefix("numcodecs.")
    return numcodecs.get_codec(config)


def main(data_dir, use_zarrs=False):
    if use_zarrs:
        import zarrs  # noqa: F401  (registers the pipeline)

        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                         "codec_pipeline.strict": True})
    store = os.path.join(data_dir, "store")
    passed, failed, skipped = 0, [], []
    with open(os.path.join(data_dir, "manifest.jsonl"), encoding="utf-8") as manifest:
        entries = [json.loads(line) for line in manifest if line.strip()]
    for entry in entries:
        path = entry["path"]
        with open(os.path.join(data_dir, entry["bin"]), "rb") as f:
            expected_bytes = f.read()
        try:
            arr = zarr.open_array(store=store, path=path.lstrip("/"), mode="r")
            values = arr[...]
        except Exception as e:
            if use_zarrs and type(e).__name__.startswith("Unsupported"):
                skipped.append(f"{path}: zarrs does not support it ({type(e).__name__})")
                continue
            failed.append(f"{path}: {type(e).__name__}: {e}")
            continue
        want = numpy_dtype(entry["dtype"])
        native = values.dtype.newbyteorder("=")
        got = np.ascontiguousarray(values, dtype=native).tobytes()
        if native != want.newbyteorder("="):
            failed.append(f"{path}: dtype {values.dtype}, expected {want}")
            continue
        if got != expected_bytes:
            failed.append(f"{path}: values differ: {values!r}")
            continue
        if entry.get("bytecheck"):
            key = "c/0" if arr.metadata.zarr_format == 3 else "0"
            with open(os.path.join(store, path.lstrip("/"), key), "rb") as f:
                stored = f.read()
            chunk = np.ascontiguousarray(values[: arr.chunks[0]])
            encoded = bytes(numcodecs_of(arr).encode(chunk))
            if encoded != stored:
                failed.append(f"{path}: stored chunk ({len(stored)} bytes) differs from "
                              f"numcodecs' encoding ({len(encoded)} bytes)")
                continue
        passed += 1
        print(f"ok   {path} ({values.dtype}{', byte-identical chunk' if entry.get('bytecheck') else ''})")
    for note in skipped:
        print(f"skip {note}")
    for failure in failed:
        print(f"FAIL {failure}")
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 0 if not failed and passed > 1 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], use_zarrs="--zarrs" in sys.argv[2:]))
