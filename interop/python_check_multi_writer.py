"""Check with zarr-python what four libzarr processes wrote at once (multi_writer.c).

Usage: python_check_multi_writer.py DATA_DIR MANIFEST...

DATA_DIR names the store as open_store.h does (DATA_DIR/store, or the s3:// URL of
DATA_DIR/store.url on the loopback server). Each MANIFEST (a file name in DATA_DIR, such
as v3.json) lists the arrays of one run of multi_writer: `{"path", "killed"}`. Element i
(C order) of each array must be i + 1; in the slab of the killed writer (24 rows), if
any, it may also be the fill value 0. Prints the elements lost; exit status 1 if any.
"""

import json
import os
import sys

import numpy as np
import zarr

ROWS, SIDE, WRITERS = 96, 64, 4
SLAB = ROWS // WRITERS


def open_root(data_dir):
    if os.path.exists(os.path.join(data_dir, "store.url")):
        import s3_common
        return s3_common.zarr_store(s3_common.read_prefix(data_dir), read_only=True)
    return os.path.join(data_dir, "store")


def lost_elements(values, killed):
    expected = np.arange(1, ROWS * SIDE * SIDE + 1, dtype=np.int64).reshape(ROWS, SIDE, SIDE)
    ok = values == expected
    if killed is not None and killed >= 0:
        rows = slice(killed * SLAB, (killed + 1) * SLAB)
        ok[rows] |= values[rows] == 0
    return int((~ok).sum())


def main(data_dir, manifests):
    store = open_root(data_dir)
    arrays, lost, failed = 0, 0, []
    for manifest in manifests:
        with open(os.path.join(data_dir, manifest)) as f:
            entries = json.load(f)
        for entry in entries:
            path = entry["path"]
            try:
                values = zarr.open_array(store=store, path=path.lstrip("/"), mode="r")[...]
            except Exception as e:
                failed.append(f"{path}: {type(e).__name__}: {e}")
                continue
            arrays += 1
            missing = lost_elements(values.astype(np.int64), entry["killed"])
            if missing:
                failed.append(f"{path}: {missing} elements lost")
            lost += missing
    for line in failed:
        print("FAIL", line)
    print(f"zarr-python read {arrays} arrays written by {WRITERS} processes at once "
          f"({', '.join(manifests)}): {lost} elements lost")
    return 1 if failed or arrays == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
