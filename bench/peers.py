"""The peers' side of the benchmark, data generation, and the report (see bench/README.md).

  peers.py gen RAW NX NY NZ              smooth data plus noise, float32, C order, to RAW
  peers.py create STORE LAYOUT NX NY NZ  an empty array with the layout's metadata
  peers.py IMPL OP STORE NX NY NZ INNER [RAW]
                                         one timed operation; IMPL: zarr-python, zarrs,
                                         tensorstore; OP as in bench_zarr.c; INNER: the
                                         inner chunk edge (read_inner reads inner chunk 1,1,1)
  peers.py report RESULTS                medians, min-max, ratios from the JSON lines

Layouts: a = 64^3 chunks uncompressed, b = 64^3 chunks zstd level 1, c = 256^3 shards of
32^3 inner chunks zstd level 1 (index: bytes + crc32c).
"""

import json
import os
import resource
import statistics
import sys
import time

import numpy as np

if os.environ.get("ZARR_BENCH_PAGES") != "huge":
    # numpy advises transparent huge pages for its arrays of 4 MiB and more (on Linux).
    # bench_zarr's buffers are plain 4 KiB pages, as a C caller's are, so the peers' arrays
    # are made the same (bench/README.md, "Buffers"); --pages huge gives both the huge pages.
    np._core.multiarray._set_madvise_hugepage(False)

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
LAYOUTS = {
    "a": ([64, 64, 64], [BYTES]),
    "b": ([64, 64, 64], [BYTES, ZSTD]),
    "c": ([256, 256, 256], [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [32, 32, 32], "codecs": [BYTES, ZSTD],
        "index_codecs": [BYTES, {"name": "crc32c"}], "index_location": "end"}}]),
}
INNER = {"a": 64, "b": 64, "c": 32}


def checksum(data):
    raw = np.ascontiguousarray(data).tobytes()
    words = len(raw) // 8
    total = int(np.frombuffer(raw, dtype=np.uint64, count=words).sum(dtype=np.uint64))
    total += sum(raw[words * 8:])
    return str(total % 2**64)


def gen(raw, nx, ny, nz):
    """Smooth waves plus a little noise: compressible like real measurements, not trivially."""
    rng = np.random.default_rng(1)
    y = np.linspace(0, 3 * np.pi, ny, dtype=np.float32)[None, :, None]
    z = np.linspace(0, 2 * np.pi, nz, dtype=np.float32)[None, None, :]
    with open(raw, "wb") as f:
        # Slabs along the first axis are contiguous in C order, so they append in order.
        for i0 in range(0, nx, 16):
            x = np.linspace(0, 4 * np.pi, nx, dtype=np.float32)[i0:i0 + 16, None, None]
            slab = np.sin(x) * np.cos(y) + 0.5 * np.sin(z + x / 2)
            slab = slab + rng.normal(0, 0.01, slab.shape).astype(np.float32)
            slab.astype(np.float32).tofile(f)


def create(store, layout, shape):
    import zarr
    chunks, codecs = LAYOUTS[layout]
    metadata = {"zarr_format": 3, "node_type": "array", "shape": list(shape),
                "data_type": "float32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0.0, "codecs": codecs, "attributes": {}}
    os.makedirs(store, exist_ok=True)
    with open(os.path.join(store, "zarr.json"), "w") as f:
        json.dump(metadata, f)
    zarr.open_array(store, mode="r")  # validate


def run(impl, op, store, shape, raw, layout_inner):
    nx, ny, nz = shape
    i = layout_inner
    if impl == "tensorstore":
        import tensorstore as ts
        arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": store}}).result()
        read = lambda sel: arr[sel].read().result()  # noqa: E731
        write = lambda data: arr.write(data).result()  # noqa: E731
    else:
        import zarr
        if impl == "zarrs":
            import zarrs  # noqa: F401
            zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
        arr = zarr.open_array(store, mode="r+")
        read = lambda sel: arr[sel]  # noqa: E731

        def write(data):
            arr[...] = data
    if op == "write":
        data = np.fromfile(raw, dtype=np.float32).reshape(shape)
        t0 = time.perf_counter()
        write(data)
        seconds = time.perf_counter() - t0
        result = data
    else:
        sel = {"read": np.s_[...],
               "read_inner": np.s_[i:2 * i, i:2 * i, i:2 * i],
               "read_element": np.s_[nx // 2:nx // 2 + 1, ny // 3:ny // 3 + 1,
                                     nz // 5:nz // 5 + 1]}[op]
        t0 = time.perf_counter()
        result = read(sel)
        seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"impl": impl, "op": op, "seconds": seconds, "peak_rss_mib": round(rss, 1),
                      "checksum": checksum(np.asarray(result, dtype=np.float32))}))


