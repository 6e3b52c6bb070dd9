//! Arrays: open and create, metadata, region and chunk reads and writes.
//!
//! An [`Array`] holds its metadata and codec chain; reads and writes go through the I/O
//! planner ([`planner`]), which cuts a block into chunks and lets the codec chain decode each
//! straight into its part of the caller's buffer (or encode from it). Callers' buffers may
//! be dense C order or any strided layout ([`Layout`]). A chunk equal to the fill value
//! everywhere is not stored (an existing one is erased), as zarr-python does by default.

mod chains;
mod locks;
mod planner;
mod resize;
mod shard_stream;
mod stored;
mod vlen;
mod vlen_shards;

use crate::chunk_grid::ChunkGrid;
use crate::codec::chain::CodecChain;
use crate::codec::vlen::VlenCodecs;
pub use crate::codec::vlen::VlenElements;
use crate::codec::ChunkRepresentation;
use crate::data_type::{DataType, FillValue};
use crate::error::Error;
use crate::layout::{InBlock, Layout, LayoutError};
use crate::metadata::json::parse_lenient;
use crate::metadata::v2::{self, ArrayMetadataV2};
use crate::metadata::v3::{ArrayMetadata, NodeType};
use crate::metadata::{v3_draft, MetadataError};
use crate::node::{
    ensure_parent_groups, find_node, missing_node_error, write_json, write_node_document,
    FoundNode, NodePath, ZarrFormat, METADATA_KEY,
};
use crate::selection::{checked_product, Selection};
use crate::storage::Storage;
use crate::sys::shared_out::OutBuffer;
use chains::Chains;
pub(crate) use planner::check_codes;
use planner::ChunkIo;
use serde_json::{Map, Value};
pub use shard_stream::ShardStream;
use std::sync::{Arc, Mutex, RwLock};

/// A Zarr array in a store.
#[derive(Debug)]
pub struct Array {
    storage: Arc<dyn Storage>,
    path: NodePath,
    /// Key prefix of the array's chunks (`""` for a root array, `a/b/` otherwise;
    /// `data/root/a/b/` in the 2022 draft layout).
    key_prefix: String,
    /// Names the store's data for the chunk locks (see `WritableStorage::lock_scope`).
    lock_scope: String,
    /// Everything an operation reads. Operations take a snapshot (one `Arc` clone) and run
    /// on it without holding the lock; an attribute update or a resize replaces it whole.
    state: RwLock<Arc<ArrayState>>,
    /// Serialises the updates of the metadata through this handle (attributes, resize), so
    /// that two of them cannot interleave their document writes.
    updates: Mutex<()>,
}

/// An array's metadata and what is derived from it.
#[derive(Debug)]
struct ArrayState {
    metadata: ArrayMetadata,
    stored_as: StoredAs,
    codecs: Codecs,
    /// Decoded size in bytes of the largest chunk (0 for variable-length elements).
    chunk_nbytes: usize,
}

/// How an array's chunks are coded: elements of a fixed size through a codec chain, or
/// variable-length elements (`string`, `bytes`) through their own chain.
#[derive(Clone, Debug)]
enum Codecs {
    Fixed(Arc<Chains>),
    Variable(Arc<VlenCodecs>),
}

/// How an array's metadata is stored. Reads use the v3 model whatever the layout; the
/// layout decides which documents are written back when the attributes change.
#[derive(Clone, Debug)]
enum StoredAs {
    V3,
    /// The parsed `.zarray` (rewritten as it was; attributes live in `.zattrs`).
    V2(ArrayMetadataV2),
    /// The draft's `.array.json` as read, and its key.
    V3Draft2022 {
        document: Map<String, Value>,
        key: String,
    },
}

/// The error for reading elements that are not real numbers as `f64`.
fn not_real(error: crate::data_type::real::NotReal) -> Error {
    Error::TypeMismatch(format!(
        "the array's data type {} does not convert to double: {}",
        error.name, error.reason
    ))
}

/// A layout error from a caller's buffer description.
fn invalid_layout(error: LayoutError) -> Error {
    Error::InvalidArgument(error.0)
}

impl Array {
    /// Open the array at `path`, stored as Zarr v3, v2 or the 2022 draft of v3.
    pub fn open(storage: Arc<dyn Storage>, path: &str) -> Result<Array, Error> {
        let path = NodePath::new(path)?;
        match find_node(storage.as_ref(), &path)? {
            None => Err(missing_node_error(storage.as_ref(), &path)),
            Some(node) => Array::from_found(storage, path, node),
        }
    }

    /// Open an array from a node already found (by [`find_node`] or consolidated metadata).
    pub(crate) fn from_found(
        storage: Arc<dyn Storage>,
        path: NodePath,
        node: FoundNode,
    ) -> Result<Array, Error> {
        if node.node_type == NodeType::Group {
            return Err(Error::NodeTypeMismatch {
                path: path.as_str().to_string(),
                expected: "array",
                found: "group",
            });
        }
        let key = node.key.clone().unwrap_or_else(|| path.key(METADATA_KEY));
        let invalid = |e| Error::metadata(&key, e);
        let (metadata, stored_as) = match node.format {
            ZarrFormat::V3 => (
                ArrayMetadata::parse(&node.document).map_err(invalid)?,
                StoredAs::V3,
            ),
            ZarrFormat::V2 => {
                let v2 = ArrayMetadataV2::parse(&node.document).map_err(invalid)?;
                (
                    v2.to_v3_model(node.v2_attributes).map_err(invalid)?,
                    StoredAs::V2(v2),
                )
            }
            ZarrFormat::V3Draft2022 => (
                v3_draft::parse_array(&node.document).map_err(invalid)?,
                StoredAs::V3Draft2022 {
                    document: node.document,
                    key: key.clone(),
                },
            ),
        };
        Array::from_metadata(storage, path, metadata, stored_as)
    }

