//! The worker pool's size under names that follow `zarr_<noun>_<verb>`. They are thin
//! aliases of `zarr_set_num_threads` and `zarr_num_threads` (src/ffi/threads.rs), which
//! stay as deprecated names for one release, so that both share one body.

use super::status::zarr_status;

/// Set the number of worker threads libzarr uses to decode and encode chunks in parallel
/// (the new name of `zarr_set_num_threads`, which it calls: semantics, statuses and thread
/// safety are that function's, and error messages name it).
///
/// `size` = 0 restores the default: the `ZARR_NUM_THREADS` environment variable if set
/// to a positive integer, otherwise the number of CPUs available to the process. The
/// setting is process-wide; calls already running finish with the previous pool.
///
/// Returns `ZARR_OK`, or `ZARR_ERROR_OUT_OF_MEMORY` if the threads cannot be started.
///
/// Thread safety: may be called from any thread at any time.
#[must_use]
#[no_mangle]
pub extern "C" fn zarr_thread_pool_set_size(size: usize) -> zarr_status {
    #[allow(deprecated)]
    super::threads::zarr_set_num_threads(size)
}

/// The number of worker threads libzarr uses (the new name of `zarr_num_threads`, which
/// it calls: statuses and thread safety are that function's).
///
/// - `size_out`: receives the number of threads.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `size_out` is NULL;
/// `ZARR_ERROR_OUT_OF_MEMORY` if the pool cannot be started.
///
/// # Safety
/// `size_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_thread_pool_size(size_out: *mut usize) -> zarr_status {
    // SAFETY: per this function's contract, which is zarr_num_threads's.
    #[allow(deprecated)]
    unsafe {
        super::threads::zarr_num_threads(size_out)
    }
}
