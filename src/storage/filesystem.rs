//! A store on the local file system: key `a/b/c` is the file `<root>/a/b/c`.
//!
//! **Writes** go to a temporary file in the destination directory, created with `O_EXCL`
//! under a name no other writer can pick (`.libzarr-tmp-<pid>-<counter>-<random>`, the
//! counter shared by every store of the process), that is then renamed over the
//! destination. Readers therefore see the old or the new value, never a torn one, and
//! several store handles, threads and processes may write disjoint keys of one directory
//! at once. A failed write removes its own temporary file and nothing else.
//!
//! **Crashes.** What survives depends on what crashed and on [`FilesystemOptions::fsync`]:
//! - the process (killed, aborted): every key holds its old or its new value, with or
//!   without `fsync`: once `rename` has happened the data is the kernel's, whatever happens
//!   to the process. A write interrupted before its rename leaves its temporary file
//!   behind; listings and reads ignore such files and later writes are not disturbed by
//!   them (delete them when no writer is running, or leave them);
//! - the machine (power loss, kernel crash) with `fsync` (off by default): a `set` that
//!   returned has reached the disk (the file is fsync'ed before the rename, the
//!   directory after it, and so is every directory the write created), and a key whose
//!   write was under way holds its old or its new value;
//! - the machine without `fsync`: writes of roughly the last half minute (the kernel's
//!   write-back delay) may be lost, and depending on the file system a key written in
//!   that window may be left empty or hold part of its new value (ext4 mounted with its
//!   default `auto_da_alloc` flushes a file replaced by rename; XFS and btrfs give no such
//!   promise). A damaged chunk then reads as `CORRUPT_DATA`, never as wrong values that
//!   decode cleanly, except with codecs that have no framing (a raw `bytes` chunk).
//!
//! **Updates from several processes.** A write that covers part of a chunk or shard reads
//! the stored value, merges the new elements in and writes the result back
//! ([`WritableStorage::update`]). Two processes doing that to one key at once would each
//! rename their own merge over the other's. So an update holds an exclusive lock on the key
//! from the read to the rename: an open file description lock (`sys::file_lock`) on the
//! lock file `.libzarr-lock-<name>` beside the key's file, which the holder removes before
//! it lets go. A waiter that then gets the lock checks that the lock file it holds is still
//! the one at that name, and otherwise starts over on the new one. The kernel releases the
//! lock of a killed process; its lock file stays behind (ignored by reads and listings)
//! until the next update of that key removes it. Writes of whole values take no lock, and
//! reads never wait: they see the old or the new value. [`FilesystemOptions::locking`]
//! turns the locks off for file systems that cannot lock files.
//!
//! **Links and special files.** Keys resolve beneath the root: by default no symbolic link
//! below the root is followed, whether it points inside the root or out of it (a key
//! whose path crosses one gives [`StorageError::SymbolicLink`]), so no read, write or
//! listing can reach a file outside the root, and a link cannot make a listing loop. On
//! Linux 5.6 and later this is one `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` call;
//! elsewhere the path is walked one `openat(O_NOFOLLOW)` at a time. The root itself (and
//! the directories above it) may be links. [`FilesystemOptions::follow_external_symlinks`]
//! follows every link instead, as a plain path lookup would; listings then still leave
//! out a directory link that leads back to a directory on the listed path, so they
//! cannot loop. Only regular files hold values: files are opened with `O_NONBLOCK` (a
//! FIFO cannot block the open) and checked with `fstat`, and a FIFO, socket or device at
//! a key gives [`StorageError::NotRegularFile`]. Listings show regular files as keys and
//! directories as prefixes, and leave out links (unless followed), special files and
//! temporary files.

use super::{
    update_unprotected, validate_key, validate_prefix, value_buffer, Bounded, ByteRange,
    DirListing, ListableStorage, Merge, ReadableStorage, StorageError, UpdateError,
    UpdateProtection, WritableStorage,
};
use crate::sys::read_at::append_exact_at;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;
use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Temporary files start with this prefix; listings skip them.
const TEMP_PREFIX: &str = ".libzarr-tmp-";

/// Lock files of updates (see the module documentation) start with this prefix; listings
/// skip them.
const LOCK_PREFIX: &str = ".libzarr-lock-";

/// A lock file's name is the prefix and the key's file name, unless that would be longer
/// than this; then the prefix and a hash of the name.
const MAX_LOCK_NAME: usize = 255;

/// Flags for a lock file: created when missing, opened for writing (an exclusive lock
/// needs it), never through a link.
const LOCK_FILE: OFlags = OFlags::RDWR
    .union(OFlags::CREATE)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// How many temporary names a write tries before giving up (each collision is an
/// astronomically unlikely event; 16 in a row means something else is wrong).
const TEMP_ATTEMPTS: u32 = 16;

/// Flags for a directory that is only walked through (never read or synced). `O_PATH`
/// needs neither read permission nor a real open of the directory.
#[cfg(any(target_os = "linux", target_os = "android"))]
const WALK_DIR: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const WALK_DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// Flags for a directory that is listed or fsync'ed.
const READ_DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// Flags for a value: `O_NONBLOCK` so that a FIFO cannot block the open (it has no effect
/// on regular files), `O_NOCTTY` so that a terminal cannot become the controlling one.
const READ_VALUE: OFlags = OFlags::RDONLY
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// Options of a [`FilesystemStore`]. `FilesystemOptions::default()` is what
/// [`FilesystemStore::new`] (and the C function `zarr_store_open_filesystem`) uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilesystemOptions {
    /// Make every write durable before it returns: fsync the temporary file before the
    /// rename, then the directory (and every directory the write created). Off by
    /// default, as in zarr-python: on this project's test machine 1,000 small chunk writes
    /// took 4.5 to 6 times as long with it (see docs/filesystem.md).
    pub fsync: bool,
    /// Follow symbolic links below the root wherever they lead, as a plain path lookup
    /// does. Off by default: keys then resolve beneath the root without crossing any
    /// link, and a key that would cross one is an error.
    pub follow_external_symlinks: bool,
    /// Lock a key across processes while a write that covers part of its chunk or shard
    /// reads, merges and rewrites it (see the module documentation). On by default; turn
    /// it off only on a file system that cannot lock files (the update then fails with
    /// an error saying so), and then write only whole chunks from several processes.
    pub locking: bool,
}

impl Default for FilesystemOptions {
    fn default() -> FilesystemOptions {
        FilesystemOptions {
            fsync: false,
            follow_external_symlinks: false,
            locking: true,
        }
    }
}

/// A store rooted at a directory. The directory is created on the first write.
#[derive(Debug)]
pub struct FilesystemStore {
    root: PathBuf,
    options: FilesystemOptions,
    /// Whether `openat2` with `RESOLVE_BENEATH` works here (Linux 5.6 and later, unless a
    /// seccomp filter hides it); otherwise paths are walked one component at a time.
    use_openat2: bool,
    #[cfg(test)]
    syncs: SyncCounters,
}

/// How many fsync calls a store made, so that tests can check the option really syncs.
#[cfg(test)]
#[derive(Debug, Default)]
struct SyncCounters {
    files: AtomicU64,
    dirs: AtomicU64,
}

