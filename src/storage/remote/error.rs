//! Errors of requests to remote stores.

use thiserror::Error;

/// What went wrong with a remote request; the C API maps each kind to a status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteErrorKind {
    /// The service refused the request: HTTP 401 or 403 (missing, wrong or insufficient
    /// credentials, or a signature the service rejects).
    AccessDenied,
    /// A connection or a wait for data timed out, on every attempt.
    Timeout,
    /// The service could not be reached, or the connection failed (refused, reset, a TLS
    /// handshake or certificate failure), on every attempt.
    Network,
    /// What the store lives in is gone: an S3 service answered 404 `NoSuchBucket`. (A
    /// missing object is not an error: it reads as absent.)
    NotFound,
    /// The service answered with an HTTP error status other than 401, 403 and 404 (a 5xx
    /// or 429 on every attempt, or a 4xx that is not retried), or with a response this
    /// client cannot use.
    Service,
}

/// A remote request that failed, after any retries. The message names the method, the
/// URL (without its query string, which may hold a signature) and the HTTP status.
#[derive(Debug, Error)]
#[error("{method} {url}: {detail}")]
pub struct RemoteError {
    pub kind: RemoteErrorKind,
    pub method: &'static str,
    pub url: String,
    pub detail: String,
    /// The HTTP status the service answered, when it answered one.
    pub status: Option<u16>,
}

impl RemoteError {
    pub(crate) fn new(
        kind: RemoteErrorKind,
        method: &'static str,
        url: &str,
        detail: impl Into<String>,
    ) -> RemoteError {
        RemoteError {
            kind,
            method,
            url: url.to_string(),
            detail: detail.into(),
            status: None,
        }
    }

    /// The same error, for a response with the HTTP status `status`.
    pub(crate) fn with_status(mut self, status: u16) -> RemoteError {
        self.status = Some(status);
        self
    }
}
