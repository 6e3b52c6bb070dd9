"""Make the Kerchunk reference sets that libzarr's reference store is tested against, with
the reference tool chain itself: h5py writes HDF5 files, scipy a netCDF-3 file, kerchunk
makes JSON (v0, and v1 with templates) and Parquet references of them and combines three
files along time; the values h5py and scipy read are the expectations.

Usage: make_references.py DATA_DIR

Writes, under DATA_DIR (emptied first):
  files/      sample.h5, sample.nc, t0.h5 t1.h5 t2.h5, raw.bin (the v1 set's `gen` chunks),
              whole.bin (a whole-file reference)
  refs/       hdf_v0.json, hdf_v1.json, hdf.parq/ (Parquet, several record files),
              nc_v0.json, combined.json (MultiZarrToZarr of t0..t2) and combined.parq/,
              broken.json
  expected/   one raw file per array: C order, little-endian
  sets/NAME/  for each set: store.url (reference+file:///...), manifest.txt, manifest.json
Every set is read back once with zarr-python over fsspec's reference file system and
compared with the expectations, so that a failure in C points at libzarr, not at the
fixtures.

manifest.txt (what reference_read.c and the Fortran test read), one item per line:
  array PATH DTYPE NDIM DIM... EXPECTED_FILE   (EXPECTED_FILE relative to DATA_DIR/expected)
  children PATH NAME,NAME,...                  (a group's children, sorted)
  attr PATH NAME string|double|int64 VALUE     (VALUE is the rest of the line)
  corrupt PATH                                 (reading must be ZARR_ERROR_CORRUPT_DATA)
  fails PATH                                   (reading must fail, whatever the status)
  unsupported PATH                             (opening or reading: ZARR_ERROR_UNSUPPORTED)
The set `broken` has those: a fletcher32 checksum altered in a copy of sample.h5, a chunk
whose target file does not exist (neither may read as data or as the fill value), and an
array compressed with a codec libzarr does not have (imagecodecs_jpeg2k).
"""

import base64
import json
import os
import shutil
import sys
import warnings

import h5py
import numpy as np

DTYPE_NAMES = {"f4": "float32", "f8": "float64", "i2": "int16", "i4": "int32",
               "u1": "uint8", "i8": "int64"}


def dtype_name(dtype):
    return DTYPE_NAMES[np.dtype(dtype).newbyteorder("=").str[1:]]


class Expectations:
    """The expected values (files under expected/) and what each set contains."""

    def __init__(self, data):
        self.dir = os.path.join(data, "expected")
        os.makedirs(self.dir)

    def save(self, name, values):
        values = np.array(values, order="C")  # (ascontiguousarray makes scalars 1-d)
        little = values.astype(values.dtype.newbyteorder("<"))
        with open(os.path.join(self.dir, name + ".bin"), "wb") as f:
            f.write(little.tobytes(order="C"))
        return {"dtype": dtype_name(values.dtype), "shape": list(values.shape),
                "file": name + ".bin"}


