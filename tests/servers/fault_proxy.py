"""A counting, fault-injecting HTTP proxy for libzarr's remote-store tests (loopback only).

Usage: fault_proxy.py --upstream http://127.0.0.1:PORT --port-file FILE [--log FILE]
                      [--fail-rate F] [--reset-rate R] [--seed N] [--max-lifetime S]
                      [--gcs [--require-bearer TOKENS_FILE]]

Listens on 127.0.0.1 (a free port, written to --port-file) and forwards each request to
--upstream (an S3 or HTTP server), rewriting nothing, so SigV4 signatures stay valid.
Faults, drawn from a seeded generator:
- with probability --fail-rate the request is answered 500 or 503 without forwarding;
- with probability --reset-rate the connection is reset: half of the time before
  forwarding, half of the time after sending half of the upstream's response body;
- a path with a segment `always503` is always answered 503;
- a conditional PUT, POST or DELETE (with `If-Match` or `If-None-Match`) whose path has a
  segment `always412` is answered 412 Precondition Failed, as if another writer had
  always come first;
- a PUT whose path has a segment `reset-put` is reset after half of its body was read,
  and so is an UploadPart (PUT with partNumber=2) whose path has `reset-part2`: the
  upstream never sees those requests.
A request for a bucket itself (a path of one segment: the HEAD of the bucket that opening
a store sends), or for an Azure container (`/account/container?restype=container...`: the
listing that opening an Azure store sends), is forwarded without faults, so that the stores
of the marked paths' tests open deterministically.
Every request is appended to --log as `METHOD PATH STATUS BODY_BYTES OUTCOME`, where
OUTCOME is `forwarded`, `injected` or `reset` (with --gcs also `refused`). Exits by itself after --max-lifetime.

With --gcs the upstream is a GCS JSON API server (gcp-storage-emulator), and:
- the marks above are looked for in the object's name too (`/o/<percent-encoded name>`
  or the `name=` of an upload), a "conditional" request is one with ifGenerationMatch,
  `reset-put` applies to uploads (POST .../o?uploadType=media, and every PUT of a
  resumable upload), `reset-part2` to a resumable upload's PUT whose Content-Range does
  not start at 0, and the injected errors are GCS JSON errors;
- the bucket (GET /storage/v1/b/BUCKET) and listings (GET /storage/v1/b/BUCKET/o) are
  forwarded without faults, like the bucket requests of S3;
- with --require-bearer, a request without `Authorization: Bearer T`, T a line of
  TOKENS_FILE (re-read at each request), is answered 401 authError, and a valid one
  whose object name has a segment `forbidden` 403 forbidden;
- each log line ends with the credential seen: `bearer:TOKEN` or `anonymous`.
"""

