//! Status codes returned by every fallible C function, and their fixed descriptions.
//!
//! Values are stable forever: new codes are appended, none is ever renumbered.

/// The result of a fallible libzarr call: `ZARR_OK` (0) on success, a negative
/// `ZARR_ERROR_*` value on failure. `zarr_last_error_message()` then explains the failure.
#[allow(non_camel_case_types)]
pub type zarr_status = i32;

/// Success.
pub const ZARR_OK: zarr_status = 0;
/// A required pointer argument was NULL (the message names the parameter).
pub const ZARR_ERROR_NULL_ARGUMENT: zarr_status = -1;
/// An argument has an invalid value (wrong rank, malformed JSON text, zero-length name...).
pub const ZARR_ERROR_INVALID_ARGUMENT: zarr_status = -2;
/// The caller's output buffer is smaller than the data to be written into it.
pub const ZARR_ERROR_BUFFER_TOO_SMALL: zarr_status = -3;
/// The caller's input buffer length differs from the selection's size in bytes (for
/// `zarr_array_read_double`: its count of doubles differs from the selection's elements).
pub const ZARR_ERROR_BUFFER_SIZE_MISMATCH: zarr_status = -4;
/// A selection or chunk index lies outside the array.
pub const ZARR_ERROR_OUT_OF_BOUNDS: zarr_status = -5;
/// No node exists at the given path.
pub const ZARR_ERROR_NOT_FOUND: zarr_status = -6;
/// A node already exists where one was to be created.
pub const ZARR_ERROR_ALREADY_EXISTS: zarr_status = -7;
/// The node exists but is of the other type (a group where an array was expected, or
/// the reverse).
pub const ZARR_ERROR_NODE_TYPE_MISMATCH: zarr_status = -8;
/// Metadata (zarr.json or a metadata document given by the caller) is malformed or
/// violates the specification.
pub const ZARR_ERROR_INVALID_METADATA: zarr_status = -9;
/// The data uses a feature this library does not implement (codec, data type, chunk grid,
/// extension with `must_understand`).
pub const ZARR_ERROR_UNSUPPORTED: zarr_status = -10;
/// Stored chunk data could not be decoded: truncated, corrupt, bad checksum, wrong size.
pub const ZARR_ERROR_CORRUPT_DATA: zarr_status = -11;
/// The operating system reported an I/O error.
pub const ZARR_ERROR_IO: zarr_status = -12;
/// A node path or store key is malformed or could escape the store (`..`, empty segments,
/// reserved names).
pub const ZARR_ERROR_INVALID_PATH: zarr_status = -13;
/// An allocation failed or a size does not fit in memory.
pub const ZARR_ERROR_OUT_OF_MEMORY: zarr_status = -14;
/// The store is read-only.
pub const ZARR_ERROR_READ_ONLY: zarr_status = -15;
/// An internal invariant was violated: a bug in libzarr (reported without a panic).
/// Please report it with the message from `zarr_last_error_message()`.
pub const ZARR_ERROR_INTERNAL: zarr_status = -16;
/// The value has another type than the one asked for: a typed attribute getter found a
/// string where it asked for a number, a fractional number where it asked for an integer,
/// an object where it asked for an array...; `zarr_array_read_double` found elements
/// that are not real numbers (complex, strings, structs...).
pub const ZARR_ERROR_TYPE_MISMATCH: zarr_status = -17;
/// The operating system refused a resource: worker threads could not be started, or the
/// process or system ran out of file descriptors (`EMFILE`, `ENFILE`). Retrying after
/// freeing resources (fewer threads, closing files or handles) may succeed.
pub const ZARR_ERROR_RESOURCE: zarr_status = -18;
/// A remote store (S3, HTTP) could not be reached or the connection kept failing (refused,
/// reset, a TLS or certificate failure) after the retries `max_retries` allows.
pub const ZARR_ERROR_NETWORK: zarr_status = -20;
/// A remote store refused access (HTTP 401 or 403): missing or wrong credentials, a
/// rejected signature, or no permission for the bucket or object.
pub const ZARR_ERROR_ACCESS_DENIED: zarr_status = -21;
/// A request to a remote store timed out (connecting, or waiting for data longer than
/// `timeout_ms`) on every attempt.
pub const ZARR_ERROR_TIMEOUT: zarr_status = -22;
/// A remote store answered with an HTTP error status other than 401, 403 and 404 (a
/// 5xx or 429 after every retry, or another 4xx), or with a response that cannot be used.
pub const ZARR_ERROR_REMOTE: zarr_status = -23;
/// Other writers changed the chunk or shard that a write updates in part each time it
/// tried (an object store's conditional write failed on every attempt its retry budget
/// allows): nothing of that chunk was written. Retrying the write later may succeed.
/// Also a commit to an Icechunk branch that another writer committed to first
/// (`zarr_store_commit`): nothing was committed.
pub const ZARR_ERROR_CONFLICT: zarr_status = -24;
/// The communicator of a collective call failed: one of its operations (an MPI
/// collective, through `zarr_comm_ops`) returned an error, or a rank left. Other ranks may
/// see the failure differently; the communicator should not be used for further
/// collective calls.
pub const ZARR_ERROR_COMMUNICATION: zarr_status = -25;
/// A bug inside libzarr was caught before it could unwind into the caller.
pub const ZARR_ERROR_PANIC: zarr_status = -99;

