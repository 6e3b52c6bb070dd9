//! Consolidated metadata: a view of a store that serves every node's metadata from one
//! document read when the view is opened.
//!
//! Opening a node of a large hierarchy normally costs a few store reads (its `zarr.json`,
//! or `.zarray` and `.zattrs`); on object stores each is a round trip. Consolidated
//! metadata collects all of them in one place: an inline `consolidated_metadata` object in
//! the root `zarr.json` (Zarr v3, zarr-python's form) or a `.zmetadata` document (Zarr v2).
//! [`ConsolidatedStore`] reads it once and then answers every metadata key from memory.
//! The snapshot is authoritative: a metadata key it does not hold reads as absent.
//! Chunk keys, listings and all writes go to the underlying store; metadata written
//! through the view also updates the view's snapshot (not the stored consolidated
//! document: call `Group::consolidate` again for that). A store that cannot list (plain
//! HTTP) is listed from the snapshot's metadata keys instead, so that the hierarchy can be
//! walked through the view; such a listing holds no chunk keys.

use crate::error::Error;
use crate::metadata::v2::{ZARRAY, ZATTRS, ZGROUP, ZMETADATA};
use crate::metadata::MetadataError;
use crate::node::{read_json_object, write_json, NodePath, METADATA_KEY};
use crate::storage::{
    ranges_of, Bounded, ByteRange, DirListing, ListableStorage, Merge, ReadableStorage, Storage,
    StorageError, UpdateError, UpdateProtection, WritableStorage,
};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// A store view serving node metadata from consolidated metadata.
#[derive(Debug)]
pub struct ConsolidatedStore {
    inner: Arc<dyn Storage>,
    /// Metadata documents by store key (`a/zarr.json`, `a/.zarray`, ...).
    documents: RwLock<HashMap<String, Vec<u8>>>,
}

/// Whether `key` names a node metadata document (served from the snapshot).
fn is_metadata_key(key: &str) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key);
    matches!(name, METADATA_KEY | ZARRAY | ZGROUP | ZATTRS)
}

fn serialise(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("a serde_json Value always serialises")
}

impl ConsolidatedStore {
    /// Read the consolidated metadata at the root of `inner`: the root `zarr.json`'s
    /// `consolidated_metadata` (v3), else `.zmetadata` (v2). Fails with
    /// [`Error::NotFound`] when there is neither, and with a metadata error when the
    /// document is malformed.
    pub fn open(inner: Arc<dyn Storage>) -> Result<ConsolidatedStore, Error> {
        let mut documents = HashMap::new();
        let root = read_json_object(inner.as_ref(), METADATA_KEY)?;
        let v3 = root
            .as_ref()
            .and_then(|r| r.get("consolidated_metadata"))
            .filter(|c| !c.is_null());
        if let (Some(root), Some(consolidated)) = (&root, v3) {
            let invalid = |m: &str| {
                Error::metadata(
                    METADATA_KEY,
                    MetadataError::Invalid(format!("consolidated_metadata: {m}")),
                )
            };
            let consolidated = consolidated
                .as_object()
                .ok_or_else(|| invalid("not an object"))?;
            match consolidated.get("kind").and_then(Value::as_str) {
                Some("inline") => {}
                other => {
                    return Err(Error::metadata(
                        METADATA_KEY,
                        MetadataError::Unsupported(format!(
                            "consolidated_metadata kind {other:?} (only \"inline\")"
                        )),
                    ))
                }
            }
            let nodes = consolidated
                .get("metadata")
                .and_then(Value::as_object)
                .ok_or_else(|| invalid("\"metadata\" must be an object"))?;
            for (path, document) in nodes {
                if !document.is_object() {
                    return Err(invalid(&format!("the entry for '{path}' is not an object")));
                }
                let path = path.trim_matches('/');
                crate::storage::validate_key(path)?;
                documents.insert(format!("{path}/{METADATA_KEY}"), serialise(document));
            }
            documents.insert(
                METADATA_KEY.to_string(),
                serialise(&Value::Object(root.clone())),
            );
        } else if let Some(zmetadata) = read_json_object(inner.as_ref(), ZMETADATA)? {
            let invalid = |m: String| Error::metadata(ZMETADATA, MetadataError::Invalid(m));
            match zmetadata
                .get("zarr_consolidated_format")
                .and_then(Value::as_u64)
            {
                Some(1) => {}
                other => {
                    return Err(invalid(format!(
                        "zarr_consolidated_format {other:?} (expected 1)"
                    )))
                }
            }
            let entries: &Map<String, Value> = zmetadata
                .get("metadata")
                .and_then(Value::as_object)
                .ok_or_else(|| invalid("\"metadata\" must be an object".into()))?;
            for (key, document) in entries {
                crate::storage::validate_key(key)?;
                if !is_metadata_key(key) {
                    return Err(invalid(format!("'{key}' is not a metadata key")));
                }
                documents.insert(key.clone(), serialise(document));
            }
            if let Some(root) = root {
                documents.insert(METADATA_KEY.to_string(), serialise(&Value::Object(root)));
            }
        } else {
            let mut message = format!(
                "no consolidated metadata in {}: neither a root zarr.json with \
                 consolidated_metadata nor .zmetadata",
                inner.location()
            );
            if let Some(reason) = inner.absence_reason(METADATA_KEY) {
                message.push_str(" (");
                message.push_str(&reason);
                message.push(')');
            }
            return Err(Error::NotFound(message));
        }
        Ok(ConsolidatedStore {
            inner,
            documents: RwLock::new(documents),
        })
    }