    /// Create an array at `path` from a complete array document (JSON text): a v3
    /// `zarr.json` (`"zarr_format": 3`) or a v2 `.zarray` (`"zarr_format": 2`, with the
    /// v2 array's attributes empty). A v3 document is stored in its canonical form (every
    /// codec as an object with its full configuration); a v2 document as given, with its
    /// optional keys spelled out. Fails if a node already exists at `path`; missing
    /// ancestor groups are created in the same format.
    pub fn create(
        storage: Arc<dyn Storage>,
        path: &str,
        metadata_json: &str,
    ) -> Result<Array, Error> {
        let path = NodePath::new(path)?;
        let invalid = |e: MetadataError| Error::metadata("metadata_json", e);
        let document = match parse_lenient(metadata_json.as_bytes()).map_err(invalid)? {
            Value::Object(document) => document,
            _ => {
                return Err(invalid(MetadataError::Invalid(
                    "the document is not a JSON object".into(),
                )))
            }
        };
        let (format, metadata, stored_as) = match document.get("zarr_format") {
            Some(f) if f.as_u64() == Some(2) => {
                let mut v2 = ArrayMetadataV2::parse(&document).map_err(invalid)?;
                v2.normalize_for_writing();
                let model = v2.to_v3_model(Map::new()).map_err(invalid)?;
                (ZarrFormat::V2, model, StoredAs::V2(v2))
            }
            Some(f) if f.as_u64() == Some(3) => (
                ZarrFormat::V3,
                ArrayMetadata::parse(&document).map_err(invalid)?,
                StoredAs::V3,
            ),
            Some(other) => {
                return Err(invalid(MetadataError::Unsupported(format!(
                    "zarr_format {other}: arrays are created as Zarr v3 (3) or v2 (2)"
                ))))
            }
            None => {
                return Err(invalid(MetadataError::Invalid(
                    "missing \"zarr_format\" (3 or 2)".into(),
                )))
            }
        };
        if find_node(storage.as_ref(), &path)?.is_some() {
            return Err(Error::AlreadyExists(path.as_str().to_string()));
        }
        let mut array = Array::from_metadata(storage, path, metadata, stored_as)?;
        if format == ZarrFormat::V3 {
            // Store the canonical spelling of the codecs.
            let slot = array.state.get_mut().unwrap_or_else(|e| e.into_inner());
            let state = Arc::get_mut(slot).expect("a new array's state is not shared");
            state.metadata.codecs = match &state.codecs {
                Codecs::Fixed(chains) => chains.base().to_metadata(),
                Codecs::Variable(chain) => chain.to_metadata(),
            };
        }
        ensure_parent_groups(array.storage.as_ref(), &array.path, format)?;
        let state = array.state();
        array.write_metadata(&state.stored_as, &state.metadata)?;
        Ok(array)
    }

    fn from_metadata(
        storage: Arc<dyn Storage>,
        path: NodePath,
        metadata: ArrayMetadata,
        stored_as: StoredAs,
    ) -> Result<Array, Error> {
        let key_prefix = match stored_as {
            StoredAs::V3Draft2022 { .. } => v3_draft::data_prefix(&path),
            _ => path.key_prefix(),
        };
        let state = ArrayState::new(&path, metadata, stored_as)?;
        let lock_scope = storage
            .lock_scope()
            .unwrap_or_else(|| format!("{:p}", Arc::as_ptr(&storage).cast::<()>()));
        Ok(Array {
            key_prefix,
            lock_scope,
            storage,
            path,
            state: RwLock::new(Arc::new(state)),
            updates: Mutex::new(()),
        })
    }

    /// A snapshot of the array's metadata and codecs.
    fn state(&self) -> Arc<ArrayState> {
        // Updates replace the Arc in one assignment, so a poisoned lock still holds a
        // consistent value.
        self.state.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Write the array's metadata document(s) in its layout.
    fn write_metadata(&self, stored_as: &StoredAs, metadata: &ArrayMetadata) -> Result<(), Error> {
        let storage = self.storage.as_ref();
        match stored_as {
            StoredAs::V3 => write_node_document(storage, &self.path, &metadata.to_json()),
            StoredAs::V2(v2) => {
                write_json(storage, &self.path.key(v2::ZARRAY), &v2.to_json())?;
                let attributes_key = self.path.key(v2::ZATTRS);
                if metadata.attributes.is_empty() {
                    storage.erase(&attributes_key)?;
                    Ok(())
                } else {
                    let attributes = Value::Object(metadata.attributes.clone());
                    write_json(storage, &attributes_key, &attributes)
                }
            }
            StoredAs::V3Draft2022 { document, key } => {
                let mut document = document.clone();
                document.insert(
                    "attributes".into(),
                    Value::Object(metadata.attributes.clone()),
                );
                write_json(storage, key, &Value::Object(document))
            }
        }
    }

    /// The layout the array is stored in.
    pub fn format(&self) -> ZarrFormat {
        match self.state().stored_as {
            StoredAs::V3 => ZarrFormat::V3,
            StoredAs::V2(_) => ZarrFormat::V2,
            StoredAs::V3Draft2022 { .. } => ZarrFormat::V3Draft2022,
        }
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    pub fn shape(&self) -> Vec<u64> {
        self.state().metadata.shape.clone()
    }

    pub fn ndim(&self) -> usize {
        self.state().metadata.shape.len()
    }

    /// The chunk shape of a regular grid; for a rectilinear one, the longest chunk along
    /// each dimension (every chunk fits in it: see [`Array::chunk_region`]).
    pub fn chunk_shape(&self) -> Vec<u64> {
        let state = self.state();
        state.grid().largest_chunk_shape(&state.metadata.shape)
    }

    /// The chunk grid (of shards, when the array is sharded).
    pub fn chunk_grid(&self) -> ChunkGrid {
        self.state().grid().clone()
    }

    /// Read the array's metadata again from the store and use it from now on: after
    /// another handle or process changed it (a resize, new attributes). The codecs must
    /// not have changed.
    pub fn reload(&self) -> Result<(), Error> {
        let fresh = Array::open(self.storage.clone(), self.path.as_str())?;
        let updated = fresh.state();
        let _update = self.updates.lock().unwrap_or_else(|e| e.into_inner());
        *self.state.write().unwrap_or_else(|e| e.into_inner()) = updated;
        Ok(())
    }

    /// The number of chunks along each dimension.
    pub fn chunk_grid_shape(&self) -> Vec<u64> {
        let state = self.state();
        state.grid().grid_shape(&state.metadata.shape)
    }

    /// Whether the chunk grid is rectilinear (chunks of different shapes).
    pub fn is_rectilinear(&self) -> bool {
        self.state().grid().regular_chunk_shape().is_none()
    }

    /// Where the chunk at `chunk_indices` starts in the array and its full shape (which
    /// may reach past the array's edge).
    pub fn chunk_region(&self, chunk_indices: &[u64]) -> Result<(Vec<u64>, Vec<u64>), Error> {
        let state = self.state();
        state.check_chunk_indices(chunk_indices)?;
        Ok(state.grid().chunk_region(chunk_indices))
    }

    pub fn data_type(&self) -> DataType {
        self.state().metadata.data_type.clone()
    }

    pub fn fill_value(&self) -> FillValue {
        self.state().metadata.fill_value.clone()
    }

    /// Size in bytes of one decoded chunk (of the largest, for a rectilinear grid).
    pub fn chunk_nbytes(&self) -> usize {
        self.state().chunk_nbytes
    }

    /// The array's metadata document in its own layout: the v3 `zarr.json`, the v2
    /// `.zarray` (attributes are separate), or the draft's `.array.json`.
    pub fn metadata_json(&self) -> Value {
        let state = self.state();
        match &state.stored_as {
            StoredAs::V3 => state.metadata.to_json(),
            StoredAs::V2(v2) => v2.to_json(),
            StoredAs::V3Draft2022 { document, .. } => {
                let mut document = document.clone();
                document.insert(
                    "attributes".into(),
                    Value::Object(state.metadata.attributes.clone()),
                );
                Value::Object(document)
            }
        }
    }

    pub fn attributes(&self) -> Map<String, Value> {
        self.state().metadata.attributes.clone()
    }

    /// Replace the attributes and rewrite the document holding them (atomically):
    /// `zarr.json`, v2 `.zattrs` (removed when empty) or the draft's `.array.json`.
    pub fn set_attributes(&self, attributes: Map<String, Value>) -> Result<(), Error> {
        self.update_attributes(|current| {
            *current = attributes;
            Ok::<(), Error>(())
        })
    }

    /// Swap in `metadata` (same codecs and chunk grid as `state`'s), once its documents
    /// are written.
    fn replace_metadata(&self, state: &ArrayState, metadata: ArrayMetadata) {
        let updated = Arc::new(ArrayState {
            metadata,
            stored_as: state.stored_as.clone(),
            codecs: state.codecs.clone(),
            chunk_nbytes: state.chunk_nbytes,
        });
        *self.state.write().unwrap_or_else(|e| e.into_inner()) = updated;
    }

    /// Size in bytes of the dense buffer for the selection `start`, `count`.
    pub fn selection_nbytes(&self, start: &[u64], count: &[u64]) -> Result<usize, Error> {
        let state = self.state();
        let selection = Selection::new(start, count, &state.metadata.shape)?;
        Ok(selection.nbytes(state.element_size()?)?)
    }

    /// The shape of the smallest independently readable piece: the inner chunk shape of a
    /// sharded array, the chunk shape otherwise.
    pub fn inner_chunk_shape(&self) -> Vec<u64> {
        let state = self.state();
        let largest = || state.grid().largest_chunk_shape(&state.metadata.shape);
        match &state.codecs {
            Codecs::Fixed(chains) => match chains.base().inner_chunk_shape() {
                Some(inner) => inner.to_vec(),
                None => largest(),
            },
            Codecs::Variable(codecs) => match codecs.inner_chunk_shape() {
                Some(inner) => inner.to_vec(),
                None => largest(),
            },
        }
    }

    /// Read the selection `start`, `count` into `out`: dense, C order, host byte order, at
    /// least `selection_nbytes` long (only that many bytes are written).
    ///
    /// Argument errors are found before anything is read and leave `out` untouched. A
    /// failure while reading (a corrupt or unreadable chunk) may leave the selection's
    /// bytes partly written: chunks are decoded in parallel, each straight into its place.
    pub fn read_region(&self, start: &[u64], count: &[u64], out: &mut [u8]) -> Result<(), Error> {
        self.read_region_strided(start, count, None, out)
    }

    /// Read the selection `start`, `count` converted to `f64`: dense, C order, `out` holding
    /// exactly one value per element of the selection.
    ///
    /// Any data type of real numbers converts (see [`crate::data_type::real`]); others are
    /// a `TypeMismatch` naming the type, found before anything is read. No attribute is
    /// applied: CF packing (`scale_factor`, `add_offset`, `_FillValue`) is the caller's.
    /// The stored elements are read into a buffer of the selection's size in bytes, then
    /// converted into `out`, so `out` is written only when the whole read succeeded.
    pub fn read_region_f64(
        &self,
        start: &[u64],
        count: &[u64],
        out: &mut [f64],
    ) -> Result<(), Error> {
        let data_type = self.data_type();
        crate::data_type::real::check_real(&data_type).map_err(not_real)?;
        let selection = Selection::new(start, count, &self.shape())?;
        let elements = selection
            .num_elements()
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                Error::OutOfMemory(format!("selection {count:?} has too many elements"))
            })?;
        if out.len() != elements {
            return Err(Error::ValueCountMismatch {
                expected: elements,
                given: out.len(),
            });
        }
        let nbytes = selection.nbytes(data_type.size())?;
        let mut raw = crate::sys::alloc::zeroed_vec(nbytes).ok_or_else(|| {
            Error::OutOfMemory(format!(
                "cannot allocate {nbytes} bytes for the selection's stored elements"
            ))
        })?;
        self.read_region(start, count, &mut raw)?;
        crate::data_type::real::to_f64(&data_type, &raw, out)
            .map_err(|e| Error::Internal(format!("{} did not convert after all", e.name)))
    }

