"""A delaying, request-counting HTTP proxy for the remote benchmark (loopback only).

Usage: delay_proxy.py --upstream http://127.0.0.1:PORT --port-file FILE [--log FILE]
                      [--delay-ms MS] [--max-lifetime S]

Listens on 127.0.0.1 (a free port, written to --port-file once listening), one thread per
client connection (HTTP/1.1 keep-alive), and forwards every request unchanged to
--upstream (gcp-storage-emulator or Azurite), so that Azure's SharedKey signatures stay
valid. Each request is held --delay-ms before it is forwarded: one simulated round trip
per request, as tests/servers/http_server.py adds for the HTTP leg (the kernel here has
no netem qdisc). The delays of concurrent requests overlap, as a network's would.

Every answered request is appended to --log as `METHOD PATH STATUS BODY_BYTES` (the
format of http_server.py's log, which bench.py sums). Exits by itself after
--max-lifetime seconds.
"""

import argparse
import http.client
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-connection", "expect"}


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY: the headers and a small body go out as two writes; with Nagle's
    # algorithm the body waits for the client's (delayed, up to 40 ms) ACK of the headers.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def upstream(self):
        local = self.server.local
        if getattr(local, "connection", None) is None:
            local.connection = http.client.HTTPConnection(
                self.server.upstream_host, self.server.upstream_port, timeout=300)
        return local.connection

    def forward(self, body, headers):
        """Send the request upstream; one retry on a fresh connection when a kept-alive one
        was closed by the upstream in the meantime."""
        for attempt in (0, 1):
            reused = getattr(self.server.local, "connection", None) is not None
            connection = self.upstream()
            try:
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
                if response.will_close:
                    connection.close()
                return response, data
            except (ConnectionError, http.client.HTTPException):
                connection.close()
                self.server.local.connection = None
                if attempt or not reused:
                    raise

    def handle_any(self):
        body = self.read_body()
        if self.server.delay:
            time.sleep(self.server.delay)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        if body or self.command in ("PUT", "POST", "PATCH"):
            headers["Content-Length"] = str(len(body))
        response, data = self.forward(body, headers)
        sent = 0 if self.command == "HEAD" else len(data)
        with self.server.lock:
            if self.server.request_log:
                self.server.request_log.write(
                    f"{self.command} {self.path} {response.status} {sent}\n")
                self.server.request_log.flush()
        self.send_response(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP | {"content-length", "server", "date"}:
                self.send_header(name, value)
        if self.command == "HEAD":
            self.send_header("Content-Length", response.getheader("Content-Length") or "0")
        else:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = do_OPTIONS = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log")
    parser.add_argument("--delay-ms", type=float, default=0)
    parser.add_argument("--max-lifetime", type=float, default=7200)
    args = parser.parse_args()

    upstream = urllib.parse.urlsplit(args.upstream)
    server = Server(("127.0.0.1", 0), Proxy)
    server.upstream_host, server.upstream_port = upstream.hostname, upstream.port
    server.delay = args.delay_ms / 1000
    server.local = threading.local()
    server.lock = threading.Lock()
    server.request_log = open(args.log, "a") if args.log else None
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
