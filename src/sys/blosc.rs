//! Calls into the bundled c-blosc 1 (the `blosc` codec's compressor).
//!
//! Only the thread-safe context API is used, with one internal thread: c-blosc then creates
//! no thread pool and touches no global state, so concurrent calls are safe.

use super::alloc::zeroed_vec;
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};

/// Size of a blosc frame header, and the most a frame can exceed its input by.
pub(crate) const MAX_OVERHEAD: usize = blosc_src::BLOSC_MAX_OVERHEAD as usize;

/// Why a c-blosc call failed.
#[derive(Debug)]
pub(crate) enum BloscError {
    /// The output buffer of this many bytes could not be allocated.
    OutOfMemory(usize),
    /// c-blosc reported an error, or the frame does not match its header.
    Failed(String),
}

/// Whether the bundled c-blosc was built with the named compressor.
pub(crate) fn compressor_available(cname: &CStr) -> bool {
    // SAFETY: `cname` is a valid NUL-terminated string that outlives the call; the function
    // only compares it with static strings.
    unsafe { blosc_src::blosc_compname_to_compcode(cname.as_ptr()) >= 0 }
}

/// The decoded size and total frame size recorded in a frame header.
///
/// Panics if `frame` is shorter than the 16-byte header (callers check first).
pub(crate) fn cbuffer_sizes(frame: &[u8]) -> (usize, usize) {
    assert!(frame.len() >= MAX_OVERHEAD);
    let (mut nbytes, mut cbytes, mut blocksize) = (0usize, 0usize, 0usize);
    // SAFETY: `blosc_cbuffer_sizes` reads the first 16 bytes of `frame` (checked above) and
    // writes the three `size_t` out-parameters, which are valid local variables.
    unsafe {
        blosc_src::blosc_cbuffer_sizes(
            frame.as_ptr().cast::<c_void>(),
            &mut nbytes,
            &mut cbytes,
            &mut blocksize,
        );
    }
    (nbytes, cbytes)
}

/// c-blosc's own header check: the frame is exactly `frame.len()` bytes and decodes to at
/// most BLOSC_MAX_BUFFERSIZE bytes. Returns the decoded size.
pub(crate) fn cbuffer_validate(frame: &[u8]) -> Option<usize> {
    let mut nbytes = 0usize;
    // SAFETY: `frame` is valid for `frame.len()` bytes and the function reads at most the
    // 16-byte header, and only when `frame.len()` is at least 16; `nbytes` is a valid
    // out-parameter.
    let rc = unsafe {
        blosc_src::blosc_cbuffer_validate(frame.as_ptr().cast::<c_void>(), frame.len(), &mut nbytes)
    };
    (rc == 0).then_some(nbytes)
}

/// Compress `src` into a new blosc frame. `src.len()` must be at most BLOSC_MAX_BUFFERSIZE.
pub(crate) fn compress(
    clevel: u8,
    shuffle: c_int,
    typesize: usize,
    src: &[u8],
    cname: &CStr,
    blocksize: usize,
) -> Result<Vec<u8>, BloscError> {
    let size = src.len() + MAX_OVERHEAD;
    let mut dest = zeroed_vec(size).ok_or(BloscError::OutOfMemory(size))?;
    // SAFETY: `src` is valid for reads of `src.len()` bytes, the `nbytes` passed; `dest` is an
    // initialised buffer of `dest.len()` bytes, the `destsize` passed, and c-blosc never
    // writes past `destsize`; the two do not overlap. `cname` is NUL-terminated. One internal
    // thread: no thread pool, no global state (module comment).
    let rc = unsafe {
        blosc_src::blosc_compress_ctx(
            c_int::from(clevel),
            shuffle,
            typesize,
            src.len(),
            src.as_ptr().cast::<c_void>(),
            dest.as_mut_ptr().cast::<c_void>(),
            dest.len(),
            cname.as_ptr(),
            blocksize,
            1,
        )
    };
    match usize::try_from(rc) {
        Ok(written) if written > 0 && written <= dest.len() => {
            dest.truncate(written);
            Ok(dest)
        }
        // 0 means "did not fit", which cannot happen with MAX_OVERHEAD spare bytes; negative
        // values are errors.
        _ => Err(BloscError::Failed(format!(
            "blosc_compress_ctx returned {rc}"
        ))),
    }
}

/// Decompress a frame of `nbytes` decoded bytes (the header's value, which the caller has
/// checked against what it expects; checked again here against the frame).
pub(crate) fn decompress(frame: &[u8], nbytes: usize) -> Result<Vec<u8>, BloscError> {
    // Re-establish the invariants the unsafe call relies on, whatever the caller did: the
    // header's compressed size is exactly `frame.len()` (at least 16) and its decoded size is
    // `nbytes`, at most BLOSC_MAX_BUFFERSIZE.
    if cbuffer_validate(frame) != Some(nbytes) {
        return Err(BloscError::Failed("invalid blosc header".into()));
    }
    let mut dest = zeroed_vec(nbytes).ok_or(BloscError::OutOfMemory(nbytes))?;
    // SAFETY: `frame` is valid for reads of `frame.len()` bytes, and c-blosc bounds every read
    // by the compressed size recorded in the header, which was just checked to equal
    // `frame.len()`. `dest` is an initialised buffer of `nbytes` bytes, the `destsize` passed;
    // c-blosc never writes past `destsize`. The buffers do not overlap. One internal thread:
    // no thread pool, no global state.
    let rc = unsafe {
        blosc_src::blosc_decompress_ctx(
            frame.as_ptr().cast::<c_void>(),
            dest.as_mut_ptr().cast::<c_void>(),
            dest.len(),
            1,
        )
    };
    if usize::try_from(rc) == Ok(nbytes) {
        Ok(dest)
    } else if rc < 0 {
        Err(BloscError::Failed(format!(
            "blosc_decompress_ctx failed with code {rc}"
        )))
    } else {
        Err(BloscError::Failed(format!(
            "decoded {rc} bytes, header says {nbytes}"
        )))
    }
}
