//! Deleting a node and everything below it, in any of the three layouts, so that every
//! reader's view stays valid if the deletion stops midway. It sits above `node`, `group`
//! and `consolidated`, whose listings and consolidated documents it uses.

use crate::error::Error;
use crate::metadata::v3::NodeType;
use crate::node::{find_node, missing_node_error, NodePath, ZarrFormat, METADATA_KEY};
use crate::storage::Storage;

/// The keys of the metadata documents a node stored in `format` may have at `path`.
fn document_keys(path: &NodePath, format: ZarrFormat) -> Vec<String> {
    use crate::metadata::{v2, v3_draft};
    match format {
        ZarrFormat::V3 => vec![path.key(METADATA_KEY)],
        // The node's own document before its attributes.
        ZarrFormat::V2 => vec![
            path.key(v2::ZARRAY),
            path.key(v2::ZGROUP),
            path.key(v2::ZATTRS),
        ],
        ZarrFormat::V3Draft2022 => vec![
            v3_draft::metadata_key(path, ".array.json"),
            v3_draft::metadata_key(path, ".group.json"),
        ],
    }
}

/// The key prefixes holding everything below a node: its own prefix, or the draft
/// layout's metadata and data trees.
fn subtree_prefixes(path: &NodePath, format: ZarrFormat) -> Vec<String> {
    use crate::metadata::v3_draft;
    match format {
        ZarrFormat::V3 | ZarrFormat::V2 => vec![path.key_prefix()],
        ZarrFormat::V3Draft2022 => vec![v3_draft::metadata_dir(path), v3_draft::data_prefix(path)],
    }
}

/// Delete the node at `path` (an array, or a group with everything below it) in any of the
/// three layouts. The root cannot be deleted.
///
/// The order keeps every reader's view valid if the deletion stops midway (a failing
/// store, a crash): first every consolidated metadata document of an ancestor group stops
/// listing the node (so consolidated readers no longer see it). Then, where the store
/// erases a prefix atomically (memory, file system) and the node's keys all lie under its
/// prefix (v3, v2), that one erase removes it. Otherwise the node's own metadata document
/// is erased first (from here on it is gone for every reader), then the documents of the
/// nodes below it, and only then the chunks and everything else under its prefix. So no
/// reader ever opens an array whose chunks are partly erased.
///
/// An interrupted deletion leaves keys under the prefix but no node: calling this again
/// erases them (there is no node at `path`, no ancestor is an array, and keys remain under
/// its prefix). With no node and nothing under the prefix, [`Error::NotFound`].
pub fn delete_node(storage: &dyn Storage, path: &str) -> Result<(), Error> {
    let path = NodePath::new(path)?;
    if path.is_root() {
        return Err(Error::InvalidArgument(
            "the root node cannot be deleted (delete its children, or remove the store)".into(),
        ));
    }
    let Some(node) = find_node(storage, &path)? else {
        return delete_leftovers(storage, &path);
    };
    crate::consolidated::forget_node(storage, &path)?;
    if node.format != ZarrFormat::V3Draft2022 && storage.erase_prefix_is_atomic() {
        // Every document and chunk of the subtree lies under the node's prefix: one
        // atomic erase makes it vanish whole.
        storage.erase_prefix(&path.key_prefix())?;
        return Ok(());
    }
    // Everything below, found while the hierarchy is intact.
    let below = if node.node_type == NodeType::Group {
        crate::group::listed_descendants(storage, &path, node.format)?
    } else {
        Vec::new()
    };
    for key in document_keys(&path, node.format) {
        storage.erase(&key)?;
    }
    for (child, found) in &below {
        let child_path = NodePath::new(&child.path)?;
        let format = found.as_ref().map_or(node.format, |n| n.format);
        for key in document_keys(&child_path, format) {
            storage.erase(&key)?;
        }
    }
    for prefix in subtree_prefixes(&path, node.format) {
        storage.erase_prefix(&prefix)?;
    }
    Ok(())
}

