#!/usr/bin/env bash
# Creates the virtual environment the interop tests run zarr-python in, inside the build
# tree. Idempotent: does nothing when the pinned versions are already installed.
set -euo pipefail
venv="$1"
requirements="$(dirname "${BASH_SOURCE[0]}")/requirements.txt"
stamp="$venv/.installed-$(md5sum "$requirements" | cut -c1-12)"
if [ -f "$stamp" ]; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
touch "$stamp"
"$venv/bin/python" -c "import zarr, numpy; print('interop venv: zarr', zarr.__version__, 'numpy', numpy.__version__)"
