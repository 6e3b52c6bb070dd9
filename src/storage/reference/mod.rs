//! A read-only store over a Kerchunk reference set: each key maps to bytes held in the
//! set itself (metadata, small inline chunks) or to a byte range of some other file (the
//! chunks of an HDF5, netCDF, GRIB or TIFF file), so that those files read as a Zarr
//! hierarchy. `crate::store_url` opens it for `reference+<location>` URLs.
//!
//! - json.rs: JSON reference sets, versions 0 and 1 (templates and `gen`);
//! - parquet.rs: Parquet reference directories (`kerchunk.df.refs_to_dataframe`), read
//!   lazily, a bounded number of record files cached;
//! - targets.rs: reading the referenced files (local paths, S3, GCS, Azure, HTTP).

pub mod json;
pub mod parquet;
pub mod targets;

use crate::storage::remote::OpenError;
use crate::storage::{
    ranges_of, validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, RangesRead,
    ReadableStorage, StorageError, WritableStorage,
};
use std::collections::BTreeMap;
use targets::{OpenTargetStore, Target, Targets};

/// Why a reference set, or one reference of it, cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The set is malformed: not JSON, not a reference set, a reference of the wrong shape,
    /// a hostile key (the message names the key).
    Invalid(String),
    /// A target that cannot be read from anywhere: a relative path, a malformed URL.
    Target(String),
    /// A feature of the format (or of jinja) that this reader does not implement.
    Unsupported(String),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Invalid(m) | ParseError::Target(m) | ParseError::Unsupported(m) => {
                f.write_str(m)
            }
        }
    }
}

impl ParseError {
    /// The same error, its message prefixed by `what`.
    pub(crate) fn context(self, what: &str) -> ParseError {
        match self {
            ParseError::Invalid(m) => ParseError::Invalid(format!("{what}: {m}")),
            ParseError::Target(m) => ParseError::Target(format!("{what}: {m}")),
            ParseError::Unsupported(m) => ParseError::Unsupported(format!("{what}: {m}")),
        }
    }

    /// The error of opening the reference set at `url`.
    fn at_open(self, url: &str) -> OpenError {
        let location = format!("the Kerchunk references at {url}");
        match self {
            ParseError::Target(m) => OpenError::InvalidArgument(format!("{location}: {m}")),
            ParseError::Invalid(reason) => OpenError::Storage(StorageError::Corrupt {
                key: location,
                reason,
            }),
            ParseError::Unsupported(reason) => OpenError::Storage(StorageError::Unsupported {
                key: location,
                reason,
            }),
        }
    }

    /// The error of reading `key` of the set at `url`.
    fn at_read(self, key: &str, url: &str) -> StorageError {
        let key = format!("{key}' of the Kerchunk references at '{url}");
        match self {
            ParseError::Invalid(reason) | ParseError::Target(reason) => {
                StorageError::Corrupt { key, reason }
            }
            ParseError::Unsupported(reason) => StorageError::Unsupported { key, reason },
        }
    }
}

/// A reference as a set states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// The value itself.
    Inline(Vec<u8>),
    /// The target at `url`, whole (`range: None`) or `(offset, length)` bytes of it.
    Target {
        url: String,
        range: Option<(u64, u64)>,
    },
}

/// A reference with its target located.
#[derive(Clone, Debug)]
enum Entry {
    Inline(Vec<u8>),
    Target {
        url: String,
        target: Target,
        range: Option<(u64, u64)>,
    },
}

impl Entry {
    fn new(reference: Reference) -> Result<Entry, ParseError> {
        Ok(match reference {
            Reference::Inline(bytes) => Entry::Inline(bytes),
            Reference::Target { url, range } => Entry::Target {
                target: targets::parse_target(&url)?,
                url,
                range,
            },
        })
    }
}

#[derive(Debug)]
enum Refs {
    Json(BTreeMap<String, Entry>),
    Parquet(parquet::LazyRefs),
}

/// A read-only store over a Kerchunk reference set.
#[derive(Debug)]
pub struct ReferenceStore {
    /// The set's location as the user gave it (`reference+` stripped).
    url: String,
    refs: Refs,
    targets: Targets,
    /// Reads worth keeping in flight when the set or its targets are remote.
    concurrency: Option<usize>,
}

