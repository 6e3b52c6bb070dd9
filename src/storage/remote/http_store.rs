//! A read-only store over plain HTTP(S): key `a/zarr.json` is `GET <base>/a/zarr.json`.
//! HTTP has no listing, so a hierarchy is opened through its consolidated metadata or
//! by known paths.

use super::http::{Client, Method, ObjectUrls, Reader};
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, ReadableStorage,
    StorageError, WritableStorage,
};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Everything but RFC 3986's unreserved characters is percent-encoded in key segments.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A read-only store of the files below an HTTP(S) URL.
#[derive(Debug)]
pub struct HttpStore {
    /// The base URL, ending in `/`.
    base: String,
    client: Client,
}

impl HttpStore {
    /// A store below `base` (made to end in `/`).
    pub(crate) fn new(base: &str, client: Client) -> HttpStore {
        let mut base = base.to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        HttpStore { base, client }
    }

    fn reader(&self) -> Reader<'_> {
        Reader {
            client: &self.client,
            urls: self,
        }
    }
}

impl ObjectUrls for HttpStore {
    fn url(&self, _method: Method, key: &str) -> Result<String, StorageError> {
        Ok(self.display(key))
    }

    fn display(&self, key: &str) -> String {
        let mut url = self.base.clone();
        for (i, segment) in key.split('/').enumerate() {
            if i > 0 {
                url.push('/');
            }
            url.extend(utf8_percent_encode(segment, SEGMENT));
        }
        url
    }
}

impl ReadableStorage for HttpStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        self.reader().get(key)
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        Ok(self.reader().get_range(key, range)?.map(|f| f.bytes))
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        validate_key(key)?;
        self.reader().read_ranges(key, ranges)
    }

    fn max_concurrency(&self) -> Option<usize> {
        Some(self.client.max_concurrency())
    }

    fn location(&self) -> String {
        self.base.clone()
    }

    fn key_location(&self, key: &str) -> String {
        self.display(key)
    }

    /// A value reads as absent only when the server answered 404 (see `Reader::get`).
    fn absence_reason(&self, _key: &str) -> Option<String> {
        Some("the server answered HTTP 404 Not Found".to_string())
    }
}

impl WritableStorage for HttpStore {
    fn set(&self, _key: &str, _value: &[u8]) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }

    fn erase(&self, _key: &str) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }
}

impl ListableStorage for HttpStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        Err(StorageError::Unsupported {
            key: format!("{}{prefix}", self.base),
            reason: "an HTTP server offers no listing; open the hierarchy through its \
                     consolidated metadata (zarr_store_open_consolidated) or open nodes by path"
                .to_string(),
        })
    }
}
