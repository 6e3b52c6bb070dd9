//! Stores of the caller's own: a versioned table of C callbacks (in the manner of SQLite's
//! VFS and HDF5's virtual file drivers) that libzarr calls for every key it reads, writes,
//! erases or lists.
//!
//! Values travel without cross-allocator frees: the library hands a read callback a
//! `zarr_sink`, into which the callback writes the value (`zarr_sink_write` copies from
//! the callback's memory; `zarr_sink_extend` gives the callback room inside the library's
//! buffer to fill in place, so a value read from a file or socket is never copied twice).
//! The library owns the sink and everything in it; the callback owns what it passes in.

use super::args::{clear_out, out_ptr, slice, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::zarr_store;
use super::status::*;
use crate::error::Error;
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, ReadableStorage,
    StorageError, WritableStorage,
};
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::Arc;

/// The version of `zarr_store_callbacks` described by this header: put it in the table's
/// `version` field.
pub const ZARR_STORE_CALLBACKS_VERSION: u32 = 1;

/// Where a read callback puts the bytes it returns: an opaque buffer owned by the library,
/// valid only during the callback that received it. Fill it with `zarr_sink_write` or
/// `zarr_sink_extend`.
pub struct zarr_sink {
    data: Vec<u8>,
    /// The most bytes the callback may write (a byte range's length).
    limit: Option<usize>,
    /// The first failure of a sink call, reported even if the callback ignores it.
    failure: Option<(zarr_status, String)>,
}

impl zarr_sink {
    fn new(limit: Option<usize>) -> zarr_sink {
        zarr_sink {
            data: Vec::new(),
            limit,
            failure: None,
        }
    }

    /// Make room for `len` more bytes, within the limit and without aborting on a failed
    /// allocation; records the failure.
    fn grow(&mut self, len: usize) -> Result<(), FfiError> {
        let error = match self.data.len().checked_add(len) {
            Some(total) if self.limit.is_some_and(|limit| total > limit) => Some((
                ZARR_ERROR_CORRUPT_DATA,
                format!(
                    "the callback wrote {total} bytes where a byte range of {} was asked",
                    self.limit.unwrap_or(0)
                ),
                FfiError::Core(Error::OutOfBounds(format!(
                    "writing {len} more bytes exceeds the {} bytes of the range asked",
                    self.limit.unwrap_or(0)
                ))),
            )),
            Some(_) if self.data.try_reserve(len).is_ok() => None,
            _ => Some((
                ZARR_ERROR_OUT_OF_MEMORY,
                format!("cannot hold a value of {} more bytes", len),
                FfiError::Core(Error::OutOfMemory(format!(
                    "cannot grow the sink by {len} bytes"
                ))),
            )),
        };
        match error {
            None => Ok(()),
            Some((status, message, error)) => {
                self.failure.get_or_insert((status, message));
                Err(error)
            }
        }
    }
}

/// A read callback: write the value of `key` into `value` and return `ZARR_OK`, or
/// return `ZARR_ERROR_NOT_FOUND` when the key has no value, or an error status.
pub type zarr_store_get_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        key: *const c_char,
        value: *mut zarr_sink,
    ) -> zarr_status,
>;

/// A byte range read callback: write `length` bytes of the value of `key` into `value`,
/// from byte `offset`, or the last `length` bytes when `from_end` is true (then `offset`
/// is 0). Return `ZARR_OK`, `ZARR_ERROR_NOT_FOUND` (no value), `ZARR_ERROR_OUT_OF_BOUNDS`
/// (the range reaches past the end of the value), or an error status.
pub type zarr_store_get_range_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        key: *const c_char,
        offset: u64,
        length: u64,
        from_end: bool,
        value: *mut zarr_sink,
    ) -> zarr_status,
>;

/// A size callback: write the length in bytes of the value of `key` to `size_out` and
/// return `ZARR_OK`, or return `ZARR_ERROR_NOT_FOUND` (no value) or an error status.
pub type zarr_store_size_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        key: *const c_char,
        size_out: *mut u64,
    ) -> zarr_status,
>;

