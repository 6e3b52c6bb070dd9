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

    /// The whole value when it is already in memory, so that a decoder can read it where
    /// it is instead of copying it out first (an inner chunk of a shard batch, a chunk an
    /// outer codec decompressed). `None`: read it with the methods above.
    fn in_memory(&self) -> Option<&[u8]> {
        None
    }

    /// How many bytes a reader should fetch in one range when it joins the ranges of
    /// neighbouring parts (a shard's inner chunks). The default suits local stores: small
    /// enough that the bytes are still in the CPU's cache when they are decoded (2 MiB
    /// batches read a sharded zstd array about 5% faster than 32 MiB ones, and hold less).
    fn batch_bytes(&self) -> u64 {
        LOCAL_BATCH_BYTES
    }
}

/// [`ByteSource::batch_bytes`] of local stores.
pub const LOCAL_BATCH_BYTES: u64 = 2 << 20;

/// [`ByteSource::batch_bytes`] of stores that wait on round trips (they say so with
/// `ReadableStorage::max_concurrency`): fewer, larger requests.
pub const REMOTE_BATCH_BYTES: u64 = 32 << 20;

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

    fn batch_bytes(&self) -> u64 {
        match self.store.max_concurrency() {
            Some(_) => REMOTE_BATCH_BYTES,
            None => LOCAL_BATCH_BYTES,
        }
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

    fn in_memory(&self) -> Option<&[u8]> {
        Some(self.bytes)
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

    fn batch_bytes(&self) -> u64 {
        self.parent.batch_bytes()
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

    /// The slice of a parent in memory; `None` also when the slice reaches past the parent
    /// (then the reads above report it).
    fn in_memory(&self) -> Option<&[u8]> {
        let start = usize::try_from(self.offset).ok()?;
        let end = start.checked_add(usize::try_from(self.length).ok()?)?;
        self.parent.in_memory()?.get(start..end)
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
        // Bytes in memory are lent where they are; a slice of them too, within bounds only.
        assert_eq!(memory.in_memory(), Some(&b"abc"[..]));
        assert_eq!(value.in_memory(), None);
        assert_eq!(slice.in_memory(), None);
        let inside = Slice {
            parent: &memory,
            offset: 1,
            length: 2,
        };
        assert_eq!(inside.in_memory(), Some(&b"bc"[..]));
        let past = Slice {
            parent: &memory,
            offset: 2,
            length: 2,
        };
        assert_eq!(past.in_memory(), None);
        let huge = Slice {
            parent: &memory,
            offset: u64::MAX,
            length: u64::MAX,
        };
        assert_eq!(huge.in_memory(), None);
    }
}
