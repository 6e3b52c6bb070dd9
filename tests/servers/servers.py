"""Start and stop the loopback servers of libzarr's remote-store tests (ctest fixture).

Usage: servers.py start DIR [--s3s-fs PATH] [--azurite PATH]
       servers.py stop DIR

`start` launches, each on 127.0.0.1 on a free port and in its own process group:
- http:          tests/servers/http_server.py over DIR/http-root, with Range support
- http_norange:  the same files, Range ignored (always 200 with the whole file)
- https:         the same files over TLS, with a certificate for 127.0.0.1 signed by a
                 CA made now (DIR/tls/ca.pem; trust it through SSL_CERT_FILE)
- moto:          moto's S3 server (moto[server], in this Python), buckets created
- faulty:        tests/servers/fault_proxy.py in front of moto (20% 500/503, 10% resets)
- counting:      fault_proxy.py in front of moto without faults (request counts)
- s3s:           s3s-fs (checks SigV4 signatures) over DIR/s3s-root, when --s3s-fs is given
- gcs:           gcp-storage-emulator (tests/servers/gcs_emulator.py, in memory, in this
                 Python), buckets created; and before it fault_proxy.py --gcs as
                 gcs_faulty (faults), gcs_counting (none) and gcs_auth (checks bearer
                 tokens); the emulator is made to page listings, honour ifGenerationMatch
                 and suffix ranges as GCS does (see gcs_emulator.py)
- gcs_token:     an OAuth token endpoint for a test service account
                 (tests/servers/gcs_token_server.py); its key file DIR/gcs/service-account.json
                 (and DIR/gcs/service-account-untrusted.json, signed by a key it rejects)
- azurite:       Azurite's blob service (Azure Blob Storage emulator) over DIR/azurite, when
                 --azurite (its installation directory) is given, containers created; and
                 azure_faulty, fault_proxy.py in front of it (as faulty is for moto)
Each logs its requests to DIR/logs/<name>.log. Then it writes DIR/servers.env, lines
`NAME=VALUE` the tests read (URLs, the CA file, the s3s keys, the log and root
directories), and DIR/pids. `stop` kills every process group listed in DIR/pids.
Every server also exits by itself after an hour, so a run killed before `stop` cannot
leave servers behind for long.
"""

import base64
import datetime
import hashlib
import hmac
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BUCKETS = ["zarr-test", "zarr-interop", "zarr-faults"]
S3S_ACCESS_KEY = "zarr-test-key"
S3S_SECRET_KEY = "zarr-test-secret-0123456789"
LIFETIME = "3600"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_file(path, process, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            with open(path) as f:
                return f.read().strip()
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with status {process.returncode}")
        time.sleep(0.05)
    raise SystemExit(f"{what} did not start within {timeout} s")


def wait_for_port(port, process, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"{what} exited with status {process.returncode}")
            time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on port {port} within {timeout} s")


def make_certificates(tls):
    os.makedirs(tls, exist_ok=True)
    run = lambda *args: subprocess.run(args, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-keyout", f"{tls}/ca.key", "-out", f"{tls}/ca.pem", "-subj", "/CN=libzarr test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{tls}/server.key",
        "-out", f"{tls}/server.csr", "-subj", "/CN=127.0.0.1")
    with open(f"{tls}/server.ext", "w") as f:
        f.write("basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"
                "extendedKeyUsage=serverAuth\n")
    run("openssl", "x509", "-req", "-in", f"{tls}/server.csr", "-CA", f"{tls}/ca.pem",
        "-CAkey", f"{tls}/ca.key", "-CAcreateserial", "-days", "2", "-out",
        f"{tls}/server.pem", "-extfile", f"{tls}/server.ext")


# Azurite's well-known development account (public; Microsoft documents it).
AZURE_ACCOUNT = "devstoreaccount1"
AZURE_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
             "K1SZFPTOtr/KBHBeksoGMGw==")
AZURE_VERSION = "2021-08-06"


