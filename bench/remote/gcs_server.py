"""The GCS server of the remote benchmark: tests/servers/gcs_emulator.py (gcp-storage-emulator,
in memory, with the test suite's additions), plus two changes for benchmarking.

Usage: gcs_server.py PORT [--as-is]

- Suffix ranges. The emulator's download handler understands only `Range: bytes=A-B`
  and `bytes=A-`; to a suffix range `bytes=-N`, which GCS serves (the last N bytes), it
  answers 200 with the whole object. All three readers ask for a shard's index (its last
  bytes) with a suffix range, so every index request would carry the whole shard. Here
  `bytes=-N` is rewritten to `bytes=SIZE-N-` before the handler reads it.
- Listen backlog. The emulator (http.server.HTTPServer) serves one request at a time
  from a backlog of 5; beyond that the kernel drops connection attempts and the client
  retries a second later. The backlog is raised to 128, so that parallel requests queue.
--as-is leaves both as the emulator has them (to measure what they cost).
"""

import http.server
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "servers"))

from gcp_storage_emulator import server  # noqa: E402

SUFFIX = re.compile(r"\s*bytes=-([0-9]+)\s*")


def serve_suffix_ranges():
    original = server.Request.get_header

    def get_header(self, key, default=None):
        value = original(self, key, default)
        match = SUFFIX.fullmatch(value) if key.lower() == "range" and value else None
        params = self.params if match else None
        if params and "bucket_name" in params and "object_id" in params:
            storage = self._request_handler.storage
            try:
                size = int(storage.get_file_obj(params["bucket_name"],
                                                params["object_id"])["size"])
            except Exception:
                return value  # a missing object: the handler answers 404 itself
            length = int(match.group(1))
            if 0 < length:
                return f"bytes={max(size - length, 0)}-"
        return value

    server.Request.get_header = get_header


def main():
    as_is = "--as-is" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--as-is"]
    if not as_is:
        serve_suffix_ranges()
        http.server.HTTPServer.request_queue_size = 128
    import gcs_emulator
    sys.argv = [sys.argv[0]] + args
    gcs_emulator.main()


if __name__ == "__main__":
    main()