import argparse
import http.client
import json
import os
import random
import socket
import struct
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GCS_API = "/storage/v1/b/"
GCS_UPLOAD = "/upload/storage/v1/b/"

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-connection"}


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def record(self, status, nbytes, outcome):
        with self.server.lock:
            if self.server.request_log:
                auth = ""
                if self.server.gcs:
                    value = self.headers.get("Authorization") or ""
                    auth = (" bearer:" + value[7:].strip() if value.startswith("Bearer ")
                            else " anonymous")
                self.server.request_log.write(
                    f"{self.command} {self.path} {status} {nbytes} {outcome}{auth}\n")
                self.server.request_log.flush()

    def draw(self):
        with self.server.lock:
            return self.server.rng.random(), self.server.rng.random()

    def reset(self):
        # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def handle_any(self):
        if self.server.gcs:
            return self.handle_gcs()
        split = urllib.parse.urlsplit(self.path)
        segments = [s for s in split.path.split("/") if s]
        query = urllib.parse.parse_qs(split.query)
        length = int(self.headers.get("Content-Length") or 0)
        if self.command == "PUT" and (
                "reset-put" in segments
                or ("reset-part2" in segments and query.get("partNumber") == ["2"])):
            self.rfile.read(length // 2)
            self.record(0, 0, "reset")
            return self.reset()
        conditional = "If-Match" in self.headers or "If-None-Match" in self.headers
        if "always412" in segments and conditional and self.command != "GET":
            self.read_body()
            payload = (b"<?xml version=\"1.0\"?><Error><Code>PreconditionFailed</Code>"
                       b"<Message>injected conflict</Message></Error>")
            self.record(412, len(payload), "injected")
            self.send_response(412)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        fail, reset = self.draw()
        if any(s in segments for s in ("always503", "always412", "reset-put", "reset-part2")):
            # Marked paths get only their own fault, so that their tests are deterministic.
            fail = reset = 1.0
        if len(segments) <= 1 or (len(segments) == 2 and "restype=container" in split.query):
            fail = reset = 1.0  # the bucket or container itself: see the module's comment
        body = self.read_body()
        if "always503" in segments or fail < self.server.fail_rate:
            status = 503 if "always503" in segments or fail < self.server.fail_rate / 2 else 500
            payload = (b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code>"
                       b"<Message>injected fault</Message></Error>")
            # Logged before answering, so a client that got the answer finds the line.
            self.record(status, len(payload), "injected")
            self.send_response(status)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        cut_response = False
        if reset < self.server.reset_rate:
            if reset < self.server.reset_rate / 2:
                self.record(0, 0, "reset")
                return self.reset()
            cut_response = True
        upstream = http.client.HTTPConnection(self.server.upstream_host,
                                              self.server.upstream_port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        upstream.request(self.command, self.path, body=body, headers=headers)
        response = upstream.getresponse()
        data = response.read()
        upstream.close()
        cut = cut_response and self.command != "HEAD" and len(data) > 1
        sent = 0 if self.command == "HEAD" else len(data) // 2 if cut else len(data)
        self.record(response.status, sent, "reset" if cut else "forwarded")
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        # A HEAD's Content-Length is the size of the body a GET would send (the object's
        # size, which Azure clients read from it), not 0.
        length = response.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if cut:
            self.wfile.write(data[:sent])
            self.wfile.flush()
            return self.reset()
        self.wfile.write(data)

    # ---- GCS (--gcs) ----------------------------------------------------------------

    def gcs_error(self, status, reason, message, outcome="injected"):
        payload = json.dumps({"error": {"code": status, "message": message,
                                        "errors": [{"domain": "global", "reason": reason,
                                                    "message": message}]}}).encode()
        self.record(status, len(payload), outcome)
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def upstream_request(self, method, path, body=b"", headers=None):
        upstream = http.client.HTTPConnection(self.server.upstream_host,
                                              self.server.upstream_port, timeout=60)
        upstream.request(method, path, body=body, headers=headers or {})
        response = upstream.getresponse()
        data = response.read()
        upstream.close()
        return response, data

    def handle_gcs(self):
        split = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(split.query)
        path = split.path
        upload = path.startswith(GCS_UPLOAD)
        rest = path[len(GCS_UPLOAD if upload else GCS_API):] if (
            upload or path.startswith(GCS_API)) else ""
        _, _, tail = rest.partition("/")
        name = None
        if tail.startswith("o/"):
            name = urllib.parse.unquote(tail[2:])
        elif upload and query.get("name"):
            name = query["name"][0]
        segments = [s for s in split.path.split("/") if s]
        if name is not None:
            segments += [s for s in name.split("/") if s]
        length = int(self.headers.get("Content-Length") or 0)
        resumable_put = self.command == "PUT" and "upload_id" in query
        content_range = self.headers.get("Content-Range") or ""
        continuation = resumable_put and not content_range.startswith("bytes 0-") and \
            not content_range.startswith("bytes */")

        if self.server.require_bearer is not None:
            value = self.headers.get("Authorization") or ""
            try:
                with open(self.server.require_bearer) as f:
                    valid = {line.strip() for line in f if line.strip()}
            except OSError:
                valid = set()
            if not value.startswith("Bearer ") or value[7:].strip() not in valid:
                self.read_body()
                return self.gcs_error(401, "authError", "Invalid Credentials", "refused")
            if "forbidden" in segments:
                self.read_body()
                return self.gcs_error(
                    403, "forbidden", "the caller does not have storage.objects.get access "
                    f"to the Google Cloud Storage object {name}", "refused")

        is_upload = (self.command == "POST" and upload) or resumable_put
        if is_upload and ("reset-put" in segments or ("reset-part2" in segments and
                                                      continuation)):
            self.rfile.read(length // 2)
            self.record(0, 0, "reset")
            return self.reset()
        conditional = "ifGenerationMatch" in query
        if "always412" in segments and conditional and self.command != "GET":
            self.read_body()
            return self.gcs_error(412, "conditionNotMet", "At least one of the pre-conditions "
                                  "you specified did not hold. (injected)")
        fail, reset = self.draw()
        if any(s in segments for s in ("always503", "always412", "reset-put", "reset-part2")):
            fail = reset = 1.0
        if name is None:
            fail = reset = 1.0  # the bucket, listings: see the module's comment
        body = self.read_body()
        if "always503" in segments or fail < self.server.fail_rate:
            status = 503 if "always503" in segments or fail < self.server.fail_rate / 2 else 500
            return self.gcs_error(status, "backendError", "injected fault")
        cut_response = False
        if reset < self.server.reset_rate:
            if reset < self.server.reset_rate / 2:
                self.record(0, 0, "reset")
                return self.reset()
            cut_response = True

        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        response, data = self.upstream_request(self.command, self.path, body, headers)
        status = response.status
        cut = cut_response and self.command != "HEAD" and len(data) > 1
        sent = 0 if self.command == "HEAD" else len(data) // 2 if cut else len(data)
        self.record(status, sent, "reset" if cut else "forwarded")
        self.send_response(status)
        for header, value in response.getheaders():
            if header.lower() not in HOP_BY_HOP and header.lower() != "content-length":
                self.send_header(header, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if cut:
            self.wfile.write(data[:sent])
            self.wfile.flush()
            return self.reset()
        self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = handle_any


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log")
    parser.add_argument("--fail-rate", type=float, default=0.0)
    parser.add_argument("--reset-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-lifetime", type=float, default=3600)
    parser.add_argument("--gcs", action="store_true")
    parser.add_argument("--require-bearer")
    args = parser.parse_args()

    upstream = urllib.parse.urlsplit(args.upstream)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    server.daemon_threads = True
    server.upstream_host, server.upstream_port = upstream.hostname, upstream.port
    server.fail_rate, server.reset_rate = args.fail_rate, args.reset_rate
    server.rng = random.Random(args.seed)
    server.lock = threading.Lock()
    server.gcs, server.require_bearer = args.gcs, args.require_bearer
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
