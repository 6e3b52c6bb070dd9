"""A small static HTTP(S) file server for libzarr's remote-store tests (loopback only).

Usage: http_server.py --root DIR --port-file FILE [--no-range] [--log FILE]
                      [--tls-cert PEM --tls-key PEM] [--delay-ms MS] [--max-lifetime SECONDS]

Serves GET and HEAD for the files under DIR on 127.0.0.1 (a free port, written to
--port-file once listening). With Range support (the default) it answers a single
`Range: bytes=a-b`, `bytes=a-` or `bytes=-n` with 206 and Content-Range, and an
unsatisfiable one with 416 `Content-Range: bytes */size`; with --no-range it ignores
Range and always sends the whole file with 200, as some servers do. Any path with a
segment `forbidden` answers 403. Every request is appended to --log as
`METHOD PATH STATUS BODY_BYTES`, so tests can count requests. HTTP/1.1 keep-alive.
--delay-ms holds every answer that long (one simulated round trip per request, for the
remote benchmark where the kernel cannot add delay with netem).
The server exits by itself after --max-lifetime seconds (default 3600), so a test run
that dies cannot leave it running for long.
"""

import argparse
import os
import re
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "zarr-test-http/1"
    # TCP_NODELAY: the headers and a small body go out as two writes; with Nagle's
    # algorithm the body waits for the client's (delayed, up to 40 ms) ACK of the headers.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # quiet: the request log is --log
        pass

    def record(self, status, nbytes):
        log = self.server.request_log
        if log is not None:
            with self.server.log_lock:
                log.write(f"{self.command} {self.path} {status} {nbytes}\n")
                log.flush()

    def reply(self, status, body=b"", headers=()):
        # Logged before answering, so a client that got the answer finds the line.
        self.record(status, len(body) if self.command != "HEAD" else 0)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        if self.server.delay:
            time.sleep(self.server.delay)
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        segments = [s for s in path.split("/") if s]
        if any(s in (".", "..") for s in segments):
            return self.reply(400, b"bad path\n")
        if "forbidden" in segments:
            return self.reply(403, b"<html><body>403 Forbidden</body></html>\n")
        file = os.path.join(self.server.root, *segments)
        if not os.path.isfile(file):
            return self.reply(404, b"not found\n")
        with open(file, "rb") as f:
            data = f.read()
        size = len(data)
        header = self.headers.get("Range")
        if header is None or self.server.no_range:
            return self.reply(200, data)
        match = RANGE.match(header.strip())
        if not match or match.group(1) == match.group(2) == "":
            return self.reply(416, b"", [("Content-Range", f"bytes */{size}")])
        first, last = match.group(1), match.group(2)
        if first == "":
            start, end = max(0, size - int(last)), size - 1
        else:
            start = int(first)
            end = min(size - 1, int(last)) if last else size - 1
        if start >= size or start > end:
            return self.reply(416, b"", [("Content-Range", f"bytes */{size}")])
        return self.reply(206, data[start:end + 1],
                          [("Content-Range", f"bytes {start}-{end}/{size}")])

    def do_PUT(self):
        self.reply(405, b"read-only server\n")

    do_POST = do_DELETE = do_PUT


class Server(ThreadingHTTPServer):
    # socketserver's listen backlog is 5: a client opening more connections at once (the
    # remote stores keep up to 32) loses SYNs and waits a second for their retransmission.
    request_queue_size = 128


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--no-range", action="store_true")
    parser.add_argument("--log")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--delay-ms", type=float, default=0)
    parser.add_argument("--max-lifetime", type=float, default=3600)
    args = parser.parse_args()

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.root = os.path.abspath(args.root)
    server.no_range = args.no_range
    server.delay = args.delay_ms / 1000
    server.request_log = open(args.log, "a") if args.log else None
    server.log_lock = threading.Lock()
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    timer = threading.Timer(args.max_lifetime, lambda: os._exit(0))
    timer.daemon = True
    timer.start()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
