//! The collective layer against threads as ranks (`local::ThreadComm`): random
//! decompositions of random arrays, each compared with a serial write of the same data;
//! the unhappy paths (overlaps, bad boxes, a store failing on one rank).

use super::local::ThreadComm;
use super::plan::Budget;
use super::*;
use crate::array::Array;
use crate::error::Error;
use crate::group::Group;
use crate::node::ZarrFormat;
use crate::storage::{
    DirListing, ListableStorage, MemoryStore, ReadableStorage, Storage, StorageError,
    WritableStorage,
};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// How the tests number failures, as the C API does with its statuses.
fn code_of(error: &Error) -> i32 {
    match error {
        Error::InvalidArgument(_) => -2,
        Error::BufferTooSmall { .. } => -3,
        Error::BufferSizeMismatch { .. } => -4,
        Error::OutOfBounds(_) => -5,
        Error::NotFound(_) => -6,
        Error::AlreadyExists(_) => -7,
        Error::Unsupported(_) => -10,
        Error::Storage(_) => -12,
        Error::OnRank { code, .. } => *code,
        _ => -99,
    }
}

/// A small deterministic generator (xorshift), so that failures can be replayed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The metadata of the test arrays: `kind` 0 plain v3 with gzip, 1 sharded with zstd and
/// crc32c, 2 v2 with zlib, 3 v3 with transpose and blosc.
fn metadata(kind: u64, shape: &[u64], chunk: &[u64], inner: &[u64]) -> String {
    let names: Vec<String> = (0..shape.len()).map(|d| format!("d{d}")).collect();
    let order: Vec<usize> = (0..shape.len()).rev().collect();
    match kind {
        0 => json!({"zarr_format": 3, "node_type": "array", "shape": shape,
            "data_type": "int32", "fill_value": -1,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
            "chunk_key_encoding": {"name": "default"},
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "gzip", "configuration": {"level": 1}}],
            "dimension_names": names}),
        1 => json!({"zarr_format": 3, "node_type": "array", "shape": shape,
            "data_type": "uint16", "fill_value": 0,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
            "chunk_key_encoding": {"name": "default"},
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": inner,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 1, "checksum": false}}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}]}}]}),
        2 => json!({"zarr_format": 2, "shape": shape, "chunks": chunk, "dtype": "<f8",
            "compressor": {"id": "zlib", "level": 1}, "fill_value": 0.5, "filters": null,
            "order": "C"}),
        _ => json!({"zarr_format": 3, "node_type": "array", "shape": shape,
            "data_type": "uint8", "fill_value": 7,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
            "chunk_key_encoding": {"name": "v2"},
            "codecs": [{"name": "transpose", "configuration": {"order": order}},
                       {"name": "bytes"},
                       {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 1,
                        "shuffle": "shuffle", "typesize": 1, "blocksize": 0}}]}),
    }
    .to_string()
}

/// Cut `0..n` into pieces at random points.
fn cuts(random: &mut Random, n: u64) -> Vec<u64> {
    let mut points: Vec<u64> = (0..random.below(4)).map(|_| random.below(n + 1)).collect();
    points.extend([0, n]);
    points.sort_unstable();
    points.dedup();
    points
}

/// A random decomposition of the block `start + count` into at most `ranks` boxes (one
/// per rank, some empty), leaving some blocks unwritten (holes).
fn decompose(random: &mut Random, start: &[u64], count: &[u64], ranks: usize) -> Vec<plan::Region> {
    // The blocks of a grid cut at random points along each dimension.
    let mut blocks = vec![plan::Region {
        start: Vec::new(),
        count: Vec::new(),
    }];
    for d in 0..count.len() {
        let points = cuts(random, count[d]);
        blocks = blocks
            .iter()
            .flat_map(|block| {
                points.windows(2).map(move |w| {
                    let mut next = block.clone();
                    next.start.push(start[d] + w[0]);
                    next.count.push(w[1] - w[0]);
                    next
                })
            })
            .collect();
    }
    // Each rank takes at most one block; blocks nobody takes are holes.
    let mut boxes: Vec<plan::Region> = (0..ranks)
        .map(|_| plan::Region {
            start: start.to_vec(),
            count: vec![0; start.len()],
        })
        .collect();
    for block in blocks {
        let r = random.below(ranks as u64 + 1) as usize;
        if r < ranks && boxes[r].is_empty() {
            boxes[r] = block;
        }
    }
    boxes
}

