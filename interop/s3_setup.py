"""Point DATA_DIR at a fresh prefix of the loopback S3 bucket, for write_c (interop,
libzarr -> S3 -> zarr-python and tensorstore).

Usage: s3_setup.py DATA_DIR NAME

Empties DATA_DIR and writes DATA_DIR/store.url and store.options (see open_store.h).
"""

import shutil
import sys

import s3_common

if __name__ == "__main__":
    shutil.rmtree(sys.argv[1], ignore_errors=True)
    s3_common.write_store_files(sys.argv[1], s3_common.new_prefix(sys.argv[2]))
