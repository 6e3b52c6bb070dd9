"""Write Zarr v3 arrays with tensorstore for libzarr to read (interop with tensorstore).

Usage: tensorstore_write.py OUT_DIR

Same layout as python_write.py (store/, expected/<n>.bin, manifest.txt), without group
attributes: sharded arrays (index at the start and at the end, crc32c index, edge shards,
inner chunks never written, nested sharding) and a few plain ones in tensorstore's own
spelling of the metadata (for example `{"name": "default"}` chunk key encodings).
"""

import os
import shutil
import sys

import numpy as np
import tensorstore as ts

LE = {"name": "bytes", "configuration": {"endian": "little"}}
BE = {"name": "bytes", "configuration": {"endian": "big"}}
CRC = {"name": "crc32c"}


def sharding(inner_shape, codecs, location, index_codecs=(LE, CRC)):
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner_shape), "codecs": list(codecs),
        "index_codecs": list(index_codecs), "index_location": location}}


def main(out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    store_dir = os.path.join(out_dir, "store")
    os.makedirs(os.path.join(out_dir, "expected"))
    manifest = []
    rng = np.random.default_rng(7)

    def add(name, dtype, shape, chunks, codecs, fill_value, region=None):
        spec = {
            "driver": "zarr3",
            "kvstore": {"driver": "file", "path": os.path.join(store_dir, name)},
            "metadata": {
                "shape": list(shape), "data_type": dtype,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                "chunk_key_encoding": {"name": "default"},
                "fill_value": fill_value, "codecs": codecs,
            },
            "create": True, "delete_existing": True,
        }
        store = ts.open(spec).result()
        data = rng.integers(-1000, 1000, size=shape).astype(dtype)
        if region is None:
            store[...].write(data).result()
        else:
            store[region].write(data[region]).result()
        got = store[...].read().result()
        expected = np.ascontiguousarray(got, dtype=got.dtype.newbyteorder("="))
        bin_name = f"expected/{len(manifest)}.bin"
        with open(os.path.join(out_dir, bin_name), "wb") as f:
            f.write(expected.tobytes())
        manifest.append(f"/{name} {dtype} {bin_name}")

    zstd = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
    for location in ["start", "end"]:
        add(f"sharded_index_{location}", "int32", (20, 30), (8, 12),
            [sharding((4, 6), [LE, zstd], location)], -1,
            region=(slice(0, 13), slice(0, 17)))
    add("sharded_big_endian_gzip", "float32", (16, 16), (8, 8),
        [sharding((4, 4), [BE, {"name": "gzip", "configuration": {"level": 5}}], "end",
                  index_codecs=(BE, CRC))], 0.5)
    add("sharded_nested", "uint16", (16, 16), (8, 8),
        [sharding((4, 4), [sharding((2, 2), [LE], "end")], "end")], 0)
    add("sharded_transposed", "int16", (12, 12), (6, 6),
        [{"name": "transpose", "configuration": {"order": [1, 0]}},
         sharding((3, 3), [LE], "start")], 0)
    add("plain_zstd", "float64", (30, 20), (7, 6), [LE, zstd], 0.0)
    add("plain_blosc", "uint8", (30, 20), (7, 6),
        [{"name": "bytes"}, {"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "bitshuffle", "typesize": 1,
            "blocksize": 0}}], 3)

    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"tensorstore_write: {len(manifest)} arrays written to {store_dir}")


if __name__ == "__main__":
    main(sys.argv[1])