    /// The fill value converted to `f64` as [`Array::read_region_f64`] converts elements
    /// (a `TypeMismatch` for other data types); `None` for a Zarr v2 array whose
    /// `fill_value` is `null`, which declares no fill value (unwritten elements read as 0).
    pub fn fill_value_f64(&self) -> Result<Option<f64>, Error> {
        let state = self.state();
        if let StoredAs::V2(v2) = &state.stored_as {
            if v2.fill_value.is_null() {
                return Ok(None);
            }
        }
        let mut value = [0.0];
        let fill = state.metadata.fill_value.as_bytes();
        crate::data_type::real::to_f64(&state.metadata.data_type, fill, &mut value)
            .map_err(not_real)?;
        Ok(Some(value[0]))
    }

    /// [`Array::read_region`] into a buffer whose layout is given by `byte_strides` (the
    /// distance in bytes between neighbours along each dimension; `None`: dense C order).
    /// The layout must fit in `out` and no two elements may share a byte.
    pub fn read_region_strided(
        &self,
        start: &[u64],
        count: &[u64],
        byte_strides: Option<&[i64]>,
        out: &mut [u8],
    ) -> Result<(), Error> {
        let state = self.state();
        let element_size = state.element_size()?;
        let selection = Selection::new(start, count, &state.metadata.shape)?;
        let layout = match byte_strides {
            None => {
                let needed = selection.nbytes(element_size)?;
                if out.len() < needed {
                    return Err(Error::BufferTooSmall {
                        needed,
                        given: out.len(),
                    });
                }
                Layout::c_order(count, element_size).map_err(invalid_layout)?
            }
            Some(strides) => self.strided_layout(count, strides, element_size, out.len())?,
        };
        if selection.is_empty() {
            return Ok(());
        }
        let mut out = OutBuffer::new(out, layout).map_err(invalid_layout)?;
        planner::read(&self.chunk_io(&state)?, start, &mut out)
    }

    /// A strided layout for a caller's buffer of `len` bytes: invalid strides are
    /// INVALID_ARGUMENT, a buffer shorter than the layout's span BUFFER_TOO_SMALL.
    fn strided_layout(
        &self,
        count: &[u64],
        strides: &[i64],
        element_size: usize,
        len: usize,
    ) -> Result<Layout, Error> {
        let layout = Layout::strided(count, strides, element_size).map_err(invalid_layout)?;
        let needed = layout.span().map_err(invalid_layout)?;
        if len < needed {
            return Err(Error::BufferTooSmall { needed, given: len });
        }
        Ok(layout)
    }

    /// Write `data` (dense, C order, host byte order, exactly `selection_nbytes` long) into
    /// the selection `start`, `count`.
    ///
    /// Chunks the selection covers are encoded straight from `data`; chunks it covers in
    /// part are read, merged and rewritten, one update of a chunk at a time within the
    /// process (threads writing disjoint regions that share a chunk lose nothing). Each
    /// chunk is replaced atomically; if a chunk fails (a store error, or an existing chunk
    /// that is corrupt), the chunks already written hold the new data and the rest the old.
    pub fn write_region(&self, start: &[u64], count: &[u64], data: &[u8]) -> Result<(), Error> {
        self.write_region_strided(start, count, None, data)
    }

