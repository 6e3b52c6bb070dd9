//! `zarr_store`: opening and freeing stores.

use super::args::{clear_out, handle, out_ptr, str_arg, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::zarr_store;
use super::status::zarr_status;
use crate::consolidated::ConsolidatedStore;
use crate::error::Error;
use crate::storage::{FilesystemStore, MemoryStore};
use std::ffi::c_char;
use std::sync::Arc;

/// Open a store on the local file system rooted at the directory `path`.
///
/// The directory need not exist: it is created by the first write. Every write goes to a
/// temporary file in the destination directory that is renamed into place, so a crash
/// never leaves a torn chunk or metadata file.
///
/// - `path`: NUL-terminated UTF-8 directory path (absolute or relative to the current
///   directory, which is resolved now).
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `path` or `out` is NULL;
/// `ZARR_ERROR_INVALID_ARGUMENT` if `path` is empty or not UTF-8; `ZARR_ERROR_IO` if
/// `path` exists and is not a directory.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_filesystem(
    path: *const c_char,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_filesystem", || {
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(out, "out")?;
        if path.is_empty() {
            return Err(FfiError::InvalidArgument("argument 'path' is empty".into()));
        }
        let root = std::path::absolute(path)
            .map_err(|e| FfiError::InvalidArgument(format!("cannot resolve path '{path}': {e}")))?;
        let storage = FilesystemStore::new(root).map_err(Error::from)?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(storage),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Open a new, empty in-memory store. Its contents live as long as the store handle or
/// any array or group opened from it.
///
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`, or `ZARR_ERROR_NULL_ARGUMENT` if `out` is NULL.
///
/// # Safety
/// `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_memory(out: *mut *mut zarr_store) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_memory", || {
        let out = out_ptr(out, "out")?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(MemoryStore::new()),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Open a view of `store` that reads node metadata from the consolidated metadata at the
/// store root: the root `zarr.json`'s inline `consolidated_metadata` (Zarr v3, as
/// zarr-python writes it) or `.zmetadata` (Zarr v2).
///
/// The consolidated metadata is read once, now; afterwards opening any array or group
/// through the view costs no store read for metadata (chunks are still read from
/// `store`). The snapshot is authoritative: a node it does not list is not found, even if
/// it was added to the store later. Writes through the view go to `store`; metadata
/// written through the view also updates the view's snapshot, but not the consolidated
/// document (call `zarr_group_consolidate` for that).
///
/// - `store`: the underlying store; the view keeps it alive.
/// - `out`: receives the view, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_NOT_FOUND` (no consolidated
/// metadata at the root); `ZARR_ERROR_INVALID_METADATA` (malformed consolidated
/// metadata); `ZARR_ERROR_UNSUPPORTED` (a `consolidated_metadata` kind other than
/// "inline"); `ZARR_ERROR_IO`.
///
/// # Safety
/// `store` is NULL or a live handle; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_consolidated(
    store: *const zarr_store,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_consolidated", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        let out = out_ptr(out, "out")?;
        let view = ConsolidatedStore::open(store.storage.clone())?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(view),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Free a store handle. Accepts NULL. Arrays and groups opened from the store keep it
/// alive, so they may be freed before or after it.
///
/// # Safety
/// `store` is NULL or a handle from a `zarr_store_open_*` function, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn zarr_store_free(store: *mut zarr_store) {
    if !store.is_null() {
        // SAFETY: the handle came from Box::into_raw and is freed once, per the contract.
        drop(unsafe { Box::from_raw(store) });
    }
}
