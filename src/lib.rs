//! libzarr: a Zarr storage library with a C API.
//!
//! The core modules know nothing of C; `ffi` is the only module with `extern "C"`
//! functions and it holds no Zarr logic.

pub mod array;
pub mod chunk_grid;
pub mod chunk_key_encoding;
pub mod codec;
pub mod consolidated;
pub mod data_type;
pub mod error;
pub mod ffi;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod group;
pub mod metadata;
pub mod node;
pub mod storage;
pub mod threads;
