"""Put the HDF5 reference set of make_references.py on the loopback servers and describe
the remote sets for reference_read: the JSON v0 references with every target rewritten to
s3://zarr-interop/PREFIX/sample.h5 (moto), to http://127.0.0.1:PORT/PREFIX/sample.h5 (the
static HTTP server of tests/servers) and to https:// (its TLS twin), each uploaded beside
its target; the S3 and HTTP sets also as Parquet reference directories (PREFIX/hdf.parq);
and the S3 set's JSON as a local file (a local set with s3:// targets).

Usage: remote_setup.py DATA_DIR   (ZARR_TEST_SERVERS_ENV names the servers' environment)

Writes DATA_DIR/sets/{s3,s3_parquet,http,http_parquet,https,s3_targets_local}: store.url
(reference+s3://..., reference+http://..., reference+https://..., reference+file://...),
store.options for S3 (moto's endpoint and dummy credentials, which also sign the requests
for the targets) and the manifest of sets/hdf_v0.
"""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import s3_common  # noqa: E402  (interop/s3_common.py: servers, bucket, credentials)


def rewrite(refs, old, new):
    """The references with target `old` replaced by `new` (every other value as is)."""
    out = dict(refs)
    out["refs"] = {k: [new] + v[1:] if isinstance(v, list) and v[0] == old else v
                   for k, v in refs["refs"].items()}
    if sum(isinstance(v, list) for v in out["refs"].values()) == 0:
        raise SystemExit("no byte-range reference to rewrite")
    return out


def describe(data, name, url, options=None):
    d = os.path.join(data, "sets", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "store.url"), "w") as f:
        f.write(url + "\n")
    if options is not None:
        with open(os.path.join(d, "store.options"), "w") as f:
            f.write(json.dumps(options) + "\n")
    shutil.copy(os.path.join(data, "sets", "hdf_v0", "manifest.txt"), d)


def main(data):
    import boto3
    from kerchunk.df import refs_to_dataframe
    env = s3_common.servers()
    h5 = os.path.join(data, "files", "sample.h5")
    with open(os.path.join(data, "refs", "hdf_v0.json")) as f:
        refs = json.load(f)
    prefix = s3_common.new_prefix("reference")

    # S3: the HDF5 file and references whose targets are s3:// URLs in the same bucket.
    bucket = s3_common.BUCKET
    s3 = boto3.client("s3", endpoint_url=env["ZARR_TEST_MOTO"], region_name=s3_common.REGION,
                      aws_access_key_id=s3_common.KEY,
                      aws_secret_access_key=s3_common.SECRET)
    s3.upload_file(h5, bucket, f"{prefix}/sample.h5")
    s3_refs = rewrite(refs, h5, f"s3://{bucket}/{prefix}/sample.h5")
    s3.put_object(Bucket=bucket, Key=f"{prefix}/hdf_v0.json",
                  Body=json.dumps(s3_refs).encode())
    s3_options = {"endpoint": env["ZARR_TEST_MOTO"], "access_key_id": s3_common.KEY,
                  "secret_access_key": s3_common.SECRET, "region": s3_common.REGION}
    describe(data, "s3", f"reference+s3://{bucket}/{prefix}/hdf_v0.json", s3_options)
    # The same s3:// references in a local file: the targets' endpoint and credentials then
    # come from the AWS environment variables (set by the ctest command).
    local = os.path.join(data, "refs", "s3_targets.json")
    with open(local, "w") as f:
        json.dump(s3_refs, f)
    describe(data, "s3_targets_local", "reference+file://" + local)

    # The same references as a Parquet directory on S3 (refs_to_dataframe of the rewritten
    # set, uploaded file by file, .zmetadata included).
    parq = os.path.join(data, "refs", "s3.parq")
    shutil.rmtree(parq, ignore_errors=True)
    refs_to_dataframe(s3_refs, parq, record_size=4)
    for directory, _, names in os.walk(parq):
        for name in names:
            path = os.path.join(directory, name)
            key = f"{prefix}/hdf.parq/{os.path.relpath(path, parq)}"
            s3.upload_file(path, bucket, key)
    describe(data, "s3_parquet", f"reference+s3://{bucket}/{prefix}/hdf.parq", s3_options)

    # HTTP: the same under the server's root, targets as http:// URLs.
    root = os.path.join(env["ZARR_TEST_HTTP_ROOT"], prefix)
    os.makedirs(root)
    shutil.copy(h5, os.path.join(root, "sample.h5"))
    http_refs = rewrite(refs, h5, f"{env['ZARR_TEST_HTTP']}/{prefix}/sample.h5")
    with open(os.path.join(root, "hdf_v0.json"), "w") as f:
        json.dump(http_refs, f)
    describe(data, "http", f"reference+{env['ZARR_TEST_HTTP']}/{prefix}/hdf_v0.json")
    # ... and as a Parquet directory: a plain HTTP server cannot list, so the reader finds
    # the record files from .zmetadata's record_size and the variables' names.
    refs_to_dataframe(http_refs, os.path.join(root, "hdf.parq"), record_size=4)
    describe(data, "http_parquet", f"reference+{env['ZARR_TEST_HTTP']}/{prefix}/hdf.parq")

    # HTTPS: the same files through the TLS server (its CA: SSL_CERT_FILE, set by ctest).
    https_refs = rewrite(refs, h5, f"{env['ZARR_TEST_HTTPS']}/{prefix}/sample.h5")
    with open(os.path.join(root, "hdf_v0_https.json"), "w") as f:
        json.dump(https_refs, f)
    describe(data, "https", f"reference+{env['ZARR_TEST_HTTPS']}/{prefix}/hdf_v0_https.json")
    print(f"remote reference sets under s3://{bucket}/{prefix} and "
          f"{env['ZARR_TEST_HTTP']}/{prefix}")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