impl FilesystemStore {
    /// A store rooted at `root` with the default [`FilesystemOptions`]. The directory need
    /// not exist yet; if something that is not a directory exists at `root`, this fails.
    pub fn new(root: impl AsRef<Path>) -> Result<FilesystemStore, StorageError> {
        FilesystemStore::with_options(root, FilesystemOptions::default())
    }

    /// A store rooted at `root` with the given options (see [`FilesystemStore::new`]).
    pub fn with_options(
        root: impl AsRef<Path>,
        options: FilesystemOptions,
    ) -> Result<FilesystemStore, StorageError> {
        let root = root.as_ref().to_path_buf();
        match fs::metadata(&root) {
            Ok(meta) if !meta.is_dir() => {
                return Err(StorageError::Io {
                    key: root.display().to_string(),
                    source: std::io::Error::new(
                        ErrorKind::InvalidInput,
                        "exists and is not a directory",
                    ),
                })
            }
            _ => {}
        }
        Ok(FilesystemStore {
            root,
            options,
            use_openat2: openat2_works(),
            #[cfg(test)]
            syncs: SyncCounters::default(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn options(&self) -> FilesystemOptions {
        self.options
    }

    /// The root directory, following links (the root may be one); `None` when it does
    /// not exist (yet).
    fn open_root(&self, flags: OFlags) -> Result<Option<OwnedFd>, StorageError> {
        match rustix::fs::openat(CWD, &self.root, flags, Mode::empty()) {
            Ok(fd) => Ok(Some(fd)),
            Err(Errno::NOENT) | Err(Errno::NOTDIR) => Ok(None),
            Err(e) => Err(io_error(&self.root.display().to_string(), e)),
        }
    }

    /// Open `path` (a key or a key's directory, no leading or trailing `/`) below the
    /// root directory `root`, by this store's rules for links. Errors are the raw errno,
    /// except that a link the store refuses to cross is [`Resolved::Link`].
    fn open_beneath(&self, root: BorrowedFd<'_>, path: &str, flags: OFlags) -> Resolved {
        if self.options.follow_external_symlinks {
            return Resolved::from(rustix::fs::openat(root, path, flags, Mode::empty()));
        }
        let result = if self.use_openat2 {
            openat2_beneath(root, path, flags)
        } else {
            walk_beneath(root, path, flags)
        };
        match result {
            // ELOOP: a link on the way (RESOLVE_NO_SYMLINKS, O_NOFOLLOW); ENOTDIR: a link
            // where a directory was asked for (O_DIRECTORY | O_NOFOLLOW), or a file;
            // EXDEV: openat2's report of an escape. Name the link if there is one.
            Err(e @ (Errno::LOOP | Errno::NOTDIR | Errno::XDEV)) => match first_link(root, path) {
                Some(link) => Resolved::Link(link),
                None => Resolved::Err(e),
            },
            other => Resolved::from(other),
        }
    }

    /// Open the file holding `key`'s value, with its size; `None` when there is none.
    fn open_value(&self, key: &str) -> Result<Option<(fs::File, u64)>, StorageError> {
        validate_key(key)?;
        if is_reserved_key(key) {
            return Ok(None); // a write or update in progress (or a leftover) is not a value
        }
        let Some(root) = self.open_root(WALK_DIR)? else {
            return Ok(None);
        };
        let fd = match self.open_beneath(root.as_fd(), key, READ_VALUE) {
            Resolved::Ok(fd) => fd,
            Resolved::Link(link) => return Err(link_error(key, link)),
            Resolved::Err(e) if errno_means_absent(e) => return Ok(None),
            Resolved::Err(e) => return Err(io_error(key, e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|e| io_error(key, e))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Ok(Some((fs::File::from(fd), stat.st_size as u64))),
            // A key that names a directory has no value.
            FileType::Directory => Ok(None),
            other => Err(StorageError::NotRegularFile {
                key: key.to_string(),
                kind: file_type_name(other),
            }),
        }
    }

    /// The directory that holds `key`'s file (the root for a key without `/`), opened to
    /// be written and synced, creating the missing directories on the way. Directories
    /// whose entries changed (the parents of those created) are added to `to_sync`.
    fn create_parent_dir(
        &self,
        key: &str,
        to_sync: &mut Vec<OwnedFd>,
    ) -> Result<OwnedFd, StorageError> {
        let root = match self.open_root(READ_DIR)? {
            Some(root) => root,
            None => {
                self.create_root(to_sync)?;
                self.open_root(READ_DIR)?
                    .ok_or_else(|| io_error(&self.root.display().to_string(), Errno::NOENT))?
            }
        };
        let Some((parent, _)) = key.rsplit_once('/') else {
            return Ok(root);
        };
        // Usually the directory exists: one call.
        match self.open_beneath(root.as_fd(), parent, READ_DIR) {
            Resolved::Ok(dir) => return Ok(dir),
            Resolved::Link(link) => return Err(link_error(key, link)),
            Resolved::Err(Errno::NOENT) => {}
            Resolved::Err(e) => return Err(io_error(key, e)),
        }
        // Walk down from the root, creating what is missing.
        let follow = if self.options.follow_external_symlinks {
            OFlags::empty()
        } else {
            OFlags::NOFOLLOW
        };
        let mut dir = root;
        let mut walked = String::new();
        for component in parent.split('/') {
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(component);
            let mut created = false;
            let next = loop {
                match rustix::fs::openat(&dir, component, READ_DIR | follow, Mode::empty()) {
                    Ok(next) => break next,
                    Err(Errno::NOENT) if !created => {
                        match rustix::fs::mkdirat(&dir, component, Mode::from_raw_mode(0o777)) {
                            Ok(()) => created = true,
                            // Another writer made it in between: use theirs.
                            Err(Errno::EXIST) => created = true,
                            Err(e) => return Err(io_error(key, e)),
                        }
                    }
                    Err(Errno::LOOP | Errno::NOTDIR) if follow == OFlags::NOFOLLOW => {
                        return Err(match is_link(&dir, component) {
                            true => link_error(key, walked),
                            false => io_error(key, Errno::NOTDIR),
                        });
                    }
                    Err(e) => return Err(io_error(key, e)),
                }
            };
            if created {
                to_sync.push(dir);
            }
            dir = next;
        }
        Ok(dir)
    }

    /// Create the root directory and its missing ancestors (they are the user's path:
    /// links there are followed). With `fsync`, the directories whose entries changed are
    /// added to `to_sync`.
    fn create_root(&self, to_sync: &mut Vec<OwnedFd>) -> Result<(), StorageError> {
        let root_key = || self.root.display().to_string();
        // The deepest ancestor that exists already: its entries change, and so do those
        // of every directory created below it, except the root itself.
        let mut existing = self.root.as_path();
        let mut created = Vec::new();
        while !existing.as_os_str().is_empty() && !existing.exists() {
            created.push(existing.to_path_buf());
            match existing.parent() {
                Some(parent) => existing = parent,
                None => break,
            }
        }
        fs::create_dir_all(&self.root).map_err(|e| StorageError::Io {
            key: root_key(),
            source: e,
        })?;
        if self.options.fsync {
            let existing = if existing.as_os_str().is_empty() {
                Path::new(".")
            } else {
                existing
            };
            let changed =
                std::iter::once(existing.to_path_buf()).chain(created.into_iter().skip(1).rev());
            for dir in changed {
                let fd = rustix::fs::openat(CWD, &dir, READ_DIR, Mode::empty())
                    .map_err(|e| io_error(&dir.display().to_string(), e))?;
                to_sync.push(fd);
            }
        }
        Ok(())
    }

    /// Create a temporary file in `dir` under a fresh name, with `O_EXCL`: a name that is
    /// taken (a leftover of a killed process, another writer) is never reused.
    fn create_temp(&self, key: &str, dir: &OwnedFd) -> Result<(String, fs::File), StorageError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut last = Errno::EXIST;
        for _ in 0..TEMP_ATTEMPTS {
            let name = temp_name();
            match rustix::fs::openat(dir, name.as_str(), flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => return Ok((name, fs::File::from(fd))),
                Err(Errno::EXIST) => last = Errno::EXIST,
                Err(e) => return Err(io_error(key, e)),
            }
        }
        Err(io_error(key, last))
    }

    /// Hold the exclusive lock of `key` (see the module documentation) until the returned
    /// guard is dropped, creating the key's directory if needed.
    fn lock_key(&self, key: &str) -> Result<KeyLock, StorageError> {
        let mut to_sync = Vec::new();
        let dir = self.create_parent_dir(key, &mut to_sync)?;
        let name = lock_name(key.rsplit('/').next().unwrap_or(key));
        loop {
            let file =
                rustix::fs::openat(&dir, name.as_str(), LOCK_FILE, Mode::from_raw_mode(0o666))
                    .map_err(|e| io_error(key, e))?;
            crate::sys::file_lock::lock_exclusive(&file).map_err(|e| lock_error(key, e))?;
            // The previous holder removes the lock file before it lets go: the file this
            // lock was taken on may no longer be the one at `name`. Then start over.
            let held = dev_ino(&rustix::fs::fstat(&file).map_err(|e| io_error(key, e))?);
            match rustix::fs::statat(&dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) if dev_ino(&stat) == held => {
                    return Ok(KeyLock {
                        dir,
                        name,
                        _file: file,
                    })
                }
                Ok(_) | Err(Errno::NOENT) => continue,
                Err(e) => return Err(io_error(key, e)),
            }
        }
    }

    fn sync_file(&self, file: &fs::File) -> std::io::Result<()> {
        #[cfg(test)]
        self.syncs.files.fetch_add(1, Ordering::Relaxed);
        file.sync_all()
    }

    fn sync_dir(&self, dir: &OwnedFd) -> rustix::io::Result<()> {
        #[cfg(test)]
        self.syncs.dirs.fetch_add(1, Ordering::Relaxed);
        rustix::fs::fsync(dir)
    }

    /// The (device, inode) of each directory from the root down to `prefix` (following
    /// links: used by listings that follow them), or `None` when one is missing.
    fn directory_chain(&self, prefix: &str) -> Result<Option<Vec<(u64, u64)>>, StorageError> {
        let Some(root) = self.open_root(WALK_DIR)? else {
            return Ok(None);
        };
        let mut chain = vec![dev_ino(
            &rustix::fs::fstat(&root).map_err(|e| io_error(prefix, e))?,
        )];
        let mut dir = root;
        for component in prefix.split('/').filter(|c| !c.is_empty()) {
            dir = match rustix::fs::openat(&dir, component, WALK_DIR, Mode::empty()) {
                Ok(next) => next,
                Err(e) if errno_means_absent(e) => return Ok(None),
                Err(e) => return Err(io_error(prefix, e)),
            };
            chain.push(dev_ino(
                &rustix::fs::fstat(&dir).map_err(|e| io_error(prefix, e))?,
            ));
        }
        Ok(Some(chain))
    }
}

/// The lock of one key, held until dropped: the lock file is removed, then closed (which
/// releases the lock), so that no later writer can take a lock on a file no longer there
/// without noticing.
struct KeyLock {
    dir: OwnedFd,
    name: String,
    /// The locked lock file, kept open: closing it releases the lock.
    _file: OwnedFd,
}

impl Drop for KeyLock {
    fn drop(&mut self) {
        // Only a holder removes a lock file, so the name still names this one. Failing to
        // remove it leaves a lock file that the next update uses and removes.
        // The file is closed after this, when the fields are dropped.
        let _ = rustix::fs::unlinkat(&self.dir, self.name.as_str(), AtFlags::empty());
    }
}

/// A failure to take a key's lock, with what to do about a file system that cannot lock.
fn lock_error(key: &str, error: std::io::Error) -> StorageError {
    let cannot_lock = matches!(
        error.raw_os_error(),
        Some(libc::ENOLCK | libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
    );
    if !cannot_lock {
        return StorageError::Io {
            key: key.to_string(),
            source: error,
        };
    }
    StorageError::Io {
        key: key.to_string(),
        source: std::io::Error::new(
            error.kind(),
            format!(
                "the file system cannot lock the key for an update of part of its chunk \
                 ({error}); open the store with the option \"locking\": false to update \
                 without locks, and then write only whole chunks from several processes"
            ),
        ),
    }
}

/// The result of resolving a path below the root.
enum Resolved {
    Ok(OwnedFd),
    /// The path crosses this symbolic link (a path relative to the root), which the
    /// store does not follow.
    Link(String),
    Err(Errno),
}

impl From<rustix::io::Result<OwnedFd>> for Resolved {
    fn from(result: rustix::io::Result<OwnedFd>) -> Resolved {
        match result {
            Ok(fd) => Resolved::Ok(fd),
            Err(e) => Resolved::Err(e),
        }
    }
}

/// Whether `openat2` with `RESOLVE_BENEATH` is available (checked once per process).
fn openat2_works() -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *WORKS.get_or_init(|| {
            // ENOSYS before Linux 5.6; some seccomp filters answer EPERM instead.
            !matches!(
                openat2_beneath(CWD, ".", WALK_DIR),
                Err(Errno::NOSYS | Errno::PERM)
            )
        })
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        false
    }
}

/// One `openat2` that fails on any symbolic link and on any escape from `dir`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn openat2_beneath(dir: impl AsFd, path: &str, flags: OFlags) -> rustix::io::Result<OwnedFd> {
    use rustix::fs::ResolveFlags;
    rustix::fs::openat2(
        dir,
        path,
        flags,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn openat2_beneath(_dir: impl AsFd, _path: &str, _flags: OFlags) -> rustix::io::Result<OwnedFd> {
    Err(Errno::NOSYS)
}

/// The same as [`openat2_beneath`] without `openat2`: one `openat(O_NOFOLLOW)` per
/// component. Keys have no `.`, `..` or empty components (validated), so staying beneath
/// the root only means not crossing a link.
fn walk_beneath(root: BorrowedFd<'_>, path: &str, flags: OFlags) -> rustix::io::Result<OwnedFd> {
    let (parents, last) = match path.rsplit_once('/') {
        Some((parents, last)) => (Some(parents), last),
        None => (None, path),
    };
    let mut dir: Option<OwnedFd> = None;
    for component in parents.into_iter().flat_map(|p| p.split('/')) {
        let at = dir.as_ref().map_or(root, |d| d.as_fd());
        dir = Some(rustix::fs::openat(
            at,
            component,
            WALK_DIR | OFlags::NOFOLLOW,
            Mode::empty(),
        )?);
    }
    let at = dir.as_ref().map_or(root, |d| d.as_fd());
    rustix::fs::openat(at, last, flags | OFlags::NOFOLLOW, Mode::empty())
}

/// The first symbolic link on `path` below `root` (as a path relative to the root), found
/// by looking at each component without following it.
fn first_link(root: BorrowedFd<'_>, path: &str) -> Option<String> {
    let mut dir: Option<OwnedFd> = None;
    let mut walked = String::new();
    for component in path.split('/') {
        if !walked.is_empty() {
            walked.push('/');
        }
        walked.push_str(component);
        let at = dir.as_ref().map_or(root, |d| d.as_fd());
        if is_link(at, component) {
            return Some(walked);
        }
        dir = Some(
            rustix::fs::openat(at, component, WALK_DIR | OFlags::NOFOLLOW, Mode::empty()).ok()?,
        );
    }
    None
}

/// Whether `name` in `dir` is a symbolic link.
fn is_link(dir: impl AsFd, name: &str) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .map(|s| FileType::from_raw_mode(s.st_mode) == FileType::Symlink)
        .unwrap_or(false)
}

/// A fresh temporary file name: unique in the process (a process-wide counter), and
/// across processes and restarts that reuse a PID (64 random bits).
fn temp_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    // RandomState is seeded from the operating system's random source once per thread
    // and stepped on every call: hashing the counter with it gives unpredictable bits.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(count);
    let random = hasher.finish();
    format!("{TEMP_PREFIX}{}-{count}-{random:016x}", std::process::id())
}

/// Whether the key's file name is one the store keeps for itself: a temporary file's or a
/// lock file's.
fn is_reserved_key(key: &str) -> bool {
    key.rsplit('/').next().is_some_and(is_reserved_name)
}

/// A valid key whose name is not reserved for the store's own files.
fn validate_writable_key(key: &str) -> Result<(), StorageError> {
    validate_key(key)?;
    if is_reserved_key(key) {
        return Err(StorageError::InvalidKey {
            key: key.to_string(),
            reason: "names starting with '.libzarr-tmp-' or '.libzarr-lock-' are reserved for \
                     temporary and lock files",
        });
    }
    Ok(())
}

fn is_reserved_name(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) || name.starts_with(LOCK_PREFIX)
}

