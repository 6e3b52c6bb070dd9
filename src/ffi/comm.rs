//! `zarr_comm`: communicators, and the collective calls that run over them.
//!
//! libzarr itself holds no MPI type: a communicator is a versioned table of C functions
//! (`zarr_comm_ops`: barrier, broadcast, all-gather(v), all-to-all(v), all-reduce) with the
//! caller's `user_data`. `libzarr_mpi` (`zarr_mpi.h`, built with the MPI compiler) fills
//! one from an `MPI_Comm`, so one libzarr works with Open MPI, MPICH and vendor MPIs. The
//! collective logic is `crate::collective`.

use super::args::{clear_out, handle, out_ptr, slice, slice_mut, str_arg, write_out};
use super::boundary::run;
use super::error::{core_status, describe, status_of, FfiError};
use super::group::attributes_arg;
use super::handle::{zarr_array, zarr_group, zarr_store};
use super::status::*;
use super::strings::owned_c_string;
use crate::collective::{self, CommError, Communicator, ReduceOp, WriteReport};
use crate::error::Error;
use crate::metadata::json::parse_object;
use crate::node::ZarrFormat;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

/// The version of `zarr_comm_ops` described by this header: put it in the table's
/// `version` field.
pub const ZARR_COMM_OPS_VERSION: u32 = 1;

/// The reductions of `zarr_comm_ops.all_reduce_i64`: element-wise minimum, maximum, sum.
pub type zarr_reduce_op = i32;
pub const ZARR_REDUCE_MIN: zarr_reduce_op = 1;
pub const ZARR_REDUCE_MAX: zarr_reduce_op = 2;
pub const ZARR_REDUCE_SUM: zarr_reduce_op = 3;

/// Wait until every rank has called it.
pub type zarr_comm_barrier_fn = Option<unsafe extern "C" fn(user_data: *mut c_void) -> zarr_status>;

/// Copy `len` bytes at `buf` of rank `root` into `buf` of every other rank (`len` is the
/// same on every rank).
pub type zarr_comm_broadcast_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        buf: *mut c_void,
        len: usize,
        root: usize,
    ) -> zarr_status,
>;

/// Every rank's `len` bytes at `send` into `recv`, rank after rank (`size * len` bytes;
/// `len` is the same on every rank).
pub type zarr_comm_all_gather_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        send: *const c_void,
        len: usize,
        recv: *mut c_void,
    ) -> zarr_status,
>;

/// Every rank's `send_len` bytes at `send` into `recv`: rank `r`'s `recv_lens[r]` bytes at
/// byte `recv_displs[r]` (`recv_lens[r]` equals rank `r`'s `send_len`; both arrays hold
/// `size` values).
pub type zarr_comm_all_gather_v_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        send: *const c_void,
        send_len: usize,
        recv: *mut c_void,
        recv_lens: *const usize,
        recv_displs: *const usize,
    ) -> zarr_status,
>;

/// Personalised exchange: `send_lens[r]` bytes at byte `send_displs[r]` of `send` go to
/// rank `r`; `recv_lens[r]` bytes from rank `r` land at byte `recv_displs[r]` of `recv`.
/// Every array holds `size` values; what rank `r` sends here is what this rank expects
/// from it.
pub type zarr_comm_all_to_all_v_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        send: *const c_void,
        send_lens: *const usize,
        send_displs: *const usize,
        recv: *mut c_void,
        recv_lens: *const usize,
        recv_displs: *const usize,
    ) -> zarr_status,
>;

/// Reduce the `count` values at `values` element-wise with `op` (`ZARR_REDUCE_*`) across
/// the ranks; every rank gets the result in place (`count` is the same on every rank).
pub type zarr_comm_all_reduce_i64_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        values: *mut i64,
        count: usize,
        op: zarr_reduce_op,
    ) -> zarr_status,
>;

