//! Typed attributes of arrays and groups, without JSON text: names by index, values by key
//! as a string, a double, an int64 or arrays of them, get, set and delete, in the manner
//! of netCDF's `nc_inq_attname`, `nc_get_att_*`, `nc_put_att_*` and `nc_del_att`.
//!
//! Every setter rewrites the node's attributes document atomically (see
//! `zarr_array_set_attribute_string`); the conversions are those of
//! [`crate::attributes`].

use super::args::{clear_out, handle, out_ptr, slice, slice_mut, str_arg, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::{zarr_array, zarr_group};
use super::status::zarr_status;
use super::strings::owned_c_string;
use crate::array::Array;
use crate::attributes::{self, AttributeError};
use crate::error::Error;
use crate::group::Group;
use serde_json::{Map, Value};
use std::ffi::c_char;

impl From<AttributeError> for FfiError {
    fn from(error: AttributeError) -> FfiError {
        match error {
            AttributeError::Missing(_) => FfiError::NotFound(error.to_string()),
            AttributeError::TypeMismatch { .. } => FfiError::TypeMismatch(error.to_string()),
            AttributeError::OutOfRange { .. } => {
                FfiError::Core(Error::OutOfBounds(error.to_string()))
            }
        }
    }
}

/// A typed getter of [`crate::attributes`].
type Getter<T> = fn(&Map<String, Value>, &str) -> Result<T, AttributeError>;

/// The node whose attributes a call reads or changes.
enum Holder<'a> {
    Array(&'a Array),
    Group(&'a Group),
}

impl Holder<'_> {
    fn attributes(&self) -> Map<String, Value> {
        match self {
            Holder::Array(array) => array.attributes(),
            Holder::Group(group) => group.attributes(),
        }
    }

    fn update(
        &self,
        update: impl FnOnce(&mut Map<String, Value>) -> Result<(), FfiError>,
    ) -> Result<(), FfiError> {
        match self {
            Holder::Array(array) => array.update_attributes(update),
            Holder::Group(group) => group.update_attributes(update),
        }
    }
}

/// # Safety
/// `array` is NULL or a live handle.
unsafe fn array_holder<'a>(array: *const zarr_array) -> Result<Holder<'a>, FfiError> {
    // SAFETY: per this function's contract.
    Ok(Holder::Array(&unsafe { handle(array, "array") }?.array))
}

/// # Safety
/// `group` is NULL or a live handle.
unsafe fn group_holder<'a>(group: *const zarr_group) -> Result<Holder<'a>, FfiError> {
    // SAFETY: per this function's contract.
    Ok(Holder::Group(&unsafe { handle(group, "group") }?.group))
}

/// The body of the `_attribute_count` functions.
///
/// # Safety
/// `count_out` is NULL or writable.
unsafe fn count_body(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    count_out: *mut usize,
) -> zarr_status {
    run(function, || {
        let holder = holder()?;
        let out = out_ptr(count_out, "count_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, holder.attributes().len()) };
        Ok(())
    })
}

/// The body of the `_attribute_name` functions.
///
/// # Safety
/// `name_out` is NULL or writable.
unsafe fn name_body(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    index: usize,
    name_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(name_out) };
    run(function, || {
        let holder = holder()?;
        let out = out_ptr(name_out, "name_out")?;
        let attributes = holder.attributes();
        let Some(name) = attributes.keys().nth(index) else {
            return Err(FfiError::Core(Error::OutOfBounds(format!(
                "attribute index {index} is outside the {} attributes",
                attributes.len()
            ))));
        };
        let text = owned_c_string(name.clone())?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The body of the `_attribute_string` functions.
///
/// # Safety
/// `key` is NULL or NUL-terminated; `value_out` is NULL or writable.
unsafe fn string_body(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    key: *const c_char,
    value_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(value_out) };
    run(function, || {
        let holder = holder()?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        let out = out_ptr(value_out, "value_out")?;
        let value = attributes::get_string(&holder.attributes(), key)?;
        let text = owned_c_string(value).map_err(|_| {
            FfiError::TypeMismatch(format!(
                "attribute '{key}' holds a NUL character, which a C string cannot"
            ))
        })?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The body of the scalar number getters.
///
/// # Safety
/// `key` is NULL or NUL-terminated; `value_out` is NULL or writable.
unsafe fn number_body<T>(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    key: *const c_char,
    value_out: *mut T,
    get: Getter<T>,
) -> zarr_status {
    run(function, || {
        let holder = holder()?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        let out = out_ptr(value_out, "value_out")?;
        let value = get(&holder.attributes(), key)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, value) };
        Ok(())
    })
}

/// The body of the number array getters.
///
/// # Safety
/// `key` is NULL or NUL-terminated; `values` is NULL or holds `capacity` writable
/// elements; `count_out` is NULL or writable.
unsafe fn list_body<T: Copy>(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    key: *const c_char,
    values: *mut T,
    capacity: usize,
    count_out: *mut usize,
    get: Getter<Vec<T>>,
) -> zarr_status {
    run(function, || {
        let holder = holder()?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        // SAFETY: per this function's contract.
        let buffer = unsafe { slice_mut(values, capacity, "values") }?;
        let out = out_ptr(count_out, "count_out")?;
        let list = get(&holder.attributes(), key)?;
        let query = values.is_null() && capacity == 0;
        if !query {
            if buffer.len() < list.len() {
                return Err(FfiError::Core(Error::BufferTooSmall {
                    needed: list.len(),
                    given: buffer.len(),
                }));
            }
            buffer[..list.len()].copy_from_slice(&list);
        }
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, list.len()) };
        Ok(())
    })
}

/// The body of the setters: store `value()` under `key`.
///
/// # Safety
/// `key` is NULL or NUL-terminated.
unsafe fn set_body(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    key: *const c_char,
    value: impl FnOnce() -> Result<Value, FfiError>,
) -> zarr_status {
    run(function, || {
        let holder = holder()?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        let value = value()?;
        holder.update(|attributes| {
            attributes.insert(key.to_string(), value);
            Ok(())
        })
    })
}

/// The body of the `_delete_attribute` functions.
///
/// # Safety
/// `key` is NULL or NUL-terminated.
unsafe fn delete_body(
    function: &str,
    holder: impl FnOnce() -> Result<Holder<'static>, FfiError>,
    key: *const c_char,
) -> zarr_status {
    run(function, || {
        let holder = holder()?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        holder.update(|attributes| match attributes.shift_remove(key) {
            Some(_) => Ok(()),
            None => Err(AttributeError::Missing(key.to_string()).into()),
        })
    })
}

/// A string argument of a setter.
///
/// # Safety
/// `value` is NULL or NUL-terminated.
unsafe fn string_value(value: *const c_char) -> Result<Value, FfiError> {
    // SAFETY: per this function's contract.
    Ok(Value::from(unsafe { str_arg(value, "value") }?))
}

// ---- arrays ---------------------------------------------------------------------------

/// The number of attributes of the array.
///
/// Attributes are numbered 0 .. count-1 in the order of the stored document (which is the
/// order in which they were first set); `zarr_array_attribute_name` gives each name.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_count(
    array: *const zarr_array,
    count_out: *mut usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        count_body(
            "zarr_array_attribute_count",
            || array_holder(array),
            count_out,
        )
    }
}

