//! Zero-filled buffers whose pages are touched only when written.

use std::alloc::Layout;

/// A vector of `len` zero bytes, or `None` when it cannot be allocated. The memory comes
/// from the allocator's `alloc_zeroed` (fresh, already-zero pages for large sizes), so a
/// buffer sized from a declaration that then fails to decode costs no page touching, unlike
/// `resize(len, 0)`, which writes every byte.
pub(crate) fn zeroed_vec(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a non-zero size (`len > 0`).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[u8; len]`
    // (the layout `Vec<u8>` uses for capacity `len`), and all `len` bytes are initialised
    // (to zero).
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

#[cfg(test)]
mod tests {
    #[test]
    fn zeroed() {
        assert_eq!(super::zeroed_vec(0), Some(Vec::new()));
        let v = super::zeroed_vec(1 << 20).unwrap();
        assert!(v.len() == 1 << 20 && v.iter().all(|&b| b == 0));
        assert_eq!(super::zeroed_vec(usize::MAX), None);
    }
}
