"""Check with zarr-python or tensorstore what test_mpi_collective (libzarr's collective
calls over MPI) wrote.

Usage: check_collective.py {zarr-python|tensorstore} DATA_DIR...

Each DATA_DIR holds manifest.json, written by rank 0: the two stores (`v3`, `v2`: a local
directory or an s3:// URL on moto, with the JSON options libzarr opened it with), the
groups with their attributes, and the arrays with their path, data type, shape, fill
value, attributes and expected/<n>.bin (the final values, host byte order). Every array
must read with exactly these values, data type and shape.

zarr-python also checks the attributes of every array and group, and opens each store
through its consolidated metadata (which must list every array with its final shape and
attributes: the consolidation came after the last change). tensorstore reads the arrays
(zarr3 driver for v3, zarr for v2). Exit status 1 on any difference.
"""

import json
import os
import sys

import numpy as np


def s3_parts(url, options):
    bucket, _, prefix = url[len("s3://"):].partition("/")
    return bucket, prefix.strip("/"), options


def zarr_store(url, options):
    if url.startswith("s3://"):
        from obstore.store import S3Store
        from zarr.storage import ObjectStore
        bucket, prefix, options = s3_parts(url, options)
        s3 = S3Store(bucket, prefix=prefix, endpoint=options["endpoint"],
                     region=options["region"], access_key_id=options["access_key_id"],
                     secret_access_key=options["secret_access_key"],
                     virtual_hosted_style_request=False, client_options={"allow_http": True})
        return ObjectStore(s3, read_only=True)
    from zarr.storage import LocalStore
    return LocalStore(url, read_only=True)


def tensorstore_kvstore(url, options, path):
    node = path.strip("/")
    if url.startswith("s3://"):
        bucket, prefix, options = s3_parts(url, options)
        os.environ["AWS_ACCESS_KEY_ID"] = options["access_key_id"]
        os.environ["AWS_SECRET_ACCESS_KEY"] = options["secret_access_key"]
        return {"driver": "s3", "bucket": bucket, "path": f"{prefix}/{node}/",
                "endpoint": options["endpoint"], "aws_region": options["region"],
                "aws_credentials": {"type": "environment"}}
    return {"driver": "file", "path": os.path.join(url, node) + "/"}


def expected_values(data_dir, entry):
    values = np.fromfile(os.path.join(data_dir, entry["expected"]), dtype=np.dtype(entry["dtype"]))
    return values.reshape(entry["shape"])


def compare(failed, where, entry, values, expected):
    if values.shape != expected.shape:
        failed.append(f"{where}: shape {values.shape}, expected {expected.shape}")
    elif values.dtype.newbyteorder("=") != expected.dtype:
        failed.append(f"{where}: data type {values.dtype}, expected {expected.dtype}")
    elif not np.array_equal(values, expected):
        bad = np.argwhere(values != expected)
        first = tuple(int(i) for i in bad[0])
        failed.append(f"{where}: {len(bad)} elements differ, the first at {first}: "
                      f"{values[first]} instead of {expected[first]}")
    else:
        return True
    return False


def check_zarr_python(data_dir, manifest, failed):
    import zarr
    stores = {name: zarr_store(url, manifest["options"]) for name, url in manifest["stores"].items()}
    passed = 0
    for entry in manifest["arrays"]:
        where = f"{data_dir} {entry['store']}:{entry['path']}"
        try:
            array = zarr.open_array(store=stores[entry["store"]], path=entry["path"].lstrip("/"), mode="r")
            values = array[...]
        except Exception as e:  # noqa: BLE001 -- report and go on
            failed.append(f"{where}: {type(e).__name__}: {e}")
            continue
        ok = compare(failed, where, entry, values, expected_values(data_dir, entry))
        if dict(array.attrs) != entry["attributes"]:
            failed.append(f"{where}: attributes {dict(array.attrs)}, expected {entry['attributes']}")
            ok = False
        if array.fill_value != entry["fill_value"]:
            failed.append(f"{where}: fill value {array.fill_value}, expected {entry['fill_value']}")
            ok = False
        if ok:
            passed += 1
            print(f"ok   {where} {entry['dtype']} {tuple(entry['shape'])}")
    for group in manifest["groups"]:
        where = f"{data_dir} {group['store']}:{group['path']} (group)"
        try:
            attrs = dict(zarr.open_group(store=stores[group["store"]], path=group["path"].lstrip("/"),
                                         mode="r").attrs)
        except Exception as e:  # noqa: BLE001
            failed.append(f"{where}: {type(e).__name__}: {e}")
            continue
        if attrs != group["attributes"]:
            failed.append(f"{where}: attributes {attrs}, expected {group['attributes']}")
        else:
            print(f"ok   {where}")
    # The consolidated metadata of each root lists every array, final shape and attributes.
    for name, store in stores.items():
        where = f"{data_dir} {name}: consolidated metadata"
        try:
            root = zarr.open_consolidated(store=store, zarr_format=3 if name == "v3" else 2, mode="r")
            members = {"/" + path: node for path, node in root.members(max_depth=None)}
        except Exception as e:  # noqa: BLE001
            failed.append(f"{where}: {type(e).__name__}: {e}")
            continue
        mine = [e for e in manifest["arrays"] if e["store"] == name]
        missing = [e["path"] for e in mine if e["path"] not in members]
        stale = [e["path"] for e in mine if e["path"] in members
                 and (list(members[e["path"]].shape) != e["shape"]
                      or dict(members[e["path"]].attrs) != e["attributes"])]
        if missing or stale:
            failed.append(f"{where}: missing {missing}, stale {stale}")
        else:
            print(f"ok   {where}: {len(mine)} arrays")
    return passed


def check_tensorstore(data_dir, manifest, failed):
    import tensorstore as ts
    passed = 0
    for entry in manifest["arrays"]:
        where = f"{data_dir} {entry['store']}:{entry['path']}"
        url = manifest["stores"][entry["store"]]
        spec = {"driver": "zarr3" if entry["store"] == "v3" else "zarr",
                "kvstore": tensorstore_kvstore(url, manifest["options"], entry["path"])}
        try:
            values = ts.open(spec, open=True, read=True).result()[...].read().result()
        except Exception as e:  # noqa: BLE001
            failed.append(f"{where}: {type(e).__name__}: {e}")
            continue
        if compare(failed, where, entry, np.asarray(values), expected_values(data_dir, entry)):
            passed += 1
            print(f"ok   {where} {entry['dtype']} {tuple(entry['shape'])}")
    return passed


def main(reader, data_dirs):
    check = {"zarr-python": check_zarr_python, "tensorstore": check_tensorstore}.get(reader)
    if check is None or not data_dirs:
        sys.exit(__doc__)
    failed, passed, total = [], 0, 0
    for data_dir in data_dirs:
        with open(os.path.join(data_dir, "manifest.json")) as f:
            manifest = json.load(f)
        total += len(manifest["arrays"])
        passed += check(data_dir, manifest, failed)
    for failure in failed:
        print(f"FAIL {failure}")
    print(f"{reader}: {passed} of {total} arrays exact, {len(failed)} failures")
    return 0 if not failed and passed == total and total > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "", sys.argv[2:]))
