//! `zarr_array_builder`: creating an array from typed settings, so that C, Fortran and
//! Julia programs never write a metadata document by hand.

use super::args::{clear_out, handle, out_ptr, slice, str_arg, write_out};
use super::array::*;
use super::boundary::run;
use super::error::FfiError;
use super::handle::{zarr_array, zarr_store};
use super::status::zarr_status;
use crate::attributes;
use crate::builder::ArrayBuilder;
use crate::data_type::DataType;
use crate::metadata::json::parse_object;
use crate::node::ZarrFormat;
use serde_json::Value;
use std::ffi::{c_char, c_void};

/// Settings for a new array (data type, shape, chunks, shards, fill value, codecs,
/// dimension names, attributes, Zarr format), collected by the `zarr_array_builder_set_*`
/// and `_add_*` functions and turned into an array by `zarr_array_builder_create`.
pub struct zarr_array_builder {
    builder: ArrayBuilder,
}

/// The data type of a `ZARR_DATA_TYPE_*` code.
fn data_type_of(code: zarr_data_type) -> Result<DataType, FfiError> {
    Ok(match code {
        ZARR_DATA_TYPE_BOOL => DataType::Bool,
        ZARR_DATA_TYPE_INT8 => DataType::Int8,
        ZARR_DATA_TYPE_INT16 => DataType::Int16,
        ZARR_DATA_TYPE_INT32 => DataType::Int32,
        ZARR_DATA_TYPE_INT64 => DataType::Int64,
        ZARR_DATA_TYPE_UINT8 => DataType::UInt8,
        ZARR_DATA_TYPE_UINT16 => DataType::UInt16,
        ZARR_DATA_TYPE_UINT32 => DataType::UInt32,
        ZARR_DATA_TYPE_UINT64 => DataType::UInt64,
        ZARR_DATA_TYPE_FLOAT16 => DataType::Float16,
        ZARR_DATA_TYPE_FLOAT32 => DataType::Float32,
        ZARR_DATA_TYPE_FLOAT64 => DataType::Float64,
        ZARR_DATA_TYPE_COMPLEX64 => DataType::Complex64,
        ZARR_DATA_TYPE_COMPLEX128 => DataType::Complex128,
        ZARR_DATA_TYPE_RAW => {
            return Err(FfiError::InvalidArgument(
                "ZARR_DATA_TYPE_RAW needs an element size: create r<N> arrays with \
                 zarr_array_create"
                    .into(),
            ))
        }
        other => {
            return Err(FfiError::InvalidArgument(format!(
                "{other} is not a ZARR_DATA_TYPE_* code"
            )))
        }
    })
}

/// Borrow a builder for a change.
///
/// # Safety
/// `builder` is NULL or a live builder not used by another thread during the call.
unsafe fn builder_mut<'a>(
    builder: *mut zarr_array_builder,
) -> Result<&'a mut ArrayBuilder, FfiError> {
    // SAFETY: per this function's contract.
    Ok(&mut unsafe { builder.as_mut() }
        .ok_or(FfiError::Null("builder"))?
        .builder)
}

/// Run a setter body on a builder, reporting as `function`.
///
/// # Safety
/// `builder` is NULL or a live builder not used by another thread during the call.
unsafe fn setter(
    function: &str,
    builder: *mut zarr_array_builder,
    body: impl FnOnce(&mut ArrayBuilder) -> Result<(), FfiError>,
) -> zarr_status {
    run(function, || {
        // SAFETY: per this function's contract.
        let builder = unsafe { builder_mut(builder) }?;
        body(builder)
    })
}

