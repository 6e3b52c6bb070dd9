//! Exclusive locks on a file that hold across processes: open file description locks
//! (`F_OFD_SETLKW`) on Linux, `flock` elsewhere.
//!
//! Both kinds belong to the open file description, not to the process: two descriptors
//! opened separately exclude each other even within one process (POSIX `F_SETLK` locks
//! would not, and would be dropped when any descriptor of the file is closed), and the
//! kernel releases the lock when the description's last descriptor is closed, so a
//! process that is killed never leaves a file locked. Over NFS (v3 with lockd, v4) an OFD
//! lock is a byte-range lock on the server, held against every client; Lustre honours it
//! when mounted with `-o flock`.

use rustix::fd::{AsFd, AsRawFd};
use std::io;

/// Wait until the file open at `file` (open for writing) is locked exclusively by this
/// open file description. A signal interrupting the wait does not end it.
pub(crate) fn lock_exclusive(file: impl AsFd) -> io::Result<()> {
    let fd = file.as_fd().as_raw_fd();
    loop {
        match lock_once(fd) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn lock_once(fd: std::os::fd::RawFd) -> io::Result<()> {
    // SAFETY: an all-zero `flock` is a valid value of the plain C struct; the fields that
    // matter are set below.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    lock.l_start = 0;
    lock.l_len = 0; // to the end of the file, however long it grows
    lock.l_pid = 0; // required to be 0 for OFD locks
                    // SAFETY: `fd` is an open descriptor borrowed for the call, and `lock` is a valid
                    // `flock` that outlives it; F_OFD_SETLKW only reads it.
    let result = unsafe { libc::fcntl(fd, libc::F_OFD_SETLKW, &lock as *const libc::flock) };
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn lock_once(fd: std::os::fd::RawFd) -> io::Result<()> {
    // SAFETY: `fd` is an open descriptor borrowed for the call.
    let result = unsafe { libc::flock(fd, libc::LOCK_EX) };
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn two_descriptions_of_one_file_exclude_each_other_in_one_process() {
        let path = std::env::temp_dir().join(format!("libzarr-lock-{}", std::process::id()));
        let open = || {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .unwrap()
        };
        let first = open();
        lock_exclusive(&first).unwrap();
        let (sender, receiver) = mpsc::channel();
        let waiter = std::thread::spawn({
            let second = open();
            move || {
                lock_exclusive(&second).unwrap();
                sender.send(()).unwrap();
            }
        });
        // The second description waits while the first holds the lock...
        assert!(receiver.recv_timeout(Duration::from_millis(200)).is_err());
        // ...and gets it once the first is closed.
        drop(first);
        receiver.recv_timeout(Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
        std::fs::remove_file(&path).unwrap();
    }
}
