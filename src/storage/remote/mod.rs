//! Remote stores: S3-compatible object stores (`s3://bucket/prefix`) and plain HTTP(S)
//! servers (read-only). `crate::store_url` opens a store from a URL.
//!
//! The HTTP client is ureq (blocking, a connection pool per store, rustls with the
//! system's certificates or `SSL_CERT_FILE`); S3 requests are signed by rusty-s3 (SigV4
//! presigned URLs) and its XML responses parsed by it. No async runtime and no thread is
//! started until a call needs concurrent requests, and those threads end with the call.

pub mod azure;
pub mod conditional;
pub mod credentials;
pub mod error;
pub mod gcs;
pub mod gcs_auth;
pub mod http;
pub mod http_store;
pub mod options;
pub mod s3;

pub use error::{RemoteError, RemoteErrorKind};

use crate::storage::StorageError;

/// Why a GCS or Azure store could not be opened; `crate::store_url` reports it as the
/// library's error of the same name.
#[derive(Debug)]
pub enum OpenError {
    /// Options or settings that cannot work (the message names them).
    InvalidArgument(String),
    /// The bucket or container does not exist (the message names it and where).
    NotFound(String),
    /// A request of the open, or the store's set-up, failed.
    Storage(StorageError),
}

impl From<StorageError> for OpenError {
    fn from(error: StorageError) -> OpenError {
        OpenError::Storage(error)
    }
}
pub use http_store::HttpStore;
pub use options::{Scheme, UrlOptions};
pub use s3::S3Store;
