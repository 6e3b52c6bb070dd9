//! What a netCDF or HDF5 programmer asks of arrays and groups, without JSON text: the
//! dimension names, the fill value, the codecs, and the children of a group by index.

use super::args::{clear_out, handle, out_ptr, slice_mut, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::{zarr_array, zarr_group};
use super::status::zarr_status;
use super::strings::owned_c_string;
use crate::error::Error;
use crate::group::{Child, Group};
use crate::metadata::v3::NodeType;
use serde_json::Value;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// The kind of a node: one of the `ZARR_NODE_TYPE_*` values.
#[allow(non_camel_case_types)]
pub type zarr_node_type = i32;

/// An array.
pub const ZARR_NODE_TYPE_ARRAY: zarr_node_type = 1;
/// A group.
pub const ZARR_NODE_TYPE_GROUP: zarr_node_type = 2;

/// The error for an index past the end of a list of `len` things.
fn index_error(what: &str, index: usize, len: usize) -> FfiError {
    FfiError::Core(Error::OutOfBounds(format!(
        "{what} index {index} is outside the {len} {what}s"
    )))
}

/// A string output, or the error for text C cannot hold.
fn c_text(text: String, what: &str) -> Result<*mut c_char, FfiError> {
    owned_c_string(text)
        .map_err(|_| FfiError::InvalidArgument(format!("the {what} holds a NUL character")))
}

/// The name of dimension `dim` of the array, or NULL when that dimension has no name.
///
/// Zarr v3 arrays keep names in `zarr.json`'s `dimension_names`. For Zarr v2 arrays the
/// names are the `_ARRAY_DIMENSIONS` attribute, the convention of xarray that netCDF-C,
/// GDAL and every v2 reader follow; for the 2022 draft layout the document's
/// `dimension_names`, else `_ARRAY_DIMENSIONS`. An array without names gives NULL for
/// every dimension (status `ZARR_OK`).
///
/// - `dim`: 0-based dimension, in C order (the first dimension is the slowest varying).
/// - `name`: receives a new NUL-terminated UTF-8 string owned by the caller (free it with
///   `zarr_string_free`), or NULL when the dimension is unnamed or on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (`dim` is not
/// below the rank); `ZARR_ERROR_INVALID_METADATA` (a v2 `_ARRAY_DIMENSIONS` that is not a
/// list of strings, one per dimension); `ZARR_ERROR_INVALID_ARGUMENT` (a name holding a
/// NUL character).
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `name` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_dimension_name(
    array: *const zarr_array,
    dim: usize,
    name: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(name) };
    run("zarr_array_dimension_name", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        let out = out_ptr(name, "name")?;
        let names = array.dimension_names()?;
        let Some(entry) = names.get(dim) else {
            return Err(FfiError::Core(Error::OutOfBounds(format!(
                "dimension {dim} is outside the array's {} dimensions",
                names.len()
            ))));
        };
        let text = match entry {
            Some(text) => c_text(text.clone(), "dimension name")?,
            None => std::ptr::null_mut(),
        };
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The array's fill value (what unwritten elements read as): the bytes of one element in
/// host byte order, as an element of a read buffer (`zarr_array_element_size` bytes; bool
/// is one byte 0/1, float16 its IEEE bits, complex a (real, imaginary) pair).
///
/// - `buf`, `buf_len`: the caller's buffer; the first `zarr_array_element_size` bytes are
///   written, nothing beyond them.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_BUFFER_TOO_SMALL` (`buf_len`
/// below the element size; nothing is written); `ZARR_ERROR_INVALID_ARGUMENT` (absurd
/// `buf_len`); `ZARR_ERROR_UNSUPPORTED` (variable-length elements, `string` and `bytes`:
/// their fill value is the `fill_value` of `zarr_array_metadata_json`).
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `buf` is NULL or has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_fill_value(
    array: *const zarr_array,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_fill_value", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        let data_type = array.data_type();
        if data_type.is_variable_length() {
            return Err(FfiError::Core(Error::Unsupported(format!(
                "the fill value of a {} array has no fixed size: it is the `fill_value` of \
                 zarr_array_metadata_json, and what zarr_array_read_vlen gives for elements \
                 never written",
                data_type.name()
            ))));
        }
        let fill = array.fill_value();
        let bytes = fill.as_bytes();
        // SAFETY: per this function's contract.
        let out = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        if out.len() < bytes.len() {
            return Err(FfiError::Core(Error::BufferTooSmall {
                needed: bytes.len(),
                given: out.len(),
            }));
        }
        out[..bytes.len()].copy_from_slice(bytes);
        Ok(())
    })
}

