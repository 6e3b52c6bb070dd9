//! Groups: create and open (v3, v2 and the 2022 draft layout), attributes, the children
//! and descendants of a group, and consolidated metadata.

use crate::error::Error;
use crate::metadata::v2;
use crate::metadata::v3::{GroupMetadata, NodeType};
use crate::metadata::v3_draft;
use crate::node::{
    ensure_parent_groups, find_node, missing_node_error, write_group_document, write_json,
    write_node_document, FoundNode, NodePath, ZarrFormat,
};
use crate::storage::Storage;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};

/// A Zarr group in a store.
#[derive(Debug)]
pub struct Group {
    storage: Arc<dyn Storage>,
    path: NodePath,
    format: ZarrFormat,
    /// The draft layout's `.group.json` key, `None` for an implicit draft group and for
    /// the other layouts.
    draft_key: Option<String>,
    metadata: RwLock<GroupMetadata>,
    /// The children as last listed by [`Group::refresh_children`], for access by index.
    children_snapshot: RwLock<Option<Arc<Vec<Child>>>>,
}

/// A node below a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Child {
    pub name: String,
    pub path: String,
    pub node_type: NodeType,
}

impl Group {
    /// Open the group at `path`, stored as Zarr v3, v2 or the 2022 draft of v3.
    pub fn open(storage: Arc<dyn Storage>, path: &str) -> Result<Group, Error> {
        let path = NodePath::new(path)?;
        match find_node(storage.as_ref(), &path)? {
            None => Err(missing_node_error(storage.as_ref(), &path)),
            Some(node) => Group::from_found(storage, path, node),
        }
    }

    pub(crate) fn from_found(
        storage: Arc<dyn Storage>,
        path: NodePath,
        node: FoundNode,
    ) -> Result<Group, Error> {
        if node.node_type == NodeType::Array {
            return Err(Error::NodeTypeMismatch {
                path: path.as_str().to_string(),
                expected: "group",
                found: "array",
            });
        }
        let key = node.key.clone().unwrap_or_default();
        let invalid = |e| Error::metadata(&key, e);
        let (metadata, draft_key) = match node.format {
            ZarrFormat::V3 => (GroupMetadata::parse(&node.document).map_err(invalid)?, None),
            ZarrFormat::V2 => {
                v2::parse_group(&node.document).map_err(invalid)?;
                let metadata = GroupMetadata {
                    attributes: node.v2_attributes,
                    ..GroupMetadata::default()
                };
                (metadata, None)
            }
            ZarrFormat::V3Draft2022 => {
                let metadata = GroupMetadata {
                    attributes: v3_draft::attributes_of(&node.document).map_err(invalid)?,
                    ..GroupMetadata::default()
                };
                (metadata, node.key.clone())
            }
        };
        Ok(Group {
            storage,
            path,
            format: node.format,
            draft_key,
            metadata: RwLock::new(metadata),
            children_snapshot: RwLock::new(None),
        })
    }

