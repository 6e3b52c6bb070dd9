"""icechunk-python's side of the Icechunk interop tests that libzarr writes to.

Usage:
  icechunk_check.py init DATA_DIR [--s3]     a fresh repository (local, or on moto S3 with
                                             --s3) whose main holds /race and /race_retry
                                             (int32 4x4, 2x2 chunks), for icechunk_commit.c
                                             and icechunk_race.c
  icechunk_check.py commit DATA_DIR          icechunk-python reads what icechunk_commit.c
                                             committed: main's head is its second snapshot,
                                             the two messages are the newest in
                                             repo.ancestry(branch="main"), the values and
                                             attributes are equal
  icechunk_check.py race DATA_DIR N          the N trials of race.txt (icechunk_race.c): each
                                             winner's snapshot is followed by the loser's
                                             retry in main's ancestry, the messages match, and
                                             main's head holds the last winner's /race and the
                                             last retry's /race_retry
  icechunk_check.py versions DATA_DIR FILE   FILE (zarr_store_versions_json of main, from
                                             icechunk_read.c --versions-out) agrees with the
                                             repository as icechunk-python sees it
"""

import json
import os
import shutil
import sys
import warnings

import numpy as np

import icechunk_common as common
import zarr

warnings.simplefilter("ignore")


def fail(message):
    print("FAIL", message, file=sys.stderr)
    sys.exit(1)


def open_repo(data_dir):
    import icechunk
    return icechunk.Repository.open(common.storage(common.read_location(data_dir)))


def init(data_dir, s3):
    import icechunk
    data_dir = os.path.abspath(data_dir)
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(data_dir)
    if s3:
        location = {"kind": "s3", "prefix": common.s3_common().new_prefix("icechunk-commit")}
    else:
        location = {"kind": "file", "path": os.path.join(data_dir, "repo")}
    common.write_location(data_dir, location)
    repo = icechunk.Repository.create(common.storage(location))
    session = repo.writable_session("main")
    root = zarr.open_group(store=session.store, mode="w", attributes={"purpose": "commits"})
    for name in ("race", "race_retry"):
        array = root.create_array(name, shape=(4, 4), chunks=(2, 2), dtype="int32", fill_value=0)
        array[:] = np.arange(16, dtype="int32").reshape(4, 4)
    snapshot = session.commit("prepared by icechunk_check.py init")
    print(f"initial snapshot {snapshot} at {open(os.path.join(data_dir, 'store.url')).read().strip()}")


def check_commit(data_dir):
    repo = open_repo(data_dir)
    with open(os.path.join(data_dir, "c_commit.txt")) as f:
        commits = [line.rstrip("\n").split(" ", 2)[1:] for line in f if line.startswith("commit ")]
    if len(commits) != 2:
        fail(f"c_commit.txt holds {len(commits)} commits")
    (id1, msg1), (id2, msg2) = commits
    head = repo.lookup_branch("main")
    if head != id2:
        fail(f"main's head is {head}, libzarr committed {id2}")
    ancestry = list(repo.ancestry(branch="main"))
    got = [(s.id, s.message) for s in ancestry[:3]]
    if got[0] != (id2, msg2) or got[1] != (id1, msg1):
        fail(f"ancestry of main starts {got}, expected {(id2, msg2)}, {(id1, msg1)}")
    if got[2][1] != "prepared by icechunk_check.py init":
        fail(f"libzarr's first commit's parent is {got[2]}")
    session = repo.readonly_session(branch="main")
    root = zarr.open_group(store=session.store, mode="r")
    values = root["from_c/values"][...]
    expected = np.fromfile(os.path.join(data_dir, "c_values.bin"), dtype="<i4").reshape(6, 10)
    if values.dtype != np.int32 or not np.array_equal(values, expected):
        fail(f"/from_c/values differs:\n{values}\nexpected\n{expected}")
    if dict(root["from_c"].attrs) != {"writer": "libzarr"}:
        fail(f"/from_c attributes {dict(root['from_c'].attrs)}")
    race = np.arange(16, dtype="int32").reshape(4, 4)
    race[1:3, 1:3] = [[-1, -2], [-3, -4]]
    if not np.array_equal(root["race"][...], race):
        fail(f"/race is {root['race'][...]}")
    # The first commit alone: from_c without the second commit's region.
    first = zarr.open_group(store=repo.readonly_session(snapshot_id=id1).store, mode="r")
    expected_first = expected.copy()
    expected_first[4:6, 7:10] = (np.arange(60, dtype="int32").reshape(6, 10) * 3 - 7)[4:6, 7:10]
    if not np.array_equal(first["from_c/values"][...], expected_first):
        fail("the first commit's /from_c/values differ")
    print(f"ok   icechunk-python reads libzarr's commits {id1} and {id2} with their messages")