/// Start the settings of a new array of `data_type` and shape `shape` (`ndim` extents, C
/// order), with defaults for everything else:
///
/// - Zarr v3;
/// - chunk shape: the whole array, halved along its longest chunk extent until a chunk
///   holds at most 4 MiB (zero extents become 1);
/// - no shards; fill value 0 (false, +0.0); codecs: `bytes` (little endian) only;
/// - no dimension names, no attributes.
///
/// - `data_type`: a `ZARR_DATA_TYPE_*` code other than `ZARR_DATA_TYPE_RAW`.
/// - `out`: receives the builder, or NULL on failure. Free it with
///   `zarr_array_builder_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (unknown or
/// raw data type, absurd `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (more than 2^64 elements).
///
/// Thread safety: a builder is plain data; use one from one thread at a time.
///
/// # Safety
/// `shape` is NULL or holds `ndim` values; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_new(
    data_type: zarr_data_type,
    ndim: usize,
    shape: *const u64,
    out: *mut *mut zarr_array_builder,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_array_builder_new", || {
        // SAFETY: per this function's contract.
        let shape = unsafe { slice(shape, ndim, "shape") }?;
        let out = out_ptr(out, "out")?;
        let builder = ArrayBuilder::new(data_type_of(data_type)?, shape)?;
        let handle = Box::new(zarr_array_builder { builder });
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Free a builder. Accepts NULL. Arrays created from it are independent of it.
///
/// # Safety
/// `builder` is NULL or a builder from `zarr_array_builder_new`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_free(builder: *mut zarr_array_builder) {
    if !builder.is_null() {
        // SAFETY: the builder came from Box::into_raw and is freed once, per the contract.
        drop(unsafe { Box::from_raw(builder) });
    }
}

/// Set the chunk shape (`ndim` positive extents, C order). With shards
/// (`zarr_array_builder_set_shard_shape`) this is the shape of the inner chunks, the
/// pieces compressed and read independently inside each shard.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`ndim` is
/// not the array's rank, or an extent is 0); `ZARR_ERROR_OUT_OF_BOUNDS` (one chunk would
/// not fit in memory). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `chunk_shape` is NULL or holds
/// `ndim` values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_chunk_shape(
    builder: *mut zarr_array_builder,
    ndim: usize,
    chunk_shape: *const u64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_chunk_shape", builder, |b| {
            let shape = slice(chunk_shape, ndim, "chunk_shape")?;
            Ok(b.set_chunk_shape(shape)?)
        })
    }
}

/// Store the chunks in shards of `shard_shape` (`ndim` extents, C order; the
/// `sharding_indexed` codec, index at the end with a CRC-32C): each extent must be a
/// positive multiple of the chunk shape's, which is checked by `zarr_array_builder_create`
/// (so the two shapes may be set in either order). The codecs added with
/// `zarr_array_builder_add_codec` then apply to the chunks inside each shard. Zarr v3 only.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`, a zero extent, or the builder is set to Zarr v2). On failure the builder is
/// unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `shard_shape` is NULL or holds
/// `ndim` values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_shard_shape(
    builder: *mut zarr_array_builder,
    ndim: usize,
    shard_shape: *const u64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_shard_shape", builder, |b| {
            let shape = slice(shard_shape, ndim, "shard_shape")?;
            Ok(b.set_shard_shape(shape)?)
        })
    }
}

/// Set the fill value (what unwritten elements read as) from the bytes of one element in
/// host byte order, as in a read buffer: `value_len` must be the element size (bool: one
/// byte, 0 or 1; float16: its IEEE bits; complex: a (real, imaginary) pair).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_BUFFER_SIZE_MISMATCH`
/// (`value_len` is not the element size); `ZARR_ERROR_INVALID_ARGUMENT` (a bool other
/// than 0 or 1). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `value` is NULL or has
/// `value_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_fill_value(
    builder: *mut zarr_array_builder,
    value: *const c_void,
    value_len: usize,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_fill_value", builder, |b| {
            let bytes = slice(value.cast::<u8>(), value_len, "value")?;
            Ok(b.set_fill_value(bytes)?)
        })
    }
}

