"""icechunk-python (2.3, with zarr-python 3.4) writes a versioned repository for libzarr to
read (interop, label icechunk).

Usage: icechunk_write.py DATA_DIR [--s3] [--spec-version 1|2] [--virtual]

How the Icechunk tests work: this script writes a repository with the reference
implementation, locally (DATA_DIR/repo, icechunk.local_filesystem_storage) or with --s3 under
a fresh prefix of the loopback moto bucket (icechunk.s3_storage), and records in DATA_DIR
every version it committed: its snapshot id, the branch and tag pointing at it, its commit
message and the exact nodes and values a reader of that version must see (read back through
icechunk-python at that snapshot, and checked against what the script meant to write).
icechunk_read.c then opens every version by branch, by tag and by snapshot id through
zarr_store_open_url and compares byte for byte; icechunk_commit.c and icechunk_race.c
write and commit through libzarr and icechunk_check.py reads their commits back with
icechunk-python. DATA_DIR's files are described in icechunk_common.py.

The history (main: four commits; a tag; a branch with its own commit):
  v0 "initial hierarchy"  root group and /grid with attributes; /grid/temp float32 20x30
                          in 8x8 chunks (zstd, fill value -1, one chunk never written);
                          /grid/sharded int32 40x36 in 20x18 shards of 5x6 chunks;
                          /labels variable-length strings in chunks of 3; /small uint8,
                          so small that icechunk inlines its chunk in the manifest
  v1 "update temp and sharded"   a region of each changes; root attribute version = 2
                                 (tag "v1" points here, branch "dev" starts here)
  v2 "strings and a new array"   /labels change; /grid/counts int64 is created
  v3 "remove small"              /small is deleted
  dev "dev branch change"        (on branch dev, from v1) /grid/temp changes otherwise,
                                 /grid gets attribute branch = "dev"
With --virtual the repository also holds /virtual/values (float64, every chunk a virtual
reference into DATA_DIR/virtual/raw.bin, a file:// container) and the files allow.options
and wrong.options hold the extra zarr_store_open_url options that allow that file's prefix
or only an unrelated one.
"""

import argparse
import copy
import json
import os
import shutil
import sys
import warnings

import numpy as np

import icechunk_common as common
import icechunk
import zarr

warnings.simplefilter("ignore")

LABELS_V0 = ["", "alpha", "\u00e9t\u00e9", "\u65e5\u672c\u8a9e", "x" * 200, "line\nbreak", "z"]
LABELS_V2 = ["changed", "", "\U0001F600", "quote \" \\", "y" * 50, "six", "seven"]


class Writer:
    """Writes through icechunk-python and keeps a mirror of what each version holds."""

    def __init__(self, data_dir, repo):
        self.data_dir = data_dir
        self.repo = repo
        self.state = {"groups": {}, "arrays": {}, "strings": {}, "virtual": set()}
        self.versions = []

    def commit(self, session, message, name):
        snapshot = session.commit(message)
        self.versions.append({"name": name, "snapshot": snapshot, "message": message,
                              "state": copy.deepcopy(self.state)})
        return snapshot


