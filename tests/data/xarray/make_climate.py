"""Write climate_v2.zarr and climate_v3.zarr, the xarray dataset of issue 12 (run once; the
output is committed). Run with the interop virtual environment (xarray, zarr-python 3.1.6,
numcodecs 0.16.6):

    build/interop-venv/bin/pip install xarray
    cd tests/data/xarray && ../../../build/interop-venv/bin/python make_climate.py

What xarray writes every day: a datetime coordinate (CF-encoded as int64 days with `units`
and `calendar`), string labels (object strings: v2 `|O` with vlen-utf8, v3 `string`), a
CF-packed int16 variable (`scale_factor`, `add_offset`, `_FillValue`, one missing value)
and a float32 field; v2 with consolidated metadata, v3 without.
"""

import shutil

import numpy as np
import pandas as pd
import xarray as xr


def dataset():
    time = pd.date_range("2026-01-01", periods=4, freq="D")
    station = np.array(["Zürich", "São Paulo", "東京", ""], dtype=object)
    tas = (280.0 + np.arange(16).reshape(4, 4) * 0.5).astype("float32")
    pr = np.array([[0.0, 1.25, 2.5, np.nan], [0.01, 0.02, 10.0, 3.0],
                   [5.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0]])
    ds = xr.Dataset(
        {
            "tas": (("time", "station"), tas, {"units": "K", "long_name": "air temperature"}),
            "pr": (("time", "station"), pr, {"units": "mm/day"}),
            "label": ("station", np.array(["alpine", "coastal", "urban", "none"], dtype=object)),
        },
        coords={"time": time, "station": station},
        attrs={"title": "libzarr xarray dataset", "Conventions": "CF-1.8"},
    )
    ds["pr"].encoding = {"dtype": "int16", "scale_factor": 0.01, "add_offset": 0.0,
                         "_FillValue": -32768}
    ds["time"].encoding = {"units": "days since 2026-01-01", "calendar": "proleptic_gregorian",
                           "dtype": "int64"}
    return ds


def main():
    ds = dataset()
    for name, version, consolidated in [("climate_v2.zarr", 2, True),
                                        ("climate_v3.zarr", 3, False)]:
        shutil.rmtree(name, ignore_errors=True)
        ds.to_zarr(name, mode="w", zarr_format=version, consolidated=consolidated)
        back = xr.open_zarr(name, consolidated=consolidated).load()
        assert list(back["station"].values) == list(ds["station"].values)
        assert back["time"].values[3] == np.datetime64("2026-01-04")
        assert np.isnan(back["pr"].values[0, 3]) and back["pr"].values[1, 2] == 10.0


if __name__ == "__main__":
    main()