/// The name (key) of the array's attribute number `index` (see
/// `zarr_array_attribute_count`).
///
/// - `name_out`: receives a new NUL-terminated string owned by the caller (free it with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (`index` is
/// not below the count); `ZARR_ERROR_INVALID_ARGUMENT` (the name holds a NUL character).
///
/// # Safety
/// `array` is NULL or live; `name_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_name(
    array: *const zarr_array,
    index: usize,
    name_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        name_body(
            "zarr_array_attribute_name",
            || array_holder(array),
            index,
            name_out,
        )
    }
}

/// The array's attribute `key` as a string (a CF `units`, `long_name`...).
///
/// - `key`: NUL-terminated UTF-8 attribute name.
/// - `value`: receives a new NUL-terminated UTF-8 string owned by the caller (free it with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` not
/// UTF-8); `ZARR_ERROR_NOT_FOUND` (no attribute `key`); `ZARR_ERROR_TYPE_MISMATCH` (the
/// value is not a JSON string, or holds a NUL character).
///
/// Thread safety: may be called concurrently with any call on the handle; it sees the
/// attributes before or after a concurrent setter, never a mixture.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `value` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_string(
    array: *const zarr_array,
    key: *const c_char,
    value: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        string_body(
            "zarr_array_attribute_string",
            || array_holder(array),
            key,
            value,
        )
    }
}

