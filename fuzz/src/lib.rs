//! The C API end to end, through the exported `extern "C"` functions only (the other
//! targets call `zarr::fuzzing`). See docs/reliability.md.
//!
//! Input: 8 control bytes, then a key/value container (`zarr::fuzzing::entries`) that
//! becomes a memory store. The target opens the consolidated view when the first control
//! byte is odd, lists the hierarchy from the root group, opens every node as an array and
//! reads: the whole array (when small), one element at each corner, a region placed by the
//! control bytes, the first and last chunk, the first and last inner chunk. Any status is
//! fine except `ZARR_ERROR_PANIC`, and a successful read must fill exactly its selection.

use std::ffi::{c_char, CStr, CString};
use std::ptr::null_mut;
use zarr::ffi::array::*;
use zarr::ffi::group::*;
use zarr::ffi::handle::{zarr_array, zarr_store};
use zarr::ffi::status::{zarr_status, ZARR_ERROR_PANIC, ZARR_OK};
use zarr::ffi::store::*;
use zarr::ffi::strings::zarr_string_free;
use zarr::fuzzing::{memory_store_handle, MAX_CHUNK_BYTES};

/// Reads larger than this are skipped (the harness chooses bounded work).
const MAX_READ_BYTES: usize = 1 << 20;

/// At most this many nodes are visited per input.
const MAX_NODES: usize = 32;

fn check(status: zarr_status, what: &str) -> bool {
    assert_ne!(status, ZARR_ERROR_PANIC, "{what} panicked");
    status == ZARR_OK
}

/// Take an owned string from the library, as Rust text.
fn take_string(s: *mut c_char) -> String {
    assert!(!s.is_null());
    // SAFETY: a string the library just returned, freed once right after.
    let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    unsafe { zarr_string_free(s) };
    text
}

pub fn c_api(data: &[u8]) {
    let (control, container) = data.split_at(data.len().min(8));
    let mut control = control.to_vec();
    control.resize(8, 0);
    let store = memory_store_handle(container);
    let mut view = null_mut();
    // SAFETY (this block and the functions below): live handles from the library and
    // buffers of the lengths passed.
    unsafe {
        if control[0] & 1 == 1
            && !check(
                zarr_store_open_consolidated(store, &mut view),
                "open_consolidated",
            )
        {
            assert!(view.is_null(), "out is NULL on failure");
        }
        let store_used = if view.is_null() { store } else { view };
        for path in node_paths(store_used) {
            let mut array = null_mut();
            if check(
                zarr_array_open(store_used, path.as_ptr(), &mut array),
                "array_open",
            ) {
                exercise_array(array, &control);
                zarr_array_free(array);
            } else {
                assert!(array.is_null(), "out is NULL on failure");
            }
        }
        zarr_store_free(view);
        zarr_store_free(store);
    }
}

/// "/" and the paths of every node below it (at most `MAX_NODES`).
unsafe fn node_paths(store: *mut zarr_store) -> Vec<CString> {
    let mut paths = vec![CString::new("/").unwrap()];
    let mut group = null_mut();
    if !check(
        zarr_group_open(store, c"/".as_ptr(), &mut group),
        "group_open",
    ) {
        return paths;
    }
    let mut json = null_mut();
    if check(
        zarr_group_attributes_json(group, &mut json),
        "group_attributes_json",
    ) {
        let text = take_string(json);
        serde_json::from_str::<serde_json::Value>(&text).expect("attributes are JSON");
    }
    if check(
        zarr_group_children_json(group, &mut json),
        "group_children_json",
    ) {
        take_string(json);
    }
    if check(
        zarr_group_descendants_json(group, &mut json),
        "group_descendants_json",
    ) {
        let text = take_string(json);
        let nodes: serde_json::Value = serde_json::from_str(&text).expect("a listing is JSON");
        let nodes = nodes.as_array().expect("a listing is a JSON array");
        for node in nodes.iter().take(MAX_NODES) {
            let path = node["path"].as_str().expect("each node has a path");
            paths.push(CString::new(path).expect("a node path has no NUL"));
        }
    }
    zarr_group_free(group);
    paths
}

