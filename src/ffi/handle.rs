//! Opaque handle types. C sees them only as `struct zarr_store *` and friends.
//!
//! Each handle owns what it needs through `Arc`s (an array holds its store), so handles
//! may be freed in any order.

use crate::array::Array;
use crate::group::Group;
use crate::storage::Storage;
use std::sync::Arc;

/// A store: where keys map to bytes (a directory on disk, or memory).
pub struct zarr_store {
    pub(crate) storage: Arc<dyn Storage>,
}

/// An open Zarr array.
pub struct zarr_array {
    pub(crate) array: Array,
}

/// An open Zarr group.
pub struct zarr_group {
    pub(crate) group: Group,
}