/// Append a codec by its Zarr v3 name and configuration: "gzip" (`{"level": 0..9}`),
/// "zstd" (`{"level": .., "checksum": false}`), "blosc" (`{"cname": "lz4", "clevel": 5,
/// "shuffle": "shuffle"}`), "crc32c", "transpose" (`{"order": [..]}`), "bytes"
/// (`{"endian": "little" | "big"}`), or a numcodecs codec as "numcodecs.<id>" (such as
/// "numcodecs.zlib" with `{"level": 1}`, or the filter "numcodecs.delta").
///
/// Codecs apply in the order added, to each chunk (inside shards when sharded). When none
/// of them is `bytes`, `bytes` with little-endian order is placed after the array to
/// array codecs (transpose, numcodecs filters). The list is checked at once, against the
/// data type and the current chunk shape; the codec is not added when that fails. For a
/// Zarr v2 array the list becomes the v2 `filters` and `compressor` (the last bytes to
/// bytes codec), checked by `zarr_array_builder_create`.
///
/// - `name`: NUL-terminated codec name.
/// - `configuration_json`: a JSON object text, or NULL for none (the codec's defaults).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (empty
/// name, configuration not a JSON object, a configuration the codec refuses, a codec in
/// an impossible position such as a second `bytes`); `ZARR_ERROR_UNSUPPORTED` (a codec
/// this library does not implement). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `name` is NULL or
/// NUL-terminated; `configuration_json` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_add_codec(
    builder: *mut zarr_array_builder,
    name: *const c_char,
    configuration_json: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_add_codec", builder, |b| {
            let name = str_arg(name, "name")?;
            let configuration = if configuration_json.is_null() {
                None
            } else {
                let text = str_arg(configuration_json, "configuration_json")?;
                Some(
                    parse_object(text.as_bytes(), "configuration_json").map_err(|e| {
                        FfiError::InvalidArgument(format!("configuration_json: {e}"))
                    })?,
                )
            };
            Ok(b.add_codec(name, configuration)?)
        })
    }
}

/// Append the gzip codec at `level` (0 to 9): `zarr_array_builder_add_codec(builder,
/// "gzip", "{\"level\": level}")`, the netCDF-4 `deflate` equivalent.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`level`
/// outside 0 to 9). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread).
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_add_gzip(
    builder: *mut zarr_array_builder,
    level: i32,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_add_gzip", builder, |b| {
            if !(0..=9).contains(&level) {
                return Err(FfiError::InvalidArgument(format!(
                    "gzip level {level} is outside 0 to 9"
                )));
            }
            let configuration = serde_json::json!({ "level": level });
            Ok(b.add_codec("gzip", configuration.as_object().cloned())?)
        })
    }
}

/// Append the zstd codec at `level` (-131072 to 22; 0 is zstd's default, 3), without
/// checksum: `zarr_array_builder_add_codec(builder, "zstd", "{\"level\": level,
/// \"checksum\": false}")`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`level`
/// out of range). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread).
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_add_zstd(
    builder: *mut zarr_array_builder,
    level: i32,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_add_zstd", builder, |b| {
            if !(-131072..=22).contains(&level) {
                return Err(FfiError::InvalidArgument(format!(
                    "zstd level {level} is outside -131072 to 22"
                )));
            }
            let configuration = serde_json::json!({ "level": level, "checksum": false });
            Ok(b.add_codec("zstd", configuration.as_object().cloned())?)
        })
    }
}

/// Name dimension `dim` (0-based, C order), or remove its name with `name` NULL. Zarr v3
/// stores the names as `dimension_names`; Zarr v2 as the `_ARRAY_DIMENSIONS` attribute
/// (xarray's convention), which needs every dimension named (checked by
/// `zarr_array_builder_create`) and replaces an `_ARRAY_DIMENSIONS` set as an attribute.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`builder`); `ZARR_ERROR_INVALID_ARGUMENT`
/// (`name` not UTF-8); `ZARR_ERROR_OUT_OF_BOUNDS` (`dim` is not below the rank).
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `name` is NULL or
/// NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_dimension_name(
    builder: *mut zarr_array_builder,
    dim: usize,
    name: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_dimension_name", builder, |b| {
            let name = if name.is_null() {
                None
            } else {
                Some(str_arg(name, "name")?)
            };
            Ok(b.set_dimension_name(dim, name)?)
        })
    }
}

/// Replace all attributes with the JSON object text `attributes_json` (the typed setters
/// below add to them).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (not UTF-8,
/// not JSON, not an object). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `attributes_json` is NULL or
/// NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_attributes_json(
    builder: *mut zarr_array_builder,
    attributes_json: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_attributes_json", builder, |b| {
            let text = str_arg(attributes_json, "attributes_json")?;
            let attributes = parse_object(text.as_bytes(), "attributes_json")
                .map_err(|e| FfiError::InvalidArgument(format!("attributes_json: {e}")))?;
            *b.attributes_mut() = attributes;
            Ok(())
        })
    }
}

