"""The zarr tool on a dataset written by xarray, as a climate scientist would meet one.

usage: python xarray_cli.py ZARR WORKDIR FORMAT

xarray writes a consolidated dataset in Zarr FORMAT (2 or 3) into WORKDIR: coordinates
time (dates), lat, lon; tas(time, lat, lon) float32 with missing values; pr packed into
int16 with scale_factor, add_offset and _FillValue; station_name, variable-length strings
(v2: an object array with a vlen-utf8 codec; v3: data type string). Then `zarr tree`,
`zarr info` and `zarr cat` must describe and print it, and `zarr cp` to the other format
(and back, rechunked, by variable) must give copies that xr.open_zarr opens with the same
dimensions, attributes, encodings and values, the strings included.
"""

import json
import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

warnings.simplefilter("ignore")  # zarr-python's note that v3 consolidated metadata is not in the spec

ZARR, WORK, FORMAT = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
OTHER = 5 - FORMAT


def run(*args, rc=0):
    p = subprocess.run([ZARR, *map(str, args)], capture_output=True, text=True)
    if p.returncode != rc:
        sys.exit(f"zarr {' '.join(map(str, args))}: exit {p.returncode}, expected {rc}\n{p.stdout}\n{p.stderr}")
    return p.stdout, p.stderr


def check(cond, what, *context):
    if not cond:
        sys.exit("FAIL: " + what + "".join("\n" + str(c) for c in context))


def dataset():
    rng = np.random.default_rng(7)
    tas = (280 + 10 * rng.standard_normal((6, 4, 5))).astype("float32")
    tas[0, 0, 0] = np.nan
    pr = rng.uniform(0, 50, (6, 4, 5))
    pr[1, 1, 1] = np.nan
    return xr.Dataset(
        {
            "tas": (("time", "lat", "lon"), tas, {"units": "K", "long_name": "air temperature"}),
            "pr": (("time", "lat", "lon"), pr, {"units": "mm/day"}),
            "station_name": (("station",), np.array(["Oslo", "Bergen", "Tromsø"], dtype=object)),
        },
        coords={
            "time": pd.date_range("2000-01-01", periods=6, freq="D"),
            "lat": ("lat", np.linspace(-45.0, 45.0, 4), {"units": "degrees_north"}),
            "lon": ("lon", np.arange(0.0, 360.0, 72.0), {"units": "degrees_east"}),
        },
        attrs={"title": "xarray test dataset", "Conventions": "CF-1.8"},
    )


def numbers(text, dtype="float64"):
    """The values `zarr cat` printed, read as `dtype`; slice labels and empty lines left out."""
    out = []
    for line in text.splitlines():
        if line and not line.startswith("["):
            out += line.split()
    return np.array([np.dtype(dtype).type(float(v)) for v in out])


def same_values(a, b):
    return a.shape == b.shape and all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b))