def hdf5_sample(path, expect):
    """The HDF5 file of the single-file sets: the codecs and layouts kerchunk references."""
    arrays, attrs = {}, []
    rng = np.random.default_rng(24)
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "libzarr reference test"
        f.attrs["revision"] = np.int64(3)
        # gzip + shuffle, edge chunks on both axes (40 = 2*16 + 8, 30 = 3*8 + 6).
        a = (rng.standard_normal((40, 30)) * 100).astype("f4")
        d = f.create_dataset("gzip_shuffle", data=a, chunks=(16, 8), compression="gzip",
                             compression_opts=4, shuffle=True)
        d.attrs["units"] = "K"
        d.attrs["scale"] = 0.5
        d.attrs["valid_range"] = np.array([-500, 500], dtype="i4")
        attrs += [("/gzip_shuffle", "units", "string", "K"),
                  ("/gzip_shuffle", "scale", "double", "0.5")]
        # fletcher32 (checked by the reader) after gzip, float64.
        a = rng.standard_normal((25, 10))
        f.create_dataset("fletcher", data=a, chunks=(10, 5), compression="gzip",
                         fletcher32=True)
        # contiguous (no chunks: one byte range for the whole dataset), int16.
        a = (np.arange(50 * 20).reshape(50, 20) - 400).astype("i2")
        f.create_dataset("contiguous", data=a)
        # big-endian int32, chunked and compressed.
        a = (np.arange(30 * 12).reshape(30, 12) * 7919 - 1000000).astype(">i4")
        f.create_dataset("big_endian", data=a, chunks=(10, 4), compression="gzip")
        # uint8 with shuffle (element size 1) and gzip.
        a = (np.arange(64) * 37 % 256).astype("u1")
        f.create_dataset("bytes_u1", data=a, chunks=(16,), compression="gzip", shuffle=True)
        # chunks never written: the fill value, which kerchunk carries into .zarray.
        d = f.create_dataset("sparse", shape=(20, 20), chunks=(10, 10), dtype="f4",
                             fillvalue=-9.0, compression="gzip")
        d[0:10, 0:10] = np.arange(100, dtype="f4").reshape(10, 10)
        # small datasets kerchunk inlines: a scalar and a tiny array as base64, a tiny
        # uint8 array of ASCII letters as text.
        f.create_dataset("scalar", data=np.float64(273.15))
        f.create_dataset("tiny", data=np.array([-3, 0, 7], dtype="i2"))
        f.create_dataset("tiny_text", data=np.frombuffer(b"HELLOZARRS", dtype="u1"))
        # a group with attributes and a float32 array in it.
        g = f.create_group("group")
        g.attrs["description"] = "nested group"
        a = np.linspace(-1, 1, 12 * 10, dtype="f4").reshape(12, 10)
        g.create_dataset("nested", data=a, chunks=(5, 5), compression="gzip", shuffle=True)
        attrs += [("/group", "description", "string", "nested group"),
                  ("/", "title", "string", "libzarr reference test"),
                  ("/", "revision", "int64", "3")]
    with h5py.File(path, "r") as f:
        for name in ("gzip_shuffle", "fletcher", "contiguous", "big_endian", "bytes_u1",
                     "sparse", "scalar", "tiny", "tiny_text", "group/nested"):
            arrays["/" + name] = expect.save("h5_" + name.replace("/", "_"), f[name][()])
    children = {"/": ["big_endian", "bytes_u1", "contiguous", "fletcher", "group",
                      "gzip_shuffle", "scalar", "sparse", "tiny", "tiny_text"],
                "/group": ["nested"]}
    return arrays, attrs, children


def netcdf3_sample(path, expect):
    """A netCDF-3 classic file (big-endian) with a record dimension and two record
    variables, so that records interleave."""
    from scipy.io import netcdf_file
    with netcdf_file(path, "w") as f:
        f.title = b"netCDF-3 sample"
        f.createDimension("time", None)
        f.createDimension("lat", 5)
        f.createDimension("lon", 6)
        t = f.createVariable("time", "f8", ("time",))
        t.units = b"days since 2000-01-01"
        temp = f.createVariable("temp", "f4", ("time", "lat", "lon"))
        temp.units = b"K"
        lat = f.createVariable("lat", "f4", ("lat",))
        lon = f.createVariable("lon", "f4", ("lon",))
        elev = f.createVariable("elev", "i2", ("lat", "lon"))
        lat[:] = np.linspace(-60, 60, 5)
        lon[:] = np.linspace(0, 300, 6)
        elev[:] = (np.arange(30).reshape(5, 6) * 101 - 1500)
        t[0:7] = np.arange(7) * 0.25
        temp[0:7] = 250 + np.arange(7 * 5 * 6).reshape(7, 5, 6) / 7.0
    arrays = {}
    with netcdf_file(path, "r", mmap=False) as f:
        for name in ("time", "temp", "lat", "lon", "elev"):
            arrays["/" + name] = expect.save("nc_" + name, f.variables[name].data.copy())
    attrs = [("/temp", "units", "string", "K"), ("/", "title", "string", "netCDF-3 sample")]
    children = {"/": ["elev", "lat", "lon", "temp", "time"]}
    return arrays, attrs, children


