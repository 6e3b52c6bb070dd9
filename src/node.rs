//! Node paths (`/`, `/a/b`) and the store keys derived from them.

use crate::error::Error;
use crate::metadata::json::parse_lenient;
use crate::metadata::v3::{node_type_of, NodeType};
use crate::storage::{Bounded, Storage};
use serde_json::{Map, Value};
use thiserror::Error as ThisError;

/// A path that is not a valid Zarr node path.
#[derive(Debug, ThisError)]
#[error("invalid node path '{path}': {reason}")]
pub struct NodePathError {
    pub path: String,
    pub reason: String,
}

/// A validated absolute node path. The root is `/`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodePath(String);

impl NodePath {
    /// Validate `path` against the spec's node name rules: absolute, no empty segment
    /// (a single trailing `/` is tolerated), no name made only of periods (`.`, `..`), no
    /// name starting with `__` (reserved), no name `zarr.json`, and no backslash or control
    /// character (which some file systems or tools would misread).
    pub fn new(path: &str) -> Result<NodePath, NodePathError> {
        let invalid = |reason: &str| NodePathError {
            path: path.to_string(),
            reason: reason.to_string(),
        };
        let Some(rest) = path.strip_prefix('/') else {
            return Err(invalid("node paths are absolute and start with '/'"));
        };
        if rest.is_empty() {
            return Ok(NodePath("/".into()));
        }
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        for name in rest.split('/') {
            if name.is_empty() {
                return Err(invalid("empty node name ('//')"));
            }
            if name.chars().all(|c| c == '.') {
                return Err(invalid("a node name cannot consist only of periods"));
            }
            if name.starts_with("__") {
                return Err(invalid("node names starting with '__' are reserved"));
            }
            if name == "zarr.json" {
                return Err(invalid("'zarr.json' is not a valid node name"));
            }
            if name.chars().any(|c| c == '\\' || c.is_control()) {
                return Err(invalid("backslash or control character in a node name"));
            }
        }
        Ok(NodePath(format!("/{rest}")))
    }

    pub fn root() -> NodePath {
        NodePath("/".into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0 == "/"
    }

    /// The prefix of every key under this node: `""` for the root, `"a/b/"` otherwise.
    pub fn key_prefix(&self) -> String {
        if self.is_root() {
            String::new()
        } else {
            format!("{}/", &self.0[1..])
        }
    }

    /// The key of a document stored in this node (`zarr.json`, `.zarray`, ...).
    pub fn key(&self, name: &str) -> String {
        format!("{}{}", self.key_prefix(), name)
    }

    /// The last name in the path (`""` for the root).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The parent path, or `None` for the root.
    pub fn parent(&self) -> Option<NodePath> {
        if self.is_root() {
            return None;
        }
        let cut = self.0.rfind('/').unwrap_or(0);
        Some(if cut == 0 {
            NodePath::root()
        } else {
            NodePath(self.0[..cut].to_string())
        })
    }

    /// The path of a child named `name` (which must itself be valid).
    pub fn child(&self, name: &str) -> Result<NodePath, NodePathError> {
        if self.is_root() {
            NodePath::new(&format!("/{name}"))
        } else {
            NodePath::new(&format!("{}/{name}", self.0))
        }
    }
}

/// The key of a v3 node's metadata document.
pub const METADATA_KEY: &str = "zarr.json";

/// The error for a path where no node of any supported layout exists.
pub fn missing_node_error(path: &NodePath) -> Error {
    Error::NotFound(path.as_str().to_string())
}

/// The metadata layout of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZarrFormat {
    /// Zarr v2: `.zarray` / `.zgroup` / `.zattrs`.
    V2,
    /// Zarr v3: one `zarr.json` per node.
    V3,
    /// The 2022 draft of v3: `meta/root/<path>.array.json`, chunks under `data/root/`.
    V3Draft2022,
}

impl ZarrFormat {
    /// The number C sees: 2, 3, or 3 for the draft too (its documents say "3.0").
    pub fn number(&self) -> u32 {
        match self {
            ZarrFormat::V2 => 2,
            ZarrFormat::V3 | ZarrFormat::V3Draft2022 => 3,
        }
    }
}

/// A node found in a store, in whichever layout it is stored.
#[derive(Clone, Debug)]
pub struct FoundNode {
    pub format: ZarrFormat,
    pub node_type: NodeType,
    /// The node's metadata document: `zarr.json`, `.zarray` / `.zgroup`, or the draft's
    /// `.array.json` / `.group.json` (an empty object for an implicit draft group).
    pub document: Map<String, Value>,
    /// The key the document was read from (`None` for an implicit draft group).
    pub key: Option<String>,
    /// A v2 node's `.zattrs` (empty when absent); unused for the other layouts, whose
    /// attributes are inside `document`.
    pub v2_attributes: Map<String, Value>,
}