def azure_sign(text):
    key = base64.b64decode(AZURE_KEY)
    return base64.b64encode(hmac.new(key, text.encode(), hashlib.sha256).digest()).decode()


def azure_create_container(url, container):
    """PUT ?restype=container with a Shared Key signature (409: already there)."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%a, %d %b %Y %H:%M:%S GMT")
    headers = {"x-ms-date": date, "x-ms-version": AZURE_VERSION}
    path = urllib.parse.urlsplit(url).path + "/" + container
    canonical_headers = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()))
    to_sign = ("PUT\n" + "\n" * 11 + canonical_headers
               + f"/{AZURE_ACCOUNT}{path}\nrestype:container")
    headers["Authorization"] = f"SharedKey {AZURE_ACCOUNT}:{azure_sign(to_sign)}"
    request = urllib.request.Request(f"{url}/{container}?restype=container", method="PUT",
                                     headers=headers)
    try:
        urllib.request.urlopen(request, timeout=30).read()
    except urllib.error.HTTPError as e:
        if e.code != 409:
            raise


def azure_container_sas(container):
    """A service SAS for `container` (read, add, create, write, delete, list), valid for
    two days, as the query string without '?'."""
    now = datetime.datetime.now(datetime.timezone.utc)
    start = (now - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    expiry = (now + datetime.timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    permissions, protocol, resource = "racwdl", "http,https", "c"
    # Version 2020-12-06 and later: the signed fields in this order.
    to_sign = "\n".join([permissions, start, expiry, f"/blob/{AZURE_ACCOUNT}/{container}",
                         "", "", protocol, AZURE_VERSION, resource, "", "",
                         "", "", "", "", ""])
    return urllib.parse.urlencode({
        "sv": AZURE_VERSION, "st": start, "se": expiry, "sr": resource,
        "sp": permissions, "spr": protocol, "sig": azure_sign(to_sign)})


def start_azurite(directory, azurite, launch, python_server, env):
    """Azurite's blob service on a free port, its containers, and a fault proxy."""
    port = free_port()
    process = launch("azurite", [
        "timeout", LIFETIME, os.path.join(azurite, "node_modules", ".bin", "azurite-blob"),
        "--blobHost", "127.0.0.1", "--blobPort", str(port),
        "--location", os.path.join(directory, "azurite"),
        "--debug", os.path.join(directory, "logs", "azurite.log"),
        "--skipApiVersionCheck", "--loose", "--disableProductStyleUrl",
        # Azurite sends usage data to Microsoft unless told not to: nothing leaves 127.0.0.1.
        "--disableTelemetry"])
    wait_for_port(port, process, "azurite")
    url = f"http://127.0.0.1:{port}/{AZURE_ACCOUNT}"
    for container in BUCKETS:
        azure_create_container(url, container)
    env["ZARR_TEST_AZURE"] = url
    env["ZARR_TEST_AZURE_ACCOUNT"] = AZURE_ACCOUNT
    env["ZARR_TEST_AZURE_KEY"] = AZURE_KEY
    env["ZARR_TEST_AZURE_SAS"] = azure_container_sas("zarr-test")
    proxy = python_server("azure_faulty", "fault_proxy.py", "--upstream",
                          f"http://127.0.0.1:{port}", "--fail-rate", "0.2",
                          "--reset-rate", "0.1", "--seed", "11")
    env["ZARR_TEST_AZURE_FAULTY"] = f"http://127.0.0.1:{proxy}/{AZURE_ACCOUNT}"


