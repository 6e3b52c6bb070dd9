#!/bin/sh
# zarr cp of a Kerchunk reference set into a real Zarr store, then the copy's values against
# h5py's. Usage: reference_cp.sh ZARR READER DATA_DIR OUT_DIR
#   ZARR      the zarr tool; READER interop/reference's reference_read
#   DATA_DIR  the data of interop/reference/make_references.py (fixture reference_data)
# The copy is read by reference_read with the hdf_v0 set's manifest (every array whole and
# in part, the groups' children, the attributes), opened read-only (the reader checks that
# writes are refused).
set -eu
zarr=$1 reader=$2 data=$3 out=$4
rm -rf "$out"
mkdir -p "$out/set"
"$zarr" cp "reference+file://$data/refs/hdf_v0.json" "$out/copy.zarr"
[ -d "$out/copy.zarr" ] || { echo "FAIL: zarr cp made no store" >&2; exit 1; }
echo "$out/copy.zarr" > "$out/set/store.url"
echo '{"read_only": true}' > "$out/set/store.options"
cp "$data/sets/hdf_v0/manifest.txt" "$out/set/"
exec "$reader" "$out/set" "$data/expected"