/// A write callback: replace the value of `key` with the `value_len` bytes at `value`
/// (which the callback may only read, and only during the call), atomically: a reader
/// sees the old or the new value, and on failure the old value stays.
pub type zarr_store_set_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        key: *const c_char,
        value: *const c_void,
        value_len: usize,
    ) -> zarr_status,
>;

/// A callback taking one key or prefix: erase the value of `key` (erasing a missing key
/// is not an error: return `ZARR_OK` or `ZARR_ERROR_NOT_FOUND`), or every key under a
/// prefix.
pub type zarr_store_key_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, key: *const c_char) -> zarr_status>;

/// A listing callback: write every key that starts with `prefix` (`""` or ending in `/`)
/// into `keys`, each one followed by a NUL byte, in any order.
pub type zarr_store_list_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        prefix: *const c_char,
        keys: *mut zarr_sink,
    ) -> zarr_status,
>;

/// Frees the caller's `user_data` when the store is gone.
pub type zarr_store_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A table of callbacks implementing a store, for `zarr_store_open_callbacks`.
///
/// Initialise every field (for example `zarr_store_callbacks cb = {0};` then set the
/// fields): `version` is `ZARR_STORE_CALLBACKS_VERSION`; later versions only append
/// fields. The library copies the table; `user_data` is passed to every callback.
///
/// Keys are NUL-terminated UTF-8 such as "zarr.json" or "a/b/c/0/1" (never starting or
/// ending with `/`, no empty, "." or ".." segment). Each callback returns `ZARR_OK` or a
/// status: `ZARR_ERROR_NOT_FOUND` where noted, otherwise an error status that the
/// failing libzarr call then returns (`ZARR_ERROR_IO` for an EIO or ENOSPC-like failure,
/// `ZARR_ERROR_READ_ONLY`, `ZARR_ERROR_OUT_OF_MEMORY`, `ZARR_ERROR_CORRUPT_DATA`,
/// `ZARR_ERROR_UNSUPPORTED`, `ZARR_ERROR_INVALID_PATH`; any other value becomes
/// `ZARR_ERROR_IO`). Before returning an error, a callback may explain it with
/// `zarr_store_callback_set_error`; `zarr_last_error_message()` then carries that text.
///
/// Threads: libzarr calls the callbacks from the thread of the libzarr call and from its
/// worker threads (`zarr_thread_pool_set_size`), concurrently: they must be thread-safe.
/// A callback must not unwind (no C++ exception, no longjmp) out of the call, and may call
/// only `zarr_sink_write`, `zarr_sink_extend` and `zarr_store_callback_set_error` of this
/// library.
///
/// Fields (all callbacks receive `user_data` first):
/// - `get` (required): see `zarr_store_get_fn`.
/// - `get_range` (optional): see `zarr_store_get_range_fn`. NULL: ranges are cut from a
///   `get` of the whole value (sharded arrays then read whole shards).
/// - `size` (optional): see `zarr_store_size_fn`. NULL: a `get` of the whole value.
/// - `set`, `erase` (both, or neither for a read-only store whose writes fail with
///   `ZARR_ERROR_READ_ONLY`): see `zarr_store_set_fn` and `zarr_store_key_fn`.
/// - `list` (required): see `zarr_store_list_fn`.
/// - `erase_prefix` (optional): erase every key starting with the given prefix (`""` or
///   ending in `/`); see `zarr_store_key_fn`. NULL: `list` then `erase` of each key.
/// - `free_user_data` (optional): called exactly once with `user_data` when the store is
///   gone (see `zarr_store_open_callbacks`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct zarr_store_callbacks {
    pub version: u32,
    pub user_data: *mut c_void,
    pub get: zarr_store_get_fn,
    pub get_range: zarr_store_get_range_fn,
    pub size: zarr_store_size_fn,
    pub set: zarr_store_set_fn,
    pub erase: zarr_store_key_fn,
    pub list: zarr_store_list_fn,
    pub erase_prefix: zarr_store_key_fn,
    pub free_user_data: zarr_store_free_fn,
}