def start(directory, s3s_fs, azurite=None):
    stop(directory)
    shutil.rmtree(directory, ignore_errors=True)
    logs = os.path.join(directory, "logs")
    http_root = os.path.join(directory, "http-root")
    for d in (logs, http_root):
        os.makedirs(d)
    env = {}
    pids = []

    def launch(name, args):
        process = subprocess.Popen(args, start_new_session=True,
                                   stdout=open(os.path.join(logs, f"{name}.out"), "w"),
                                   stderr=subprocess.STDOUT)
        pids.append(process.pid)
        with open(os.path.join(directory, "pids"), "w") as f:
            f.write("\n".join(map(str, pids)) + "\n")
        return process

    def python_server(name, script, *args):
        port_file = os.path.join(directory, f"{name}.port")
        process = launch(name, [sys.executable, os.path.join(HERE, script),
                                "--port-file", port_file, "--log",
                                os.path.join(logs, f"{name}.log"),
                                "--max-lifetime", LIFETIME, *args])
        return wait_for_file(port_file, process, name)

    port = python_server("http", "http_server.py", "--root", http_root)
    env["ZARR_TEST_HTTP"] = f"http://127.0.0.1:{port}"
    port = python_server("http_norange", "http_server.py", "--root", http_root, "--no-range")
    env["ZARR_TEST_HTTP_NORANGE"] = f"http://127.0.0.1:{port}"
    tls = os.path.join(directory, "tls")
    make_certificates(tls)
    port = python_server("https", "http_server.py", "--root", http_root,
                         "--tls-cert", f"{tls}/server.pem", "--tls-key", f"{tls}/server.key")
    env["ZARR_TEST_HTTPS"] = f"https://127.0.0.1:{port}"
    env["ZARR_TEST_CA_FILE"] = f"{tls}/ca.pem"

    moto_port = free_port()
    moto = launch("moto", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                           "-p", str(moto_port)])
    wait_for_port(moto_port, moto, "moto")
    moto_url = f"http://127.0.0.1:{moto_port}"
    for bucket in BUCKETS:
        request = urllib.request.Request(f"{moto_url}/{bucket}", method="PUT")
        urllib.request.urlopen(request, timeout=30).read()
    env["ZARR_TEST_MOTO"] = moto_url
    port = python_server("faulty", "fault_proxy.py", "--upstream", moto_url,
                         "--fail-rate", "0.2", "--reset-rate", "0.1", "--seed", "7")
    env["ZARR_TEST_FAULTY_S3"] = f"http://127.0.0.1:{port}"
    port = python_server("counting", "fault_proxy.py", "--upstream", moto_url)
    env["ZARR_TEST_COUNTING_S3"] = f"http://127.0.0.1:{port}"

    if s3s_fs:
        s3s_root = os.path.join(directory, "s3s-root")
        for bucket in BUCKETS:
            os.makedirs(os.path.join(s3s_root, bucket))
        s3s_port = free_port()
        s3s = launch("s3s", [s3s_fs, "--host", "127.0.0.1", "--port", str(s3s_port),
                             "--access-key", S3S_ACCESS_KEY, "--secret-key", S3S_SECRET_KEY,
                             s3s_root])
        wait_for_port(s3s_port, s3s, "s3s-fs")
        env["ZARR_TEST_S3S"] = f"http://127.0.0.1:{s3s_port}"
        env["ZARR_TEST_S3S_ACCESS_KEY"] = S3S_ACCESS_KEY
        env["ZARR_TEST_S3S_SECRET_KEY"] = S3S_SECRET_KEY

    start_gcs(directory, logs, env, python_server)
    if azurite:
        start_azurite(directory, azurite, launch, python_server, env)

    env["ZARR_TEST_HTTP_ROOT"] = http_root
    env["ZARR_TEST_LOGS"] = logs
    env["ZARR_TEST_DIR"] = directory
    tmp = os.path.join(directory, "servers.env.tmp")
    with open(tmp, "w") as f:
        for name, value in env.items():
            f.write(f"{name}={value}\n")
    os.replace(tmp, os.path.join(directory, "servers.env"))
    print(f"servers started in {directory}")


GCS_STATIC_TOKEN = "zarr-test-static-token"


