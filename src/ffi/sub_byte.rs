//! Conversions between the host bytes of `int2`, `int4`, `uint2` and `uint4` (the code in
//! the low bits, upper bits zero: ml_dtypes' layout, what `zarr_array_read` gives) and
//! plain `int8_t` values, for C programs that want numbers rather than codes.

use super::args::{slice, slice_mut};
use super::array::{
    zarr_data_type, ZARR_DATA_TYPE_INT2, ZARR_DATA_TYPE_INT4, ZARR_DATA_TYPE_UINT2,
    ZARR_DATA_TYPE_UINT4,
};
use super::boundary::run;
use super::error::FfiError;
use super::status::zarr_status;
use crate::data_type::SubByteInt;

/// The sub-byte integer type of a code, or the error naming the code.
fn sub_byte_int(data_type: zarr_data_type) -> Result<SubByteInt, FfiError> {
    Ok(match data_type {
        ZARR_DATA_TYPE_INT2 => SubByteInt::Int2,
        ZARR_DATA_TYPE_INT4 => SubByteInt::Int4,
        ZARR_DATA_TYPE_UINT2 => SubByteInt::UInt2,
        ZARR_DATA_TYPE_UINT4 => SubByteInt::UInt4,
        other => {
            return Err(FfiError::InvalidArgument(format!(
                "data_type {other} ({}) is not ZARR_DATA_TYPE_INT2, _INT4, _UINT2 or _UINT4",
                // SAFETY: zarr_data_type_str returns a static NUL-terminated string.
                unsafe { std::ffi::CStr::from_ptr(super::array::zarr_data_type_str(other)) }
                    .to_string_lossy()
            )));
        }
    })
}

/// Convert `count` elements of an int2, int4, uint2 or uint4 array, as `zarr_array_read`
/// gives them (one byte each, the code in the low bits), to `int8_t` values: int2 and int4
/// sign-extended (int4 0x0f is -1, int2 0x02 is -2), uint2 and uint4 as they are. Bits
/// above the code are ignored, as the registry says a reader ignores them (int4 0x1f is -1
/// too).
///
/// - `data_type`: `ZARR_DATA_TYPE_INT2`, `_INT4`, `_UINT2` or `_UINT4`.
/// - `codes`: `count` bytes.
/// - `values`: receives `count` values. May be the same memory as `codes` (converted in
///   place); otherwise the two must not overlap.
/// - `count`: elements; 0 with NULL pointers does nothing.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`codes` or `values` NULL with `count` >
/// 0); `ZARR_ERROR_INVALID_ARGUMENT` (`data_type` is not one of the four). Nothing is
/// written on failure. Thread safety: any thread; no shared state.
///
/// # Safety
/// When `count > 0`, `codes` points to `count` readable bytes and `values` to `count`
/// writable bytes (the same bytes, or not overlapping).
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_sub_byte_to_int8(
    data_type: zarr_data_type,
    codes: *const u8,
    values: *mut i8,
    count: usize,
) -> zarr_status {
    run("zarr_sub_byte_to_int8", || {
        let t = sub_byte_int(data_type)?;
        if count == 0 {
            return Ok(());
        }
        if codes.is_null() {
            return Err(FfiError::Null("codes"));
        }
        if values.is_null() {
            return Err(FfiError::Null("values"));
        }
        if std::ptr::eq(codes, values.cast::<u8>()) {
            // In place: one mutable view of the shared bytes.
            // SAFETY: `count` writable bytes per the contract; no other view exists.
            let data = unsafe { slice_mut(values, count, "values") }?;
            data.iter_mut().for_each(|v| *v = t.to_i8(*v as u8));
            return Ok(());
        }
        // SAFETY: `count` readable bytes per the contract.
        let codes = unsafe { slice(codes, count, "codes") }?;
        // SAFETY: `count` writable bytes, not overlapping `codes`, per the contract.
        let values = unsafe { slice_mut(values, count, "values") }?;
        for (value, code) in values.iter_mut().zip(codes) {
            *value = t.to_i8(*code);
        }
        Ok(())
    })
}

/// Convert `count` `int8_t` values to the bytes an int2, int4, uint2 or uint4 array holds
/// (what `zarr_array_write` takes): the value's two's complement code in the low 2 or 4
/// bits, upper bits zero (int4 -1 becomes 0x0f, int2 -2 becomes 0x02).
///
/// - `data_type`: `ZARR_DATA_TYPE_INT2`, `_INT4`, `_UINT2` or `_UINT4`.
/// - `values`: `count` values, each within the type's range (int2 -2..1, int4 -8..7,
///   uint2 0..3, uint4 0..15).
/// - `codes`: receives `count` bytes. May be the same memory as `values` (converted in
///   place); otherwise the two must not overlap.
/// - `count`: elements; 0 with NULL pointers does nothing.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`values` or `codes` NULL with `count` >
/// 0); `ZARR_ERROR_INVALID_ARGUMENT` (`data_type` is not one of the four, or a value is out
/// of the type's range: the message names the first such index and value). Nothing is
/// written on failure. Thread safety: any thread; no shared state.
///
/// # Safety
/// When `count > 0`, `values` points to `count` readable bytes and `codes` to `count`
/// writable bytes (the same bytes, or not overlapping).
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_int8_to_sub_byte(
    data_type: zarr_data_type,
    values: *const i8,
    codes: *mut u8,
    count: usize,
) -> zarr_status {
    run("zarr_int8_to_sub_byte", || {
        let t = sub_byte_int(data_type)?;
        if count == 0 {
            return Ok(());
        }
        if values.is_null() {
            return Err(FfiError::Null("values"));
        }
        if codes.is_null() {
            return Err(FfiError::Null("codes"));
        }
        let out_of_range = |index: usize, value: i8| {
            let (min, max) = t.range();
            FfiError::InvalidArgument(format!(
                "values[{index}] is {value}, outside {}'s range {min}..={max}",
                t.name()
            ))
        };
        if std::ptr::eq(values.cast::<u8>(), codes) {
            // SAFETY: `count` writable bytes per the contract; no other view exists.
            let data = unsafe { slice_mut(codes, count, "codes") }?;
            // Check everything first: nothing is written on failure.
            if let Some(i) = data.iter().position(|v| t.from_i8(*v as i8).is_none()) {
                return Err(out_of_range(i, data[i] as i8));
            }
            data.iter_mut()
                .for_each(|v| *v = t.from_i8(*v as i8).unwrap_or(0));
            return Ok(());
        }
        // SAFETY: `count` readable bytes per the contract.
        let values = unsafe { slice(values, count, "values") }?;
        if let Some(i) = values.iter().position(|v| t.from_i8(*v).is_none()) {
            return Err(out_of_range(i, values[i]));
        }
        // SAFETY: `count` writable bytes, not overlapping `values`, per the contract.
        let codes = unsafe { slice_mut(codes, count, "codes") }?;
        for (code, value) in codes.iter_mut().zip(values) {
            *code = t.from_i8(*value).unwrap_or(0);
        }
        Ok(())
    })
}
