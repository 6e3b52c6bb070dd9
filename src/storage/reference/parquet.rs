//! Kerchunk Parquet reference directories, as `kerchunk.df.refs_to_dataframe` (fsspec's
//! `LazyReferenceMapper`) writes them:
//!
//! - `.zmetadata`: JSON `{"metadata": {key: document, ...}, "record_size": N}` holding every
//!   metadata key (`.zgroup`, `.zarray`, `.zattrs`, `zarr.json`, ...);
//! - `<variable>/refs.<i>.parq`: record `i` of the variable's chunk references, one row
//!   per chunk with columns `path`, `offset`, `size` and `raw`. Chunks are numbered in C
//!   order over the chunk grid: chunk `n` is row `n % N` of record `n / N`. A row with
//!   `raw` set is the chunk's bytes; a row with neither `path` nor `raw` is a missing chunk;
//!   `offset` and `size` both 0 mean the whole of `path`.
//!
//! Records are read when a chunk of them is first asked for, and a bounded number of them
//! are kept, so that a set of a million chunks opens with one read.

use super::{ParseError, Reference};
use crate::storage::{DirListing, ReadableStorage, StorageError};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Records kept in memory (each holds `record_size` references, 10,000 by default:
/// about a megabyte).
const CACHED_RECORDS: usize = 64;

/// The largest record file read: a record of 10,000 rows takes a few hundred kilobytes;
/// this leaves room for inline chunks in `raw` without letting a hostile file claim
/// gigabytes.
const MAX_RECORD_FILE: u64 = 1 << 30;

/// Why a Parquet reference directory cannot be opened.
#[derive(Debug)]
pub enum OpenFailure {
    /// `.zmetadata` is absent.
    Missing,
    Parse(ParseError),
    Storage(StorageError),
}

/// Why a reference cannot be read.
#[derive(Debug)]
pub enum ReadFailure {
    Parse(ParseError),
    Storage(StorageError),
}

/// One row of a record: `None` for a missing chunk.
type Record = Vec<Option<Reference>>;

/// The references of a Parquet reference directory, read lazily.
#[derive(Debug)]
pub struct LazyRefs {
    source: Arc<dyn ReadableStorage>,
    /// The metadata documents, serialised, by key.
    metadata: BTreeMap<String, Vec<u8>>,
    /// `.zmetadata` as Zarr's consolidated metadata (`{"zarr_consolidated_format": 1,
    /// "metadata": ...}`), so that a consolidated open reads the whole hierarchy from it.
    consolidated: Vec<u8>,
    record_size: u64,
    /// The chunk grid (chunks per dimension) of each array, by its path.
    grids: HashMap<String, Vec<u64>>,
    cache: Mutex<Cache>,
}

#[derive(Debug, Default)]
struct Cache {
    records: HashMap<(String, u64), Arc<Record>>,
    /// Least recently loaded first.
    order: VecDeque<(String, u64)>,
}

fn invalid<T>(message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError::Invalid(message.into()))
}

impl LazyRefs {
    /// Read `.zmetadata` of the directory `source` holds.
    pub fn open(source: Arc<dyn ReadableStorage>) -> Result<LazyRefs, OpenFailure> {
        let text = source
            .get(".zmetadata")
            .map_err(OpenFailure::Storage)?
            .ok_or(OpenFailure::Missing)?;
        Self::from_zmetadata(source, &text).map_err(OpenFailure::Parse)
    }

    fn from_zmetadata(
        source: Arc<dyn ReadableStorage>,
        text: &[u8],
    ) -> Result<LazyRefs, ParseError> {
        let value: Value = serde_json::from_slice(text)
            .map_err(|e| ParseError::Invalid(format!("'.zmetadata' is not valid JSON: {e}")))?;
        let Some(record_size) = value.get("record_size").and_then(Value::as_u64) else {
            return invalid("'.zmetadata' has no positive integer 'record_size'");
        };
        if record_size == 0 {
            return invalid("'.zmetadata' has 'record_size' 0");
        }
        let Some(Value::Object(documents)) = value.get("metadata") else {
            return invalid("'.zmetadata' has no 'metadata' object");
        };
        let mut metadata = BTreeMap::new();
        let mut grids = HashMap::new();
        for (key, document) in documents {
            crate::storage::validate_key(key).map_err(|e| {
                ParseError::Invalid(format!(
                    "'.zmetadata': hostile or malformed key '{key}': {e}"
                ))
            })?;
            // Documents are objects, as fsspec writes them; a string is taken as the
            // document's text.
            let bytes = match document {
                Value::String(text) => text.as_bytes().to_vec(),
                other => other.to_string().into_bytes(),
            };
            if let Some(field) = key.strip_suffix("/.zarray") {
                let doc: Value = serde_json::from_slice(&bytes).map_err(|e| {
                    ParseError::Invalid(format!("'.zmetadata': '{key}' is not JSON: {e}"))
                })?;
                grids.insert(field.to_string(), chunk_grid(key, &doc)?);
            }
            metadata.insert(key.clone(), bytes);
        }
        let consolidated = serde_json::json!({
            "zarr_consolidated_format": 1,
            "metadata": documents,
        })
        .to_string()
        .into_bytes();
        Ok(LazyRefs {
            source,
            metadata,
            consolidated,
            record_size,
            grids,
            cache: Mutex::new(Cache::default()),
        })
    }

