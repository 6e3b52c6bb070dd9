//! Errors at the boundary, their status codes, and the thread-local last-error message.

use super::status::*;
use crate::codec::CodecError;
use crate::error::Error;
use crate::metadata::MetadataError;
use crate::storage::{RemoteErrorKind, StorageError};
use crate::threads::ThreadPoolError;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};

/// A failure of an exported function.
#[derive(Debug)]
pub(crate) enum FfiError {
    /// A required pointer was NULL; the value names the parameter.
    Null(&'static str),
    /// An argument is invalid for reasons the core cannot see (bad UTF-8, absurd length).
    InvalidArgument(String),
    /// A file named by an argument does not exist (the message says which).
    NotFound(String),
    /// A value has another type than the one asked for (typed attribute getters).
    TypeMismatch(String),
    /// The core reported an error.
    Core(Error),
    /// A failure the caller reports itself, with its own status (`zarr_comm_agree`).
    Reported {
        status: zarr_status,
        message: String,
    },
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
        FfiError::TypeMismatch(_) => ZARR_ERROR_TYPE_MISMATCH,
        FfiError::Core(error) => core_status(error),
        FfiError::Reported { status, .. } if is_error_status(*status) => *status,
        FfiError::Reported { .. } => ZARR_ERROR_INTERNAL,
    }
}

