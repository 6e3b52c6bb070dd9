//! The worker pool that decodes and encodes chunks in parallel.
//!
//! One pool serves the whole process. Its size is, in order of precedence: the last value
//! given to [`set_num_threads`], the `ZARR_NUM_THREADS` environment variable (read when the
//! pool is first used), or the number of CPUs available to the process. It never exceeds
//! [`MAX_THREADS`]: [`set_num_threads`] refuses more, and a larger environment value or
//! CPU count is clamped to it.

use std::cell::Cell;
use std::sync::{Arc, RwLock};

/// The largest pool: far more than chunk decoding can use on any machine today, and
/// small enough to start in about a second even on a small one (on a 2-core test machine
/// 1,024 threads started in 1.3 to 2.5 s, 2,048 in 9 s, and the 65,535 rayon allows in
/// minutes).
pub const MAX_THREADS: usize = 1024;

/// A pool and the process that started it. A child made by `fork` inherits the slot but
/// not the workers (only the forking thread is copied), so a pool is used only by the
/// process that built it; a child builds its own on first use.
type Slot = RwLock<Option<(u32, Arc<rayon::ThreadPool>)>>;

static POOL: Slot = RwLock::new(None);

thread_local! {
    /// Whether the current thread is one of libzarr's workers (set by the pool's start
    /// handler; a const-initialized `Cell` without destructor, readable at any time).
    static IS_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// An error setting up the pool.
#[derive(Debug, thiserror::Error)]
pub enum ThreadPoolError {
    /// More threads than [`MAX_THREADS`] were asked for.
    #[error("{requested} worker threads requested; the maximum is {max}")]
    TooMany { requested: usize, max: usize },
    /// The operating system refused to start the threads.
    #[error("cannot start {threads} worker threads: {message}")]
    Start { threads: usize, message: String },
}

/// Whether the calling thread is one of the pool's workers.
pub fn on_worker_thread() -> bool {
    IS_WORKER.try_with(Cell::get).unwrap_or(false)
}

/// The size used when none is set: `ZARR_NUM_THREADS` if it is a positive integer (at
/// most [`MAX_THREADS`]), else the CPUs available (at most [`MAX_THREADS`]).
fn default_size() -> usize {
    let from_env = std::env::var("ZARR_NUM_THREADS")
        .ok()
        .and_then(|v| parse_thread_count(&v));
    from_env
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(MAX_THREADS)
}

/// A positive integer, in decimal; values too large for `usize` count as large, not as
/// garbage (they are then clamped like any other large value).
fn parse_thread_count(text: &str) -> Option<usize> {
    let text = text.trim();
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = digits.parse::<usize>().unwrap_or(usize::MAX);
    (n > 0).then_some(n)
}

fn build(threads: usize) -> Result<Arc<rayon::ThreadPool>, ThreadPoolError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("libzarr-{i}"))
        .start_handler(|_| IS_WORKER.with(|w| w.set(true)))
        .build()
        .map(Arc::new)
        .map_err(|e| ThreadPoolError::Start {
            threads,
            message: e.to_string(),
        })
}

/// The pool, created on first use (and again in a child process after `fork`).
pub fn pool() -> Result<Arc<rayon::ThreadPool>, ThreadPoolError> {
    shared(&POOL, |_| true, default_size)
}

/// The pool in `slot` if it was built by this process and `fits`, else a new one of
/// `size()` workers put in its place.
fn shared(
    slot: &Slot,
    fits: impl Fn(&rayon::ThreadPool) -> bool,
    size: impl FnOnce() -> usize,
) -> Result<Arc<rayon::ThreadPool>, ThreadPoolError> {
    let process = std::process::id();
    let usable = |entry: &Option<(u32, Arc<rayon::ThreadPool>)>| match entry {
        Some((owner, pool)) if *owner == process && fits(pool) => Some(pool.clone()),
        _ => None,
    };
    // The lock only guards a pointer swap, so a poisoned lock still holds a valid value.
    if let Some(pool) = usable(&slot.read().unwrap_or_else(|e| e.into_inner())) {
        return Ok(pool);
    }
    let mut entry = slot.write().unwrap_or_else(|e| e.into_inner());
    if let Some(pool) = usable(&entry) {
        return Ok(pool);
    }
    let pool = build(size())?;
    replace(&mut entry, pool.clone());
    Ok(pool)
}

