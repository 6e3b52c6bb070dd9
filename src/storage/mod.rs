//! Stores: where keys (`a/b/zarr.json`, `a/b/c/0/1`) map to byte strings.
//!
//! A store is readable, writable and listable; every method takes `&self` and is safe to
//! call from several threads at once (the C API's thread contract rests on this).

pub mod filesystem;
pub mod icechunk;
pub mod memory;
pub mod readonly;
pub mod reference;
pub mod remote;
mod remove;
pub mod source;
pub mod zip;

pub use filesystem::{FilesystemOptions, FilesystemStore};
pub use memory::MemoryStore;
pub use readonly::ReadOnlyStore;
pub use remote::{HttpStore, RemoteError, RemoteErrorKind, S3Store};
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
    /// The key's path crosses a symbolic link, which the store does not follow (a file
    /// system store resolves keys beneath its root; `link` is the link's path below it).
    #[error(
        "'{key}' crosses the symbolic link '{link}': links below the store root are not followed"
    )]
    SymbolicLink { key: String, link: String },
    /// The entry at the key is not a regular file (a FIFO, socket or device), so it holds
    /// no value.
    #[error("'{key}' is a {kind}, not a regular file")]
    NotRegularFile { key: String, kind: &'static str },
    /// A store implemented by the library's user (the C API's callback stores) reported a
    /// failure. `status` is the status code its callback returned (a `zarr_status`), kept
    /// so that the caller of the failing operation sees the same code; `message` is the
    /// callback's own explanation.
    #[error("{operation} of '{key}' failed in the store's callback: {message}")]
    Callback {
        operation: &'static str,
        key: String,
        status: i32,
        message: String,
    },
    /// A request to a remote store (S3, HTTP) failed after its retries: access denied,
    /// a timeout, a network failure or an HTTP error status. The message names the URL
    /// and the HTTP status.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// An update of the value at `key` (read, merge, conditional write) found the value
    /// changed by another writer on each of its `attempts`: nothing was written.
    #[error(
        "'{key}' was changed by other writers during each of {attempts} attempts to update \
         it; nothing was written"
    )]
    Conflict { key: String, attempts: u32 },
    /// A commit of a versioned store lost a race: the branch moved since the handle's
    /// session began, so nothing was committed (the handle's writes are kept, uncommitted).
    #[error(
        "commit to {location} conflicts with a commit another writer made meanwhile \
         ({detail}); nothing was committed: reopen the store and write again"
    )]
    CommitConflict { location: String, detail: String },
    /// A commit found nothing written through the handle since its last commit.
    #[error("nothing to commit to {location}: nothing was written since the last commit")]
    NothingToCommit { location: String },
    /// A versioned repository (Icechunk) refused or failed an operation; the message
    /// names the repository and what its library said.
    #[error("{location}: {message}")]
    Repository { location: String, message: String },
}

/// Version control of a store that keeps versions (an Icechunk repository): what the
/// C API's `zarr_store_commit` and `zarr_store_versions_json` reach through
/// [`ReadableStorage::version_control`], so that no layer in between knows the store.
pub trait VersionControl {
    /// Commit what was written through this handle since its last commit; the new
    /// version's id. [`StorageError::CommitConflict`] when another writer committed
    /// first, [`StorageError::NothingToCommit`] when nothing was written,
    /// [`StorageError::ReadOnly`] for a handle on a fixed version.
    fn commit(&self, message: &str) -> Result<String, StorageError>;

    /// The repository's versions as a JSON object (its format, the version opened,
    /// branches, tags and the history of the opened version, newest first).
    fn versions_json(&self) -> Result<String, StorageError>;
}

