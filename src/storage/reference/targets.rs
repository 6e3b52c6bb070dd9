//! The files that references point into: local files, read by path with positioned reads
//! (no store per directory), and objects of S3, GCS, Azure or HTTP stores, one store per
//! bucket (or HTTP server) opened on first use and shared by every reference into it.

use super::ParseError;
use crate::storage::{ByteRange, RangesRead, ReadableStorage, StorageError};
use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Where a reference's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A local file (absolute path).
    File(PathBuf),
    /// The object `key` of the store `store` names: `s3://bucket`, `gs://bucket`,
    /// `az://container`, or an HTTP server `https://host:port/`.
    Object { store: String, key: String },
}

/// Where the target URL `url` of a reference points. A relative path is refused: fsspec
/// reads it relative to the reading process's working directory (it does not resolve it
/// against the reference file's directory), which no reader can rely on.
pub fn parse_target(url: &str) -> Result<Target, ParseError> {
    let invalid = |why: &str| Err(ParseError::Target(format!("target '{url}': {why}")));
    if url.starts_with('/') {
        return Ok(Target::File(PathBuf::from(url)));
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return invalid(
            "a relative path (targets must be absolute paths or URLs: fsspec would read it \
             relative to the working directory, not to the reference set)",
        );
    };
    match scheme.to_ascii_lowercase().as_str() {
        "file" => match url::Url::parse(url)
            .ok()
            .and_then(|u| u.to_file_path().ok())
        {
            Some(path) => Ok(Target::File(path)),
            None => invalid("expected file:///absolute/path"),
        },
        scheme @ ("s3" | "gs" | "gcs" | "az" | "abfs" | "abfss") => {
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() || key.is_empty() || rest.contains(['?', '#']) {
                return invalid("expected scheme://bucket/key (no query or fragment)");
            }
            if let Err(e) = crate::storage::validate_key(key) {
                return invalid(&e.to_string());
            }
            Ok(Target::Object {
                store: format!("{scheme}://{bucket}"),
                key: key.to_string(),
            })
        }
        "http" | "https" => {
            let parsed = match url::Url::parse(url) {
                Ok(u) if u.host_str().is_some_and(|h| !h.is_empty()) => u,
                _ => return invalid("not a valid http(s) URL"),
            };
            if parsed.query().is_some() || parsed.fragment().is_some() {
                return Err(ParseError::Unsupported(format!(
                    "target '{url}': URLs with a query or fragment are not supported"
                )));
            }
            // One store per server (scheme, host and port), so that references into many
            // files there share one connection pool; the key is the decoded path.
            let origin = &parsed[..url::Position::BeforePath];
            let path = percent_encoding::percent_decode_str(parsed.path())
                .decode_utf8()
                .map_err(|_| ParseError::Target(format!("target '{url}': not UTF-8")))?;
            let key = path.trim_start_matches('/');
            if key.is_empty() || key.ends_with('/') {
                return invalid("names a directory, not a file");
            }
            if let Err(e) = crate::storage::validate_key(key) {
                return invalid(&e.to_string());
            }
            Ok(Target::Object {
                store: format!("{origin}/"),
                key: key.to_string(),
            })
        }
        other => Err(ParseError::Unsupported(format!(
            "target '{url}': scheme '{other}' is not supported (absolute paths, file://, \
             s3://, gs://, az://, http:// and https:// are)"
        ))),
    }
}

/// Opens the store a [`Target::Object`] names (`s3://bucket`, `https://host/dir/`), with
/// the options that apply to it. Given by `crate::store_url`, which knows the options.
pub type OpenTargetStore =
    dyn Fn(&str) -> Result<Arc<dyn ReadableStorage>, StorageError> + Send + Sync;

/// The target stores of one reference set.
pub struct Targets {
    open: Box<OpenTargetStore>,
    stores: Mutex<HashMap<String, Arc<dyn ReadableStorage>>>,
}