/// The status code for an error of the core. Exhaustive, as `status_of`.
pub(crate) fn core_status(error: &Error) -> zarr_status {
    match error {
        Error::Storage(e) => storage_status(e),
        Error::Codec(e) => match e {
            CodecError::Unsupported(_) => ZARR_ERROR_UNSUPPORTED,
            CodecError::InvalidConfiguration { .. } | CodecError::InvalidChain(_) => {
                ZARR_ERROR_INVALID_METADATA
            }
            CodecError::Corrupt { .. } => ZARR_ERROR_CORRUPT_DATA,
            CodecError::EncodeFailed { .. } => ZARR_ERROR_INVALID_ARGUMENT,
            CodecError::OutOfMemory(_) => ZARR_ERROR_OUT_OF_MEMORY,
            CodecError::Storage(e) => storage_status(e),
            CodecError::Internal { .. } => ZARR_ERROR_INTERNAL,
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
        Error::ValueCountMismatch { .. } => ZARR_ERROR_BUFFER_SIZE_MISMATCH,
        Error::TypeMismatch(_) => ZARR_ERROR_TYPE_MISMATCH,
        Error::OutOfMemory(_) => ZARR_ERROR_OUT_OF_MEMORY,
        Error::Unsupported(_) => ZARR_ERROR_UNSUPPORTED,
        Error::Threads(e) => match e {
            ThreadPoolError::TooMany { .. } => ZARR_ERROR_INVALID_ARGUMENT,
            ThreadPoolError::Start { .. } => ZARR_ERROR_RESOURCE,
        },
        Error::Internal(_) => ZARR_ERROR_INTERNAL,
        // Another rank's failure, with the status that rank returned (see
        // `ffi::comm`), so that every rank of a collective call returns the same.
        Error::OnRank { code, .. } if is_error_status(*code) => *code,
        Error::OnRank { .. } => ZARR_ERROR_INTERNAL,
        Error::Communication(_) => ZARR_ERROR_COMMUNICATION,
    }
}

fn storage_status(error: &StorageError) -> zarr_status {
    match error {
        StorageError::Io { source, .. } if is_out_of_descriptors(source) => ZARR_ERROR_RESOURCE,
        StorageError::Io { .. } => ZARR_ERROR_IO,
        StorageError::InvalidKey { .. } => ZARR_ERROR_INVALID_PATH,
        StorageError::RangeOutOfBounds { .. } => ZARR_ERROR_CORRUPT_DATA,
        StorageError::ReadOnly => ZARR_ERROR_READ_ONLY,
        StorageError::OutOfMemory { .. } => ZARR_ERROR_OUT_OF_MEMORY,
        StorageError::Corrupt { .. } => ZARR_ERROR_CORRUPT_DATA,
        StorageError::Unsupported { .. } => ZARR_ERROR_UNSUPPORTED,
        StorageError::SymbolicLink { .. } => ZARR_ERROR_INVALID_PATH,
        StorageError::NotRegularFile { .. } => ZARR_ERROR_IO,
        StorageError::Callback { status, .. } => callback_status(*status),
        StorageError::Conflict { .. } => ZARR_ERROR_CONFLICT,
        StorageError::CommitConflict { .. } => ZARR_ERROR_CONFLICT,
        StorageError::NothingToCommit { .. } => ZARR_ERROR_INVALID_ARGUMENT,
        StorageError::Repository { .. } => ZARR_ERROR_IO,
        StorageError::Remote(remote) => match remote.kind {
            RemoteErrorKind::AccessDenied => ZARR_ERROR_ACCESS_DENIED,
            RemoteErrorKind::Timeout => ZARR_ERROR_TIMEOUT,
            RemoteErrorKind::Network => ZARR_ERROR_NETWORK,
            RemoteErrorKind::Service => ZARR_ERROR_REMOTE,
            RemoteErrorKind::NotFound => ZARR_ERROR_NOT_FOUND,
        },
    }
}

/// Whether `code` is one of the error statuses this library returns.
fn is_error_status(code: i32) -> bool {
    code < 0 && status_text(code) != status_text(i32::MIN)
}

/// Whether an I/O error is the process or the system running out of file descriptors.
fn is_out_of_descriptors(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// The status reported for a failing store callback: the callback's own status when it is
/// one a store can mean, otherwise `ZARR_ERROR_IO`.
fn callback_status(status: zarr_status) -> zarr_status {
    match status {
        ZARR_ERROR_IO
        | ZARR_ERROR_READ_ONLY
        | ZARR_ERROR_OUT_OF_MEMORY
        | ZARR_ERROR_CORRUPT_DATA
        | ZARR_ERROR_UNSUPPORTED
        | ZARR_ERROR_INVALID_PATH => status,
        _ => ZARR_ERROR_IO,
    }
}

/// "<message>: <cause>: <cause>..." for an error and its source chain.
pub(crate) fn describe(error: &FfiError) -> String {
    match error {
        FfiError::Null(parameter) => format!("argument '{parameter}' is NULL"),
        FfiError::InvalidArgument(message)
        | FfiError::NotFound(message)
        | FfiError::TypeMismatch(message)
        | FfiError::Reported { message, .. } => message.clone(),
        FfiError::Core(error) => error.full_message(),
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// What `zarr_last_error_message()` gives on a thread whose message slot is gone: during
/// thread or process exit (an `atexit` handler, a `pthread_key_create` destructor), after
/// the thread's thread-local storage has been torn down.
pub(crate) const NO_MESSAGE_SLOT: &CStr = c"no error message: the calling thread is exiting and its libzarr error message slot has been destroyed (the status code is still valid)";

/// The calling thread's last error message (empty when there is none or the slot is gone).
pub(crate) fn last_error_text() -> String {
    LAST_ERROR
        .try_with(|slot| {
            slot.try_borrow()
                .map(|m| m.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// Record the calling thread's last error message. During thread or process exit, when
/// the slot is gone, the message is dropped (the status code still tells the failure).
pub(crate) fn set_last_error(message: String) {
    // Interior NULs would truncate the C string; replace them.
    let bytes: Vec<u8> = message
        .into_bytes()
        .into_iter()
        .map(|b| if b == 0 { b'?' } else { b })
        .collect();
    let message = CString::new(bytes).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = message;
        }
    });
}

/// The message of the most recent failure on the calling thread.
///
/// Returns a NUL-terminated UTF-8 string owned by the library, never NULL: the empty string
/// when no call on this thread has failed yet. The text names the failing function and
/// the chain of causes. Successful calls leave it unchanged. The pointer stays valid until
/// the next failing libzarr call on the same thread; copy the text to keep it longer.
///
/// During thread or process exit (from an `atexit` handler, or a `pthread_key_create`
/// destructor running after the thread's thread-local storage is gone), failing calls
/// still return their status but cannot keep a message: this function then returns the
/// fixed text "no error message: the calling thread is exiting and its libzarr error
/// message slot has been destroyed (the status code is still valid)", a static string.
///
/// Thread safety: each thread has its own message.
#[no_mangle]
pub extern "C" fn zarr_last_error_message() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| match slot.try_borrow() {
            Ok(message) => message.as_ptr(),
            Err(_) => NO_MESSAGE_SLOT.as_ptr(),
        })
        .unwrap_or(NO_MESSAGE_SLOT.as_ptr())
}

/// Fixed English text describing a status code.
///
/// Accepts any integer: unknown values give "unknown status". Never NULL; the string is
/// static and must not be freed. Thread safety: may be called from any thread.
#[no_mangle]
pub extern "C" fn zarr_status_str(status: i32) -> *const c_char {
    status_text(status).as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(error: Error) -> zarr_status {
        status_of(&FfiError::Core(error))
    }

    #[test]
    fn resource_and_internal_statuses() {
        let start = ThreadPoolError::Start {
            threads: 8,
            message: "Resource temporarily unavailable".into(),
        };
        assert_eq!(status(Error::Threads(start)), ZARR_ERROR_RESOURCE);
        let too_many = ThreadPoolError::TooMany {
            requested: 5000,
            max: 1024,
        };
        assert_eq!(
            status(Error::Threads(too_many)),
            ZARR_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            status(Error::Internal("an invariant".into())),
            ZARR_ERROR_INTERNAL
        );
        let io = |errno| {
            Error::Storage(StorageError::Io {
                key: "k".into(),
                source: std::io::Error::from_raw_os_error(errno),
            })
        };
        assert_eq!(status(io(libc::EMFILE)), ZARR_ERROR_RESOURCE);
        assert_eq!(status(io(libc::ENFILE)), ZARR_ERROR_RESOURCE);
        assert_eq!(status(io(libc::EIO)), ZARR_ERROR_IO);
        let link = StorageError::SymbolicLink {
            key: "a/c/0".into(),
            link: "a/c".into(),
        };
        assert_eq!(status(Error::Storage(link)), ZARR_ERROR_INVALID_PATH);
        let fifo = StorageError::NotRegularFile {
            key: "a/c/0".into(),
            kind: "FIFO (named pipe)",
        };
        assert_eq!(status(Error::Storage(fifo)), ZARR_ERROR_IO);
    }

    /// Outside thread exit the slot works as usual (the exit paths are tested from C, in
    /// an atexit handler and a pthread key destructor).
    #[test]
    fn message_slot() {
        set_last_error("first\0second".into());
        // SAFETY: the pointer is a valid NUL-terminated string.
        let text = unsafe { CStr::from_ptr(zarr_last_error_message()) };
        assert_eq!(text.to_str().unwrap(), "first?second");
        assert!(NO_MESSAGE_SLOT.to_str().unwrap().contains("exiting"));
    }
}