/// The name of the lock file of the key whose file is called `name`.
fn lock_name(name: &str) -> String {
    let plain = format!("{LOCK_PREFIX}{name}");
    if plain.len() <= MAX_LOCK_NAME {
        return plain;
    }
    // A fixed hash (FNV-1a), so that every process picks the same name.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{LOCK_PREFIX}#{hash:016x}")
}

fn dev_ino(stat: &rustix::fs::Stat) -> (u64, u64) {
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    (stat.st_dev as u64, stat.st_ino as u64)
}

fn file_type_name(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "regular file",
        FileType::Directory => "directory",
        FileType::Symlink => "symbolic link",
        FileType::Fifo => "FIFO (named pipe)",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        FileType::Unknown => "file of unknown type",
    }
}

fn io_error(key: &str, errno: Errno) -> StorageError {
    StorageError::Io {
        key: key.to_string(),
        source: errno.into(),
    }
}

fn link_error(key: &str, link: String) -> StorageError {
    StorageError::SymbolicLink {
        key: key.to_string(),
        link,
    }
}

/// Errors that mean "no value at this key" rather than a failure: the file or a directory
/// on its way is missing, or the key names a directory.
fn means_absent(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::NotFound | ErrorKind::IsADirectory | ErrorKind::NotADirectory
    )
}