/// Frees the caller's `user_data` when the communicator is freed.
pub type zarr_comm_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A communicator's collective operations, for `zarr_comm_create`. MPI programs do not fill
/// one: `zarr_comm_create_mpi` (`zarr_mpi.h`) does.
///
/// Initialise every field (for example `zarr_comm_ops ops = {0};` then set the fields):
/// `version` is `ZARR_COMM_OPS_VERSION`; later versions only append fields. The library
/// copies the table; `user_data` is passed to every function. Every function is required.
///
/// Every function is collective: libzarr calls it on every rank, in the same order, from
/// the thread that made the collective libzarr call (never from its worker threads), and it
/// must return on every rank only when its data has arrived (MPI's blocking collectives do
/// exactly this). It returns `ZARR_OK`, or any other status when the operation failed (the
/// libzarr call then fails with `ZARR_ERROR_COMMUNICATION`); it must not unwind.
/// Lengths and displacements are in bytes; a buffer of length 0 is NULL.
///
/// Fields: `barrier`, `broadcast`, `all_gather`, `all_gather_v`, `all_to_all_v`,
/// `all_reduce_i64` (see their `zarr_comm_*_fn` types), and `free_user_data` (optional:
/// called once with `user_data` by `zarr_comm_free`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct zarr_comm_ops {
    pub version: u32,
    pub user_data: *mut c_void,
    pub barrier: zarr_comm_barrier_fn,
    pub broadcast: zarr_comm_broadcast_fn,
    pub all_gather: zarr_comm_all_gather_fn,
    pub all_gather_v: zarr_comm_all_gather_v_fn,
    pub all_to_all_v: zarr_comm_all_to_all_v_fn,
    pub all_reduce_i64: zarr_comm_all_reduce_i64_fn,
    pub free_user_data: zarr_comm_free_fn,
}

/// A communicator: the ranks that make collective calls together (see `zarr_comm_create`
/// and `zarr_comm_create_mpi`).
pub struct zarr_comm {
    comm: CallbackComm,
    /// What the last collective write through this communicator did on this rank.
    last_write: Mutex<Option<WriteReport>>,
}

/// The table as a [`Communicator`].
struct CallbackComm {
    ops: zarr_comm_ops,
    rank: usize,
    size: usize,
}

// SAFETY: the table's functions are called only from the thread of the collective call
// that uses them, one call at a time (a collective libzarr call runs its communication on
// its calling thread); `zarr_comm_create` documents that the communicator may be moved
// between threads and that concurrent collective calls on one communicator are not
// allowed, as in MPI.
unsafe impl Send for CallbackComm {}
// SAFETY: as above: shared references only lead to calls of the caller's functions, which
// the contract serialises.
unsafe impl Sync for CallbackComm {}

impl std::fmt::Debug for CallbackComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "zarr_comm(rank {} of {})", self.rank, self.size)
    }
}