def create_v0(w, session):
    root = zarr.open_group(store=session.store, mode="w",
                           attributes={"title": "icechunk interop", "version": 1,
                                       "scale": 0.5})
    grid = root.create_group("grid", attributes={"units": "K", "levels": 3})
    w.state["groups"]["/"] = {"title": "icechunk interop", "version": 1, "scale": 0.5}
    w.state["groups"]["/grid"] = {"units": "K", "levels": 3}

    temp = grid.create_array("temp", shape=(20, 30), chunks=(8, 8), dtype="float32",
                             fill_value=-1.0, compressors=zarr.codecs.ZstdCodec(level=3),
                             attributes={"long_name": "temperature"})
    values = np.full((20, 30), -1.0, dtype="float32")
    rng = np.random.default_rng(1)
    values[:16, :] = rng.standard_normal((16, 30)).astype("float32")
    values[16:, :24] = rng.standard_normal((4, 24)).astype("float32")  # chunk (2, 3) unwritten
    temp[:16, :] = values[:16, :]
    temp[16:, :24] = values[16:, :24]
    w.state["arrays"]["/grid/temp"] = values

    sharded = grid.create_array("sharded", shape=(40, 36), shards=(20, 18), chunks=(5, 6),
                                dtype="int32", fill_value=0)
    ivalues = np.arange(40 * 36, dtype="int32").reshape(40, 36) * 7 - 3000
    sharded[:] = ivalues
    w.state["arrays"]["/grid/sharded"] = ivalues

    labels = root.create_array("labels", shape=(7,), chunks=(3,), dtype=str)
    labels[:] = np.array(LABELS_V0, dtype=object)
    w.state["strings"]["/labels"] = list(LABELS_V0)

    small = root.create_array("small", shape=(4,), chunks=(4,), dtype="uint8", fill_value=0,
                              compressors=None)
    small[:] = np.array([1, 2, 3, 250], dtype="uint8")
    w.state["arrays"]["/small"] = np.array([1, 2, 3, 250], dtype="uint8")


def update_v1(w, session):
    root = zarr.open_group(store=session.store, mode="r+")
    temp = root["grid/temp"]
    block = np.linspace(100, 200, 5 * 10, dtype="float32").reshape(5, 10)
    temp[3:8, 5:15] = block
    w.state["arrays"]["/grid/temp"][3:8, 5:15] = block
    sharded = root["grid/sharded"]
    sblock = -np.arange(12 * 9, dtype="int32").reshape(12, 9)
    sharded[15:27, 14:23] = sblock  # crosses shard and inner chunk borders
    w.state["arrays"]["/grid/sharded"][15:27, 14:23] = sblock
    root.attrs["version"] = 2
    w.state["groups"]["/"]["version"] = 2


def update_v2(w, session):
    root = zarr.open_group(store=session.store, mode="r+")
    root["labels"][:] = np.array(LABELS_V2, dtype=object)
    w.state["strings"]["/labels"] = list(LABELS_V2)
    counts = root["grid"].create_array("counts", shape=(9, 5), chunks=(4, 4), dtype="int64",
                                       fill_value=0)
    cvalues = (np.arange(45, dtype="int64").reshape(9, 5) - 20) * (1 << 40)
    counts[:] = cvalues
    w.state["arrays"]["/grid/counts"] = cvalues


def update_v3(w, session):
    root = zarr.open_group(store=session.store, mode="r+")
    del root["small"]
    del w.state["arrays"]["/small"]


def update_dev(w, session):
    root = zarr.open_group(store=session.store, mode="r+")
    temp = root["grid/temp"]
    temp[10:20, 20:30] = np.float32(42.5)
    w.state["arrays"]["/grid/temp"][10:20, 20:30] = np.float32(42.5)
    root["grid"].attrs["branch"] = "dev"
    w.state["groups"]["/grid"]["branch"] = "dev"


def add_virtual(w, session, data_dir):
    """/virtual/values: float64 16 in chunks of 4, every chunk a virtual reference to a
    stretch of DATA_DIR/virtual/raw.bin (uncompressed, little-endian, after a header)."""
    raw_dir = os.path.join(os.path.abspath(data_dir), "virtual")
    os.makedirs(raw_dir, exist_ok=True)
    values = np.arange(16, dtype="<f8") * 1.25 - 3.0
    header = b"not a chunk: virtual references point past this header\n"
    with open(os.path.join(raw_dir, "raw.bin"), "wb") as f:
        f.write(header)
        # chunks stored out of order, so that a reader must use each reference's offset
        for chunk in (2, 0, 3, 1):
            f.write(values[chunk * 4:(chunk + 1) * 4].tobytes())
    root = zarr.open_group(store=session.store, mode="r+")
    root.create_group("virtual")
    root.create_array("virtual/values", shape=(16,), chunks=(4,), dtype="<f8", fill_value=0.0,
                      compressors=None, filters=None)
    for position, chunk in enumerate((2, 0, 3, 1)):
        session.store.set_virtual_ref(f"virtual/values/c/{chunk}",
                                      "file://" + os.path.join(raw_dir, "raw.bin"),
                                      offset=len(header) + position * 32, length=32)
    w.state["groups"]["/virtual"] = {}
    w.state["arrays"]["/virtual/values"] = values.astype("float64")
    w.state["virtual"].add("/virtual/values")
    prefix = "file://" + raw_dir + "/"
    with open(os.path.join(data_dir, "allow.options"), "w") as f:
        json.dump({"virtual_chunk_prefixes": [prefix]}, f)
    with open(os.path.join(data_dir, "wrong.options"), "w") as f:
        json.dump({"virtual_chunk_prefixes": ["file:///nonexistent-elsewhere/"]}, f)
    return prefix


