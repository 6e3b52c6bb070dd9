//! The adapter from libzarr's store traits to an Icechunk session's zarr-key store.
//!
//! Every method blocks on the store's private runtime. Reads, writes and listings go to
//! the session the handle holds; a commit ([`super::versions`]) replaces it with a new
//! writable session on the new tip of the branch.
//!
//! Updates of part of a chunk: the default read-merge-write of
//! [`WritableStorage::update`] is enough. A session's writes are private to the handle
//! until it commits, so no other process can change a value between the read and the
//! write; threads of this process updating one chunk are serialised by the array
//! layer's chunk locks. What another writer did meanwhile surfaces at the commit, as a
//! conflict ([`crate::storage::StorageError::CommitConflict`]).

use super::open::{message, OpenedVersion};
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, RangesRead,
    ReadableStorage, StorageError, VersionControl, WritableStorage,
};
use bytes::Bytes;
use futures_util::TryStreamExt as _;
use icechunk::format::ByteRange as IcechunkRange;
use icechunk::session::{Session, SessionErrorKind};
use icechunk::store::{ListDirItem, StoreError, StoreErrorKind};
use icechunk::Repository;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

/// An open version of an Icechunk repository.
pub struct IcechunkStore {
    pub(super) runtime: tokio::runtime::Runtime,
    pub(super) repository: Repository,
    /// The session's zarr-key store; replaced by a commit (a new session on the new tip).
    pub(super) store: RwLock<icechunk::Store>,
    /// Serialises commits of this handle (a commit swaps the session).
    pub(super) commit_lock: Mutex<()>,
    pub(super) url: String,
    pub(super) version: OpenedVersion,
    /// Whether the objects are remote (a planner then keeps several reads in flight).
    remote: bool,
    /// The repository's directory when it is on local disk: commits lock a file in it
    /// (see `versions::CommitLock`).
    pub(super) local_root: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for IcechunkStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IcechunkStore")
            .field("url", &self.url)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// Requests a remote repository's reads keep in flight.
const REMOTE_CONCURRENCY: usize = 16;

impl IcechunkStore {
    pub(super) fn new(
        runtime: tokio::runtime::Runtime,
        repository: Repository,
        session: Session,
        url: String,
        version: OpenedVersion,
        local_root: Option<std::path::PathBuf>,
    ) -> IcechunkStore {
        let remote = local_root.is_none();
        reseed_ids_after_fork();
        let store = runtime.block_on(icechunk::Store::from_session(Arc::new(
            tokio::sync::RwLock::new(session),
        )));
        IcechunkStore {
            runtime,
            repository,
            store: RwLock::new(store),
            commit_lock: Mutex::new(()),
            url,
            version,
            remote,
            local_root,
        }
    }

    /// Run one of Icechunk's futures to completion on the store's runtime, from the
    /// calling thread (see [`reseed_ids_after_fork`]).
    pub(super) fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        reseed_ids_after_fork();
        self.runtime.block_on(future)
    }

    /// The session's store, held for the length of one operation: a commit waits for
    /// the operations in progress and swaps the session before the next ones, so that
    /// no write lands in a session that was already committed. Never taken twice by
    /// one thread (a commit queued between the two would deadlock it).
    pub(super) fn current(&self) -> RwLockReadGuard<'_, icechunk::Store> {
        self.store
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether this handle may write (a branch opened without `read_only`).
    pub(super) fn writable(&self) -> bool {
        let store = self.current();
        !self.block_on(store.read_only())
    }

    /// The size of the value at `key` in `store` (for the message of a short read).
    fn size_in(&self, store: &icechunk::Store, key: &str) -> u64 {
        self.block_on(store.getsize(key)).unwrap_or(0)
    }