    fn snapshot(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Vec<u8>>> {
        self.documents.read().unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether the consolidated entry `entry` (a path relative to the consolidating group, for
/// v3 a node path such as `a/b`, for v2 a key such as `a/b/.zarray`) names the node at
/// `relative` or something below it.
fn is_at_or_below(entry: &str, relative: &str) -> bool {
    let entry = entry.trim_matches('/');
    entry == relative
        || entry
            .strip_prefix(relative)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Remove the node at `path` and everything below it from every consolidated metadata
/// document that lists it: the inline `consolidated_metadata` of each ancestor v3 group's
/// `zarr.json`, and each ancestor v2 group's `.zmetadata`. A document is rewritten (each
/// atomically) only when it listed the node. Called before a node is deleted, so that
/// readers of consolidated metadata never open a node whose data is being erased.
pub fn forget_node(storage: &dyn Storage, path: &NodePath) -> Result<(), Error> {
    let mut ancestor = path.parent();
    while let Some(group) = ancestor {
        let relative = path.as_str()[group.as_str().len()..].trim_start_matches('/');
        let key = group.key(METADATA_KEY);
        if let Some(mut document) = read_json_object(storage, &key)? {
            let nodes = document
                .get_mut("consolidated_metadata")
                .and_then(Value::as_object_mut)
                .and_then(|c| c.get_mut("metadata"))
                .and_then(Value::as_object_mut);
            if let Some(nodes) = nodes {
                let before = nodes.len();
                nodes.retain(|entry, _| !is_at_or_below(entry, relative));
                if nodes.len() != before {
                    write_json(storage, &key, &Value::Object(document))?;
                }
            }
        }
        let key = group.key(ZMETADATA);
        if let Some(mut document) = read_json_object(storage, &key)? {
            if let Some(entries) = document.get_mut("metadata").and_then(Value::as_object_mut) {
                let before = entries.len();
                entries.retain(|entry, _| !is_at_or_below(entry, relative));
                if entries.len() != before {
                    write_json(storage, &key, &Value::Object(document))?;
                }
            }
        }
        ancestor = group.parent();
    }
    Ok(())
}

impl ReadableStorage for ConsolidatedStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        if is_metadata_key(key) {
            crate::storage::validate_key(key)?;
            Ok(self.snapshot().get(key).cloned())
        } else {
            self.inner.get(key)
        }
    }

    fn get_at_most(&self, key: &str, limit: u64) -> Result<Option<Bounded>, StorageError> {
        if is_metadata_key(key) {
            Ok(self.get(key)?.map(|value| Bounded::new(value, limit)))
        } else {
            self.inner.get_at_most(key, limit)
        }
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        if is_metadata_key(key) {
            // Rare (metadata is read whole): slice the snapshot.
            match self.get(key)? {
                Some(value) => ranges_of(key, &value, &[range]).map(|(_, bytes)| Some(bytes)),
                None => Ok(None),
            }
        } else {
            self.inner.get_range(key, range)
        }
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        if is_metadata_key(key) {
            match self.get(key)? {
                Some(value) => {
                    ranges_of(key, &value, ranges).map(|(size, bytes)| Some((Some(size), bytes)))
                }
                None => Ok(None),
            }
        } else {
            self.inner.read_ranges(key, ranges)
        }
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        if is_metadata_key(key) {
            crate::storage::validate_key(key)?;
            Ok(self.snapshot().get(key).map(|v| v.len() as u64))
        } else {
            self.inner.value_size(key)
        }
    }

    fn max_concurrency(&self) -> Option<usize> {
        self.inner.max_concurrency()
    }

    fn location(&self) -> String {
        format!(
            "{} (through its consolidated metadata)",
            self.inner.location()
        )
    }

    fn key_location(&self, key: &str) -> String {
        self.inner.key_location(key)
    }

    /// Metadata comes from the consolidated snapshot, so the inner store's reasons (a
    /// missing directory) do not apply to it.
    fn absence_reason(&self, key: &str) -> Option<String> {
        if is_metadata_key(key) {
            Some("the consolidated metadata lists no such document".to_string())
        } else {
            self.inner.absence_reason(key)
        }
    }
}

impl WritableStorage for ConsolidatedStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        self.inner.set(key, value)?;
        if is_metadata_key(key) {
            let mut documents = self.documents.write().unwrap_or_else(|e| e.into_inner());
            documents.insert(key.to_string(), value.to_vec());
        }
        Ok(())
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        self.inner.erase(key)?;
        if is_metadata_key(key) {
            let mut documents = self.documents.write().unwrap_or_else(|e| e.into_inner());
            documents.remove(key);
        }
        Ok(())
    }

    /// Erases the prefix in the store, and the snapshot's documents under it.
    fn erase_prefix(&self, prefix: &str) -> Result<(), StorageError> {
        self.inner.erase_prefix(prefix)?;
        let mut documents = self.documents.write().unwrap_or_else(|e| e.into_inner());
        documents.retain(|key, _| !key.starts_with(prefix));
        Ok(())
    }

    fn erase_prefix_is_atomic(&self) -> bool {
        self.inner.erase_prefix_is_atomic()
    }

    fn lock_scope(&self) -> Option<String> {
        self.inner.lock_scope()
    }

    /// The underlying store's update; a metadata document's result also replaces the
    /// snapshot's.
    fn update(&self, key: &str, merge: &mut Merge<'_>) -> Result<(), UpdateError> {
        if !is_metadata_key(key) {
            return self.inner.update(key, merge);
        }
        let mut result = None;
        self.inner.update(key, &mut |current| {
            let merged = merge(current)?;
            result = Some(merged.clone());
            Ok(merged)
        })?;
        let mut documents = self.documents.write().unwrap_or_else(|e| e.into_inner());
        match result.flatten() {
            Some(value) => documents.insert(key.to_string(), value),
            None => documents.remove(key),
        };
        Ok(())
    }

    fn update_protection(&self) -> UpdateProtection {
        self.inner.update_protection()
    }
}

impl ListableStorage for ConsolidatedStore {
    /// The underlying store's listing; for a store that cannot list (plain HTTP), the level
    /// under `prefix` of the snapshot's metadata keys: the groups and arrays, no chunks.
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        match self.inner.list_dir(prefix) {
            Err(StorageError::Unsupported { .. }) => {
                let documents = self.documents.read().unwrap_or_else(|e| e.into_inner());
                let mut keys: Vec<&String> =
                    documents.keys().filter(|k| k.starts_with(prefix)).collect();
                keys.sort();
                Ok(DirListing::from_sorted_keys(prefix, keys.into_iter()))
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::Array;
    use crate::group::Group;
    use crate::node::ZarrFormat;
    use crate::storage::MemoryStore;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A store that counts the reads (whole, ranged and listings) reaching it.
    #[derive(Debug, Default)]
    struct CountingStore {
        inner: MemoryStore,
        reads: AtomicUsize,
    }

    impl CountingStore {
        fn reads(&self) -> usize {
            self.reads.load(Ordering::SeqCst)
        }
    }

    impl ReadableStorage for CountingStore {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            self.inner.get(key)
        }
    }

    impl WritableStorage for CountingStore {
        fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
            self.inner.set(key, value)
        }
        fn erase(&self, key: &str) -> Result<(), StorageError> {
            self.inner.erase(key)
        }
    }