/// The elements of `region` (dense C order) of step `step`, as bytes of `size` each.
fn values(region: &plan::Region, size: usize, step: u64) -> Vec<u8> {
    let n = region.elements() as usize;
    (0..n)
        .flat_map(|i| {
            let v = (i as u64)
                .wrapping_mul(2654435761)
                .wrapping_add(step * 7919)
                >> 3;
            v.to_le_bytes()[..size].to_vec()
        })
        .collect()
}

/// Every key and value of a store.
fn contents(store: &MemoryStore) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(prefix) = pending.pop() {
        let DirListing { keys, prefixes } = store.list_dir(&prefix).unwrap();
        for key in keys {
            let full = format!("{prefix}{key}");
            out.push((full.clone(), store.get(&full).unwrap().unwrap()));
        }
        pending.extend(prefixes.into_iter().map(|p| format!("{prefix}{p}/")));
    }
    out.sort();
    out
}

/// Random arrays, decompositions and steps: the stores a collective and a serial write
/// leave are the same, key for key and byte for byte.
#[test]
fn collective_writes_equal_serial_writes() {
    for case in 0..48u64 {
        let mut random = Random(0x9E37_79B9_7F4A_7C15 ^ (case + 1).wrapping_mul(0x1234_5678_9ABC));
        let ndim = 1 + random.below(3) as usize;
        let kind = case % 4;
        let shape: Vec<u64> = (0..ndim).map(|_| 1 + random.below(24)).collect();
        let inner: Vec<u64> = (0..ndim).map(|_| 1 + random.below(4)).collect();
        let chunk: Vec<u64> = if kind == 1 {
            inner.iter().map(|&i| i * (1 + random.below(3))).collect()
        } else {
            (0..ndim).map(|_| 1 + random.below(9)).collect()
        };
        let ranks = 1 + random.below(8) as usize;
        let steps = 1 + random.below(3);
        let document = metadata(kind, &shape, &chunk, &inner);
        // A small budget, so that pieces travel in several atoms and rounds.
        let budget = Budget {
            bytes: 1 + random.below(300),
        };
        let mut decompositions = Vec::new();
        for _ in 0..steps {
            // The written block: the whole array, or a random part of it.
            let start: Vec<u64> = shape.iter().map(|&n| random.below(n / 2 + 1)).collect();
            let count: Vec<u64> = shape
                .iter()
                .zip(&start)
                .map(|(&n, &s)| 1 + random.below(n - s))
                .collect();
            decompositions.push(decompose(&mut random, &start, &count, ranks));
        }
        let element = Array::create(Arc::new(MemoryStore::new()), "/x", &document)
            .unwrap()
            .data_type()
            .size();

        // Serially: each rank's box after the other.
        let serial = Arc::new(MemoryStore::new());
        let array = Array::create(serial.clone(), "/a", &document).unwrap();
        for (step, boxes) in decompositions.iter().enumerate() {
            for region in boxes {
                let data = values(region, element, step as u64);
                array
                    .write_region(&region.start, &region.count, &data)
                    .unwrap();
            }
        }

        // Collectively.
        let shared = Arc::new(MemoryStore::new());
        let reports = ThreadComm::run(ranks, |comm| {
            let ctx = Collective::new(comm, &code_of).with_budget(budget);
            let storage: Arc<dyn Storage> = shared.clone();
            let array = create_array(&ctx, storage, "/a", &document).unwrap();
            let mut rounds = 0;
            for (step, boxes) in decompositions.iter().enumerate() {
                let mine = &boxes[comm.rank()];
                let data = values(mine, element, step as u64);
                let report = write(&ctx, &array, &mine.start, &mine.count, &data)
                    .unwrap_or_else(|e| panic!("case {case}: {e}"));
                rounds += report.rounds;
            }
            rounds
        });
        assert_eq!(
            contents(&shared),
            contents(&serial),
            "case {case}: kind {kind}, shape {shape:?}, chunks {chunk:?}, {ranks} ranks, \
             {steps} steps, {decompositions:?}"
        );
        assert!(reports.iter().all(|&r| r == reports[0]), "{reports:?}");
    }
}

