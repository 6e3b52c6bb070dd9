//! Stores: where keys (`a/b/zarr.json`, `a/b/c/0/1`) map to byte strings.
//!
//! A store is readable, writable and listable; every method takes `&self` and is safe to
//! call from several threads at once (the C API's thread contract rests on this).

pub mod filesystem;
pub mod memory;
pub mod zip;

pub use filesystem::FilesystemStore;
pub use memory::MemoryStore;
pub use zip::ZipStore;

use std::fmt::Debug;
use thiserror::Error;

/// Errors raised by stores.
#[derive(Debug, Error)]
pub enum StorageError {
    /// The operating system refused an operation on a key.
    #[error("I/O error on '{key}': {source}")]
    Io {
        key: String,
        #[source]
        source: std::io::Error,
    },
    /// A key that could escape the store or is otherwise malformed.
    #[error("invalid store key '{key}': {reason}")]
    InvalidKey { key: String, reason: &'static str },
    /// A byte range reaches past the end of the value (a truncated object).
    #[error("byte range {range:?} is outside '{key}' ({size} bytes)")]
    RangeOutOfBounds {
        key: String,
        range: ByteRange,
        size: u64,
    },
    /// The store cannot be written.
    #[error("the store is read-only")]
    ReadOnly,
    /// The value is too large to hold in memory.
    #[error("value of '{key}' ({size} bytes) cannot be allocated")]
    OutOfMemory { key: String, size: u64 },
    /// The store's container is malformed (a zip archive that is truncated, has hostile
    /// entry names, lies about sizes or fails its checksum); `key` names the archive or
    /// the entry.
    #[error("corrupt store data at '{key}': {reason}")]
    Corrupt { key: String, reason: String },
    /// The store's container uses a feature this library does not implement (an encrypted
    /// zip entry, a compression method other than stored or deflate).
    #[error("unsupported store feature at '{key}': {reason}")]
    Unsupported { key: String, reason: String },
}

/// A byte range within a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteRange {
    /// `length` bytes from `offset`.
    FromStart { offset: u64, length: u64 },
    /// The last `length` bytes.
    Suffix { length: u64 },
}

impl ByteRange {
    /// The range as `start..end` within a value of `size` bytes, or `None` when it does
    /// not fit inside the value.
    pub fn resolve(&self, size: u64) -> Option<std::ops::Range<u64>> {
        match *self {
            ByteRange::FromStart { offset, length } => {
                let end = offset.checked_add(length)?;
                (end <= size).then_some(offset..end)
            }
            ByteRange::Suffix { length } => (length <= size).then(|| size - length..size),
        }
    }

    /// [`ByteRange::resolve`] for the value at `key`, a range past its end being
    /// [`StorageError::RangeOutOfBounds`].
    pub fn resolve_in(&self, key: &str, size: u64) -> Result<std::ops::Range<u64>, StorageError> {
        self.resolve(size)
            .ok_or_else(|| StorageError::RangeOutOfBounds {
                key: key.to_string(),
                range: *self,
                size,
            })
    }
}

/// Read access to a store.
pub trait ReadableStorage: Debug + Send + Sync {
    /// The value at `key`, or `None` when the key does not exist.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError>;

    /// Part of the value at `key`: `Ok(None)` when the key does not exist, an error when
    /// the range does not fit inside the value. Stores that can read ranges directly
    /// (files, HTTP) override this; the default reads the whole value.
    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(value) = self.get(key)? else {
            return Ok(None);
        };
        let span = range.resolve_in(key, value.len() as u64)?;
        Ok(Some(value[span.start as usize..span.end as usize].to_vec()))
    }

    /// The value at `key` if it holds at most `limit` bytes, else [`Bounded::TooLarge`]
    /// with its size; `None` when the key does not exist. Stores that know a value's size
    /// before reading it (files, zip entries) override this so that a value over the limit
    /// is never read into memory; the default reads the whole value.
    fn get_at_most(&self, key: &str, limit: u64) -> Result<Option<Bounded>, StorageError> {
        Ok(self.get(key)?.map(|value| Bounded::new(value, limit)))
    }

    /// Read several byte ranges of one value, one after another into one buffer, and
    /// give the value's total size with them (so that a caller can check it); `None` when
    /// the key is absent. Stores that can read ranges in place open the value once.
    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<(u64, Vec<u8>)>, StorageError> {
        match self.get(key)? {
            Some(value) => ranges_of(key, &value, ranges).map(Some),
            None => Ok(None),
        }
    }
}

/// A value read with a size limit ([`ReadableStorage::get_at_most`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bounded {
    /// The whole value, at most the limit.
    Value(Vec<u8>),
    /// The value is larger than the limit: `size` bytes (it was not read).
    TooLarge { size: u64 },
}

impl Bounded {
    /// `value` itself, or [`Bounded::TooLarge`] when it holds more than `limit` bytes.
    pub fn new(value: Vec<u8>, limit: u64) -> Bounded {
        if value.len() as u64 > limit {
            Bounded::TooLarge {
                size: value.len() as u64,
            }
        } else {
            Bounded::Value(value)
        }
    }
}

/// Write access to a store. A `set` is atomic: readers see the old or the new value, never
/// a mixture, and a crash leaves one or the other.
/// The bytes of `ranges` of a value held in memory, one after another, with its size (the
/// default [`ReadableStorage::read_ranges`]).
pub fn ranges_of(
    key: &str,
    value: &[u8],
    ranges: &[ByteRange],
) -> Result<(u64, Vec<u8>), StorageError> {
    let size = value.len() as u64;
    let mut out = Vec::new();
    for &range in ranges {
        let span = range.resolve_in(key, size)?;
        out.extend_from_slice(&value[span.start as usize..span.end as usize]);
    }
    Ok((size, out))
}

