"""The remote benchmark: libzarr and its peers read one 1 GiB sharded float32 array over HTTP,
from a GCS emulator and from an Azure Blob emulator on loopback, with an added round-trip
delay, in one run.

Usage: bench.py [--store http,gcs,azure] [--delay-ms 20] [--reps 3] [--inner-reps 7]
                [--quick] [--gcs-as-is]
       (run through bench/remote/run.sh, which builds and installs what it needs)

The array (shape 1024 x 1024 x 256 float32, shards 256^3 of 32^3 inner chunks, zstd level 1,
index bytes + crc32c: the layout c of bench/) is written once by zarr-python into
build/bench-remote/data. --store picks the servers, one after the other (default: all):
- http: tests/servers/http_server.py serves the files with Range support and holds every
  answer --delay-ms;
- gcs: gcp-storage-emulator (in memory) through tests/servers/gcs_emulator.py (which
  makes it serve suffix ranges as GCS does; --gcs-as-is: not), the data uploaded into
  the bucket `bench` with media uploads;
- azure: Azurite's blob service (build/test-tools/azurite), account devstoreaccount1,
  the data uploaded into the container `bench` with azure-storage-blob.
The emulators are behind bench/remote/delay_proxy.py, which holds every request
--delay-ms (the kernel here has no netem qdisc, so the delay is per request, not per
packet) and logs it. Each reader runs in its own process:
- http: libzarr (bench/remote/read_remote, zarr_store_open_url on the http:// URL),
  tensorstore (zarr3 over its http kvstore), zarr-python (ObjectStore over obstore's
  HTTPStore);
- gcs: libzarr (gs://bench/bench.zarr with the endpoint option), tensorstore (zarr3 over
  its gcs kvstore, TENSORSTORE_GCS_HTTP_URL pointing at the proxy), zarr-python
  (FsspecStore over gcsfs);
- azure: libzarr (az://bench/bench.zarr with endpoint and account key), zarr-python
  (ObjectStore over obstore's AzureStore), zarr-python (FsspecStore over adlfs).
Operations: the whole array, and the inner chunk (1, 1, 1). The report gives per store,
operation and reader the median and min-max seconds, the ratio peer / libzarr (above 1:
libzarr faster), and the requests and bytes the server answered per repetition (from the
server's or proxy's log), then per store and operation the ratio to the best peer against
the goal of 1.25x.
"""

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
WORK = os.path.join(BUILD, "bench-remote")
DATA = os.path.join(WORK, "data")
HERE = os.path.dirname(os.path.abspath(__file__))
AZURITE = os.path.join(BUILD, "test-tools", "azurite", "node_modules", ".bin", "azurite-blob")
SHAPE, SHARDS, INNER = (1024, 1024, 256), (256, 256, 256), (32, 32, 32)
BUCKET = CONTAINER = "bench"
ACCOUNT = "devstoreaccount1"
# Azurite's well-known development key (public, in Microsoft's documentation, Azurite's
# source and object_store's emulator defaults).
ACCOUNT_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
               "KBHBeksoGMGw==")
READERS = {
    "http": ("libzarr", "tensorstore", "zarr-python"),
    "gcs": ("libzarr", "tensorstore", "zarr-py+gcsfs"),
    "azure": ("libzarr", "zarr-python", "zarr-py+adlfs"),
}
WHAT = {
    "http": "HTTP server (tests/servers/http_server.py)",
    "gcs": "gcp-storage-emulator",
    "azure": "Azurite blob service",
}
GOAL = 1.25


def make_data(quick):
    import numpy as np
    import zarr
    from zarr.codecs import BytesCodec, ZstdCodec
    shape = (256, 256, 256) if quick else SHAPE
    marker = os.path.join(DATA, f"done-{'x'.join(map(str, shape))}")
    if os.path.exists(marker):
        return shape
    for old in os.listdir(DATA):
        if old.startswith("done-"):
            os.remove(os.path.join(DATA, old))
    store = os.path.join(DATA, "bench.zarr")
    arr = zarr.create_array(store=store, name="c", shape=shape, shards=SHARDS, chunks=INNER,
                            dtype="float32", compressors=ZstdCodec(level=1),
                            serializer=BytesCodec(), fill_value=0, overwrite=True)
    for i in range(0, shape[0], SHARDS[0]):
        x = np.arange(i, i + SHARDS[0], dtype=np.float32)[:, None, None]
        y = np.arange(shape[1], dtype=np.float32)[None, :, None]
        z = np.arange(shape[2], dtype=np.float32)[None, None, :]
        arr[i:i + SHARDS[0]] = np.sin(x * 0.01) * 100 + y * 0.5 + z * 0.25
    open(marker, "w").close()
    return shape


