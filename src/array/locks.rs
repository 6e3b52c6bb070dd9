//! Updates of one chunk: none lost, within the process or across processes.
//!
//! Writing part of a chunk (or of a shard) reads what is stored, merges the new elements in
//! and stores the result. Two such updates of the same chunk at once, from threads or
//! processes writing disjoint regions that happen to share the chunk, would each store
//! their own merge and lose the other's elements. So every partial update goes through
//! [`update_chunk`]:
//! - within the process, it holds a lock for its chunk from the read to the store. The
//!   locks are striped: a fixed table, a chunk's stripe chosen by hashing its store and key,
//!   so no state grows with the number of chunks; two chunks sharing a stripe only wait for
//!   each other;
//! - across processes, the store protects the update its own way
//!   (`WritableStorage::update`): the file system store locks the key, the S3 store writes
//!   conditionally and merges again when another writer came first.
//!
//! A thread holding a stripe must not wait for another stripe, nor run work of the worker
//! pool that could (rayon lets a waiting thread run queued tasks): partial updates encode
//! serially.

use crate::error::Error;
use crate::storage::Storage;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, MutexGuard};

const STRIPES: usize = 512;

static LOCKS: [Mutex<()>; STRIPES] = [const { Mutex::new(()) }; STRIPES];

/// Replace the chunk (or shard) at `key` of `storage` (named `scope`, see
/// `WritableStorage::lock_scope`) with what `merge` makes of its stored value (`None`:
/// absent), or erase it when `merge` gives `None`. `merge` runs serially (see above) and
/// may run more than once, each time on the value then stored.
pub(super) fn update_chunk(
    storage: &dyn Storage,
    scope: &str,
    key: &str,
    merge: impl FnMut(Option<Vec<u8>>) -> Result<Option<Vec<u8>>, Error>,
) -> Result<(), Error> {
    let _guard = lock_chunk(scope, key);
    crate::storage::update_value(storage, key, merge)
}

/// Store an encoded chunk whole (a write that covers it needs no update), or erase it when
/// it is all fill value (`None`).
pub(super) fn store_chunk(
    storage: &dyn Storage,
    key: &str,
    encoded: Option<Vec<u8>>,
) -> Result<(), Error> {
    match encoded {
        Some(bytes) => storage.set(key, &bytes)?,
        None => storage.erase(key)?,
    }
    Ok(())
}

/// Hold the lock of the chunk `key` of the store named `scope` (see
/// `WritableStorage::lock_scope`) until the guard is dropped.
fn lock_chunk(scope: &str, key: &str) -> MutexGuard<'static, ()> {
    let mut hasher = DefaultHasher::new();
    scope.hash(&mut hasher);
    key.hash(&mut hasher);
    let stripe = (hasher.finish() % STRIPES as u64) as usize;
    // The lock guards no data, only exclusion: a panic while it was held leaves nothing
    // inconsistent, so a poisoned lock is simply taken.
    LOCKS[stripe].lock().unwrap_or_else(|e| e.into_inner())
}
