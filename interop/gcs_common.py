"""Shared by the GCS interop scripts: where the loopback GCS server (gcp-storage-emulator)
is, and how each peer reaches a prefix of its bucket. The same interface as s3_common.py,
which the scripts of both storages import by name (`--storage gcs`).

The servers are those of tests/servers/servers.py; their addresses come from the file
named by ZARR_TEST_SERVERS_ENV. The emulator wants no credentials: zarr-python (gcsfs)
goes anonymous, and so does libzarr (the endpoint and `anonymous`).
"""

import json
import os
import time

BUCKET = "zarr-interop"
SCHEME = "gs"


def servers():
    with open(os.environ["ZARR_TEST_SERVERS_ENV"]) as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)


def endpoint():
    return servers()["GCS_URL"]


def new_prefix(name):
    """A prefix no other run used (the emulator keeps its objects for the whole ctest run)."""
    return f"{name}-{os.getpid()}-{int(time.time() * 1000)}"


def write_store_files(data_dir, prefix):
    """DATA_DIR/store.url and store.options: how libzarr (interop/open_store.h) opens it."""
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "store.url"), "w") as f:
        f.write(f"gs://{BUCKET}/{prefix}\n")
    with open(os.path.join(data_dir, "store.options"), "w") as f:
        # anonymous: with only an endpoint the store would look for credentials, down to
        # probing the metadata server of a Google Cloud machine; the tests reach nothing
        # beyond 127.0.0.1.
        f.write(json.dumps({"endpoint": endpoint(), "anonymous": True}) + "\n")


def read_prefix(data_dir):
    with open(os.path.join(data_dir, "store.url")) as f:
        url = f.read().strip()
    assert url.startswith(f"gs://{BUCKET}/"), url
    return url[len(f"gs://{BUCKET}/"):]


def zarr_store(prefix, read_only):
    """A zarr-python store over gs://BUCKET/prefix through gcsfs (fsspec)."""
    # gcsfs (2026.x) by default first asks the storage-control gRPC API, over TLS at the
    # endpoint, whether a bucket is zonal/hierarchical; the emulator speaks plain HTTP, so
    # each ask times out after 60 s. Off, gcsfs is the plain JSON-API client.
    os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"
    import gcsfs
    from zarr.storage import FsspecStore
    fs = gcsfs.GCSFileSystem(endpoint_url=endpoint(), token="anon", asynchronous=True,
                             skip_instance_cache=True)
    return FsspecStore(fs, path=f"{BUCKET}/{prefix}", read_only=read_only)


def tensorstore_kvstore(prefix, path):
    """A tensorstore gcs kvstore spec for the node at `path` below the prefix (tensorstore
    reads the endpoint from TENSORSTORE_GCS_HTTP_URL and a token for tests from
    GOOGLE_AUTH_TOKEN_FOR_TESTING)."""
    os.environ["TENSORSTORE_GCS_HTTP_URL"] = endpoint()
    os.environ.setdefault("GOOGLE_AUTH_TOKEN_FOR_TESTING", "anonymous")
    return {"driver": "gcs", "bucket": BUCKET, "path": f"{prefix}/{path.strip('/')}/"}