def data_files():
    """(name in the bucket, path) of every file of the stored array."""
    top = os.path.join(DATA, "bench.zarr")
    for folder, _, files in os.walk(top):
        for name in sorted(files):
            path = os.path.join(folder, name)
            yield "bench.zarr/" + os.path.relpath(path, top).replace(os.sep, "/"), path


# --- readers ------------------------------------------------------------------------------


def connection_string(endpoint):
    return (f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={ACCOUNT_KEY};"
            f"BlobEndpoint={endpoint}/{ACCOUNT};")


def open_peer(reader, store, endpoint):
    """The array /c as a tensorstore TensorStore or a zarr-python Array."""
    if reader == "tensorstore":
        import tensorstore as ts
        if store == "http":
            kvstore = {"driver": "http", "base_url": endpoint + "/bench.zarr/c"}
        else:
            kvstore = {"driver": "gcs", "bucket": BUCKET, "path": "bench.zarr/c/"}
        return ts.open({"driver": "zarr3", "kvstore": kvstore}, open=True, read=True).result()
    import zarr
    from zarr.storage import FsspecStore, ObjectStore
    if reader == "zarr-py+gcsfs":
        zstore = FsspecStore.from_url(
            f"gs://{BUCKET}/bench.zarr", read_only=True,
            storage_options={"endpoint_url": endpoint, "token": "anon"})
    elif reader == "zarr-py+adlfs":
        zstore = FsspecStore.from_url(
            f"abfs://{CONTAINER}/bench.zarr", read_only=True,
            storage_options={"connection_string": connection_string(endpoint)})
    elif store == "http":
        from obstore.store import HTTPStore
        zstore = ObjectStore(HTTPStore.from_url(endpoint + "/bench.zarr",
                                                client_options={"allow_http": True}),
                             read_only=True)
    else:
        from obstore.store import AzureStore
        zstore = ObjectStore(AzureStore(CONTAINER, prefix="bench.zarr", account_name=ACCOUNT,
                                        account_key=ACCOUNT_KEY, use_emulator=True,
                                        client_options={"allow_http": True}),
                             read_only=True)
    return zarr.open_array(store=zstore, path="c", mode="r", zarr_format=3)


def worker(reader, store, endpoint, op, reps):
    """Run in a child process: print `opened` once the array is open, then one JSON list of
    seconds."""
    if store == "gcs":
        os.environ["TENSORSTORE_GCS_HTTP_URL"] = endpoint
        # tensorstore's test token: without it, it would look for credentials down to the
        # metadata server of a Google Cloud machine (off this one).
        os.environ.setdefault("GOOGLE_AUTH_TOKEN_FOR_TESTING", "anonymous")
        # gcsfs 2026.10 by default asks the Storage Control gRPC API for each bucket's
        # layout (zonal or hierarchical) before each operation and, when that fails (the
        # emulator has no gRPC), retries for ~30 s and does not cache the failure.
        os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"
    if store == "azure":
        os.environ["AZURITE_BLOB_STORAGE_URL"] = endpoint  # obstore's use_emulator
    arr = open_peer(reader, store, endpoint)
    print("opened", flush=True)
    times = []
    if reader == "tensorstore":
        region = arr[...] if op == "whole" else arr[32:64, 32:64, 32:64]
        for _ in range(reps):
            t = time.perf_counter()
            region.read().result()
            times.append(time.perf_counter() - t)
    else:
        for _ in range(reps):
            t = time.perf_counter()
            arr[...] if op == "whole" else arr[32:64, 32:64, 32:64]
            times.append(time.perf_counter() - t)
    print(json.dumps(times))


def libzarr_target(store, endpoint):
    if store == "http":
        return endpoint + "/bench.zarr", None
    if store == "gcs":
        return (f"gs://{BUCKET}/bench.zarr",
                json.dumps({"endpoint": endpoint, "anonymous": True}))
    return (f"az://{CONTAINER}/bench.zarr",
            json.dumps({"endpoint": f"{endpoint}/{ACCOUNT}", "account_name": ACCOUNT,
                        "account_key": ACCOUNT_KEY}))