    impl ListableStorage for CountingStore {
        fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            self.inner.list_dir(prefix)
        }
    }

    fn array_document(format: ZarrFormat) -> String {
        match format {
            ZarrFormat::V2 => r#"{"zarr_format": 2, "shape": [4], "chunks": [2],
                "dtype": "<i4", "compressor": null, "fill_value": 0, "filters": null,
                "order": "C"}"#
                .into(),
            _ => r#"{"zarr_format": 3, "node_type": "array", "shape": [4],
                "data_type": "int32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}"#
                .into(),
        }
    }

    /// 1,000 arrays in 10 groups, consolidated at the root; opening any node through the
    /// view costs no store read beyond the one that opened the view.
    #[test]
    fn opening_nodes_costs_a_constant_number_of_reads() {
        for format in [ZarrFormat::V3, ZarrFormat::V2] {
            let counting = Arc::new(CountingStore::default());
            let store: Arc<dyn Storage> = counting.clone();
            let root = Group::create(store.clone(), "/", Map::new(), format).unwrap();
            let document = array_document(format);
            for g in 0..10 {
                for a in 0..100 {
                    Array::create(store.clone(), &format!("/g{g}/a{a}"), &document).unwrap();
                }
            }
            Array::open(store.clone(), "/g3/a42")
                .unwrap()
                .write_region(&[0], &[4], &[7u8; 16])
                .unwrap();
            root.consolidate().unwrap();

            let before = counting.reads();
            let view: Arc<dyn Storage> = Arc::new(ConsolidatedStore::open(store.clone()).unwrap());
            let opened_view = counting.reads() - before;
            assert!(
                opened_view <= 2,
                "{format:?}: {opened_view} reads to open the view"
            );

            let before = counting.reads();
            for (g, a) in [(0, 0), (9, 99), (5, 50), (3, 42)] {
                let array = Array::open(view.clone(), &format!("/g{g}/a{a}")).unwrap();
                assert_eq!(array.shape(), vec![4]);
                Group::open(view.clone(), &format!("/g{g}")).unwrap();
            }
            assert_eq!(counting.reads() - before, 0, "{format:?}: metadata reads");
            assert!(matches!(
                Array::open(view.clone(), "/g1/missing"),
                Err(Error::NotFound(_))
            ));

            // Chunk data still comes from the store.
            let array = Array::open(view.clone(), "/g3/a42").unwrap();
            let mut out = [0u8; 16];
            array.read_region(&[0], &[4], &mut out).unwrap();
            assert_eq!(out, [7u8; 16]);
        }
    }

    /// A store that cannot list, as an HTTP server (once `listable` is cleared).
    #[derive(Debug, Default)]
    struct UnlistableStore {
        inner: MemoryStore,
        listable: std::sync::atomic::AtomicBool,
    }

    impl ReadableStorage for UnlistableStore {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
            self.inner.get(key)
        }
    }

    impl WritableStorage for UnlistableStore {
        fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
            self.inner.set(key, value)
        }
        fn erase(&self, key: &str) -> Result<(), StorageError> {
            self.inner.erase(key)
        }
    }

    impl ListableStorage for UnlistableStore {
        fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
            if self.listable.load(Ordering::SeqCst) {
                return self.inner.list_dir(prefix);
            }
            Err(StorageError::Unsupported {
                key: prefix.to_string(),
                reason: "no listing".into(),
            })
        }
    }

    /// Over a store that cannot list, the view walks the hierarchy from its snapshot.
    #[test]
    fn a_store_without_listing_is_walked_through_the_snapshot() {
        for format in [ZarrFormat::V3, ZarrFormat::V2] {
            let unlistable = Arc::new(UnlistableStore::default());
            unlistable.listable.store(true, Ordering::SeqCst);
            let store: Arc<dyn Storage> = unlistable.clone();
            let root = Group::create(store.clone(), "/", Map::new(), format).unwrap();
            Group::create(store.clone(), "/g/h", Map::new(), format).unwrap();
            let document = array_document(format);
            for path in ["/a", "/g/b", "/g/h/c"] {
                Array::create(store.clone(), path, &document).unwrap();
            }
            Array::open(store.clone(), "/g/b")
                .unwrap()
                .write_region(&[0], &[4], &[1u8; 16])
                .unwrap();
            root.consolidate().unwrap();
            unlistable.listable.store(false, Ordering::SeqCst);
            assert!(root.children().is_err(), "{format:?}: the store lists");

            let view: Arc<dyn Storage> = Arc::new(ConsolidatedStore::open(store).unwrap());
            let names = |path: &str| -> Vec<String> {
                let group = Group::open(view.clone(), path).unwrap();
                group
                    .children()
                    .unwrap()
                    .into_iter()
                    .map(|c| c.name)
                    .collect()
            };
            assert_eq!(names("/"), ["a", "g"], "{format:?}");
            assert_eq!(names("/g"), ["b", "h"], "{format:?}");
            assert_eq!(names("/g/h"), ["c"], "{format:?}");
            let all = Group::open(view.clone(), "/")
                .unwrap()
                .descendants()
                .unwrap();
            assert_eq!(all.len(), 5, "{format:?}");
            // The listing holds metadata only: no chunk keys.
            let level = view.list_dir("g/b/").unwrap();
            assert!(level.prefixes.is_empty(), "{format:?}: {level:?}");
        }
    }

    #[test]
    fn missing_and_malformed_consolidated_metadata() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        Group::create(store.clone(), "/", Map::new(), ZarrFormat::V3).unwrap();
        assert!(matches!(
            ConsolidatedStore::open(store.clone()),
            Err(Error::NotFound(_))
        ));
        store
            .set(
                "zarr.json",
                br#"{"zarr_format": 3, "node_type": "group",
                     "consolidated_metadata": {"kind": "inline", "must_understand": false,
                                               "metadata": {"../x": {}}}}"#,
            )
            .unwrap();
        assert!(ConsolidatedStore::open(store.clone()).is_err());
        store.erase("zarr.json").unwrap();
        store
            .set(
                ".zmetadata",
                br#"{"zarr_consolidated_format": 1, "metadata": []}"#,
            )
            .unwrap();
        assert!(matches!(
            ConsolidatedStore::open(store),
            Err(Error::Metadata { .. })
        ));
    }

    #[test]
    fn updates_go_to_the_store_and_keep_the_snapshot_true() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        let root = Group::create(store.clone(), "/", Map::new(), ZarrFormat::V3).unwrap();
        root.consolidate().unwrap();
        let view = ConsolidatedStore::open(store.clone()).unwrap();
        assert_eq!(view.update_protection(), store.update_protection());
        assert_eq!(view.lock_scope(), store.lock_scope());
        // A chunk: straight to the store.
        view.update("c/0", &mut |_| Ok(Some(b"x".to_vec())))
            .unwrap();
        assert_eq!(store.get("c/0").unwrap().unwrap(), b"x");
        // A metadata document: to the store and to the snapshot.
        let group = br#"{"zarr_format": 3, "node_type": "group"}"#;
        view.update("g/zarr.json", &mut |_| Ok(Some(group.to_vec())))
            .unwrap();
        assert_eq!(view.get("g/zarr.json").unwrap().unwrap(), group);
        assert_eq!(store.get("g/zarr.json").unwrap().unwrap(), group);
        view.update("g/zarr.json", &mut |_| Ok(None)).unwrap();
        assert_eq!(view.get("g/zarr.json").unwrap(), None);
        assert_eq!(store.get("g/zarr.json").unwrap(), None);
    }
}
