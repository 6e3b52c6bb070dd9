//! Positioned reads into a buffer's unused capacity.
//!
//! `std`'s `read_exact_at` fills an initialised slice, so a buffer must first be zeroed:
//! for the batches of a shard's inner chunks (up to 32 MiB each) that is a `memset` of
//! every byte just before the kernel overwrites it. Reading into the spare capacity skips
//! that, and lets the read path reuse its buffers without caring what they held.

use std::fs::File;
use std::io::{Error, ErrorKind};

/// Append `n` bytes of `file` at `offset` to `buffer`, which must already have room for
/// them (`buffer.capacity() - buffer.len() >= n`). On error `buffer` may have grown by part
/// of the bytes; a file that ends first is `UnexpectedEof`.
pub(crate) fn append_exact_at(
    file: &File,
    buffer: &mut Vec<u8>,
    n: usize,
    offset: u64,
) -> std::io::Result<()> {
    if buffer.capacity() - buffer.len() < n {
        return Err(Error::other(
            "append_exact_at: no room reserved for the bytes",
        ));
    }
    let mut done = 0usize;
    while done < n {
        let spare = &mut buffer.spare_capacity_mut()[..n - done];
        let got = match rustix::io::pread(file, spare, offset + done as u64) {
            Ok((filled, _)) => filled.len(),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        };
        if got == 0 {
            return Err(Error::new(
                ErrorKind::UnexpectedEof,
                "failed to fill whole buffer",
            ));
        }
        // SAFETY: `pread` initialised the first `got` bytes of the spare capacity (rustix
        // returns them as the filled part), and `got <= n - done`, within the capacity.
        unsafe { buffer.set_len(buffer.len() + got) };
        done += got;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn appends_exactly_the_bytes_asked_for() {
        let dir = std::env::temp_dir().join(format!("libzarr-read-at-{}", std::process::id()));
        let mut file = File::create(&dir).unwrap();
        file.write_all(b"0123456789").unwrap();
        drop(file);
        let file = File::open(&dir).unwrap();
        let mut buffer = Vec::with_capacity(64);
        buffer.extend_from_slice(b"ab");
        append_exact_at(&file, &mut buffer, 3, 4).unwrap();
        assert_eq!(buffer, b"ab456");
        // Past the end: an error, never garbage.
        let err = append_exact_at(&file, &mut buffer, 5, 8).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        // No room reserved: refused, nothing read.
        let mut full = Vec::new();
        assert!(append_exact_at(&file, &mut full, 1, 0).is_err());
        std::fs::remove_file(&dir).unwrap();
    }
}