thread_local! {
    /// The message a failing communicator function gave with `zarr_comm_callback_set_error`.
    static CALLBACK_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A buffer's address for the table: NULL when it is empty. (An empty Rust slice has a
/// dangling non-NULL address, often 1, which is Open MPI's `MPI_IN_PLACE`: handed on, it
/// would turn "send nothing" into an in-place collective.)
fn address(buf: &[u8]) -> *const c_void {
    if buf.is_empty() {
        std::ptr::null()
    } else {
        buf.as_ptr().cast()
    }
}

/// As [`address`], for a buffer the table writes.
fn address_mut(buf: &mut [u8]) -> *mut c_void {
    if buf.is_empty() {
        std::ptr::null_mut()
    } else {
        buf.as_mut_ptr().cast()
    }
}

impl CallbackComm {
    /// The outcome of one of the table's functions, with its explanation if it gave one.
    fn check(&self, operation: &str, status: zarr_status) -> Result<(), CommError> {
        let message = CALLBACK_MESSAGE.with(|m| m.borrow_mut().take());
        if status == ZARR_OK {
            return Ok(());
        }
        let text = status_text(status).to_string_lossy();
        let why = message.map(|m| format!(": {m}")).unwrap_or_default();
        Err(CommError(format!(
            "the communicator's {operation} returned {status} ({text}){why}"
        )))
    }
}

impl Communicator for CallbackComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn barrier(&self) -> Result<(), CommError> {
        let barrier = self.ops.barrier.expect("checked by zarr_comm_create");
        // SAFETY: the caller's function with its user_data, per zarr_comm_ops's contract.
        self.check("barrier", unsafe { barrier(self.ops.user_data) })
    }

    fn broadcast(&self, buf: &mut [u8], root: usize) -> Result<(), CommError> {
        let broadcast = self.ops.broadcast.expect("checked by zarr_comm_create");
        // SAFETY: `buf` is valid for `buf.len()` bytes during the call.
        let status = unsafe { broadcast(self.ops.user_data, address_mut(buf), buf.len(), root) };
        self.check("broadcast", status)
    }

    fn all_gather(&self, send: &[u8], recv: &mut [u8]) -> Result<(), CommError> {
        let all_gather = self.ops.all_gather.expect("checked by zarr_comm_create");
        // SAFETY: `send` has `send.len()` bytes and `recv` room for `size` times as many.
        let status = unsafe {
            all_gather(
                self.ops.user_data,
                address(send),
                send.len(),
                address_mut(recv),
            )
        };
        self.check("all_gather", status)
    }

    fn all_gather_v(
        &self,
        send: &[u8],
        recv: &mut [u8],
        recv_lens: &[usize],
        recv_displs: &[usize],
    ) -> Result<(), CommError> {
        let all_gather_v = self.ops.all_gather_v.expect("checked by zarr_comm_create");
        // SAFETY: the buffers and the `size` lengths and displacements live during the
        // call; the collective layer sized `recv` for them.
        let status = unsafe {
            all_gather_v(
                self.ops.user_data,
                address(send),
                send.len(),
                address_mut(recv),
                recv_lens.as_ptr(),
                recv_displs.as_ptr(),
            )
        };
        self.check("all_gather_v", status)
    }

    fn all_to_all_v(
        &self,
        send: &[u8],
        send_lens: &[usize],
        send_displs: &[usize],
        recv: &mut [u8],
        recv_lens: &[usize],
        recv_displs: &[usize],
    ) -> Result<(), CommError> {
        let all_to_all_v = self.ops.all_to_all_v.expect("checked by zarr_comm_create");
        // SAFETY: as in all_gather_v.
        let status = unsafe {
            all_to_all_v(
                self.ops.user_data,
                address(send),
                send_lens.as_ptr(),
                send_displs.as_ptr(),
                address_mut(recv),
                recv_lens.as_ptr(),
                recv_displs.as_ptr(),
            )
        };
        self.check("all_to_all_v", status)
    }

    fn all_reduce_i64(&self, values: &mut [i64], op: ReduceOp) -> Result<(), CommError> {
        let all_reduce = self
            .ops
            .all_reduce_i64
            .expect("checked by zarr_comm_create");
        let op = match op {
            ReduceOp::Min => ZARR_REDUCE_MIN,
            ReduceOp::Max => ZARR_REDUCE_MAX,
            ReduceOp::Sum => ZARR_REDUCE_SUM,
        };
        // SAFETY: `values` is valid for `values.len()` elements during the call.
        let status =
            unsafe { all_reduce(self.ops.user_data, values.as_mut_ptr(), values.len(), op) };
        self.check("all_reduce_i64", status)
    }
}

impl Drop for CallbackComm {
    fn drop(&mut self) {
        if let Some(free) = self.ops.free_user_data {
            // SAFETY: called once, when the communicator is freed, per the contract.
            unsafe { free(self.ops.user_data) };
        }
    }
}

/// The status a failure gets, for every rank of a collective call to return the same.
fn code_of(error: &Error) -> i32 {
    core_status(error)
}

/// The attributes object of a required `attributes_json` argument.
fn attributes_object(text: &str) -> Result<serde_json::Map<String, serde_json::Value>, FfiError> {
    parse_object(text.as_bytes(), "attributes_json")
        .map_err(|e| FfiError::InvalidArgument(format!("attributes_json: {e}")))
}

impl zarr_comm {
    /// Keep what a collective write did, for `zarr_comm_last_write_json`.
    fn remember(&self, report: WriteReport) {
        *self.last_write.lock().unwrap_or_else(|e| e.into_inner()) = Some(report);
    }

    /// Run `call` with this communicator's collective context.
    fn with<T>(&self, call: impl FnOnce(&collective::Collective) -> T) -> T {
        let code_of: &(dyn Fn(&Error) -> i32 + Sync) = &code_of;
        call(&collective::Collective::new(&self.comm, code_of))
    }
}

