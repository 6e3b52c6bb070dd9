"""zarr-python 3.4 reads the arrays libzarr wrote with the numcodecs.* v3 codecs
(numcodecs_v3 write), value for value, and compares the stored chunks with its own.

Usage: python_read.py DATA_DIR

For each manifest line `<name> <data type> <codec name> <same>`: c/<name> must open in
zarr-python, read back exactly expected/<name>.bin, keep `<codec name>` in its zarr.json,
and store the same set of chunk keys as py/<name>. When <same> is 1 every chunk must be
byte-identical to zarr-python's own; for compressors (0) the identical ones are counted.
"""

import json
import os
import sys
import warnings

import numpy as np
import zarr

warnings.simplefilter("ignore")

data = sys.argv[1]
failures = 0
passes = 0


def chunks(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f != "zarr.json":
                full = os.path.join(dirpath, f)
                with open(full, "rb") as fh:
                    out[os.path.relpath(full, root)] = fh.read()
    return out


with open(os.path.join(data, "manifest.txt")) as manifest:
    entries = [line.split() for line in manifest if line.strip()]

for name, dtype, codec, same in entries:
    try:
        array = zarr.open_array(zarr.storage.LocalStore(os.path.join(data, "c")), path=name,
                                mode="r")
        got = np.ascontiguousarray(array[...])
        with open(os.path.join(data, "expected", name + ".bin"), "rb") as f:
            expected = f.read()
        if got.dtype != np.dtype(dtype):
            raise AssertionError(f"dtype {got.dtype}, expected {dtype}")
        if got.tobytes() != expected:
            raise AssertionError("values differ from zarr-python's own array")
        with open(os.path.join(data, "c", name, "zarr.json")) as f:
            names = [c["name"] if isinstance(c, dict) else c for c in json.load(f)["codecs"]]
        if codec not in names:
            raise AssertionError(f"zarr.json codecs {names} lost {codec}")
        mine, theirs = chunks(os.path.join(data, "c", name)), chunks(os.path.join(data, "py", name))
        if sorted(mine) != sorted(theirs):
            raise AssertionError(f"chunk keys {sorted(mine)}, zarr-python's {sorted(theirs)}")
        identical = sum(mine[k] == theirs[k] for k in mine)
        if same == "1" and identical != len(mine):
            raise AssertionError(f"only {identical} of {len(mine)} chunks byte-identical")
        passes += 1
        print(f"ok   {name} ({codec}; {identical}/{len(mine)} chunks byte-identical)")
    except Exception as e:  # report every array, then fail
        failures += 1
        print(f"FAIL {name} ({codec}): {e!r}", file=sys.stderr)

print(f"{passes} passed, {failures} failed")
sys.exit(1 if failures or not passes else 0)
