//! Deleting nodes and erasing chunks, and asking whether a chunk is stored.

use super::args::{handle, out_ptr, slice, str_arg, write_out};
use super::array::check_rank;
use super::boundary::run;
use super::handle::{zarr_array, zarr_store};
use super::status::zarr_status;
use std::ffi::c_char;

/// Delete the node at `path`: an array with its chunks, or a group with everything below
/// it, in any layout (Zarr v3; v2 `.zarray` / `.zgroup` / `.zattrs` and chunks; the 2022
/// draft's `meta/` and `data/` trees).
///
/// Consolidated metadata stays true: every ancestor group's consolidated metadata that
/// lists the node (a v3 `zarr.json`'s inline `consolidated_metadata`, a v2 `.zmetadata`)
/// is rewritten without it first, so that zarr-python and `zarr_store_open_consolidated`
/// no longer see it. Then the node's own metadata document is erased (from then on no
/// reader finds the node), then the documents of the nodes below it, and last the chunks.
/// Deletion is not atomic: if the store fails midway the node is gone for every reader
/// but some of its keys remain; calling this again erases them (a path with no node, no
/// array above it, and keys under it is cleaned up and `ZARR_OK` returned).
///
/// The root ("/") cannot be deleted: delete its children, or remove the store itself.
/// Handles open on the deleted nodes stay valid memory but their node is gone: reads give
/// the fill value, and writes would store chunks no reader finds; free them.
///
/// - `store`: the store; a consolidated view (`zarr_store_open_consolidated`) may be given
///   too: it then forgets the node as well.
/// - `path`: absolute node path, such as "/a/b".
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH` (malformed
/// path); `ZARR_ERROR_INVALID_ARGUMENT` (`path` is the root); `ZARR_ERROR_NOT_FOUND` (no
/// node and nothing stored at `path`, or `path` lies inside an array);
/// `ZARR_ERROR_INVALID_METADATA` (malformed metadata in the subtree or in a consolidated
/// document); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// Thread safety: do not use the subtree (or create nodes in it) from other threads
/// meanwhile.
///
/// # Safety
/// `store` is NULL or live; `path` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_delete_node(
    store: *mut zarr_store,
    path: *const c_char,
) -> zarr_status {
    run("zarr_store_delete_node", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        crate::delete::delete_node(store.storage.as_ref(), path)?;
        Ok(())
    })
}

/// Erase the stored chunk at `chunk_indices` (grid coordinates); for a sharded array the
/// chunk is a whole shard. The chunk then reads as the fill value. Erasing a chunk that
/// is not stored is not an error.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (no such chunk); `ZARR_ERROR_READ_ONLY`;
/// `ZARR_ERROR_IO`.
///
/// Thread safety: as `zarr_array_write_chunk` (do not race with a write of the same chunk).
///
/// # Safety
/// `array` is NULL or live; `chunk_indices` is NULL or holds `ndim` values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_erase_chunk(
    array: *mut zarr_array,
    ndim: usize,
    chunk_indices: *const u64,
) -> zarr_status {
    run("zarr_array_erase_chunk", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(chunk_indices, ndim, "chunk_indices") }?;
        array.erase_chunk(indices)?;
        Ok(())
    })
}

/// Whether the chunk at `chunk_indices` (for a sharded array: the shard) is stored, and
/// how many bytes its stored (encoded) value occupies.
///
/// A chunk that is not stored reads as the fill value: `*stored_out` is false and
/// `*nbytes_out` 0. A stored chunk gives true and its size, which may itself be 0 for a
/// foreign store's empty value (so test the flag, not the size). The size is asked of
/// the store without reading the value where the store can (files, memory, zip, callback
/// stores with a `size` callback).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (no such chunk); `ZARR_ERROR_IO`.
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `chunk_indices` is NULL or holds `ndim` values; `stored_out`
/// and `nbytes_out` are NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_stored_nbytes(
    array: *const zarr_array,
    ndim: usize,
    chunk_indices: *const u64,
    stored_out: *mut bool,
    nbytes_out: *mut u64,
) -> zarr_status {
    run("zarr_array_chunk_stored_nbytes", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(chunk_indices, ndim, "chunk_indices") }?;
        let stored = out_ptr(stored_out, "stored_out")?;
        let nbytes = out_ptr(nbytes_out, "nbytes_out")?;
        let size = array.chunk_stored_nbytes(indices)?;
        // SAFETY: both checked non-NULL, writable per the contract.
        unsafe {
            write_out(stored, size.is_some());
            write_out(nbytes, size.unwrap_or(0));
        }
        Ok(())
    })
}
