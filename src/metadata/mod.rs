//! Serde models of node metadata documents and the JSON rules they share.

pub mod extension;
pub mod json;
pub mod v2;
pub mod v3;
pub mod v3_draft;

pub use extension::NamedConfig;

use thiserror::Error;

/// Errors in metadata documents, whether read from a store or given by the caller.
#[derive(Debug, Error)]
pub enum MetadataError {
    /// The text is not JSON (or not lenient JSON, see [`json::parse_lenient`]).
    #[error("malformed JSON: {0}")]
    Json(String),
    /// The document is JSON but violates the specification.
    #[error("{0}")]
    Invalid(String),
    /// The document is valid but uses something this library does not implement.
    #[error("unsupported: {0}")]
    Unsupported(String),
}
