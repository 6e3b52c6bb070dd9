//! The C API. This is the only module with `extern "C"` functions and `unsafe`; it holds
//! no Zarr logic, only argument checking, handle management and error mapping.

// C names (zarr_store, zarr_status) follow the C API conventions, not Rust naming.
#![allow(non_camel_case_types)]

pub mod accessors;
pub mod args;
pub mod array;
pub mod attributes;
pub mod boundary;
pub mod builder;
pub mod chunk_grid;
pub mod comm;
pub mod custom_store;
pub mod erase;
pub mod error;
pub mod group;
pub mod handle;
pub mod status;
pub mod store;
pub mod store_keys;
pub mod strings;
pub mod sub_byte;
pub mod thread_pool;
pub mod threads;
pub mod version;