impl ReferenceStore {
    /// The store of the JSON reference set `text`, read from `url`. `open_target` opens
    /// the stores of remote targets; `remote_concurrency` is how many reads to keep in
    /// flight when some target is remote.
    pub fn from_json(
        url: &str,
        text: &[u8],
        open_target: Box<OpenTargetStore>,
        remote_concurrency: usize,
    ) -> Result<ReferenceStore, OpenError> {
        Self::from_json_limited(
            url,
            text,
            open_target,
            remote_concurrency,
            json::MAX_GENERATED_KEYS,
        )
    }

    /// [`ReferenceStore::from_json`] with at most `max_generated` keys from `gen`.
    pub fn from_json_limited(
        url: &str,
        text: &[u8],
        open_target: Box<OpenTargetStore>,
        remote_concurrency: usize,
        max_generated: u64,
    ) -> Result<ReferenceStore, OpenError> {
        let parsed = json::parse_limited(text, max_generated).map_err(|e| e.at_open(url))?;
        let mut refs = BTreeMap::new();
        let mut remote = false;
        for (key, reference) in parsed {
            validate_key(&key).map_err(|e| {
                ParseError::Invalid(format!("hostile or malformed key '{key}': {e}")).at_open(url)
            })?;
            let entry = Entry::new(reference)
                .map_err(|e| e.context(&format!("key '{key}'")).at_open(url))?;
            remote |= matches!(
                entry,
                Entry::Target {
                    target: Target::Object { .. },
                    ..
                }
            );
            refs.insert(key, entry);
        }
        Ok(ReferenceStore {
            url: url.to_string(),
            refs: Refs::Json(refs),
            targets: Targets::new(open_target),
            concurrency: remote.then_some(remote_concurrency),
        })
    }

    /// The store of the Parquet reference directory that `source` holds (its keys are
    /// `.zmetadata` and `<variable>/refs.<i>.parq`), at `url`. `remote_concurrency` applies
    /// when `remote` (the directory is remote) or once a remote target has been opened.
    pub fn from_parquet(
        url: &str,
        source: std::sync::Arc<dyn ReadableStorage>,
        open_target: Box<OpenTargetStore>,
        remote: bool,
        remote_concurrency: usize,
    ) -> Result<ReferenceStore, OpenError> {
        let refs = parquet::LazyRefs::open(source).map_err(|e| match e {
            parquet::OpenFailure::Parse(e) => e.at_open(url),
            parquet::OpenFailure::Storage(e) => OpenError::Storage(e),
            parquet::OpenFailure::Missing => OpenError::NotFound(format!(
                "the Kerchunk references at {url}: no '.zmetadata' in the Parquet reference \
                 directory"
            )),
        })?;
        Ok(ReferenceStore {
            url: url.to_string(),
            refs: Refs::Parquet(refs),
            targets: Targets::new(open_target),
            concurrency: remote.then_some(remote_concurrency),
        })
    }

    /// The entry at `key`; `None` when the set has no reference for it.
    fn lookup(&self, key: &str) -> Result<Option<Entry>, StorageError> {
        validate_key(key)?;
        match &self.refs {
            Refs::Json(map) => Ok(map.get(key).cloned()),
            Refs::Parquet(lazy) => match lazy.lookup(key) {
                Ok(None) => Ok(None),
                Ok(Some(reference)) => Entry::new(reference)
                    .map(Some)
                    .map_err(|e| e.at_read(key, &self.url)),
                Err(parquet::ReadFailure::Parse(e)) => Err(e.at_read(key, &self.url)),
                Err(parquet::ReadFailure::Storage(e)) => Err(e),
            },
        }
    }