def compare(src, dst, skipped):
    a = xr.open_zarr(src, consolidated=True).drop_vars(skipped)  # their dimensions go with them
    b = xr.open_zarr(dst, consolidated=True)
    check(dict(a.sizes) == dict(b.sizes), "dimensions differ", dict(a.sizes), dict(b.sizes))
    xr.testing.assert_identical(a, b)  # names, dimensions, coordinates, attributes, values
    for v in a.variables:
        check(a[v].dims == b[v].dims, f"{v}: dimensions differ")
        check(a[v].attrs == b[v].attrs, f"{v}: attributes differ", a[v].attrs, b[v].attrs)
        for key in ("dtype", "scale_factor", "add_offset", "units", "calendar"):
            check(a[v].encoding.get(key) == b[v].encoding.get(key), f"{v}: encoding {key} differs",
                  a[v].encoding, b[v].encoding)
        check(np.array_equal(a[v].values, b[v].values, equal_nan=a[v].dtype.kind == "f"), f"{v}: values differ")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    src = WORK / f"v{FORMAT}.zarr"
    ds = dataset()
    ds.to_zarr(src, zarr_format=FORMAT, consolidated=True, mode="w",
               encoding={"pr": {"dtype": "int16", "scale_factor": 0.01, "add_offset": 0.0, "_FillValue": -32767}})
    ds = xr.open_zarr(src, consolidated=True)

    # tree: every variable, the strings too
    out, err = run("tree", src)
    lines = out.splitlines()
    check(lines[0] == "/", "tree starts at /", out)
    for name, decl in [("lat", "float64 [4] (lat)"), ("lon", "float64 [5] (lon)"), ("time", "int64 [6] (time)"),
                       ("pr", "int16 [6, 4, 5] (time, lat, lon)"), ("tas", "float32 [6, 4, 5] (time, lat, lon)")]:
        check(any(l.startswith(f"  {name}  {decl} chunks ") for l in lines), f"tree line of {name}", out)
    string_type = "object" if FORMAT == 2 else "string"
    check(any(l.startswith(f"  station_name  {string_type} [3] (station)") and "not decodable" not in l
              for l in lines), "station_name described", out)
    check("not decodable" not in err, "tree has nothing to skip", err)

    # info: the ncdump -h view
    out, err = run("info", src)
    for line in ["consolidated:       yes", "dimensions:         lat = 4, lon = 5, time = 6, station = 3",
                 f"zarr_format:        {FORMAT}", '  title = "xarray test dataset"', '      units = "K"',
                 '      long_name = "air temperature"', "      scale_factor = 0.01",
                 '      units = "days since 2000-01-01 00:00:00"']:
        check(line in out.splitlines(), f"info has {line!r}", out)
    out, _ = run("info", "--json", f"{src}/pr")
    info = json.loads(out)
    check(info["dimension_names"] == ["time", "lat", "lon"] and info["data_type"] == "int16", "info --json", info)
    check(info["attributes"]["scale_factor"] == 0.01, "info --json attributes", info)
    out, err = run("info", f"{src}/station_name")
    check("not decodable" not in out, "info of the string array", out)
    check("  variable-length UTF-8 strings" in out.splitlines(), "info says what the elements are", out)
    check("dimension_names:    [station]" in out.splitlines(), "info of the string array: its dimension", out)

    # cat: exact values; --decode as xarray decodes
    out, _ = run("cat", f"{src}/tas")
    check(same_values(numbers(out, "float32"), ds.tas.values.ravel()), "cat tas (shortest float32 text)", out)
    check(out.startswith("[time=0, :, :]\n"), "cat labels 2-D slices", out)
    out, _ = run("cat", "--decode", f"{src}/pr")
    check(same_values(numbers(out), ds.pr.values.ravel()), "cat --decode pr equals xarray's values", out)
    out, _ = run("cat", f"{src}/time")
    check(list(numbers(out)) == [0, 1, 2, 3, 4, 5], "cat time (days since 2000-01-01)", out)
    out, _ = run("cat", f"{src}/station_name")
    check(out == '"Oslo" "Bergen" "Troms\u00f8"\n', "cat station_name: quoted strings", out)

    # cp to the other format, and back; xarray sees the same dataset, strings included
    dst = WORK / f"copy_v{OTHER}.zarr"
    out, err = run("cp", src, dst, "--format", OTHER)
    check("skipped" not in err and "as stored" not in err, "cp converts every variable", err)
    check((dst / (".zmetadata" if OTHER == 2 else "zarr.json")).exists(), "the copy has metadata")
    compare(src, dst, [])
    back = WORK / f"back_v{FORMAT}.zarr"
    run("cp", dst, back)
    compare(src, back, [])
    run("cp", src, WORK / "strict.zarr", "--format", OTHER, "--strict")

    same = WORK / f"same_v{FORMAT}.zarr"
    run("cp", src, same)
    compare(src, same, [])

    # rechunked by dimension name: the 1-D coordinates too
    rechunked = WORK / "rechunked.zarr"
    run("cp", src, rechunked, "--format", OTHER, "--chunks", "time/2,lat/3")
    r = xr.open_zarr(rechunked, consolidated=True)
    check(r.tas.encoding["chunks"] == (2, 3, 5) and r.time.encoding["chunks"] == (2,), "chunks by name",
          r.tas.encoding, r.time.encoding)
    compare(src, rechunked, [])

    # a subset of variables, with its coordinates
    subset = WORK / "subset.zarr"
    run("cp", src, subset, "--vars", "pr")
    s = xr.open_zarr(subset, consolidated=True)
    check(sorted(s.variables) == ["lat", "lon", "pr", "time"], "--vars pr", list(s.variables))
    xr.testing.assert_identical(s.pr, ds.pr)
    print(f"xarray dataset v{FORMAT}: tree, info, cat and cp to v{OTHER} and back check out")


main()
