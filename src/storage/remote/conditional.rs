//! The protected update every object store runs (S3, GCS, Azure): read the value with its
//! version, merge, write back only if the value is still that version, and when another
//! writer came first, wait a random while and start over.
//!
//! The stores differ in what a version is (an ETag, a generation), how a write states the
//! condition (`If-Match`, `ifGenerationMatch`) and which answers mean "another writer came
//! first"; the loop, its backoff and its limit are the same, and live here.

use crate::storage::{
    update_unprotected, validate_key, Merge, MergeFailed, StorageError, UpdateError,
    UpdateProtection, WritableStorage,
};
use std::time::Duration;

/// How many times an update of part of a chunk reads, merges and writes conditionally
/// before it gives up with [`StorageError::Conflict`] (each time another writer changed
/// the value in between), unless the option `update_attempts` says otherwise. Writers
/// back off at random between attempts, so even many writers of one value get through
/// well within this budget.
pub const DEFAULT_UPDATE_ATTEMPTS: u32 = 50;
/// The first wait after a conflict; it doubles with each conflict, up to
/// [`MAX_CONFLICT_BACKOFF`], and a random part of it is waited ("full jitter").
const CONFLICT_BACKOFF: Duration = Duration::from_millis(10);
const MAX_CONFLICT_BACKOFF: Duration = Duration::from_secs(1);

/// A value and the version it was read at.
pub(crate) type VersionedValue<V> = (Vec<u8>, V);

/// How one store reads, writes and recognises a lost race, for [`update_conditionally`].
pub(crate) trait ConditionalStore {
    /// What identifies the value read (an ETag, a generation).
    type Version;

    /// The value at `key` and its version, or `None` when it is absent.
    fn read_versioned(
        &self,
        key: &str,
    ) -> Result<Option<VersionedValue<Self::Version>>, StorageError>;

    /// Store `value` at `key` (`None`: erase it), only if the value there is still the
    /// one at `version` (`None`: there is still no value).
    fn write_if(
        &self,
        key: &str,
        value: Option<&[u8]>,
        version: Option<&Self::Version>,
    ) -> Result<(), StorageError>;

    /// Whether `error` says another writer came first (the condition failed).
    fn lost_race(&self, error: &StorageError) -> bool;

    /// The key as a conflict's message names it ("s3://bucket/key", a URL).
    fn conflict_key(&self, key: &str) -> String;

    /// Tries of one update (the option `update_attempts`); `None`: the option
    /// `conditional_writes` is false, and updates go unprotected.
    fn update_attempts(&self) -> Option<u32>;

    /// Whether the store refuses writes (the option `read_only`).
    fn is_read_only(&self) -> bool;
}

/// [`WritableStorage::update`] of an object store: refused when read-only, conditional
/// ([`update_conditionally`]) unless conditional writes are off.
pub(crate) fn update<S: ConditionalStore + WritableStorage>(
    store: &S,
    key: &str,
    merge: &mut Merge<'_>,
) -> Result<(), UpdateError> {
    if store.is_read_only() {
        return Err(StorageError::ReadOnly.into());
    }
    validate_key(key)?;
    match store.update_attempts() {
        Some(attempts) => update_conditionally(store, key, attempts, merge),
        None => update_unprotected(store, key, merge),
    }
}

/// [`WritableStorage::update_protection`] of an object store.
pub(crate) fn protection<S: ConditionalStore>(store: &S) -> UpdateProtection {
    if store.update_attempts().is_some() && !store.is_read_only() {
        UpdateProtection::ConditionalWrites
    } else {
        UpdateProtection::None
    }
}

/// Replace the value at `key` of `store` with what `merge` makes of it, at most
/// `attempts` times, so that no other writer's update is lost: an update whose write
/// finds the value changed reads and merges again, after a random wait that doubles with
/// each conflict (up to 1 s). After `attempts` lost races: [`StorageError::Conflict`].
pub(crate) fn update_conditionally<S: ConditionalStore + ?Sized>(
    store: &S,
    key: &str,
    attempts: u32,
    merge: &mut Merge<'_>,
) -> Result<(), UpdateError> {
    let mut wait = CONFLICT_BACKOFF;
    for _ in 0..attempts {
        let (current, version) = match store.read_versioned(key)? {
            Some((value, version)) => (Some(value), Some(version)),
            None => (None, None),
        };
        let merged = merge(current).map_err(|MergeFailed| UpdateError::Merge)?;
        if merged.is_none() && version.is_none() {
            // Absent, and still to be absent: nothing to write.
            return Ok(());
        }
        match store.write_if(key, merged.as_deref(), version.as_ref()) {
            Ok(()) => return Ok(()),
            Err(e) if store.lost_race(&e) => {
                std::thread::sleep(wait.mul_f64(super::http::random_unit()));
                wait = (wait * 2).min(MAX_CONFLICT_BACKOFF);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(StorageError::Conflict {
        key: store.conflict_key(key),
        attempts,
    }
    .into())
}
