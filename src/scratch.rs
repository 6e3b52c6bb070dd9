//! Byte buffers that the read path reuses, a few per thread, between the chunks of one read.
//!
//! A whole read passes every chunk through two buffers on its worker: the stored bytes and
//! the decompressed bytes, which are then scattered into the caller's array. Allocated
//! afresh per chunk, they cost more than their size suggests: when a chunk's buffers are
//! freed, the allocator hands the top of the thread's heap back to the kernel, and the next
//! chunk's buffers are faulted in again, page by page. For the zstd layout of the benchmark
//! (16,384 chunks of 1 MiB) that was about a sixth of the read's samples in `perf`.
//!
//! So buffers are taken from here and given back when a chunk is done. The stock is small
//! and bounded: only the library's worker threads keep buffers (a caller's own thread never
//! holds memory between calls), each at most [`KEPT`] of at most [`MAX_KEPT_BYTES`] each,
//! and the planner has every worker empty its stock when a read or write ends ([`release`]).

use std::cell::RefCell;

/// Buffers kept per thread: a chunk in flight needs two (stored and decoded) and a shard
/// batch one more.
const KEPT: usize = 3;

/// A larger buffer is freed rather than kept (a batch of a shard's inner chunks is at most
/// 32 MiB, see `storage::source::ByteSource::batch_bytes`).
const MAX_KEPT_BYTES: usize = 32 << 20;

thread_local! {
    static SPARE: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Take the kept buffer that best fits `len` bytes: the smallest one with room for them,
/// otherwise the largest one (which then grows).
fn take_spare(len: usize) -> Vec<u8> {
    SPARE
        .try_with(|spare| {
            let mut spare = spare.try_borrow_mut().ok()?;
            let fits = (0..spare.len())
                .filter(|&i| spare[i].capacity() >= len)
                .min_by_key(|&i| spare[i].capacity());
            let best = fits.or_else(|| (0..spare.len()).max_by_key(|&i| spare[i].capacity()))?;
            Some(spare.swap_remove(best))
        })
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// An empty buffer with room for at least `len` bytes, or `None` when that much memory
/// cannot be allocated.
pub(crate) fn take(len: usize) -> Option<Vec<u8>> {
    let mut buffer = take_spare(len);
    buffer.clear();
    buffer.try_reserve_exact(len).ok()?;
    Some(buffer)
}

/// A buffer of `len` bytes whose contents are left over from earlier use (zero where it
/// grew), for a caller that writes every byte before reading any: a reused buffer is not
/// cleared again. `None` when that much memory cannot be allocated.
pub(crate) fn take_filled(len: usize) -> Option<Vec<u8>> {
    let mut buffer = take_spare(len);
    if buffer.len() >= len {
        buffer.truncate(len);
    } else {
        buffer.try_reserve_exact(len - buffer.len()).ok()?;
        buffer.resize(len, 0);
    }
    Some(buffer)
}

/// Give a buffer back for the next chunk on this thread; one beyond the bounds, or given
/// back on a thread that is not one of the pool's workers, is freed.
pub(crate) fn give_back(buffer: Vec<u8>) {
    let on_worker = rayon::current_thread_index().is_some();
    if !on_worker || buffer.capacity() == 0 || buffer.capacity() > MAX_KEPT_BYTES {
        return;
    }
    // During thread teardown the stock may be gone: then the buffer is simply freed.
    let _ = SPARE.try_with(|spare| {
        let Ok(mut spare) = spare.try_borrow_mut() else {
            return;
        };
        if spare.len() < KEPT {
            spare.push(buffer);
        } else if let Some(smallest) = (0..spare.len()).min_by_key(|&i| spare[i].capacity()) {
            if spare[smallest].capacity() < buffer.capacity() {
                spare[smallest] = buffer;
            }
        }
    });
}

/// Free this thread's kept buffers.
pub(crate) fn release() {
    let _ = SPARE.try_with(|spare| {
        if let Ok(mut spare) = spare.try_borrow_mut() {
            *spare = Vec::new();
        }
    });
}

#[cfg(test)]
fn kept() -> Vec<usize> {
    SPARE.with(|spare| spare.borrow().iter().map(Vec::capacity).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_within_bounds() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.install(reuse_on_a_worker);
        // A thread outside the pool keeps nothing.
        give_back(Vec::with_capacity(1000));
        assert!(kept().is_empty());
    }

    fn reuse_on_a_worker() {
        release();
        let a = take(1000).unwrap();
        assert!(a.is_empty() && a.capacity() >= 1000);
        let pointer = a.as_ptr();
        give_back(a);
        // The same allocation comes back, emptied.
        let b = take(500).unwrap();
        assert_eq!((b.as_ptr(), b.len()), (pointer, 0));
        give_back(b);
        // Too small a buffer grows.
        let c = take(4000).unwrap();
        assert!(c.is_empty() && c.capacity() >= 4000);
        give_back(c);
        // At most KEPT buffers, the largest kept; oversized ones are freed.
        for n in [10, 20, 30, 40] {
            give_back(Vec::with_capacity(n * 1000));
        }
        let mut kept_now = kept();
        kept_now.sort_unstable();
        assert_eq!(kept_now.len(), KEPT);
        assert!(kept_now[0] >= 20_000, "{kept_now:?}");
        give_back(Vec::with_capacity(MAX_KEPT_BYTES + 1));
        assert!(kept().iter().all(|&n| n <= MAX_KEPT_BYTES));
        release();
        assert!(kept().is_empty());
        // Impossible sizes are refused, not a panic.
        assert!(take(usize::MAX).is_none());
        assert!(take_filled(usize::MAX).is_none());
        // A filled buffer comes back with its bytes, cut to the length asked for.
        let mut d = take_filled(3000).unwrap();
        assert_eq!(d.len(), 3000);
        d.fill(7);
        give_back(d);
        let e = take_filled(2000).unwrap();
        assert_eq!(e, vec![7; 2000]);
        // Grown, the new part is zero.
        give_back(e);
        let f = take_filled(5000).unwrap();
        assert_eq!(
            (&f[..2000], &f[2000..]),
            (&[7u8; 2000][..], &[0u8; 3000][..])
        );
        give_back(f);
        release();
    }
}