def run_reader(reader, store, endpoint, op, reps, log):
    """Seconds per repetition, and the (requests, bytes) the server answered for them: the
    log is read when the reader says `opened`, so opening the array is not counted."""
    if reader == "libzarr":
        url, options = libzarr_target(store, endpoint)
        command = [os.path.join(WORK, "read_remote"), url, "/c", op, str(reps)]
        command += [options] if options else []
    else:
        command = [sys.executable, "-W", "ignore", __file__, "--worker", reader, store,
                   endpoint, op, str(reps)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    opened = None
    lines = []
    for line in process.stdout:
        if line.strip() == "opened" and opened is None:
            opened = log_totals(log)
        else:
            lines.append(line)
    stderr = process.stderr.read()
    if process.wait() != 0 or opened is None:
        raise subprocess.CalledProcessError(process.returncode, command, stderr=stderr)
    after = log_totals(log)
    if reader == "libzarr":
        times = [float(x) for x in "".join(lines).split()]
    else:
        times = json.loads(lines[-1])
    return times, (after[0] - opened[0], after[1] - opened[1])


# --- servers ------------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within {timeout} s")


def answers(url):
    try:
        urllib.request.urlopen(url, timeout=2).close()
    except urllib.error.HTTPError:
        pass  # any HTTP answer: it listens
    except OSError:
        return False
    return True


def start_proxy(upstream, log, delay_ms, processes):
    port_file = os.path.join(WORK, "proxy-port")
    if os.path.exists(port_file):
        os.remove(port_file)
    processes.append(subprocess.Popen(
        [sys.executable, os.path.join(HERE, "delay_proxy.py"), "--upstream", upstream,
         "--port-file", port_file, "--log", log, "--delay-ms", str(delay_ms)]))
    wait_for(lambda: os.path.exists(port_file), "the proxy")
    with open(port_file) as f:
        return f"http://127.0.0.1:{f.read().strip()}"


def start_http(log, delay_ms, processes):
    port_file = os.path.join(WORK, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    processes.append(subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tests", "servers", "http_server.py"),
         "--root", DATA, "--port-file", port_file, "--log", log,
         "--delay-ms", str(delay_ms), "--max-lifetime", "7200"]))
    wait_for(lambda: os.path.exists(port_file), "the HTTP server")
    with open(port_file) as f:
        return f"http://127.0.0.1:{f.read().strip()}"


def start_gcs(log, delay_ms, processes, as_is):
    port_file = os.path.join(WORK, "gcs-port")
    if os.path.exists(port_file):
        os.remove(port_file)
    processes.append(subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tests", "servers", "gcs_emulator.py"),
         "--port-file", port_file, "--log", os.path.join(WORK, "gcs-emulator.log"),
         "--bucket", BUCKET, "--max-lifetime", "7200"] + (["--as-is"] if as_is else []),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_for(lambda: os.path.exists(port_file), "gcp-storage-emulator")
    with open(port_file) as f:
        emulator = f"http://127.0.0.1:{f.read().strip()}"
    for name, path in data_files():
        with open(path, "rb") as f:
            body = f.read()
        query = urllib.parse.urlencode({"uploadType": "media", "name": name})
        request = urllib.request.Request(
            f"{emulator}/upload/storage/v1/b/{BUCKET}/o?{query}", data=body,
            headers={"Content-Type": "application/octet-stream"}, method="POST")
        urllib.request.urlopen(request).close()
    return start_proxy(emulator, log, delay_ms, processes)