/// The boxes of `ranks` ranks splitting rows `0..rows` of a `[rows, cols]` array.
fn row_slabs(rows: u64, cols: u64, ranks: usize, rank: usize) -> (Vec<u64>, Vec<u64>) {
    let per = rows / ranks as u64;
    let start = per * rank as u64;
    let end = if rank + 1 == ranks { rows } else { start + per };
    (vec![start, 0], vec![end - start, cols])
}

const PLAIN: &str = r#"{"zarr_format": 3, "node_type": "array", "shape": [12, 4],
    "data_type": "int32", "fill_value": 0,
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 4]}},
    "chunk_key_encoding": {"name": "default"},
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}"#;

/// Run `work` on 3 ranks over one shared memory store holding the array /a of `PLAIN`,
/// and return each rank's outcome.
fn three_ranks<T: Send>(
    work: impl Fn(&Collective, &Array, usize) -> Result<T, Error> + Sync,
) -> (Arc<MemoryStore>, Vec<Result<T, Error>>) {
    let shared = Arc::new(MemoryStore::new());
    let results = ThreadComm::run(3, |comm| {
        let ctx = Collective::new(comm, &code_of);
        let array = create_array(&ctx, shared.clone(), "/a", PLAIN).unwrap();
        work(&ctx, &array, comm.rank())
    });
    (shared, results)
}

/// Every rank failed with the status `code`, the failing rank with its own error.
fn all_failed_with<T: std::fmt::Debug>(results: &[Result<T, Error>], code: i32, rank: usize) {
    for (r, result) in results.iter().enumerate() {
        let error = result.as_ref().expect_err("every rank fails");
        assert_eq!(code_of(error), code, "rank {r}: {error}");
        if r != rank {
            assert!(
                matches!(error, Error::OnRank { rank: from, .. } if *from == rank),
                "rank {r}: {error:?}"
            );
        }
    }
}

#[test]
fn overlapping_boxes_fail_every_rank_and_write_nothing() {
    let (store, results) = three_ranks(|ctx, array, rank| {
        let (start, count) = match rank {
            0 => (vec![0, 0], vec![5, 4]),
            1 => (vec![4, 0], vec![5, 4]), // overlaps rank 0's row 4
            _ => (vec![9, 0], vec![3, 4]),
        };
        let data = vec![1u8; (count[0] * count[1] * 4) as usize];
        write(ctx, array, &start, &count, &data)
    });
    for result in &results {
        let error = result.as_ref().unwrap_err();
        assert_eq!(code_of(error), -2, "{error}");
        assert!(
            error.to_string().contains("ranks 0 and 1 overlap"),
            "{error}"
        );
    }
    assert!(
        store.list_dir("a/").unwrap().prefixes.is_empty(),
        "no chunk written"
    );
}

#[test]
fn a_bad_box_on_one_rank_fails_every_rank_before_any_write() {
    // Rank 1 reaches past the array; rank 2 gives a buffer of the wrong size.
    let (store, results) = three_ranks(|ctx, array, rank| {
        let (start, mut count) = row_slabs(12, 4, 3, rank);
        if rank == 1 {
            count[0] = 99;
        }
        let mut data = vec![2u8; (count[0].min(12) * 4 * 4) as usize];
        if rank == 2 {
            data.pop();
        }
        write(ctx, array, &start, &count, &data)
    });
    // The lowest failing rank's error is every rank's.
    all_failed_with(&results, -5, 1);
    assert!(store.list_dir("a/").unwrap().prefixes.is_empty());
    let (_, results) = three_ranks(|ctx, array, rank| {
        let (start, count) = row_slabs(12, 4, 3, rank);
        let data = vec![2u8; (count[0] * 4 * 4) as usize + usize::from(rank == 2)];
        write(ctx, array, &start, &count, &data)
    });
    all_failed_with(&results, -4, 2);
}

