"""gcp-storage-emulator (the GCS JSON API, in memory) for libzarr's remote-store tests.

Usage: gcs_emulator.py --port-file FILE --log FILE [--bucket NAME ...] [--max-lifetime S]
                       [--as-is]

Runs the emulator of the PyPI package gcp-storage-emulator (interop/requirements.txt) in
this process on 127.0.0.1 (a free port, written to --port-file once listening), with its
objects in memory, after creating the buckets given. Every request is logged to --log as
the emulator logs it (`"GET /storage/v1/b/... HTTP/1.1" 200 -`). Exits by itself after
--max-lifetime seconds (default 3600), like the other test servers.

The emulator serves one connection at a time (http.server.HTTPServer, HTTP/1.0), so one
client that connects and sends no request line (a TLS handshake, a stalled socket)
blocks every other. Here it reads requests in threads instead (ThreadingHTTPServer, a
60 s socket timeout, a listen backlog of 128) and handles them one at a time under a
lock, so its storage still sees one request at a time.

Where the emulator departs from GCS in what libzarr relies on, its handlers are wrapped
here so that it answers as GCS does (unless --as-is):
- ifGenerationMatch (ignored by the emulator) is enforced on uploads (media, multipart,
  resumable: the creation and every PUT, whose Location keeps the condition) and on
  DELETE: 412 conditionNotMet unless the object's generation is the one given, 0 meaning
  that the object must not exist. One request at a time, so this is atomic.
- listings (the emulator answers everything at once, ignoring maxResults and pageToken)
  are cut into pages of min(maxResults, 1000) entries, objects and prefixes together in
  name order, with nextPageToken;
- Range: a suffix range `bytes=-N` (which the emulator ignores, answering 200 with the
  whole object) is served as the last N bytes, and a range starting at or after the end
  (answered 206 with an empty body and a malformed Content-Range) is 416 with
  `Content-Range: bytes */SIZE`;
- a multipart upload's media part is taken byte for byte (the emulator parses the body
  with the email package, which loses a line ending at the end of binary content);
- DELETE answers 204 (the emulator says 200);
- a media download carries x-goog-generation, x-goog-metageneration and
  x-goog-stored-content-length, as GCS's do (the emulator sends none of them).
"""

import argparse
import http.server
import json
import logging
import re
import os
import sys
import threading


PAGE_SIZE = 1000
PRECONDITION = "At least one of the pre-conditions you specified did not hold."


def gcs_error(response, status, reason, message):
    response.status = status
    response.json({"error": {"code": int(status), "message": message,
                             "errors": [{"domain": "global", "reason": reason,
                                         "message": message}]}})


def make_threaded():
    """Threads read the requests; one lock serialises their handling (see above)."""
    import types

    from gcp_storage_emulator import server

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

    lock = threading.Lock()
    handle = server.Router.handle

    def locked(self, method):
        with lock:
            return handle(self, method)

    server.Router.handle = locked
    server.RequestHandler.timeout = 60
    server.server = types.SimpleNamespace(HTTPServer=Server)


