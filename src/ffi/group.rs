//! `zarr_group`: creating and opening groups, attributes, listing children.

use super::args::{clear_out, handle, out_ptr, str_arg, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::{zarr_group, zarr_store};
use super::status::zarr_status;
use super::strings::owned_c_string;
use crate::group::{Child, Group};
use crate::metadata::json::parse_object;
use crate::node::ZarrFormat;
use serde_json::{json, Map, Value};
use std::ffi::c_char;

/// The body of `zarr_group_create` and `zarr_group_create_v2`, reporting as `function`.
///
/// # Safety
/// As those functions: pointers are NULL or valid, strings NUL-terminated, `out` writable.
unsafe fn create_group(
    function: &'static str,
    store: *mut zarr_store,
    path: *const c_char,
    attributes_json: *const c_char,
    out: *mut *mut zarr_group,
    format: ZarrFormat,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run(function, || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        // SAFETY: per this function's contract.
        let attributes = unsafe { attributes_arg(attributes_json) }?;
        let out = out_ptr(out, "out")?;
        let group = Group::create(store.storage.clone(), path, attributes, format)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, Box::into_raw(Box::new(zarr_group { group }))) };
        Ok(())
    })
}

/// Nodes as the JSON text the listing functions return:
/// `[{"name": ..., "path": ..., "node_type": "array" | "group"}, ...]`.
fn nodes_json(nodes: Vec<Child>) -> String {
    let nodes: Vec<Value> = nodes
        .into_iter()
        .map(|c| json!({"name": c.name, "path": c.path, "node_type": c.node_type.as_str()}))
        .collect();
    Value::Array(nodes).to_string()
}

/// The body of the listing functions: the nodes `list` gives for `group`, written to
/// `json_out` as [`nodes_json`] text (NULL on failure).
///
/// # Safety
/// `group` is NULL or live; `json_out` is NULL or writable.
unsafe fn list_nodes(
    function: &str,
    group: *const zarr_group,
    json_out: *mut *mut c_char,
    list: impl FnOnce(&Group) -> Result<Vec<Child>, crate::error::Error>,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run(function, || {
        // SAFETY: per this function's contract.
        let group = unsafe { handle(group, "group") }?;
        let out = out_ptr(json_out, "json_out")?;
        let text = owned_c_string(nodes_json(list(&group.group)?))?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// Parse an optional attributes argument: NULL means no attributes.
///
/// # Safety
/// `text` is NULL or NUL-terminated.
pub(super) unsafe fn attributes_arg(text: *const c_char) -> Result<Map<String, Value>, FfiError> {
    if text.is_null() {
        return Ok(Map::new());
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    let text = unsafe { str_arg(text, "attributes_json") }?;
    parse_object(text.as_bytes(), "attributes_json")
        .map_err(|e| FfiError::InvalidArgument(format!("attributes_json: {e}")))
}

/// Create a group at `path` with the given attributes.
///
/// - `store`: the store to create in.
/// - `path`: absolute node path ("/" for the root group, "/a/b" ...). Missing ancestor
///   groups are created.
/// - `attributes_json`: a JSON object text, or NULL for no attributes.
/// - `out`: receives the new group, or NULL on failure. Free with `zarr_group_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (attributes
/// not a JSON object); `ZARR_ERROR_INVALID_PATH`; `ZARR_ERROR_ALREADY_EXISTS`;
/// `ZARR_ERROR_NODE_TYPE_MISMATCH` (an ancestor is an array); `ZARR_ERROR_IO`.
///
/// # Safety
/// Pointers are NULL or valid: `store` live, strings NUL-terminated, `out` writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_create(
    store: *mut zarr_store,
    path: *const c_char,
    attributes_json: *const c_char,
    out: *mut *mut zarr_group,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        create_group(
            "zarr_group_create",
            store,
            path,
            attributes_json,
            out,
            ZarrFormat::V3,
        )
    }
}

/// Deprecated name of `zarr_group_create_with_format` with `zarr_format` 2 (same
/// arguments otherwise, same statuses), kept for one release.
///
/// # Safety
/// Pointers are NULL or valid: `store` live, strings NUL-terminated, `out` writable.
#[must_use]
#[no_mangle]
#[deprecated(note = "use zarr_group_create_with_format(store, path, attributes_json, 2, out)")]
pub unsafe extern "C" fn zarr_group_create_v2(
    store: *mut zarr_store,
    path: *const c_char,
    attributes_json: *const c_char,
    out: *mut *mut zarr_group,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe {
        create_group(
            "zarr_group_create_v2",
            store,
            path,
            attributes_json,
            out,
            ZarrFormat::V2,
        )
    }
}

/// Open the group at `path`, stored as Zarr v3, Zarr v2 (`.zgroup`) or in the 2022
/// draft v3 layout (`meta/root/...`, including implicit groups).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH`;
/// `ZARR_ERROR_NOT_FOUND`; `ZARR_ERROR_NODE_TYPE_MISMATCH` (an array is there);
/// `ZARR_ERROR_INVALID_METADATA`; `ZARR_ERROR_UNSUPPORTED`; `ZARR_ERROR_IO`.
///
/// # Safety
/// Pointers are NULL or valid: `store` live, `path` NUL-terminated, `out` writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_open(
    store: *const zarr_store,
    path: *const c_char,
    out: *mut *mut zarr_group,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_group_open", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(out, "out")?;
        let group = Group::open(store.storage.clone(), path)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, Box::into_raw(Box::new(zarr_group { group }))) };
        Ok(())
    })
}

