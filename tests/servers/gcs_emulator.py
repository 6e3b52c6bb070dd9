"""gcp-storage-emulator, with what the GCS store's tests need and the emulator lacks.

Usage: gcs_emulator.py PORT

Runs the emulator (in memory) on 127.0.0.1:PORT, with three additions that the real
service has and that libzarr's GCS store relies on:
- preconditions: `ifGenerationMatch` on uploads (media, multipart and the start of a
  resumable upload) and deletes, answered with HTTP 412 when unmet (0: "no object");
  without them, the multi-writer test would measure the emulator, not the store;
- the object's generation in the `x-goog-generation` header of a download;
- listing pages: `maxResults` and `pageToken` (the emulator returns everything at once).
The emulator serves one request at a time, so a check and the write it guards cannot
interleave with another request. Everything else is the emulator's own.
"""

import sys
from http import HTTPStatus

from gcp_storage_emulator import server
from gcp_storage_emulator.exceptions import NotFound
from gcp_storage_emulator.handlers import objects

DEFAULT_PAGE = 1000


def current_generation(storage, bucket, name):
    try:
        return int(storage.get_file_obj(bucket, name)["generation"])
    except NotFound:
        return 0


def precondition_fails(request, response, storage, name):
    """Answer 412 and return True when the request's ifGenerationMatch does not hold."""
    wanted = request.query.get("ifGenerationMatch")
    if not wanted or name is None:
        return False
    bucket = request.params["bucket_name"]
    if int(wanted[0]) == current_generation(storage, bucket, name):
        return False
    response.status = HTTPStatus.PRECONDITION_FAILED
    response.json({"error": {"code": 412, "message": "conditionNotMet: At least one of the "
                                                     "pre-conditions you specified did not hold."}})
    return True


def upload_name(request):
    if "name" in request.query:
        return request.query["name"][0]
    data = request.data
    if isinstance(data, dict):
        meta = data.get("meta") if "meta" in data else data
        if isinstance(meta, dict):
            return meta.get("name")
    return None


original_insert = objects.insert
original_delete = objects.delete
original_download = objects.download
original_get = objects.get


def insert(request, response, storage, *args, **kwargs):
    if "upload_id" not in request.query and precondition_fails(
            request, response, storage, upload_name(request)):
        return
    return original_insert(request, response, storage, *args, **kwargs)


def delete(request, response, storage, *args, **kwargs):
    if precondition_fails(request, response, storage, request.params["object_id"]):
        return
    return original_delete(request, response, storage, *args, **kwargs)


def download(request, response, storage, *args, **kwargs):
    original_download(request, response, storage, *args, **kwargs)
    if response.status in (HTTPStatus.OK, HTTPStatus.PARTIAL_CONTENT):
        generation = current_generation(storage, request.params["bucket_name"],
                                        request.params["object_id"])
        response["x-goog-generation"] = str(generation)


def get(request, response, storage, *args, **kwargs):
    if request.query.get("alt") and request.query.get("alt")[0] == "media":
        return download(request, response, storage)
    return original_get(request, response, storage, *args, **kwargs)


def ls(request, response, storage, *args, **kwargs):
    query = request.query
    first = lambda name: query[name][0] if query.get(name) else None  # noqa: E731
    try:
        files, prefixes = storage.get_file_list(
            request.params["bucket_name"], first("prefix"), first("delimiter"), None)
    except NotFound:
        response.status = HTTPStatus.NOT_FOUND
        return
    entries = sorted([(f["name"], f) for f in files] + [(p, None) for p in prefixes],
                     key=lambda e: e[0])
    size = int(first("maxResults") or DEFAULT_PAGE)
    start = int(first("pageToken") or 0)
    page = entries[start:start + size]
    body = {"kind": "storage#objects",
            "items": [f for _, f in page if f is not None],
            "prefixes": [p for p, f in page if f is None]}
    if start + size < len(entries):
        body["nextPageToken"] = str(start + size)
    response.json(body)


REPLACED = {original_insert: insert, original_delete: delete,
            original_download: download, original_get: get, objects.ls: ls}


def main():
    port = int(sys.argv[1])
    objects.insert = insert  # the router's fallback for uploads without /upload
    server.HANDLERS = tuple(
        (regex, {method: REPLACED.get(handler, handler) for method, handler in handlers.items()})
        for regex, handlers in server.HANDLERS)
    server.create_server("127.0.0.1", port, in_memory=True).run()


if __name__ == "__main__":
    main()
