//! The worker pool that decodes and encodes chunks in parallel.
//!
//! One pool serves the whole process. Its size is, in order of precedence: the last value
//! given to [`set_num_threads`], the `ZARR_NUM_THREADS` environment variable (read when the
//! pool is first used), or the number of CPUs available to the process.

use std::sync::{Arc, RwLock};

static POOL: RwLock<Option<Arc<rayon::ThreadPool>>> = RwLock::new(None);

/// An error building the pool (the OS refused to start threads).
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} worker threads: {message}")]
pub struct ThreadPoolError {
    pub threads: usize,
    pub message: String,
}

fn default_size() -> usize {
    std::env::var("ZARR_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn build(threads: usize) -> Result<Arc<rayon::ThreadPool>, ThreadPoolError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("libzarr-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| ThreadPoolError {
            threads,
            message: e.to_string(),
        })
}

/// The pool, created on first use.
pub fn pool() -> Result<Arc<rayon::ThreadPool>, ThreadPoolError> {
    // The lock only guards a pointer swap, so a poisoned lock still holds a valid value.
    if let Some(pool) = POOL.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return Ok(pool.clone());
    }
    let mut slot = POOL.write().unwrap_or_else(|e| e.into_inner());
    if let Some(pool) = slot.as_ref() {
        return Ok(pool.clone());
    }
    let pool = build(default_size())?;
    *slot = Some(pool.clone());
    Ok(pool)
}

/// Replace the pool with one of `threads` workers (0: back to the default size). Work
/// already running finishes on the old pool.
pub fn set_num_threads(threads: usize) -> Result<(), ThreadPoolError> {
    let size = if threads == 0 {
        default_size()
    } else {
        threads
    };
    let pool = build(size)?;
    *POOL.write().unwrap_or_else(|e| e.into_inner()) = Some(pool);
    Ok(())
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
}