    /// [`Array::write_region`] from a buffer whose layout is given by `byte_strides`
    /// (`None`: dense C order, and then `data` must be exactly the selection's size).
    pub fn write_region_strided(
        &self,
        start: &[u64],
        count: &[u64],
        byte_strides: Option<&[i64]>,
        data: &[u8],
    ) -> Result<(), Error> {
        let state = self.state();
        let element_size = state.element_size()?;
        let selection = Selection::new(start, count, &state.metadata.shape)?;
        let layout = match byte_strides {
            None => {
                let expected = selection.nbytes(element_size)?;
                if data.len() != expected {
                    return Err(Error::BufferSizeMismatch {
                        expected,
                        given: data.len(),
                    });
                }
                Layout::c_order(count, element_size).map_err(invalid_layout)?
            }
            Some(strides) => self.strided_layout(count, strides, element_size, data.len())?,
        };
        if selection.is_empty() {
            return Ok(());
        }
        let input = InBlock::whole(data, &layout).map_err(invalid_layout)?;
        planner::write(&self.chunk_io(&state)?, start, &input)
    }

    /// The store key of the chunk at `chunk_indices` (checked against the grid).
    pub fn chunk_key(&self, chunk_indices: &[u64]) -> Result<String, Error> {
        let state = self.state();
        state.check_chunk_indices(chunk_indices)?;
        Ok(self.key_of(&state, chunk_indices))
    }

    /// Decode a chunk's stored bytes into `out` (at least `chunk_nbytes`; the first
    /// `chunk_nbytes` bytes are written, partly when the data is corrupt).
    pub fn decode_chunk(&self, encoded: &[u8], out: &mut [u8]) -> Result<(), Error> {
        let state = self.state();
        let chain = state.chain()?;
        if state.grid().regular_chunk_shape().is_none() {
            return Err(Error::Unsupported(
                "the chunks of a rectilinear grid differ in shape, so stored bytes alone do \
                 not say which to decode into: read the chunk with zarr_array_read_chunk"
                    .into(),
            ));
        }
        let needed = state.chunk_nbytes;
        if out.len() < needed {
            return Err(Error::BufferTooSmall {
                needed,
                given: out.len(),
            });
        }
        chain.decode_into(encoded, &mut out[..needed])?;
        Ok(())
    }

    /// Whether every bound of the selection is a multiple of the chunk shape or the
    /// array's edge (writing it then replaces whole chunks only).
    pub fn is_chunk_aligned(&self, start: &[u64], count: &[u64]) -> Result<bool, Error> {
        let state = self.state();
        let shape = &state.metadata.shape;
        Selection::new(start, count, shape)?;
        let grid = state.grid();
        Ok((0..shape.len()).all(|d| {
            count[d] == 0
                || (grid.is_boundary(d, start[d], shape[d])
                    && grid.is_boundary(d, start[d] + count[d], shape[d]))
        }))
    }

    /// Read one whole chunk (its full shape, including any part past the array's edge)
    /// into `out`, which must hold at least that chunk's bytes (`chunk_nbytes` always
    /// does). A corrupt chunk may leave part of them written, never any byte past them.
    pub fn read_chunk(&self, chunk_indices: &[u64], out: &mut [u8]) -> Result<(), Error> {
        let state = self.state();
        state.check_chunk_indices(chunk_indices)?;
        let (origin, chunk_shape) = state.grid().chunk_region(chunk_indices);
        self.read_block(&state, &origin, &chunk_shape, out)
    }

    /// Read the block of `shape` at `origin` (inside the chunk grid) into `out` as a
    /// dense C-order buffer of exactly that block.
    fn read_block(
        &self,
        state: &ArrayState,
        origin: &[u64],
        shape: &[u64],
        out: &mut [u8],
    ) -> Result<(), Error> {
        let element_size = state.element_size()?;
        let layout = Layout::c_order(shape, element_size).map_err(invalid_layout)?;
        let needed = layout.span().map_err(invalid_layout)?;
        if out.len() < needed {
            return Err(Error::BufferTooSmall {
                needed,
                given: out.len(),
            });
        }
        let mut out = OutBuffer::new(&mut out[..needed], layout).map_err(invalid_layout)?;
        planner::read(&self.chunk_io(state)?, origin, &mut out)
    }

    /// Read one whole inner chunk (see [`Array::inner_chunk_shape`]), identified by its
    /// coordinates in the array-wide inner chunk grid, into `out`. For a sharded array only
    /// the shard's index and that inner chunk's bytes are read from the store.
    pub fn read_inner_chunk(&self, inner_indices: &[u64], out: &mut [u8]) -> Result<(), Error> {
        let state = self.state();
        let shape = &state.metadata.shape;
        let inner_shape = match state.chain()?.inner_chunk_shape() {
            Some(inner) => inner.to_vec(),
            None => return self.read_chunk(inner_indices, out),
        };
        if inner_indices.len() != shape.len() {
            return Err(Error::InvalidArgument(format!(
                "inner chunk indices have rank {} but the array has {} dimensions",
                inner_indices.len(),
                shape.len()
            )));
        }
        for d in 0..shape.len() {
            let grid_extent = shape[d].div_ceil(inner_shape[d]);
            if inner_indices[d] >= grid_extent {
                return Err(Error::OutOfBounds(format!(
                    "inner chunk index {} is outside the grid's {grid_extent} inner chunks along dimension {d}",
                    inner_indices[d]
                )));
            }
        }
        let origin: Vec<u64> = inner_indices
            .iter()
            .zip(&inner_shape)
            .map(|(i, s)| i * s)
            .collect();
        self.read_block(&state, &origin, &inner_shape, out)
    }

    /// Write one whole chunk from `data` (exactly that chunk's bytes: `chunk_nbytes` for a
    /// regular grid).
    pub fn write_chunk(&self, chunk_indices: &[u64], data: &[u8]) -> Result<(), Error> {
        let state = self.state();
        state.check_chunk_indices(chunk_indices)?;
        let element_size = state.element_size()?;
        let (origin, chunk_shape) = state.grid().chunk_region(chunk_indices);
        let layout = Layout::c_order(&chunk_shape, element_size).map_err(invalid_layout)?;
        let expected = layout.span().map_err(invalid_layout)?;
        if data.len() != expected {
            return Err(Error::BufferSizeMismatch {
                expected,
                given: data.len(),
            });
        }
        let input = InBlock::whole(data, &layout).map_err(invalid_layout)?;
        planner::write(&self.chunk_io(&state)?, &origin, &input)
    }