    /// A failure of a read of `range` of `key`: a range past the end of the value is
    /// [`StorageError::RangeOutOfBounds`].
    fn range_failure(&self, key: &str, range: ByteRange, error: &StoreError) -> StorageError {
        match error.kind() {
            StoreErrorKind::SessionError(SessionErrorKind::InvalidByteRange {
                chunk_length,
                ..
            }) => StorageError::RangeOutOfBounds {
                key: key.to_string(),
                range,
                size: *chunk_length,
            },
            _ => self.failure("read", key, error),
        }
    }

    /// A failure of the repository, naming it.
    pub(super) fn failure(&self, operation: &str, key: &str, error: &StoreError) -> StorageError {
        if matches!(error.kind(), StoreErrorKind::ReadOnly)
            || matches!(
                error.kind(),
                StoreErrorKind::SessionError(SessionErrorKind::ReadOnlySession)
            )
        {
            return StorageError::ReadOnly;
        }
        let detail = message(error);
        if detail.contains("virtual chunk") {
            return StorageError::Repository {
                location: self.location(),
                message: format!(
                    "{operation} of '{key}': {detail} (the option 'virtual_chunk_prefixes' of \
                     zarr_store_open_url lists the URL prefixes whose virtual chunks may be \
                     read)"
                ),
            };
        }
        StorageError::Repository {
            location: self.location(),
            message: format!("{operation} of '{key}': {detail}"),
        }
    }
}

/// Whether an Icechunk error says the key has no value.
fn is_absent(error: &StoreError) -> bool {
    match error.kind() {
        StoreErrorKind::NotFound(_) => true,
        StoreErrorKind::SessionError(
            SessionErrorKind::NodeNotFound { .. }
            | SessionErrorKind::NotAnArray { .. }
            | SessionErrorKind::InvalidIndex { .. },
        ) => true,
        // Keys Icechunk cannot parse (not a metadata or chunk key of a known node) hold
        // nothing.
        StoreErrorKind::InvalidKey { .. } => true,
        _ => false,
    }
}

fn range_of(range: ByteRange) -> IcechunkRange {
    match range {
        ByteRange::FromStart { offset, length } => {
            IcechunkRange::Bounded(offset..offset.saturating_add(length))
        }
        ByteRange::Suffix { length } => IcechunkRange::Last(length),
    }
}

impl IcechunkStore {
    /// The bytes of `range` of `key`, checked to be the whole range.
    fn read_range(
        &self,
        store: &icechunk::Store,
        key: &str,
        range: ByteRange,
    ) -> Result<Option<Vec<u8>>, StorageError> {
        let expected = match range {
            ByteRange::FromStart { length, .. } | ByteRange::Suffix { length } => length,
        };
        match self.block_on(store.get(key, &range_of(range))) {
            Ok(bytes) if bytes.len() as u64 == expected => Ok(Some(bytes.to_vec())),
            Ok(_) => {
                let size = self.size_in(store, key);
                Err(StorageError::RangeOutOfBounds {
                    key: key.to_string(),
                    range,
                    size,
                })
            }
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(self.range_failure(key, range, &e)),
        }
    }
}