def start_azure(log, delay_ms, processes):
    if not os.path.exists(AZURITE):
        raise RuntimeError(f"{AZURITE} is missing (run.sh installs it with npm)")
    location = os.path.join(WORK, "azurite")
    shutil.rmtree(location, ignore_errors=True)
    os.makedirs(location)
    port = free_port()
    emulator = f"http://127.0.0.1:{port}"
    processes.append(subprocess.Popen(
        [AZURITE, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", location,
         "--silent", "--skipApiVersionCheck", "--loose", "--disableProductStyleUrl",
         "--disableTelemetry"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_for(lambda: answers(f"{emulator}/{ACCOUNT}?comp=list"), "Azurite")
    from azure.storage.blob import BlobServiceClient
    service = BlobServiceClient.from_connection_string(connection_string(emulator))
    container = service.create_container(CONTAINER)
    for name, path in data_files():
        with open(path, "rb") as f:
            container.upload_blob(name, f, overwrite=True)
    return start_proxy(emulator, log, delay_ms, processes)


def first_error(stderr):
    """The first exception line of a traceback (later ones are often teardown noise), or
    the last line."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    for line in lines:
        if re.match(r"^[\w.]+(Error|Exception)\b", line) or line.startswith("zarr_"):
            return line
    return lines[-1] if lines else "no output"


def log_totals(log):
    requests = nbytes = 0
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                parts = line.split()
                requests += 1
                nbytes += int(parts[3])
    return requests, nbytes


def versions():
    from importlib.metadata import version
    found = []
    for package in ("zarr", "tensorstore", "obstore", "gcsfs", "adlfs",
                    "gcp-storage-emulator"):
        try:
            found.append(f"{package} {version(package)}")
        except Exception:
            pass
    azurite_package = os.path.join(BUILD, "test-tools", "azurite", "node_modules", "azurite",
                                   "package.json")
    if os.path.exists(azurite_package):
        with open(azurite_package) as f:
            found.append(f"azurite {json.load(f)['version']}")
    return ", ".join(found)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", default="http,gcs,azure",
                        help="comma-separated servers to run, in order (default: all)")
    parser.add_argument("--delay-ms", type=float, default=20)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--inner-reps", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="a 64 MiB array, 1 repetition")
    parser.add_argument("--gcs-as-is", action="store_true",
                        help="gcs_emulator.py --as-is: without suffix ranges, among others")
    parser.add_argument("--worker", nargs=5, metavar=("READER", "STORE", "URL", "OP", "REPS"))
    args = parser.parse_args()
    if args.worker:
        reader, store, url, op, reps = args.worker
        return worker(reader, store, url, op, int(reps))
    stores = [s for s in args.store.split(",") if s]
    for store in stores:
        if store not in READERS:
            parser.error(f"unknown store {store!r} (http, gcs, azure)")
    if args.quick:
        args.reps, args.inner_reps = 1, 2
    os.makedirs(DATA, exist_ok=True)
    t = time.time()
    shape = make_data(args.quick)
    print(f"data ready ({time.time() - t:.0f} s): shape {shape} float32, shards {SHARDS}, "
          f"inner {INNER}, zstd 1", flush=True)
    loads = [os.getloadavg()]
    results = {}
    for store in stores:
        log = os.path.join(WORK, f"requests-{store}.log")
        if os.path.exists(log):
            os.remove(log)
        processes = []
        try:
            t = time.time()
            if store == "http":
                endpoint = start_http(log, args.delay_ms, processes)
            elif store == "gcs":
                endpoint = start_gcs(log, args.delay_ms, processes, args.gcs_as_is)
            else:
                endpoint = start_azure(log, args.delay_ms, processes)
            print(f"{store}: server ready ({time.time() - t:.0f} s)", flush=True)
            for op, reps in (("whole", args.reps), ("inner", args.inner_reps)):
                for reader in READERS[store]:
                    try:
                        times, (requests, nbytes) = run_reader(reader, store, endpoint, op,
                                                               reps, log)
                    except (subprocess.CalledProcessError, OSError) as e:
                        why = getattr(e, "stderr", None) or str(e)
                        failed = os.path.join(WORK, f"failed-{store}-{op}-{reader}.log")
                        with open(failed, "w") as f:
                            f.write(why)
                        results[(store, op, reader)] = first_error(why)
                        print(f"  {store:5} {op:5} {reader:13} failed: "
                              f"{results[(store, op, reader)]} (see {failed})", flush=True)
                        continue
                    results[(store, op, reader)] = (times, requests / reps, nbytes / reps)
                    print(f"  {store:5} {op:5} {reader:13} {statistics.median(times):8.3f} s",
                          flush=True)
        finally:
            for process in reversed(processes):
                process.terminate()
                process.wait()
        loads.append(os.getloadavg())

    load = " ".join(f"{x:.2f}" for x in loads[0]) + " at the start, " + \
        " ".join(f"{x:.2f}" for x in loads[-1]) + " at the end"
    print(f"\nshape {' '.join(map(str, shape))} float32, shards 256^3, inner 32^3, zstd 1; "
          f"{args.delay_ms:g} ms per request on 127.0.0.1; {os.cpu_count()} cores, "
          f"load {load}")
    print(versions())
    print(f"{'store':6} {'op':6} {'reader':14} {'median s':>9} {'min-max s':>17} "
          f"{'peer/libzarr':>12} {'requests':>9} {'MiB':>9}")
    summary = []
    for store in stores:
        for op in ("whole", "inner"):
            found = results.get((store, op, "libzarr"))
            base = statistics.median(found[0]) if isinstance(found, tuple) else None
            best = None
            for reader in READERS[store]:
                if (store, op, reader) not in results:
                    continue
                if isinstance(results[(store, op, reader)], str):
                    print(f"{store:6} {op:6} {reader:14} failed: {results[(store, op, reader)]}")
                    continue
                times, requests, nbytes = results[(store, op, reader)]
                median = statistics.median(times)
                ratio = "-" if reader == "libzarr" or base is None else f"{median / base:.2f}x"
                if reader != "libzarr" and (best is None or median < best[1]):
                    best = (reader, median)
                print(f"{store:6} {op:6} {reader:14} {median:9.3f} "
                      f"{min(times):8.3f}-{max(times):<8.3f} {ratio:>12} {requests:9.0f} "
                      f"{nbytes / 2**20:9.2f}")
            if best and base:
                ratio = best[1] / base
                summary.append(f"{store:6} {op:6} best peer {best[0]:14} {ratio:5.2f}x  "
                               f"goal {GOAL}x: {'met' if ratio >= GOAL else 'NOT met'}")
    print()
    print("\n".join(summary))


if __name__ == "__main__":
    sys.exit(main())