thread_local! {
    /// The message the running callback gave with `zarr_store_callback_set_error`.
    static CALLBACK_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A store whose every operation calls the caller's callbacks.
pub(crate) struct CallbackStore {
    table: zarr_store_callbacks,
}

// SAFETY: the table holds the caller's function pointers and `user_data`; the contract of
// `zarr_store_callbacks` requires the callbacks to be safe to call from any thread,
// concurrently, with that `user_data`.
unsafe impl Send for CallbackStore {}
// SAFETY: as for Send: every method only calls the thread-safe callbacks.
unsafe impl Sync for CallbackStore {}

impl std::fmt::Debug for CallbackStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackStore")
            .field("user_data", &self.table.user_data)
            .finish_non_exhaustive()
    }
}

impl Drop for CallbackStore {
    fn drop(&mut self) {
        if let Some(free) = self.table.free_user_data {
            // SAFETY: called once, when the last handle using the store is gone, with the
            // user_data the caller gave, per the contract of zarr_store_callbacks.
            unsafe { free(self.table.user_data) }
        }
    }
}

/// What a callback's status means for the operation.
enum Outcome {
    Ok,
    NotFound,
}

impl CallbackStore {
    /// Call a callback with `key` as a C string, turning its status into an [`Outcome`] or
    /// a [`StorageError::Callback`] with the callback's message.
    fn call(
        &self,
        operation: &'static str,
        key: &str,
        callback: impl FnOnce(*const c_char) -> zarr_status,
    ) -> Result<Outcome, StorageError> {
        // Keys and prefixes are validated: they hold no NUL.
        let c_key = CString::new(key).map_err(|_| StorageError::InvalidKey {
            key: key.to_string(),
            reason: "NUL character",
        })?;
        CALLBACK_MESSAGE.with(|m| m.borrow_mut().take());
        let status = callback(c_key.as_ptr());
        let message = CALLBACK_MESSAGE.with(|m| m.borrow_mut().take());
        match status {
            ZARR_OK => Ok(Outcome::Ok),
            ZARR_ERROR_NOT_FOUND => Ok(Outcome::NotFound),
            status => Err(StorageError::Callback {
                operation,
                key: key.to_string(),
                status,
                message: message.unwrap_or_else(|| {
                    let text = status_text(status).to_string_lossy();
                    format!("the callback returned {status} ({text}) without a message")
                }),
            }),
        }
    }

    /// The error for a sink call that failed during a callback (reported even when the
    /// callback went on to return `ZARR_OK`).
    fn sink_error(operation: &'static str, key: &str, sink: &mut zarr_sink) -> StorageError {
        let (status, message) = sink
            .failure
            .take()
            .unwrap_or((ZARR_ERROR_IO, "sink failure".into()));
        StorageError::Callback {
            operation,
            key: key.to_string(),
            status,
            message,
        }
    }

    /// The error for a callback that returned success without its result.
    fn broken(operation: &'static str, key: &str, message: String) -> StorageError {
        StorageError::Callback {
            operation,
            key: key.to_string(),
            status: ZARR_ERROR_CORRUPT_DATA,
            message,
        }
    }

    /// Read a byte range with the `get_range` callback; `None` when the key is absent.
    fn range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(get_range) = self.table.get_range else {
            let Some(value) = self.get(key)? else {
                return Ok(None);
            };
            let span = range.resolve_in(key, value.len() as u64)?;
            return Ok(Some(value[span.start as usize..span.end as usize].to_vec()));
        };
        let (offset, length, from_end) = match range {
            ByteRange::FromStart { offset, length } => (offset, length, false),
            ByteRange::Suffix { length } => (0, length, true),
        };
        let limit = usize::try_from(length).map_err(|_| StorageError::OutOfMemory {
            key: key.to_string(),
            size: length,
        })?;
        let mut sink = zarr_sink::new(Some(limit));
        let outcome = self.call("get_range", key, |k| {
            // SAFETY: the caller's callback, with its user_data, a NUL-terminated key and a
            // sink valid for the call, per the contract of zarr_store_callbacks.
            unsafe { get_range(self.table.user_data, k, offset, length, from_end, &mut sink) }
        });
        let outcome = match outcome {
            Err(StorageError::Callback {
                status: ZARR_ERROR_OUT_OF_BOUNDS,
                message,
                ..
            }) => {
                return Err(StorageError::Callback {
                    operation: "get_range",
                    key: key.to_string(),
                    status: ZARR_ERROR_CORRUPT_DATA,
                    message: format!("byte range {range:?} reaches past the value: {message}"),
                })
            }
            other => other?,
        };
        if sink.failure.is_some() {
            return Err(Self::sink_error("get_range", key, &mut sink));
        }
        match outcome {
            Outcome::NotFound => Ok(None),
            Outcome::Ok if sink.data.len() != limit => Err(Self::broken(
                "get_range",
                key,
                format!(
                    "the callback returned {} bytes for a byte range of {length}",
                    sink.data.len()
                ),
            )),
            Outcome::Ok => Ok(Some(sink.data)),
        }
    }

    fn writable(&self) -> Result<(), StorageError> {
        if self.table.set.is_none() {
            return Err(StorageError::ReadOnly);
        }
        Ok(())
    }
}