impl ReadableStorage for IcechunkStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        let store = self.current();
        match self.block_on(store.get(key, &IcechunkRange::ALL)) {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(self.failure("read", key, &e)),
        }
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        let store = self.current();
        self.read_range(&store, key, range)
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        validate_key(key)?;
        let store = self.current();
        // One request per range, all in flight at once (the store's partial-values call).
        let requests = ranges
            .iter()
            .map(|&range| (key.to_string(), range_of(range)));
        let results = self
            .block_on(store.get_partial_values(requests))
            .map_err(|e| self.failure("read", key, &e))?;
        let mut out = Vec::new();
        for (result, &range) in results.into_iter().zip(ranges) {
            let expected = match range {
                ByteRange::FromStart { length, .. } | ByteRange::Suffix { length } => length,
            };
            match result {
                Ok(bytes) if bytes.len() as u64 == expected => out.extend_from_slice(&bytes),
                Ok(_) => {
                    let size = self.size_in(&store, key);
                    return Err(StorageError::RangeOutOfBounds {
                        key: key.to_string(),
                        range,
                        size,
                    });
                }
                Err(e) if is_absent(&e) => return Ok(None),
                Err(e) => return Err(self.range_failure(key, range, &e)),
            }
        }
        Ok(Some((None, out)))
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        validate_key(key)?;
        let store = self.current();
        match self.block_on(store.getsize(key)) {
            Ok(size) => Ok(Some(size)),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(self.failure("size", key, &e)),
        }
    }

    fn max_concurrency(&self) -> Option<usize> {
        self.remote.then_some(REMOTE_CONCURRENCY)
    }

    fn location(&self) -> String {
        format!(
            "the Icechunk repository at {} ({})",
            self.url,
            self.version.describe()
        )
    }

    fn key_location(&self, key: &str) -> String {
        format!("'{key}' in {}", self.location())
    }

    fn version_control(&self) -> Option<&dyn VersionControl> {
        Some(self)
    }
}

impl WritableStorage for IcechunkStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        validate_key(key)?;
        let store = self.current();
        self.block_on(store.set(key, Bytes::copy_from_slice(value)))
            .map_err(|e| self.failure("write", key, &e))
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        let store = self.current();
        match self.block_on(store.delete(key)) {
            Ok(()) => Ok(()),
            Err(e) if is_absent(&e) => Ok(()),
            Err(e) => Err(self.failure("erase", key, &e)),
        }
    }

    fn erase_prefix(&self, prefix: &str) -> Result<(), StorageError> {
        validate_prefix(prefix)?;
        let store = self.current();
        match self.block_on(store.delete_dir(prefix)) {
            Ok(()) => Ok(()),
            Err(e) if is_absent(&e) => Ok(()),
            Err(e) => Err(self.failure("erase", prefix, &e)),
        }
    }

    /// Within the session the deletion is one change: readers of this handle see the
    /// prefix whole or gone, and other readers see nothing until the commit.
    fn erase_prefix_is_atomic(&self) -> bool {
        true
    }
}

impl ListableStorage for IcechunkStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let store = self.current();
        let items: Vec<ListDirItem> = self
            .block_on(async {
                let stream = store.list_dir_items(prefix).await?;
                stream.try_collect().await
            })
            .or_else(|e: StoreError| {
                if is_absent(&e) {
                    Ok(Vec::new())
                } else {
                    Err(e)
                }
            })
            .map_err(|e| self.failure("listing", prefix, &e))?;
        let mut listing = DirListing::default();
        for item in items {
            match item {
                ListDirItem::Key(key) => listing.keys.push(key),
                ListDirItem::Prefix(child) => listing.prefixes.push(child),
            }
        }
        listing.keys.sort();
        listing.keys.dedup();
        listing.prefixes.sort();
        listing.prefixes.dedup();
        Ok(listing)
    }
}

/// Reseed the calling thread's random generator the first time the thread runs in a new
/// process. Icechunk draws the ids of snapshots, manifests and chunks from rand's
/// thread-local generator, which a child process inherits unchanged from `fork`: without
/// this, the children of a process that wrote or committed would draw the same ids as
/// each other and as their parent (the second commit fails with "snapshot id is already
/// present", and two children's chunks could be written under one name). Every operation
/// of the store runs through here; the runtime's own threads are created by the process
/// that opened the store, so they seed themselves.
pub(super) fn reseed_ids_after_fork() {
    thread_local! {
        static SEEDED_IN_PROCESS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let process = std::process::id();
    SEEDED_IN_PROCESS.with(|seeded| {
        if seeded.get() != process {
            // Fails only when the operating system gives no random bytes, and then the
            // generator keeps its state: ids stay unique within one process.
            let _ = rand::rng().reseed();
            seeded.set(process);
        }
    });
}