/// The largest metadata document read (`zarr.json`, `.zarray`, `.zgroup`, `.zattrs`,
/// `.zmetadata`, the 2022 draft's documents): 64 MiB. A larger one is invalid metadata and
/// is not read into memory (parsing it would take several times its size). Consolidated
/// metadata of tens of thousands of arrays fits.
pub const MAX_METADATA_DOCUMENT_BYTES: u64 = 64 << 20;

/// Read and parse a JSON object stored at `key`; `None` when the key is absent. A
/// document over [`MAX_METADATA_DOCUMENT_BYTES`] is invalid metadata.
pub fn read_json_object(
    storage: &dyn Storage,
    key: &str,
) -> Result<Option<Map<String, Value>>, Error> {
    let bytes = match storage.get_at_most(key, MAX_METADATA_DOCUMENT_BYTES)? {
        None => return Ok(None),
        Some(Bounded::Value(bytes)) => bytes,
        Some(Bounded::TooLarge { size }) => {
            return Err(Error::metadata(
                key,
                crate::metadata::MetadataError::Invalid(format!(
                    "the document is {size} bytes, more than the {MAX_METADATA_DOCUMENT_BYTES} \
                     bytes a metadata document may hold"
                )),
            ))
        }
    };
    match parse_lenient(&bytes).map_err(|e| Error::metadata(key, e))? {
        Value::Object(document) => Ok(Some(document)),
        _ => Err(Error::metadata(
            key,
            crate::metadata::MetadataError::Invalid("the document is not a JSON object".into()),
        )),
    }
}

/// Find the node at `path` in any supported layout: v3 `zarr.json`, then v2 `.zarray` /
/// `.zgroup`, then the 2022 draft (when the store root holds the draft's entry point).
/// `None` when there is no node there.
pub fn find_node(storage: &dyn Storage, path: &NodePath) -> Result<Option<FoundNode>, Error> {
    use crate::metadata::{v2, v3_draft};
    let v3_key = path.key(METADATA_KEY);
    if let Some(document) = read_json_object(storage, &v3_key)? {
        if v3_draft::is_entry_point(&document) {
            return find_draft_node(storage, path);
        }
        let node_type = node_type_of(&document).map_err(|e| Error::metadata(&v3_key, e))?;
        return Ok(Some(FoundNode {
            format: ZarrFormat::V3,
            node_type,
            document,
            key: Some(v3_key),
            v2_attributes: Map::new(),
        }));
    }
    for (name, node_type) in [(v2::ZARRAY, NodeType::Array), (v2::ZGROUP, NodeType::Group)] {
        let key = path.key(name);
        if let Some(document) = read_json_object(storage, &key)? {
            let attributes_key = path.key(v2::ZATTRS);
            let v2_attributes = read_json_object(storage, &attributes_key)?.unwrap_or_default();
            return Ok(Some(FoundNode {
                format: ZarrFormat::V2,
                node_type,
                document,
                key: Some(key),
                v2_attributes,
            }));
        }
    }
    if !path.is_root() {
        if let Some(root) = read_json_object(storage, METADATA_KEY)? {
            if v3_draft::is_entry_point(&root) {
                return find_draft_node(storage, path);
            }
        }
    }
    Ok(None)
}

/// Find a node of a store in the 2022 draft layout: an array or group document, or an
/// implicit group (documents below the path but none for it).
fn find_draft_node(storage: &dyn Storage, path: &NodePath) -> Result<Option<FoundNode>, Error> {
    use crate::metadata::v3_draft;
    for (suffix, node_type) in [
        (".array.json", NodeType::Array),
        (".group.json", NodeType::Group),
    ] {
        let key = v3_draft::metadata_key(path, suffix);
        if let Some(document) = read_json_object(storage, &key)? {
            return Ok(Some(FoundNode {
                format: ZarrFormat::V3Draft2022,
                node_type,
                document,
                key: Some(key),
                v2_attributes: Map::new(),
            }));
        }
    }
    let listing = storage.list_dir(&v3_draft::metadata_dir(path))?;
    let implicit = path.is_root() || !listing.keys.is_empty() || !listing.prefixes.is_empty();
    Ok(implicit.then(|| FoundNode {
        format: ZarrFormat::V3Draft2022,
        node_type: NodeType::Group,
        document: Map::new(),
        key: None,
        v2_attributes: Map::new(),
    }))
}

/// Write a node's metadata document (pretty-printed, as other implementations do).
pub fn write_node_document(
    storage: &dyn Storage,
    path: &NodePath,
    document: &Value,
) -> Result<(), Error> {
    write_json(storage, &path.key(METADATA_KEY), document)
}

