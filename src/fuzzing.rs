//! Entry points for the fuzz targets in `fuzz/` (cargo feature `fuzzing`: off by default,
//! never part of the C library build). Each function takes arbitrary bytes and must return
//! normally whatever they hold: a panic, abort, hang or unbounded allocation is a bug.
//!
//! These functions are deliberately thin wrappers over the library's own entry points, so
//! that they can follow the internals when those move. See `docs/reliability.md`.
//!
//! Several targets read a tiny key/value container (see [`entries`]): a sequence of
//! records `[key length: u8][key][value length: u32 LE][value]`; a record cut short by the
//! end of the input keeps what is there.

use crate::array::Array;
use crate::codec::chain::CodecChain;
use crate::codec::{ChunkRepresentation, Parallelism};
use crate::consolidated::ConsolidatedStore;
use crate::ffi::handle::zarr_store;
use crate::group::Group;
use crate::layout::Layout;
use crate::metadata::json::parse_lenient;
use crate::metadata::v2::ArrayMetadataV2;
use crate::metadata::v3::ArrayMetadata;
use crate::storage::source::InMemory;
use crate::storage::{ByteRange, WritableStorage};
use crate::storage::{ListableStorage, MemoryStore, ReadableStorage, Storage, ZipStore};
use crate::sys::shared_out::OutBuffer;
use serde_json::Value;
use std::sync::Arc;

/// Decoded chunks larger than this are skipped: the harness picks bounded work, and the
/// library's handling of huge declared sizes is tested elsewhere (it fails cleanly, but a
/// fuzzer's allocation limit would report the attempt).
pub const MAX_CHUNK_BYTES: usize = 16 << 20;

/// The records of a key/value container (see the module documentation). Keys that are
/// not UTF-8 are skipped, so that a store can hold only valid keys.
pub fn entries(mut data: &[u8]) -> Vec<(String, &[u8])> {
    let mut out = Vec::new();
    while let Some((&key_len, rest)) = data.split_first() {
        let (key, rest) = rest.split_at(usize::from(key_len).min(rest.len()));
        let (len, rest) = rest.split_at(4.min(rest.len()));
        let mut len_bytes = [0u8; 4];
        len_bytes[..len.len()].copy_from_slice(len);
        let len = u32::from_le_bytes(len_bytes) as usize;
        let (value, rest) = rest.split_at(len.min(rest.len()));
        if let Ok(key) = std::str::from_utf8(key) {
            out.push((key.to_string(), value));
        }
        data = rest;
    }
    out
}

/// A memory store holding the container's records (invalid keys are left out).
pub fn memory_store(data: &[u8]) -> Arc<MemoryStore> {
    let store = MemoryStore::new();
    for (key, value) in entries(data) {
        let _ = store.set(&key, value);
    }
    Arc::new(store)
}

/// [`memory_store`] as a C handle, for the C API target; free it with `zarr_store_free`.
pub fn memory_store_handle(data: &[u8]) -> *mut zarr_store {
    Box::into_raw(Box::new(zarr_store {
        storage: memory_store(data),
    }))
}

/// Metadata documents (`zarr.json`, `.zarray`/`.zgroup`/`.zattrs`, the 2022 draft's
/// documents, consolidated metadata in both forms), given as a key/value container: open
/// every node below the root as array and as group, directly and through the
/// consolidated view.
pub fn metadata(data: &[u8]) {
    let store: Arc<dyn Storage> = memory_store(data);
    visit_hierarchy(&store);
    if let Ok(view) = ConsolidatedStore::open(store) {
        visit_hierarchy(&(Arc::new(view) as Arc<dyn Storage>));
    }
}

fn visit_hierarchy(store: &Arc<dyn Storage>) {
    let mut paths = vec!["/".to_string()];
    if let Ok(root) = Group::open(store.clone(), "/") {
        let _ = root.attributes();
        let _ = root.children();
        if let Ok(descendants) = root.descendants() {
            paths.extend(descendants.into_iter().map(|child| child.path));
        }
    }
    for path in paths {
        if let Ok(array) = Array::open(store.clone(), &path) {
            let _ = array.metadata_json();
            let _ = array.attributes();
            let shape = array.shape();
            let _ = array.selection_nbytes(&vec![0; shape.len()], &shape);
        }
        if let Ok(group) = Group::open(store.clone(), &path) {
            let _ = group.attributes();
        }
    }
}

