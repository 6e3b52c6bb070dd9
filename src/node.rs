//! Nodes in a store: finding a node's metadata document in any of the three layouts,
//! reading and writing metadata documents, and the parent groups a new node needs.
//! (Node paths themselves are in `node_path`; deleting a subtree is in `delete`.)

use crate::error::Error;
use crate::metadata::json::parse_lenient;
use crate::metadata::v3::{node_type_of, NodeType};
use crate::storage::{Bounded, Storage};
use serde_json::{Map, Value};

pub use crate::node_path::{NodePath, NodePathError};

/// The key of a v3 node's metadata document.
pub const METADATA_KEY: &str = "zarr.json";

/// The error for a path of `storage` where no node of any supported layout exists. It
/// names the store, where the node's documents would be, and what the store knows of
/// their absence ("no node at '/tas' in the directory '/d/x.zarr': no zarr.json, .zarray
/// or .zgroup in '/d/x.zarr/tas/' (the directory '/d/x.zarr' does not exist)").
pub fn missing_node_error(storage: &dyn Storage, path: &NodePath) -> Error {
    let metadata_key = path.key(METADATA_KEY);
    let mut message = format!(
        "no node at '{}' in {}: no {METADATA_KEY}, {} or {} in '{}'",
        path.as_str(),
        storage.location(),
        crate::metadata::v2::ZARRAY,
        crate::metadata::v2::ZGROUP,
        storage.key_location(&path.key_prefix()),
    );
    if let Some(reason) = storage.absence_reason(&metadata_key) {
        message.push_str(" (");
        message.push_str(&reason);
        message.push(')');
    }
    Error::NotFound(message)
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