def hdf5_time_files(directory, expect):
    """Three HDF5 files of 4 time steps each, with dimension scales, for MultiZarrToZarr."""
    paths, temps, times = [], [], []
    for i in range(3):
        path = os.path.join(directory, f"t{i}.h5")
        with h5py.File(path, "w") as f:
            time = f.create_dataset("time", data=np.arange(4, dtype="f8") + 4 * i)
            time.make_scale("time")
            x = f.create_dataset("x", data=np.arange(6, dtype="i4") * 10)
            x.make_scale("x")
            temp = f.create_dataset(
                "temp", data=(np.arange(24, dtype="f4").reshape(4, 6) + 100 * i),
                chunks=(2, 3), compression="gzip", shuffle=True)
            temp.dims[0].attach_scale(time)
            temp.dims[1].attach_scale(x)
            temp.attrs["units"] = "degC"
        with h5py.File(path, "r") as f:
            temps.append(f["temp"][()])
            times.append(f["time"][()])
            xs = f["x"][()]
        paths.append(path)
    arrays = {"/temp": expect.save("combined_temp", np.concatenate(temps)),
              "/time": expect.save("combined_time", np.concatenate(times)),
              "/x": expect.save("combined_x", xs)}
    attrs = [("/temp", "units", "string", "degC")]
    children = {"/": ["temp", "time", "x"]}
    return paths, arrays, attrs, children