    /// A missing target file or object.
    fn target_missing(&self, key: &str, url: &str) -> StorageError {
        StorageError::Io {
            key: key.to_string(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "its target {url} does not exist ({})",
                    ReadableStorage::location(self)
                ),
            ),
        }
    }

    /// `ranges` of the value at `key` (whose entry is `entry`).
    fn read_entry(
        &self,
        key: &str,
        entry: &Entry,
        ranges: &[ByteRange],
    ) -> Result<RangesRead, StorageError> {
        match entry {
            Entry::Inline(bytes) => {
                ranges_of(key, bytes, ranges).map(|(size, out)| (Some(size), out))
            }
            Entry::Target {
                url,
                target,
                range: Some((offset, length)),
            } => {
                let mut absolute = Vec::with_capacity(ranges.len());
                for range in ranges {
                    let span = range.resolve_in(key, *length)?;
                    absolute.push(ByteRange::FromStart {
                        offset: offset + span.start,
                        length: span.end - span.start,
                    });
                }
                match self.targets.read(target, &absolute) {
                    Ok(Some((_, bytes))) => Ok((Some(*length), bytes)),
                    Ok(None) => Err(self.target_missing(key, url)),
                    Err(StorageError::RangeOutOfBounds { size, .. }) => {
                        Err(StorageError::Corrupt {
                            key: format!("{key}' of '{}", ReadableStorage::location(self)),
                            reason: format!(
                                "its reference [{url}, {offset}, {length}] reaches past the end \
                                 of the target ({size} bytes)"
                            ),
                        })
                    }
                    Err(e) => Err(e),
                }
            }
            Entry::Target {
                url,
                target,
                range: None,
            } => match self.targets.read(target, ranges) {
                Ok(Some(read)) => Ok(read),
                Ok(None) => Err(self.target_missing(key, url)),
                Err(StorageError::RangeOutOfBounds { range, size, .. }) => {
                    Err(StorageError::RangeOutOfBounds {
                        key: key.to_string(),
                        range,
                        size,
                    })
                }
                Err(e) => Err(e),
            },
        }
    }
}

impl ReadableStorage for ReferenceStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(entry) = self.lookup(key)? else {
            return Ok(None);
        };
        match &entry {
            Entry::Inline(bytes) => Ok(Some(bytes.clone())),
            Entry::Target {
                range: Some((_, length)),
                ..
            } => {
                let whole = [ByteRange::FromStart {
                    offset: 0,
                    length: *length,
                }];
                Ok(Some(self.read_entry(key, &entry, &whole)?.1))
            }
            Entry::Target {
                url,
                target,
                range: None,
            } => match self.targets.get(target)? {
                Some(bytes) => Ok(Some(bytes)),
                None => Err(self.target_missing(key, url)),
            },
        }
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        Ok(self.read_ranges(key, &[range])?.map(|(_, bytes)| bytes))
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        match self.lookup(key)? {
            Some(entry) => self.read_entry(key, &entry, ranges).map(Some),
            None => Ok(None),
        }
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        match self.lookup(key)? {
            None => Ok(None),
            Some(Entry::Inline(bytes)) => Ok(Some(bytes.len() as u64)),
            Some(Entry::Target {
                range: Some((_, length)),
                ..
            }) => Ok(Some(length)),
            Some(Entry::Target { url, target, .. }) => Ok(Some(
                self.targets
                    .size(&target)?
                    .ok_or_else(|| self.target_missing(key, &url))?,
            )),
        }
    }

    fn max_concurrency(&self) -> Option<usize> {
        self.concurrency.max(self.targets.max_concurrency())
    }

    fn location(&self) -> String {
        format!("the Kerchunk references at {}", self.url)
    }

    fn key_location(&self, key: &str) -> String {
        match self.lookup(key) {
            Ok(Some(Entry::Target {
                url,
                range: Some((offset, length)),
                ..
            })) => format!(
                "{url} (bytes {offset} to {})",
                offset.saturating_add(length)
            ),
            Ok(Some(Entry::Target { url, .. })) => url,
            _ => format!("key '{key}' of the Kerchunk references at {}", self.url),
        }
    }
}

impl WritableStorage for ReferenceStore {
    fn set(&self, _key: &str, _value: &[u8]) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }

    fn erase(&self, _key: &str) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }

    fn erase_prefix(&self, _prefix: &str) -> Result<(), StorageError> {
        Err(StorageError::ReadOnly)
    }
}

impl ListableStorage for ReferenceStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        match &self.refs {
            Refs::Json(map) => Ok(DirListing::from_sorted_keys(
                prefix,
                map.range(prefix.to_string()..).map(|(k, _)| k),
            )),
            Refs::Parquet(lazy) => Ok(lazy.list_dir(prefix)),
        }
    }
}

#[cfg(test)]
mod tests;
