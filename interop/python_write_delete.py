"""Write, with zarr-python, the hierarchies that interop/delete_c.c deletes nodes from.

Usage: python_write_delete.py DATA_DIR

DATA_DIR/v2 (Zarr v2, consolidated in .zmetadata) and DATA_DIR/v3 (Zarr v3, consolidated
inline in the root zarr.json) each hold /g/a, /g/sub/b (a group subtree), /lone and /keep
(arrays), all consolidated at the root. delete_c then deletes /g and /lone, and
python_check_delete.py checks that zarr-python no longer finds them.
"""

import os
import shutil
import sys

import numpy as np
import zarr


def write(path, zarr_format):
    shutil.rmtree(path, ignore_errors=True)
    root = zarr.open_group(store=path, mode="w", zarr_format=zarr_format)
    for name in ["g/a", "g/sub/b", "lone", "keep"]:
        arr = root.create_array(name, shape=(6,), chunks=(4,), dtype="int32")
        arr[:] = np.arange(6, dtype="int32") + len(name)
    zarr.consolidate_metadata(path, zarr_format=zarr_format)
    print(f"wrote {path} (Zarr v{zarr_format}, consolidated)")


def main(data_dir):
    os.makedirs(data_dir, exist_ok=True)
    write(os.path.join(data_dir, "v2"), 2)
    write(os.path.join(data_dir, "v3"), 3)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
