"""The Kerchunk reference benchmark: one float32 HDF5 dataset with 64^3 gzip chunks, read
whole (see README.md).

Readers, each in its own process, REPS timed repetitions after an untimed open:
  libzarr      read_reference.c: zarr_store_open_url("reference+file://refs.json"),
               zarr_array_read of the whole array
  zarr-python  zarr 3.4 over fsspec's ReferenceFileSystem (FsspecStore, asynchronous), a[...]
  h5py         h5py reading the HDF5 file itself, d[...]
The data (build/bench-reference/data, remade when --size-gib changes) is written once by
h5py (gzip level 4, shuffle) and referenced with kerchunk.hdf.SingleHdf5ToZarr.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, "build", "bench-reference")
DATA = os.path.join(WORK, "data")
CHUNK = 64
GOAL = 1.5


def make_data(size_gib):
    import h5py
    import numpy as np
    # (n, 512, 512) float32: 1 MiB per plane, n a multiple of 64.
    n = max(CHUNK, int(round(size_gib * 1024 / CHUNK)) * CHUNK)
    stamp = os.path.join(DATA, f"made-{n}")
    h5 = os.path.join(DATA, "bench.h5")
    refs = os.path.join(DATA, "refs.json")
    if os.path.exists(stamp):
        return h5, refs, n
    os.makedirs(DATA, exist_ok=True)
    for name in os.listdir(DATA):
        os.remove(os.path.join(DATA, name))
    print(f"writing {h5}: float32 ({n}, 512, 512), chunks 64^3, gzip 4 + shuffle ...",
          flush=True)
    t0 = time.time()
    rng = np.random.default_rng(1)
    y, x = np.mgrid[0:512, 0:512].astype("f4")
    with h5py.File(h5, "w") as f:
        d = f.create_dataset("data", shape=(n, 512, 512), dtype="f4",
                             chunks=(CHUNK, CHUNK, CHUNK), compression="gzip",
                             compression_opts=4, shuffle=True)
        for z0 in range(0, n, CHUNK):
            z = np.arange(z0, z0 + CHUNK, dtype="f4")[:, None, None]
            # a smooth field plus noise, rounded to 1/256: compresses about as real
            # model output does (neither constant nor random bits)
            slab = np.sin(x / 37 + z / 23) * np.cos(y / 41) * 50 + 280
            slab = slab + rng.standard_normal(slab.shape, dtype="f4")
            d[z0:z0 + CHUNK] = np.round(slab * 256) / 256
    import kerchunk.hdf
    with open(refs, "w") as f:
        json.dump(kerchunk.hdf.SingleHdf5ToZarr(h5, inline_threshold=0).translate(), f)
    open(stamp, "w").close()
    print(f"  written in {time.time() - t0:.0f} s: {os.path.getsize(h5) / 2**20:.0f} MiB "
          f"stored, {n * 512 * 512 * 4 / 2**20:.0f} MiB decoded", flush=True)
    return h5, refs, n


PEER = r"""
import sys, time
import numpy as np
reader, h5, refs, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if reader == "h5py":
    import h5py
    a = h5py.File(h5, "r")["data"]
else:
    import fsspec, zarr
    from zarr.storage import FsspecStore
    fs = fsspec.filesystem("reference", fo=refs, remote_protocol="file", asynchronous=True)
    a = zarr.open_array(FsspecStore(fs, read_only=True, path="data"), mode="r", zarr_format=2)
print("opened", flush=True)
for _ in range(reps):
    t0 = time.perf_counter()
    v = a[...]
    print(f"{time.perf_counter() - t0:.6f}", flush=True)
print(f"sum {float(v.sum(dtype='f8'))!r}", flush=True)
"""


def run(reader, h5, refs, reps):
    if reader == "libzarr":
        cmd = [os.path.join(WORK, "read_reference"), "reference+file://" + refs, "/data",
               str(reps)]
    else:
        cmd = [sys.executable, "-W", "ignore", "-c", PEER, reader, h5, refs, str(reps)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1:] or ["exit " + str(out.returncode)]
    lines = out.stdout.splitlines()[1:]  # after "opened"
    times = [float(t) for t in lines if not t.startswith("sum")]
    return times, [line for line in lines if line.startswith("sum")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size-gib", type=float, default=1.0)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    h5, refs, n = make_data(args.size_gib)
    mib = n * 512 * 512 * 4 / 2**20
    print(f"reading float32 ({n}, 512, 512) = {mib:.0f} MiB whole, {args.reps} repetitions "
          f"per reader, {os.cpu_count()} CPUs", flush=True)
    results, outcome = {}, {}
    for reader in ("libzarr", "zarr-python", "h5py"):
        times, extra = run(reader, h5, refs, args.reps)
        results[reader] = times
        outcome[reader] = (times, extra)
        if times is None:
            print(f"  {reader:12} FAILED: {extra[0] if extra else ''}", flush=True)
        else:
            print(f"  {reader:12} " + " ".join(f"{t:.3f}" for t in times) + " s  "
                  + " ".join(extra), flush=True)
    print()
    print(f"{'reader':12} {'median s':>9} {'min-max s':>17} {'MiB/s':>8} {'peer/libzarr':>13}")
    base = statistics.median(results["libzarr"]) if results["libzarr"] else None
    best = None
    for reader, times in results.items():
        if not times:
            print(f"{reader:12} {'failed':>9}")
            continue
        median = statistics.median(times)
        ratio = "-" if reader == "libzarr" or base is None else f"{median / base:.2f}x"
        if reader != "libzarr" and (best is None or median < best[1]):
            best = (reader, median)
        print(f"{reader:12} {median:9.3f} {min(times):8.3f}-{max(times):<8.3f} "
              f"{mib / median:8.0f} {ratio:>13}")
    # Every reader prints the sum of its last read (in double; numpy sums pairwise, C in
    # order, hence the tolerance): a reader that returns wrong values shows here.
    sums = {r: float(e[0].split()[1]) for r, (t, e) in outcome.items() if t and e}
    if sums:
        first = next(iter(sums.values()))
        agree = all(abs(v - first) <= 1e-9 * abs(first) for v in sums.values())
        print(f"\nsums of the values read: {'agree' if agree else 'DIFFER: ' + repr(sums)}")
    if base is not None and best is not None:
        ratio = best[1] / base
        print(f"\nlibzarr against the best peer ({best[0]}): {ratio:.2f}x, goal {GOAL}x: "
              f"{'met' if ratio >= GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
