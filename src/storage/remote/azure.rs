//! Placeholder of the branch 'cloud' (replaced before it lands).

use super::UrlOptions;
use crate::error::Error;
use crate::storage::{Storage, StorageError};
use std::sync::Arc;

pub fn open(
    _container: &str,
    _account: Option<&str>,
    _prefix: &str,
    _options: &UrlOptions,
    url: &str,
) -> Result<Arc<dyn Storage>, Error> {
    Err(Error::Storage(StorageError::Unsupported {
        key: url.to_string(),
        reason: "not built yet".to_string(),
    }))
}