/// Put `pool` in `entry`. A parent's pool left in a forked child is set aside, not
/// dropped: its workers do not exist here, and shutting it down would wait on them. It
/// is kept in [`INHERITED`] rather than forgotten, so that its memory stays reachable
/// (leak checkers then do not report it in every child a test forks).
fn replace(entry: &mut Option<(u32, Arc<rayon::ThreadPool>)>, pool: Arc<rayon::ThreadPool>) {
    let process = std::process::id();
    if let Some((owner, old)) = entry.replace((process, pool)) {
        if owner != process {
            INHERITED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(old);
        }
    }
}

/// Pools inherited from a parent process through `fork`: never used, never dropped (see
/// [`replace`]). At most one per pool slot and generation of forks.
static INHERITED: std::sync::Mutex<Vec<Arc<rayon::ThreadPool>>> = std::sync::Mutex::new(Vec::new());

/// Replace the pool with one of `threads` workers (0: back to the default size). Work
/// already running finishes on the old pool. More than [`MAX_THREADS`] is refused and
/// leaves the pool as it was.
pub fn set_num_threads(threads: usize) -> Result<(), ThreadPoolError> {
    if threads > MAX_THREADS {
        return Err(ThreadPoolError::TooMany {
            requested: threads,
            max: MAX_THREADS,
        });
    }
    let size = if threads == 0 {
        default_size()
    } else {
        threads
    };
    let pool = build(size)?;
    replace(&mut POOL.write().unwrap_or_else(|e| e.into_inner()), pool);
    Ok(())
}

/// The pool for the I/O of remote stores, which wait on round trips rather than cores:
/// `requests` workers (at most [`MAX_THREADS`]), created on first use and kept; a later
/// call asking for more replaces it with a larger one. Its workers decode too, so a remote
/// read keeps that many requests in flight whatever the CPU count.
pub fn io_pool(requests: usize) -> Result<Arc<rayon::ThreadPool>, ThreadPoolError> {
    static IO_POOL: Slot = RwLock::new(None);
    let requests = requests.clamp(1, MAX_THREADS);
    shared(
        &IO_POOL,
        |pool| pool.current_num_threads() >= requests,
        || requests,
    )
}

/// The number of workers the pool has (creating it if needed).
pub fn num_threads() -> Result<usize, ThreadPoolError> {
    Ok(pool()?.current_num_threads())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resize_and_reset() {
        set_num_threads(3).unwrap();
        assert_eq!(num_threads().unwrap(), 3);
        set_num_threads(0).unwrap();
        assert!(num_threads().unwrap() >= 1);
    }

    #[test]
    fn too_many_threads_are_refused() {
        for n in [MAX_THREADS + 1, 1_000_000, usize::MAX] {
            assert!(matches!(
                set_num_threads(n),
                Err(ThreadPoolError::TooMany { requested, max: MAX_THREADS }) if requested == n
            ));
        }
    }

    #[test]
    fn thread_counts_from_the_environment() {
        assert_eq!(parse_thread_count("4"), Some(4));
        assert_eq!(parse_thread_count(" 16\n"), Some(16));
        assert_eq!(parse_thread_count("+2"), Some(2));
        assert_eq!(parse_thread_count("1000000"), Some(1_000_000));
        // Too large for usize: large, not garbage.
        assert_eq!(
            parse_thread_count("99999999999999999999999999"),
            Some(usize::MAX)
        );
        for bad in ["", "0", "-3", "lots", "4x", "+", "1e3"] {
            assert_eq!(parse_thread_count(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn workers_know_they_are_workers() {
        assert!(!on_worker_thread());
        let pool = pool().unwrap();
        assert!(pool.install(on_worker_thread));
    }
}
