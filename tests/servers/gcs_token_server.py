"""A loopback OAuth 2.0 token endpoint for libzarr's GCS service-account tests.

Usage: gcs_token_server.py --public-key PEM --port-file FILE --log FILE --tokens FILE
                           [--max-lifetime S]

Answers `POST /token` with a form body `grant_type=urn:ietf:params:oauth:grant-type:
jwt-bearer&assertion=JWT`, as Google's token endpoint does for a service account:
the JWT must be `header.claims.signature` in base64url, the header {"alg": "RS256"}, the
signature RS256 (PKCS#1 v1.5, SHA-256) by the private key matching --public-key, and the
claims must have `iss` (the key file's client_email), `aud` equal to this endpoint's URL
(the key file's token_uri), a `scope` containing `devstorage`, an `iat` not in the future
(30 s of slack) and an `exp` after now and at most an hour after `iat`. Then it answers
200 {"access_token": "zarr-test-token-N", "expires_in": 3600, "token_type": "Bearer"}
and appends the token to --tokens (the GCS proxy that checks bearer tokens reads it).
A malformed request is answered 400 {"error": "invalid_request"}, a bad grant 400
{"error": "invalid_grant", "error_description": ...}, a bad signature 401
{"error": "invalid_client"}, as Google does.
Every request is appended to --log as `METHOD PATH STATUS iss=ISS TOKEN-OR-REASON`, so a
test counts the token requests of its own client_email. Exits after --max-lifetime.
"""

import argparse
import base64
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def answer(self, status, payload, iss="-", note="-"):
        body = json.dumps(payload).encode()
        with self.server.lock:
            self.server.request_log.write(
                f"{self.command} {self.path} {status} iss={iss} {note}\n")
            self.server.request_log.flush()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(405, {"error": "invalid_request", "error_description": "POST only"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        if urllib.parse.urlsplit(self.path).path != "/token":
            return self.answer(404, {"error": "not_found"})
        form = urllib.parse.parse_qs(body)
        if form.get("grant_type") != [GRANT] or len(form.get("assertion", [])) != 1:
            return self.answer(400, {"error": "invalid_request",
                                     "error_description": "grant_type or assertion"},
                               note="bad-form")
        parts = form["assertion"][0].split(".")
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
            assert len(parts) == 3
        except Exception:
            return self.answer(400, {"error": "invalid_grant",
                                     "error_description": "malformed JWT"}, note="malformed")
        iss = str(claims.get("iss", "-")).replace(" ", "_")
        if header.get("alg") != "RS256":
            return self.answer(400, {"error": "invalid_grant",
                                     "error_description": "alg must be RS256"}, iss, "alg")
        try:
            self.server.public_key.verify(signature, f"{parts[0]}.{parts[1]}".encode(),
                                          padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return self.answer(401, {"error": "invalid_client",
                                     "error_description": "Invalid JWT Signature."},
                               iss, "bad-signature")
        now = time.time()
        problems = []
        if not claims.get("iss"):
            problems.append("iss missing")
        if claims.get("aud") != self.server.url:
            problems.append(f"aud {claims.get('aud')!r} is not {self.server.url!r}")
        if "devstorage" not in str(claims.get("scope", "")):
            problems.append(f"scope {claims.get('scope')!r} lacks devstorage")
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, (int, float)) or iat > now + 30:
            problems.append(f"iat {iat!r}")
        if not isinstance(exp, (int, float)) or exp <= now or (
                isinstance(iat, (int, float)) and exp - iat > 3600):
            problems.append(f"exp {exp!r}")
        if problems:
            return self.answer(400, {"error": "invalid_grant",
                                     "error_description": "; ".join(problems)},
                               iss, "bad-claims:" + "|".join(p.split()[0] for p in problems))
        with self.server.lock:
            self.server.issued += 1
            token = f"zarr-test-token-{self.server.issued}"
            with open(self.server.tokens, "a") as f:
                f.write(token + "\n")
        self.answer(200, {"access_token": token, "expires_in": 3600,
                          "token_type": "Bearer"}, iss, token)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--tokens", required=True)
    parser.add_argument("--max-lifetime", type=float, default=3600)
    args = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.public_key, "rb") as f:
        server.public_key = serialization.load_pem_public_key(f.read())
    server.url = f"http://127.0.0.1:{server.server_address[1]}/token"
    server.lock = threading.Lock()
    server.issued = 0
    server.tokens = args.tokens
    server.request_log = open(args.log, "a")
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