/// What a read of several ranges of one value gives: their bytes one after another, and
/// the value's total size when the store learned it without another request.
pub type RangesRead = (Option<u64>, Vec<u8>);

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

    /// Read several byte ranges of one value, one after another into one buffer, with the
    /// value's total size when the store learns it without another request (a file's
    /// `fstat`, an HTTP `Content-Range`; a caller can then check it); `None` when the key is
    /// absent. Stores that can read ranges in place open the value once.
    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        match self.get(key)? {
            Some(value) => {
                ranges_of(key, &value, ranges).map(|(size, bytes)| Some((Some(size), bytes)))
            }
            None => Ok(None),
        }
    }

    /// The size in bytes of the value at `key`, or `None` when the key does not exist.
    /// Stores that know sizes without reading values (file metadata, an in-memory map, a
    /// zip directory) override this; the default reads the whole value.
    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        Ok(self.get(key)?.map(|value| value.len() as u64))
    }

    /// How many calls (`get`, `get_range`, `read_ranges`) are worth keeping in flight at
    /// once to read this store fast: `None` for local stores, where the CPU is the limit;
    /// remote stores, which wait on round trips rather than cores, say how many
    /// concurrent requests they are built for (their connection pool's size). An I/O
    /// planner may keep that many unit fetches going, independent of its thread count.
    fn max_concurrency(&self) -> Option<usize> {
        None
    }

    /// The store as messages name it, so that a user with several stores sees which one
    /// failed: "the directory '/data/x.zarr'", "s3://bucket/prefix at https://...",
    /// "http://host/x.zarr/". Every store of the library says where it is; the default is
    /// for stores that cannot.
    fn location(&self) -> String {
        "the store".to_string()
    }

    /// Where the value at `key` is, or would be, as messages name it: a file's path, an
    /// object's URL. The key itself by default.
    fn key_location(&self, key: &str) -> String {
        key.to_string()
    }

    /// What the store knows about why `key` is absent, beyond its absence, for messages:
    /// "the directory '/data/x.zarr' does not exist", "GET http://host/x/zarr.json
    /// answered HTTP 404". `None` when it has nothing to add. Only called on the way to
    /// an error, so it may look around (a stat, no request).
    fn absence_reason(&self, _key: &str) -> Option<String> {
        None
    }

    /// The store's version control, for stores that keep versions (Icechunk); `None`
    /// for every other store. Wrappers (read-only views) forward it.
    fn version_control(&self) -> Option<&dyn VersionControl> {
        None
    }
}

/// "no value at key '<key>' in <store> (<reason>)": the message for a key that is not in
/// `storage`, with what the store knows about its absence.
pub fn missing_key_message(storage: &dyn ReadableStorage, key: &str) -> String {
    let mut message = format!("no value at key '{key}' in {}", storage.location());
    if let Some(reason) = storage.absence_reason(key) {
        message.push_str(" (");
        message.push_str(&reason);
        message.push(')');
    }
    message
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

/// How a store keeps an update of one value (read it, merge new elements in, write the
/// result back: a write that covers part of a chunk or shard) from losing an update that
/// another writer made in between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateProtection {
    /// Nothing across processes: updates through any handles of one process are
    /// serialised (the array layer's chunk locks), but two processes updating one value
    /// at once may lose one of the updates.
    None,
    /// An exclusive lock on the key, held across processes (and machines, where the file
    /// system honours it) from the read to the write (the file system store).
    Locking,
    /// The write is conditional on the value being the one read (S3's `If-Match` and
    /// `If-None-Match`); when another writer came first, the update reads and merges again.
    ConditionalWrites,
}

/// An update's merge: given the current value (`None`: absent), the value to store
/// (`None`: erase the key). It may be called more than once (after a conflict), each time
/// with the value then current. It reports its own failure as [`MergeFailed`]; the caller
/// that made it knows why (see [`update_value`]).
pub type Merge<'a> = dyn FnMut(Option<Vec<u8>>) -> Result<Option<Vec<u8>>, MergeFailed> + 'a;

/// The merge of an update failed (a corrupt stored chunk, say); nothing was written.
#[derive(Debug)]
pub struct MergeFailed;

/// Why [`WritableStorage::update`] wrote nothing.
#[derive(Debug)]
pub enum UpdateError {
    /// The store failed (including [`StorageError::Conflict`]).
    Store(StorageError),
    /// The merge failed.
    Merge,
}

impl From<StorageError> for UpdateError {
    fn from(error: StorageError) -> UpdateError {
        UpdateError::Store(error)
    }
}

/// The default [`WritableStorage::update`]: read, merge, write, with no protection of
/// its own (for overrides that fall back to it).
pub fn update_unprotected<S: WritableStorage + ?Sized>(
    store: &S,
    key: &str,
    merge: &mut Merge<'_>,
) -> Result<(), UpdateError> {
    let current = store.get(key)?;
    match merge(current).map_err(|MergeFailed| UpdateError::Merge)? {
        Some(value) => store.set(key, &value)?,
        None => store.erase(key)?,
    }
    Ok(())
}

/// Update the value at `key` with `merge` through [`WritableStorage::update`], keeping the
/// merge's own error (`merge` may run more than once; see [`Merge`]).
pub fn update_value<E: From<StorageError>>(
    store: &dyn Storage,
    key: &str,
    mut merge: impl FnMut(Option<Vec<u8>>) -> Result<Option<Vec<u8>>, E>,
) -> Result<(), E> {
    let mut failure = None;
    let result = store.update(key, &mut |current| {
        merge(current).map_err(|error| {
            failure = Some(error);
            MergeFailed
        })
    });
    match result {
        Ok(()) => Ok(()),
        Err(UpdateError::Store(error)) => Err(error.into()),
        Err(UpdateError::Merge) => Err(failure.expect("a failed merge leaves its error")),
    }
}