/// The array's fill value (what unwritten elements read as) converted to double, as
/// `zarr_array_read_double` converts elements.
///
/// Xarray keeps a Zarr v2 variable's `_FillValue` here (in the `.zarray`'s `fill_value`,
/// not among the attributes), so a CF reader of Zarr v2 compares the values of
/// `zarr_array_read_double` with this one. A v2 `fill_value` of `null` declares no fill
/// value: `ZARR_ERROR_NOT_FOUND` (unwritten elements still read as 0).
///
/// - `value_out`: receives the value (written only on success).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_NOT_FOUND` (a Zarr v2
/// `fill_value` of `null`); `ZARR_ERROR_TYPE_MISMATCH` (a data type that
/// `zarr_array_read_double` refuses; the message names it).
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `value_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_fill_value_double(
    array: *const zarr_array,
    value_out: *mut f64,
) -> zarr_status {
    run("zarr_array_fill_value_double", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        let out = out_ptr(value_out, "value_out")?;
        let value = array.fill_value_f64()?.ok_or_else(|| {
            FfiError::NotFound(
                "the Zarr v2 array's fill_value is null: it declares no fill value".into(),
            )
        })?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, value) };
        Ok(())
    })
}

/// The number of codecs of the array, in encoding order (see `zarr_array_codec_name`).
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_codec_count(
    array: *const zarr_array,
    count_out: *mut usize,
) -> zarr_status {
    run("zarr_array_codec_count", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        let out = out_ptr(count_out, "count_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, array.codecs().len()) };
        Ok(())
    })
}

/// The name of the array's codec number `index` (0-based, in encoding order: array to
/// array codecs, then the array to bytes codec, then bytes to bytes codecs), as Zarr v3
/// names it: "transpose", "bytes", "sharding_indexed", "gzip", "zstd", "blosc",
/// "crc32c", or "numcodecs.<id>" for numcodecs codecs. A Zarr v2 array lists its v3
/// equivalent: "transpose" for order F, its filters and compressor as "numcodecs.<id>"
/// (such as "numcodecs.zlib"), and "bytes". For a sharded array the one top-level codec
/// is "sharding_indexed"; its inner codecs are in its configuration
/// (`zarr_array_codec_configuration_json`).
///
/// - `name`: receives a new NUL-terminated string owned by the caller (free it with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (`index` is not
/// below `zarr_array_codec_count`).
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `name` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_codec_name(
    array: *const zarr_array,
    index: usize,
    name: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(name) };
    run("zarr_array_codec_name", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        let out = out_ptr(name, "name")?;
        let codecs = array.codecs();
        let codec = codecs
            .get(index)
            .ok_or_else(|| index_error("codec", index, codecs.len()))?;
        let text = c_text(codec.name.clone(), "codec name")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The configuration of the array's codec number `index` as a JSON object text (`{}` for
/// a codec without configuration), such as `{"level":5}` for gzip.
///
/// - `json_out`: receives a new string owned by the caller (free it with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (`index` is
/// not below `zarr_array_codec_count`).
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_codec_configuration_json(
    array: *const zarr_array,
    index: usize,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_array_codec_configuration_json", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        let out = out_ptr(json_out, "json_out")?;
        let codecs = array.codecs();
        let codec = codecs
            .get(index)
            .ok_or_else(|| index_error("codec", index, codecs.len()))?;
        let configuration = Value::Object(codec.configuration.clone().unwrap_or_default());
        let text = owned_c_string(configuration.to_string())?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The group's children as last listed by `zarr_group_child_count`, listing them now when
/// it was never called on this handle.
fn snapshot(group: &Group) -> Result<Arc<Vec<Child>>, FfiError> {
    Ok(group.children_snapshot()?)
}

/// List the group's direct children now and give their number; the children are then
/// available by index (0 .. count-1, sorted by name) through `zarr_group_child_name` and
/// `zarr_group_child_node_type`, as with netCDF's `nc_inq_varids`.
///
/// The list is a snapshot kept in the handle: indexes stay valid, and refer to the same
/// children, while other handles or programs change the hierarchy, until the next call
/// of this function on the handle refreshes it. Sub-directories without node metadata
/// (chunk directories, stray folders) are not children; children whose metadata this
/// library cannot read as an array (string data types, unknown codecs) are listed all the
/// same, with their node type.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_METADATA` (a child's
/// metadata is malformed); `ZARR_ERROR_IO`.
///
/// Thread safety: may be called concurrently with other calls on the handle; an index
/// read concurrently with a refresh refers to the old or the new list.
///
/// # Safety
/// `group` is NULL or live; `count_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_child_count(
    group: *const zarr_group,
    count_out: *mut usize,
) -> zarr_status {
    run("zarr_group_child_count", || {
        // SAFETY: per this function's contract.
        let group = &unsafe { handle(group, "group") }?.group;
        let out = out_ptr(count_out, "count_out")?;
        let children = group.refresh_children()?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, children.len()) };
        Ok(())
    })
}