def make_rsa_key(path):
    """An RSA key (PKCS#8 PEM) at path, and its public key at path + '.pub'."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        with open(path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        with open(path + ".pub", "wb") as f:
            f.write(key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    except ImportError:
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt",
                        "rsa_keygen_bits:2048", "-out", path], check=True, capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", path, "-pubout", "-out", path + ".pub"],
                       check=True, capture_output=True)
    with open(path) as f:
        return f.read()


def write_service_account(path, private_key, token_uri, key_id):
    import json
    with open(path, "w") as f:
        json.dump({"type": "service_account", "project_id": "zarr-test",
                   "private_key_id": key_id, "private_key": private_key,
                   "client_email": "zarr-test@zarr-test.iam.gserviceaccount.com",
                   "client_id": "100000000000000000001",
                   "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                   "token_uri": token_uri}, f, indent=2)


def start_gcs(directory, logs, env, python_server):
    """The GCS emulator, its proxies, the token endpoint and the service-account keys."""
    gcs = os.path.join(directory, "gcs")
    os.makedirs(gcs)
    port = python_server("gcs", "gcs_emulator.py", *[a for b in BUCKETS for a in ("--bucket", b)])
    gcs_url = f"http://127.0.0.1:{port}"
    env["GCS_URL"] = gcs_url
    port = python_server("gcs_faulty", "fault_proxy.py", "--gcs", "--upstream", gcs_url,
                         "--fail-rate", "0.2", "--reset-rate", "0.1", "--seed", "7")
    env["GCS_FAULTY_URL"] = f"http://127.0.0.1:{port}"
    port = python_server("gcs_counting", "fault_proxy.py", "--gcs", "--upstream", gcs_url)
    env["GCS_COUNTING_URL"] = f"http://127.0.0.1:{port}"

    tokens = os.path.join(gcs, "tokens")
    with open(tokens, "w") as f:
        f.write(GCS_STATIC_TOKEN + "\n")
    port = python_server("gcs_auth", "fault_proxy.py", "--gcs", "--upstream", gcs_url,
                         "--require-bearer", tokens)
    env["GCS_AUTH_URL"] = f"http://127.0.0.1:{port}"
    env["GCS_TOKEN"] = GCS_STATIC_TOKEN

    key = make_rsa_key(os.path.join(gcs, "service-account.key"))
    untrusted = make_rsa_key(os.path.join(gcs, "untrusted.key"))
    port = python_server("gcs_token", "gcs_token_server.py", "--public-key",
                         os.path.join(gcs, "service-account.key.pub"), "--tokens", tokens)
    token_url = f"http://127.0.0.1:{port}/token"
    service_account = os.path.join(gcs, "service-account.json")
    write_service_account(service_account, key, token_url, "zarr-test-key-1")
    write_service_account(os.path.join(gcs, "service-account-untrusted.json"), untrusted,
                          token_url, "zarr-test-key-2")
    env["GCS_TOKEN_URL"] = token_url
    env["GCS_SERVICE_ACCOUNT"] = service_account
    env["GCS_SERVICE_ACCOUNT_UNTRUSTED"] = os.path.join(
        gcs, "service-account-untrusted.json")


def stop(directory):
    pid_file = os.path.join(directory, "pids")
    if not os.path.exists(pid_file):
        return
    with open(pid_file) as f:
        pids = [int(line) for line in f if line.strip()]
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + 5
    for pid in pids:
        while time.time() < deadline:
            try:
                os.killpg(pid, 0)
                time.sleep(0.05)
            except ProcessLookupError:
                break
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    os.remove(pid_file)
    servers_env = os.path.join(directory, "servers.env")
    if os.path.exists(servers_env):
        os.remove(servers_env)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("start", "stop"):
        raise SystemExit(__doc__)
    directory = os.path.abspath(sys.argv[2])
    if sys.argv[1] == "start":
        s3s_fs = None
        if "--s3s-fs" in sys.argv:
            s3s_fs = sys.argv[sys.argv.index("--s3s-fs") + 1]
        azurite = None
        if "--azurite" in sys.argv:
            azurite = sys.argv[sys.argv.index("--azurite") + 1]
        try:
            start(directory, s3s_fs, azurite)
        except BaseException:
            stop(directory)
            raise
    else:
        stop(directory)


if __name__ == "__main__":
    main()