impl ReadableStorage for CallbackStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        let get = self.table.get.expect("checked when the store was opened");
        let mut sink = zarr_sink::new(None);
        let outcome = self.call("get", key, |k| {
            // SAFETY: as in `range`.
            unsafe { get(self.table.user_data, k, &mut sink) }
        })?;
        if sink.failure.is_some() {
            return Err(Self::sink_error("get", key, &mut sink));
        }
        match outcome {
            Outcome::Ok => Ok(Some(sink.data)),
            Outcome::NotFound => Ok(None),
        }
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        self.range(key, range)
    }

    /// With a `get_range` callback: one call per range, and the value's size stays
    /// unknown (asking for it would cost another call); without: one `get`, and the ranges
    /// are cut from the whole value.
    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        validate_key(key)?;
        if self.table.get_range.is_none() {
            return match self.get(key)? {
                Some(value) => crate::storage::ranges_of(key, &value, ranges)
                    .map(|(size, bytes)| Some((Some(size), bytes))),
                None => Ok(None),
            };
        }
        let mut out = Vec::new();
        for &range in ranges {
            match self.range(key, range)? {
                Some(bytes) => {
                    out.try_reserve(bytes.len())
                        .map_err(|_| StorageError::OutOfMemory {
                            key: key.to_string(),
                            size: (out.len() + bytes.len()) as u64,
                        })?;
                    out.extend_from_slice(&bytes)
                }
                None => return Ok(None),
            }
        }
        Ok(Some((None, out)))
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        validate_key(key)?;
        let Some(size) = self.table.size else {
            return Ok(self.get(key)?.map(|v| v.len() as u64));
        };
        let mut value = 0u64;
        let outcome = self.call("size", key, |k| {
            // SAFETY: as in `range`; `value` is writable for the call.
            unsafe { size(self.table.user_data, k, &mut value) }
        })?;
        Ok(match outcome {
            Outcome::Ok => Some(value),
            Outcome::NotFound => None,
        })
    }

    fn location(&self) -> String {
        "the store of C callbacks (zarr_store_open_callbacks)".to_string()
    }
}

impl WritableStorage for CallbackStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        validate_key(key)?;
        self.writable()?;
        let set = self.table.set.expect("checked by writable()");
        let outcome = self.call("set", key, |k| {
            // SAFETY: as in `range`; `value` is readable for the call.
            unsafe { set(self.table.user_data, k, value.as_ptr().cast(), value.len()) }
        })?;
        match outcome {
            Outcome::Ok => Ok(()),
            Outcome::NotFound => Err(StorageError::Callback {
                operation: "set",
                key: key.to_string(),
                status: ZARR_ERROR_IO,
                message: "the callback returned ZARR_ERROR_NOT_FOUND for a write".into(),
            }),
        }
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        self.writable()?;
        let erase = self.table.erase.expect("checked when the store was opened");
        self.call("erase", key, |k| {
            // SAFETY: as in `range`.
            unsafe { erase(self.table.user_data, k) }
        })
        .map(|_| ())
    }

    fn erase_prefix(&self, prefix: &str) -> Result<(), StorageError> {
        validate_prefix(prefix)?;
        self.writable()?;
        let Some(erase_prefix) = self.table.erase_prefix else {
            return crate::storage::erase_prefix_by_listing(self, prefix);
        };
        self.call("erase_prefix", prefix, |p| {
            // SAFETY: as in `range`.
            unsafe { erase_prefix(self.table.user_data, p) }
        })
        .map(|_| ())
    }
}