/// Run the collective C function `function`: this rank's `arguments` are checked (and
/// converted), the ranks agree on whether every rank's were right ([`agree_on_arguments`]),
/// then `body` runs the collective work with them. A missing (NULL) `comm` fails this rank
/// alone: it has no way to reach the others.
fn run_collective<A>(
    function: &str,
    comm: Option<&zarr_comm>,
    arguments: impl FnOnce() -> Result<A, FfiError>,
    body: impl FnOnce(&collective::Collective, &zarr_comm, A) -> Result<(), Error>,
) -> zarr_status {
    run(function, || {
        let comm = comm.ok_or(FfiError::Null("comm"))?;
        comm.with(|ctx| {
            let arguments = agree_on_arguments(ctx, arguments())?;
            body(ctx, comm, arguments).map_err(FfiError::Core)
        })
    })
}

/// Arguments this rank found wrong before the collective work could start fail every
/// rank's call: the other ranks learn of them through the agreement (`Error::OnRank`, with
/// this rank's status), instead of waiting in a collective operation this rank never
/// enters.
fn agree_on_arguments<T>(
    ctx: &collective::Collective,
    arguments: Result<T, FfiError>,
) -> Result<T, FfiError> {
    let local = arguments.map_err(|e| match e {
        FfiError::Core(error) => error,
        other => Error::OnRank {
            rank: ctx.comm().rank(),
            code: status_of(&other),
            message: describe(&other),
        },
    });
    ctx.agree(local).map_err(FfiError::Core)
}