/// Write access to a store. A `set` is atomic for readers: they see the old or the new
/// value, never a mixture. What a crash leaves depends on the store: the file system store
/// keeps the old or the new value when the process dies, and after a power loss only with
/// its `fsync` option (see [`filesystem`] for the exact guarantee).
///
/// A writable store is also readable (so that a value can be updated) and listable (so that
/// a whole prefix can be erased).
pub trait WritableStorage: ReadableStorage + ListableStorage + Debug + Send + Sync {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError>;
    /// Remove `key`; removing a missing key is not an error.
    fn erase(&self, key: &str) -> Result<(), StorageError>;

    /// Remove every key that starts with `prefix` (`""`, the whole store, or a valid key
    /// followed by `/`); a prefix with no keys under it is not an error. Not atomic: when
    /// it fails midway, some keys are gone and the others remain.
    ///
    /// The default lists the prefix level by level and erases each key. Stores that can do
    /// better (one directory removal, one range of a sorted map) override it; an override
    /// must never remove anything outside the store (the file system store does not follow
    /// symbolic links).
    fn erase_prefix(&self, prefix: &str) -> Result<(), StorageError> {
        erase_prefix_by_listing(self, prefix)
    }

    /// Whether [`WritableStorage::erase_prefix`] is atomic for readers: they see every key
    /// of the prefix or none, never a part (so that a node can be deleted in one step).
    /// The default's key-by-key erasing is not; the memory store (one lock) and the file
    /// system store (one rename) are.
    fn erase_prefix_is_atomic(&self) -> bool {
        false
    }

    /// A name that every handle of this store on the same data shares (a file system
    /// store's canonical root), so that writers in one process serialise their updates of
    /// a chunk whichever handle they use. `None`: each handle stands for itself.
    fn lock_scope(&self) -> Option<String> {
        None
    }

    /// Replace the value at `key` with what `merge` makes of it, so that no update another
    /// writer makes of the key meanwhile is lost, as far as [`Self::update_protection`]
    /// reaches. Readers see the old or the new value, never a mixture. The default reads,
    /// merges and writes with no protection of its own (callers in one process serialise
    /// their updates of a key with the array layer's chunk locks).
    fn update(&self, key: &str, merge: &mut Merge<'_>) -> Result<(), UpdateError> {
        update_unprotected(self, key, merge)
    }

    /// How [`Self::update`] protects an update from other processes.
    fn update_protection(&self) -> UpdateProtection {
        UpdateProtection::None
    }
}