/// Free a group handle. Accepts NULL.
///
/// # Safety
/// `group` is NULL or a handle from `zarr_group_open` / `zarr_group_create`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn zarr_group_free(group: *mut zarr_group) {
    if !group.is_null() {
        // SAFETY: the handle came from Box::into_raw and is freed once, per the contract.
        drop(unsafe { Box::from_raw(group) });
    }
}

/// The group's attributes as a JSON object text (`{}` when there are none).
///
/// - `json_out`: receives a new string owned by the caller (free with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `group` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_attributes_json(
    group: *const zarr_group,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_group_attributes_json", || {
        // SAFETY: per this function's contract.
        let group = unsafe { handle(group, "group") }?;
        let out = out_ptr(json_out, "json_out")?;
        let text = owned_c_string(Value::Object(group.group.attributes()).to_string())?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// Replace the group's attributes with the JSON object `attributes_json` and rewrite its
/// `zarr.json` atomically.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (not a JSON
/// object); `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `attributes_json` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attributes_json(
    group: *mut zarr_group,
    attributes_json: *const c_char,
) -> zarr_status {
    run("zarr_group_set_attributes_json", || {
        // SAFETY: per this function's contract.
        let group = unsafe { handle(group, "group") }?;
        // SAFETY: per this function's contract.
        let text = unsafe { str_arg(attributes_json, "attributes_json") }?;
        let attributes = parse_object(text.as_bytes(), "attributes_json")
            .map_err(|e| FfiError::InvalidArgument(format!("attributes_json: {e}")))?;
        // Under the metadata lock, so that it cannot race with the typed setters.
        group.group.update_attributes(|current| {
            *current = attributes;
            Ok::<(), FfiError>(())
        })
    })
}

/// The group's direct children as JSON text: an array, sorted by name, of objects
/// `{"name": "a", "path": "/g/a", "node_type": "array" | "group"}`.
///
/// Sub-directories without node metadata (such as chunk directories) are not children.
///
/// - `json_out`: receives a new string owned by the caller (free with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_METADATA` (a child's
/// `zarr.json` is malformed); `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_children_json(
    group: *const zarr_group,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract, which is list_nodes's.
    unsafe { list_nodes("zarr_group_children_json", group, json_out, Group::children) }
}

/// Every node below the group as JSON text: an array of objects
/// `{"name": "b", "path": "/a/b", "node_type": "array" | "group"}`, depth first, each
/// group listed before its contents, siblings sorted by name. Works for all three
/// layouts.
///
/// - `json_out`: receives a new string owned by the caller (free with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_METADATA` (a
/// node's metadata is malformed); `ZARR_ERROR_IO`.
///
/// # Safety
/// `group` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_descendants_json(
    group: *const zarr_group,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract, which is list_nodes's.
    unsafe {
        list_nodes(
            "zarr_group_descendants_json",
            group,
            json_out,
            Group::descendants,
        )
    }
}

