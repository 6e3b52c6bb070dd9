//! `zarr_store`, seen as what it is below the Zarr layer: keys and byte values. For tools
//! that copy what they cannot decode (a codec this build lacks), check a store's contents,
//! or fetch raw chunks to decode elsewhere; and the metadata document of any node, even
//! one that cannot be opened as an array or group here.

use super::args::{clear_out, handle, out_ptr, slice, slice_mut, str_arg, write_out};
use super::boundary::run;
use super::handle::zarr_store;
use super::status::zarr_status;
use super::strings::owned_c_string;
use crate::error::Error;
use crate::node::{find_node, missing_node_error, NodePath, ZarrFormat};
use serde_json::{json, Value};
use std::ffi::{c_char, c_void};

/// Read the value stored at `key` into `buf`.
///
/// Call with `buf` NULL and `buf_capacity` 0 to learn the value's size (in `size_out`);
/// then again with a buffer at least that large. Keys are store-relative, `/`-separated,
/// without a leading `/` (`"a/b/zarr.json"`, `"a/b/c/0/1"`): the key of an array's chunk is
/// given by `zarr_array_chunk_key`.
///
/// - `size_out`: receives the value's size in bytes (also on BUFFER_TOO_SMALL).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`store`, `key` or `size_out`, or `buf`
/// with a non-zero capacity); `ZARR_ERROR_NOT_FOUND` (no value at `key`);
/// `ZARR_ERROR_BUFFER_TOO_SMALL`; `ZARR_ERROR_INVALID_PATH` (a key with an empty, `.` or
/// `..` segment, a backslash or a leading `/`); `ZARR_ERROR_OUT_OF_MEMORY`;
/// `ZARR_ERROR_IO`. On any error `buf` is unchanged.
///
/// Thread safety: safe from several threads on one store.
///
/// # Safety
/// `store` is NULL or live; `key` is NULL or NUL-terminated; `buf` is NULL or has
/// `buf_capacity` writable bytes; `size_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_get(
    store: *const zarr_store,
    key: *const c_char,
    buf: *mut c_void,
    buf_capacity: usize,
    size_out: *mut usize,
) -> zarr_status {
    run("zarr_store_get", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        let size_out = out_ptr(size_out, "size_out")?;
        let size_query = buf.is_null() && buf_capacity == 0;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_capacity, "buf") }?;
        let value = store
            .storage
            .get(key)
            .map_err(Error::from)?
            .ok_or_else(|| {
                Error::NotFound(crate::storage::missing_key_message(
                    store.storage.as_ref(),
                    key,
                ))
            })?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(size_out, value.len()) };
        if size_query {
            return Ok(());
        }
        if buf.len() < value.len() {
            return Err(Error::BufferTooSmall {
                needed: value.len(),
                given: buf.len(),
            }
            .into());
        }
        buf[..value.len()].copy_from_slice(&value);
        Ok(())
    })
}

/// Store `buf` as the value at `key`, replacing any value (atomically where the store can:
/// a temporary file renamed into place on the file system). No Zarr check is made: this
/// writes bytes, not chunks.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`store`, `key`, or `buf` with a non-zero
/// length); `ZARR_ERROR_INVALID_PATH`; `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// Thread safety: safe from several threads on one store for different keys.
///
/// # Safety
/// `store` is NULL or live; `key` is NULL or NUL-terminated; `buf` is NULL or has
/// `buf_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_set(
    store: *mut zarr_store,
    key: *const c_char,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_store_set", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        store.storage.set(key, buf).map_err(Error::from)?;
        Ok(())
    })
}

/// Remove the value at `key`; removing a key that has no value is not an error.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH`;
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// # Safety
/// `store` is NULL or live; `key` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_erase(
    store: *mut zarr_store,
    key: *const c_char,
) -> zarr_status {
    run("zarr_store_erase", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let key = unsafe { str_arg(key, "key") }?;
        store.storage.erase(key).map_err(Error::from)?;
        Ok(())
    })
}

/// List one level of the store under `prefix` (`""` for the top, otherwise a key followed
/// by `/`), as JSON text: `{"keys": [...], "prefixes": [...]}`, the names relative to
/// `prefix`, sorted, child prefixes without their trailing `/`.
///
/// - `json_out`: receives the text (free with `zarr_string_free`), NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH` (a malformed
/// prefix); `ZARR_ERROR_UNSUPPORTED` (a store that cannot list, such as plain HTTP);
/// `ZARR_ERROR_IO`.
///
/// # Safety
/// `store` is NULL or live; `prefix` is NULL or NUL-terminated; `json_out` is NULL or
/// writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_list_json(
    store: *const zarr_store,
    prefix: *const c_char,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_store_list_json", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let prefix = unsafe { str_arg(prefix, "prefix") }?;
        let out = out_ptr(json_out, "json_out")?;
        let listing = store.storage.list_dir(prefix).map_err(Error::from)?;
        let text = json!({"keys": listing.keys, "prefixes": listing.prefixes}).to_string();
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, owned_c_string(text)?) };
        Ok(())
    })
}

/// The metadata of the node at `path` as stored, as JSON text, whatever its data type and
/// codecs (also for an array this build cannot open): the v3 `zarr.json` document; the v2
/// `.zarray` or `.zgroup` document with the node's `.zattrs` added under `"attributes"`;
/// the 2022 draft's `.array.json` / `.group.json` document (an empty object for an
/// implicit group). Through a store from `zarr_store_open_consolidated` it comes from the
/// consolidated snapshot. `"zarr_format"` and `"node_type"` are set in every case (3, 2 or
/// `"2022-draft"`; `"array"` or `"group"`), whatever the layout spells.
///
/// - `path`: absolute node path ("/" or "/a/b").
/// - `json_out`: receives the text (free with `zarr_string_free`), NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_INVALID_METADATA` (a document that is not a JSON
/// object); `ZARR_ERROR_IO`.
///
/// # Safety
/// `store` is NULL or live; `path` is NULL or NUL-terminated; `json_out` is NULL or
/// writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_node_metadata_json(
    store: *const zarr_store,
    path: *const c_char,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_store_node_metadata_json", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(json_out, "json_out")?;
        let path = NodePath::new(path).map_err(Error::from)?;
        let node = find_node(store.storage.as_ref(), &path)?
            .ok_or_else(|| missing_node_error(store.storage.as_ref(), &path))?;
        let mut document = node.document;
        if node.format == ZarrFormat::V2 {
            document.insert("attributes".into(), Value::Object(node.v2_attributes));
        }
        let format = match node.format {
            ZarrFormat::V3 => json!(3),
            ZarrFormat::V2 => json!(2),
            ZarrFormat::V3Draft2022 => json!("2022-draft"),
        };
        document.insert("zarr_format".into(), format);
        document.insert("node_type".into(), json!(node.node_type.as_str()));
        let text = Value::Object(document).to_string();
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, owned_c_string(text)?) };
        Ok(())
    })
}