/// Fixed English text for a status code; unknown values give "unknown status".
pub(crate) fn status_text(status: i32) -> &'static std::ffi::CStr {
    match status {
        ZARR_OK => c"success",
        ZARR_ERROR_NULL_ARGUMENT => c"a required pointer argument was NULL",
        ZARR_ERROR_INVALID_ARGUMENT => c"invalid argument",
        ZARR_ERROR_BUFFER_TOO_SMALL => c"output buffer too small",
        ZARR_ERROR_BUFFER_SIZE_MISMATCH => c"buffer length does not match the selection",
        ZARR_ERROR_OUT_OF_BOUNDS => c"selection or index out of bounds",
        ZARR_ERROR_NOT_FOUND => c"node not found",
        ZARR_ERROR_ALREADY_EXISTS => c"node already exists",
        ZARR_ERROR_NODE_TYPE_MISMATCH => c"node is of the other type (array vs group)",
        ZARR_ERROR_INVALID_METADATA => c"invalid metadata",
        ZARR_ERROR_UNSUPPORTED => c"unsupported feature",
        ZARR_ERROR_CORRUPT_DATA => c"corrupt or truncated data",
        ZARR_ERROR_IO => c"I/O error",
        ZARR_ERROR_INVALID_PATH => c"invalid node path or store key",
        ZARR_ERROR_OUT_OF_MEMORY => c"out of memory",
        ZARR_ERROR_READ_ONLY => c"store is read-only",
        ZARR_ERROR_INTERNAL => {
            c"an internal invariant was violated: a bug in libzarr, please report it"
        }
        ZARR_ERROR_RESOURCE => {
            c"the operating system refused a resource: threads, file descriptors"
        }
        ZARR_ERROR_TYPE_MISMATCH => c"the value has another type than the one asked for",
        ZARR_ERROR_NETWORK => c"network failure (remote store unreachable or connection failed)",
        ZARR_ERROR_ACCESS_DENIED => c"access denied by the remote store",
        ZARR_ERROR_TIMEOUT => c"request to the remote store timed out",
        ZARR_ERROR_REMOTE => c"the remote store answered with an HTTP error",
        ZARR_ERROR_CONFLICT => {
            c"other writers changed the data first (a chunk being updated, or the branch of a commit)"
        }
        ZARR_ERROR_COMMUNICATION => c"a collective operation of the communicator failed",
        ZARR_ERROR_PANIC => c"internal error (panic caught at the API boundary)",
        _ => c"unknown status",
    }
}