/// The array's attribute `key` as a double.
///
/// Any JSON number converts (an integer beyond 2^53 is rounded to the nearest double), and
/// so do the strings "NaN", "Infinity" and "-Infinity" (Zarr's spelling of non-finite
/// floats, also how bare `NaN` tokens of other writers read).
///
/// - `value`: receives the value.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` not
/// UTF-8); `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH` (not a number: a string, a
/// boolean, null, an array, an object).
///
/// Thread safety: as `zarr_array_attribute_string`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `value` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_double(
    array: *const zarr_array,
    key: *const c_char,
    value: *mut f64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        number_body(
            "zarr_array_attribute_double",
            || array_holder(array),
            key,
            value,
            attributes::get_f64,
        )
    }
}

/// The array's attribute `key` as a signed 64-bit integer.
///
/// A JSON integer in range converts, and so does a number without a fractional part
/// (`3.0` gives 3). A fractional number (`3.5`) is `ZARR_ERROR_TYPE_MISMATCH`; an integral
/// number outside the int64 range (`2^63`, `2^70`) is `ZARR_ERROR_OUT_OF_BOUNDS`.
///
/// - `value`: receives the value.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` not
/// UTF-8); `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH` (not a number, or a
/// fractional or non-finite one); `ZARR_ERROR_OUT_OF_BOUNDS` (outside the int64 range).
///
/// Thread safety: as `zarr_array_attribute_string`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `value` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_int64(
    array: *const zarr_array,
    key: *const c_char,
    value: *mut i64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        number_body(
            "zarr_array_attribute_int64",
            || array_holder(array),
            key,
            value,
            attributes::get_i64,
        )
    }
}

/// The array's attribute `key` as an array of doubles (a CF `valid_range`...).
///
/// The attribute is a JSON array whose every element converts as in
/// `zarr_array_attribute_double`; a single number reads as an array of one.
///
/// - `values`, `capacity`: the caller's buffer of `capacity` doubles. With `values` NULL
///   and `capacity` 0, only the count is written (a size query).
/// - `count_out`: receives the number of elements of the attribute.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (also `values` NULL with `capacity` > 0);
/// `ZARR_ERROR_INVALID_ARGUMENT` (`key` not UTF-8, absurd `capacity`);
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH` (not an array of numbers: the
/// message names the first bad element); `ZARR_ERROR_BUFFER_TOO_SMALL` (`capacity` is
/// smaller than the count; nothing is written, query the count first).
///
/// Thread safety: as `zarr_array_attribute_string`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `capacity` writable doubles; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_double_array(
    array: *const zarr_array,
    key: *const c_char,
    values: *mut f64,
    capacity: usize,
    count_out: *mut usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        list_body(
            "zarr_array_attribute_double_array",
            || array_holder(array),
            key,
            values,
            capacity,
            count_out,
            attributes::get_f64_list,
        )
    }
}

/// The array's attribute `key` as an array of signed 64-bit integers: each element
/// converts as in `zarr_array_attribute_int64`, otherwise as
/// `zarr_array_attribute_double_array` (size query, statuses), plus
/// `ZARR_ERROR_OUT_OF_BOUNDS` for an element outside the int64 range.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `capacity` writable values; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attribute_int64_array(
    array: *const zarr_array,
    key: *const c_char,
    values: *mut i64,
    capacity: usize,
    count_out: *mut usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        list_body(
            "zarr_array_attribute_int64_array",
            || array_holder(array),
            key,
            values,
            capacity,
            count_out,
            attributes::get_i64_list,
        )
    }
}

/// Set the array's attribute `key` to the string `value` (adding it, or replacing the
/// value of an existing key in place).
///
/// The whole attributes document is rewritten atomically (`zarr.json` for Zarr v3,
/// `.zattrs` for v2, the draft layout's `.array.json`), as `zarr_array_set_attributes_json`
/// does: a concurrent reader of the store sees the document before or after the change,
/// never a mixture; handles opened before keep the attributes they read when opened.
/// Setters through one handle are serialised, so none of several concurrent ones is lost;
/// other calls on the handle see the attributes before or after each change. When the
/// store fails, the attributes are unchanged.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` or
/// `value` not UTF-8); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `array` is NULL or live; `key` and `value` are NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attribute_string(
    array: *mut zarr_array,
    key: *const c_char,
    value: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_array_set_attribute_string",
            || array_holder(array),
            key,
            || string_value(value),
        )
    }
}