def read_back(repo, snapshot, state):
    """What icechunk-python reads at `snapshot`; must be what the script wrote."""
    session = repo.readonly_session(snapshot_id=snapshot)
    root = zarr.open_group(store=session.store, mode="r")
    for path, attrs in state["groups"].items():
        group = root if path == "/" else root[path.strip("/")]
        assert dict(group.attrs) == attrs, (path, dict(group.attrs), attrs)
    for path, values in state["arrays"].items():
        got = root[path.strip("/")][...]
        assert got.dtype == values.dtype and np.array_equal(got, values), path
    for path, strings in state["strings"].items():
        got = list(root[path.strip("/")][...])
        assert got == strings, (path, got, strings)
    assert "small" in root or "/small" not in state["arrays"]
    if "/small" not in state["arrays"]:
        assert "small" not in root


def children_of(state, group):
    """Sorted "name:a" / "name:g" entries of the direct children of `group`."""
    paths = {p: "g" for p in state["groups"] if p != "/"}
    paths.update({p: "a" for p in state["arrays"]})
    paths.update({p: "a" for p in state["strings"]})
    prefix = "/" if group == "/" else group + "/"
    out = []
    for path, kind in paths.items():
        if path.startswith(prefix) and "/" not in path[len(prefix):]:
            out.append(f"{path[len(prefix):]}:{kind}")
    return sorted(out)


def attr_line(path, key, value):
    if isinstance(value, bool):
        raise ValueError("no boolean attributes in the checks")
    if isinstance(value, int):
        return f"attr {path} {key} int {value}"
    if isinstance(value, float):
        return f"attr {path} {key} float {value!r}"
    return f"attr {path} {key} str {value}"