/// A codec chain decoding arbitrary bytes: the input is an array metadata document (v3
/// `zarr.json` or v2 `.zarray`) on one line, whose codecs, data type and chunk shape make
/// the chain, then a newline and the bytes to decode as one stored chunk.
pub fn codec_chain(data: &[u8]) {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (document, encoded) = (&data[..split], data.get(split + 1..).unwrap_or_default());
    let Ok(Value::Object(document)) = parse_lenient(document) else {
        return;
    };
    let metadata = match document.get("zarr_format").and_then(Value::as_u64) {
        Some(2) => {
            ArrayMetadataV2::parse(&document).and_then(|v2| v2.to_v3_model(Default::default()))
        }
        _ => ArrayMetadata::parse(&document),
    };
    let Ok(metadata) = metadata else { return };
    let representation = ChunkRepresentation {
        shape: metadata.chunk_grid.largest_chunk_shape(&metadata.shape),
        data_type: metadata.data_type.clone(),
        fill_value: metadata.fill_value.clone(),
    };
    let Some(size) = representation
        .size_bytes()
        .filter(|&n| n <= MAX_CHUNK_BYTES)
    else {
        return;
    };
    let Ok(chain) = CodecChain::from_metadata(&metadata.codecs, &representation) else {
        return;
    };
    if let Ok(decoded) = chain.decode(encoded.to_vec()) {
        assert_eq!(decoded.len(), size, "a decoded chunk has the chunk's size");
    }
    let mut out = vec![0u8; size];
    let _ = chain.decode_into(encoded, &mut out);
    // The last half (rounded up) of the chunk along every dimension, decoded as a region:
    // `bytes` reads byte runs, a shard its index and the inner chunks the region needs.
    let shape = &representation.shape;
    let half: Vec<u64> = shape.iter().map(|&n| n.div_ceil(2)).collect();
    let offset: Vec<u64> = shape.iter().zip(&half).map(|(n, h)| n - h).collect();
    let Ok(layout) = Layout::c_order(&half, representation.data_type.size()) else {
        return;
    };
    let mut buf = vec![0u8; layout.span().unwrap_or(0)];
    let Ok(mut region) = OutBuffer::new(&mut buf, layout) else {
        return;
    };
    let source = InMemory {
        name: "chunk",
        bytes: encoded,
    };
    let _ = chain.decode_region(&source, &offset, &mut region.whole(), Parallelism::SERIAL);
}