/// The end of an interrupted [`delete_node`]: no node at `path` but keys under its prefix.
/// A path below an array names chunk data, not a node: that is never erased here.
fn delete_leftovers(storage: &dyn Storage, path: &NodePath) -> Result<(), Error> {
    let mut ancestor = path.parent();
    let mut format = ZarrFormat::V3;
    let mut nearest = true;
    while let Some(p) = ancestor {
        if let Some(node) = find_node(storage, &p)? {
            if node.node_type == NodeType::Array {
                return Err(missing_node_error(storage, path));
            }
            if nearest {
                format = node.format;
                nearest = false;
            }
        }
        ancestor = p.parent();
    }
    let mut found = false;
    for prefix in subtree_prefixes(path, format) {
        let listing = storage.list_dir(&prefix)?;
        found |= !listing.keys.is_empty() || !listing.prefixes.is_empty();
    }
    if found && !storage.erase_prefix_is_atomic() {
        // Nodes left below lose their documents before their chunks, as in delete_node.
        for (child, node) in crate::group::listed_descendants(storage, path, format)? {
            let child_path = NodePath::new(&child.path)?;
            let child_format = node.as_ref().map_or(format, |n| n.format);
            for key in document_keys(&child_path, child_format) {
                storage.erase(&key)?;
            }
        }
    }
    if found {
        for prefix in subtree_prefixes(path, format) {
            storage.erase_prefix(&prefix)?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(missing_node_error(storage, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::Array;
    use crate::consolidated::ConsolidatedStore;
    use crate::group::Group;
    use crate::storage::MemoryStore;
    use serde_json::Map;
    use std::sync::Arc;

    fn array_doc(format: ZarrFormat) -> &'static str {
        match format {
            ZarrFormat::V2 => {
                r#"{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|u1",
                "compressor": null, "fill_value": 0, "filters": null, "order": "C"}"#
            }
            _ => {
                r#"{"zarr_format": 3, "node_type": "array", "shape": [4],
                "data_type": "uint8",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
                "codecs": [{"name": "bytes"}]}"#
            }
        }
    }

    fn keys(storage: &dyn Storage) -> Vec<String> {
        let mut out = Vec::new();
        let mut pending = vec![String::new()];
        while let Some(dir) = pending.pop() {
            let listing = storage.list_dir(&dir).unwrap();
            out.extend(listing.keys.iter().map(|k| format!("{dir}{k}")));
            pending.extend(listing.prefixes.iter().map(|p| format!("{dir}{p}/")));
        }
        out.sort();
        out
    }

    /// A store whose `erase_prefix` is the trait's default, key by key (not atomic),
    /// recording the order of erases.
    #[derive(Debug, Default)]
    struct KeyByKey {
        inner: MemoryStore,
        erased: std::sync::Mutex<Vec<String>>,
    }
    impl crate::storage::ReadableStorage for KeyByKey {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, crate::storage::StorageError> {
            self.inner.get(key)
        }
    }
    impl crate::storage::WritableStorage for KeyByKey {
        fn set(&self, key: &str, value: &[u8]) -> Result<(), crate::storage::StorageError> {
            self.inner.set(key, value)
        }
        fn erase(&self, key: &str) -> Result<(), crate::storage::StorageError> {
            self.erased.lock().unwrap().push(key.to_string());
            self.inner.erase(key)
        }
    }
    impl crate::storage::ListableStorage for KeyByKey {
        fn list_dir(
            &self,
            prefix: &str,
        ) -> Result<crate::storage::DirListing, crate::storage::StorageError> {
            self.inner.list_dir(prefix)
        }
    }

    /// Without an atomic erase_prefix, every metadata document goes before any chunk.
    #[test]
    fn documents_go_first_when_prefixes_are_erased_key_by_key() {
        for format in [ZarrFormat::V3, ZarrFormat::V2] {
            let store = Arc::new(KeyByKey::default());
            let s: Arc<dyn Storage> = store.clone();
            Group::create(s.clone(), "/", Map::new(), format).unwrap();
            for path in ["/g/a", "/g/sub/b"] {
                let a = Array::create(s.clone(), path, array_doc(format)).unwrap();
                a.write_region(&[0], &[4], &[1, 2, 3, 4]).unwrap();
            }
            delete_node(s.as_ref(), "/g").unwrap();
            let erased = store.erased.lock().unwrap().clone();
            let is_document = |k: &String| {
                k.ends_with("zarr.json") || k.ends_with(".zarray") || k.ends_with(".zgroup")
            };
            let first_chunk = erased
                .iter()
                .position(|k| !is_document(k) && !k.ends_with(".zattrs"))
                .unwrap();
            let last_document = erased.iter().rposition(is_document).unwrap();
            assert!(last_document < first_chunk, "{format:?}: {erased:?}");
            assert_eq!(
                keys(s.as_ref())
                    .iter()
                    .filter(|k| k.starts_with("g/"))
                    .count(),
                0
            );
        }
    }

    /// /g/a (array with data), /g/sub/b (array), /keep (array); consolidated at the
    /// root. Deleting /g leaves only /keep, in the store and in the consolidated view.
    #[test]
    fn subtrees_in_v3_and_v2_with_consolidated_metadata() {
        for (format, atomic) in [
            (ZarrFormat::V3, true),
            (ZarrFormat::V2, true),
            (ZarrFormat::V3, false),
            (ZarrFormat::V2, false),
        ] {
            let s: Arc<dyn Storage> = if atomic {
                Arc::new(MemoryStore::new())
            } else {
                Arc::new(KeyByKey::default())
            };
            let root = Group::create(s.clone(), "/", Map::new(), format).unwrap();
            for path in ["/g/a", "/g/sub/b", "/keep", "/gx"] {
                let a = Array::create(s.clone(), path, array_doc(format)).unwrap();
                a.write_region(&[0], &[4], &[1, 2, 3, 4]).unwrap();
            }
            root.consolidate().unwrap();
            delete_node(s.as_ref(), "/g").unwrap();
            let left = keys(s.as_ref());
            assert!(
                left.iter().all(|k| !k.starts_with("g/")),
                "{format:?}: {left:?}"
            );
            assert!(
                left.iter().any(|k| k.starts_with("gx/")),
                "{format:?}: {left:?}"
            );
            let view: Arc<dyn Storage> = Arc::new(ConsolidatedStore::open(s.clone()).unwrap());
            assert!(matches!(
                Group::open(view.clone(), "/g"),
                Err(Error::NotFound(_))
            ));
            assert!(matches!(
                Array::open(view.clone(), "/g/a"),
                Err(Error::NotFound(_))
            ));
            Array::open(view.clone(), "/keep").unwrap();
            Array::open(view.clone(), "/gx").unwrap();
            // An array, through the consolidated view, which forgets it as well.
            delete_node(view.as_ref(), "/keep").unwrap();
            assert!(matches!(
                Array::open(view.clone(), "/keep"),
                Err(Error::NotFound(_))
            ));
            let fresh: Arc<dyn Storage> = Arc::new(ConsolidatedStore::open(s.clone()).unwrap());
            assert!(matches!(
                Array::open(fresh, "/keep"),
                Err(Error::NotFound(_))
            ));
            assert!(matches!(
                Array::open(s.clone(), "/keep"),
                Err(Error::NotFound(_))
            ));
            assert!(matches!(
                delete_node(s.as_ref(), "/keep"),
                Err(Error::NotFound(_))
            ));
        }
    }

    #[test]
    fn refusals_and_leftovers() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        Group::create(s.clone(), "/", Map::new(), ZarrFormat::V3).unwrap();
        let a = Array::create(s.clone(), "/a", array_doc(ZarrFormat::V3)).unwrap();
        a.write_region(&[0], &[4], &[1, 2, 3, 4]).unwrap();
        assert!(matches!(
            delete_node(s.as_ref(), "/"),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            delete_node(s.as_ref(), "a"),
            Err(Error::NodePath(_))
        ));
        // Chunk directories of an array are not nodes.
        assert!(matches!(
            delete_node(s.as_ref(), "/a/c"),
            Err(Error::NotFound(_))
        ));
        assert!(s.get("a/c/0").unwrap().is_some());
        // An interrupted deletion: the document is gone, chunks remain.
        s.erase("a/zarr.json").unwrap();
        delete_node(s.as_ref(), "/a").unwrap();
        assert_eq!(keys(s.as_ref()), vec!["zarr.json".to_string()]);
        assert!(matches!(
            delete_node(s.as_ref(), "/a"),
            Err(Error::NotFound(_))
        ));
    }

    #[test]
    fn draft_layout() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        for (key, value) in [
            (
                "zarr.json",
                r#"{"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0", "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0", "metadata_key_suffix": ".json", "extensions": []}"#,
            ),
            (
                "meta/root/g/x.array.json",
                r#"{"shape": [2], "data_type": "u1", "chunk_grid": {"type": "regular", "chunk_shape": [2], "separator": "/"}, "chunk_memory_layout": "C", "fill_value": 0, "extensions": [], "attributes": {}}"#,
            ),
            (
                "meta/root/keep.array.json",
                r#"{"shape": [2], "data_type": "u1", "chunk_grid": {"type": "regular", "chunk_shape": [2], "separator": "/"}, "chunk_memory_layout": "C", "fill_value": 0, "extensions": [], "attributes": {}}"#,
            ),
            ("data/root/g/x/c0", "ab"),
            ("data/root/keep/c0", "cd"),
        ] {
            s.set(key, value.as_bytes()).unwrap();
        }
        // /g is an implicit group.
        delete_node(s.as_ref(), "/g").unwrap();
        assert_eq!(
            keys(s.as_ref()),
            vec![
                "data/root/keep/c0".to_string(),
                "meta/root/keep.array.json".into(),
                "zarr.json".into()
            ]
        );
        delete_node(s.as_ref(), "/keep").unwrap();
        assert_eq!(keys(s.as_ref()), vec!["zarr.json".to_string()]);
    }
}