/// The default [`WritableStorage::erase_prefix`]: list `prefix` level by level and erase
/// each key (for overrides that fall back to it).
pub fn erase_prefix_by_listing<S: WritableStorage + ?Sized>(
    store: &S,
    prefix: &str,
) -> Result<(), StorageError> {
    validate_prefix(prefix)?;
    let mut pending = vec![prefix.to_string()];
    while let Some(dir) = pending.pop() {
        let listing = store.list_dir(&dir)?;
        for key in &listing.keys {
            store.erase(&format!("{dir}{key}"))?;
        }
        for child in &listing.prefixes {
            pending.push(format!("{dir}{child}/"));
        }
    }
    Ok(())
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

/// An empty buffer with room for the `size` bytes of the value at `key` (one this thread
/// kept from an earlier chunk when it has one, see `crate::scratch`): a size that cannot be
/// allocated is an error, not an abort.
pub(crate) fn value_buffer(key: &str, size: u64) -> Result<Vec<u8>, StorageError> {
    usize::try_from(size)
        .ok()
        .and_then(crate::scratch::take)
        .ok_or_else(|| StorageError::OutOfMemory {
            key: key.to_string(),
            size,
        })
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

    /// A store with only the required methods, to test the trait's defaults.
    #[derive(Debug, Default)]
    struct Plain(MemoryStore);

    impl ReadableStorage for Plain {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
            self.0.get(key)
        }
    }
    impl WritableStorage for Plain {
        fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
            self.0.set(key, value)
        }
        fn erase(&self, key: &str) -> Result<(), StorageError> {
            self.0.erase(key)
        }
    }
    impl ListableStorage for Plain {
        fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
            self.0.list_dir(prefix)
        }
    }

    #[test]
    fn update_value_keeps_the_merge_error_and_writes_nothing_after_it() {
        let store = Plain::default();
        let storage: &dyn Storage = &store;
        assert_eq!(store.update_protection(), UpdateProtection::None);
        update_value::<StorageError>(storage, "k", |current| {
            assert_eq!(current, None);
            Ok(Some(b"1".to_vec()))
        })
        .unwrap();
        let failed = update_value(storage, "k", |_| {
            Err(StorageError::Corrupt {
                key: "k".into(),
                reason: "the merge's own error".into(),
            })
        });
        assert!(
            matches!(&failed, Err(StorageError::Corrupt { reason, .. }) if reason == "the merge's own error"),
            "{failed:?}"
        );
        assert_eq!(store.get("k").unwrap().unwrap(), b"1");
        update_value::<StorageError>(storage, "k", |_| Ok(None)).unwrap();
        assert_eq!(store.get("k").unwrap(), None);
    }

    #[test]
    fn default_erase_prefix_and_value_size() {
        let store = Plain::default();
        for key in [
            "a/zarr.json",
            "a/c/0/0",
            "a/c/0/1",
            "a/b/zarr.json",
            "ab/x",
            "z",
        ] {
            store.set(key, b"12345").unwrap();
        }
        assert_eq!(store.value_size("a/c/0/1").unwrap(), Some(5));
        assert_eq!(store.value_size("a/c/9").unwrap(), None);
        store.erase_prefix("a/").unwrap();
        assert_eq!(store.0.list_dir("").unwrap().prefixes, vec!["ab"]);
        assert_eq!(store.0.list_dir("").unwrap().keys, vec!["z"]);
        store.erase_prefix("missing/").unwrap();
        assert!(store.erase_prefix("ab").is_err());
        store.erase_prefix("").unwrap();
        assert_eq!(store.0.list_dir("").unwrap(), DirListing::default());
    }

    #[test]
    fn filesystem_erase_prefix_stays_inside_the_root() {
        use std::os::unix::fs::symlink;
        let base =
            std::env::temp_dir().join(format!("libzarr-erase-prefix-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("store");
        let outside = base.join("outside");
        std::fs::create_dir_all(outside.join("node")).unwrap();
        std::fs::write(outside.join("node/zarr.json"), b"{}").unwrap();
        std::fs::write(outside.join("file"), b"keep").unwrap();
        let store = FilesystemStore::new(&root).unwrap();
        for key in [
            "a/zarr.json",
            "a/c/0/0",
            "a/b/zarr.json",
            "ab/x",
            "d/zarr.json",
        ] {
            store.set(key, b"12345").unwrap();
        }
        assert_eq!(store.value_size("a/c/0/0").unwrap(), Some(5));
        assert_eq!(store.value_size("a/c").unwrap(), None);
        assert_eq!(store.value_size("a/none").unwrap(), None);
        // A link inside the store to a directory outside it, and one inside a node.
        symlink(outside.join("node"), root.join("link")).unwrap();
        symlink(&outside, root.join("d/escape")).unwrap();

        store.erase_prefix("a/").unwrap();
        assert!(!root.join("a").exists());
        assert!(store.erase_prefix_is_atomic());
        // The hidden name it was renamed to is gone too.
        let names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(
            names.iter().all(|n| !n.starts_with(".libzarr")),
            "{names:?}"
        );
        assert_eq!(store.get("ab/x").unwrap().unwrap(), b"12345");
        // Through the link: refused, nothing outside touched.
        assert!(matches!(
            store.erase_prefix("link/sub/"),
            Err(StorageError::InvalidKey { .. })
        ));
        // The link itself: removed, its target kept.
        store.erase_prefix("link/").unwrap();
        assert!(std::fs::symlink_metadata(root.join("link")).is_err());
        assert!(outside.join("node/zarr.json").exists());
        // A directory holding a link to the outside: the link goes, the target stays.
        store.erase_prefix("d/").unwrap();
        assert!(!root.join("d").exists());
        assert_eq!(std::fs::read(outside.join("file")).unwrap(), b"keep");
        // Missing prefixes and a file where a directory would be are no error.
        store.erase_prefix("missing/deeper/").unwrap();
        store.erase_prefix("ab/x/").unwrap();
        assert!(store.erase_prefix("../").is_err());
        // The whole store: emptied, the root kept.
        store.erase_prefix("").unwrap();
        assert!(root.is_dir());
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
        assert!(outside.join("node/zarr.json").exists());
        std::fs::remove_dir_all(&base).unwrap();
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