unsafe fn exercise_array(array: *mut zarr_array, control: &[u8]) {
    let mut ndim = 0usize;
    assert!(check(zarr_array_ndim(array, &mut ndim), "ndim"));
    let mut shape = vec![0u64; ndim];
    let mut chunk_shape = vec![0u64; ndim];
    let mut inner_shape = vec![0u64; ndim];
    assert!(check(
        zarr_array_shape(array, ndim, shape.as_mut_ptr()),
        "shape"
    ));
    assert!(check(
        zarr_array_chunk_shape(array, ndim, chunk_shape.as_mut_ptr()),
        "chunk_shape"
    ));
    assert!(check(
        zarr_array_inner_chunk_shape(array, ndim, inner_shape.as_mut_ptr()),
        "inner_chunk_shape"
    ));
    let (mut element_size, mut chunk_nbytes, mut format) = (0usize, 0usize, 0u32);
    assert!(check(
        zarr_array_element_size(array, &mut element_size),
        "element_size"
    ));
    assert!(check(
        zarr_array_chunk_nbytes(array, &mut chunk_nbytes),
        "chunk_nbytes"
    ));
    assert!(check(
        zarr_array_zarr_format(array, &mut format),
        "zarr_format"
    ));
    let mut json = null_mut();
    if check(zarr_array_metadata_json(array, &mut json), "metadata_json") {
        serde_json::from_str::<serde_json::Value>(&take_string(json)).expect("metadata is JSON");
    }
    if check(
        zarr_array_attributes_json(array, &mut json),
        "attributes_json",
    ) {
        serde_json::from_str::<serde_json::Value>(&take_string(json)).expect("attributes are JSON");
    }

    // Arrays of any declared chunk size are read: decoding is bounded by what the stored
    // bytes can produce, not by the declared size (a tiny stream declaring gigabytes costs
    // little; tests/reliability/allocations.rs). Only the whole-chunk reads below, whose
    // buffer the harness allocates, skip chunks over MAX_CHUNK_BYTES.

    // Regions: the whole array, each corner element, one placed by the control bytes.
    let zeros = vec![0u64; ndim];
    let ones = vec![1u64; ndim];
    let last: Vec<u64> = shape.iter().map(|&n| n.saturating_sub(1)).collect();
    let placed_start: Vec<u64> = (0..ndim)
        .map(|d| shape[d] / 256 * u64::from(control[(1 + d) % 8]))
        .collect();
    let placed_count: Vec<u64> = (0..ndim)
        .map(|d| (shape[d] - placed_start[d]).min(1 + u64::from(control[(4 + d) % 8] % 16)))
        .collect();
    for (start, count) in [
        (&zeros, &shape),
        (&zeros, &ones),
        (&last, &ones),
        (&placed_start, &placed_count),
    ] {
        read_region(array, start, count);
    }

    // Chunks and inner chunks: the first and the last of each grid.
    for (grid_chunk, inner) in [(&chunk_shape, false), (&inner_shape, true)] {
        let Some(nbytes) = grid_chunk
            .iter()
            .try_fold(element_size, |n, &c| {
                usize::try_from(c).ok().and_then(|c| n.checked_mul(c))
            })
            .filter(|&n| n <= MAX_CHUNK_BYTES)
        else {
            continue;
        };
        if !inner {
            assert_eq!(nbytes, chunk_nbytes, "chunk_nbytes is the chunk's size");
        }
        let last_index: Vec<u64> = (0..ndim)
            .map(|d| shape[d].div_ceil(grid_chunk[d].max(1)).saturating_sub(1))
            .collect();
        let mut buf = vec![0u8; nbytes];
        for index in [&zeros, &last_index] {
            let status = if inner {
                zarr_array_read_inner_chunk(
                    array,
                    ndim,
                    index.as_ptr(),
                    buf.as_mut_ptr().cast(),
                    nbytes,
                )
            } else {
                zarr_array_read_chunk(array, ndim, index.as_ptr(), buf.as_mut_ptr().cast(), nbytes)
            };
            check(
                status,
                if inner {
                    "read_inner_chunk"
                } else {
                    "read_chunk"
                },
            );
        }
    }
}

/// Read a region if it is small; a successful read leaves the guard bytes past the
/// selection untouched.
unsafe fn read_region(array: *mut zarr_array, start: &[u64], count: &[u64]) {
    let ndim = start.len();
    let mut nbytes = 0usize;
    if !check(
        zarr_array_selection_nbytes(array, ndim, start.as_ptr(), count.as_ptr(), &mut nbytes),
        "selection_nbytes",
    ) || nbytes > MAX_READ_BYTES
    {
        return;
    }
    const GUARD: usize = 16;
    let mut buf = vec![0xA5u8; nbytes + GUARD];
    let status = zarr_array_read(
        array,
        ndim,
        start.as_ptr(),
        count.as_ptr(),
        buf.as_mut_ptr().cast(),
        nbytes,
    );
    check(status, "read");
    assert!(
        buf[nbytes..].iter().all(|&b| b == 0xA5),
        "a read wrote past its buffer"
    );
}