/// A store that fails every `set` on one rank: a store error in the middle of a write.
#[derive(Debug)]
struct FailingSets(Arc<MemoryStore>);

impl ReadableStorage for FailingSets {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        self.0.get(key)
    }
}
impl WritableStorage for FailingSets {
    fn set(&self, key: &str, _value: &[u8]) -> Result<(), StorageError> {
        Err(StorageError::Io {
            key: key.into(),
            source: std::io::Error::other("disk full (injected)"),
        })
    }
    fn erase(&self, key: &str) -> Result<(), StorageError> {
        self.0.erase(key)
    }
}
impl ListableStorage for FailingSets {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        self.0.list_dir(prefix)
    }
}

#[test]
fn a_store_failure_on_one_rank_fails_every_rank_without_a_hang() {
    let shared = Arc::new(MemoryStore::new());
    Array::create(shared.clone(), "/a", PLAIN).unwrap();
    let results = ThreadComm::run(3, |comm| {
        let ctx = Collective::new(comm, &code_of).with_budget(Budget { bytes: 16 });
        let storage: Arc<dyn Storage> = if comm.rank() == 2 {
            Arc::new(FailingSets(shared.clone()))
        } else {
            shared.clone()
        };
        let array = Array::open(storage, "/a").unwrap();
        let (start, count) = row_slabs(12, 4, 3, comm.rank());
        let data = vec![3u8; (count[0] * 4 * 4) as usize];
        let first = write(&ctx, &array, &start, &count, &data).map(|_| ());
        // The communicator still works for the next call.
        let again = write(&ctx, &array, &start, &count, &data).map(|_| ());
        (first, again)
    });
    let (first, again): (Vec<_>, Vec<_>) = results.into_iter().unzip();
    all_failed_with(&first, -12, 2);
    all_failed_with(&again, -12, 2);
    assert!(first[2]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("disk full"));
    assert!(first[0]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("rank 2: "));
}

#[test]
fn ranks_writing_different_arrays_are_refused() {
    let shared = Arc::new(MemoryStore::new());
    Array::create(shared.clone(), "/a", PLAIN).unwrap();
    Array::create(shared.clone(), "/b", PLAIN).unwrap();
    let results = ThreadComm::run(2, |comm| {
        let ctx = Collective::new(comm, &code_of);
        let path = if comm.rank() == 0 { "/a" } else { "/b" };
        let array = Array::open(shared.clone(), path).unwrap();
        write(&ctx, &array, &[comm.rank() as u64, 0], &[1, 4], &[0u8; 16])
    });
    for result in &results {
        assert_eq!(code_of(result.as_ref().unwrap_err()), -2);
    }
}

