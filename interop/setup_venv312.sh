#!/usr/bin/env bash
# Creates the Python 3.12 virtual environment of the peers that need it (zarr-python 3.4,
# icechunk 2.x, kerchunk), inside the build tree, from requirements-py312.txt. Python 3.12
# comes from $ZARR_PYTHON312, else pyenv (~/.pyenv/versions/3.12*), else python3.12 on the
# PATH. Idempotent: does nothing when the pinned versions are already installed.
set -euo pipefail
venv="$1"
requirements="$(dirname "${BASH_SOURCE[0]}")/requirements-py312.txt"
stamp="$venv/.installed-$(md5sum "$requirements" | cut -c1-12)"
if [ -f "$stamp" ]; then
  exit 0
fi
python="${ZARR_PYTHON312:-}"
if [ -z "$python" ]; then
  for candidate in "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    [ -x "$candidate" ] && python="$candidate"
  done
fi
if [ -z "$python" ]; then
  python="$(command -v python3.12 || true)"
fi
if [ -z "$python" ]; then
  echo "setup_venv312.sh: no Python 3.12 (set ZARR_PYTHON312, or install it with pyenv)" >&2
  exit 1
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
touch "$stamp"
"$venv/bin/python" -c "import sys, zarr, icechunk, kerchunk; print('py312 venv: python', sys.version.split()[0], 'zarr', zarr.__version__, 'icechunk', icechunk.__version__, 'kerchunk', kerchunk.__version__)"