def check_race(data_dir, trials):
    repo = open_repo(data_dir)
    with open(os.path.join(data_dir, "race.txt")) as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    if len(lines) != trials:
        fail(f"race.txt holds {len(lines)} trials, expected {trials}")
    ancestry = [(s.id, s.message) for s in repo.ancestry(branch="main")]
    ids = [a[0] for a in ancestry]
    for line in lines:
        head, retry, values = line.split("|")
        mode, trial, winner_id, winner_msg = head.split(" ", 3)
        retry_id, retry_msg = retry.split(" ", 1)
        if winner_id not in ids or retry_id not in ids:
            fail(f"{mode} trial {trial}: winner {winner_id} or retry {retry_id} not on main")
        w, r = ids.index(winner_id), ids.index(retry_id)
        if r + 1 != w:
            fail(f"{mode} trial {trial}: the retry is not the winner's child ({r}, {w})")
        if ancestry[w][1] != winner_msg or ancestry[r][1] != retry_msg:
            fail(f"{mode} trial {trial}: messages {ancestry[w][1]!r}, {ancestry[r][1]!r}")
        race_value, retry_value = (int(v) for v in values.split())
        # The winner's snapshot itself holds the winner's data, nothing of the loser's.
        at_winner = zarr.open_group(store=repo.readonly_session(snapshot_id=winner_id).store,
                                    mode="r")
        if not (at_winner["race"][...] == race_value).all():
            fail(f"{mode} trial {trial}: /race at the winner's snapshot is "
                 f"{at_winner['race'][...]}, not {race_value}")
        at_retry = zarr.open_group(store=repo.readonly_session(snapshot_id=retry_id).store,
                                   mode="r")
        if not (at_retry["race_retry"][...] == retry_value).all():
            fail(f"{mode} trial {trial}: /race_retry at the retry is {at_retry['race_retry'][...]}")
        # The retry changed /race_retry only: /race still holds the winner's value.
        if not (at_retry["race"][...] == race_value).all():
            fail(f"{mode} trial {trial}: /race at the retry is {at_retry['race'][...]}")
    if ids[0] != lines[-1].split("|")[1].split(" ")[0]:
        fail(f"main's head {ids[0]} is not the last retry")
    print(f"ok   icechunk-python agrees with {len(lines)} races: one winner each, "
          f"the loser's retry on top")


def check_versions(data_dir, versions_file):
    manifest = common.read_manifest(data_dir)
    repo = open_repo(data_dir)
    with open(versions_file) as f:
        got = json.load(f)
    branches = {b: repo.lookup_branch(b) for b in repo.list_branches()}
    tags = {t: repo.lookup_tag(t) for t in repo.list_tags()}
    history = [s for s in repo.ancestry(branch="main")]
    problems = []
    if got.get("format") != "icechunk":
        problems.append(f"format {got.get('format')!r}")
    if got.get("spec_version") != manifest["spec_version"]:
        problems.append(f"spec_version {got.get('spec_version')!r}, "
                        f"expected {manifest['spec_version']}")
    if got.get("opened") != {"branch": "main"}:
        problems.append(f"opened {got.get('opened')!r}")
    if got.get("snapshot") != branches["main"]:
        problems.append(f"snapshot {got.get('snapshot')!r}, expected {branches['main']}")
    if got.get("branches") != branches:
        problems.append(f"branches {got.get('branches')!r}, expected {branches}")
    if got.get("tags") != tags:
        problems.append(f"tags {got.get('tags')!r}, expected {tags}")
    got_history = [(h.get("id"), h.get("message")) for h in got.get("history", [])]
    want_history = [(s.id, s.message) for s in history]
    if got_history != want_history:
        problems.append(f"history {got_history}, expected {want_history}")
    for h in got.get("history", []):
        if not isinstance(h.get("written_at"), str) or not h["written_at"][:4].isdigit():
            problems.append(f"written_at {h.get('written_at')!r}")
            break
    if problems:
        fail("zarr_store_versions_json disagrees with icechunk-python: " + "; ".join(problems))
    print(f"ok   versions_json: {len(branches)} branches, {len(tags)} tags, "
          f"{len(want_history)} commits on main")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    command, data_dir = sys.argv[1], sys.argv[2]
    if command == "init":
        init(data_dir, "--s3" in sys.argv[3:])
    elif command == "commit":
        check_commit(data_dir)
    elif command == "race":
        check_race(data_dir, int(sys.argv[3]))
    elif command == "versions":
        check_versions(data_dir, sys.argv[3])
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main()