    /// Create a group at `path` with `attributes` in `format` (v3 or v2), creating
    /// missing ancestor groups in the same format. Fails if a node already exists at
    /// `path`.
    pub fn create(
        storage: Arc<dyn Storage>,
        path: &str,
        attributes: Map<String, Value>,
        format: ZarrFormat,
    ) -> Result<Group, Error> {
        let path = NodePath::new(path)?;
        if format == ZarrFormat::V3Draft2022 {
            return Err(Error::InvalidArgument(
                "groups cannot be created in the 2022 draft layout (it is read only)".into(),
            ));
        }
        if find_node(storage.as_ref(), &path)?.is_some() {
            return Err(Error::AlreadyExists(path.as_str().to_string()));
        }
        ensure_parent_groups(storage.as_ref(), &path, format)?;
        let group = Group {
            storage,
            path,
            format,
            draft_key: None,
            metadata: RwLock::new(GroupMetadata {
                attributes,
                ..GroupMetadata::default()
            }),
            children_snapshot: RwLock::new(None),
        };
        write_group_document(group.storage.as_ref(), &group.path, format)?;
        group.write_metadata(&group.meta())?;
        Ok(group)
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    /// The layout the group is stored in.
    pub fn format(&self) -> ZarrFormat {
        self.format
    }

    fn meta(&self) -> std::sync::RwLockReadGuard<'_, GroupMetadata> {
        // Updates replace the value in one assignment; a poisoned lock guards valid data.
        self.metadata.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn attributes(&self) -> Map<String, Value> {
        self.meta().attributes.clone()
    }

    /// Write the document holding the group's attributes: `zarr.json`, v2 `.zattrs`
    /// (removed when empty), or the draft's `.group.json`.
    fn write_metadata(&self, metadata: &GroupMetadata) -> Result<(), Error> {
        let storage = self.storage.as_ref();
        match self.format {
            ZarrFormat::V3 => write_node_document(storage, &self.path, &metadata.to_json()),
            ZarrFormat::V2 => {
                let key = self.path.key(v2::ZATTRS);
                if metadata.attributes.is_empty() {
                    storage.erase(&key)?;
                    Ok(())
                } else {
                    write_json(storage, &key, &Value::Object(metadata.attributes.clone()))
                }
            }
            ZarrFormat::V3Draft2022 => {
                let key = self
                    .draft_key
                    .clone()
                    .unwrap_or_else(|| v3_draft::metadata_key(&self.path, ".group.json"));
                let document = serde_json::json!({
                    "attributes": Value::Object(metadata.attributes.clone()),
                    "extensions": [],
                });
                write_json(storage, &key, &document)
            }
        }
    }

    /// Read the group's metadata again from the store and use it from now on (after
    /// another handle or process changed its attributes).
    pub fn reload(&self) -> Result<(), Error> {
        let fresh = Group::open(self.storage.clone(), self.path.as_str())?;
        let metadata = fresh.meta().clone();
        *self.metadata.write().unwrap_or_else(|e| e.into_inner()) = metadata;
        Ok(())
    }

    /// Replace the attributes and rewrite the document holding them (atomically).
    pub fn set_attributes(&self, attributes: Map<String, Value>) -> Result<(), Error> {
        self.update_attributes(|current| {
            *current = attributes;
            Ok::<(), Error>(())
        })
    }

    /// Change the attributes with `update` and rewrite the document holding them
    /// atomically, holding the metadata lock throughout: updates through one handle are
    /// serialised (none is lost), and readers of this handle see the attributes before or
    /// after the update. When `update` or the write fails, nothing changes.
    pub fn update_attributes<E: From<Error>>(
        &self,
        update: impl FnOnce(&mut Map<String, Value>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut guard = self.metadata.write().unwrap_or_else(|e| e.into_inner());
        let mut updated = guard.clone();
        update(&mut updated.attributes)?;
        self.write_metadata(&updated)?;
        *guard = updated;
        Ok(())
    }

    /// List the children now (as [`Group::children`]) and keep the list as the group's
    /// snapshot, which [`Group::children_snapshot`] then returns: indexes into it stay
    /// valid while the hierarchy changes, until the next refresh.
    pub fn refresh_children(&self) -> Result<Arc<Vec<Child>>, Error> {
        let children = Arc::new(self.children()?);
        *self
            .children_snapshot
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(children.clone());
        Ok(children)
    }

    /// The snapshot of the children taken by the last [`Group::refresh_children`], or a
    /// new one when none was taken yet.
    pub fn children_snapshot(&self) -> Result<Arc<Vec<Child>>, Error> {
        let current = self
            .children_snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match current {
            Some(children) => Ok(children),
            None => self.refresh_children(),
        }
    }

    /// The direct children of the group, sorted by name. A sub-directory without node
    /// metadata (chunk directories, stray folders) is not a node and is skipped, as are
    /// names that are not valid node names (such as the reserved `__` prefix).
    pub fn children(&self) -> Result<Vec<Child>, Error> {
        let children = listed_children(self.storage.as_ref(), &self.path, self.format)?;
        Ok(children.into_iter().map(|(child, _)| child).collect())
    }

    /// Every node below the group (children, their children, ...), depth first, each
    /// group before its contents, siblings sorted by name.
    pub fn descendants(&self) -> Result<Vec<Child>, Error> {
        let nodes = listed_descendants(self.storage.as_ref(), &self.path, self.format)?;
        Ok(nodes.into_iter().map(|(child, _)| child).collect())
    }

    /// Every node below the group with its metadata, read once (consolidation needs both).
    fn descendant_nodes(&self) -> Result<Vec<(Child, Option<FoundNode>)>, Error> {
        listed_descendants(self.storage.as_ref(), &self.path, self.format)
    }

    /// Write consolidated metadata for every node below the group, so that readers can
    /// open any of them without further metadata reads: a v3 group gets an inline
    /// `consolidated_metadata` object in its `zarr.json` (zarr-python's form), a v2 group
    /// a `.zmetadata` document. Consolidated metadata is a snapshot: call this again
    /// after changing the hierarchy.
    pub fn consolidate(&self) -> Result<(), Error> {
        let storage = self.storage.as_ref();
        let prefix = self.path.key_prefix();
        let relative = |path: &str| {
            path[self.path.as_str().len()..]
                .trim_start_matches('/')
                .to_string()
        };
        match self.format {
            ZarrFormat::V3 => {
                let mut nodes = Map::new();
                for (child, node) in self.descendant_nodes()? {
                    if let Some(node) = node {
                        if node.format == ZarrFormat::V3 {
                            let mut document = node.document;
                            // Nested snapshots would only repeat what this one holds.
                            document.remove("consolidated_metadata");
                            nodes.insert(relative(&child.path), Value::Object(document));
                        }
                    }
                }
                let consolidated = serde_json::json!({
                    "kind": "inline",
                    "must_understand": false,
                    "metadata": Value::Object(nodes),
                });
                // Under the lock, so that a concurrent attribute change is not lost.
                let mut guard = self.metadata.write().unwrap_or_else(|e| e.into_inner());
                let mut updated = guard.clone();
                updated
                    .ignored_extensions
                    .insert("consolidated_metadata".into(), consolidated);
                self.write_metadata(&updated)?;
                *guard = updated;
                Ok(())
            }
            ZarrFormat::V2 => {
                let mut documents = Map::new();
                documents.insert(v2::ZGROUP.into(), v2::group_document());
                if !self.attributes().is_empty() {
                    documents.insert(v2::ZATTRS.into(), Value::Object(self.attributes()));
                }
                for (child, node) in self.descendant_nodes()? {
                    let Some(node) = node else {
                        continue;
                    };
                    if node.format != ZarrFormat::V2 {
                        continue;
                    }
                    let name = relative(&child.path);
                    let key = if node.node_type == NodeType::Array {
                        v2::ZARRAY
                    } else {
                        v2::ZGROUP
                    };
                    documents.insert(format!("{name}/{key}"), Value::Object(node.document));
                    if !node.v2_attributes.is_empty() {
                        documents.insert(
                            format!("{name}/{}", v2::ZATTRS),
                            Value::Object(node.v2_attributes),
                        );
                    }
                }
                let consolidated = serde_json::json!({
                    "metadata": Value::Object(documents),
                    "zarr_consolidated_format": 1,
                });
                write_json(
                    storage,
                    &format!("{prefix}{}", v2::ZMETADATA),
                    &consolidated,
                )
            }
            ZarrFormat::V3Draft2022 => Err(Error::InvalidArgument(
                "the 2022 draft layout has no consolidated metadata".into(),
            )),
        }
    }
}

/// The children of the group at `path` stored in `format`, sorted by name, each with the
/// node found for it when listing needed to read its metadata anyway (v3 and v2; the draft
/// layout lists documents by name, so there it is `None`).
fn listed_children(
    storage: &dyn Storage,
    path: &NodePath,
    format: ZarrFormat,
) -> Result<Vec<(Child, Option<FoundNode>)>, Error> {
    let mut found: Vec<(String, NodeType, Option<FoundNode>)> = Vec::new();
    if format == ZarrFormat::V3Draft2022 {
        // Documents `<name>.array.json` / `<name>.group.json`, and directories holding
        // documents further down (implicit groups).
        let listing = storage.list_dir(&v3_draft::metadata_dir(path))?;
        let mut groups = std::collections::BTreeSet::new();
        for key in &listing.keys {
            if let Some(name) = key.strip_suffix(".array.json") {
                found.push((name.to_string(), NodeType::Array, None));
            } else if let Some(name) = key.strip_suffix(".group.json") {
                groups.insert(name.to_string());
            }
        }
        groups.extend(listing.prefixes.iter().cloned());
        for name in groups {
            if !found.iter().any(|(array, _, _)| *array == name) {
                found.push((name, NodeType::Group, None));
            }
        }
    } else {
        let listing = storage.list_dir(&path.key_prefix())?;
        for name in listing.prefixes {
            let Ok(child_path) = path.child(&name) else {
                continue;
            };
            if let Some(node) = find_node(storage, &child_path)? {
                found.push((name, node.node_type, Some(node)));
            }
        }
    }
    let mut children: Vec<(Child, Option<FoundNode>)> = found
        .into_iter()
        .filter_map(|(name, node_type, node)| {
            // Names that are not valid node names are not nodes.
            let child_path = path.child(&name).ok()?;
            let child = Child {
                path: child_path.as_str().to_string(),
                name,
                node_type,
            };
            Some((child, node))
        })
        .collect();
    children.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    Ok(children)
}

/// Every node below the group at `path`, depth first, each group before its contents,
/// siblings by name, with the node found for it where listing read it (see
/// [`listed_children`]).
pub(crate) fn listed_descendants(
    storage: &dyn Storage,
    path: &NodePath,
    format: ZarrFormat,
) -> Result<Vec<(Child, Option<FoundNode>)>, Error> {
    let mut out = Vec::new();
    // An explicit stack, so that a deep hierarchy cannot overflow ours. Children are
    // pushed in reverse so that they are popped, and emitted, in order.
    let mut stack = listed_children(storage, path, format)?;
    stack.reverse();
    while let Some((child, node)) = stack.pop() {
        if child.node_type == NodeType::Group {
            let mut below = listed_children(storage, &NodePath::new(&child.path)?, format)?;
            below.reverse();
            stack.extend(below);
        }
        out.push((child, node));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStore;
    use serde_json::json;

    #[test]
    fn create_open_children_attributes() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        let root = Group::create(s.clone(), "/", Map::new(), ZarrFormat::V3).unwrap();
        Group::create(
            s.clone(),
            "/b/c",
            json!({"x": 1}).as_object().unwrap().clone(),
            ZarrFormat::V3,
        )
        .unwrap();
        let array_doc = json!({
            "zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "uint8",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
            "codecs": [{"name": "bytes"}]
        });
        crate::array::Array::create(s.clone(), "/a", &array_doc.to_string()).unwrap();
        s.set("stray/file", b"x").unwrap();
        let children = root.children().unwrap();
        let names: Vec<_> = children
            .iter()
            .map(|c| (c.name.as_str(), c.node_type))
            .collect();
        assert_eq!(names, vec![("a", NodeType::Array), ("b", NodeType::Group)]);
        let c = Group::open(s.clone(), "/b/c").unwrap();
        assert_eq!(c.attributes()["x"], json!(1));
        c.set_attributes(json!({"y": [1, 2]}).as_object().unwrap().clone())
            .unwrap();
        assert_eq!(
            Group::open(s.clone(), "/b/c").unwrap().attributes()["y"],
            json!([1, 2])
        );
        assert!(matches!(
            Group::open(s.clone(), "/a"),
            Err(Error::NodeTypeMismatch { .. })
        ));
        assert!(matches!(
            Group::open(s.clone(), "/zz"),
            Err(Error::NotFound(_))
        ));
        assert!(matches!(
            Group::create(s, "/b", Map::new(), ZarrFormat::V3),
            Err(Error::AlreadyExists(_))
        ));
    }
}
