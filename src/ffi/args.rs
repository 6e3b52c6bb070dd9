//! Checked conversions of C arguments: strings, slices, handles and output pointers.

use super::error::FfiError;
use std::ffi::{c_char, CStr};

/// Borrow a handle, or report the NULL parameter by name.
///
/// # Safety
/// `ptr` is NULL or a valid pointer to a live `T` created by this library.
pub(crate) unsafe fn handle<'a, T>(ptr: *const T, name: &'static str) -> Result<&'a T, FfiError> {
    // SAFETY: non-NULL handles come from Box::into_raw in a constructor and live until
    // their `_free`, per the caller's contract.
    unsafe { ptr.as_ref() }.ok_or(FfiError::Null(name))
}

/// Borrow a NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that outlives the call.
pub(crate) unsafe fn str_arg<'a>(
    ptr: *const c_char,
    name: &'static str,
) -> Result<&'a str, FfiError> {
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str().map_err(|e| {
        FfiError::InvalidArgument(format!("argument '{name}' is not valid UTF-8: {e}"))
    })
}

/// Reject lengths no real buffer can have (Rust slices are limited to isize::MAX bytes).
fn check_len<T>(len: usize, name: &'static str) -> Result<(), FfiError> {
    match len.checked_mul(std::mem::size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(FfiError::InvalidArgument(format!(
            "argument '{name}' has an impossible length {len}"
        ))),
    }
}

/// Borrow an input array of `len` elements; `(NULL, 0)` is the empty slice.
///
/// # Safety
/// When `len > 0`, `ptr` points to `len` readable, initialised elements.
pub(crate) unsafe fn slice<'a, T>(
    ptr: *const T,
    len: usize,
    name: &'static str,
) -> Result<&'a [T], FfiError> {
    check_len::<T>(len, name)?;
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: non-NULL, `len` elements readable per the caller's contract, size checked.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrow an output buffer of `len` bytes; `(NULL, 0)` is the empty slice.
///
/// # Safety
/// When `len > 0`, `ptr` points to `len` writable bytes not aliased during the call.
pub(crate) unsafe fn slice_mut<'a, T>(
    ptr: *mut T,
    len: usize,
    name: &'static str,
) -> Result<&'a mut [T], FfiError> {
    check_len::<T>(len, name)?;
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: non-NULL, `len` elements writable and unaliased per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Check an output pointer and return it for a later write.
pub(crate) fn out_ptr<T>(ptr: *mut T, name: &'static str) -> Result<*mut T, FfiError> {
    if ptr.is_null() {
        Err(FfiError::Null(name))
    } else {
        Ok(ptr)
    }
}

/// Write a value through a checked output pointer.
///
/// # Safety
/// `ptr` came from [`out_ptr`] and points to writable memory for a `T`.
pub(crate) unsafe fn write_out<T>(ptr: *mut T, value: T) {
    // SAFETY: non-NULL (checked by out_ptr) and writable per the caller's contract.
    unsafe { ptr.write(value) }
}

/// Set a handle output to NULL at the start of a constructor, so that it is NULL on every
/// failure path.
///
/// # Safety
/// `out` is NULL or writable.
pub(crate) unsafe fn clear_out<T>(out: *mut *mut T) {
    if !out.is_null() {
        // SAFETY: non-NULL and writable per the caller's contract.
        unsafe { out.write(std::ptr::null_mut()) }
    }
}