fn errno_means_absent(errno: Errno) -> bool {
    matches!(errno, Errno::NOENT | Errno::ISDIR | Errno::NOTDIR)
}

impl ReadableStorage for FilesystemStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let Some((mut file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        let mut data = value_buffer(key, size)?;
        match file.read_to_end(&mut data) {
            Ok(_) => Ok(Some(data)),
            Err(e) if means_absent(&e) => Ok(None),
            Err(e) => Err(StorageError::Io {
                key: key.to_string(),
                source: e,
            }),
        }
    }

    /// A file over the limit is not read; one that grows past it while being read is
    /// reported with the size read so far.
    fn get_at_most(&self, key: &str, limit: u64) -> Result<Option<Bounded>, StorageError> {
        let Some((file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        if size > limit {
            return Ok(Some(Bounded::TooLarge { size }));
        }
        let mut data = value_buffer(key, size)?;
        match file.take(limit.saturating_add(1)).read_to_end(&mut data) {
            Ok(_) => Ok(Some(Bounded::new(data, limit))),
            Err(e) if means_absent(&e) => Ok(None),
            Err(e) => Err(StorageError::Io {
                key: key.to_string(),
                source: e,
            }),
        }
    }

    /// Positioned reads: only the requested bytes are read from the file.
    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        let Some((file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        let span = range.resolve_in(key, size)?;
        let mut data = value_buffer(key, span.end - span.start)?;
        let n = (span.end - span.start) as usize; // fits: it was reserved
        append_exact_at(&file, &mut data, n, span.start).map_err(|e| StorageError::Io {
            key: key.to_string(),
            source: e,
        })?;
        Ok(Some(data))
    }

    /// One open, then one positioned read per range.
    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        let Some((file, size)) = self.open_value(key)? else {
            return Ok(None);
        };
        let mut spans = Vec::with_capacity(ranges.len());
        let mut total = 0u64;
        for &range in ranges {
            let span = range.resolve_in(key, size)?;
            total += span.end - span.start;
            spans.push(span);
        }
        // Each range is appended into the buffer's reserved room.
        let mut data = value_buffer(key, total)?;
        for span in spans {
            let n = (span.end - span.start) as usize; // fits: `total` was reserved
            append_exact_at(&file, &mut data, n, span.start).map_err(|e| StorageError::Io {
                key: key.to_string(),
                source: e,
            })?;
        }
        Ok(Some((Some(size), data)))
    }

    /// The file's size from its metadata; nothing is read.
    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        Ok(self.open_value(key)?.map(|(_, size)| size))
    }

    fn location(&self) -> String {
        format!("the directory '{}'", self.root.display())
    }

    fn key_location(&self, key: &str) -> String {
        self.root.join(key).display().to_string()
    }

    /// The first directory on the way to `key` that does not exist (the root itself when
    /// the store was never written), or what is there instead of a directory.
    fn absence_reason(&self, key: &str) -> Option<String> {
        let mut dir = self.root.clone();
        let parents = key.split('/').collect::<Vec<_>>();
        let parents = &parents[..parents.len().saturating_sub(1)];
        for name in std::iter::once("").chain(parents.iter().copied()) {
            if !name.is_empty() {
                dir.push(name);
            }
            match fs::metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return Some(format!("'{}' is not a directory", dir.display())),
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return Some(format!("the directory '{}' does not exist", dir.display()))
                }
                Err(e) => return Some(format!("'{}': {e}", dir.display())),
            }
        }
        None
    }
}