/// Create a communicator from a table of collective operations (see `zarr_comm_ops`).
/// MPI programs call `zarr_comm_create_mpi` (`zarr_mpi.h`) instead.
///
/// - `ops`: the table (copied); every function is required.
/// - `rank`, `size`: this rank's number and the number of ranks (`rank < size`).
/// - `out`: receives the communicator, or NULL on failure. Free it with `zarr_comm_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`ops` or `out`);
/// `ZARR_ERROR_INVALID_ARGUMENT` (a `version` this library does not know, a NULL function,
/// `size` 0 or `rank >= size`). Nothing is communicated. On failure the table's
/// `free_user_data` is not called: `user_data` stays the caller's to free.
///
/// Threads: a communicator may be used from any thread, but by one collective call at a
/// time (as an MPI communicator); its collective operations run on the thread of the
/// collective libzarr call.
///
/// # Safety
/// `ops` is NULL or points to a table whose functions behave as `zarr_comm_ops` says;
/// `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_create(
    ops: *const zarr_comm_ops,
    rank: usize,
    size: usize,
    out: *mut *mut zarr_comm,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_comm_create", || {
        // SAFETY: per this function's contract.
        let table = *unsafe { handle(ops, "ops") }?;
        let out = out_ptr(out, "out")?;
        if table.version != ZARR_COMM_OPS_VERSION {
            return Err(FfiError::InvalidArgument(format!(
                "ops->version is {}: this library knows version {ZARR_COMM_OPS_VERSION}",
                table.version
            )));
        }
        let missing = [
            ("barrier", table.barrier.is_none()),
            ("broadcast", table.broadcast.is_none()),
            ("all_gather", table.all_gather.is_none()),
            ("all_gather_v", table.all_gather_v.is_none()),
            ("all_to_all_v", table.all_to_all_v.is_none()),
            ("all_reduce_i64", table.all_reduce_i64.is_none()),
        ];
        if let Some((name, _)) = missing.iter().find(|(_, missing)| *missing) {
            return Err(FfiError::InvalidArgument(format!(
                "ops->{name} is NULL: every collective operation is required"
            )));
        }
        if size == 0 || rank >= size {
            return Err(FfiError::InvalidArgument(format!(
                "rank {rank} of {size} ranks: need 0 <= rank < size"
            )));
        }
        let handle = Box::new(zarr_comm {
            comm: CallbackComm {
                ops: table,
                rank,
                size,
            },
            last_write: Mutex::new(None),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Free a communicator (calling its table's `free_user_data`). Accepts NULL. Arrays and
/// groups do not keep a communicator: free it when no collective call uses it any more
/// (for MPI communicators, before `MPI_Finalize`).
///
/// # Safety
/// `comm` is NULL or a communicator from `zarr_comm_create*`, not yet freed, and not in use.
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_free(comm: *mut zarr_comm) {
    if !comm.is_null() {
        // SAFETY: from Box::into_raw, freed once, per the contract.
        drop(unsafe { Box::from_raw(comm) });
    }
}

/// This rank's number in the communicator (0 to size - 1).
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`. Not collective.
///
/// # Safety
/// `comm` is NULL or live; `rank_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_rank(
    comm: *const zarr_comm,
    rank_out: *mut usize,
) -> zarr_status {
    run("zarr_comm_rank", || {
        // SAFETY: per this function's contract.
        let comm = unsafe { handle(comm, "comm") }?;
        let out = out_ptr(rank_out, "rank_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, comm.comm.rank) };
        Ok(())
    })
}

/// The number of ranks of the communicator.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`. Not collective.
///
/// # Safety
/// `comm` is NULL or live; `size_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_size(
    comm: *const zarr_comm,
    size_out: *mut usize,
) -> zarr_status {
    run("zarr_comm_size", || {
        // SAFETY: per this function's contract.
        let comm = unsafe { handle(comm, "comm") }?;
        let out = out_ptr(size_out, "size_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, comm.comm.size) };
        Ok(())
    })
}

/// Create an array, collectively: every rank of `comm` calls it with the same `path` and
/// `metadata_json` (as `zarr_array_create`); rank 0 writes the metadata, then every rank
/// opens the array and gets its own handle in `out`.
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (a NULL
/// `comm` fails only this rank's call: it cannot reach the others);
/// `ZARR_ERROR_INVALID_ARGUMENT` (ranks passed different paths or metadata); the statuses
/// of `zarr_array_create` (of rank 0) and `zarr_array_open` (of any rank);
/// `ZARR_ERROR_COMMUNICATION`. After a failure on any rank, `out` is NULL on every rank.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `store` live, strings NUL-terminated, `out`
/// writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_create_collective(
    comm: *const zarr_comm,
    store: *mut zarr_store,
    path: *const c_char,
    metadata_json: *const c_char,
    out: *mut *mut zarr_array,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    let arguments = || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        // SAFETY: per this function's contract.
        let metadata = unsafe { str_arg(metadata_json, "metadata_json") }?;
        Ok((store.storage.clone(), path, metadata, out_ptr(out, "out")?))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_array_create_collective",
        comm,
        arguments,
        |ctx, _, (storage, path, metadata, out)| {
            let array = collective::create_array(ctx, storage, path, metadata)?;
            // SAFETY: checked non-NULL, writable per the contract.
            unsafe { write_out(out, Box::into_raw(Box::new(zarr_array { array }))) };
            Ok(())
        },
    )
}

/// Write each rank's box of `array`, collectively: every rank of `comm` calls it with its
/// own `start`/`count` (a count with a zero: the rank writes nothing but takes part; for a
/// 0-d array, whose one element has no count, `buf_len` 0 says the same) and
/// `buf` (its box, dense, C order, host byte order, `buf_len` bytes exactly, as
/// `zarr_array_write`). The result equals one serial write of every rank's box, whatever
/// the decomposition: boxes may cut chunks, shards and inner chunks anywhere, and the
/// array may be v3 (plain or sharded, any codecs) or v2. Boxes of different ranks must not
/// overlap.
///
/// How: every rank checks its arguments, then the ranks exchange their boxes; each storage
/// unit (a chunk, or a shard) gets one owner, the same on every rank; the pieces of a unit
/// that other ranks hold travel to its owner in rounds of at most 16 MiB per rank (so a
/// rank holds its box plus a bounded amount), and the owner writes the unit once, merging
/// with what is stored only when the boxes do not cover the unit. Every object has exactly
/// one writer: no lock, no conditional write needed (the store's update protection still
/// guards the merges). `zarr_comm_last_write_json` tells what this rank did.
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (a NULL
/// `comm` fails only this rank's call: it cannot reach the others);
/// `ZARR_ERROR_INVALID_ARGUMENT` (wrong `ndim`, boxes of two ranks that overlap, ranks
/// writing different arrays); `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_SIZE_MISMATCH`;
/// `ZARR_ERROR_UNSUPPORTED` (variable-length elements); `ZARR_ERROR_OUT_OF_MEMORY` (also
/// when the boxes cut more than 2^24 pieces out of chunks: write them in parts);
/// `ZARR_ERROR_COMMUNICATION`; and the statuses of `zarr_array_write` for a failure while
/// writing (on any rank: the other ranks' message starts with "rank N: "). Argument errors
/// of any rank are found before anything is written; after a failure while writing, units
/// already written hold the new data and the others the old.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `array` live, `start`/`count` hold `ndim` values,
/// `buf` has `buf_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_write_collective(
    comm: *const zarr_comm,
    array: *mut zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    let arguments = || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { super::array::selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        Ok((array, start, count, buf))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_array_write_collective",
        comm,
        arguments,
        |ctx, comm, (array, start, count, buf)| {
            let report = collective::write(ctx, array, start, count, buf)?;
            comm.remember(report);
            Ok(())
        },
    )
}

/// Read each rank's box of `array` into its `buf`, collectively: every rank of `comm`
/// calls it with its own `start`/`count` (boxes may overlap; a count with a zero reads
/// nothing) and `buf` (dense, C order, host byte order, at least the box's size, as
/// `zarr_array_read`). Every rank reads its own box; the arguments of every rank are
/// checked first, and a failure on any rank is every rank's.
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (a NULL
/// `comm` fails only this rank's call); `ZARR_ERROR_INVALID_ARGUMENT`;
/// `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_TOO_SMALL`; `ZARR_ERROR_UNSUPPORTED`
/// (variable-length elements); `ZARR_ERROR_COMMUNICATION`; the statuses of
/// `zarr_array_read`. After a failure while reading, `buf` may be partly written.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `array` live, `start`/`count` hold `ndim` values,
/// `buf` has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read_collective(
    comm: *const zarr_comm,
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    let arguments = || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { super::array::selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        Ok((array, start, count, buf))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_array_read_collective",
        comm,
        arguments,
        |ctx, _, (array, start, count, buf)| collective::read(ctx, array, start, count, buf),
    )
}

/// Resize `array` to `shape`, collectively: every rank calls it with the same `shape` (as
/// `zarr_array_resize`); rank 0 rewrites the metadata (and resets the old edge chunks),
/// then every rank's handle has the new shape.
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`;
/// `ZARR_ERROR_INVALID_ARGUMENT` (wrong `ndim`, ranks passing different shapes); the
/// statuses of `zarr_array_resize`; `ZARR_ERROR_COMMUNICATION`.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `array` live, `shape` holds `ndim` values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_resize_collective(
    comm: *const zarr_comm,
    array: *mut zarr_array,
    ndim: usize,
    shape: *const u64,
) -> zarr_status {
    let arguments = || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        super::array::check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let shape = unsafe { slice(shape, ndim, "shape") }?;
        Ok((array, shape))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_array_resize_collective",
        comm,
        arguments,
        |ctx, _, (array, shape)| collective::resize(ctx, array, shape),
    )
}

/// Grow dimension `dim` of `array` by `length`, then write each rank's box of the appended
/// block, collectively: the time step of a simulation, each rank writing its part of it.
/// Every rank passes the same `dim` and `length`; `start`/`count` are relative to the
/// appended block (`start[dim] + count[dim] <= length`), `buf` as for
/// `zarr_array_write_collective`. The metadata is written once, by rank 0.
///
/// Returns on every rank the same status: those of `zarr_array_resize_collective` and
/// `zarr_array_write_collective`; `ZARR_ERROR_INVALID_ARGUMENT` also for a `dim` outside
/// the array, and `ZARR_ERROR_OUT_OF_BOUNDS` for a box outside the appended block. When the
/// write fails after the resize, the array keeps its new shape.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `array` live, `start`/`count` hold `ndim` values,
/// `buf` has `buf_len` readable bytes.
#[must_use]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn zarr_array_append_collective(
    comm: *const zarr_comm,
    array: *mut zarr_array,
    dim: usize,
    length: u64,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    let arguments = || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { super::array::selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        Ok((array, start, count, buf))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_array_append_collective",
        comm,
        arguments,
        |ctx, comm, (array, start, count, buf)| {
            let report = collective::append(ctx, array, dim, length, start, count, buf)?;
            comm.remember(report);
            Ok(())
        },
    )
}

/// Replace the attributes of `array` with the JSON object `attributes_json`, collectively
/// (every rank passes the same text; rank 0 writes, then every handle has them).
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`;
/// `ZARR_ERROR_INVALID_ARGUMENT` (not a JSON object, or different on some rank); the
/// statuses of `zarr_array_set_attributes_json`; `ZARR_ERROR_COMMUNICATION`.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `array` live, `attributes_json` NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attributes_json_collective(
    comm: *const zarr_comm,
    array: *mut zarr_array,
    attributes_json: *const c_char,
) -> zarr_status {
    let arguments = || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let text = unsafe { str_arg(attributes_json, "attributes_json") }?;
        Ok((array, attributes_object(text)?))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_array_set_attributes_json_collective",
        comm,
        arguments,
        |ctx, _, (array, attributes)| collective::set_array_attributes(ctx, array, attributes),
    )
}

/// Create a Zarr v3 group, collectively: every rank calls it with the same `path` and
/// `attributes_json` (a JSON object, or NULL for none; as `zarr_group_create`); rank 0
/// writes it, then every rank opens it and gets its own handle in `out`.
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`;
/// `ZARR_ERROR_INVALID_ARGUMENT` (ranks passing different arguments); the statuses of
/// `zarr_group_create`; `ZARR_ERROR_COMMUNICATION`. After a failure, `out` is NULL on
/// every rank.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `store` live, strings NUL-terminated, `out`
/// writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_create_collective(
    comm: *const zarr_comm,
    store: *mut zarr_store,
    path: *const c_char,
    attributes_json: *const c_char,
    out: *mut *mut zarr_group,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    let arguments = || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        // SAFETY: NULL or NUL-terminated, per this function's contract.
        let attributes = unsafe { attributes_arg(attributes_json) }?;
        Ok((
            store.storage.clone(),
            path,
            attributes,
            out_ptr(out, "out")?,
        ))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_group_create_collective",
        comm,
        arguments,
        |ctx, _, (storage, path, attributes, out)| {
            let group = collective::create_group(ctx, storage, path, attributes, ZarrFormat::V3)?;
            // SAFETY: checked non-NULL, writable per the contract.
            unsafe { write_out(out, Box::into_raw(Box::new(zarr_group { group }))) };
            Ok(())
        },
    )
}

/// Replace the attributes of `group` with the JSON object `attributes_json`, collectively
/// (every rank passes the same text).
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`;
/// `ZARR_ERROR_INVALID_ARGUMENT`; the statuses of `zarr_group_set_attributes_json`;
/// `ZARR_ERROR_COMMUNICATION`.
///
/// # Safety
/// Pointers are NULL or valid: `comm` and `group` live, `attributes_json` NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_set_attributes_json_collective(
    comm: *const zarr_comm,
    group: *mut zarr_group,
    attributes_json: *const c_char,
) -> zarr_status {
    let arguments = || {
        // SAFETY: per this function's contract.
        let group = &unsafe { handle(group, "group") }?.group;
        // SAFETY: per this function's contract.
        let text = unsafe { str_arg(attributes_json, "attributes_json") }?;
        Ok((group, attributes_object(text)?))
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_group_set_attributes_json_collective",
        comm,
        arguments,
        |ctx, _, (group, attributes)| collective::set_group_attributes(ctx, group, attributes),
    )
}