def add_fletcher32(refs, path, name):
    """kerchunk 0.2.10 skips datasets with HDF5's fletcher32 filter (_decode_filters raises
    on it), so the references of `name` are written here from h5py's chunk index: HDF5
    applies gzip and then appends the checksum, so the Zarr v2 filters are zlib then
    fletcher32 (numcodecs' Fletcher32 is HDF5's, and check_with_fsspec proves it)."""
    with h5py.File(path, "r") as f:
        d = f[name]
        assert d.fletcher32 and d.compression == "gzip" and not d.shuffle
        refs[f"{name}/.zarray"] = json.dumps({
            "shape": list(d.shape), "chunks": list(d.chunks), "dtype": d.dtype.str,
            "fill_value": 0.0, "order": "C", "compressor": None, "zarr_format": 2,
            "filters": [{"id": "zlib", "level": d.compression_opts}, {"id": "fletcher32"}]})
        refs[f"{name}/.zattrs"] = json.dumps({"_ARRAY_DIMENSIONS": ["phony_dim_0",
                                                                     "phony_dim_1"]})
        for i in range(d.id.get_num_chunks()):
            info = d.id.get_chunk_info(i)
            key = ".".join(str(o // c) for o, c in zip(info.chunk_offset, d.chunks))
            refs[f"{name}/{key}"] = [path, info.byte_offset, info.size]


def add_v1_only(refs, files, expect):
    """Arrays only the hand-made v1 set has: two whose chunks come from `gen` (a raw file of
    8 chunks of 16 int32 each, offsets computed by the template; a 2 x 2 grid of int16
    chunks over two dimensions, one given as a range, one as a list), and one whose single
    chunk is a whole-file reference `[url]`."""
    raw = (np.arange(8 * 16, dtype="<i4") * 3 - 50)
    raw_path = os.path.join(files, "raw.bin")
    raw.tofile(raw_path)
    whole = np.linspace(0, 1, 10).astype("<f8")
    whole_path = os.path.join(files, "whole.bin")
    whole.tofile(whole_path)
    zarray = lambda shape, chunks, dtype: json.dumps({
        "zarr_format": 2, "shape": shape, "chunks": chunks, "dtype": dtype,
        "compressor": None, "filters": None, "fill_value": 0, "order": "C"})
    refs["generated/.zarray"] = zarray([128], [16], "<i4")
    refs["generated/.zattrs"] = json.dumps({"origin": "gen"})
    refs["whole/.zarray"] = zarray([10], [10], "<f8")
    refs["whole/0"] = ["{{w}}"]
    # a 2-d grid of chunks from a second generator: int16 (6, 8) in chunks (3, 4), the
    # four chunks one after the other in raw2d.bin, keys i.j, offsets from both indices
    grid = (np.arange(48, dtype="<i2").reshape(6, 8) * 11 - 200)
    raw2d_path = os.path.join(files, "raw2d.bin")
    with open(raw2d_path, "wb") as f:
        for i in range(2):
            for j in range(2):
                f.write(grid[3 * i:3 * i + 3, 4 * j:4 * j + 4].tobytes())
    refs["generated2d/.zarray"] = zarray([6, 8], [3, 4], "<i2")
    gen = [{"key": "generated/{{i}}", "url": "{{r}}", "offset": "{{i * 64}}",
            "length": "64", "dimensions": {"i": {"start": 0, "stop": 8, "step": 1}}},
           {"key": "generated2d/{{i}}.{{j}}", "url": "{{g}}",
            "offset": "{{ (i * 2 + j) * 24 }}", "length": "24",
            "dimensions": {"i": {"stop": 2}, "j": [0, 1]}}]
    templates = {"r": "file://" + raw_path, "w": "file://" + whole_path,
                 "g": "file://" + raw2d_path}
    arrays = {"/generated": expect.save("v1_generated", raw),
              "/generated2d": expect.save("v1_generated2d", grid),
              "/whole": expect.save("v1_whole", whole)}
    return gen, templates, arrays


def to_v1(refs_v0, files, expect):
    """A version-1 set from a v0 one: every target URL becomes a template ({{h0}}, ...,
    written as file:// URLs), plus the gen and whole-file arrays of add_v1_only."""
    templates, names, refs = {}, {}, {}
    for key, value in refs_v0["refs"].items() if "refs" in refs_v0 else refs_v0.items():
        if isinstance(value, list):
            url = value[0]
            if url not in names:
                names[url] = f"h{len(names)}"
                templates[names[url]] = "file://" + url if url.startswith("/") else url
            value = ["{{" + names[url] + "}}"] + value[1:]
        refs[key] = value
    gen, more_templates, arrays = add_v1_only(refs, files, expect)
    templates.update(more_templates)
    return {"version": 1, "templates": templates, "gen": gen, "refs": refs}, arrays


def broken_set(data, refs, h5, h5_arrays):
    """References that must fail to read: /fletcher from a copy of sample.h5 whose first
    chunk's checksum (its last byte; the gzip stream is intact) is altered, and
    /gzip_shuffle with its first chunk in a file that does not exist."""
    import copy
    import fsspec
    import zarr
    from zarr.storage import FsspecStore
    files = os.path.dirname(h5)
    corrupt = os.path.join(files, "corrupt.h5")
    shutil.copy(h5, corrupt)
    broken = copy.deepcopy(refs)
    values = broken["refs"]
    _, offset, length = values["fletcher/0.0"]
    with open(corrupt, "r+b") as f:
        f.seek(offset + length - 1)
        byte = f.read(1)
        f.seek(offset + length - 1)
        f.write(bytes([byte[0] ^ 0x5A]))
    for key, value in values.items():
        if key.startswith("fletcher/") and isinstance(value, list):
            values[key] = [corrupt] + value[1:]
    values["gzip_shuffle/0.0"] = [os.path.join(files, "missing.h5")] + \
        values["gzip_shuffle/0.0"][1:]
    # a codec kerchunk names for TIFF images, which libzarr does not have
    values["jpeg2k/.zarray"] = json.dumps({
        "zarr_format": 2, "shape": [4, 4], "chunks": [4, 4], "dtype": "|u1",
        "compressor": {"id": "imagecodecs_jpeg2k", "level": 80}, "filters": None,
        "fill_value": 0, "order": "C"})
    values["jpeg2k/0.0"] = "base64:" + base64.b64encode(bytes(16)).decode()
    path = os.path.join(data, "refs", "broken.json")
    write_json(path, broken)
    # zarr-python must refuse both too, or the fixture proves nothing.
    fs = fsspec.filesystem("reference", fo=path, remote_protocol="file", asynchronous=True)
    root = zarr.open_group(FsspecStore(fs, read_only=True, path=""), mode="r", zarr_format=2)
    for name in ("fletcher", "gzip_shuffle"):
        try:
            root[name][...]
        except Exception:
            pass
        else:
            raise SystemExit(f"broken set: zarr-python reads {name}")
    write_set(data, "broken", "reference+file://" + path,
              {"/contiguous": h5_arrays["/contiguous"]}, [], {},
              broken=[("corrupt", "/fletcher"), ("fails", "/gzip_shuffle"),
                      ("unsupported", "/jpeg2k")])


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)


def write_set(data, name, url, arrays, attrs, children, options=None, broken=()):
    d = os.path.join(data, "sets", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "store.url"), "w") as f:
        f.write(url + "\n")
    if options is not None:
        with open(os.path.join(d, "store.options"), "w") as f:
            f.write(json.dumps(options) + "\n")
    lines = []
    for path, a in sorted(arrays.items()):
        lines.append(" ".join(["array", path, a["dtype"], str(len(a["shape"]))]
                              + [str(n) for n in a["shape"]] + [a["file"]]))
    for path, names in sorted(children.items()):
        lines.append(f"children {path} {','.join(sorted(names))}")
    for path, attr, kind, value in attrs:
        lines.append(f"attr {path} {attr} {kind} {value}")
    for kind, path in broken:
        lines.append(f"{kind} {path}")
    with open(os.path.join(d, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    write_json(os.path.join(d, "manifest.json"),
               {"url": url, "arrays": arrays, "children": children,
                "attributes": [list(a) for a in attrs]})


def check_with_fsspec(data, refs, arrays, label):
    """Read every expected array with zarr-python over fsspec's reference file system: the
    fixtures are right before libzarr is asked to read them."""
    import fsspec
    import zarr
    from zarr.storage import FsspecStore
    # simple_templates=False: fsspec expands `gen` only with its jinja2 templates.
    fs = fsspec.filesystem("reference", fo=refs, remote_protocol="file", asynchronous=True,
                           simple_templates=False)
    store = FsspecStore(fs, read_only=True, path="")
    root = zarr.open_group(store, mode="r", zarr_format=2)
    for path, a in arrays.items():
        got = np.asarray(root[path.strip("/")][...])
        want = np.fromfile(os.path.join(data, "expected", a["file"]),
                           dtype=np.dtype(a["dtype"]).newbyteorder("<")).reshape(a["shape"])
        if got.dtype.kind != want.dtype.kind or not np.array_equal(got, want):
            raise SystemExit(f"{label}: zarr-python over fsspec reads {path} differently "
                             "from h5py/scipy: the fixture is wrong")


def main(data):
    shutil.rmtree(data, ignore_errors=True)
    files = os.path.join(data, "files")
    refdir = os.path.join(data, "refs")
    os.makedirs(files)
    os.makedirs(refdir)
    expect = Expectations(data)

    import kerchunk.hdf
    import kerchunk.netCDF3
    from kerchunk.combine import MultiZarrToZarr
    from kerchunk.df import refs_to_dataframe

    # HDF5: v0 JSON as kerchunk writes it (targets are absolute paths); inline_threshold
    # 300 inlines the scalar and tiny datasets (and the small .zarray/.zattrs documents).
    h5 = os.path.join(files, "sample.h5")
    h5_arrays, h5_attrs, h5_children = hdf5_sample(h5, expect)
    with warnings.catch_warnings():
        # kerchunk warns that it skips the fletcher32 dataset, which add_fletcher32 adds.
        warnings.filterwarnings("ignore", message="(?s).*fletcher32")
        refs = kerchunk.hdf.SingleHdf5ToZarr(h5, inline_threshold=300).translate()
    values = refs["refs"]
    if "fletcher/.zarray" in values:
        raise SystemExit("kerchunk now references fletcher32 datasets: drop add_fletcher32")
    add_fletcher32(values, h5, "fletcher")
    for needed, kind in (("scalar/0", str), ("tiny/0", str), ("tiny_text/0", str)):
        if not isinstance(values.get(needed), kind):
            raise SystemExit(f"kerchunk did not inline {needed}: {values.get(needed)!r}")
    if not values["tiny/0"].startswith("base64:") or values["tiny_text/0"].startswith("base64:"):
        raise SystemExit("expected tiny/0 as base64 and tiny_text/0 as text")
    hdf_v0 = os.path.join(refdir, "hdf_v0.json")
    write_json(hdf_v0, refs)
    check_with_fsspec(data, hdf_v0, h5_arrays, "hdf_v0")
    write_set(data, "hdf_v0", "reference+file://" + hdf_v0, h5_arrays, h5_attrs, h5_children)

    broken_set(data, refs, h5, h5_arrays)

    # HDF5 as version 1 with templates, gen and a whole-file reference.
    v1, v1_arrays = to_v1(refs, files, expect)
    hdf_v1 = os.path.join(refdir, "hdf_v1.json")
    write_json(hdf_v1, v1)
    arrays = dict(h5_arrays, **v1_arrays)
    children = dict(h5_children)
    children["/"] = sorted(children["/"] + ["generated", "generated2d", "whole"])
    check_with_fsspec(data, hdf_v1, arrays, "hdf_v1")
    write_set(data, "hdf_v1", "reference+file://" + hdf_v1, arrays,
              h5_attrs + [("/generated", "origin", "string", "gen")], children)

    # The same HDF5 references as Parquet; record_size 4 spreads the larger arrays' chunk
    # references over several record files.
    parq = os.path.join(refdir, "hdf.parq")
    refs_to_dataframe(refs, parq, record_size=4)
    if not os.path.exists(os.path.join(parq, "gzip_shuffle", "refs.1.parq")):
        raise SystemExit("expected several record files for gzip_shuffle")
    check_with_fsspec(data, parq, h5_arrays, "hdf.parq")
    write_set(data, "hdf_parquet", "reference+file://" + parq, h5_arrays, h5_attrs,
              h5_children)

    # netCDF-3.
    nc = os.path.join(files, "sample.nc")
    nc_arrays, nc_attrs, nc_children = netcdf3_sample(nc, expect)
    nc_refs = kerchunk.netCDF3.NetCDF3ToZarr(nc, inline_threshold=0).translate()
    nc_v0 = os.path.join(refdir, "nc_v0.json")
    write_json(nc_v0, nc_refs)
    check_with_fsspec(data, nc_v0, nc_arrays, "nc_v0")
    write_set(data, "nc_v0", "reference+file://" + nc_v0, nc_arrays, nc_attrs, nc_children)

    # Three HDF5 files combined along time (targets as file:// URLs).
    paths, c_arrays, c_attrs, c_children = hdf5_time_files(files, expect)
    singles = [kerchunk.hdf.SingleHdf5ToZarr("file://" + p, inline_threshold=0).translate()
               for p in paths]
    # inline_threshold=0 keeps temp's chunks as file:// ranges (the concatenated time
    # coordinate, which MultiZarrToZarr makes itself, is inlined regardless).
    combined = MultiZarrToZarr(singles, concat_dims=["time"], identical_dims=["x"],
                               remote_protocol="file", inline_threshold=0).translate()
    combined_path = os.path.join(refdir, "combined.json")
    write_json(combined_path, combined)
    check_with_fsspec(data, combined_path, c_arrays, "combined")
    write_set(data, "combined", "reference+file://" + combined_path, c_arrays, c_attrs,
              c_children)
    # ... and as Parquet (the concatenated time coordinate is inlined raw bytes there).
    combined_parq = os.path.join(refdir, "combined.parq")
    refs_to_dataframe(combined, combined_parq, record_size=5)
    check_with_fsspec(data, combined_parq, c_arrays, "combined.parq")
    write_set(data, "combined_parquet", "reference+file://" + combined_parq, c_arrays, c_attrs,
              c_children)
    print(f"reference sets written to {data}/sets")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
