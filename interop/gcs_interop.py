"""The S3 interop scripts, run against the loopback GCS server (labels interop;gcs).

Usage: gcs_interop.py setup DATA_DIR NAME                       (as s3_setup.py)
       gcs_interop.py write DATA_DIR {v3|v2}                     (as s3_python_write.py)
       gcs_interop.py read DATA_DIR {zarr-python|tensorstore}    (as s3_peers_read.py)

Each runs the S3 script of the same role with gcs_common (gcp-storage-emulator, zarr-python
through gcsfs, tensorstore's gcs kvstore) in place of s3_common: the same arrays, the same
manifests and checks, only the storage differs. (Their messages still say s3://.)
"""

import shutil
import sys

import gcs_common


def main(argv):
    if len(argv) != 4 or argv[1] not in ("setup", "write", "read"):
        raise SystemExit(__doc__)
    role, data_dir, arg = argv[1:]
    if role == "setup":
        shutil.rmtree(data_dir, ignore_errors=True)
        gcs_common.write_store_files(data_dir, gcs_common.new_prefix(arg))
        return 0
    if role == "write":
        import s3_python_write as script
        script.s3_common = gcs_common
        script.main(data_dir, arg)
        print(f"gcs_interop: written to gs://{gcs_common.BUCKET}/"
              f"{gcs_common.read_prefix(data_dir)}")
        return 0
    import s3_peers_read as script
    script.s3_common = gcs_common
    return script.main(data_dir, arg)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
