//! The one helper every exported function runs its body in: it converts errors and panics
//! into status codes and records the thread's last error message.
//!
//! Panics are caught here, so Rust's default panic hook, which prints every panic on
//! stderr before the unwinding starts, would still print a caught panic. The first call
//! therefore installs a hook that stays silent for panics raised inside a libzarr call (on
//! the calling thread, which this helper marks) or on libzarr's worker threads, and
//! records where the panic happened; every other panic goes to the hook that was installed
//! before (the host's, or Rust's default), so the host's own panics behave as before.

use super::error::{describe, set_last_error, status_of, FfiError};
use super::status::{zarr_status, ZARR_ERROR_PANIC, ZARR_OK};
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    /// How many libzarr calls are running on this thread (a callback could nest them).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Where the last panic inside a libzarr call on this thread happened.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks the calling thread as inside a libzarr call while it lives.
struct Inside;

impl Inside {
    fn enter() -> Inside {
        let _ = DEPTH.try_with(|d| d.set(d.get().saturating_add(1)));
        Inside
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Whether a panic on the current thread belongs to libzarr.
fn panic_is_ours() -> bool {
    DEPTH.try_with(|d| d.get() > 0).unwrap_or(false) || crate::threads::on_worker_thread()
}

/// Install the silent hook, once per process (see the module documentation).
fn install_panic_hook() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    // The hook cannot be changed from a panicking thread (a call made while unwinding,
    // from a destructor); the next call will install it.
    if INSTALL.is_completed() || std::thread::panicking() {
        return;
    }
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if panic_is_ours() {
                if let Some(location) = info.location() {
                    let at = format!("{}:{}", location.file(), location.line());
                    let _ = PANIC_LOCATION.try_with(|slot| {
                        if let Ok(mut slot) = slot.try_borrow_mut() {
                            *slot = Some(at);
                        }
                    });
                }
            } else {
                previous(info);
            }
        }));
    });
}

/// Run `body` for the exported function `function`. An error records
/// "<function>: <message>" and returns its status; a panic returns `ZARR_ERROR_PANIC`
/// and records "<function>: internal error (panic at <file>:<line>): <message>".
pub(crate) fn run(function: &str, body: impl FnOnce() -> Result<(), FfiError>) -> zarr_status {
    install_panic_hook();
    let inside = Inside::enter();
    // The body only touches handles through shared references or writes outputs at the
    // very end, so observing state after a caught panic is no worse than the error itself.
    let result = catch_unwind(AssertUnwindSafe(body));
    drop(inside);
    match result {
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
            // A panic on a worker thread reaches here through rayon with its message;
            // only a panic on this thread left its location here.
            let location = PANIC_LOCATION
                .try_with(|slot| slot.try_borrow_mut().ok().and_then(|mut s| s.take()))
                .ok()
                .flatten();
            let message = match location {
                Some(at) => format!("{function}: internal error (panic at {at}): {what}"),
                None => format!("{function}: internal error (panic): {what}"),
            };
            set_last_error(message);
            ZARR_ERROR_PANIC
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::error::zarr_last_error_message;
    use std::ffi::CStr;

    /// Set in the environment of the child process that runs the hook scenario (the
    /// panic hook is process-wide, so the scenario runs alone in a process of its own).
    const CHILD: &str = "LIBZARR_TEST_PANIC_HOOK_CHILD";

    fn last_error() -> String {
        // SAFETY: zarr_last_error_message returns a valid NUL-terminated string.
        unsafe { CStr::from_ptr(zarr_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    /// The scenario: a host hook is installed first; panics inside libzarr calls (on the
    /// calling thread and on a worker) print nothing and are reported with their message;
    /// the host's own panic still reaches the host's hook.
    fn child_scenario() {
        std::panic::set_hook(Box::new(|info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .copied()
                .unwrap_or("?");
            eprintln!("HOST HOOK: {message}");
        }));
        let status = run("test_inside", || panic!("boom inside the call"));
        assert_eq!(status, ZARR_ERROR_PANIC);
        let message = last_error();
        assert!(message.contains("test_inside"), "{message}");
        assert!(message.contains("boom inside the call"), "{message}");
        assert!(message.contains("boundary.rs:"), "{message}");

        let status = run("test_worker", || {
            let pool = crate::threads::pool().map_err(crate::error::Error::from)?;
            pool.install(|| panic!("boom on a worker"))
        });
        assert_eq!(status, ZARR_ERROR_PANIC);
        let message = last_error();
        assert!(message.contains("test_worker"), "{message}");
        assert!(message.contains("boom on a worker"), "{message}");

        let outside = catch_unwind(|| panic!("the host's own panic"));
        assert!(outside.is_err());
        // And a libzarr call after the host's panic is still silent.
        assert_eq!(run("test_again", || panic!("boom again")), ZARR_ERROR_PANIC);
        println!("CHILD SCENARIO DONE");
    }

    #[test]
    fn caught_panics_print_nothing_and_host_panics_reach_the_host_hook() {
        if std::env::var_os(CHILD).is_some() {
            child_scenario();
            return;
        }
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "ffi::boundary::tests::caught_panics_print_nothing_and_host_panics_reach_the_host_hook",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        assert!(stdout.contains("CHILD SCENARIO DONE"), "{stdout}");
        assert!(
            stderr.contains("HOST HOOK: the host's own panic"),
            "{stderr}"
        );
        for silent in ["boom", "panicked at"] {
            assert!(!stderr.contains(silent), "stderr:\n{stderr}");
        }
    }

    #[test]
    fn errors_and_success() {
        assert_eq!(run("test_ok", || Ok(())), ZARR_OK);
        let status = run("test_null", || Err(FfiError::Null("thing")));
        assert_eq!(status, crate::ffi::status::ZARR_ERROR_NULL_ARGUMENT);
        assert_eq!(last_error(), "test_null: argument 'thing' is NULL");
    }
}