def make_faithful():
    """Wrap the emulator's handlers in its routing table (see the module's comment)."""
    from http import HTTPStatus

    from gcp_storage_emulator import server
    from gcp_storage_emulator.exceptions import NotFound
    from gcp_storage_emulator.handlers import objects

    def generation(storage, bucket, name):
        try:
            return str(storage.get_file_obj(bucket, name).get("generation") or "0")
        except NotFound:
            return "0"

    def conditional(handler, name_of):
        def wrapped(request, response, storage, *args, **kwargs):
            wanted = request.query.get("ifGenerationMatch")
            if wanted:
                name = name_of(request)
                bucket = request.params["bucket_name"]
                if name is not None and generation(storage, bucket, name) != wanted[0]:
                    return gcs_error(response, HTTPStatus.PRECONDITION_FAILED,
                                     "conditionNotMet", PRECONDITION)
            return handler(request, response, storage, *args, **kwargs)
        return wrapped

    def upload_name(request):
        if "name" in request.query:
            return request.query["name"][0]
        data = request.data
        if isinstance(data, dict):
            return (data.get("meta") or data).get("name")
        return None

    def delete(request, response, storage, *args, **kwargs):
        objects.delete(request, response, storage, *args, **kwargs)
        if response.status == HTTPStatus.OK:
            response.status = HTTPStatus.NO_CONTENT

    def ls(request, response, storage, *args, **kwargs):
        objects.ls(request, response, storage, *args, **kwargs)
        if response.status != HTTPStatus.OK:
            return
        listing = json.loads(response._content)
        entries = sorted([(i["name"], "items", i) for i in listing.get("items") or []]
                         + [(p, "prefixes", p) for p in listing.get("prefixes") or []],
                         key=lambda e: e[0])
        size = PAGE_SIZE
        if request.query.get("maxResults"):
            size = max(1, min(size, int(request.query["maxResults"][0])))
        start = int(request.query["pageToken"][0]) if request.query.get("pageToken") else 0
        page = {"kind": "storage#objects", "items": [], "prefixes": []}
        for _, kind, value in entries[start:start + size]:
            page[kind].append(value)
        if start + size < len(entries):
            page["nextPageToken"] = str(start + size)
        response.json(page)

    def download(request, response, storage, *args, **kwargs):
        headers = request._request_handler.headers
        value = headers.get("Range")
        if value:
            try:
                size = len(storage.get_file(request.params["bucket_name"],
                                            request.params["object_id"]))
            except NotFound:
                size = None
            suffix = re.fullmatch(r"\s*bytes=-([0-9]+)\s*", value)
            plain = re.fullmatch(r"\s*bytes=([0-9]+)-([0-9]*)\s*", value)
            if size is not None and suffix:
                del headers["Range"]
                n = int(suffix.group(1))
                if n == 0:
                    response["Content-Range"] = f"bytes */{size}"
                    return gcs_error(response, HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                                     "requestedRangeNotSatisfiable",
                                     "The requested range cannot be satisfied.")
                headers["Range"] = f"bytes={max(0, size - n)}-"
            elif size is not None and plain and int(plain.group(1)) >= size:
                response["Content-Range"] = f"bytes */{size}"
                return gcs_error(response, HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                                 "requestedRangeNotSatisfiable",
                                 "The requested range cannot be satisfied.")
        objects.download(request, response, storage, *args, **kwargs)
        if response.status in (HTTPStatus.OK, HTTPStatus.PARTIAL_CONTENT):
            obj = storage.get_file_obj(request.params["bucket_name"],
                                       request.params["object_id"])
            response["x-goog-generation"] = str(obj.get("generation"))
            response["x-goog-metageneration"] = str(obj.get("metageneration"))
            response["x-goog-stored-content-length"] = str(obj.get("size"))

    def get(request, response, storage, *args, **kwargs):
        if request.query.get("alt") and request.query.get("alt")[0] == "media":
            return download(request, response, storage, *args, **kwargs)
        return objects.get(request, response, storage, *args, **kwargs)

    read_data = server._read_data

    def read_multipart(request_handler, query):
        content_type = request_handler.headers.get("Content-Type") or ""
        boundary = re.search(r'boundary="?([^";]+)"?', content_type)
        if not content_type.startswith("multipart/related") or not boundary:
            return read_data(request_handler, query)
        raw = server._decode_raw_data(server._read_raw_data(request_handler),
                                      request_handler)
        delimiter = b"--" + boundary.group(1).encode()
        # RFC 2046 wants CRLF line endings; gcsfs sends bare LF: take the sender's.
        first = raw.find(delimiter) + len(delimiter)
        newline = b"\r\n" if raw[first:first + 2] == b"\r\n" else b"\n"
        parts = []
        for chunk in raw.split(delimiter)[1:]:
            if chunk.startswith(b"--"):
                break
            head, _, body = chunk[len(newline):].partition(newline + newline)
            if body.endswith(newline):
                body = body[:-len(newline)]
            headers = {}
            for line in head.decode("latin-1").splitlines():
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            parts.append((headers, body))
        return {"meta": json.loads(parts[0][1]), "content": parts[1][1],
                "content-type": parts[1][0].get("content-type", "application/octet-stream")}

    server._read_data = read_multipart

    replacements = {
        objects.insert: conditional(objects.insert, upload_name),
        objects.upload_partial: conditional(objects.upload_partial, upload_name),
        objects.delete: conditional(delete, lambda r: r.params["object_id"]),
        objects.ls: ls,
        objects.download: download,
        objects.get: get,
    }
    for _, handlers in server.HANDLERS:
        for method, handler in list(handlers.items()):
            if handler in replacements:
                handlers[method] = replacements[handler]
    # The router falls back to objects.insert for uploads without the /upload prefix.
    server.objects = type("objects", (), {"insert": staticmethod(replacements[objects.insert])})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--bucket", action="append", default=[])
    parser.add_argument("--max-lifetime", type=float, default=3600)
    parser.add_argument("--as-is", action="store_true",
                        help="serve the emulator unchanged (see the module's comment)")
    args = parser.parse_args()

    logging.basicConfig(filename=args.log, level=logging.INFO,
                        format="%(asctime)s %(name)s %(message)s")
    make_threaded()
    from gcp_storage_emulator.handlers.buckets import create_bucket
    from gcp_storage_emulator.server import create_server

    if not args.as_is:
        make_faithful()

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
