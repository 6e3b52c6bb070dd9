//! Allocations sized by input must be bounded by what the input can justify: a stored
//! chunk of a few bytes must not make the library reserve gigabytes because the metadata
//! declares a huge chunk. Found by the `c_api` fuzz target (libFuzzer's malloc limit); the
//! inputs are in tests/data/fuzz/oversized-decode (each a store whose one chunk is a tiny
//! compressed stream while the chunk shape declares 4 GiB of float64). See
//! docs/reliability.md.
//!
//! A global allocator records the largest single allocation made while reading one element.
//! Before the fix the stream decoders reserved (and zero-filled) the declared size: about a
//! minute and 4 GB of memory for these inputs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use zarr::array::Array;
use zarr::storage::FilesystemStore;

struct Tracking;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only records sizes.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// Far more than any of these inputs can justify (their chunks are under 100 bytes).
const BOUND: usize = 64 << 20;

#[test]
fn tiny_compressed_chunks_declaring_huge_shapes_allocate_little() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz/oversized-decode");
    let mut failures = Vec::new();
    for case in [
        "zstd",
        "gzip",
        "numcodecs-zlib",
        "numcodecs-bz2",
        "numcodecs-lzma",
        "shard-zstd",
    ] {
        let store = Arc::new(FilesystemStore::new(dir.join(case)).unwrap());
        let array = Array::open(store, "/").unwrap();
        let mut one = [0u8; 8];
        LARGEST.store(0, Ordering::Relaxed);
        let result = array.read_region(&[0], &[1], &mut one);
        let largest = LARGEST.load(Ordering::Relaxed);
        assert!(result.is_err(), "{case}: a corrupt chunk must fail to read");
        if largest > BOUND {
            failures.push(format!("{case}: allocated {largest} bytes at once"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