impl WritableStorage for FilesystemStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        validate_writable_key(key)?;
        let name = key.rsplit('/').next().unwrap_or(key);
        let mut to_sync = Vec::new();
        let dir = self.create_parent_dir(key, &mut to_sync)?;
        let (temp, mut file) = self.create_temp(key, &dir)?;
        let written = (|| {
            file.write_all(value)?;
            if self.options.fsync {
                self.sync_file(&file)?;
            }
            drop(file);
            rustix::fs::renameat(&dir, temp.as_str(), &dir, name).map_err(std::io::Error::from)
        })();
        if let Err(e) = written {
            // Remove our own temporary file, never another one.
            let _ = rustix::fs::unlinkat(&dir, temp.as_str(), AtFlags::empty());
            return Err(StorageError::Io {
                key: key.to_string(),
                source: e,
            });
        }
        if self.options.fsync {
            self.sync_dir(&dir).map_err(|e| io_error(key, e))?;
            for changed in &to_sync {
                self.sync_dir(changed).map_err(|e| io_error(key, e))?;
            }
        }
        Ok(())
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        let Some(root) = self.open_root(READ_DIR)? else {
            return Ok(());
        };
        let (dir, name) = match key.rsplit_once('/') {
            Some((parent, name)) => match self.open_beneath(root.as_fd(), parent, READ_DIR) {
                Resolved::Ok(dir) => (dir, name),
                Resolved::Link(link) => return Err(link_error(key, link)),
                Resolved::Err(e) if errno_means_absent(e) => return Ok(()),
                Resolved::Err(e) => return Err(io_error(key, e)),
            },
            None => (root, key),
        };
        // unlinkat removes a link itself, never what it points to.
        match rustix::fs::unlinkat(&dir, name, AtFlags::empty()) {
            Ok(()) => {}
            Err(e) if errno_means_absent(e) => return Ok(()),
            // EISDIR on Linux, EPERM elsewhere: a directory holds no value.
            Err(Errno::PERM) if is_directory(&dir, name) => return Ok(()),
            Err(e) => return Err(io_error(key, e)),
        }
        if self.options.fsync {
            self.sync_dir(&dir).map_err(|e| io_error(key, e))?;
        }
        Ok(())
    }

    /// Under the key's lock across processes (see the module documentation), unless the
    /// `locking` option is off.
    fn update(&self, key: &str, merge: &mut Merge<'_>) -> Result<(), UpdateError> {
        validate_writable_key(key)?;
        if !self.options.locking {
            return update_unprotected(self, key, merge);
        }
        let _lock = self.lock_key(key)?;
        update_unprotected(self, key, merge)
    }

    fn update_protection(&self) -> UpdateProtection {
        if self.options.locking {
            UpdateProtection::Locking
        } else {
            UpdateProtection::None
        }
    }

    /// The root's canonical path, so that handles opened on the same directory by different
    /// spellings (relative, through a link) share their chunk locks. A root that does not
    /// exist yet is its nearest existing ancestor's canonical path plus the rest.
    fn lock_scope(&self) -> Option<String> {
        let mut rest = Vec::new();
        let mut at = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        loop {
            if let Ok(canonical) = fs::canonicalize(&at) {
                let full = rest.iter().rev().fold(canonical, |p: PathBuf, c| p.join(c));
                return Some(full.to_string_lossy().into_owned());
            }
            match (at.parent(), at.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    at = parent.to_path_buf();
                }
                _ => return Some(self.root.to_string_lossy().into_owned()),
            }
        }
    }

    /// Renames the prefix's directory away (atomic: readers see it whole or not at all),
    /// then removes it, never following symbolic links (see [`super::remove`]).
    fn erase_prefix(&self, prefix: &str) -> Result<(), StorageError> {
        super::remove::remove_prefix(&self.root, prefix, TEMP_PREFIX)
    }

    fn erase_prefix_is_atomic(&self) -> bool {
        true
    }
}

fn is_directory(dir: impl AsFd, name: &str) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .map(|s| FileType::from_raw_mode(s.st_mode) == FileType::Directory)
        .unwrap_or(false)
}

