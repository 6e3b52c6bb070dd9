"""The Icechunk benchmark (bench/icechunk/run.sh; see bench/icechunk/README.md): libzarr
against icechunk-python with zarr-python, reading one float32 array of a local Icechunk
repository whole and one chunk at a time. Not part of CI.

Usage (through run.sh): bench.py [--size-mib 256] [--layout chunks|sharded] [--reps 5]
                                 [--chunk-reps 25]

The repository is written once by icechunk-python into build/bench-icechunk/ (zstd level 1,
64^3 chunks, or 256^3 shards of 64^3 chunks with --layout sharded) and reused by later
runs. Each reader runs in its own process, opens the repository and the array once (not
timed), then repeats the read; the report gives per operation and reader the median and
min-max seconds, MiB/s for whole reads, and the ratios libzarr/peer (of the medians: below
1 libzarr is faster) and peer/libzarr (libzarr's speed-up). Both readers' sums of the
values read must agree, or the run fails.
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

# icechunk's warnings about the local file system at every open: not for the report.
os.environ.setdefault("ICECHUNK_LOG", "error")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "build", "bench-icechunk")
READER = os.path.join(OUT, "read_icechunk")
ARRAY = "/data"

# Run inside a worker process: icechunk-python + zarr-python read the array.
PEER = r"""
import sys, time
import numpy as np
import icechunk, zarr
path, op, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
repo = icechunk.Repository.open(icechunk.local_filesystem_storage(path))
session = repo.readonly_session(branch="main")
array = zarr.open_array(store=session.store, path="data", mode="r")
print("opened", flush=True)
sel = Ellipsis if op == "whole" else (slice(64, 128),) * array.ndim
for _ in range(reps):
    t0 = time.perf_counter()
    values = array[sel]
    print(f"{time.perf_counter() - t0:.6f}", flush=True)
print(f"sum {float(np.sum(values, dtype=np.float64)):.6e}", flush=True)
"""


def shape_for(size_mib):
    """A 3-d float32 shape of size_mib MiB: 2^k x 2^k x 256 (256 MiB: 512 x 512 x 256)."""
    elements = size_mib * 1024 * 1024 // 4
    side = int(round((elements / 256) ** 0.5))
    side -= side % 64
    return (side, side, 256)


def make_data(path, shape, layout):
    """The repository at `path`: one commit holding /data, values a smooth field plus noise
    (compresses about as well as model output does)."""
    import icechunk
    import numpy as np
    import zarr
    stamp = os.path.join(path, ".complete")
    if os.path.exists(stamp):
        return
    import shutil
    shutil.rmtree(path, ignore_errors=True)
    t0 = time.time()
    repo = icechunk.Repository.create(icechunk.local_filesystem_storage(path))
    session = repo.writable_session("main")
    root = zarr.open_group(store=session.store, mode="w")
    kwargs = {"chunks": (64, 64, 64)}
    if layout == "sharded":
        kwargs["shards"] = (256, 256, 256)
    array = root.create_array("data", shape=shape, dtype="float32", fill_value=0.0,
                              compressors=zarr.codecs.ZstdCodec(level=1), **kwargs)
    rng = np.random.default_rng(0)
    y = np.linspace(0, 8 * np.pi, shape[1], dtype="float32")[:, None]
    z = np.linspace(0, 4 * np.pi, shape[2], dtype="float32")[None, :]
    slab = 256 if layout == "sharded" else 64
    for x0 in range(0, shape[0], slab):
        n = min(slab, shape[0] - x0)
        x = np.linspace(x0, x0 + n - 1, n, dtype="float32")[:, None, None] / 50.0
        block = (np.sin(x + y[None]) * np.cos(z[None]) * 20 + 280).astype("float32")
        block += rng.standard_normal(block.shape, dtype="float32") * 0.05
        array[x0:x0 + n] = block
    session.commit(f"benchmark data {shape} {layout}")
    open(stamp, "w").close()
    print(f"wrote {path} in {time.time() - t0:.0f} s", flush=True)


def du_mib(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    return total / 2**20


def run(command, reps):
    """Start a reader, wait for `opened`, collect the REPS times and the sum."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    times, total = [], None
    for line in process.stdout:
        line = line.strip()
        if line == "opened":
            continue
        if line.startswith("sum "):
            total = float(line[4:])
        elif line:
            times.append(float(line))
    err = process.stderr.read()
    if process.wait() != 0 or len(times) != reps:
        sys.exit(f"{command[0]} failed ({process.returncode}): {err.strip()[-2000:]}")
    return times, total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--layout", choices=["chunks", "sharded"], default="chunks")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--chunk-reps", type=int, default=25)
    args = parser.parse_args()
    shape = shape_for(args.size_mib)
    path = os.path.join(OUT, f"repo-{args.layout}-{shape[0]}x{shape[1]}x{shape[2]}")
    make_data(path, shape, args.layout)
    import icechunk
    import zarr
    nbytes = shape[0] * shape[1] * shape[2] * 4
    print(f"Icechunk benchmark: float32 {shape[0]}x{shape[1]}x{shape[2]} "
          f"({nbytes / 2**20:.0f} MiB), {args.layout} (64^3 chunks"
          f"{', 256^3 shards' if args.layout == 'sharded' else ''}), zstd 1, "
          f"{du_mib(path):.0f} MiB on disk; {os.cpu_count()} cores, {platform.machine()}; "
          f"icechunk {icechunk.__version__}, zarr-python {zarr.__version__}")
    url = "icechunk+file://" + path
    results = {}
    for op, reps in (("whole", args.reps), ("chunk", args.chunk_reps)):
        readers = {
            "libzarr": [READER, url, ARRAY, op, str(reps)],
            "icechunk-python": [sys.executable, "-W", "ignore", "-c", PEER, path, op, str(reps)],
        }
        sums = {}
        for reader, command in readers.items():
            times, sums[reader] = run(command, reps)
            results[(op, reader)] = times
            print(f"  {op:5} {reader:16} {statistics.median(times):8.4f} s", flush=True)
        a, b = sums["libzarr"], sums["icechunk-python"]
        if a is None or b is None or abs(a - b) > 1e-6 * max(abs(a), abs(b), 1.0):
            sys.exit(f"the readers disagree on the {op} values: sums {a} and {b}")
    print()
    print(f"{'op':6} {'reader':17} {'median s':>9} {'min-max s':>19} {'MiB/s':>8} "
          f"{'libzarr/peer':>13} {'peer/libzarr':>13}")
    for op in ("whole", "chunk"):
        base = statistics.median(results[(op, "libzarr")])
        for reader in ("libzarr", "icechunk-python"):
            times = results[(op, reader)]
            median = statistics.median(times)
            rate = f"{nbytes / 2**20 / median:8.0f}" if op == "whole" else f"{'-':>8}"
            ratios = (f"{'-':>13} {'-':>13}" if reader == "libzarr" else
                      f"{base / median:13.2f} {median / base:12.2f}x")
            print(f"{op:6} {reader:17} {median:9.4f} {min(times):9.4f}-{max(times):<9.4f} "
                  f"{rate} {ratios}")


if __name__ == "__main__":
    main()
