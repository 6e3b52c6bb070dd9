//! Strings handed to the caller, and the one function that frees them.

use super::error::FfiError;
use std::ffi::{c_char, CString};

/// Turn text into a C string the caller owns (free with `zarr_string_free`).
pub(crate) fn owned_c_string(text: String) -> Result<*mut c_char, FfiError> {
    CString::new(text)
        .map(CString::into_raw)
        .map_err(|_| FfiError::InvalidArgument("text contains a NUL character".into()))
}

/// Free a string returned by libzarr through a `char **` output.
///
/// Accepts NULL (does nothing). Passing any other pointer, or freeing twice, is undefined
/// behaviour. Thread safety: any thread may free a string.
///
/// # Safety
/// `s` is NULL or a string returned by a libzarr function and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn zarr_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: `s` came from CString::into_raw in owned_c_string, per the contract.
        drop(unsafe { CString::from_raw(s) });
    }
}