    /// What the planner needs to read and write chunks of fixed-size elements.
    fn chunk_io<'a>(&'a self, state: &'a ArrayState) -> Result<ChunkIo<'a>, Error> {
        Ok(ChunkIo {
            storage: self.storage.as_ref(),
            lock_scope: &self.lock_scope,
            chains: state.chains()?,
            grid: state.grid(),
            fill_value: &state.metadata.fill_value,
            key_prefix: &self.key_prefix,
            key_encoding: state.metadata.chunk_key_encoding,
        })
    }

    /// The store key of the chunk at grid coordinates `chunk`.
    fn key_of(&self, state: &ArrayState, chunk: &[u64]) -> String {
        format!(
            "{}{}",
            self.key_prefix,
            state.metadata.chunk_key_encoding.key(chunk)
        )
    }
}

impl ArrayState {
    fn new(
        path: &NodePath,
        metadata: ArrayMetadata,
        stored_as: StoredAs,
    ) -> Result<ArrayState, Error> {
        let key = path.key(METADATA_KEY);
        if checked_product(&metadata.shape).is_none() {
            return Err(Error::metadata(
                &key,
                MetadataError::Invalid(format!(
                    "shape {:?} has more than 2^64 elements",
                    metadata.shape
                )),
            ));
        }
        let representation = ChunkRepresentation {
            shape: metadata.chunk_grid.largest_chunk_shape(&metadata.shape),
            data_type: metadata.data_type.clone(),
            fill_value: metadata.fill_value.clone(),
        };
        let chunk_nbytes = representation.size_bytes().ok_or_else(|| {
            Error::metadata(
                &key,
                MetadataError::Invalid(format!(
                    "chunk shape {:?} is too large to hold in memory",
                    representation.shape
                )),
            )
        })?;
        let codecs = if metadata.data_type.is_variable_length() {
            let codecs = VlenCodecs::from_metadata(
                &metadata.codecs,
                &metadata.data_type,
                &representation.shape,
            )?;
            if let (None, Some(inner)) = (
                metadata.chunk_grid.regular_chunk_shape(),
                codecs.inner_chunk_shape(),
            ) {
                chains::check_shards_tile(&metadata.chunk_grid, &metadata.shape, inner)?;
            }
            Codecs::Variable(Arc::new(codecs))
        } else {
            Codecs::Fixed(Arc::new(Chains::new(
                &metadata.codecs,
                &metadata.data_type,
                &metadata.fill_value,
                &metadata.chunk_grid,
                &metadata.shape,
            )?))
        };
        Ok(ArrayState {
            metadata,
            stored_as,
            codecs,
            chunk_nbytes,
        })
    }

    /// The codec chain of fixed-size elements; for variable-length ones an `Unsupported`
    /// error pointing to the element-wise functions.
    fn chain(&self) -> Result<&CodecChain, Error> {
        Ok(self.chains()?.base())
    }

    /// The codec chains of fixed-size elements (one per chunk shape); for variable-length
    /// ones the `Unsupported` error of [`ArrayState::chain`].
    fn chains(&self) -> Result<&Chains, Error> {
        match &self.codecs {
            Codecs::Fixed(chains) => Ok(chains),
            Codecs::Variable(_) => Err(Error::Unsupported(format!(
                "the array holds variable-length elements ({}): read and write them with \
                 zarr_array_read_vlen and zarr_array_write_vlen",
                self.metadata.data_type.name()
            ))),
        }
    }

    /// The size in bytes of one element as the fixed-size read and write functions lay it
    /// out; for variable-length elements the `Unsupported` error of [`ArrayState::chain`].
    fn element_size(&self) -> Result<usize, Error> {
        self.chain()?;
        Ok(self.metadata.data_type.size())
    }

    /// The codecs of variable-length elements; for fixed-size ones an `Unsupported` error.
    fn vlen_codecs(&self) -> Result<&VlenCodecs, Error> {
        match &self.codecs {
            Codecs::Variable(chain) => Ok(chain),
            Codecs::Fixed(_) => Err(Error::Unsupported(format!(
                "the array holds fixed-size elements ({}), not variable-length ones: read and \
                 write them with zarr_array_read and zarr_array_write",
                self.metadata.data_type.name()
            ))),
        }
    }

    fn grid(&self) -> &ChunkGrid {
        &self.metadata.chunk_grid
    }

