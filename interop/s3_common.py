"""Shared by the S3 interop scripts: where the loopback S3 server (moto) is, and how each
peer reaches a prefix of its bucket.

The servers are those of tests/servers/servers.py; their addresses come from the file
named by ZARR_TEST_SERVERS_ENV. Credentials are moto's dummies (moto accepts any).
"""

import json
import os
import time

BUCKET = "zarr-interop"
KEY, SECRET, REGION = "test", "test", "us-east-1"


def servers():
    with open(os.environ["ZARR_TEST_SERVERS_ENV"]) as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)


def endpoint():
    return servers()["ZARR_TEST_MOTO"]


def new_prefix(name):
    """A prefix no other run used (moto keeps its objects for the whole ctest run)."""
    return f"{name}-{os.getpid()}-{int(time.time() * 1000)}"


def write_store_files(data_dir, prefix):
    """DATA_DIR/store.url and store.options: how libzarr (interop/open_store.h) opens it."""
    options = json.dumps({"endpoint": endpoint(), "access_key_id": KEY,
                          "secret_access_key": SECRET, "region": REGION})
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "store.url"), "w") as f:
        f.write(f"s3://{BUCKET}/{prefix}\n")
    with open(os.path.join(data_dir, "store.options"), "w") as f:
        f.write(options + "\n")


def read_prefix(data_dir):
    with open(os.path.join(data_dir, "store.url")) as f:
        url = f.read().strip()
    assert url.startswith(f"s3://{BUCKET}/"), url
    return url[len(f"s3://{BUCKET}/"):]


def zarr_store(prefix, read_only):
    """A zarr-python store over s3://BUCKET/prefix through obstore."""
    from obstore.store import S3Store
    from zarr.storage import ObjectStore
    s3 = S3Store(BUCKET, prefix=prefix, endpoint=endpoint(), region=REGION,
                 access_key_id=KEY, secret_access_key=SECRET,
                 virtual_hosted_style_request=False, client_options={"allow_http": True})
    return ObjectStore(s3, read_only=read_only)


def tensorstore_kvstore(prefix, path):
    """A tensorstore s3 kvstore spec for the node at `path` below the prefix."""
    os.environ.setdefault("AWS_ACCESS_KEY_ID", KEY)
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", SECRET)
    return {"driver": "s3", "bucket": BUCKET, "path": f"{prefix}/{path.strip('/')}/",
            "endpoint": endpoint(), "aws_region": REGION,
            "aws_credentials": {"type": "environment"}}
