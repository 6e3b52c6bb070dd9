"""Check with zarr-python what test_zarr_fortran wrote (the Fortran dimension-order rule).

Usage: check_fortran_output.py STORE_DIR

A column-major Fortran array a(nx, ny) is stored as the Zarr array of shape (ny, nx), so
Fortran's a(i, j) (1-based) must be zarr-python's z[j-1, i-1]:
  /a2d    float32, a(i, j) = 10*i + j for nx = 5, ny = 3 -> shape (3, 5)
  /g/i3d  int32, v(i, j, k) = 100*i + 10*j + k for (4, 3, 2) -> shape (2, 3, 4)
  /       group attributes {"title": "written by Fortran", "nx": 5}
"""

import sys

import numpy as np
import zarr


def main(store):
    failures = []

    def check(condition, what):
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            failures.append(what)

    z = zarr.open_array(store=store, path="a2d", mode="r")
    check(z.shape == (3, 5), f"a2d shape {z.shape} == (3, 5)")
    check(z.dtype == np.dtype("float32"), f"a2d dtype {z.dtype} == float32")
    check(tuple(z.metadata.dimension_names or ()) == ("y", "x"),
          f"a2d dimension_names {z.metadata.dimension_names} == ('y', 'x')")
    values = z[...]
    nx, ny = 5, 3
    wrong = [(i, j, float(values[j - 1, i - 1]))
             for i in range(1, nx + 1) for j in range(1, ny + 1)
             if values[j - 1, i - 1] != 10 * i + j]
    check(not wrong, f"a2d: z[j-1, i-1] == 10*i + j for all i, j (mismatches: {wrong})")
    check(z[1, 3] == 42, "Fortran a(4, 2) = 42 is z[1, 3]")

    v = zarr.open_array(store=store, path="g/i3d", mode="r")
    check(v.shape == (2, 3, 4), f"g/i3d shape {v.shape} == (2, 3, 4)")
    check(v.dtype == np.dtype("int32"), f"g/i3d dtype {v.dtype} == int32")
    k, j, i = np.meshgrid(np.arange(1, 3), np.arange(1, 4), np.arange(1, 5), indexing="ij")
    check(np.array_equal(v[...], 100 * i + 10 * j + k),
          "g/i3d: z[k-1, j-1, i-1] == 100*i + 10*j + k")

    root = zarr.open_group(store=store, mode="r")
    attrs = dict(root.attrs)
    check(attrs == {"title": "written by Fortran", "nx": 5}, f"root attributes {attrs}")

    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("check_fortran_output: zarr-python reads the Fortran store as expected")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
