//! Byte sources: something a decoder can fetch byte ranges from. A value in a store (a file,
//! a zip entry, an object behind HTTP), bytes already in memory (a shard read in one go),
//! or a part of another source (an inner chunk inside a shard).
//!
//! Partial decoders read through this interface so that the same decoder serves every
//! store, and a sharded chunk's inner chunks are sources of their own.

use super::{ranges_of, ByteRange, RangesRead, ReadableStorage, StorageError};
use std::io::ErrorKind;

/// Something byte ranges can be read from; `None` from a read means the value does not
/// exist (a chunk never written).
pub trait ByteSource: Sync {
    /// The key or description used in messages.
    fn name(&self) -> &str;

    /// The whole value.
    fn read_all(&self) -> Result<Option<Vec<u8>>, StorageError>;

    /// Several ranges, one after another in one buffer, with the value's total size when
    /// the source knows it without another request (so that the caller can check it).
    fn read_ranges(&self, ranges: &[ByteRange]) -> Result<Option<RangesRead>, StorageError>;
}

/// The value at `key` of a store.
pub struct StoreValue<'a> {
    pub store: &'a dyn ReadableStorage,
    pub key: &'a str,
}

impl ByteSource for StoreValue<'_> {
    fn name(&self) -> &str {
        self.key
    }

    fn read_all(&self) -> Result<Option<Vec<u8>>, StorageError> {
        self.store.get(self.key)
    }

    fn read_ranges(&self, ranges: &[ByteRange]) -> Result<Option<RangesRead>, StorageError> {
        self.store.read_ranges(self.key, ranges)
    }
}

/// Bytes in memory.
pub struct InMemory<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

impl ByteSource for InMemory<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn read_all(&self) -> Result<Option<Vec<u8>>, StorageError> {
        let mut out = super::value_buffer(self.name, self.bytes.len() as u64)?;
        out.extend_from_slice(self.bytes);
        Ok(Some(out))
    }

    fn read_ranges(&self, ranges: &[ByteRange]) -> Result<Option<RangesRead>, StorageError> {
        ranges_of(self.name, self.bytes, ranges).map(|(size, bytes)| Some((Some(size), bytes)))
    }
}

/// `length` bytes at `offset` of another source, which must exist: the parent was found
/// before this part of it was asked for, so its disappearance is an I/O error (the value was
/// deleted or replaced while being read), not an absent value.
pub struct Slice<'a> {
    pub parent: &'a dyn ByteSource,
    pub offset: u64,
    pub length: u64,
}

impl Slice<'_> {
    /// A range of the slice as a range of the parent, checked against the slice's length.
    fn in_parent(&self, range: ByteRange) -> Result<ByteRange, StorageError> {
        let span = range.resolve_in(self.parent.name(), self.length)?;
        Ok(ByteRange::FromStart {
            offset: self.offset + span.start,
            length: span.end - span.start,
        })
    }

    fn vanished(&self) -> StorageError {
        StorageError::Io {
            key: self.parent.name().to_string(),
            source: std::io::Error::new(
                ErrorKind::NotFound,
                "the value disappeared while it was being read",
            ),
        }
    }
}

impl ByteSource for Slice<'_> {
    fn name(&self) -> &str {
        self.parent.name()
    }

    fn read_all(&self) -> Result<Option<Vec<u8>>, StorageError> {
        let whole = ByteRange::FromStart {
            offset: 0,
            length: self.length,
        };
        self.read_ranges(&[whole])
            .map(|r| r.map(|(_, bytes)| bytes))
    }

    fn read_ranges(&self, ranges: &[ByteRange]) -> Result<Option<RangesRead>, StorageError> {
        let in_parent = ranges
            .iter()
            .map(|&r| self.in_parent(r))
            .collect::<Result<Vec<_>, _>>()?;
        match self.parent.read_ranges(&in_parent)? {
            Some((_, bytes)) => Ok(Some((Some(self.length), bytes))),
            None => Err(self.vanished()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{MemoryStore, WritableStorage};

    #[test]
    fn slices_read_within_their_parent() {
        let store = MemoryStore::new();
        store.set("k", b"0123456789").unwrap();
        let value = StoreValue {
            store: &store,
            key: "k",
        };
        let slice = Slice {
            parent: &value,
            offset: 2,
            length: 5,
        };
        assert_eq!(slice.read_all().unwrap().unwrap(), b"23456");
        let (size, bytes) = slice
            .read_ranges(&[
                ByteRange::Suffix { length: 2 },
                ByteRange::FromStart {
                    offset: 0,
                    length: 1,
                },
            ])
            .unwrap()
            .unwrap();
        assert_eq!((size, &bytes[..]), (Some(5), &b"562"[..]));
        // Past the slice's end, even though the parent has the bytes.
        assert!(matches!(
            slice.read_ranges(&[ByteRange::FromStart {
                offset: 4,
                length: 2
            }]),
            Err(StorageError::RangeOutOfBounds { .. })
        ));
        // The parent vanishing is an I/O error, not an absent value.
        let gone = StoreValue {
            store: &store,
            key: "gone",
        };
        let orphan = Slice {
            parent: &gone,
            offset: 0,
            length: 1,
        };
        assert!(matches!(orphan.read_all(), Err(StorageError::Io { .. })));
        let memory = InMemory {
            name: "m",
            bytes: b"abc",
        };
        assert_eq!(memory.read_all().unwrap().unwrap(), b"abc");
    }
}
