//! The old names of the worker pool's functions (src/ffi/thread_pool.rs), deprecated and
//! kept for one release. Error messages name the new functions.

use super::status::zarr_status;

/// Deprecated name of `zarr_thread_pool_set_size`, which it calls: semantics, statuses,
/// error messages and thread safety are that function's.
#[must_use]
#[no_mangle]
#[deprecated(note = "use zarr_thread_pool_set_size")]
pub extern "C" fn zarr_set_num_threads(num_threads: usize) -> zarr_status {
    super::thread_pool::zarr_thread_pool_set_size(num_threads)
}

/// Deprecated name of `zarr_thread_pool_size`, which it calls: statuses, error messages
/// and thread safety are that function's.
///
/// # Safety
/// `num_threads_out` is NULL or writable.
#[must_use]
#[no_mangle]
#[deprecated(note = "use zarr_thread_pool_size")]
pub unsafe extern "C" fn zarr_num_threads(num_threads_out: *mut usize) -> zarr_status {
    // SAFETY: per this function's contract, which is zarr_thread_pool_size's.
    unsafe { super::thread_pool::zarr_thread_pool_size(num_threads_out) }
}