pub trait WritableStorage: Debug + Send + Sync {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError>;
    /// Remove `key`; removing a missing key is not an error.
    fn erase(&self, key: &str) -> Result<(), StorageError>;
}

/// Listing of a store, one level at a time.
pub trait ListableStorage: Debug + Send + Sync {
    /// The keys and child prefixes directly under `prefix` (which is `""` or ends with `/`),
    /// as names relative to `prefix`, sorted. Child prefixes carry no trailing `/`.
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError>;
}

/// One level of a store listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DirListing {
    pub keys: Vec<String>,
    pub prefixes: Vec<String>,
}

impl DirListing {
    /// The level under `prefix` of a store whose keys come in sorted order, starting at
    /// the first key not below `prefix` (as a sorted map's `range(prefix..)` gives them).
    pub fn from_sorted_keys<'a>(prefix: &str, keys: impl Iterator<Item = &'a String>) -> Self {
        let mut listing = DirListing::default();
        let mut prefixes = std::collections::BTreeSet::new();
        for key in keys.take_while(|k| k.starts_with(prefix)) {
            let rest = &key[prefix.len()..];
            match rest.split_once('/') {
                Some((child, _)) => {
                    prefixes.insert(child.to_string());
                }
                None => listing.keys.push(rest.to_string()),
            }
        }
        listing.prefixes = prefixes.into_iter().collect();
        listing
    }
}

/// An empty buffer with room for the `size` bytes of the value at `key`: a size that
/// cannot be allocated is an error, not an abort.
pub(crate) fn value_buffer(key: &str, size: u64) -> Result<Vec<u8>, StorageError> {
    let mut data = Vec::new();
    usize::try_from(size)
        .ok()
        .and_then(|n| data.try_reserve_exact(n).ok())
        .ok_or_else(|| StorageError::OutOfMemory {
            key: key.to_string(),
            size,
        })?;
    Ok(data)
}

/// [`value_buffer`] filled with `size` zeros, to read into.
pub(crate) fn zeroed_value_buffer(key: &str, size: u64) -> Result<Vec<u8>, StorageError> {
    let mut data = value_buffer(key, size)?;
    data.resize(size as usize, 0); // fits: the reservation succeeded
    Ok(data)
}

/// A full store.
pub trait Storage: ReadableStorage + WritableStorage + ListableStorage {}
impl<T: ReadableStorage + WritableStorage + ListableStorage> Storage for T {}

/// Check that a key is relative, has no empty, `.` or `..` segment, and no character that
/// some file system would treat as a separator or terminator. The node layer validates
/// names before building keys; stores check again so that no key can escape the store root.
pub fn validate_key(key: &str) -> Result<(), StorageError> {
    let invalid = |reason| {
        Err(StorageError::InvalidKey {
            key: key.to_string(),
            reason,
        })
    };
    if key.is_empty() {
        return invalid("empty key");
    }
    if key.contains('\\') || key.contains('\0') {
        return invalid("backslash or NUL character");
    }
    for segment in key.split('/') {
        if segment.is_empty() {
            return invalid("empty path segment");
        }
        if segment == "." || segment == ".." {
            return invalid("'.' or '..' segment");
        }
    }
    Ok(())
}

/// Validate a listing prefix: `""` or a valid key followed by `/`.
pub fn validate_prefix(prefix: &str) -> Result<(), StorageError> {
    if prefix.is_empty() {
        return Ok(());
    }
    match prefix.strip_suffix('/') {
        Some(inner) => validate_key(inner),
        None => Err(StorageError::InvalidKey {
            key: prefix.to_string(),
            reason: "a listing prefix must end with '/'",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_validation() {
        for good in ["zarr.json", "a/b/c/0/1", "a/.hidden", "c"] {
            assert!(validate_key(good).is_ok(), "{good}");
        }
        for bad in [
            "", "/a", "a/", "a//b", "../x", "a/../b", ".", "a\\b", "a\0b",
        ] {
            assert!(validate_key(bad).is_err(), "{bad:?}");
        }
        assert!(validate_prefix("").is_ok());
        assert!(validate_prefix("a/b/").is_ok());
        assert!(validate_prefix("a/b").is_err());
        assert!(validate_prefix("../").is_err());
    }

    #[test]
    fn byte_ranges() {
        assert_eq!(
            ByteRange::FromStart {
                offset: 2,
                length: 3
            }
            .resolve(5),
            Some(2..5)
        );
        assert_eq!(
            ByteRange::FromStart {
                offset: 2,
                length: 4
            }
            .resolve(5),
            None
        );
        assert_eq!(
            ByteRange::FromStart {
                offset: u64::MAX,
                length: 2
            }
            .resolve(5),
            None
        );
        assert_eq!(ByteRange::Suffix { length: 5 }.resolve(5), Some(0..5));
        assert_eq!(ByteRange::Suffix { length: 6 }.resolve(5), None);
        let store = MemoryStore::new();
        store.set("k", b"hello").unwrap();
        let r = store
            .get_range("k", ByteRange::Suffix { length: 3 })
            .unwrap();
        assert_eq!(r.unwrap(), b"llo");
        assert!(store
            .get_range("k", ByteRange::Suffix { length: 9 })
            .is_err());
        assert_eq!(
            store
                .get_range("x", ByteRange::Suffix { length: 1 })
                .unwrap(),
            None
        );
    }
}
