"""The remote benchmark: libzarr, tensorstore and zarr-python read one 1 GiB sharded float32
array over HTTP on loopback with an added round-trip delay, in one run.

Usage: bench.py [--delay-ms 20] [--reps 3] [--inner-reps 7] [--quick]
       (run through bench/remote/run.sh, which builds what it needs)

The array (shape 1024 x 1024 x 256 float32, shards 256^3 of 32^3 inner chunks, zstd level 1,
index bytes + crc32c: the layout c of bench/) is written once by zarr-python into
build/bench-remote/data. tests/servers/http_server.py serves it on 127.0.0.1 with Range
support and holds every answer --delay-ms (the kernel here has no netem qdisc, so the
delay is per request, not per packet). Each reader runs in its own process: libzarr
(bench/remote/read_remote, zarr_store_open_url on the http:// URL), tensorstore (zarr3
driver over its http kvstore) and zarr-python (ObjectStore over obstore's HTTPStore).
Operations: the whole array, and the inner chunk (1, 1, 1). The report gives per reader
and operation the median and min-max seconds, the ratio peer / libzarr (above 1: libzarr
faster), and the requests and bytes the server answered per repetition (from its log).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
WORK = os.path.join(BUILD, "bench-remote")
DATA = os.path.join(WORK, "data")
SHAPE, SHARDS, INNER = (1024, 1024, 256), (256, 256, 256), (32, 32, 32)


def make_data(quick):
    import numpy as np
    import zarr
    from zarr.codecs import BytesCodec, ZstdCodec
    shape = (256, 256, 256) if quick else SHAPE
    marker = os.path.join(DATA, f"done-{'x'.join(map(str, shape))}")
    if os.path.exists(marker):
        return shape
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


def worker(reader, url, op, reps):
    """Run in a child process: print one JSON list of seconds."""
    times = []
    if reader == "tensorstore":
        import tensorstore as ts
        spec = {"driver": "zarr3", "kvstore": {"driver": "http", "base_url": url + "/c"}}
        arr = ts.open(spec, open=True, read=True).result()
        region = arr[...] if op == "whole" else arr[32:64, 32:64, 32:64]
        for _ in range(reps):
            t = time.perf_counter()
            region.read().result()
            times.append(time.perf_counter() - t)
    else:
        import zarr
        from obstore.store import HTTPStore
        from zarr.storage import ObjectStore
        store = ObjectStore(HTTPStore.from_url(url, client_options={"allow_http": True}),
                            read_only=True)
        arr = zarr.open_array(store=store, path="c", mode="r", zarr_format=3)
        for _ in range(reps):
            t = time.perf_counter()
            arr[...] if op == "whole" else arr[32:64, 32:64, 32:64]
            times.append(time.perf_counter() - t)
    print(json.dumps(times))


def log_totals(log):
    requests = nbytes = 0
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                parts = line.split()
                requests += 1
                nbytes += int(parts[3])
    return requests, nbytes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, default=20)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--inner-reps", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="a 64 MiB array, 1 repetition")
    parser.add_argument("--worker", nargs=4, metavar=("READER", "URL", "OP", "REPS"))
    args = parser.parse_args()
    if args.worker:
        reader, url, op, reps = args.worker
        return worker(reader, url, op, int(reps))
    if args.quick:
        args.reps, args.inner_reps = 1, 2
    os.makedirs(DATA, exist_ok=True)
    t = time.time()
    shape = make_data(args.quick)
    print(f"data ready ({time.time() - t:.0f} s): shape {shape} float32, shards {SHARDS}, "
          f"inner {INNER}, zstd 1", flush=True)

    port_file = os.path.join(WORK, "port")
    log = os.path.join(WORK, "requests.log")
    for f in (port_file, log):
        if os.path.exists(f):
            os.remove(f)
    server = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tests", "servers", "http_server.py"),
         "--root", DATA, "--port-file", port_file, "--log", log,
         "--delay-ms", str(args.delay_ms), "--max-lifetime", "7200"])
    try:
        while not os.path.exists(port_file):
            time.sleep(0.05)
        with open(port_file) as f:
            url = f"http://127.0.0.1:{f.read().strip()}/bench.zarr"
        results = {}
        for op, reps in (("whole", args.reps), ("inner", args.inner_reps)):
            for reader in ("libzarr", "tensorstore", "zarr-python"):
                before = log_totals(log)
                if reader == "libzarr":
                    out = subprocess.run(
                        [os.path.join(WORK, "read_remote"), url, "/c", op, str(reps)],
                        check=True, capture_output=True, text=True).stdout
                    times = [float(x) for x in out.split()]
                else:
                    out = subprocess.run(
                        [sys.executable, __file__, "--worker", reader, url, op, str(reps)],
                        check=True, capture_output=True, text=True).stdout
                    times = json.loads(out.strip().splitlines()[-1])
                after = log_totals(log)
                results[(op, reader)] = (times, (after[0] - before[0]) / reps,
                                         (after[1] - before[1]) / reps)
                print(f"  {op:5} {reader:11} {statistics.median(times):8.3f} s", flush=True)
    finally:
        server.terminate()
        server.wait()

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nshape {' '.join(map(str, shape))} float32, shards 256^3, inner 32^3, zstd 1; "
          f"HTTP on 127.0.0.1 with {args.delay_ms:g} ms per request; "
          f"{os.cpu_count()} cores, load {load}")
    print(f"{'op':6} {'reader':12} {'median s':>9} {'min-max s':>17} {'peer/libzarr':>12} "
          f"{'requests':>9} {'MiB':>9}")
    for op in ("whole", "inner"):
        base = statistics.median(results[(op, "libzarr")][0])
        for reader in ("libzarr", "tensorstore", "zarr-python"):
            times, requests, nbytes = results[(op, reader)]
            median = statistics.median(times)
            ratio = "-" if reader == "libzarr" else f"{median / base:.2f}x"
            print(f"{op:6} {reader:12} {median:9.3f} {min(times):8.3f}-{max(times):<8.3f} "
                  f"{ratio:>12} {requests:9.0f} {nbytes / 2**20:9.2f}")


if __name__ == "__main__":
    sys.exit(main())
