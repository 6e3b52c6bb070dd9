"""Check with tensorstore what libzarr wrote (interop with tensorstore, libzarr -> tensorstore).

Usage: tensorstore_read.py DATA_DIR

DATA_DIR is what write_c made (store/, manifest.txt, expected/<n>.bin). Every array must
read in tensorstore byte-identical to the expectation. Data types tensorstore does not
implement (raw bits `r<N>`) are reported as skipped.
"""

import os
import sys

import numpy as np
import tensorstore as ts


def main(data_dir):
    store = os.path.join(data_dir, "store")
    passed, failed, skipped = 0, [], []
    with open(os.path.join(data_dir, "manifest.txt")) as manifest:
        entries = [line.split() for line in manifest if line.strip()]
    for path, dtype, bin_name in entries:
        with open(os.path.join(data_dir, bin_name), "rb") as f:
            expected = f.read()
        spec = {"driver": "zarr3",
                "kvstore": {"driver": "file", "path": os.path.join(store, path.lstrip("/"))}}
        try:
            values = ts.open(spec, open=True, read=True).result()[...].read().result()
        except Exception as e:
            if dtype.startswith("r"):
                skipped.append(f"{path}: tensorstore cannot read data type {dtype}: {e}")
                continue
            failed.append(f"{path}: {type(e).__name__}: {e}")
            continue
        got = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("=")).tobytes()
        if got == expected and np.dtype(dtype) == values.dtype.newbyteorder("="):
            passed += 1
            print(f"ok   {path} ({dtype})")
        else:
            failed.append(f"{path}: values or data type differ ({values.dtype} vs {dtype})")
    for note in skipped:
        print(f"skip {note}")
    for failure in failed:
        print(f"FAIL {failure}")
    print(f"{passed} passed, {len(failed)} failed")
    return 0 if not failed and passed > 1 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
