//! A store on the local file system: key `a/b/c` is the file `<root>/a/b/c`.
//!
//! Writes go to a temporary file in the destination directory that is then renamed over
//! the destination, so readers and crashes see either the old or the new value, never a
//! torn one. (Rename is atomic on POSIX file systems; the data is not fsync'ed, so after a
//! power loss a file system may still lose the newest writes, but never tear one.)

use super::{
    validate_key, validate_prefix, value_buffer, zeroed_value_buffer, Bounded, ByteRange,
    DirListing, ListableStorage, ReadableStorage, StorageError, WritableStorage,
};
use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Temporary files start with this prefix; listings skip them.
const TEMP_PREFIX: &str = ".libzarr-tmp-";

/// A store rooted at a directory. The directory is created on the first write.
#[derive(Debug)]
pub struct FilesystemStore {
    root: PathBuf,
    temp_counter: AtomicU64,
}

impl FilesystemStore {
    /// A store rooted at `root`. The directory need not exist yet; if something that is not
    /// a directory exists at `root`, this fails.
    pub fn new(root: impl AsRef<Path>) -> Result<FilesystemStore, StorageError> {
        let root = root.as_ref().to_path_buf();
        match fs::metadata(&root) {
            Ok(meta) if !meta.is_dir() => {
                return Err(StorageError::Io {
                    key: root.display().to_string(),
                    source: std::io::Error::new(
                        ErrorKind::InvalidInput,
                        "exists and is not a directory",
                    ),
                })
            }
            _ => {}
        }
        Ok(FilesystemStore {
            root,
            temp_counter: AtomicU64::new(0),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path_of(&self, key: &str) -> PathBuf {
        let mut path = self.root.clone();
        path.extend(key.split('/'));
        path
    }

    /// Open the file holding `key`'s value, with its size; `None` when there is none.
    fn open_value(&self, key: &str) -> Result<Option<(fs::File, u64)>, StorageError> {
        validate_key(key)?;
        let file = match fs::File::open(self.path_of(key)) {
            Ok(file) => file,
            Err(e) if means_absent(&e) => return Ok(None),
            Err(e) => return Err(Self::io_error(key, e)),
        };
        let meta = file.metadata().map_err(|e| Self::io_error(key, e))?;
        if meta.is_dir() {
            return Ok(None);
        }
        Ok(Some((file, meta.len())))
    }

    fn io_error(key: &str, source: std::io::Error) -> StorageError {
        StorageError::Io {
            key: key.to_string(),
            source,
        }
    }
}

/// Errors that mean "no value at this key" rather than a failure: the file or a directory
/// on its way is missing, or the key names a directory.
fn means_absent(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::NotFound | ErrorKind::IsADirectory | ErrorKind::NotADirectory
    )
}

impl ReadableStorage for FilesystemStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let Some((mut file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        let mut data = value_buffer(key, size)?;
        match file.read_to_end(&mut data) {
            Ok(_) => Ok(Some(data)),
            Err(e) if means_absent(&e) => Ok(None),
            Err(e) => Err(Self::io_error(key, e)),
        }
    }

    /// A file over the limit is not read; one that grows past it while being read is
    /// reported with the size read so far.
    fn get_at_most(&self, key: &str, limit: u64) -> Result<Option<Bounded>, StorageError> {
        let Some((file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        if size > limit {
            return Ok(Some(Bounded::TooLarge { size }));
        }
        let mut data = value_buffer(key, size)?;
        match file.take(limit.saturating_add(1)).read_to_end(&mut data) {
            Ok(_) => Ok(Some(Bounded::new(data, limit))),
            Err(e) if means_absent(&e) => Ok(None),
            Err(e) => Err(Self::io_error(key, e)),
        }
    }

    /// Positioned reads: only the requested bytes are read from the file.
    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        let Some((file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        let span = range.resolve_in(key, size)?;
        let mut data = zeroed_value_buffer(key, span.end - span.start)?;
        file.read_exact_at(&mut data, span.start)
            .map_err(|e| Self::io_error(key, e))?;
        Ok(Some(data))
    }

    /// One open, then one positioned read per range.
    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<(u64, Vec<u8>)>, StorageError> {
        let Some((file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        let mut spans = Vec::with_capacity(ranges.len());
        let mut total = 0u64;
        for &range in ranges {
            let span = range.resolve_in(key, size)?;
            total += span.end - span.start;
            spans.push(span);
        }
        let mut data = zeroed_value_buffer(key, total)?;
        let mut at = 0usize;
        for span in spans {
            let n = (span.end - span.start) as usize;
            file.read_exact_at(&mut data[at..at + n], span.start)
                .map_err(|e| Self::io_error(key, e))?;
            at += n;
        }
        Ok(Some((size, data)))
    }
}

impl WritableStorage for FilesystemStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        validate_key(key)?;
        let path = self.path_of(key);
        let dir = path.parent().unwrap_or(&self.root);
        fs::create_dir_all(dir).map_err(|e| Self::io_error(key, e))?;
        let temp = dir.join(format!(
            "{TEMP_PREFIX}{}-{}",
            std::process::id(),
            self.temp_counter.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)?;
            file.write_all(value)?;
            drop(file);
            fs::rename(&temp, &path)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&temp);
            return Err(Self::io_error(key, e));
        }
        Ok(())
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        match fs::remove_file(self.path_of(key)) {
            Ok(()) => Ok(()),
            Err(e) if means_absent(&e) => Ok(()),
            Err(e) => Err(Self::io_error(key, e)),
        }
    }
}

impl ListableStorage for FilesystemStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let dir = if prefix.is_empty() {
            self.root.clone()
        } else {
            self.path_of(prefix.trim_end_matches('/'))
        };
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if means_absent(&e) => return Ok(DirListing::default()),
            Err(e) => return Err(Self::io_error(prefix, e)),
        };
        let mut listing = DirListing::default();
        for entry in entries {
            let entry = entry.map_err(|e| Self::io_error(prefix, e))?;
            // Names that are not UTF-8 cannot be Zarr keys; skip them.
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with(TEMP_PREFIX) {
                continue;
            }
            let is_dir = fs::metadata(entry.path())
                .map(|m| m.is_dir())
                .unwrap_or(false);
            if is_dir {
                listing.prefixes.push(name);
            } else {
                listing.keys.push(name);
            }
        }
        listing.keys.sort();
        listing.prefixes.sort();
        Ok(listing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_root(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("libzarr-fs-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn set_get_erase_list() {
        let root = temp_root("basic");
        let store = FilesystemStore::new(&root).unwrap();
        assert_eq!(store.get("a/b").unwrap(), None);
        assert_eq!(store.list_dir("").unwrap(), DirListing::default());
        store.set("a/b", b"one").unwrap();
        store.set("a/b", b"two").unwrap();
        store.set("a/d/e", b"x").unwrap();
        assert_eq!(store.get("a/b").unwrap().unwrap(), b"two");
        // A key that names a directory has no value.
        assert_eq!(store.get("a/d").unwrap(), None);
        let listing = store.list_dir("a/").unwrap();
        assert_eq!(listing.keys, vec!["b"]);
        assert_eq!(listing.prefixes, vec!["d"]);
        store.erase("a/b").unwrap();
        store.erase("a/b").unwrap();
        assert_eq!(store.get("a/b").unwrap(), None);
        assert!(store.set("../escape", b"x").is_err());
        assert!(!root.parent().unwrap().join("escape").exists());
        store.set("r", b"0123456789").unwrap();
        let part = store.get_range(
            "r",
            ByteRange::FromStart {
                offset: 3,
                length: 4,
            },
        );
        assert_eq!(part.unwrap().unwrap(), b"3456");
        let tail = store.get_range("r", ByteRange::Suffix { length: 2 });
        assert_eq!(tail.unwrap().unwrap(), b"89");
        assert!(store
            .get_range("r", ByteRange::Suffix { length: 11 })
            .is_err());
        assert_eq!(
            store
                .get_range("none", ByteRange::Suffix { length: 1 })
                .unwrap(),
            None
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn root_that_is_a_file_is_refused() {
        let root = temp_root("file");
        fs::write(&root, b"x").unwrap();
        assert!(FilesystemStore::new(&root).is_err());
        fs::remove_file(&root).unwrap();
    }
}
