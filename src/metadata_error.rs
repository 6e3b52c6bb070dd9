//! The error of a metadata document that cannot be used. It lives below both `metadata`
//! and `data_type` (data type names and fill values are parts of documents, parsed in
//! `data_type`), so that neither imports the other's layer for it.

use serde_json::Value;
use thiserror::Error;

/// Errors in metadata documents, whether read from a store or given by the caller.
#[derive(Debug, Error)]
pub enum MetadataError {
    /// The text is not JSON (or not lenient JSON, see `metadata::json::parse_lenient`).
    #[error("malformed JSON: {0}")]
    Json(String),
    /// The document is JSON but violates the specification.
    #[error("{0}")]
    Invalid(String),
    /// The document is valid but uses something this library does not implement.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// A short name for the kind of a JSON value, for error messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