/// Set the array's attribute `key` to the number `value`. A non-finite value is stored as
/// the string "NaN", "Infinity" or "-Infinity" (JSON has no such numbers; Zarr spells them
/// so), which `zarr_array_attribute_double` reads back. Writing, statuses and thread
/// safety as `zarr_array_set_attribute_string`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attribute_double(
    array: *mut zarr_array,
    key: *const c_char,
    value: f64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_array_set_attribute_double",
            || array_holder(array),
            key,
            || Ok(attributes::f64_value(value)),
        )
    }
}

/// Set the array's attribute `key` to the integer `value`. Writing, statuses and thread
/// safety as `zarr_array_set_attribute_string`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attribute_int64(
    array: *mut zarr_array,
    key: *const c_char,
    value: i64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_array_set_attribute_int64",
            || array_holder(array),
            key,
            || Ok(Value::from(value)),
        )
    }
}

/// Set the array's attribute `key` to the array of `count` doubles at `values` (`(NULL, 0)`
/// is the empty array; non-finite values as in `zarr_array_set_attribute_double`).
/// Writing, statuses and thread safety as `zarr_array_set_attribute_string`, plus
/// `ZARR_ERROR_INVALID_ARGUMENT` for an absurd `count`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `count` readable doubles.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attribute_double_array(
    array: *mut zarr_array,
    key: *const c_char,
    values: *const f64,
    count: usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_array_set_attribute_double_array",
            || array_holder(array),
            key,
            || Ok(attributes::f64_list_value(slice(values, count, "values")?)),
        )
    }
}

/// Set the array's attribute `key` to the array of `count` integers at `values` (`(NULL,
/// 0)` is the empty array). Writing, statuses and thread safety as
/// `zarr_array_set_attribute_string`, plus `ZARR_ERROR_INVALID_ARGUMENT` for an absurd
/// `count`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `count` readable values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attribute_int64_array(
    array: *mut zarr_array,
    key: *const c_char,
    values: *const i64,
    count: usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_array_set_attribute_int64_array",
            || array_holder(array),
            key,
            || Ok(attributes::i64_list_value(slice(values, count, "values")?)),
        )
    }
}

/// Remove the array's attribute `key` (the remaining attributes keep their order).
/// Writing and thread safety as `zarr_array_set_attribute_string`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` not
/// UTF-8); `ZARR_ERROR_NOT_FOUND` (no attribute `key`: nothing is written);
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `array` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_delete_attribute(
    array: *mut zarr_array,
    key: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { delete_body("zarr_array_delete_attribute", || array_holder(array), key) }
}

// ---- groups ---------------------------------------------------------------------------

/// The number of attributes of the group; as `zarr_array_attribute_count`.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `group` is NULL or live; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_count(
    group: *const zarr_group,
    count_out: *mut usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        count_body(
            "zarr_group_attribute_count",
            || group_holder(group),
            count_out,
        )
    }
}

/// The name of the group's attribute number `index`; as `zarr_array_attribute_name`
/// (`name_out` is freed with `zarr_string_free`).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS`;
/// `ZARR_ERROR_INVALID_ARGUMENT` (the name holds a NUL character).
///
/// # Safety
/// `group` is NULL or live; `name_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_name(
    group: *const zarr_group,
    index: usize,
    name_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        name_body(
            "zarr_group_attribute_name",
            || group_holder(group),
            index,
            name_out,
        )
    }
}

/// The group's attribute `key` as a string; as `zarr_array_attribute_string` (`value` is
/// freed with `zarr_string_free`).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `value` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_string(
    group: *const zarr_group,
    key: *const c_char,
    value: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        string_body(
            "zarr_group_attribute_string",
            || group_holder(group),
            key,
            value,
        )
    }
}

