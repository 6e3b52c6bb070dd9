"""zarr-python (through obstore) or tensorstore (its s3 kvstore with an endpoint) read
what libzarr wrote into the loopback S3 server (interop over S3, libzarr -> peers).

Usage: s3_peers_read.py DATA_DIR {zarr-python|tensorstore}

DATA_DIR is what write_c made with a store.url (s3_setup.py): manifest.txt
(`<node path> <data type> <bin>`) and the expected values. Every array must read
byte-identical with the same data type; raw-bits types (`r<N>`), which neither peer
reads, are reported as skipped. zarr-python also checks the root group's attributes.
"""

import json
import sys

import numpy as np

import s3_common


def main(data_dir, reader):
    prefix = s3_common.read_prefix(data_dir)
    if reader == "zarr-python":
        import zarr
        store = s3_common.zarr_store(prefix, read_only=True)

        def read(path):
            return zarr.open_array(store=store, path=path.lstrip("/"), mode="r")[...]
    elif reader == "tensorstore":
        import tensorstore as ts

        def read(path):
            spec = {"driver": "zarr3", "kvstore": s3_common.tensorstore_kvstore(prefix, path)}
            return ts.open(spec, open=True, read=True).result()[...].read().result()
    else:
        raise SystemExit(__doc__)
    passed, failed, skipped = 0, [], []
    with open(f"{data_dir}/manifest.txt") as manifest:
        entries = [line.split() for line in manifest if line.strip()]
    for path, dtype, bin_name in entries:
        with open(f"{data_dir}/{bin_name}", "rb") as f:
            expected = f.read()
        try:
            values = read(path)
        except Exception as e:
            if dtype.startswith("r"):
                skipped.append(f"{path}: {reader} cannot read data type {dtype}")
                continue
            failed.append(f"{path}: {type(e).__name__}: {e}")
            continue
        got = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("=")).tobytes()
        same_type = dtype.startswith("r") or np.dtype(dtype) == values.dtype.newbyteorder("=")
        if got == expected and same_type:
            passed += 1
            print(f"ok   {path} ({dtype})")
        else:
            failed.append(f"{path}: values or data type differ ({values.dtype} vs {dtype})")
    if reader == "zarr-python":
        import zarr
        root = zarr.open_group(store=s3_common.zarr_store(prefix, read_only=True), mode="r")
        if dict(root.attrs) != {"title": "written by libzarr", "n": [1, 2, 3]}:
            failed.append(f"/: attributes {json.dumps(dict(root.attrs))}")
        else:
            passed += 1
            print("ok   / (group attributes)")
    for note in skipped:
        print(f"skip {note}")
    for failure in failed:
        print(f"FAIL {failure}")
    print(f"{passed} passed, {len(failed)} failed")
    return 0 if not failed and passed > 1 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
