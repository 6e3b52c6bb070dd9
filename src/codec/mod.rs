//! Codecs, organised as the specification's three kinds.
//!
//! * array -> array ([`array_to_array`]): reorder or transform elements (transpose; the
//!   numcodecs filters `numcodecs.delta`, `.fixedscaleoffset`, `.quantize`, `.bitround`,
//!   `.astype` and `.packbits`, which may change the data type).
//! * array -> bytes ([`array_to_bytes`]): serialise elements (bytes, sharding_indexed).
//! * bytes -> bytes ([`bytes_to_bytes`]): compress or checksum (gzip, zstd, blosc, crc32c, and
//!   the numcodecs compressors and checksums `numcodecs.zlib`, `.gzip`, `.bz2`, `.lzma`,
//!   `.lz4`, `.zstd`, `.blosc`, `.shuffle`, `.adler32`, `.crc32`, `.crc32c`, `.fletcher32`,
//!   `.jenkins_lookup3`; and `conditional`, which applies a list of them chunk by chunk).
//!
//! From the zarr-extensions registry also `reshape` (array -> array) and `n5_default`
//! (array -> bytes, N5 default-mode blocks).
//!
//! A `numcodecs.<id>` codec's configuration is the numcodecs configuration without `id`
//! (what zarr-python 3 writes, and what a Zarr v2 compressor or filter becomes); any other
//! `numcodecs.*` name is [`CodecError::Unsupported`].
//!
//! [`chain::CodecChain`] strings them together in the order the metadata lists them.

pub mod array_to_array;
pub mod array_to_bytes;
pub mod bytes_to_bytes;
pub mod chain;
pub(crate) mod configuration;
pub mod vlen;

use thiserror::Error;

/// Errors raised while building or running codecs.
#[derive(Debug, Error)]
pub enum CodecError {
    /// The codec's name is not one this library implements.
    #[error("unsupported codec '{0}'")]
    Unsupported(String),
    /// The codec's configuration is malformed or out of range.
    #[error("invalid configuration for codec '{codec}': {message}")]
    InvalidConfiguration { codec: String, message: String },
    /// The codec list does not have the shape the spec requires.
    #[error("invalid codec chain: {0}")]
    InvalidChain(String),
    /// Encoded data could not be decoded (truncated, corrupt, bad checksum, wrong size).
    #[error("corrupt data in codec '{codec}': {message}")]
    Corrupt { codec: String, message: String },
    /// Encoding failed (e.g. the compressor reported an error).
    #[error("codec '{codec}' failed to encode: {message}")]
    EncodeFailed { codec: String, message: String },
    /// An allocation sized by the data could not be satisfied.
    #[error("out of memory allocating {0} bytes")]
    OutOfMemory(usize),
    /// Reading the encoded bytes from their source failed.
    #[error(transparent)]
    Storage(#[from] crate::storage::StorageError),
    /// A broken internal invariant: a bug in this library, reported instead of a panic.
    #[error("internal error in codec '{codec}': {message}")]
    Internal { codec: String, message: String },
}

impl CodecError {
    pub(crate) fn corrupt(codec: &str, message: impl Into<String>) -> Self {
        CodecError::Corrupt {
            codec: codec.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn config(codec: &str, message: impl Into<String>) -> Self {
        CodecError::InvalidConfiguration {
            codec: codec.to_string(),
            message: message.into(),
        }
    }
}

/// Allocate an empty vector with room for `capacity` bytes, reporting failure instead of aborting.
pub(crate) fn try_vec_with_capacity(capacity: usize) -> Result<Vec<u8>, CodecError> {
    let mut v = Vec::new();
    v.try_reserve_exact(capacity)
        .map_err(|_| CodecError::OutOfMemory(capacity))?;
    Ok(v)
}

/// A copy of `bytes`, or an error when it cannot be allocated.
pub(crate) fn try_to_vec(bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    let mut v = try_vec_with_capacity(bytes.len())?;
    v.extend_from_slice(bytes);
    Ok(v)
}

/// What a bytes->bytes decoder may produce: exactly the given size (when the codecs before
/// it fix it) or at most it (a bound derived from the codecs' worst-case expansion, so that
/// a decompression bomb is refused rather than decoded until memory runs out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodedSize {
    Exact(usize),
    AtMost(usize),
}

impl DecodedSize {
    /// The exact size, when known.
    pub fn exact(self) -> Option<usize> {
        match self {
            DecodedSize::Exact(n) => Some(n),
            DecodedSize::AtMost(_) => None,
        }
    }

    /// The largest acceptable size.
    pub fn max(self) -> usize {
        match self {
            DecodedSize::Exact(n) | DecodedSize::AtMost(n) => n,
        }
    }

    /// Whether `len` bytes of output are acceptable.
    pub fn accepts(self, len: usize) -> bool {
        match self {
            DecodedSize::Exact(n) => len == n,
            DecodedSize::AtMost(n) => len <= n,
        }
    }

    /// The error for output of `len` bytes that is not acceptable.
    pub fn mismatch(self, codec: &str, len: usize) -> CodecError {
        match self {
            DecodedSize::Exact(n) => {
                CodecError::corrupt(codec, format!("decoded {len} bytes, expected {n}"))
            }
            DecodedSize::AtMost(n) => CodecError::corrupt(
                codec,
                format!("decoded more than the {n} bytes the codecs before it can produce"),
            ),
        }
    }
}

/// How many tasks a codec may run at once for the parts of one chunk (the inner chunks of a
/// shard). More than one only when the caller runs on the library's worker pool, whose
/// workers then share the parts; one means everything runs on the calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parallelism {
    pub tasks: usize,
}

impl Parallelism {
    /// Everything on the calling thread.
    pub const SERIAL: Parallelism = Parallelism { tasks: 1 };

    pub fn is_parallel(self) -> bool {
        self.tasks > 1
    }
}

/// What a codec chain encodes: a chunk of `shape` elements of `data_type`, in C order and
/// host byte order.
#[derive(Clone, Debug)]
pub struct ChunkRepresentation {
    pub shape: Vec<u64>,
    pub data_type: crate::data_type::DataType,
    pub fill_value: crate::data_type::FillValue,
}

impl ChunkRepresentation {
    /// Number of elements, or `None` if it overflows u64.
    pub fn num_elements(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |acc, &n| acc.checked_mul(n))
    }

    /// Size of the decoded chunk in bytes, or `None` if it does not fit in usize.
    pub fn size_bytes(&self) -> Option<usize> {
        self.num_elements()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(self.data_type.size()))
    }
}
