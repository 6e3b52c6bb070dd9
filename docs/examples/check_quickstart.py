"""Checks of the README's quick start programs (docs/examples/CMakeLists.txt).

  check_quickstart.py values ZARR STORE VAR,...   each VAR holds tas - 273.15 (computed in
                                                  double, as the programs do), as float32
  check_quickstart.py readme README.md DIR        every quickstart.* in DIR is in README.md
  check_quickstart.py julia QUICKSTART.jl LibZarr.jl
                                                  every function the Julia program calls is
                                                  LibZarr's (exported) or Julia's own
"""

import re
import subprocess
import sys
from pathlib import Path

import struct


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def cat(zarr, store, var):
    out = subprocess.run([zarr, "cat", f"{store}/{var}"], check=True, capture_output=True, text=True).stdout
    return [float(v) for line in out.splitlines() if line and not line.startswith("[") for v in line.split()]


def values(zarr, store, names):
    tas = cat(zarr, store, "tas")
    for name in names.split(","):
        got = cat(zarr, store, name)
        # tas is float32 here, without scale_factor or add_offset: the programs read it
        # as doubles and subtract 273.15 in double (cfpacked.py checks the packed case).
        want = [f32(f32(t) - 273.15) for t in tas]
        same = len(got) == len(want) and all((g != g and w != w) or f32(g) == w for g, w in zip(got, want))
        if not same:
            sys.exit(f"{name}: values are not tas - 273.15:\n{got}\n{want}")
        print(f"{name}: {len(got)} values, tas - 273.15")


def readme(readme_path, directory):
    text = Path(readme_path).read_text()
    missing = [p.name for p in sorted(Path(directory).glob("quickstart.*")) if p.read_text() not in text]
    if missing:
        sys.exit("README.md does not hold these files verbatim (copy them into its quick start): "
                 + ", ".join(missing))
    print("README.md holds every quick start program verbatim")


JULIA_BUILTINS = {"println", "length", "size", "open", "map", "rethrow"}


def julia(program, module):
    source = Path(program).read_text()
    exported = set()
    for line in Path(module).read_text().splitlines():
        if line.startswith("export "):
            exported |= {n.strip() for n in line[len("export "):].split(",")}
    code = "\n".join(l.split("#", 1)[0] for l in source.splitlines())
    code = re.sub(r'"""[^"]*"""|"[^"]*"', '""', code)
    called = set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_!]*)\(", code))
    # functions the program defines itself: `name(args) = ...` or `function name(args)`
    defined = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_!]*)\([^)]*\)\s*=[^=]", code, re.M))
    defined |= set(re.findall(r"^function\s+([A-Za-z_][A-Za-z0-9_!]*)\(", code, re.M))
    unknown = sorted(called - exported - JULIA_BUILTINS - defined)
    if unknown:
        sys.exit(f"{program} calls what LibZarr does not export: {', '.join(unknown)}")
    print(f"{program}: calls {', '.join(sorted(called & exported))} of LibZarr")


if __name__ == "__main__":
    {"values": values, "readme": readme, "julia": julia}[sys.argv[1]](*sys.argv[2:])
