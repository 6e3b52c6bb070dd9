"""Write the small xarray datasets of this directory (run once; the output is committed).

    python3 -m venv /tmp/xr && /tmp/xr/bin/pip install xarray zarr==3.1.6 numcodecs==0.16.6 numpy
    /tmp/xr/bin/python make_dataset.py          # in tests/data/xarray

writes v2.zarr (Zarr v2, consolidated .zmetadata) and v3.zarr (Zarr v3), replacing them.
"""

import shutil

import numpy as np
import xarray as xr


def dataset():
    lat = xr.DataArray(
        np.array([-10.0, 0.0, 10.0]),
        dims="lat",
        attrs={"units": "degrees_north", "standard_name": "latitude"},
    )
    lon = xr.DataArray(
        np.array([0.0, 90.0, 180.0, 270.0]),
        dims="lon",
        attrs={"units": "degrees_east", "standard_name": "longitude"},
    )
    tas = xr.DataArray(
        (270.0 + 0.25 * np.arange(12).reshape(3, 4)).astype("float32"),
        dims=("lat", "lon"),
        attrs={
            "units": "K",
            "long_name": "near-surface air temperature",
            "valid_min": 180.0,
            "cell_methods": "time: mean",
        },
    )
    station = xr.DataArray(np.array(["a", "bb", "ccc"]), dims="lat")
    return xr.Dataset(
        {"tas": tas, "station": station},
        coords={"lat": lat, "lon": lon},
        attrs={"title": "libzarr test dataset", "Conventions": "CF-1.8"},
    )


def main():
    ds = dataset()
    for name, version, consolidated in [("v2.zarr", 2, True), ("v3.zarr", 3, False)]:
        shutil.rmtree(name, ignore_errors=True)
        ds.to_zarr(name, mode="w", zarr_format=version, consolidated=consolidated)
        back = xr.open_zarr(name, consolidated=consolidated)
        assert back["tas"].attrs["units"] == "K"
        assert float(back["tas"][1, 2]) == 271.5


if __name__ == "__main__":
    main()
