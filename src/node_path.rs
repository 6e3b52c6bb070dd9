//! Node paths (`/`, `/a/b`): validated against the spec's naming rules, and the store key
//! prefixes derived from them. The lowest layer of the hierarchy code: it knows no store.

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
