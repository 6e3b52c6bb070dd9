"""Shared by the S3 interop scripts: where the loopback S3 server (moto) is, and how each
peer reaches a prefix of its bucket.

The servers are those of tests/servers/servers.py; their addresses come from the file
named by ZARR_TEST_SERVERS_ENV. Credentials are moto's dummies (moto accepts any).

With ZARR_INTEROP_STORAGE=azure the same scripts use Azure Blob Storage instead: Azurite's
container zarr-interop with its development account's Shared Key; zarr-python reaches it
through adlfs (fsspec), libzarr through az:// URLs; tensorstore has no Azure kvstore.
"""

import json
import os
import time

BUCKET = "zarr-interop"
KEY, SECRET, REGION = "test", "test", "us-east-1"


def servers():
    with open(os.environ["ZARR_TEST_SERVERS_ENV"]) as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)


def storage():
    """"s3" (the default) or "azure"."""
    return os.environ.get("ZARR_INTEROP_STORAGE", "s3")


def scheme():
    return "az" if storage() == "azure" else "s3"


def endpoint():
    if storage() == "azure":
        return servers()["ZARR_TEST_AZURE"]
    return servers()["ZARR_TEST_MOTO"]


def url(prefix):
    return f"{scheme()}://{BUCKET}/{prefix}"


def azure_connection_string():
    env = servers()
    return (f"DefaultEndpointsProtocol=http;AccountName={env['ZARR_TEST_AZURE_ACCOUNT']};"
            f"AccountKey={env['ZARR_TEST_AZURE_KEY']};BlobEndpoint={endpoint()};")


def new_prefix(name):
    """A prefix no other run used (moto keeps its objects for the whole ctest run)."""
    return f"{name}-{os.getpid()}-{int(time.time() * 1000)}"


def write_store_files(data_dir, prefix):
    """DATA_DIR/store.url and store.options: how libzarr (interop/open_store.h) opens it."""
    if storage() == "azure":
        options = json.dumps({"endpoint": endpoint(),
                              "account_key": servers()["ZARR_TEST_AZURE_KEY"]})
    else:
        options = json.dumps({"endpoint": endpoint(), "access_key_id": KEY,
                              "secret_access_key": SECRET, "region": REGION})
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "store.url"), "w") as f:
        f.write(url(prefix) + "\n")
    with open(os.path.join(data_dir, "store.options"), "w") as f:
        f.write(options + "\n")


def read_prefix(data_dir):
    with open(os.path.join(data_dir, "store.url")) as f:
        url = f.read().strip()
    start = f"{scheme()}://{BUCKET}/"
    assert url.startswith(start), url
    return url[len(start):]


def zarr_store(prefix, read_only):
    """A zarr-python store over s3://BUCKET/prefix through obstore, or over
    az://BUCKET/prefix through adlfs."""
    if storage() == "azure":
        from zarr.storage import FsspecStore
        return FsspecStore.from_url(
            f"abfs://{BUCKET}/{prefix}", read_only=read_only,
            storage_options={"connection_string": azure_connection_string()})
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