/// Set the attribute `key` to the string `value` (as `zarr_array_set_attribute_string`
/// does on an array).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` or
/// `value` not UTF-8).
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `key` and `value` are NULL or
/// NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_attribute_string(
    builder: *mut zarr_array_builder,
    key: *const c_char,
    value: *const c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_attribute_string", builder, |b| {
            let key = str_arg(key, "key")?;
            let value = str_arg(value, "value")?;
            b.attributes_mut()
                .insert(key.to_string(), Value::from(value));
            Ok(())
        })
    }
}

/// Set the attribute `key` to the number `value` (non-finite values as the strings "NaN",
/// "Infinity", "-Infinity", as `zarr_array_set_attribute_double` does).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` not
/// UTF-8).
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `key` is NULL or
/// NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_attribute_double(
    builder: *mut zarr_array_builder,
    key: *const c_char,
    value: f64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_attribute_double", builder, |b| {
            let key = str_arg(key, "key")?;
            b.attributes_mut()
                .insert(key.to_string(), attributes::f64_value(value));
            Ok(())
        })
    }
}

/// Set the attribute `key` to the integer `value`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (`key` not
/// UTF-8).
///
/// # Safety
/// `builder` is NULL or live (not used by another thread); `key` is NULL or
/// NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_attribute_int64(
    builder: *mut zarr_array_builder,
    key: *const c_char,
    value: i64,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_attribute_int64", builder, |b| {
            let key = str_arg(key, "key")?;
            b.attributes_mut()
                .insert(key.to_string(), Value::from(value));
            Ok(())
        })
    }
}

/// Choose the Zarr format: 3 (the default) or 2 (`.zarray`, `.zattrs`, read by
/// zarr-python 2, netCDF-C and GDAL alike; no shards, codecs mapped to v2 `filters` and
/// `compressor`, chunk keys separated by ".").
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (a format
/// other than 2 or 3, or 2 with a shard shape set). On failure the builder is unchanged.
///
/// # Safety
/// `builder` is NULL or live (not used by another thread).
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_set_format(
    builder: *mut zarr_array_builder,
    zarr_format: u32,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        setter("zarr_array_builder_set_format", builder, |b| {
            let format = match zarr_format {
                2 => ZarrFormat::V2,
                3 => ZarrFormat::V3,
                other => {
                    return Err(FfiError::InvalidArgument(format!(
                        "zarr_format is {other}; arrays are created as Zarr 2 or 3"
                    )))
                }
            };
            Ok(b.set_format(format)?)
        })
    }
}

/// Create an array at `path` from the builder's settings (the builder is unchanged and
/// may create more arrays). Missing ancestor groups are created in the same format. No
/// data is written: every chunk reads as the fill value. A Zarr v2 array with attributes
/// is two documents, `.zarray` then `.zattrs`; if the store fails between them the array
/// exists without its attributes.
///
/// - `store`: the store to create in.
/// - `path`: absolute node path, such as "/temperature".
/// - `out`: receives the new array, or NULL on failure. Free with `zarr_array_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH`;
/// `ZARR_ERROR_INVALID_ARGUMENT` (settings that do not fit together: a shard shape that
/// is not a multiple of the chunk shape, codecs that do not fit the chunk shape set
/// after them, a v2 array with some dimensions unnamed or with a codec v2 cannot store);
/// `ZARR_ERROR_UNSUPPORTED`; `ZARR_ERROR_ALREADY_EXISTS`; `ZARR_ERROR_NODE_TYPE_MISMATCH`
/// (an ancestor is an array); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// Thread safety: do not create the same path from two threads at once.
///
/// # Safety
/// `builder` is NULL or live; `store` is NULL or live; `path` is NULL or NUL-terminated;
/// `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_builder_create(
    builder: *const zarr_array_builder,
    store: *mut zarr_store,
    path: *const c_char,
    out: *mut *mut zarr_array,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_array_builder_create", || {
        // SAFETY: per this function's contract.
        let builder = &unsafe { handle(builder, "builder") }?.builder;
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(out, "out")?;
        let array = builder.create(store.storage.clone(), path)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, Box::into_raw(Box::new(zarr_array { array }))) };
        Ok(())
    })
}