def report(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    groups = {}
    for r in rows:
        groups.setdefault((r["layout"], r["op"]), {}).setdefault(r["impl"], []).append(r)
    print(f"{'layout':6} {'op':13} {'impl':12} {'median s':>10} {'min-max s':>19} "
          f"{'peak MiB':>9} {'peer/libzarr':>12}")
    for (layout, op), impls in sorted(groups.items()):
        base = statistics.median(r["seconds"] for r in impls.get("libzarr", [{"seconds": 0}]))
        sums = {impl: {r["checksum"] for r in rs} for impl, rs in impls.items()}
        agree = len({c for s in sums.values() for c in s}) == 1
        for impl, rs in sorted(impls.items(), key=lambda kv: kv[0] != "libzarr"):
            secs = [r["seconds"] for r in rs]
            med = statistics.median(secs)
            ratio = f"{med / base:.2f}x" if impl != "libzarr" and base > 0 else "-"
            print(f"{layout:6} {op:13} {impl:12} {med:10.4f} {min(secs):9.4f}-{max(secs):<9.4f} "
                  f"{max(r['peak_rss_mib'] for r in rs):9.1f} {ratio:>12}")
        if not agree and not op.startswith("decode_limit"):
            print(f"{layout:6} {op:13} CHECKSUMS DIFFER: {sums}")
    # libzarr's whole read against the decode limit of the same store (see bench_zarr.c).
    for layout in sorted({layout for layout, _ in groups}):
        read = groups.get((layout, "read"), {}).get("libzarr")
        if not read:
            continue
        read_s = statistics.median(r["seconds"] for r in read)
        gb = read[0]["bytes"] / 1e9 if "bytes" in read[0] else None
        for op, what in (("decode_limit", "into a fresh buffer"),
                         ("decode_limit_reused", "into reused buffers")):
            limit = groups.get((layout, op), {}).get("libzarr")
            if not limit:
                continue
            limit_s = statistics.median(r["seconds"] for r in limit)
            rate = f", {limit[0]['bytes'] / 1e9 / limit_s:.2f} GB/s" if gb else ""
            print(f"{layout:6} decode limit {what}: {limit_s:.4f} s{rate}; "
                  f"libzarr's read ({read_s:.4f} s) runs at {100 * limit_s / read_s:.0f}% of it")
        bare = groups.get((layout, "bare_read"), {}).get("libzarr")
        if not bare:
            continue
        bare_s = statistics.median(r["seconds"] for r in bare)
        limit = groups.get((layout, "decode_limit"), {}).get("libzarr")
        of_limit = (f"; the bare read runs at "
                    f"{100 * statistics.median(r['seconds'] for r in limit) / bare_s:.0f}% "
                    f"of the decode limit into a fresh buffer" if limit else "")
        print(f"{layout:6} bare read: {bare_s:.4f} s; libzarr's read runs at "
              f"{100 * bare_s / read_s:.0f}% of its speed{of_limit}")
        if {r["checksum"] for r in bare} != {r["checksum"] for r in read}:
            print(f"{layout:6} bare_read CHECKSUMS DIFFER from libzarr's read")


def main(argv):
    cmd = argv[1]
    if cmd == "gen":
        gen(argv[2], *map(int, argv[3:6]))
    elif cmd == "create":
        create(argv[2], argv[3], tuple(map(int, argv[4:7])))
    elif cmd == "report":
        report(argv[2])
    else:
        impl, op, store = cmd, argv[2], argv[3]
        shape = tuple(map(int, argv[4:7]))
        inner = int(argv[7])
        raw = argv[8] if len(argv) > 8 else None
        run(impl, op, store, shape, raw, inner)


if __name__ == "__main__":
    main(sys.argv)
