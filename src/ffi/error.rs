//! Errors at the boundary, their status codes, and the thread-local last-error message.

use super::status::*;
use crate::codec::CodecError;
use crate::error::Error;
use crate::metadata::MetadataError;
use crate::storage::{RemoteErrorKind, StorageError};
use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::fmt::Write;

/// A failure of an exported function.
#[derive(Debug)]
pub(crate) enum FfiError {
    /// A required pointer was NULL; the value names the parameter.
    Null(&'static str),
    /// An argument is invalid for reasons the core cannot see (bad UTF-8, absurd length).
    InvalidArgument(String),
    /// A file named by an argument does not exist (the message says which).
    NotFound(String),
    /// The core reported an error.
    Core(Error),
}

impl From<Error> for FfiError {
    fn from(error: Error) -> FfiError {
        FfiError::Core(error)
    }
}

/// The status code for an error. The matches are exhaustive on purpose: a new error
/// variant does not compile until someone decides its status.
pub(crate) fn status_of(error: &FfiError) -> zarr_status {
    match error {
        FfiError::Null(_) => ZARR_ERROR_NULL_ARGUMENT,
        FfiError::InvalidArgument(_) => ZARR_ERROR_INVALID_ARGUMENT,
        FfiError::NotFound(_) => ZARR_ERROR_NOT_FOUND,
        FfiError::Core(error) => match error {
            Error::Storage(e) => match e {
                StorageError::Io { .. } => ZARR_ERROR_IO,
                StorageError::InvalidKey { .. } => ZARR_ERROR_INVALID_PATH,
                StorageError::RangeOutOfBounds { .. } => ZARR_ERROR_CORRUPT_DATA,
                StorageError::ReadOnly => ZARR_ERROR_READ_ONLY,
                StorageError::OutOfMemory { .. } => ZARR_ERROR_OUT_OF_MEMORY,
                StorageError::Corrupt { .. } => ZARR_ERROR_CORRUPT_DATA,
                StorageError::Unsupported { .. } => ZARR_ERROR_UNSUPPORTED,
                StorageError::Remote(remote) => match remote.kind {
                    RemoteErrorKind::AccessDenied => ZARR_ERROR_ACCESS_DENIED,
                    RemoteErrorKind::Timeout => ZARR_ERROR_TIMEOUT,
                    RemoteErrorKind::Network => ZARR_ERROR_NETWORK,
                    RemoteErrorKind::Service => ZARR_ERROR_REMOTE,
                },
            },
            Error::Codec(e) => match e {
                CodecError::Unsupported(_) => ZARR_ERROR_UNSUPPORTED,
                CodecError::InvalidConfiguration { .. } | CodecError::InvalidChain(_) => {
                    ZARR_ERROR_INVALID_METADATA
                }
                CodecError::Corrupt { .. } => ZARR_ERROR_CORRUPT_DATA,
                CodecError::EncodeFailed { .. } => ZARR_ERROR_INVALID_ARGUMENT,
                CodecError::OutOfMemory(_) => ZARR_ERROR_OUT_OF_MEMORY,
            },
            Error::Metadata { source, .. } => match source {
                MetadataError::Json(_) | MetadataError::Invalid(_) => ZARR_ERROR_INVALID_METADATA,
                MetadataError::Unsupported(_) => ZARR_ERROR_UNSUPPORTED,
            },
            Error::NodePath(_) => ZARR_ERROR_INVALID_PATH,
            Error::NotFound(_) => ZARR_ERROR_NOT_FOUND,
            Error::AlreadyExists(_) => ZARR_ERROR_ALREADY_EXISTS,
            Error::NodeTypeMismatch { .. } => ZARR_ERROR_NODE_TYPE_MISMATCH,
            Error::InvalidArgument(_) => ZARR_ERROR_INVALID_ARGUMENT,
            Error::OutOfBounds(_) => ZARR_ERROR_OUT_OF_BOUNDS,
            Error::BufferTooSmall { .. } => ZARR_ERROR_BUFFER_TOO_SMALL,
            Error::BufferSizeMismatch { .. } => ZARR_ERROR_BUFFER_SIZE_MISMATCH,
            Error::OutOfMemory(_) => ZARR_ERROR_OUT_OF_MEMORY,
            Error::Threads(_) => ZARR_ERROR_OUT_OF_MEMORY,
        },
    }
}

/// "<message>: <cause>: <cause>..." for an error and its source chain.
pub(crate) fn describe(error: &FfiError) -> String {
    match error {
        FfiError::Null(parameter) => format!("argument '{parameter}' is NULL"),
        FfiError::InvalidArgument(message) | FfiError::NotFound(message) => message.clone(),
        FfiError::Core(error) => {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                let cause_text = cause.to_string();
                // `#[error(transparent)]` and messages that embed their source repeat it.
                if !text.contains(&cause_text) {
                    let _ = write!(text, ": {cause_text}");
                }
                source = cause.source();
            }
            text
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Record the calling thread's last error message.
pub(crate) fn set_last_error(message: String) {
    // Interior NULs would truncate the C string; replace them.
    let bytes: Vec<u8> = message
        .into_bytes()
        .into_iter()
        .map(|b| if b == 0 { b'?' } else { b })
        .collect();
    let message = CString::new(bytes).unwrap_or_default();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = message);
}

/// The message of the most recent failure on the calling thread.
///
/// Returns a NUL-terminated UTF-8 string owned by the library, never NULL: the empty string
/// when no call on this thread has failed yet. The text names the failing function and
/// the chain of causes. Successful calls leave it unchanged. The pointer stays valid until
/// the next failing libzarr call on the same thread; copy the text to keep it longer.
/// Thread safety: each thread has its own message.
#[no_mangle]
pub extern "C" fn zarr_last_error_message() -> *const c_char {
    LAST_ERROR.with(|slot| slot.borrow().as_ptr())
}

/// Fixed English text describing a status code.
///
/// Accepts any integer: unknown values give "unknown status". Never NULL; the string is
/// static and must not be freed. Thread safety: may be called from any thread.
#[no_mangle]
pub extern "C" fn zarr_status_str(status: i32) -> *const c_char {
    status_text(status).as_ptr()
}