/// Write consolidated metadata for every node below the group: an inline
/// `consolidated_metadata` object in a v3 group's `zarr.json` (as zarr-python writes
/// it), or a `.zmetadata` document beside a v2 group's `.zgroup`. Readers that open the
/// store with `zarr_store_open_consolidated` then open any node without further metadata
/// reads. The result is a snapshot: call again after adding nodes or changing metadata.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (a group
/// in the read-only 2022 draft layout); `ZARR_ERROR_INVALID_METADATA` (a node's metadata
/// is malformed); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// Thread safety: do not change the hierarchy from another thread meanwhile.
///
/// # Safety
/// `group` is NULL or live.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_consolidate(group: *const zarr_group) -> zarr_status {
    run("zarr_group_consolidate", || {
        // SAFETY: per this function's contract.
        let group = unsafe { handle(group, "group") }?;
        group.group.consolidate()?;
        Ok(())
    })
}

/// Deprecated name of `zarr_group_format` (same arguments and statuses), kept for one
/// release.
///
/// # Safety
/// `group` is NULL or a live handle; `format_out` is NULL or writable.
#[must_use]
#[no_mangle]
#[deprecated(note = "use zarr_group_format")]
pub unsafe extern "C" fn zarr_group_zarr_format(
    group: *const zarr_group,
    format_out: *mut u32,
) -> zarr_status {
    // SAFETY: per this function's contract, which is format_body's.
    unsafe { format_body("zarr_group_zarr_format", group, format_out) }
}

/// The body of `zarr_group_format` and its deprecated alias, reporting as `function`.
///
/// # Safety
/// `group` is NULL or a live handle; `format_out` is NULL or writable.
unsafe fn format_body(
    function: &str,
    group: *const zarr_group,
    format_out: *mut u32,
) -> zarr_status {
    run(function, || {
        // SAFETY: per this function's contract.
        let group = unsafe { handle(group, "group") }?;
        let out = out_ptr(format_out, "format_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, group.group.format().number()) };
        Ok(())
    })
}

/// The Zarr format the group is stored in: 3 (including the 2022 draft layout) or 2.
///
/// - `format_out`: receives 2 or 3.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `group` is NULL or a live handle; `format_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_format(
    group: *const zarr_group,
    format_out: *mut u32,
) -> zarr_status {
    // SAFETY: per this function's contract, which is format_body's.
    unsafe { format_body("zarr_group_format", group, format_out) }
}

/// Create a group at `path` in Zarr format `zarr_format`: 3 (`zarr.json`) or 2
/// (`.zgroup`, attributes in `.zattrs`). Missing ancestor groups are created in the same
/// format. Create v2 arrays inside a v2 group with a `zarr_array_builder` set to format 2,
/// or by passing a `.zarray` document to `zarr_array_create`. Otherwise as
/// `zarr_group_create`.
///
/// - `store`: the store to create in.
/// - `path`: absolute node path ("/" for the root group).
/// - `attributes_json`: a JSON object text, or NULL for no attributes.
/// - `zarr_format`: 2 or 3.
/// - `out`: receives the new group, or NULL on failure. Free with `zarr_group_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (a
/// `zarr_format` other than 2 or 3, attributes not a JSON object);
/// `ZARR_ERROR_INVALID_PATH`; `ZARR_ERROR_ALREADY_EXISTS`; `ZARR_ERROR_NODE_TYPE_MISMATCH`
/// (an ancestor is an array); `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// Thread safety: do not create the same path from two threads at once.
///
/// # Safety
/// Pointers are NULL or valid: `store` live, strings NUL-terminated, `out` writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_create_with_format(
    store: *mut zarr_store,
    path: *const c_char,
    attributes_json: *const c_char,
    zarr_format: u32,
    out: *mut *mut zarr_group,
) -> zarr_status {
    let format = match zarr_format {
        2 => ZarrFormat::V2,
        3 => ZarrFormat::V3,
        other => {
            // SAFETY: per this function's contract.
            unsafe { clear_out(out) };
            return run("zarr_group_create_with_format", || {
                Err(FfiError::InvalidArgument(format!(
                    "zarr_format is {other}; groups are created as Zarr 2 or 3"
                )))
            });
        }
    };
    // SAFETY: per this function's contract.
    unsafe {
        create_group(
            "zarr_group_create_with_format",
            store,
            path,
            attributes_json,
            out,
            format,
        )
    }
}
