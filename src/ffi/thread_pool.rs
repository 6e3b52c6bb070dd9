//! The size of the worker pool that reads and writes chunks in parallel. The functions
//! here are the implementation; `zarr_set_num_threads` and `zarr_num_threads`
//! (src/ffi/threads.rs) are their deprecated old names, kept for one release.

use super::args::{out_ptr, write_out};
use super::boundary::run;
use super::status::zarr_status;
use crate::error::Error;

/// The largest number of worker threads `zarr_thread_pool_set_size` accepts; a larger
/// `ZARR_NUM_THREADS` value or CPU count is clamped to it.
pub const ZARR_MAX_NUM_THREADS: usize = 1024;
const _: () = assert!(ZARR_MAX_NUM_THREADS == crate::threads::MAX_THREADS);

/// Set the number of worker threads libzarr uses to decode and encode chunks in parallel.
///
/// `size` = 0 restores the default: the `ZARR_NUM_THREADS` environment variable if set to
/// a positive integer (clamped to `ZARR_MAX_NUM_THREADS`; other values are ignored),
/// otherwise the number of CPUs available to the process (also clamped). The setting is
/// process-wide; calls already running finish with the previous pool. Reads and writes of
/// a single chunk run on the calling thread whatever the setting.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_INVALID_ARGUMENT` if `size` is larger than
/// `ZARR_MAX_NUM_THREADS` (1024; the pool is left as it was); `ZARR_ERROR_RESOURCE` if the
/// operating system refuses to start the threads.
///
/// Thread safety: may be called from any thread at any time.
#[must_use]
#[no_mangle]
pub extern "C" fn zarr_thread_pool_set_size(size: usize) -> zarr_status {
    run("zarr_thread_pool_set_size", || {
        crate::threads::set_num_threads(size).map_err(Error::from)?;
        Ok(())
    })
}

/// The number of worker threads libzarr uses (see `zarr_thread_pool_set_size`).
///
/// - `size_out`: receives the number of threads.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `size_out` is NULL;
/// `ZARR_ERROR_RESOURCE` if the pool cannot be started.
///
/// # Safety
/// `size_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_thread_pool_size(size_out: *mut usize) -> zarr_status {
    run("zarr_thread_pool_size", || {
        let out = out_ptr(size_out, "size_out")?;
        let threads = crate::threads::num_threads().map_err(Error::from)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, threads) };
        Ok(())
    })
}
