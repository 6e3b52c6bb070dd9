//! Serde models of node metadata documents and the JSON rules they share.

pub use crate::extension;
pub mod json;
pub mod v2;
pub mod v3;
pub mod v3_draft;

pub use extension::NamedConfig;

/// Errors in metadata documents (defined below the data types, which report with it too).
pub use crate::metadata_error::MetadataError;