#[test]
fn reads_resizes_appends_attributes_groups_and_consolidation() {
    let shared = Arc::new(MemoryStore::new());
    let results = ThreadComm::run(4, |comm| {
        let ctx = Collective::new(comm, &code_of);
        let rank = comm.rank();
        let root = create_group(&ctx, shared.clone(), "/", Map::new(), ZarrFormat::V3).unwrap();
        let array = create_array(&ctx, shared.clone(), "/series", PLAIN).unwrap();
        // Creating it again fails everywhere with the same status.
        let again = create_array(&ctx, shared.clone(), "/series", PLAIN);
        assert_eq!(code_of(&again.unwrap_err()), -7);
        // Different arguments on one rank are refused before anything happens.
        let other = create_array(
            &ctx,
            shared.clone(),
            if rank == 3 { "/y" } else { "/x" },
            PLAIN,
        );
        assert_eq!(code_of(&other.unwrap_err()), -2);
        assert!(Array::open(shared.clone(), "/x").is_err());
        // Steps: each rank appends its column of three rows, twice.
        for step in 0..2u64 {
            let data: Vec<u8> = (0..3i32)
                .flat_map(|r| (100 * step as i32 + 10 * r + rank as i32).to_le_bytes())
                .collect();
            append(&ctx, &array, 0, 3, &[0, rank as u64], &[3, 1], &data).unwrap();
        }
        assert_eq!(array.shape(), [18, 4]);
        // Each rank reads rows 12..18 whole (boxes of reads may overlap).
        let mut out = vec![0u8; 6 * 4 * 4];
        read(&ctx, &array, &[12, 0], &[6, 4], &mut out).unwrap();
        // A read past the edge on one rank fails on all.
        let mut small = [0u8; 16];
        let bad = read(
            &ctx,
            &array,
            &[17 + (rank == 1) as u64, 0],
            &[1, 4],
            &mut small,
        );
        assert_eq!(code_of(&bad.unwrap_err()), -5);
        resize(&ctx, &array, &[20, 4]).unwrap();
        assert_eq!(array.shape(), [20, 4]);
        let mut attributes = Map::new();
        attributes.insert("steps".into(), Value::from(2));
        set_array_attributes(&ctx, &array, attributes.clone()).unwrap();
        assert_eq!(array.attributes(), attributes);
        set_group_attributes(&ctx, &root, attributes.clone()).unwrap();
        assert_eq!(root.attributes(), attributes);
        consolidate(&ctx, &root).unwrap();
        out
    });
    let expected: Vec<u8> = (0..2i32)
        .flat_map(|step| {
            (0..3i32).flat_map(move |r| {
                (0..4i32).flat_map(move |c| (100 * step + 10 * r + c).to_le_bytes())
            })
        })
        .collect();
    assert!(results.iter().all(|out| *out == expected));
    let group = Group::open(shared.clone(), "/").unwrap();
    assert_eq!(group.attributes()["steps"], 2);
    let consolidated = crate::consolidated::ConsolidatedStore::open(shared.clone()).unwrap();
    assert!(Array::open(Arc::new(consolidated), "/series").is_ok());
}

#[test]
fn a_zero_dimensional_array_is_written_by_the_rank_with_a_buffer() {
    let shared = Arc::new(MemoryStore::new());
    let scalar = r#"{"zarr_format": 3, "node_type": "array", "shape": [], "data_type": "int32",
        "fill_value": 0, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": []}},
        "chunk_key_encoding": {"name": "default"},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}"#;
    let results = ThreadComm::run(3, |comm| {
        let ctx = Collective::new(comm, &code_of);
        let array = create_array(&ctx, shared.clone(), "/s", scalar).unwrap();
        // Only rank 1 writes the element; the others pass an empty buffer.
        let value = 42i32.to_le_bytes();
        let data: &[u8] = if comm.rank() == 1 { &value } else { &[] };
        write(&ctx, &array, &[], &[], data).unwrap();
        let mut out = [0u8; 4];
        read(&ctx, &array, &[], &[], &mut out).unwrap();
        // Every rank writing it: two writers of one element.
        let twice = write(&ctx, &array, &[], &[], &value);
        (i32::from_le_bytes(out), twice.map(|_| ()))
    });
    for (value, twice) in results {
        assert_eq!(value, 42);
        assert!(twice.unwrap_err().to_string().contains("overlap"));
    }
}

/// A host byte with bits above an int4 code on one rank (0x1f) fails every rank before any
/// chunk is written, naming the element by its array coordinates.
#[test]
fn a_sub_byte_code_out_of_width_on_one_rank_fails_every_rank() {
    let shared = Arc::new(MemoryStore::new());
    let int4 = PLAIN
        .replace("\"int32\"", "\"int4\"")
        .replace(r#"{"endian": "little"}"#, "{}");
    let results = ThreadComm::run(3, |comm| {
        let ctx = Collective::new(comm, &code_of);
        let array = create_array(&ctx, shared.clone(), "/a", &int4).unwrap();
        let (start, count) = row_slabs(12, 4, 3, comm.rank());
        let mut data = vec![0x0fu8; (count[0] * count[1]) as usize];
        if comm.rank() == 2 {
            data[5] = 0x1f; // row 8 + 1, column 1
        }
        write(&ctx, &array, &start, &count, &data)
    });
    all_failed_with(&results, -2, 2);
    let message = results[2].as_ref().unwrap_err().to_string();
    assert!(
        message.contains("[9, 1]") && message.contains("int4"),
        "{message}"
    );
    assert!(shared.list_dir("a/").unwrap().prefixes.is_empty());
}