    fn check_chunk_indices(&self, chunk_indices: &[u64]) -> Result<(), Error> {
        let grid = self.grid().grid_shape(&self.metadata.shape);
        if chunk_indices.len() != grid.len() {
            return Err(Error::InvalidArgument(format!(
                "chunk indices have rank {} but the array has {} dimensions",
                chunk_indices.len(),
                grid.len()
            )));
        }
        if let Some(d) = (0..grid.len()).find(|&d| chunk_indices[d] >= grid[d]) {
            return Err(Error::OutOfBounds(format!(
                "chunk index {} is outside the grid's {} chunks along dimension {d}",
                chunk_indices[d], grid[d]
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod rectilinear_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::CodecError;
    use crate::storage::MemoryStore;
    use serde_json::json;

    pub(super) fn store() -> Arc<dyn Storage> {
        Arc::new(MemoryStore::new())
    }

    pub(super) fn metadata(
        shape: &[u64],
        chunks: &[u64],
        dtype: &str,
        fill: Value,
        codecs: Value,
    ) -> String {
        json!({
            "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": codecs,
        })
        .to_string()
    }

    pub(super) fn le() -> Value {
        json!([{"name": "bytes", "configuration": {"endian": "little"}}])
    }

    #[test]
    fn region_round_trip_with_edge_chunks() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/g/a",
            &metadata(&[5, 7], &[2, 3], "int32", json!(-1), le()),
        )
        .unwrap();
        let data: Vec<u8> = (0..35i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[5, 7], &data).unwrap();
        let mut back = vec![0u8; data.len()];
        a.read_region(&[0, 0], &[5, 7], &mut back).unwrap();
        assert_eq!(back, data);
        // A sub-region.
        let mut sub = vec![0u8; 2 * 3 * 4];
        a.read_region(&[2, 3], &[2, 3], &mut sub).unwrap();
        let got: Vec<i32> = sub
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![17, 18, 19, 24, 25, 26]);
        // The parent group was created.
        assert!(s.get("g/zarr.json").unwrap().is_some());
        // Reopen and read again.
        let b = Array::open(s, "/g/a").unwrap();
        let mut again = vec![0u8; data.len()];
        b.read_region(&[0, 0], &[5, 7], &mut again).unwrap();
        assert_eq!(again, data);
    }

    #[test]
    fn rows_of_chunks_read_as_row_groups() {
        // 64 x 12 int32 in 2 x 3 chunks: 12-byte rows, so each row of four chunks is read as
        // one row group (planner::read_row_group; 128 chunks, enough units for the pool of
        // a 64-core machine); chunk (1, 2) is not stored.
        let s = store();
        let a = Array::create(
            s.clone(),
            "/a",
            &metadata(&[64, 12], &[2, 3], "int32", json!(-1), le()),
        )
        .unwrap();
        let values: Vec<i32> = (0..768).collect();
        let bytes = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        a.write_region(&[0, 0], &[64, 12], &bytes(&values)).unwrap();
        s.erase("a/c/1/2").unwrap();
        let mut expected = values.clone();
        for row in 2..4 {
            for column in 6..9 {
                expected[row * 12 + column] = -1;
            }
        }
        let mut back = vec![0u8; 768 * 4];
        a.read_region(&[0, 0], &[64, 12], &mut back).unwrap();
        assert_eq!(back, bytes(&expected));
        // A region that cuts chunks: the partial cells at its edges differ in extent.
        let mut sub = vec![0u8; 60 * 10 * 4];
        a.read_region(&[1, 1], &[60, 10], &mut sub).unwrap();
        let want: Vec<i32> = (1..61)
            .flat_map(|r| (1..11).map(move |c| (r, c)))
            .map(|(r, c)| expected[r * 12 + c])
            .collect();
        assert_eq!(sub, bytes(&want));
        // Fortran order: rows are not runs in the buffer.
        let mut fortran = vec![0u8; 768 * 4];
        a.read_region_strided(&[0, 0], &[64, 12], Some(&[4, 256]), &mut fortran)
            .unwrap();
        let want: Vec<i32> = (0..12)
            .flat_map(|c| (0..64).map(move |r| (r, c)))
            .map(|(r, c)| expected[r * 12 + c])
            .collect();
        assert_eq!(fortran, bytes(&want));
        // A damaged chunk inside a group fails the read and is named.
        s.set("a/c/2/1", &[1, 2, 3]).unwrap();
        let err = a.read_region(&[0, 0], &[64, 12], &mut back).unwrap_err();
        assert!(matches!(err, Error::Codec(_)), "{err}");
        assert!(err.to_string().contains("a/c/2/1"), "{err}");
    }

    #[test]
    fn missing_chunks_read_as_fill_and_fill_chunks_are_not_stored() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/a",
            &metadata(&[4], &[2], "float32", json!("NaN"), le()),
        )
        .unwrap();
        let mut out = vec![0u8; 16];
        a.read_region(&[0], &[4], &mut out).unwrap();
        assert!(out
            .chunks(4)
            .all(|c| f32::from_ne_bytes(c.try_into().unwrap()).is_nan()));
        let ones: Vec<u8> = [1.0f32; 2].iter().flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[2], &[2], &ones).unwrap();
        assert!(s.get("a/c/1").unwrap().is_some());
        assert!(s.get("a/c/0").unwrap().is_none());
        let nans: Vec<u8> = [f32::NAN; 2].iter().flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[2], &[2], &nans).unwrap();
        assert!(
            s.get("a/c/1").unwrap().is_none(),
            "an all-fill chunk is erased"
        );
    }

    #[test]
    fn zero_dimensional_and_empty_arrays() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/scalar",
            &metadata(&[], &[], "float64", json!(0.0), le()),
        )
        .unwrap();
        a.write_region(&[], &[], &2.5f64.to_ne_bytes()).unwrap();
        assert!(s.get("scalar/c").unwrap().is_some());
        let mut out = [0u8; 8];
        a.read_region(&[], &[], &mut out).unwrap();
        assert_eq!(f64::from_ne_bytes(out), 2.5);
        let e = Array::create(
            s,
            "/empty",
            &metadata(&[0, 3], &[2, 2], "uint8", json!(0), le()),
        )
        .unwrap();
        e.write_region(&[0, 0], &[0, 3], &[]).unwrap();
        e.read_region(&[0, 0], &[0, 3], &mut []).unwrap();
    }

    #[test]
    fn errors_leave_failed_slabs_untouched() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/a",
            &metadata(&[4], &[2], "uint8", json!(0), le()),
        )
        .unwrap();
        a.write_region(&[0], &[4], &[1, 2, 3, 4]).unwrap();
        s.set("a/c/1", &[9, 9, 9]).unwrap(); // truncated chunk
        let mut out = [7u8; 5];
        let err = a.read_region(&[0], &[4], &mut out).unwrap_err();
        assert!(matches!(err, Error::Codec(_)), "{err}");
        assert!(err.to_string().contains("a/c/1"), "{err}");
        // The slab of the damaged chunk and the bytes past the selection are untouched;
        // the intact chunk's slab may hold its data.
        assert_eq!(out[2..], [7; 3]);
        assert!(out[..2] == [7, 7] || out[..2] == [1, 2], "{out:?}");
        let mut out = [7u8; 4];
        assert!(matches!(
            a.read_region(&[0], &[5], &mut out),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            a.read_region(&[0], &[4], &mut out[..3]),
            Err(Error::BufferTooSmall { .. })
        ));
        assert!(matches!(
            a.write_region(&[0], &[4], &out[..3]),
            Err(Error::BufferSizeMismatch { .. })
        ));
        assert!(matches!(
            a.read_chunk(&[2], &mut out),
            Err(Error::OutOfBounds(_))
        ));
    }

    #[test]
    fn create_and_open_errors() {
        let s = store();
        let m = metadata(&[4], &[2], "uint8", json!(0), le());
        Array::create(s.clone(), "/a", &m).unwrap();
        assert!(matches!(
            Array::create(s.clone(), "/a", &m),
            Err(Error::AlreadyExists(_))
        ));
        assert!(matches!(
            Array::create(s.clone(), "/a/b", &m),
            Err(Error::NodeTypeMismatch { .. })
        ));
        assert!(matches!(
            Array::open(s.clone(), "/nope"),
            Err(Error::NotFound(_))
        ));
        assert!(matches!(
            Array::open(s.clone(), "/../x"),
            Err(Error::NodePath(_))
        ));
        assert!(matches!(
            Array::create(s.clone(), "/b", "{"),
            Err(Error::Metadata { .. })
        ));
        let huge = metadata(&[u64::MAX, u64::MAX], &[1, 1], "uint8", json!(0), le());
        assert!(matches!(
            Array::create(s.clone(), "/h", &huge),
            Err(Error::Metadata { .. })
        ));
        let unknown = metadata(
            &[4],
            &[2],
            "uint8",
            json!(0),
            json!([{"name": "bytes"}, {"name": "lzw"}]),
        );
        assert!(matches!(
            Array::create(s, "/u", &unknown),
            Err(Error::Codec(crate::codec::CodecError::Unsupported(_)))
        ));
    }

    fn sharded(location: &str) -> Value {
        json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 3],
            "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_location": location,
        }}])
    }

    #[test]
    fn covered_shards_are_encoded_in_place_and_all_fill_shards_are_not_stored() {
        for location in ["start", "end"] {
            let s = store();
            let a = Array::create(
                s.clone(),
                "/s",
                &metadata(&[8, 12], &[4, 6], "int32", json!(0), sharded(location)),
            )
            .unwrap();
            // Rows 4.. of a selection starting at row 2: the shards of rows 4..8 are covered
            // and lie at a non-zero offset of the source. Shard (1, 1) is all zeros (fill),
            // and half of shard (1, 0)'s inner chunks are.
            let value = |r: u64, c: u64| -> i32 {
                if r >= 4 && (c >= 6 || r >= 6) {
                    0
                } else {
                    (r * 12 + c + 1) as i32
                }
            };
            let data: Vec<u8> = (2..8u64)
                .flat_map(|r| (0..12u64).flat_map(move |c| value(r, c).to_ne_bytes()))
                .collect();
            a.write_region(&[2, 0], &[6, 12], &data).unwrap();
            assert_eq!(s.get("s/c/1/1").unwrap(), None, "{location}");
            // The stored shard is exactly what encoding the gathered shard gives.
            let shard: Vec<u8> = (4..8u64)
                .flat_map(|r| (0..6u64).flat_map(move |c| value(r, c).to_ne_bytes()))
                .collect();
            let expected = a.state().chain().unwrap().encode(shard.clone()).unwrap();
            assert_eq!(
                s.get("s/c/1/0").unwrap(),
                Some(expected.clone()),
                "{location}"
            );
            // The same shard from the shard alone (write_chunk, inner chunks in parallel).
            s.erase("s/c/1/0").unwrap();
            a.write_chunk(&[1, 0], &shard).unwrap();
            assert_eq!(s.get("s/c/1/0").unwrap(), Some(expected), "{location}");
            let mut back = vec![0u8; data.len()];
            a.read_region(&[2, 0], &[6, 12], &mut back).unwrap();
            assert_eq!(back, data, "{location}");
        }
    }

    #[test]
    fn sharded_reads_whole_and_partial() {
        for location in ["start", "end"] {
            let s = store();
            let a = Array::create(
                s.clone(),
                "/s",
                &metadata(&[7, 10], &[4, 6], "int32", json!(0), sharded(location)),
            )
            .unwrap();
            // Values 1.. so that only untouched inner chunks are fill value.
            let data: Vec<u8> = (1..=70i32).flat_map(|v| v.to_ne_bytes()).collect();
            a.write_region(&[0, 0], &[7, 10], &data).unwrap();
            let mut back = vec![0u8; data.len()];
            a.read_region(&[0, 0], &[7, 10], &mut back).unwrap();
            assert_eq!(back, data, "{location}");
            // One element, and a block crossing shard boundaries (partial shard reads).
            let mut one = [0u8; 4];
            a.read_region(&[5, 7], &[1, 1], &mut one).unwrap();
            assert_eq!(i32::from_ne_bytes(one), 5 * 10 + 7 + 1);
            let mut block = vec![0u8; 3 * 4 * 4];
            a.read_region(&[3, 5], &[3, 4], &mut block).unwrap();
            let got: Vec<i32> = block
                .chunks(4)
                .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
                .collect();
            let want: Vec<i32> = (3..6)
                .flat_map(|r| (5..9).map(move |c| r * 10 + c + 1))
                .collect();
            assert_eq!(got, want);
            // Overwrite part of a shard with zeros: the shard keeps its other inner chunks.
            a.write_region(&[0, 0], &[2, 3], &[0u8; 24]).unwrap();
            let mut first = [0u8; 4];
            a.read_region(&[0, 3], &[1, 1], &mut first).unwrap();
            assert_eq!(i32::from_ne_bytes(first), 4);
        }
    }

    #[test]
    fn sharded_corruption_is_reported() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/s",
            &metadata(&[4, 6], &[4, 6], "int32", json!(0), sharded("end")),
        )
        .unwrap();
        let data: Vec<u8> = (1..=24i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[4, 6], &data).unwrap();
        let mut shard = s.get("s/c/0/0").unwrap().unwrap();
        let n = shard.len();
        shard[n - 64..n - 56].copy_from_slice(&1_000_000u64.to_le_bytes());
        s.set("s/c/0/0", &shard).unwrap();
        // The index entry points past the shard's end: found when the index is read,
        // whatever part of the shard is wanted.
        let mut out = vec![0u8; 4];
        let err = a.read_region(&[0, 0], &[1, 1], &mut out).unwrap_err();
        assert!(
            matches!(err, Error::Codec(CodecError::Corrupt { .. })),
            "{err}"
        );
        assert!(err.to_string().contains("s/c/0/0"), "{err}");
        let mut all = vec![0u8; data.len()];
        let err = a.read_region(&[0, 0], &[4, 6], &mut all).unwrap_err();
        assert!(
            matches!(err, Error::Codec(CodecError::Corrupt { .. })),
            "{err}"
        );
        s.set("s/c/0/0", &[1, 2, 3]).unwrap();
        assert!(a.read_region(&[0, 0], &[1, 1], &mut out).is_err());
    }

    #[test]
    fn inner_chunks() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/s",
            &metadata(&[7, 10], &[4, 6], "int32", json!(-1), sharded("end")),
        )
        .unwrap();
        assert_eq!(a.inner_chunk_shape(), vec![2, 3]);
        let data: Vec<u8> = (0..70i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[7, 10], &data).unwrap();
        // Inner chunk (3, 3) covers rows 6..8 and columns 9..12: only (6, 9) is inside.
        let mut out = vec![0u8; 6 * 4];
        a.read_inner_chunk(&[3, 3], &mut out).unwrap();
        let got: Vec<i32> = out
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got[0], 69);
        assert!(matches!(
            a.read_inner_chunk(&[4, 0], &mut out),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            a.read_inner_chunk(&[0, 0], &mut out[..4]),
            Err(Error::BufferTooSmall { .. })
        ));
        // A plain array's inner chunk is its chunk.
        let p = Array::create(s, "/p", &metadata(&[4], &[2], "uint8", json!(0), le())).unwrap();
        assert_eq!(p.inner_chunk_shape(), vec![2]);
        p.write_region(&[0], &[4], &[1, 2, 3, 4]).unwrap();
        let mut two = [0u8; 2];
        p.read_inner_chunk(&[1], &mut two).unwrap();
        assert_eq!(two, [3, 4]);
    }

    /// A memory store that counts the bytes it hands out, and the reads.
    #[derive(Debug, Default)]
    struct CountingStore {
        inner: MemoryStore,
        bytes_read: std::sync::atomic::AtomicU64,
        reads: std::sync::atomic::AtomicU64,
    }

    impl crate::storage::ReadableStorage for CountingStore {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, crate::storage::StorageError> {
            let value = self.inner.get(key)?;
            let n = value.as_ref().map_or(0, |v| v.len() as u64);
            self.bytes_read
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            Ok(value)
        }

        fn get_range(
            &self,
            key: &str,
            range: crate::storage::ByteRange,
        ) -> Result<Option<Vec<u8>>, crate::storage::StorageError> {
            let value = self.inner.get_range(key, range)?;
            let n = value.as_ref().map_or(0, |v| v.len() as u64);
            self.bytes_read
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            Ok(value)
        }

        /// Counts only the bytes of the ranges, as a store reading in place would.
        fn read_ranges(
            &self,
            key: &str,
            ranges: &[crate::storage::ByteRange],
        ) -> Result<Option<crate::storage::RangesRead>, crate::storage::StorageError> {
            let Some(value) = self.inner.get(key)? else {
                return Ok(None);
            };
            let (size, bytes) = crate::storage::ranges_of(key, &value, ranges)?;
            let size = Some(size);
            self.bytes_read
                .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
            self.reads
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(Some((size, bytes)))
        }
    }

    impl crate::storage::WritableStorage for CountingStore {
        fn set(&self, key: &str, value: &[u8]) -> Result<(), crate::storage::StorageError> {
            self.inner.set(key, value)
        }
        fn erase(&self, key: &str) -> Result<(), crate::storage::StorageError> {
            self.inner.erase(key)
        }
    }

    impl crate::storage::ListableStorage for CountingStore {
        fn list_dir(
            &self,
            prefix: &str,
        ) -> Result<crate::storage::DirListing, crate::storage::StorageError> {
            self.inner.list_dir(prefix)
        }
    }

    #[test]
    fn few_elements_of_uncompressed_chunks_read_only_their_bytes() {
        use std::sync::atomic::Ordering;
        let counting = Arc::new(CountingStore::default());
        let s: Arc<dyn Storage> = counting.clone();
        let a = Array::create(
            s.clone(),
            "/u",
            &metadata(&[16, 16], &[8, 8], "int32", json!(0), le()),
        )
        .unwrap();
        let data: Vec<u8> = (1..=256i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[16, 16], &data).unwrap();
        counting.bytes_read.store(0, Ordering::Relaxed);
        let mut block = [0u8; 24];
        a.read_region(&[9, 10], &[2, 3], &mut block).unwrap();
        let got: Vec<i32> = block
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![155, 156, 157, 171, 172, 173]);
        assert_eq!(counting.bytes_read.load(Ordering::Relaxed), 24);
        // A chunk of the wrong size is corrupt even when only part of it is read.
        let mut chunk = s.get("u/c/1/1").unwrap().unwrap();
        chunk.push(0);
        s.set("u/c/1/1", &chunk).unwrap();
        let err = a.read_region(&[9, 10], &[2, 3], &mut block).unwrap_err();
        assert!(
            matches!(err, Error::Codec(CodecError::Corrupt { .. })),
            "{err}"
        );
        assert!(err.to_string().contains("u/c/1/1"), "{err}");
        chunk.truncate(100);
        s.set("u/c/1/1", &chunk).unwrap();
        assert!(a.read_region(&[9, 10], &[2, 3], &mut block).is_err());
    }

    #[test]
    fn few_elements_of_uncompressed_shards_read_only_their_bytes() {
        use std::sync::atomic::Ordering;
        let counting = Arc::new(CountingStore::default());
        let s: Arc<dyn Storage> = counting.clone();
        let codecs = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [8, 8],
            "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        }}]);
        let a = Array::create(
            s,
            "/s",
            &metadata(&[16, 16], &[16, 16], "int32", json!(0), codecs),
        )
        .unwrap();
        let data: Vec<u8> = (1..=256i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[16, 16], &data).unwrap();

        counting.bytes_read.store(0, Ordering::Relaxed);
        let mut one = [0u8; 4];
        a.read_region(&[9, 10], &[1, 1], &mut one).unwrap();
        assert_eq!(i32::from_ne_bytes(one), 9 * 16 + 10 + 1);
        // The index (2 x 2 inner chunks x 16 bytes + crc32c) and the element's 4 bytes.
        assert_eq!(counting.bytes_read.load(Ordering::Relaxed), 64 + 4 + 4);

        // A 2 x 3 block: two runs of 12 bytes.
        counting.bytes_read.store(0, Ordering::Relaxed);
        let mut block = [0u8; 24];
        a.read_region(&[1, 2], &[2, 3], &mut block).unwrap();
        let got: Vec<i32> = block
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![19, 20, 21, 35, 36, 37]);
        assert_eq!(counting.bytes_read.load(Ordering::Relaxed), 68 + 24);

        // A region needing most of an inner chunk reads it whole.
        counting.bytes_read.store(0, Ordering::Relaxed);
        let mut most = vec![0u8; 7 * 7 * 4];
        a.read_region(&[0, 0], &[7, 7], &mut most).unwrap();
        assert_eq!(counting.bytes_read.load(Ordering::Relaxed), 68 + 8 * 8 * 4);
    }

    #[test]
    fn whole_shard_reads_fetch_the_index_once() {
        // One shard of 8 x 8 inner chunks of 2 x 2: a whole read reads the index once and
        // every inner chunk once (before, each row of inner chunks re-read the index).
        use std::sync::atomic::Ordering;
        let counting = Arc::new(CountingStore::default());
        let s: Arc<dyn Storage> = counting.clone();
        let codecs = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 2],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        }}]);
        let a = Array::create(
            s,
            "/s",
            &metadata(&[16, 16], &[16, 16], "int32", json!(0), codecs),
        )
        .unwrap();
        let data: Vec<u8> = (1..=256i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[16, 16], &data).unwrap();
        let shard_len = crate::storage::ReadableStorage::get(&counting.inner, "s/c/0/0")
            .unwrap()
            .unwrap()
            .len() as u64;
        assert_eq!(shard_len, 256 * 4 + 64 * 16);
        counting.bytes_read.store(0, Ordering::Relaxed);
        counting.reads.store(0, Ordering::Relaxed);
        let mut back = vec![0u8; data.len()];
        a.read_region(&[0, 0], &[16, 16], &mut back).unwrap();
        assert_eq!(back, data);
        assert_eq!(counting.bytes_read.load(Ordering::Relaxed), shard_len);
        // The index, then the inner chunks, contiguous, in one range.
        assert_eq!(counting.reads.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn extents_up_to_the_end_of_u64() {
        // Chunks of the last elements of an extent of 2^64 - 1 reach past 2^64.
        for codecs in [le(), sharded_1d()] {
            let s = store();
            let a = Array::create(
                s,
                "/big",
                &metadata(&[u64::MAX], &[8], "uint8", json!(0), codecs.clone()),
            )
            .unwrap();
            a.write_region(&[u64::MAX - 3], &[3], &[1, 2, 3]).unwrap();
            let mut three = [0u8; 3];
            a.read_region(&[u64::MAX - 3], &[3], &mut three).unwrap();
            assert_eq!(three, [1, 2, 3], "{codecs}");
            a.write_region(&[u64::MAX - 1], &[1], &[9]).unwrap();
            let mut last = [0u8; 2];
            a.read_region(&[u64::MAX - 2], &[2], &mut last).unwrap();
            assert_eq!(last, [2, 9], "{codecs}");
            let mut chunk = [0u8; 8];
            a.read_chunk(&[u64::MAX / 8], &mut chunk).unwrap();
            assert_eq!(chunk[4..], [1, 2, 9, 0], "{codecs}");
        }
    }

    fn sharded_1d() -> Value {
        json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4],
            "codecs": [{"name": "bytes"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        }}])
    }
}
