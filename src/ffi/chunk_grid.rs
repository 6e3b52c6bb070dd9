//! The chunk grid through the C API: how many chunks, and where each one lies. For a
//! regular grid this is arithmetic a caller could do; for a `rectilinear` grid, whose
//! chunks differ in shape, it is the only way to know.

use super::args::{slice, slice_mut};
use super::array::check_rank;
use super::boundary::run;
use super::handle::zarr_array;
use super::status::zarr_status;

/// The number of chunks along each dimension (those holding part of the array): `ndim`
/// values written to `grid_shape_out`. A chunk's coordinates run from 0 to these, less one.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`).
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `grid_shape_out` is NULL or holds `ndim` writable values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_grid_shape(
    array: *const zarr_array,
    ndim: usize,
    grid_shape_out: *mut u64,
) -> zarr_status {
    run("zarr_array_chunk_grid_shape", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { super::args::handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let out = unsafe { slice_mut(grid_shape_out, ndim, "grid_shape_out") }?;
        out.copy_from_slice(&array.chunk_grid_shape());
        Ok(())
    })
}

/// Where the chunk at `chunk_indices` lies: its first element's position in the array
/// (`start_out`) and its full shape (`shape_out`), `ndim` values each. The shape is the
/// chunk's as stored and as `zarr_array_read_chunk` transfers it: an edge chunk may reach
/// past the array's end. In a regular grid every chunk has the chunk shape; in a
/// `rectilinear` one each has its own.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (no such chunk). On error the outputs are unchanged.
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `chunk_indices` is NULL or holds `ndim` values; `start_out`
/// and `shape_out` are NULL or hold `ndim` writable values each.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_region(
    array: *const zarr_array,
    ndim: usize,
    chunk_indices: *const u64,
    start_out: *mut u64,
    shape_out: *mut u64,
) -> zarr_status {
    run("zarr_array_chunk_region", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { super::args::handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(chunk_indices, ndim, "chunk_indices") }?;
        // SAFETY: per this function's contract.
        let start = unsafe { slice_mut(start_out, ndim, "start_out") }?;
        // SAFETY: per this function's contract.
        let shape = unsafe { slice_mut(shape_out, ndim, "shape_out") }?;
        let (origin, extent) = array.chunk_region(indices)?;
        start.copy_from_slice(&origin);
        shape.copy_from_slice(&extent);
        Ok(())
    })
}
