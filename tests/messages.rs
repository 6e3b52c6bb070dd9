//! Error messages read as English: a node of the wrong kind is "a group" or "an array".

use std::sync::Arc;
use zarr::array::Array;
use zarr::group::Group;
use zarr::node::ZarrFormat;
use zarr::storage::{MemoryStore, Storage};

#[test]
fn node_type_mismatch_uses_the_right_article() {
    let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
    Group::create(store.clone(), "/", Default::default(), ZarrFormat::V3).expect("group");
    let message = match Array::open(store, "/") {
        Ok(_) => panic!("a group opened as an array"),
        Err(e) => e.to_string(),
    };
    assert!(
        message.contains("is a group, not an array"),
        "message: {message}"
    );
}
