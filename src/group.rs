//! Groups: create and open, attributes, and the children of a group.

use crate::error::Error;
use crate::metadata::v3::{GroupMetadata, NodeType};
use crate::node::{
    ensure_parent_groups, missing_node_error, read_node_document, write_node_document, NodePath,
    METADATA_KEY,
};
use crate::storage::Storage;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};

/// A Zarr group in a store.
#[derive(Debug)]
pub struct Group {
    storage: Arc<dyn Storage>,
    path: NodePath,
    metadata: RwLock<GroupMetadata>,
}

/// A direct child of a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Child {
    pub name: String,
    pub path: String,
    pub node_type: NodeType,
}

impl Group {
    /// Open the group at `path`.
    pub fn open(storage: Arc<dyn Storage>, path: &str) -> Result<Group, Error> {
        let path = NodePath::new(path)?;
        match read_node_document(storage.as_ref(), &path)? {
            None => Err(missing_node_error(storage.as_ref(), &path)),
            Some((NodeType::Array, _)) => Err(Error::NodeTypeMismatch {
                path: path.as_str().to_string(),
                expected: "group",
                found: "array",
            }),
            Some((NodeType::Group, document)) => {
                let metadata = GroupMetadata::parse(&document)
                    .map_err(|e| Error::metadata(path.key(METADATA_KEY), e))?;
                Ok(Group {
                    storage,
                    path,
                    metadata: RwLock::new(metadata),
                })
            }
        }
    }

    /// Create a group at `path` with `attributes`, creating missing ancestor groups. Fails
    /// if a node already exists at `path`.
    pub fn create(
        storage: Arc<dyn Storage>,
        path: &str,
        attributes: Map<String, Value>,
    ) -> Result<Group, Error> {
        let path = NodePath::new(path)?;
        if read_node_document(storage.as_ref(), &path)?.is_some() {
            return Err(Error::AlreadyExists(path.as_str().to_string()));
        }
        ensure_parent_groups(storage.as_ref(), &path)?;
        let metadata = GroupMetadata {
            attributes,
            ..GroupMetadata::default()
        };
        write_node_document(storage.as_ref(), &path, &metadata.to_json())?;
        Ok(Group {
            storage,
            path,
            metadata: RwLock::new(metadata),
        })
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    fn meta(&self) -> std::sync::RwLockReadGuard<'_, GroupMetadata> {
        // Updates replace the value in one assignment; a poisoned lock guards valid data.
        self.metadata.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn attributes(&self) -> Map<String, Value> {
        self.meta().attributes.clone()
    }

    /// Replace the attributes and rewrite `zarr.json` (atomically).
    pub fn set_attributes(&self, attributes: Map<String, Value>) -> Result<(), Error> {
        let mut updated = self.meta().clone();
        updated.attributes = attributes;
        write_node_document(self.storage.as_ref(), &self.path, &updated.to_json())?;
        *self.metadata.write().unwrap_or_else(|e| e.into_inner()) = updated;
        Ok(())
    }

    /// The direct children of the group, sorted by name. A sub-directory without a
    /// `zarr.json` (chunk directories, stray folders) is not a node and is skipped, as are
    /// names that are not valid node names (such as the reserved `__` prefix).
    pub fn children(&self) -> Result<Vec<Child>, Error> {
        let listing = self.storage.list_dir(&self.path.key_prefix())?;
        let mut children = Vec::new();
        for name in listing.prefixes {
            let Ok(child_path) = self.path.child(&name) else {
                continue;
            };
            if let Some((node_type, _)) = read_node_document(self.storage.as_ref(), &child_path)? {
                children.push(Child {
                    name,
                    path: child_path.as_str().to_string(),
                    node_type,
                });
            }
        }
        Ok(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStore;
    use serde_json::json;

    #[test]
    fn create_open_children_attributes() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        let root = Group::create(s.clone(), "/", Map::new()).unwrap();
        Group::create(
            s.clone(),
            "/b/c",
            json!({"x": 1}).as_object().unwrap().clone(),
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
            Group::create(s, "/b", Map::new()),
            Err(Error::AlreadyExists(_))
        ));
    }
}