impl std::fmt::Debug for Targets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open: Vec<String> = self
            .stores
            .lock()
            .map_or_else(|_| Vec::new(), |stores| stores.keys().cloned().collect());
        f.debug_struct("Targets").field("open", &open).finish()
    }
}

impl Targets {
    pub fn new(open: Box<OpenTargetStore>) -> Targets {
        Targets {
            open,
            stores: Mutex::new(HashMap::new()),
        }
    }

    /// The store `name`, opened on first use. Two threads may both open it the first
    /// time (the open runs outside the lock, so that one slow open does not hold up
    /// reads from stores already open); the first one kept wins.
    fn store(&self, name: &str) -> Result<Arc<dyn ReadableStorage>, StorageError> {
        if let Some(store) = self
            .stores
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
        {
            return Ok(store.clone());
        }
        let opened = (self.open)(name)?;
        let mut stores = self.stores.lock().unwrap_or_else(|p| p.into_inner());
        Ok(stores.entry(name.to_string()).or_insert(opened).clone())
    }

    /// The bytes of `ranges` of `target` one after another, with the target's size when
    /// known; `None` when the target does not exist.
    pub fn read(
        &self,
        target: &Target,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        match target {
            Target::File(path) => read_file(path, ranges),
            Target::Object { store, key } => self.store(store)?.read_ranges(key, ranges),
        }
    }

    /// The whole of `target`; `None` when it does not exist. One request for an object
    /// (no size asked first).
    pub fn get(&self, target: &Target) -> Result<Option<Vec<u8>>, StorageError> {
        match target {
            Target::File(path) => {
                let size = match std::fs::metadata(path) {
                    Ok(meta) => meta.len(),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                    Err(source) => {
                        return Err(StorageError::Io {
                            key: path.display().to_string(),
                            source,
                        })
                    }
                };
                let whole = [ByteRange::FromStart {
                    offset: 0,
                    length: size,
                }];
                Ok(read_file(path, &whole)?.map(|(_, bytes)| bytes))
            }
            Target::Object { store, key } => self.store(store)?.get(key),
        }
    }

    /// The size of `target`; `None` when it does not exist.
    pub fn size(&self, target: &Target) -> Result<Option<u64>, StorageError> {
        match target {
            Target::File(path) => match std::fs::metadata(path) {
                Ok(meta) => Ok(Some(meta.len())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(source) => Err(StorageError::Io {
                    key: path.display().to_string(),
                    source,
                }),
            },
            Target::Object { store, key } => self.store(store)?.value_size(key),
        }
    }

    /// How many reads are worth keeping in flight: that of the remote stores opened so
    /// far (local files need none).
    pub fn max_concurrency(&self) -> Option<usize> {
        let stores = self.stores.lock().unwrap_or_else(|p| p.into_inner());
        stores.values().filter_map(|s| s.max_concurrency()).max()
    }
}

/// Positioned reads of a local file: one open, one `pread` per range.
fn read_file(
    path: &std::path::Path,
    ranges: &[ByteRange],
) -> Result<Option<RangesRead>, StorageError> {
    let name = || path.display().to_string();
    let io = |source| StorageError::Io {
        key: name(),
        source,
    };
    // A FIFO or device is refused before it is opened: opening a FIFO would wait for a
    // writer, forever. (A file swapped for one between the two calls is the caller's own
    // doing; the check after the open still refuses to read it.)
    let not_regular = || StorageError::NotRegularFile {
        key: name(),
        kind: "directory or special file",
    };
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(not_regular()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    }
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let size = meta.len();
    let mut spans = Vec::with_capacity(ranges.len());
    let mut total: u64 = 0;
    for range in ranges {
        let span = range.resolve_in(&name(), size)?;
        total = total.saturating_add(span.end - span.start);
        spans.push(span);
    }
    let mut out = crate::storage::value_buffer(&name(), total)?;
    for span in spans {
        let start = out.len();
        // Fits: the total was allocated.
        out.resize(start + (span.end - span.start) as usize, 0);
        file.read_exact_at(&mut out[start..], span.start)
            .map_err(io)?;
    }
    Ok(Some((Some(size), out)))
}
