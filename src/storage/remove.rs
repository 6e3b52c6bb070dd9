//! Removing a whole prefix of a file system store (`WritableStorage::erase_prefix`)
//! without ever removing anything outside the store's root.
//!
//! The prefix `a/b/` is the directory `<root>/a/b`. Each directory on the way from the root
//! is checked with `symlink_metadata` (which does not follow links): a symbolic link on the
//! way could lead outside the root, so the removal is refused. When the prefix's directory
//! is itself a symbolic link, only the link is removed (what it points to is outside the
//! store's own tree). Otherwise the directory is first renamed to a hidden temporary name
//! beside it (one atomic step: readers see the whole prefix or none of it; listings skip
//! temporary names), then removed with `std::fs::remove_dir_all`, which does not follow
//! symbolic links inside it either (it removes the links themselves). Should that removal
//! stop midway, what is left lies under the hidden name, invisible to readers.
//!
//! A process that replaces a checked directory by a symbolic link between the check and the
//! removal could still redirect it; stores are not meant to be shared with hostile writers
//! (the same holds for every other file operation of the store).

use super::{validate_prefix, StorageError};
use std::fs;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes the temporary names of concurrent removals in one process.
static REMOVALS: AtomicU64 = AtomicU64::new(0);

fn io_error(key: &str, source: std::io::Error) -> StorageError {
    StorageError::Io {
        key: key.to_string(),
        source,
    }
}

fn absent(error: &std::io::Error) -> bool {
    matches!(error.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

/// Remove `path`, a directory (with everything in it), a file or a symbolic link; a missing
/// path is not an error.
fn remove_entry(path: &Path, key: &str) -> Result<(), StorageError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if absent(&e) => return Ok(()),
        Err(e) => return Err(io_error(key, e)),
    };
    let result = if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    match result {
        Ok(()) => Ok(()),
        Err(e) if absent(&e) => Ok(()),
        Err(e) => Err(io_error(key, e)),
    }
}

/// Remove every key under `prefix` (`""` or a valid key followed by `/`) of the file system
/// store rooted at `root`; `temp_prefix` starts the names that the store's listings skip.
/// `""` empties the root directory but keeps it.
pub(crate) fn remove_prefix(
    root: &Path,
    prefix: &str,
    temp_prefix: &str,
) -> Result<(), StorageError> {
    validate_prefix(prefix)?;
    if prefix.is_empty() {
        let entries = match fs::read_dir(root) {
            Ok(entries) => entries,
            Err(e) if absent(&e) => return Ok(()),
            Err(e) => return Err(io_error(prefix, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| io_error(prefix, e))?;
            remove_entry(&entry.path(), prefix)?;
        }
        return Ok(());
    }
    let segments: Vec<&str> = prefix.trim_end_matches('/').split('/').collect();
    let mut path = root.to_path_buf();
    for (i, segment) in segments.iter().enumerate() {
        path.push(segment);
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if absent(&e) => return Ok(()),
            Err(e) => return Err(io_error(prefix, e)),
        };
        let last = i + 1 == segments.len();
        if meta.file_type().is_symlink() && !last {
            return Err(StorageError::InvalidKey {
                key: prefix.to_string(),
                reason: "the prefix passes through a symbolic link, which could lead outside \
                         the store",
            });
        }
        if !meta.is_dir() && !meta.file_type().is_symlink() {
            // A file where a directory would be: nothing is stored under the prefix.
            return Ok(());
        }
    }
    let meta = fs::symlink_metadata(&path).map_err(|e| io_error(prefix, e))?;
    if meta.is_dir() {
        let hidden = path.with_file_name(format!(
            "{temp_prefix}{}-{}-deleted",
            std::process::id(),
            REMOVALS.fetch_add(1, Ordering::Relaxed)
        ));
        match fs::rename(&path, &hidden) {
            Ok(()) => return remove_entry(&hidden, prefix),
            Err(e) if absent(&e) => return Ok(()),
            // Renaming may be refused where removing is not: remove in place.
            Err(_) => {}
        }
    }
    remove_entry(&path, prefix)
}