/// Write the consolidated metadata of `group`, collectively (as `zarr_group_consolidate`,
/// by rank 0): call it after the last collective write and node creation, so that it lists
/// every node.
///
/// Returns on every rank the same status: `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`;
/// `ZARR_ERROR_INVALID_ARGUMENT` (ranks passing different groups); the statuses of
/// `zarr_group_consolidate`; `ZARR_ERROR_COMMUNICATION`.
///
/// # Safety
/// `comm` and `group` are NULL or live.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_group_consolidate_collective(
    comm: *const zarr_comm,
    group: *mut zarr_group,
) -> zarr_status {
    // SAFETY: per this function's contract.
    let arguments = || unsafe { handle(group, "group") }.map(|g| &g.group);
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective(
        "zarr_group_consolidate_collective",
        comm,
        arguments,
        |ctx, _, group| collective::consolidate(ctx, group),
    )
}

/// What the last `zarr_array_write_collective` (or `zarr_array_append_collective`) through
/// `comm` did on this rank, as a JSON object: `ranks`, `rounds` (of exchange, the same on
/// every rank), `units` (chunks or shards the boxes touched), `units_written` (by this
/// rank, their owner), `units_merged` (of those, units the boxes did not cover whole: read
/// and merged with what was stored), `bytes_sent` and `bytes_received` (pieces exchanged
/// with other ranks). A unit written by one rank with nothing exchanged is the ideal; many
/// merged units mean boxes that cut units without covering them. `null` before the first
/// successful collective write. Not collective.
///
/// Returns `ZARR_OK`, or `ZARR_ERROR_NULL_ARGUMENT`. Free `*json_out` with
/// `zarr_string_free`.
///
/// # Safety
/// `comm` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_last_write_json(
    comm: *const zarr_comm,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_comm_last_write_json", || {
        // SAFETY: per this function's contract.
        let comm = unsafe { handle(comm, "comm") }?;
        let out = out_ptr(json_out, "json_out")?;
        let report = comm
            .last_write
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let json = report.map_or(serde_json::Value::Null, |r| r.to_json());
        let text = owned_c_string(json.to_string())?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// Agree on an outcome, collectively: every rank of `comm` passes its own `status`