impl ListableStorage for CallbackStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let list = self.table.list.expect("checked when the store was opened");
        let mut sink = zarr_sink::new(None);
        let outcome = self.call("list", prefix, |p| {
            // SAFETY: as in `range`.
            unsafe { list(self.table.user_data, p, &mut sink) }
        })?;
        if sink.failure.is_some() {
            return Err(Self::sink_error("list", prefix, &mut sink));
        }
        if let Outcome::NotFound = outcome {
            return Ok(DirListing::default());
        }
        // Keys that are not UTF-8, not valid keys or not under the prefix cannot be
        // values of this prefix: skipped, as the file system store skips such names.
        let mut keys: Vec<String> = sink
            .data
            .split(|&b| b == 0)
            .filter_map(|k| std::str::from_utf8(k).ok())
            .filter(|k| k.starts_with(prefix) && validate_key(k).is_ok())
            .map(str::to_string)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        Ok(DirListing::from_sorted_keys(prefix, keys.iter()))
    }
}

/// Open a store implemented by the caller's callbacks (see `zarr_store_callbacks`).
///
/// The table is copied: the caller may free or reuse it after the call. Every array and
/// group opened from the store calls the callbacks for every key they read or write.
///
/// Ownership of `user_data`: whenever `callbacks` is not NULL, the library owns
/// `user_data` from this call on, and calls `free_user_data` (when not NULL) exactly
/// once: if opening fails, before this function returns; otherwise when the store handle
/// and every array and group opened from it have been freed (in any order).
///
/// - `callbacks`: the table; `version` must be `ZARR_STORE_CALLBACKS_VERSION`.
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`callbacks` or `out` is NULL);
/// `ZARR_ERROR_INVALID_ARGUMENT` (another `version`, `get` or `list` is NULL, or only one
/// of `set` and `erase` is).
///
/// Thread safety: the store may be used from any number of threads at once; the
/// callbacks are then called concurrently (see `zarr_store_callbacks`).
///
/// # Safety
/// `callbacks` is NULL or points to a readable table whose callbacks and `user_data`
/// honour the contract of `zarr_store_callbacks`; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_callbacks(
    callbacks: *const zarr_store_callbacks,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_callbacks", || {
        // SAFETY: per this function's contract: NULL or a readable table.
        let table = unsafe { callbacks.as_ref() }.ok_or(FfiError::Null("callbacks"))?;
        // From here on the store owns user_data: dropping it on any error path below calls
        // free_user_data.
        let store = CallbackStore { table: *table };
        let out = out_ptr(out, "out")?;
        if table.version != ZARR_STORE_CALLBACKS_VERSION {
            return Err(FfiError::InvalidArgument(format!(
                "callbacks->version is {}, this library implements version {}",
                table.version, ZARR_STORE_CALLBACKS_VERSION
            )));
        }
        if table.get.is_none() || table.list.is_none() {
            return Err(FfiError::InvalidArgument(
                "callbacks->get and callbacks->list are required".into(),
            ));
        }
        if table.set.is_none() != table.erase.is_none() {
            return Err(FfiError::InvalidArgument(
                "callbacks->set and callbacks->erase must both be given (a writable store) \
                 or both be NULL (a read-only store)"
                    .into(),
            ));
        }
        let handle = Box::new(zarr_store {
            storage: Arc::new(store),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Borrow the sink a callback was given.
///
/// # Safety
/// `sink` is NULL or the sink passed to the running callback.
unsafe fn sink_arg<'a>(sink: *mut zarr_sink) -> Result<&'a mut zarr_sink, FfiError> {
    // SAFETY: per this function's contract: the library created the sink for the call and
    // does not touch it until the callback returns.
    unsafe { sink.as_mut() }.ok_or(FfiError::Null("sink"))
}

/// Append the `len` bytes at `data` to the value a read callback returns (copied: the
/// callback keeps its buffer).
///
/// - `sink`: the sink the running callback received; valid only during that callback.
/// - `data`, `len`: the bytes (`(NULL, 0)` appends nothing).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (for a byte
/// range read: more bytes than the range's length; nothing is appended);
/// `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_INVALID_ARGUMENT` (absurd `len`). A failure is
/// remembered: the read then fails with it even if the callback returns `ZARR_OK`.
///
/// Thread safety: call it only from the callback that received the sink.
///
/// # Safety
/// `sink` is NULL or the running callback's sink; `data` is NULL or has `len` readable
/// bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_sink_write(
    sink: *mut zarr_sink,
    data: *const c_void,
    len: usize,
) -> zarr_status {
    run("zarr_sink_write", || {
        // SAFETY: per this function's contract.
        let sink = unsafe { sink_arg(sink) }?;
        // SAFETY: per this function's contract.
        let data = unsafe { slice(data.cast::<u8>(), len, "data") }?;
        sink.grow(data.len())?;
        sink.data.extend_from_slice(data);
        Ok(())
    })
}

/// Append `len` zero bytes to the value a read callback returns and give their address,
/// so that the callback fills them in place (a `pread` or `recv` straight into the
/// library's buffer, with no copy of its own).
///
/// - `sink`: the sink the running callback received.
/// - `len`: the number of bytes to append.
/// - `buf_out`: receives the address of the `len` new bytes (NULL on failure), writable
///   until the next call on the sink or the end of the callback, whichever comes first.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_OUT_OF_BOUNDS` (more bytes
/// than a byte range's length); `ZARR_ERROR_OUT_OF_MEMORY`. A failure is remembered as
/// for `zarr_sink_write`.
///
/// Thread safety: call it only from the callback that received the sink.
///
/// # Safety
/// `sink` is NULL or the running callback's sink; `buf_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_sink_extend(
    sink: *mut zarr_sink,
    len: usize,
    buf_out: *mut *mut c_void,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(buf_out) };
    run("zarr_sink_extend", || {
        // SAFETY: per this function's contract.
        let sink = unsafe { sink_arg(sink) }?;
        let out = out_ptr(buf_out, "buf_out")?;
        sink.grow(len)?;
        let start = sink.data.len();
        sink.data.resize(start + len, 0); // fits: reserved by grow
        let address = sink.data[start..].as_mut_ptr().cast::<c_void>();
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, address) };
        Ok(())
    })
}