/// The group's attribute `key` as a double; conversions as `zarr_array_attribute_double`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `value` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_double(
    group: *const zarr_group,
    key: *const c_char,
    value: *mut f64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        number_body(
            "zarr_group_attribute_double",
            || group_holder(group),
            key,
            value,
            attributes::get_f64,
        )
    }
}

/// The group's attribute `key` as a signed 64-bit integer; conversions as
/// `zarr_array_attribute_int64`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH`; `ZARR_ERROR_OUT_OF_BOUNDS`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `value` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_int64(
    group: *const zarr_group,
    key: *const c_char,
    value: *mut i64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        number_body(
            "zarr_group_attribute_int64",
            || group_holder(group),
            key,
            value,
            attributes::get_i64,
        )
    }
}

/// The group's attribute `key` as an array of doubles; as
/// `zarr_array_attribute_double_array` (size query with `values` NULL and `capacity` 0).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH`; `ZARR_ERROR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `capacity` writable doubles; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_double_array(
    group: *const zarr_group,
    key: *const c_char,
    values: *mut f64,
    capacity: usize,
    count_out: *mut usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        list_body(
            "zarr_group_attribute_double_array",
            || group_holder(group),
            key,
            values,
            capacity,
            count_out,
            attributes::get_f64_list,
        )
    }
}

/// The group's attribute `key` as an array of signed 64-bit integers; as
/// `zarr_array_attribute_int64_array`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_TYPE_MISMATCH`; `ZARR_ERROR_OUT_OF_BOUNDS`;
/// `ZARR_ERROR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `capacity` writable values; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attribute_int64_array(
    group: *const zarr_group,
    key: *const c_char,
    values: *mut i64,
    capacity: usize,
    count_out: *mut usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        list_body(
            "zarr_group_attribute_int64_array",
            || group_holder(group),
            key,
            values,
            capacity,
            count_out,
            attributes::get_i64_list,
        )
    }
}

/// Set the group's attribute `key` to the string `value`; the group's `zarr.json` (v3) or
/// `.zattrs` (v2) is rewritten atomically, as for `zarr_array_set_attribute_string`
/// (same reader view and thread safety).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `key` and `value` are NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attribute_string(
    group: *mut zarr_group,
    key: *const c_char,
    value: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_group_set_attribute_string",
            || group_holder(group),
            key,
            || string_value(value),
        )
    }
}

/// Set the group's attribute `key` to the number `value` (non-finite values as the
/// strings "NaN", "Infinity", "-Infinity"); as `zarr_group_set_attribute_string`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attribute_double(
    group: *mut zarr_group,
    key: *const c_char,
    value: f64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_group_set_attribute_double",
            || group_holder(group),
            key,
            || Ok(attributes::f64_value(value)),
        )
    }
}

/// Set the group's attribute `key` to the integer `value`; as
/// `zarr_group_set_attribute_string`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attribute_int64(
    group: *mut zarr_group,
    key: *const c_char,
    value: i64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_group_set_attribute_int64",
            || group_holder(group),
            key,
            || Ok(Value::from(value)),
        )
    }
}

/// Set the group's attribute `key` to `count` doubles (`(NULL, 0)`: the empty array); as
/// `zarr_group_set_attribute_string`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (also an
/// absurd `count`); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `count` readable doubles.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attribute_double_array(
    group: *mut zarr_group,
    key: *const c_char,
    values: *const f64,
    count: usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_group_set_attribute_double_array",
            || group_holder(group),
            key,
            || Ok(attributes::f64_list_value(slice(values, count, "values")?)),
        )
    }
}

/// Set the group's attribute `key` to `count` integers (`(NULL, 0)`: the empty array); as
/// `zarr_group_set_attribute_string`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (also an
/// absurd `count`); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated; `values` is NULL or holds
/// `count` readable values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attribute_int64_array(
    group: *mut zarr_group,
    key: *const c_char,
    values: *const i64,
    count: usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        set_body(
            "zarr_group_set_attribute_int64_array",
            || group_holder(group),
            key,
            || Ok(attributes::i64_list_value(slice(values, count, "values")?)),
        )
    }
}

/// Remove the group's attribute `key`; as `zarr_array_delete_attribute`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_delete_attribute(
    group: *mut zarr_group,
    key: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { delete_body("zarr_group_delete_attribute", || group_holder(group), key) }
}
