"""Check with zarr-python what docs/examples/parallel.c wrote (ctest docs.parallel_python).

Usage: check_parallel.py STORE

STORE is the example's output directory. Opened through its consolidated metadata, it must
hold temperature(time, z, y, x), float32, 6 x 8 x 64 x 48, with the example's values
(250 + 10 t + 2 z + y / 2 + x / 4, exact in float32), its attributes and dimension names,
and time(time) = 0, 6, ..., 30 hours. Exit status 1 on any difference.
"""

import sys

import numpy as np
import zarr


def main(store):
    root = zarr.open_consolidated(store, mode="r")
    failures = []
    if dict(root.attrs) != {"title": "libzarr MPI example", "time_steps": 6}:
        failures.append(f"root attributes: {dict(root.attrs)}")
    field = root["temperature"]
    t, z, y, x = np.meshgrid(np.arange(6), np.arange(8), np.arange(64), np.arange(48),
                             indexing="ij")
    expected = (250.0 + 10.0 * t + 2.0 * z + 0.5 * y + 0.25 * x).astype(np.float32)
    values = field[...]
    if values.dtype != np.float32 or values.shape != expected.shape:
        failures.append(f"temperature: {values.dtype} {values.shape}")
    elif not np.array_equal(values, expected):
        failures.append(f"temperature: {int((values != expected).sum())} elements differ")
    if dict(field.attrs) != {"units": "K", "long_name": "air temperature"}:
        failures.append(f"temperature attributes: {dict(field.attrs)}")
    if tuple(field.metadata.dimension_names) != ("time", "z", "y", "x"):
        failures.append(f"dimension names: {field.metadata.dimension_names}")
    shards = field.metadata.codecs[0]
    if type(shards).__name__ != "ShardingCodec" or "zstd" not in repr(shards.codecs).lower():
        failures.append(f"codecs: {field.metadata.codecs}")
    hours = root["time"][...]
    if not np.array_equal(hours, 6.0 * np.arange(6)):
        failures.append(f"time: {hours}")
    for failure in failures:
        print("FAIL", failure)
    if not failures:
        print(f"zarr-python reads {store}: temperature {values.shape} {values.dtype} exact, "
              f"time {hours.tolist()}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
