//! The code Rust cannot check for itself, outside the C API (`crate::ffi`): calls into C
//! libraries (c-blosc, zfp) and the kernel (madvise, reads into unused capacity, file locks), and raw
//! memory shared by parallel workers. Everything else in the crate is safe Rust (`lib.rs`
//! denies `unsafe_code` and allows it only here and in `ffi`). Each module offers a safe
//! interface, and each `unsafe` block states why it holds.

pub(crate) mod alloc;
pub(crate) mod blosc;
pub(crate) mod file_lock;
pub(crate) mod madvise;
pub(crate) mod read_at;
pub(crate) mod shared_out;
pub(crate) mod zfp;
