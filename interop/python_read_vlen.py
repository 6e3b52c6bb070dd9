"""zarr-python reads the variable-length strings and bytes libzarr wrote (interop,
direction 2; see vlen.c `write`).

Usage: python_read_vlen.py DATA_DIR

Every array of DATA_DIR/manifest.txt must open in zarr-python as text (`string` or v2 `|O`
with vlen-utf8; libzarr stores a caller's old-style `fill_value: 0` as "", which zarr-python
would otherwise read as the text "0") or bytes, and read element for element what the
.arrow expectation holds: the written elements, the fill value elsewhere.
"""

import os
import struct
import sys
import warnings

import numpy as np
import zarr

warnings.simplefilter("ignore")


def load_arrow(name):
    with open(name, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack_from("<Q", raw, 0)
    offsets = struct.unpack_from(f"<{n + 1}Q", raw, 8)
    data = raw[8 + 8 * (n + 1):]
    return [data[offsets[i]:offsets[i + 1]] for i in range(n)]


def main(data_dir):
    store = zarr.storage.LocalStore(os.path.join(data_dir, "store"), read_only=True)
    failed, checked = [], 0
    with open(os.path.join(data_dir, "manifest.txt"), encoding="utf-8") as manifest:
        entries = [line.split() for line in manifest if line.strip()]
    for path, kind, name in entries:
        checked += 1
        want = load_arrow(os.path.join(data_dir, name))
        try:
            got = zarr.open_array(store, path=path.lstrip("/"), mode="r")[...]
        except Exception as e:
            failed.append(f"{path}: zarr-python cannot read it: {type(e).__name__}: {e}")
            continue
        flat = list(np.asarray(got).reshape(-1))
        if kind == "string":
            want = [w.decode("utf-8") for w in want]
        else:
            flat = [bytes(x) for x in flat]
        diffs = [i for i, (g, w) in enumerate(zip(flat, want)) if g != w]
        if len(flat) != len(want) or diffs:
            at = diffs[0] if diffs else min(len(flat), len(want))
            failed.append(f"{path}: {len(diffs)} elements differ (of {len(want)}); first at "
                          f"{at}: got {flat[at] if at < len(flat) else None!r}, "
                          f"expected {want[at] if at < len(want) else None!r}")
            continue
        print(f"ok   {path} ({kind}, {len(want)} elements)")
    for f in failed:
        print("FAIL", f)
    print(f"{checked} arrays checked, {len(failed)} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
