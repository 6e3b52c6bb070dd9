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
pub use http_store::HttpStore;
pub use options::{Scheme, UrlOptions};
pub use s3::S3Store;
