//! An in-memory store, for tests and scratch data.

use super::{
    validate_key, validate_prefix, value_buffer, DirListing, ListableStorage, ReadableStorage,
    StorageError, WritableStorage,
};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// A store held in a sorted map behind a read-write lock.
#[derive(Debug, Default)]
pub struct MemoryStore {
    // Values are shared so that a `get` copies outside the lock.
    map: RwLock<BTreeMap<String, Arc<Vec<u8>>>>,
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Arc<Vec<u8>>>> {
        // A panic while holding the lock cannot leave the map half-updated (every update is
        // a single insert or remove), so a poisoned lock is safe to keep using.
        self.map.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, Arc<Vec<u8>>>> {
        self.map.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl ReadableStorage for MemoryStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        let value = self.read().get(key).cloned();
        Ok(value.map(|v| v.as_ref().clone()))
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        validate_key(key)?;
        Ok(self.read().get(key).map(|v| v.len() as u64))
    }

    fn location(&self) -> String {
        "the memory store".to_string()
    }
}

impl WritableStorage for MemoryStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        validate_key(key)?;
        let mut copy = value_buffer(key, value.len() as u64)?;
        copy.extend_from_slice(value);
        self.write().insert(key.to_string(), Arc::new(copy));
        Ok(())
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        self.write().remove(key);
        Ok(())
    }

    /// One pass over the sorted keys under the lock: readers see all of the prefix or
    /// none of it.
    fn erase_prefix(&self, prefix: &str) -> Result<(), StorageError> {
        validate_prefix(prefix)?;
        let mut map = self.write();
        let doomed: Vec<String> = map
            .range(prefix.to_string()..)
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(prefix))
            .cloned()
            .collect();
        for key in doomed {
            map.remove(&key);
        }
        Ok(())
    }

    fn erase_prefix_is_atomic(&self) -> bool {
        true
    }
}

impl ListableStorage for MemoryStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let map = self.read();
        Ok(DirListing::from_sorted_keys(
            prefix,
            map.range(prefix.to_string()..).map(|(k, _)| k),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_erase_list() {
        let store = MemoryStore::new();
        for key in ["a/b", "a/c", "a/d/e", "a/f/g", "b"] {
            store.set(key, key.as_bytes()).unwrap();
        }
        assert_eq!(store.get("a/b").unwrap().unwrap(), b"a/b");
        assert_eq!(store.get("a/x").unwrap(), None);
        let listing = store.list_dir("a/").unwrap();
        assert_eq!(listing.keys, vec!["b", "c"]);
        assert_eq!(listing.prefixes, vec!["d", "f"]);
        let root = store.list_dir("").unwrap();
        assert_eq!(root.keys, vec!["b"]);
        assert_eq!(root.prefixes, vec!["a"]);
        store.erase("a/b").unwrap();
        store.erase("a/b").unwrap();
        assert_eq!(store.get("a/b").unwrap(), None);
        assert!(store.get("../etc/passwd").is_err());
    }

    #[test]
    fn value_size_and_erase_prefix() {
        let store = MemoryStore::new();
        for key in ["a/b", "a/c/d", "ab", "b"] {
            store.set(key, key.as_bytes()).unwrap();
        }
        assert_eq!(store.value_size("a/c/d").unwrap(), Some(5));
        assert_eq!(store.value_size("a/x").unwrap(), None);
        store.erase_prefix("a/").unwrap();
        assert_eq!(store.get("a/b").unwrap(), None);
        assert_eq!(store.get("a/c/d").unwrap(), None);
        // "ab" shares the characters but is not under "a/".
        assert_eq!(store.get("ab").unwrap().unwrap(), b"ab");
        store.erase_prefix("nothing/").unwrap();
        assert!(store.erase_prefix("a").is_err());
        assert!(store.erase_prefix("../").is_err());
        store.erase_prefix("").unwrap();
        assert_eq!(store.list_dir("").unwrap(), DirListing::default());
    }
}
