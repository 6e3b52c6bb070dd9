//! The one helper every exported function runs its body in: it converts errors and panics
//! into status codes and records the thread's last error message.

use super::error::{describe, set_last_error, status_of, FfiError};
use super::status::{zarr_status, ZARR_ERROR_PANIC, ZARR_OK};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `body` for the exported function `function`. An error records
/// "<function>: <message>" and returns its status; a panic returns `ZARR_ERROR_PANIC`.
pub(crate) fn run(function: &str, body: impl FnOnce() -> Result<(), FfiError>) -> zarr_status {
    // The body only touches handles through shared references or writes outputs at the
    // very end, so observing state after a caught panic is no worse than the error itself.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ZARR_OK,
        Ok(Err(error)) => {
            set_last_error(format!("{function}: {}", describe(&error)));
            status_of(&error)
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            set_last_error(format!("{function}: internal error (panic): {what}"));
            ZARR_ERROR_PANIC
        }
    }
}
