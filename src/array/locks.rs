//! Serialising updates of one chunk within the process.
//!
//! Writing part of a chunk (or of a shard) reads what is stored, merges the new elements in
//! and stores the result. Two such updates of the same chunk at once, from threads writing
//! disjoint regions that happen to share the chunk, would each store their own merge and
//! lose the other's elements. So every partial update holds a lock for its chunk from the
//! read to the store. The locks are striped: a fixed table, a chunk's stripe chosen by
//! hashing its store and key, so no state grows with the number of chunks; two chunks
//! sharing a stripe only wait for each other.
//!
//! A thread holding a stripe must not wait for another stripe, nor run work of the worker
//! pool that could (rayon lets a waiting thread run queued tasks): partial updates encode
//! serially.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, MutexGuard};

const STRIPES: usize = 512;

static LOCKS: [Mutex<()>; STRIPES] = [const { Mutex::new(()) }; STRIPES];

/// Hold the lock of the chunk `key` of the store named `scope` (see
/// `WritableStorage::lock_scope`) until the guard is dropped.
pub(super) fn lock_chunk(scope: &str, key: &str) -> MutexGuard<'static, ()> {
    let mut hasher = DefaultHasher::new();
    scope.hash(&mut hasher);
    key.hash(&mut hasher);
    let stripe = (hasher.finish() % STRIPES as u64) as usize;
    // The lock guards no data, only exclusion: a panic while it was held leaves nothing
    // inconsistent, so a poisoned lock is simply taken.
    LOCKS[stripe].lock().unwrap_or_else(|e| e.into_inner())
}