/// Make sure every ancestor of `path` is a group, creating a group document (with no
/// attributes) in `format` for each missing one, as the v3 spec requires now that implicit
/// groups are gone (and as zarr-python does for v2). Fails if an ancestor is an array.
pub fn ensure_parent_groups(
    storage: &dyn Storage,
    path: &NodePath,
    format: ZarrFormat,
) -> Result<(), Error> {
    let mut ancestors = Vec::new();
    let mut current = path.parent();
    while let Some(p) = current {
        current = p.parent();
        ancestors.push(p);
    }
    for ancestor in ancestors.into_iter().rev() {
        match find_node(storage, &ancestor)?.map(|n| n.node_type) {
            Some(NodeType::Group) => {}
            Some(NodeType::Array) => {
                return Err(Error::NodeTypeMismatch {
                    path: ancestor.as_str().to_string(),
                    expected: "group",
                    found: "array",
                })
            }
            None => write_group_document(storage, &ancestor, format)?,
        }
    }
    Ok(())
}

/// Write an attribute-less group document for `path` in `format`.
pub fn write_group_document(
    storage: &dyn Storage,
    path: &NodePath,
    format: ZarrFormat,
) -> Result<(), Error> {
    match format {
        ZarrFormat::V3 => write_node_document(
            storage,
            path,
            &crate::metadata::v3::GroupMetadata::default().to_json(),
        ),
        ZarrFormat::V2 => write_json(
            storage,
            &path.key(crate::metadata::v2::ZGROUP),
            &crate::metadata::v2::group_document(),
        ),
        ZarrFormat::V3Draft2022 => Err(Error::InvalidArgument(
            "nodes cannot be created in the 2022 draft layout (it is read only)".into(),
        )),
    }
}

/// Write a JSON document at `key` (pretty-printed, as other implementations do).
pub fn write_json(storage: &dyn Storage, key: &str, document: &Value) -> Result<(), Error> {
    let text = serde_json::to_vec_pretty(document).expect("a serde_json Value always serialises");
    storage.set(key, &text)?;
    Ok(())
}

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
                return Err(missing_node_error(path));
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
        Err(missing_node_error(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_and_invalid_paths() {
        for (path, prefix) in [
            ("/", ""),
            ("/a", "a/"),
            ("/a/b.c/", "a/b.c/"),
            ("/.x", ".x/"),
        ] {
            assert_eq!(NodePath::new(path).unwrap().key_prefix(), prefix, "{path}");
        }
        for bad in [
            "",
            "a",
            "//",
            "/a//b",
            "/..",
            "/../x",
            "/a/.",
            "/...",
            "/__zarr",
            "/a/zarr.json",
            "/a\\b",
            "/a\nb",
        ] {
            assert!(NodePath::new(bad).is_err(), "{bad:?}");
        }
    }

    mod delete {
        use super::super::*;
        use crate::array::Array;
        use crate::consolidated::ConsolidatedStore;
        use crate::group::Group;
        use crate::storage::MemoryStore;
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

    #[test]
    fn metadata_documents_over_the_cap_are_not_read() {
        use crate::storage::{FilesystemStore, MemoryStore, WritableStorage};
        let root = std::env::temp_dir().join(format!("libzarr-node-cap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = FilesystemStore::new(root.clone()).unwrap();
        store.set("a/zarr.json", b"{}").unwrap();
        // A sparse 1 TiB document: reading it would exhaust memory (or take minutes).
        let file = std::fs::File::create(root.join("a/zarr.json")).unwrap();
        file.set_len(1 << 40).unwrap();
        let error = find_node(&store, &NodePath::new("/a").unwrap()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, Error::Metadata { .. }), "{message}");
        assert!(
            message.contains("1099511627776 bytes, more than the 67108864"),
            "{message}"
        );
        // Just over the cap, in memory (whose values are read whole anyway).
        let memory = MemoryStore::new();
        let mut big = b"{\"a\": \"".to_vec();
        big.resize(MAX_METADATA_DOCUMENT_BYTES as usize, b'x');
        big.extend_from_slice(b"\"}");
        memory.set("zarr.json", &big).unwrap();
        let error = read_json_object(&memory, "zarr.json").unwrap_err();
        assert!(error.to_string().contains("more than the"), "{error}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn parents_and_names() {
        let p = NodePath::new("/a/b").unwrap();
        assert_eq!(p.name(), "b");
        assert_eq!(p.parent().unwrap().as_str(), "/a");
        assert_eq!(p.parent().unwrap().parent().unwrap(), NodePath::root());
        assert!(NodePath::root().parent().is_none());
        assert_eq!(NodePath::root().child("x").unwrap().as_str(), "/x");
        assert_eq!(p.key("zarr.json"), "a/b/zarr.json");
    }
}
