//! A read-only view of any store: reads and listings go through, writes fail with
//! [`StorageError::ReadOnly`].

use super::{
    ByteRange, DirListing, ListableStorage, ReadableStorage, Storage, StorageError, WritableStorage,
};
use std::sync::Arc;

/// `inner`, read-only.
#[derive(Debug)]
pub struct ReadOnlyStore {
    inner: Arc<dyn Storage>,
}

impl ReadOnlyStore {
    pub fn new(inner: Arc<dyn Storage>) -> ReadOnlyStore {
        ReadOnlyStore { inner }
    }
}

impl ReadableStorage for ReadOnlyStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        self.inner.get(key)
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        self.inner.get_range(key, range)
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        self.inner.read_ranges(key, ranges)
    }

    fn max_concurrency(&self) -> Option<usize> {
        self.inner.max_concurrency()
    }

    fn location(&self) -> String {
        self.inner.location()
    }

    fn key_location(&self, key: &str) -> String {
        self.inner.key_location(key)
    }

    fn absence_reason(&self, key: &str) -> Option<String> {
        self.inner.absence_reason(key)
    }

    fn version_control(&self) -> Option<&dyn crate::storage::VersionControl> {
        self.inner.version_control()
    }
}

impl WritableStorage for ReadOnlyStore {
    fn set(&self, _key: &str, _value: &[u8]) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }

    fn erase(&self, _key: &str) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }
}

impl ListableStorage for ReadOnlyStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        self.inner.list_dir(prefix)
    }
}
