"""Shared by the Icechunk interop scripts (interop/icechunk/): where a test repository lives
and how icechunk-python and libzarr reach it, and the file formats the C programs read.

A test's DATA_DIR holds:
  store.url       the libzarr URL of the repository (icechunk+file:///... or icechunk+s3://...)
  store.options   the JSON options for zarr_store_open_url, without branch/tag/snapshot
                  (the C programs add those), for S3 the endpoint and moto's credentials
  location.json   how icechunk-python reaches the same repository (kind, path or bucket/prefix)
  manifest.json   what the writer did: every version, its snapshot id, its refs (branch,
                  tag), its commit message and its expected nodes and values
  checks.txt      the same, line by line, for the C reader (format in icechunk_read.c)
  expected/       the expected values: raw arrays in C order, little-endian (the host's
                  order on every machine the suite runs on), and .arrow files for strings
                  (u64le n, n + 1 u64le offsets, the UTF-8 bytes)
"""

import json
import os
import struct
import sys

# icechunk logs warnings about the local file system's concurrency to stderr at every
# open; the tests' output is easier to read without them (errors still show).
os.environ.setdefault("ICECHUNK_LOG", "error")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # interop/, for s3_common

import icechunk  # noqa: E402


def s3_common():
    import s3_common as common
    return common


def write_location(data_dir, location):
    """Write store.url, store.options and location.json for `location`:
    {"kind": "file", "path": ABS} or {"kind": "s3", "prefix": P}."""
    os.makedirs(data_dir, exist_ok=True)
    if location["kind"] == "file":
        url = "icechunk+file://" + os.path.abspath(location["path"])
        options = {}
    else:
        common = s3_common()
        url = f"icechunk+s3://{common.BUCKET}/{location['prefix']}"
        options = {"endpoint": common.endpoint(), "access_key_id": common.KEY,
                   "secret_access_key": common.SECRET, "region": common.REGION,
                   "force_path_style": True}
    with open(os.path.join(data_dir, "store.url"), "w") as f:
        f.write(url + "\n")
    with open(os.path.join(data_dir, "store.options"), "w") as f:
        f.write(json.dumps(options) + "\n")
    with open(os.path.join(data_dir, "location.json"), "w") as f:
        json.dump(location, f)


def read_location(data_dir):
    with open(os.path.join(data_dir, "location.json")) as f:
        return json.load(f)


def storage(location):
    """The icechunk Storage of a location."""
    if location["kind"] == "file":
        return icechunk.local_filesystem_storage(location["path"])
    common = s3_common()
    return icechunk.s3_storage(bucket=common.BUCKET, prefix=location["prefix"],
                               region=common.REGION, endpoint_url=common.endpoint(),
                               allow_http=True, force_path_style=True,
                               access_key_id=common.KEY, secret_access_key=common.SECRET)


def arrow(strings):
    """u64le n, n + 1 u64le offsets, the UTF-8 bytes (interop/vlen.c's format)."""
    offsets, data = [0], bytearray()
    for s in strings:
        data += s.encode("utf-8")
        offsets.append(len(data))
    return struct.pack("<Q", len(strings)) + struct.pack(f"<{len(offsets)}Q", *offsets) + data


def read_manifest(data_dir):
    with open(os.path.join(data_dir, "manifest.json")) as f:
        return json.load(f)
