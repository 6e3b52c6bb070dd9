"""Check with zarr-python that the nodes libzarr deleted (interop/delete_c.c) are gone.

Usage: python_check_delete.py DATA_DIR

For DATA_DIR/v2 and DATA_DIR/v3, opened with and without consolidated metadata: /g (with
everything below it) and /lone are not found, /keep is there with its values.
"""

import os
import sys

import numpy as np
import zarr


def check(path, zarr_format, use_consolidated):
    label = f"{os.path.basename(path)} consolidated={use_consolidated}"
    root = zarr.open_group(
        store=path, mode="r", zarr_format=zarr_format, use_consolidated=use_consolidated
    )
    members = {name for name, _ in root.members(max_depth=None)}
    problems = []
    for gone in ["g", "g/a", "g/sub", "g/sub/b", "lone"]:
        if gone in members:
            problems.append(f"{gone} is still listed")
        try:
            root[gone]
            problems.append(f"{gone} still opens")
        except KeyError:
            pass
    if members != {"keep"}:
        problems.append(f"members are {sorted(members)}, expected ['keep']")
    keep = root["keep"][...]
    if not np.array_equal(keep, np.arange(6, dtype="int32") + 4):
        problems.append(f"keep holds {keep}")
    for p in problems:
        print(f"FAIL {label}: {p}")
    if not problems:
        print(f"ok   {label}: deleted nodes are gone, keep is intact")
    return not problems


def main(data_dir):
    results = [
        check(os.path.join(data_dir, name), fmt, consolidated)
        for name, fmt in [("v2", 2), ("v3", 3)]
        for consolidated in [True, False]
    ]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