    /// The reference at `key`; `None` when there is none (a missing chunk included).
    pub fn lookup(&self, key: &str) -> Result<Option<Reference>, ReadFailure> {
        if key == ".zmetadata" {
            return Ok(Some(Reference::Inline(self.consolidated.clone())));
        }
        if let Some(document) = self.metadata.get(key) {
            return Ok(Some(Reference::Inline(document.clone())));
        }
        let Some((field, chunk)) = key.rsplit_once('/') else {
            return Ok(None);
        };
        let Some(grid) = self.grids.get(field) else {
            return Ok(None);
        };
        let Some(number) = chunk_number(chunk, grid) else {
            return Ok(None);
        };
        let record = number / self.record_size;
        let row = number % self.record_size;
        let refs = self.record(field, record)?;
        Ok(refs.get(row as usize).cloned().flatten())
    }

    /// Record `record` of `field`, from the cache or read.
    fn record(&self, field: &str, record: u64) -> Result<Arc<Record>, ReadFailure> {
        let id = (field.to_string(), record);
        if let Some(r) = self.lock().records.get(&id) {
            return Ok(r.clone());
        }
        let name = format!("{field}/refs.{record}.parq");
        let loaded = match self
            .source
            .get_at_most(&name, MAX_RECORD_FILE)
            .map_err(ReadFailure::Storage)?
        {
            // No file: no chunk of the record is stored.
            None => Vec::new(),
            Some(crate::storage::Bounded::TooLarge { size }) => {
                return Err(ReadFailure::Parse(ParseError::Invalid(format!(
                    "record file '{name}' holds {size} bytes: more than the {MAX_RECORD_FILE} \
                     this reader accepts"
                ))))
            }
            Some(crate::storage::Bounded::Value(bytes)) => read_record(bytes, self.record_size)
                .map_err(|e| ReadFailure::Parse(e.context(&format!("record file '{name}'"))))?,
        };
        let loaded = Arc::new(loaded);
        let mut cache = self.lock();
        if !cache.records.contains_key(&id) {
            if cache.order.len() >= CACHED_RECORDS {
                if let Some(old) = cache.order.pop_front() {
                    cache.records.remove(&old);
                }
            }
            cache.order.push_back(id.clone());
            cache.records.insert(id, loaded.clone());
        }
        Ok(loaded)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The metadata keys and directories under `prefix` (chunk keys are not listed, as
    /// fsspec does not list them: Zarr readers do not need them).
    pub fn list_dir(&self, prefix: &str) -> DirListing {
        let mut keys: Vec<&String> = self.metadata.keys().collect();
        let zmetadata = ".zmetadata".to_string();
        keys.push(&zmetadata);
        keys.sort();
        let start = keys.partition_point(|k| k.as_str() < prefix);
        DirListing::from_sorted_keys(prefix, keys[start..].iter().copied())
    }
}

/// Chunks per dimension of the array whose `.zarray` is `doc` (`[1]` for a scalar, as
/// fsspec counts it).
fn chunk_grid(key: &str, doc: &Value) -> Result<Vec<u64>, ParseError> {
    let numbers = |name: &str| -> Result<Vec<u64>, ParseError> {
        doc.get(name)
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>())
            .ok_or_else(|| {
                ParseError::Invalid(format!(
                    "'.zmetadata': '{key}' has no '{name}' list of non-negative integers"
                ))
            })
    };
    let shape = numbers("shape")?;
    let chunks = numbers("chunks")?;
    if shape.len() != chunks.len() || chunks.contains(&0) {
        return invalid(format!(
            "'.zmetadata': '{key}' has shape {shape:?} and chunks {chunks:?}"
        ));
    }
    if shape.is_empty() {
        return Ok(vec![1]);
    }
    Ok(shape
        .iter()
        .zip(&chunks)
        .map(|(s, c)| s.div_ceil(*c))
        .collect())
}

/// The C-order number of chunk `name` (`i.j.k`) in `grid`; `None` when it is not a chunk
/// of the grid.
fn chunk_number(name: &str, grid: &[u64]) -> Option<u64> {
    let mut number: u64 = 0;
    let mut parts = name.split('.');
    for &extent in grid {
        let index: u64 = parts.next()?.parse().ok()?;
        if index >= extent {
            return None;
        }
        number = number.checked_mul(extent)?.checked_add(index)?;
    }
    parts.next().is_none().then_some(number)
}

/// The references of one record file. The parquet crate may panic on some malformed
/// files (it checks most, not all, of what it reads): a panic is caught and reported as
/// a malformed file.
fn read_record(bytes: Vec<u8>, record_size: u64) -> Result<Record, ParseError> {
    std::panic::catch_unwind(move || read_record_unguarded(bytes, record_size)).unwrap_or_else(
        |_| invalid("not a readable Parquet file (the reader failed on its structure)"),
    )
}

pub(super) fn read_record_unguarded(
    bytes: Vec<u8>,
    record_size: u64,
) -> Result<Record, ParseError> {
    let parquet_error = |e: parquet::errors::ParquetError| {
        ParseError::Invalid(format!("not a readable Parquet file: {e}"))
    };
    let reader_len = bytes.len() as u64;
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).map_err(parquet_error)?;
    // The reader asserts (panics) on a column chunk whose start or length is negative:
    // check them, and that each chunk lies inside the file, before any row is read.
    let file_len = reader_len;
    for (g, group) in reader.metadata().row_groups().iter().enumerate() {
        for column in group.columns() {
            let start = column
                .dictionary_page_offset()
                .unwrap_or_else(|| column.data_page_offset());
            let length = column.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(length).ok())
                .and_then(|(s, l)| s.checked_add(l))
                .is_some_and(|end| end <= file_len);
            if !inside {
                return invalid(format!(
                    "row group {g}: column '{}' claims {length} bytes at offset {start}, \
                     outside the file ({file_len} bytes)",
                    column.column_path()
                ));
            }
        }
    }
    // Without these columns every row would read as a missing chunk: a file that is not
    // a record file is an error, not an empty record.
    let schema = reader.metadata().file_metadata().schema_descr();
    let names: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    for required in ["path", "offset", "size", "raw"] {
        if !names.contains(&required) {
            return invalid(format!(
                "no column '{required}' (columns: {}; a record has path, offset, size and raw)",
                names.join(", ")
            ));
        }
    }
    let rows = reader.metadata().file_metadata().num_rows();
    if rows < 0 || rows as u64 > record_size {
        return invalid(format!(
            "{rows} rows: a record holds at most record_size ({record_size})"
        ));
    }
    // Grown row by row: the row count in the footer is a claim, the rows are what is there.
    let mut out = Vec::new();
    for (index, row) in reader
        .get_row_iter(None)
        .map_err(parquet_error)?
        .enumerate()
    {
        if index as u64 >= record_size {
            return invalid(format!("more rows than record_size ({record_size})"));
        }
        let row = row.map_err(parquet_error)?;
        let mut path = None;
        let mut offset = 0u64;
        let mut size = 0u64;
        let mut raw = None;
        for (name, field) in row.get_column_iter() {
            let wrong = |expected: &str| {
                ParseError::Invalid(format!(
                    "row {index}: column '{name}' holds {field:?}: {expected} expected"
                ))
            };
            match name.as_str() {
                "path" => {
                    path = match field {
                        Field::Null => None,
                        Field::Str(s) => Some(s.clone()),
                        Field::Bytes(b) => Some(
                            std::str::from_utf8(b.data())
                                .map_err(|_| wrong("UTF-8 text"))?
                                .to_string(),
                        ),
                        _ => return Err(wrong("a string")),
                    }
                }
                "offset" | "size" => {
                    let n = match field {
                        Field::Null => 0,
                        Field::Long(n) => *n,
                        Field::Int(n) => i64::from(*n),
                        Field::ULong(n) => i64::try_from(*n).map_err(|_| wrong("below 2^63"))?,
                        Field::UInt(n) => i64::from(*n),
                        _ => return Err(wrong("an integer")),
                    };
                    let n = u64::try_from(n).map_err(|_| wrong("a non-negative integer"))?;
                    if name == "offset" {
                        offset = n;
                    } else {
                        size = n;
                    }
                }
                "raw" => {
                    raw = match field {
                        Field::Null => None,
                        Field::Bytes(b) => Some(b.data().to_vec()),
                        Field::Str(s) => Some(s.as_bytes().to_vec()),
                        _ => return Err(wrong("bytes")),
                    }
                }
                // Other columns (a pandas index) are not references.
                _ => {}
            }
        }
        let reference = match (raw, path) {
            (Some(bytes), _) => Some(Reference::Inline(bytes)),
            (None, None) => None,
            (None, Some(url)) => {
                let range = if offset == 0 && size == 0 {
                    None
                } else if offset.checked_add(size).is_none() {
                    return invalid(format!(
                        "row {index}: offset {offset} + size {size} overflows"
                    ));
                } else {
                    Some((offset, size))
                };
                Some(Reference::Target { url, range })
            }
        };
        out.push(reference);
    }
    Ok(out)
}