def write_checks(data_dir, versions, refs):
    """expected/ files and checks.txt (format: icechunk_read.c)."""
    expected = os.path.join(data_dir, "expected")
    os.makedirs(expected, exist_ok=True)
    lines = []
    files = {}
    for index, version in enumerate(versions):
        state = version["state"]
        body = []
        for path in sorted(state["groups"]):
            children = children_of(state, path)
            body.append(f"group {path} {len(children)} {' '.join(children)}".rstrip())
            for key, value in state["groups"][path].items():
                body.append(attr_line(path, key, value))
        for path, values in sorted(state["arrays"].items()):
            name = f"v{index}{path.replace('/', '_')}.bin"
            with open(os.path.join(expected, name), "wb") as f:
                f.write(np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<"))
                        .tobytes())
            kind = "varray" if path in state["virtual"] else "array"
            body.append(f"{kind} {path} {values.dtype.name} expected/{name}")
        for path, strings in sorted(state["strings"].items()):
            name = f"v{index}{path.replace('/', '_')}.arrow"
            with open(os.path.join(expected, name), "wb") as f:
                f.write(common.arrow(strings))
            body.append(f"strings {path} expected/{name}")
        for gone in ("/small", "/grid/counts"):
            if gone not in state["arrays"]:
                body.append(f"absent {gone}")
        files[version["snapshot"]] = body
    for kind, ref, snapshot in refs:
        lines.append(f"version {kind} {ref}")
        lines.extend(files[snapshot])
        lines.append("end")
    with open(os.path.join(data_dir, "checks.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("--s3", action="store_true")
    parser.add_argument("--spec-version", type=int, default=2)
    parser.add_argument("--virtual", action="store_true")
    args = parser.parse_args()
    data_dir = os.path.abspath(args.data_dir)
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(data_dir)
    if args.s3:
        location = {"kind": "s3", "prefix": common.s3_common().new_prefix("icechunk")}
    else:
        location = {"kind": "file", "path": os.path.join(data_dir, "repo")}
    common.write_location(data_dir, location)

    config = icechunk.RepositoryConfig.default()
    credentials = None
    if args.virtual:
        raw_prefix = "file://" + os.path.join(data_dir, "virtual") + "/"
        config.set_virtual_chunk_container(
            icechunk.VirtualChunkContainer(raw_prefix, icechunk.local_filesystem_store(
                os.path.join(data_dir, "virtual"))))
        credentials = icechunk.containers_credentials(
            {raw_prefix: icechunk.Credentials.LocalFileSystemAccess()})
    repo = icechunk.Repository.create(common.storage(location), config=config,
                                      authorize_virtual_chunk_access=credentials,
                                      spec_version=args.spec_version)
    w = Writer(data_dir, repo)

    session = repo.writable_session("main")
    create_v0(w, session)
    if args.virtual:
        add_virtual(w, session, data_dir)
    w.commit(session, "initial hierarchy", "v0")
    session = repo.writable_session("main")
    update_v1(w, session)
    v1 = w.commit(session, "update temp and sharded", "v1")
    repo.create_tag("v1", snapshot_id=v1)
    repo.create_branch("dev", snapshot_id=v1)
    session = repo.writable_session("main")
    update_v2(w, session)
    w.commit(session, "strings and a new array", "v2")
    session = repo.writable_session("main")
    update_v3(w, session)
    w.commit(session, "remove small", "v3")

    # dev starts from v1: rebuild the mirror from v1's state before changing it.
    w.state = copy.deepcopy(w.versions[1]["state"])
    session = repo.writable_session("dev")
    update_dev(w, session)
    w.commit(session, "dev branch change", "dev")

    for version in w.versions:
        read_back(repo, version["snapshot"], version["state"])

    by_name = {v["name"]: v["snapshot"] for v in w.versions}
    refs = [("branch", "main", by_name["v3"]), ("branch", "dev", by_name["dev"]),
            ("tag", "v1", by_name["v1"])]
    refs += [("snapshot", v["snapshot"], v["snapshot"]) for v in w.versions]
    write_checks(data_dir, w.versions, refs)

    branches = {b: repo.lookup_branch(b) for b in repo.list_branches()}
    tags = {t: repo.lookup_tag(t) for t in repo.list_tags()}
    assert branches["main"] == by_name["v3"] and branches["dev"] == by_name["dev"], branches
    assert tags == {"v1": by_name["v1"]}, tags
    history = {b: [{"id": s.id, "message": s.message, "written_at": s.written_at.isoformat()}
                   for s in repo.ancestry(branch=b)] for b in branches}
    manifest = {
        "spec_version": args.spec_version,
        "location": location,
        "url": open(os.path.join(data_dir, "store.url")).read().strip(),
        "branches": branches,
        "tags": tags,
        "history": history,
        "versions": [{"name": v["name"], "snapshot": v["snapshot"], "message": v["message"],
                      "groups": v["state"]["groups"],
                      "arrays": sorted(v["state"]["arrays"]),
                      "strings": v["state"]["strings"]} for v in w.versions],
    }
    with open(os.path.join(data_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"icechunk {icechunk.__version__} wrote {len(w.versions)} versions "
          f"(spec version {args.spec_version}) at {manifest['url']}")


if __name__ == "__main__":
    sys.exit(main())