/// The name of the group's child number `index` in the list taken by
/// `zarr_group_child_count` (the last path segment, such as "temperature"; the child's
/// path is the group's path joined with it).
///
/// - `name`: receives a new NUL-terminated string owned by the caller (free it with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (`index` is
/// not below the count); `ZARR_ERROR_INVALID_METADATA` and `ZARR_ERROR_IO` (only when no
/// list was taken yet on this handle and listing fails).
///
/// Thread safety: as `zarr_group_child_count`.
///
/// # Safety
/// `group` is NULL or live; `name` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_child_name(
    group: *const zarr_group,
    index: usize,
    name: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(name) };
    run("zarr_group_child_name", || {
        // SAFETY: per this function's contract.
        let group = &unsafe { handle(group, "group") }?.group;
        let out = out_ptr(name, "name")?;
        let children = snapshot(group)?;
        let child = children
            .get(index)
            .ok_or_else(|| index_error("child", index, children.len()))?;
        let text = c_text(child.name.clone(), "child name")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The node type of the group's child number `index` in the list taken by
/// `zarr_group_child_count`: `ZARR_NODE_TYPE_ARRAY` or `ZARR_NODE_TYPE_GROUP`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS`;
/// `ZARR_ERROR_INVALID_METADATA` and `ZARR_ERROR_IO` (only when no list was taken yet).
///
/// Thread safety: as `zarr_group_child_count`.
///
/// # Safety
/// `group` is NULL or live; `node_type_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_child_node_type(
    group: *const zarr_group,
    index: usize,
    node_type_out: *mut zarr_node_type,
) -> zarr_status {
    run("zarr_group_child_node_type", || {
        // SAFETY: per this function's contract.
        let group = &unsafe { handle(group, "group") }?.group;
        let out = out_ptr(node_type_out, "node_type_out")?;
        let children = snapshot(group)?;
        let child = children
            .get(index)
            .ok_or_else(|| index_error("child", index, children.len()))?;
        let code = match child.node_type {
            NodeType::Array => ZARR_NODE_TYPE_ARRAY,
            NodeType::Group => ZARR_NODE_TYPE_GROUP,
        };
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, code) };
        Ok(())
    })
}