/// Explain the failure a store callback is about to return: the text becomes part of the
/// failing libzarr call's `zarr_last_error_message()` (after "<operation> of '<key>'
/// failed in the store's callback: "). Call it from the callback, on the thread the
/// callback runs on, before returning an error status; the last call wins, NULL clears
/// the message, and a callback that returns `ZARR_OK` discards it. Never fails (so that a
/// callback has no status of this call to handle).
///
/// - `message`: NUL-terminated UTF-8 text (invalid UTF-8 is replaced), copied; or NULL.
///
/// Thread safety: the message is per thread.
///
/// # Safety
/// `message` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn zarr_store_callback_set_error(message: *const c_char) {
    let text = if message.is_null() {
        None
    } else {
        // SAFETY: non-NULL and NUL-terminated per this function's contract.
        Some(
            unsafe { CStr::from_ptr(message) }
                .to_string_lossy()
                .into_owned(),
        )
    };
    // Nothing here can panic but an allocation failure, which aborts anyway; no boundary
    // is needed for a function that returns nothing and cannot fail.
    CALLBACK_MESSAGE.with(|m| *m.borrow_mut() = text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_limits() {
        let mut sink = zarr_sink::new(Some(4));
        assert!(sink.grow(3).is_ok());
        sink.data.extend_from_slice(b"abc");
        assert!(sink.grow(2).is_err());
        assert_eq!(sink.failure.as_ref().unwrap().0, ZARR_ERROR_CORRUPT_DATA);
        let mut unbounded = zarr_sink::new(None);
        assert!(unbounded.grow(usize::MAX).is_err());
        assert_eq!(unbounded.failure.unwrap().0, ZARR_ERROR_OUT_OF_MEMORY);
    }
}