/// (`ZARR_OK`, or the error it found), and every rank gets back `ZARR_OK` when all passed
/// `ZARR_OK`, otherwise the status of the lowest rank that failed. For checks a program or a
/// binding makes itself before a collective call (a buffer of the wrong type, a file that
/// is missing on one node): agreeing first means that either every rank makes the call or
/// none does, so no rank waits in a call the others skipped.
///
/// - `status`: this rank's outcome (any negative value is a failure).
/// - `message`: this rank's explanation of its failure (NUL-terminated UTF-8, or NULL for
///   the text of `zarr_last_error_message()` now). Ignored with `ZARR_OK`.
///
/// Returns the agreed status; when it is a failure, `zarr_last_error_message()` on every
/// rank gives "rank N: <message of rank N>" (N the lowest failing rank). Also
/// `ZARR_ERROR_NULL_ARGUMENT` when `comm` is NULL (this rank alone: it cannot reach the
/// others) and `ZARR_ERROR_COMMUNICATION`.
///
/// # Safety
/// `comm` is NULL or live; `message` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_agree(
    comm: *const zarr_comm,
    status: zarr_status,
    message: *const c_char,
) -> zarr_status {
    let own_message = if status == ZARR_OK {
        String::new()
    } else if message.is_null() {
        super::error::last_error_text()
    } else {
        // SAFETY: non-NULL and NUL-terminated per this function's contract.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    };
    // This rank's outcome goes through the agreement of arguments: a failure reaches every
    // rank with this rank's status and message.
    let arguments = || {
        if status == ZARR_OK {
            Ok(())
        } else {
            Err(FfiError::Reported {
                status,
                message: own_message,
            })
        }
    };
    // SAFETY: per this function's contract.
    let comm = unsafe { comm.as_ref() };
    run_collective("zarr_comm_agree", comm, arguments, |_, _, ()| Ok(()))
}

/// Explain a failure about to be returned by a function of a `zarr_comm_ops` table, or by a
/// function that makes a communicator (`zarr_comm_create_mpi` uses it): the text becomes
/// part of the failing libzarr call's `zarr_last_error_message()` (after "the
/// communicator's <operation> returned <status> (...): "), and is at once the calling
/// thread's `zarr_last_error_message()` (for a failure reported without a libzarr call
/// after it). Call it on the thread of the failing function before returning its error
/// status; NULL clears the explanation. Never fails.
///
/// - `message`: NUL-terminated UTF-8 text (invalid UTF-8 is replaced), copied; or NULL.
///
/// Thread safety: the message is per thread.
///
/// # Safety
/// `message` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn zarr_comm_callback_set_error(message: *const c_char) {
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
    if let Some(text) = &text {
        super::error::set_last_error(text.clone());
    }
    // Nothing here can panic but an allocation failure, which aborts anyway; no boundary
    // is needed for a function that returns nothing and cannot fail.
    CALLBACK_MESSAGE.with(|m| *m.borrow_mut() = text);
}
