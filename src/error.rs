//! The error type of the public Rust API (arrays and groups), wrapping each layer's errors.

use crate::codec::CodecError;
use crate::metadata::MetadataError;
use crate::node_path::NodePathError;
use crate::storage::StorageError;
use thiserror::Error;

/// Any failure of an array or group operation.
#[derive(Debug, Error)]
pub enum Error {
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Codec(#[from] CodecError),
    #[error("invalid metadata at '{key}': {source}")]
    Metadata {
        key: String,
        #[source]
        source: MetadataError,
    },
    #[error(transparent)]
    NodePath(#[from] NodePathError),
    /// Nothing at a path or key: the whole message, which names the node or key, the store
    /// and what the store knows of the absence (see `node::missing_node_error`).
    #[error("{0}")]
    NotFound(String),
    /// A node already exists where one was to be created.
    #[error("a node already exists at '{0}'")]
    AlreadyExists(String),
    /// The node at the path is of the other kind.
    #[error(
        "the node at '{path}' is {}, not {}",
        with_article(found),
        with_article(expected)
    )]
    NodeTypeMismatch {
        path: String,
        expected: &'static str,
        found: &'static str,
    },
    /// A caller argument is invalid (wrong rank, ...).
    #[error("{0}")]
    InvalidArgument(String),
    /// A selection or chunk index outside the array.
    #[error("{0}")]
    OutOfBounds(String),
    /// The caller's output buffer is too small.
    #[error("buffer of {given} bytes is too small: {needed} bytes needed")]
    BufferTooSmall { needed: usize, given: usize },
    /// The caller's input buffer is not the size of the selection.
    #[error("buffer of {given} bytes does not match the selection's {expected} bytes")]
    BufferSizeMismatch { expected: usize, given: usize },
    /// The caller's buffer of typed values (`f64`, ...) does not hold as many values as
    /// the selection has elements.
    #[error("buffer of {given} values does not match the selection's {expected} elements")]
    ValueCountMismatch { expected: usize, given: usize },
    /// The array's elements are not of the kind asked for (reading complex numbers or
    /// strings as real numbers).
    #[error("{0}")]
    TypeMismatch(String),
    /// The worker pool could not be started.
    #[error(transparent)]
    Threads(#[from] crate::threads::ThreadPoolError),
    /// The operation does not apply to this array or is not implemented for it (reading
    /// variable-length elements as fixed-size ones, resizing a 2022 draft array...).
    #[error("{0}")]
    Unsupported(String),
    /// A size computed from the input does not fit in memory (or in usize).
    #[error("{0}")]
    OutOfMemory(String),
    /// An internal invariant was violated: a bug in libzarr, reported without a panic.
    #[error("internal error (a bug in libzarr, please report it): {0}")]
    Internal(String),
    /// Another rank of a collective call failed (or found the call's arguments wrong):
    /// which rank, the code the program gives that failure (see
    /// `collective::Collective::new`), and the failing rank's message. Every rank of the
    /// call reports the same failure.
    #[error("rank {rank}: {message}")]
    OnRank {
        rank: usize,
        code: i32,
        message: String,
    },
    /// The communicator of a collective call failed (an MPI error, a rank that left).
    #[error("{0}")]
    Communication(String),
}

impl From<crate::selection::SelectionError> for Error {
    fn from(error: crate::selection::SelectionError) -> Error {
        use crate::selection::SelectionError;
        match error {
            SelectionError::Rank(m) => Error::InvalidArgument(m),
            SelectionError::OutOfBounds(m) => Error::OutOfBounds(m),
            SelectionError::TooLarge(m) => Error::OutOfMemory(m),
        }
    }
}

impl Error {
    /// The message and the chain of its causes, on one line ("<message>: <cause>: ...",
    /// causes the message already quotes left out).
    pub fn full_message(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            let cause_text = cause.to_string();
            // `#[error(transparent)]` and messages that embed their source repeat it.
            if !text.contains(&cause_text) {
                text.push_str(": ");
                text.push_str(&cause_text);
            }
            source = cause.source();
        }
        text
    }

    /// A metadata error found in the document stored at (or destined for) `key`.
    pub fn metadata(key: impl Into<String>, source: MetadataError) -> Error {
        Error::Metadata {
            key: key.into(),
            source,
        }
    }
}

/// "an array", "a group": a node kind with its indefinite article, for messages.
fn with_article(kind: &str) -> String {
    let vowel = kind.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}
