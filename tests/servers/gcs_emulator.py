"""gcp-storage-emulator (the GCS JSON API, in memory) for libzarr's remote-store tests.

Usage: gcs_emulator.py --port-file FILE --log FILE [--bucket NAME ...] [--max-lifetime S]

Runs the emulator of the PyPI package gcp-storage-emulator (interop/requirements.txt) in
this process on 127.0.0.1 (a free port, written to --port-file once listening), with its
objects in memory, after creating the buckets given. Every request is logged to --log as
the emulator logs it (`"GET /storage/v1/b/... HTTP/1.1" 200 -`). Exits by itself after
--max-lifetime seconds (default 3600), like the other test servers.

The emulator serves one request at a time (http.server.HTTPServer, HTTP/1.0, a new
connection per request); its listen backlog is raised here so that a client's parallel
requests queue instead of waiting for SYN retransmissions.
"""

import argparse
import http.server
import logging
import os
import sys
import threading


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--bucket", action="append", default=[])
    parser.add_argument("--max-lifetime", type=float, default=3600)
    args = parser.parse_args()

    logging.basicConfig(filename=args.log, level=logging.INFO,
                        format="%(asctime)s %(name)s %(message)s")
    http.server.HTTPServer.request_queue_size = 128

    from gcp_storage_emulator.handlers.buckets import create_bucket
    from gcp_storage_emulator.server import create_server

    timer = threading.Timer(args.max_lifetime, lambda: os._exit(0))
    timer.daemon = True
    timer.start()

    server = create_server("127.0.0.1", 0, in_memory=True)
    for bucket in args.bucket:
        create_bucket(bucket, server._storage)
    server.start()
    port = server._api._httpd.server_address[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(port))
    os.replace(tmp, args.port_file)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
