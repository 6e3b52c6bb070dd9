//! Node paths (`/`, `/a/b`) and the store keys derived from them.

use crate::error::Error;
use crate::metadata::json::parse_lenient;
use crate::metadata::v3::{node_type_of, NodeType};
use crate::storage::Storage;
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

/// A node's type and its parsed `zarr.json` document.
pub type NodeDocument = (NodeType, Map<String, Value>);

/// Read and parse the `zarr.json` of the node at `path`; `None` when there is none.
pub fn read_node_document(
    storage: &dyn Storage,
    path: &NodePath,
) -> Result<Option<NodeDocument>, Error> {
    let key = path.key(METADATA_KEY);
    let Some(bytes) = storage.get(&key)? else {
        return Ok(None);
    };
    let document = match parse_lenient(&bytes).map_err(|e| Error::metadata(&key, e))? {
        Value::Object(document) => document,
        _ => {
            return Err(Error::metadata(
                &key,
                crate::metadata::MetadataError::Invalid("the document is not a JSON object".into()),
            ))
        }
    };
    let node_type = node_type_of(&document).map_err(|e| Error::metadata(&key, e))?;
    Ok(Some((node_type, document)))
}

/// The error for a path that has no `zarr.json`: "not found", unless the node exists in a
/// format this library does not read yet (Zarr v2 `.zarray` / `.zgroup`), which is worth
/// saying precisely.
pub fn missing_node_error(storage: &dyn Storage, path: &NodePath) -> Error {
    for (key, what) in [(".zarray", "array"), (".zgroup", "group")] {
        if matches!(storage.get(&path.key(key)), Ok(Some(_))) {
            return Error::metadata(
                path.key(key),
                crate::metadata::MetadataError::Unsupported(format!(
                    "'{}' is a Zarr v2 {what}; Zarr v2 is not supported yet",
                    path.as_str()
                )),
            );
        }
    }
    Error::NotFound(path.as_str().to_string())
}

/// Write a node's metadata document (pretty-printed, as other implementations do).
pub fn write_node_document(
    storage: &dyn Storage,
    path: &NodePath,
    document: &Value,
) -> Result<(), Error> {
    let text = serde_json::to_vec_pretty(document).expect("a serde_json Value always serialises");
    storage.set(&path.key(METADATA_KEY), &text)?;
    Ok(())
}

/// Make sure every ancestor of `path` is a group, creating a `zarr.json` (with no
/// attributes) for each missing one, as the spec requires now that implicit groups are
/// gone. Fails if an ancestor is an array.
pub fn ensure_parent_groups(storage: &dyn Storage, path: &NodePath) -> Result<(), Error> {
    let mut ancestors = Vec::new();
    let mut current = path.parent();
    while let Some(p) = current {
        current = p.parent();
        ancestors.push(p);
    }
    for ancestor in ancestors.into_iter().rev() {
        match read_node_document(storage, &ancestor)? {
            Some((NodeType::Group, _)) => {}
            Some((NodeType::Array, _)) => {
                return Err(Error::NodeTypeMismatch {
                    path: ancestor.as_str().to_string(),
                    expected: "group",
                    found: "array",
                })
            }
            None => write_node_document(
                storage,
                &ancestor,
                &crate::metadata::v3::GroupMetadata::default().to_json(),
            )?,
        }
    }
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
