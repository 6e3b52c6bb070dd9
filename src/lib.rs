//! libzarr: a Zarr storage library with a C API.
//!
//! The core modules know nothing of C; `ffi` is the only module with `extern "C"`
//! functions and it holds no Zarr logic. `unsafe` code lives only in `ffi` and `sys`.

#![deny(unsafe_code)]

pub mod array;
pub mod attributes;
pub mod builder;
pub mod chunk_grid;
pub mod chunk_key_encoding;
pub(crate) mod codec;
pub mod collective;
pub mod consolidated;
pub mod data_type;
pub mod delete;
pub mod error;
pub mod extension;
#[allow(unsafe_code)]
pub mod ffi;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod group;
pub mod layout;
pub mod metadata;
pub(crate) mod metadata_error;
pub mod node;
pub mod node_path;
pub(crate) mod scratch;
pub mod selection;
pub mod storage;
pub(crate) mod store_url;
#[allow(unsafe_code)]
mod sys;
pub mod threads;
