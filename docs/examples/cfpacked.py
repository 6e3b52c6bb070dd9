"""The quick starts on a CF-packed dataset written by xarray (docs/examples/CMakeLists.txt).

Runs in the interop virtual environment (interop/requirements.txt pins xarray).

  cfpacked.py write STORE FORMAT     xarray writes a small consolidated dataset in Zarr FORMAT
                                     (2 or 3): coordinates time ("days since" units), lat, lon
                                     (float32); tas(time, lat, lon) packed into int16 with
                                     scale_factor, add_offset and _FillValue, one value missing
  cfpacked.py values STORE VAR,...   each VAR holds tas unpacked, in degrees Celsius, as
                                     float32: f32(raw * scale_factor + add_offset - 273.15),
                                     NaN where raw is the _FillValue; and agrees with what
                                     xarray decodes
"""

import sys
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import zarr

warnings.simplefilter("ignore")  # zarr-python's note that v3 consolidated metadata is not in the spec

SCALE, OFFSET, FILL = 0.01, 273.15, -32767


def write(store, zarr_format):
    rng = np.random.default_rng(27)
    tas = (273.15 + 15 * rng.standard_normal((4, 3, 5))).round(2)
    tas[1, 2, 3] = np.nan  # missing: stored as the _FillValue
    ds = xr.Dataset(
        {"tas": (("time", "lat", "lon"), tas, {"units": "K", "long_name": "air temperature"})},
        coords={
            "time": pd.date_range("2000-01-01", periods=4, freq="D"),
            "lat": ("lat", np.array([-30.0, 0.0, 30.0], dtype="float32"), {"units": "degrees_north"}),
            "lon": ("lon", np.arange(0.0, 360.0, 72.0, dtype="float32"), {"units": "degrees_east"}),
        },
        attrs={"title": "CF-packed quick start dataset", "Conventions": "CF-1.8"},
    )
    encoding = {
        "tas": {"dtype": "int16", "scale_factor": SCALE, "add_offset": OFFSET, "_FillValue": FILL},
        "time": {"units": "days since 2000-01-01", "calendar": "proleptic_gregorian"},
    }
    ds.to_zarr(store, zarr_format=int(zarr_format), consolidated=True, mode="w", encoding=encoding)
    # What a reader finds: int16 with the packing attributes, the time in days.
    raw = zarr.open_array(store, path="tas", mode="r")
    attrs = dict(raw.attrs)
    assert raw.dtype == np.int16, raw.dtype
    assert attrs["scale_factor"] == SCALE and attrs["add_offset"] == OFFSET, attrs
    assert attrs.get("_FillValue", raw.fill_value) == FILL, (attrs, raw.fill_value)
    assert (raw[...] == FILL).sum() == 1
    assert zarr.open_array(store, path="time", mode="r").attrs["units"] == "days since 2000-01-01"
    print(f"{store}: Zarr v{zarr_format}, tas int16 {raw.shape}, attributes {attrs}")


def values(store, names):
    raw_array = zarr.open_array(store, path="tas", mode="r")
    raw = raw_array[...].astype("float64")
    attrs = raw_array.attrs
    fill = attrs.get("_FillValue", raw_array.fill_value)
    kelvin = np.where(raw == fill, np.nan, raw * attrs["scale_factor"] + attrs["add_offset"])
    want = (kelvin - 273.15).astype("float32")
    # The decoding is CF's, as xarray does it (to within float32 rounding: xarray may
    # decode int16 to float32).
    decoded = xr.open_zarr(store, consolidated=True)["tas"].values.astype("float64")
    if not np.allclose(decoded, kelvin, rtol=1e-6, atol=1e-3, equal_nan=True):
        sys.exit(f"this check's decoding differs from xarray's:\n{kelvin}\n{decoded}")
    for name in names.split(","):
        got = zarr.open_array(store, path=name, mode="r")[...]
        if got.dtype != np.float32 or got.shape != want.shape:
            sys.exit(f"{name}: {got.dtype} {got.shape}, expected float32 {want.shape}")
        same = np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(
            got[~np.isnan(got)], want[~np.isnan(want)])
        if not same:
            sys.exit(f"{name}: values are not tas unpacked - 273.15:\n{got}\n{want}")
        print(f"{name}: {got.size} values, tas unpacked - 273.15, {int(np.isnan(got).sum())} missing")


if __name__ == "__main__":
    {"write": write, "values": values}[sys.argv[1]](*sys.argv[2:])