impl ListableStorage for FilesystemStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let path = prefix.trim_end_matches('/');
        let Some(root) = self.open_root(READ_DIR)? else {
            return Ok(DirListing::default());
        };
        let follow = self.options.follow_external_symlinks;
        // Following links, a listing leaves out directories already on its path.
        let chain = if follow {
            match self.directory_chain(path)? {
                Some(chain) => chain,
                None => return Ok(DirListing::default()),
            }
        } else {
            Vec::new()
        };
        if let Some((last, ancestors)) = chain.split_last() {
            if ancestors.contains(last) {
                // The prefix itself goes round a loop of links.
                return Ok(DirListing::default());
            }
        }
        let dir = if path.is_empty() {
            root
        } else {
            match self.open_beneath(root.as_fd(), path, READ_DIR) {
                Resolved::Ok(dir) => dir,
                Resolved::Link(link) => return Err(link_error(prefix, link)),
                Resolved::Err(e) if errno_means_absent(e) => return Ok(DirListing::default()),
                Resolved::Err(e) => return Err(io_error(prefix, e)),
            }
        };
        let mut entries = rustix::fs::Dir::read_from(&dir).map_err(|e| io_error(prefix, e))?;
        let mut listing = DirListing::default();
        while let Some(entry) = entries.read() {
            let entry = entry.map_err(|e| io_error(prefix, e))?;
            // Names that are not UTF-8 cannot be Zarr keys; skip them.
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name == "." || name == ".." || is_reserved_name(name) {
                continue;
            }
            let mut kind = entry.file_type();
            if kind == FileType::Unknown || (follow && kind == FileType::Symlink) {
                let flags = if follow {
                    AtFlags::empty()
                } else {
                    AtFlags::SYMLINK_NOFOLLOW
                };
                match rustix::fs::statat(&dir, name, flags) {
                    Ok(stat) => {
                        kind = FileType::from_raw_mode(stat.st_mode);
                        if kind == FileType::Directory && follow && chain.contains(&dev_ino(&stat))
                        {
                            continue; // a link back up the path: following it would loop
                        }
                    }
                    // Removed meanwhile, or a dangling link: nothing to list.
                    Err(_) => continue,
                }
            }
            match kind {
                FileType::RegularFile => listing.keys.push(name.to_string()),
                FileType::Directory => listing.prefixes.push(name.to_string()),
                // Links not followed, FIFOs, sockets, devices: they hold no value.
                _ => {}
            }
        }
        listing.keys.sort();
        listing.prefixes.sort();
        Ok(listing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MergeFailed;
    use std::os::unix::fs::symlink;

    fn temp_root(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("libzarr-fs-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// The store with each way of resolving keys this machine has: `openat2` when the
    /// kernel offers it, and always the component walk.
    fn variants(root: &Path, options: FilesystemOptions) -> Vec<FilesystemStore> {
        let mut stores = Vec::new();
        let store = FilesystemStore::with_options(root, options).unwrap();
        if store.use_openat2 {
            stores.push(store);
        }
        let mut walk = FilesystemStore::with_options(root, options).unwrap();
        walk.use_openat2 = false;
        stores.push(walk);
        stores
    }

    fn is_link_error(result: Result<impl std::fmt::Debug, StorageError>, link: &str) -> bool {
        matches!(&result, Err(StorageError::SymbolicLink { link: l, .. }) if l == link)
    }

    #[test]
    fn set_get_erase_list() {
        let root = temp_root("basic");
        for store in variants(&root, FilesystemOptions::default()) {
            let _ = fs::remove_dir_all(&root);
            assert_eq!(store.get("a/b").unwrap(), None);
            assert_eq!(store.list_dir("").unwrap(), DirListing::default());
            store.set("a/b", b"one").unwrap();
            store.set("a/b", b"two").unwrap();
            store.set("a/d/e", b"x").unwrap();
            assert_eq!(store.get("a/b").unwrap().unwrap(), b"two");
            // A key that names a directory has no value; nor does one below a file.
            assert_eq!(store.get("a/d").unwrap(), None);
            assert_eq!(store.get("a/b/c").unwrap(), None);
            let listing = store.list_dir("a/").unwrap();
            assert_eq!(listing.keys, vec!["b"]);
            assert_eq!(listing.prefixes, vec!["d"]);
            assert_eq!(store.list_dir("a/b/").unwrap(), DirListing::default());
            assert_eq!(store.list_dir("none/").unwrap(), DirListing::default());
            store.erase("a/b").unwrap();
            store.erase("a/b").unwrap();
            store.erase("a/d").unwrap(); // a directory: no value to erase
            store.erase("x/y/z").unwrap();
            assert_eq!(store.get("a/b").unwrap(), None);
            assert!(store.set("../escape", b"x").is_err());
            assert!(!root.parent().unwrap().join("escape").exists());
            // A file in the way of a directory is an error, not a silent success.
            assert!(matches!(
                store.set("a/d/e/f", b"x"),
                Err(StorageError::Io { .. })
            ));
            store.set("r", b"0123456789").unwrap();
            let part = store.get_range(
                "r",
                ByteRange::FromStart {
                    offset: 3,
                    length: 4,
                },
            );
            assert_eq!(part.unwrap().unwrap(), b"3456");
            let tail = store.get_range("r", ByteRange::Suffix { length: 2 });
            assert_eq!(tail.unwrap().unwrap(), b"89");
            let both = store.read_ranges(
                "r",
                &[
                    ByteRange::Suffix { length: 1 },
                    ByteRange::FromStart {
                        offset: 0,
                        length: 2,
                    },
                ],
            );
            assert_eq!(both.unwrap().unwrap(), (Some(10), b"901".to_vec()));
            assert!(store
                .get_range("r", ByteRange::Suffix { length: 11 })
                .is_err());
            assert_eq!(
                store
                    .get_range("none", ByteRange::Suffix { length: 1 })
                    .unwrap(),
                None
            );
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn handles_on_one_directory_share_their_lock_scope() {
        let root = temp_root("scope");
        fs::create_dir_all(root.join("sub")).unwrap();
        let a = FilesystemStore::new(root.join("sub")).unwrap();
        let b = FilesystemStore::new(root.join("sub/../sub/.")).unwrap();
        let not_yet = FilesystemStore::new(root.join("sub/new")).unwrap();
        assert_eq!(a.lock_scope(), b.lock_scope());
        not_yet.set("k", b"x").unwrap();
        let later = FilesystemStore::new(root.join("sub/new")).unwrap();
        assert_eq!(not_yet.lock_scope(), later.lock_scope());
        assert_ne!(a.lock_scope(), later.lock_scope());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn root_that_is_a_file_is_refused() {
        let root = temp_root("file");
        fs::write(&root, b"x").unwrap();
        assert!(FilesystemStore::new(&root).is_err());
        fs::remove_file(&root).unwrap();
    }

    /// Temporary files left by a killed process (even one whose PID this process now has,
    /// as after a container restart) neither block writes nor show up anywhere.
    #[test]
    fn leftover_temporary_files_are_harmless() {
        let root = temp_root("leftovers");
        for store in variants(&root, FilesystemOptions::default()) {
            let _ = fs::remove_dir_all(&root);
            fs::create_dir_all(root.join("a")).unwrap();
            let pid = std::process::id();
            for n in 0..64 {
                fs::write(root.join(format!("a/{TEMP_PREFIX}{pid}-{n}")), b"stale").unwrap();
                fs::write(root.join(format!("{TEMP_PREFIX}{pid}-{n}")), b"stale").unwrap();
            }
            for round in 0..8u8 {
                store.set("a/k", &[round]).unwrap();
                store.set("k", &[round]).unwrap();
            }
            assert_eq!(store.get("a/k").unwrap().unwrap(), [7]);
            let listing = store.list_dir("a/").unwrap();
            assert_eq!(listing.keys, vec!["k"]);
            assert!(listing.prefixes.is_empty());
            assert_eq!(store.list_dir("").unwrap().keys, vec!["k"]);
            let leftover = format!("a/{TEMP_PREFIX}{pid}-0");
            assert_eq!(store.get(&leftover).unwrap(), None);
            assert!(matches!(
                store.set(&leftover, b"x"),
                Err(StorageError::InvalidKey { .. })
            ));
            // Ours never stay behind, and theirs are never removed by us.
            let entries = fs::read_dir(root.join("a")).unwrap().count();
            assert_eq!(entries, 65);
        }
        fs::remove_dir_all(&root).unwrap();
    }

    /// Temporary names differ between stores of one process and between writes.
    #[test]
    fn temporary_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for _ in 0..1000 {
            assert!(names.insert(temp_name()));
        }
        let name = temp_name();
        let parts: Vec<&str> = name[TEMP_PREFIX.len()..].split('-').collect();
        assert_eq!(parts.len(), 3, "{name}");
        assert_eq!(parts[0], std::process::id().to_string());
        assert_eq!(parts[2].len(), 16);
    }

    #[test]
    fn links_below_the_root_are_not_followed() {
        let base = temp_root("links");
        let root = base.join("store");
        let outside = base.join("outside");
        for store in variants(&root, FilesystemOptions::default()) {
            let _ = fs::remove_dir_all(&base);
            fs::create_dir_all(root.join("inner")).unwrap();
            fs::create_dir_all(&outside).unwrap();
            fs::write(outside.join("secret"), b"not zarr data").unwrap();
            fs::write(root.join("inner/value"), b"inside").unwrap();
            symlink(&outside, root.join("out")).unwrap(); // a directory link leaving the root
            symlink(outside.join("secret"), root.join("chunk")).unwrap(); // a file link
            symlink("inner", root.join("alias")).unwrap(); // a link staying inside
            symlink("inner/value", root.join("alias_value")).unwrap();

            // Writes through a directory link leave nothing outside the root.
            assert!(is_link_error(store.set("out/zarr.json", b"{}"), "out"));
            assert!(is_link_error(store.set("out/new/deeper", b"{}"), "out"));
            assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
            // Reads through links are refused, whether they leave the root or not.
            assert!(is_link_error(store.get("out/secret"), "out"));
            assert!(is_link_error(store.get("chunk"), "chunk"));
            assert!(is_link_error(
                store.get_range("chunk", ByteRange::Suffix { length: 1 }),
                "chunk"
            ));
            assert!(is_link_error(store.get("alias/value"), "alias"));
            assert!(is_link_error(store.get("alias_value"), "alias_value"));
            assert!(is_link_error(store.list_dir("out/"), "out"));
            assert!(is_link_error(store.erase("out/secret"), "out"));
            assert!(outside.join("secret").exists());
            // Listings leave links out.
            let listing = store.list_dir("").unwrap();
            assert!(listing.keys.is_empty(), "{listing:?}");
            assert_eq!(listing.prefixes, vec!["inner"]);
            // Erasing a key that is a link removes the link, not its target.
            store.erase("chunk").unwrap();
            assert!(fs::symlink_metadata(root.join("chunk")).is_err());
            assert!(outside.join("secret").exists());
            // Writing a key that is a link replaces the link with a file of the root.
            store.set("alias_value", b"new").unwrap();
            assert_eq!(fs::read(root.join("inner/value")).unwrap(), b"inside");
            assert_eq!(store.get("alias_value").unwrap().unwrap(), b"new");
        }
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_root_may_be_a_link() {
        let base = temp_root("root-link");
        for store in variants(&base.join("link"), FilesystemOptions::default()) {
            let _ = fs::remove_dir_all(&base);
            fs::create_dir_all(base.join("real")).unwrap();
            symlink(base.join("real"), base.join("link")).unwrap();
            store.set("a/b", b"v").unwrap();
            assert_eq!(store.get("a/b").unwrap().unwrap(), b"v");
            assert_eq!(store.list_dir("").unwrap().prefixes, vec!["a"]);
            assert!(base.join("real/a/b").is_file());
        }
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn following_links_is_an_option() {
        let base = temp_root("follow");
        let root = base.join("store");
        let outside = base.join("outside");
        let options = FilesystemOptions {
            follow_external_symlinks: true,
            ..Default::default()
        };
        let store = FilesystemStore::with_options(&root, options).unwrap();
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        symlink(&outside, root.join("out")).unwrap();
        store.set("out/a/zarr.json", b"{}").unwrap();
        assert_eq!(fs::read(outside.join("a/zarr.json")).unwrap(), b"{}");
        assert_eq!(store.get("out/a/zarr.json").unwrap().unwrap(), b"{}");
        assert_eq!(store.list_dir("").unwrap().prefixes, vec!["out"]);
        assert_eq!(store.list_dir("out/").unwrap().prefixes, vec!["a"]);
        symlink(outside.join("a/zarr.json"), root.join("file_link")).unwrap();
        assert_eq!(store.list_dir("").unwrap().keys, vec!["file_link"]);
        // A dangling link is not listed and has no value.
        symlink(base.join("nowhere"), root.join("dangling")).unwrap();
        assert_eq!(store.list_dir("").unwrap().keys, vec!["file_link"]);
        assert_eq!(store.get("dangling").unwrap(), None);
        fs::remove_dir_all(&base).unwrap();
    }

    /// Two links to their own directory would make a recursive listing exponential (and
    /// endless); listings never enter them, followed or not.
    #[test]
    fn self_referencing_links_cannot_make_listings_loop() {
        let root = temp_root("loops");
        let follow = FilesystemOptions {
            follow_external_symlinks: true,
            ..Default::default()
        };
        let mut stores = variants(&root, FilesystemOptions::default());
        stores.push(FilesystemStore::with_options(&root, follow).unwrap());
        for store in stores {
            let _ = fs::remove_dir_all(&root);
            fs::create_dir_all(root.join("a/b")).unwrap();
            fs::write(root.join("a/b/zarr.json"), b"{}").unwrap();
            symlink(".", root.join("a/x")).unwrap();
            symlink(".", root.join("a/y")).unwrap();
            symlink("..", root.join("a/b/up")).unwrap();
            symlink("../a", root.join("a/b/up2")).unwrap();
            // A recursive walk of the whole store, as a hierarchy listing does.
            let mut pending = vec![String::new()];
            let mut seen = Vec::new();
            while let Some(prefix) = pending.pop() {
                assert!(seen.len() < 100, "listing does not end: {seen:?}");
                let listing = store.list_dir(&prefix).unwrap();
                for child in listing.prefixes {
                    pending.push(format!("{prefix}{child}/"));
                }
                seen.push(prefix);
            }
            seen.sort();
            assert_eq!(seen, vec!["", "a/", "a/b/"], "{:?}", store.options);
            if store.options.follow_external_symlinks {
                // Asked for explicitly, a prefix that goes round a loop lists nothing.
                assert_eq!(store.list_dir("a/x/x/").unwrap(), DirListing::default());
                assert_eq!(store.get("a/x/b/zarr.json").unwrap().unwrap(), b"{}");
            } else {
                assert!(is_link_error(store.list_dir("a/x/"), "a/x"));
            }
        }
        fs::remove_dir_all(&root).unwrap();
    }

    /// A FIFO must not block, and a device must not be read until memory runs out.
    #[test]
    fn only_regular_files_hold_values() {
        let root = temp_root("special");
        let follow = FilesystemOptions {
            follow_external_symlinks: true,
            ..Default::default()
        };
        let mut stores = variants(&root, FilesystemOptions::default());
        stores.push(FilesystemStore::with_options(&root, follow).unwrap());
        for store in stores {
            let _ = fs::remove_dir_all(&root);
            fs::create_dir_all(root.join("a")).unwrap();
            rustix::fs::mknodat(
                CWD,
                root.join("a/fifo"),
                FileType::Fifo,
                Mode::from_raw_mode(0o644),
                0,
            )
            .unwrap();
            symlink("/dev/zero", root.join("a/zero")).unwrap();
            let fifo = store.get("a/fifo");
            assert!(
                matches!(&fifo, Err(StorageError::NotRegularFile { kind, .. }) if kind.contains("FIFO")),
                "{fifo:?}"
            );
            let fifo = store.get_range("a/fifo", ByteRange::Suffix { length: 1 });
            assert!(matches!(fifo, Err(StorageError::NotRegularFile { .. })));
            let zero = store.get("a/zero");
            if store.options.follow_external_symlinks {
                assert!(
                    matches!(&zero, Err(StorageError::NotRegularFile { kind, .. }) if kind.contains("character device")),
                    "{zero:?}"
                );
            } else {
                assert!(is_link_error(zero, "a/zero"));
            }
            // Listings leave them out.
            assert_eq!(store.list_dir("a/").unwrap(), DirListing::default());
        }
        fs::remove_dir_all(&root).unwrap();
    }

    fn sync_counts(store: &FilesystemStore) -> (u64, u64) {
        (
            store.syncs.files.load(Ordering::Relaxed),
            store.syncs.dirs.load(Ordering::Relaxed),
        )
    }

    #[test]
    fn fsync_option_syncs_files_and_directories() {
        let base = temp_root("fsync");
        let root = base.join("new/store");
        let durable = FilesystemOptions {
            fsync: true,
            ..Default::default()
        };
        for store in variants(&root, durable) {
            let _ = fs::remove_dir_all(&base);
            fs::create_dir_all(&base).unwrap();
            // A fresh tree: the file, its directory, and every directory whose entries
            // the write changed: base (new/ was made in it), new (store/), the root (a/),
            // a (b/).
            store.set("a/b/c", b"v").unwrap();
            assert_eq!(sync_counts(&store), (1, 5));
            // An existing directory: the file and its directory.
            store.set("a/b/d", b"v").unwrap();
            assert_eq!(sync_counts(&store), (2, 6));
            store.set("top", b"v").unwrap();
            assert_eq!(sync_counts(&store), (3, 7));
            // A removal is made durable too.
            store.erase("a/b/c").unwrap();
            assert_eq!(sync_counts(&store), (3, 8));
            assert_eq!(store.get("a/b/d").unwrap().unwrap(), b"v");
        }
        for store in variants(&root, FilesystemOptions::default()) {
            let _ = fs::remove_dir_all(&base);
            store.set("a/b/c", b"v").unwrap();
            store.set("a/b/d", b"v").unwrap();
            store.erase("a/b/c").unwrap();
            assert_eq!(sync_counts(&store), (0, 0));
        }
        fs::remove_dir_all(&base).unwrap();
    }

    /// Many handles on one directory, each written from its own thread: every write
    /// succeeds and every key ends up with its own bytes.
    #[test]
    fn many_handles_write_one_directory() {
        let root = temp_root("handles");
        std::thread::scope(|scope| {
            for t in 0..16u8 {
                let root = &root;
                scope.spawn(move || {
                    let store = FilesystemStore::new(root).unwrap();
                    for round in 0..50u8 {
                        store.set(&format!("c/{t}"), &[t, round]).unwrap();
                    }
                });
            }
        });
        let store = FilesystemStore::new(&root).unwrap();
        for t in 0..16u8 {
            assert_eq!(store.get(&format!("c/{t}")).unwrap().unwrap(), [t, 49]);
        }
        assert_eq!(fs::read_dir(root.join("c")).unwrap().count(), 16);
        fs::remove_dir_all(&root).unwrap();
    }

    /// Names in a directory that belong to the store's own lock files.
    fn lock_files(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|name| name.starts_with(LOCK_PREFIX))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn updates_merge_under_a_lock_and_remove_it() {
        let root = temp_root("update");
        for store in variants(&root, FilesystemOptions::default()) {
            let _ = fs::remove_dir_all(&root);
            assert_eq!(store.update_protection(), UpdateProtection::Locking);
            // An absent value, created; then merged; then erased.
            store
                .update("a/c/0", &mut |current| {
                    assert_eq!(current, None);
                    Ok(Some(b"one".to_vec()))
                })
                .unwrap();
            store
                .update("a/c/0", &mut |current| {
                    let mut value = current.unwrap();
                    value.extend_from_slice(b"+two");
                    Ok(Some(value))
                })
                .unwrap();
            assert_eq!(store.get("a/c/0").unwrap().unwrap(), b"one+two");
            // A failed merge writes nothing.
            assert!(matches!(
                store.update("a/c/0", &mut |_| Err(MergeFailed)),
                Err(UpdateError::Merge)
            ));
            assert_eq!(store.get("a/c/0").unwrap().unwrap(), b"one+two");
            store.update("a/c/0", &mut |_| Ok(None)).unwrap();
            assert_eq!(store.get("a/c/0").unwrap(), None);
            // No lock file is left behind, whatever the outcome.
            assert_eq!(lock_files(&root.join("a/c")), Vec::<String>::new());
            // Reserved names are refused.
            assert!(matches!(
                store.update("a/.libzarr-lock-x", &mut |_| Ok(None)),
                Err(UpdateError::Store(StorageError::InvalidKey { .. }))
            ));
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_stale_lock_file_is_taken_over_and_never_listed_or_read() {
        let root = temp_root("stale-lock");
        let store = FilesystemStore::new(&root).unwrap();
        store.set("a/k", b"old").unwrap();
        // What a writer killed during an update leaves: its lock file, no longer locked.
        fs::write(root.join("a/.libzarr-lock-k"), b"").unwrap();
        assert_eq!(store.list_dir("a/").unwrap().keys, ["k"]);
        assert_eq!(store.get("a/.libzarr-lock-k").unwrap(), None);
        assert!(store.set("a/.libzarr-lock-k", b"x").is_err());
        store
            .update("a/k", &mut |_| Ok(Some(b"new".to_vec())))
            .unwrap();
        assert_eq!(store.get("a/k").unwrap().unwrap(), b"new");
        assert_eq!(lock_files(&root.join("a")), Vec::<String>::new());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn lock_names_fit_in_a_file_name() {
        assert_eq!(lock_name("0"), ".libzarr-lock-0");
        let long = "x".repeat(250);
        let hashed = lock_name(&long);
        assert!(hashed.len() <= MAX_LOCK_NAME && hashed.starts_with(LOCK_PREFIX));
        assert_eq!(
            hashed,
            lock_name(&long),
            "every process picks the same name"
        );
        assert_ne!(hashed, lock_name(&"y".repeat(250)));
    }

    /// Threads updating one key through handles of their own, with no lock of the array
    /// layer: the store's lock alone serialises them (open file description locks exclude
    /// each other within a process too), so no increment is lost.
    #[test]
    fn updates_through_separate_handles_lose_nothing() {
        let root = temp_root("counter");
        const THREADS: usize = 4;
        const INCREMENTS: u32 = 50;
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                scope.spawn(|| {
                    let store = FilesystemStore::new(&root).unwrap();
                    for _ in 0..INCREMENTS {
                        store
                            .update("n/count", &mut |current| {
                                let n = current.map_or(0, |v| {
                                    u32::from_le_bytes(v.try_into().expect("4 bytes"))
                                });
                                Ok(Some((n + 1).to_le_bytes().to_vec()))
                            })
                            .unwrap();
                    }
                });
            }
        });
        let store = FilesystemStore::new(&root).unwrap();
        let count = u32::from_le_bytes(store.get("n/count").unwrap().unwrap().try_into().unwrap());
        assert_eq!(count, THREADS as u32 * INCREMENTS);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn without_locking_updates_take_no_lock() {
        let root = temp_root("no-locking");
        let options = FilesystemOptions {
            locking: false,
            ..FilesystemOptions::default()
        };
        let store = FilesystemStore::with_options(&root, options).unwrap();
        assert_eq!(store.update_protection(), UpdateProtection::None);
        store
            .update("a/k", &mut |_| {
                // No lock file exists while the merge runs.
                assert_eq!(lock_files(&root.join("a")), Vec::<String>::new());
                Ok(Some(b"v".to_vec()))
            })
            .unwrap();
        assert_eq!(store.get("a/k").unwrap().unwrap(), b"v");
        fs::remove_dir_all(&root).unwrap();
    }
}