/// A zip archive: open a `ZipStore` over the bytes, list every level and read every value
/// whole and in ranges.
pub fn zip(data: &[u8]) {
    let path = std::env::temp_dir().join(format!("libzarr-fuzz-{}.zip", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let store = ZipStore::open(&path);
    let _ = std::fs::remove_file(&path); // the store keeps the file open
    let Ok(store) = store else { return };
    let mut prefixes = vec![String::new()];
    while let Some(prefix) = prefixes.pop() {
        let Ok(listing) = store.list_dir(&prefix) else {
            continue;
        };
        for key in listing.keys {
            let key = format!("{prefix}{key}");
            let _ = store.get(&key);
            let _ = store.get_range(&key, ByteRange::Suffix { length: 4 });
            let range = ByteRange::FromStart {
                offset: 1,
                length: 2,
            };
            let _ = store.read_ranges(&key, &[range, range]);
        }
        prefixes.extend(
            listing
                .prefixes
                .into_iter()
                .map(|p| format!("{prefix}{p}/")),
        );
    }
    visit_hierarchy(&(Arc::new(store) as Arc<dyn Storage>));
}

/// Remote targets are not opened while fuzzing: a reference to one reads as this error.
fn no_remote_targets() -> Box<crate::storage::reference::targets::OpenTargetStore> {
    Box::new(|name: &str| {
        Err(crate::storage::StorageError::Unsupported {
            key: name.to_string(),
            reason: "no remote stores while fuzzing".into(),
        })
    })
}

/// Read every key a reference store lists, whole and in ranges, then open its hierarchy.
/// Local targets are read as the references say, except paths outside the temporary
/// directory (a fuzzer could name any file of the machine: `/dev/zero` is refused as a
/// special file, but a large regular file would only make the run slow).
fn visit_reference_store(store: crate::storage::reference::ReferenceStore) {
    let mut prefixes = vec![String::new()];
    let mut keys = Vec::new();
    while let Some(prefix) = prefixes.pop() {
        let Ok(listing) = store.list_dir(&prefix) else {
            continue;
        };
        keys.extend(listing.keys.iter().map(|k| format!("{prefix}{k}")));
        prefixes.extend(
            listing
                .prefixes
                .into_iter()
                .map(|p| format!("{prefix}{p}/")),
        );
    }
    let temp = std::env::temp_dir();
    for key in keys.iter().take(256) {
        let location = store.key_location(key);
        if location.starts_with('/') && !location.starts_with(temp.to_str().unwrap_or("/tmp")) {
            continue;
        }
        let _ = store.value_size(key);
        let _ = store.get(key);
        let _ = store.get_range(key, ByteRange::Suffix { length: 3 });
        let range = ByteRange::FromStart {
            offset: 1,
            length: 2,
        };
        let _ = store.read_ranges(key, &[range, range]);
    }
    visit_hierarchy(&(Arc::new(store) as Arc<dyn Storage>));
}

/// A Kerchunk JSON reference set (version 0 or 1, templates and `gen` included): parse
/// it, then read what it lists.
pub fn reference_json(data: &[u8]) {
    // Up to 4 million generated keys take seconds and a gigabyte: a fuzzer would report
    // that as a hang, so the fuzzed sets may generate a few thousand.
    if let Ok(store) = crate::storage::reference::ReferenceStore::from_json_limited(
        "fuzz.json",
        data,
        no_remote_targets(),
        1,
        4096,
    ) {
        visit_reference_store(store);
    }
}

/// A Kerchunk Parquet reference directory: the input is a container (see [`entries`]) of
/// its files, `.zmetadata` and `<variable>/refs.<i>.parq`; open it, then read every chunk
/// of every array `.zmetadata` declares (at most 64 per array).
pub fn reference_parquet(data: &[u8]) {
    let source = memory_store(data);
    let Ok(store) = crate::storage::reference::ReferenceStore::from_parquet(
        "fuzz.parq",
        source.clone(),
        no_remote_targets(),
        false,
        1,
    ) else {
        return;
    };
    let mut chunk_keys = Vec::new();
    if let Ok(Some(zmetadata)) = store.get(".zmetadata") {
        if let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(&zmetadata) {
            if let Some(Value::Object(documents)) = top.get("metadata") {
                for (key, document) in documents {
                    let Some(field) = key.strip_suffix("/.zarray") else {
                        continue;
                    };
                    let dims = document
                        .get("shape")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    for n in 0..64u32 {
                        let index = if dims == 0 {
                            n.to_string()
                        } else {
                            let mut parts = vec!["0".to_string(); dims];
                            parts[dims - 1] = n.to_string();
                            parts.join(".")
                        };
                        chunk_keys.push(format!("{field}/{index}"));
                    }
                }
            }
        }
    }
    for key in chunk_keys {
        let _ = store.get(&key);
    }
    visit_reference_store(store);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_records() {
        let mut data = vec![3];
        data.extend_from_slice(b"a/b");
        data.extend_from_slice(&2u32.to_le_bytes());
        data.extend_from_slice(b"xy");
        data.extend_from_slice(&[1, b'c', 9, 0]); // cut short
        assert_eq!(
            entries(&data),
            vec![("a/b".to_string(), &b"xy"[..]), ("c".to_string(), &b""[..])]
        );
    }

    /// The reference targets run on their committed seeds, and on the seeds cut short at
    /// a few lengths, without a panic.
    #[test]
    fn reference_targets_run_on_their_seeds() {
        let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
        for (target, run) in [
            ("reference_json", reference_json as fn(&[u8])),
            ("reference_parquet", reference_parquet),
        ] {
            let mut count = 0;
            for entry in std::fs::read_dir(seeds.join(target)).unwrap() {
                let data = std::fs::read(entry.unwrap().path()).unwrap();
                for cut in [data.len(), data.len() / 2, data.len() * 9 / 10, 17] {
                    run(&data[..cut.min(data.len())]);
                }
                count += 1;
            }
            assert!(count >= 2, "{target}: {count} seeds");
        }
    }
}
