//! Arrays: open and create, region and chunk reads and writes.
//!
//! Element buffers are dense, C order, host byte order. A region touching several chunks is
//! assembled chunk by chunk; partially covered chunks are read, merged and rewritten. A
//! chunk equal to the fill value everywhere is not stored (an existing one is erased), as
//! zarr-python does by default.

mod prefault;
mod sharded;
pub mod subset;

use crate::chunk_grid::RegularChunkGrid;
use crate::codec::chain::CodecChain;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue};
use crate::error::Error;
use crate::metadata::json::parse_lenient;
use crate::metadata::v2::{self, ArrayMetadataV2};
use crate::metadata::v3::{ArrayMetadata, NodeType};
use crate::metadata::{v3_draft, MetadataError};
use crate::node::{
    ensure_parent_groups, find_node, missing_node_error, write_json, write_node_document,
    FoundNode, NodePath, ZarrFormat, METADATA_KEY,
};
use crate::storage::Storage;
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};
use subset::{checked_product, copy_block, extract_block, for_each_index, BlockView, Selection};

/// A Zarr array in a store.
#[derive(Debug)]
pub struct Array {
    storage: Arc<dyn Storage>,
    path: NodePath,
    /// Everything but the attributes is fixed after opening; attributes may be replaced,
    /// hence the lock.
    metadata: RwLock<ArrayMetadata>,
    chain: CodecChain,
    /// Decoded size of one chunk in bytes.
    chunk_nbytes: usize,
    /// Key prefix of the array's chunks (`""` for a root array, `a/b/` otherwise;
    /// `data/root/a/b/` in the 2022 draft layout).
    key_prefix: String,
    /// The layout the array is stored in, with what rewriting its metadata needs.
    stored_as: StoredAs,
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

impl Array {
    /// Open the array at `path`, stored as Zarr v3, v2 or the 2022 draft of v3.
    pub fn open(storage: Arc<dyn Storage>, path: &str) -> Result<Array, Error> {
        let path = NodePath::new(path)?;
        match find_node(storage.as_ref(), &path)? {
            None => Err(missing_node_error(&path)),
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
                let v2 = ArrayMetadataV2::parse(&document).map_err(invalid)?;
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
            let canonical = array.chain.to_metadata();
            array
                .metadata
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .codecs = canonical;
        }
        ensure_parent_groups(array.storage.as_ref(), &array.path, format)?;
        array.store_metadata()?;
        Ok(array)
    }

    fn from_metadata(
        storage: Arc<dyn Storage>,
        path: NodePath,
        metadata: ArrayMetadata,
        stored_as: StoredAs,
    ) -> Result<Array, Error> {
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
            shape: metadata.chunk_grid.chunk_shape().to_vec(),
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
        let chain = CodecChain::from_metadata(&metadata.codecs, &representation)?;
        let key_prefix = match stored_as {
            StoredAs::V3Draft2022 { .. } => v3_draft::data_prefix(&path),
            _ => path.key_prefix(),
        };
        Ok(Array {
            key_prefix,
            storage,
            path,
            metadata: RwLock::new(metadata),
            chain,
            chunk_nbytes,
            stored_as,
        })
    }

    fn meta(&self) -> std::sync::RwLockReadGuard<'_, ArrayMetadata> {
        // Attribute updates replace a map in one assignment, so a poisoned lock still
        // guards consistent data.
        self.metadata.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Write the array's metadata document(s) in its layout.
    fn store_metadata(&self) -> Result<(), Error> {
        self.write_metadata(&self.meta())
    }

    fn write_metadata(&self, metadata: &ArrayMetadata) -> Result<(), Error> {
        let storage = self.storage.as_ref();
        match &self.stored_as {
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
        match self.stored_as {
            StoredAs::V3 => ZarrFormat::V3,
            StoredAs::V2(_) => ZarrFormat::V2,
            StoredAs::V3Draft2022 { .. } => ZarrFormat::V3Draft2022,
        }
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    pub fn shape(&self) -> Vec<u64> {
        self.meta().shape.clone()
    }

    pub fn ndim(&self) -> usize {
        self.meta().shape.len()
    }

    pub fn chunk_shape(&self) -> Vec<u64> {
        self.chunk_grid().chunk_shape().to_vec()
    }

    fn chunk_grid(&self) -> RegularChunkGrid {
        self.meta().chunk_grid.clone()
    }

    pub fn data_type(&self) -> DataType {
        self.meta().data_type.clone()
    }

    pub fn fill_value(&self) -> FillValue {
        self.meta().fill_value.clone()
    }

    /// Size in bytes of one decoded chunk.
    pub fn chunk_nbytes(&self) -> usize {
        self.chunk_nbytes
    }

    /// The array's metadata document in its own layout: the v3 `zarr.json`, the v2
    /// `.zarray` (attributes are separate), or the draft's `.array.json`.
    pub fn metadata_json(&self) -> Value {
        match &self.stored_as {
            StoredAs::V3 => self.meta().to_json(),
            StoredAs::V2(v2) => v2.to_json(),
            StoredAs::V3Draft2022 { document, .. } => {
                let mut document = document.clone();
                document.insert("attributes".into(), Value::Object(self.attributes()));
                Value::Object(document)
            }
        }
    }

    pub fn attributes(&self) -> Map<String, Value> {
        self.meta().attributes.clone()
    }

    /// Replace the attributes and rewrite the document holding them (atomically):
    /// `zarr.json`, v2 `.zattrs` (removed when empty) or the draft's `.array.json`.
    pub fn set_attributes(&self, attributes: Map<String, Value>) -> Result<(), Error> {
        let mut updated = self.meta().clone();
        updated.attributes = attributes;
        self.write_metadata(&updated)?;
        *self.metadata.write().unwrap_or_else(|e| e.into_inner()) = updated;
        Ok(())
    }

    /// Size in bytes of the dense buffer for the selection `start`, `count`.
    pub fn selection_nbytes(&self, start: &[u64], count: &[u64]) -> Result<usize, Error> {
        let selection = Selection::new(start, count, &self.shape())?;
        selection.nbytes(self.data_type().size())
    }

    fn chunk_key(&self, chunk_indices: &[u64]) -> String {
        let encoding = self.meta().chunk_key_encoding;
        format!("{}{}", self.key_prefix, encoding.key(chunk_indices))
    }

    fn check_chunk_indices(&self, chunk_indices: &[u64]) -> Result<(), Error> {
        let meta = self.meta();
        let grid = meta.chunk_grid.grid_shape(&meta.shape);
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

    /// Fetch and decode one chunk; `None` when it is not stored (all fill value).
    fn retrieve_chunk(&self, chunk_indices: &[u64]) -> Result<Option<Vec<u8>>, Error> {
        let key = self.chunk_key(chunk_indices);
        let Some(encoded) = self.storage.get(&key)? else {
            return Ok(None);
        };
        let decoded = self
            .chain
            .decode(encoded)
            .map_err(|e| with_chunk_context(e, &key))?;
        Ok(Some(decoded))
    }

    /// The part of a plain-bytes chunk that `selection` needs, read in byte ranges; `None`
    /// when the chunk is not stored. The stored value must have the chunk's exact size.
    fn read_chunk_part(
        &self,
        chunk_indices: &[u64],
        chunk_shape: &[u64],
        selection: &Selection,
    ) -> Result<Option<UnitData>, Error> {
        let key = self.chunk_key(chunk_indices);
        let unit = sharded::PlainUnit {
            chain: &self.chain,
            shape: chunk_shape,
            key: &key,
            offset: 0,
        };
        match sharded::read_plain_overlap(self, &unit, chunk_indices, selection)? {
            None => Ok(None),
            Some((size, _)) if size != self.chunk_nbytes as u64 => {
                Err(Error::Codec(with_chunk_context(
                    CodecError::corrupt(
                        "bytes",
                        format!(
                            "chunk holds {size} bytes but a chunk of shape {chunk_shape:?} needs {}",
                            self.chunk_nbytes
                        ),
                    ),
                    &key,
                )))
            }
            Some((_, block)) => Ok(Some(UnitData::Overlap(block))),
        }
    }

    /// A decoded chunk, or a chunk of fill value when none is stored.
    fn retrieve_chunk_or_fill(&self, chunk_indices: &[u64]) -> Result<Vec<u8>, Error> {
        match self.retrieve_chunk(chunk_indices)? {
            Some(decoded) => Ok(decoded),
            None => self.fill_chunk(),
        }
    }

    fn fill_chunk(&self) -> Result<Vec<u8>, Error> {
        let mut chunk = zeroed(self.chunk_nbytes)?;
        self.meta().fill_value.fill(&mut chunk);
        Ok(chunk)
    }

    /// Encode and store a whole chunk, or erase it when it is all fill value. A shard's
    /// inner chunks are encoded in parallel when `inner_parallel` (see
    /// [`Array::store_shard_from`]).
    fn store_chunk(
        &self,
        chunk_indices: &[u64],
        decoded: Vec<u8>,
        inner_parallel: bool,
    ) -> Result<(), Error> {
        if self.chain.as_sharding().is_some() {
            return self.store_shard(chunk_indices, &decoded, inner_parallel);
        }
        let key = self.chunk_key(chunk_indices);
        if self.meta().fill_value.equals_all(&decoded) {
            self.storage.erase(&key)?;
        } else {
            let encoded = self.chain.encode(decoded)?;
            self.storage.set(&key, &encoded)?;
        }
        Ok(())
    }

    /// Encode and store the shard at `chunk_indices` from its decoded contents `shard`.
    fn store_shard(
        &self,
        chunk_indices: &[u64],
        shard: &[u8],
        inner_parallel: bool,
    ) -> Result<(), Error> {
        let shape = self.chunk_shape();
        let whole = BlockView {
            shape: &shape,
            offset: &vec![0; shape.len()],
        };
        self.store_shard_from(chunk_indices, shard, whole, inner_parallel)
    }

    /// Encode and store the shard at `chunk_indices` whose contents are the block `view`
    /// of `source`, or erase it when every inner chunk is fill value.
    ///
    /// With `inner_parallel`, its inner chunks are encoded on the worker pool: for writes
    /// of fewer shards than workers, which would otherwise leave workers idle. Writes of
    /// many shards encode each shard on one worker, so that only a few are in flight.
    fn store_shard_from(
        &self,
        chunk_indices: &[u64],
        source: &[u8],
        view: BlockView,
        inner_parallel: bool,
    ) -> Result<(), Error> {
        let sharding = self.chain.as_sharding().expect("called for sharded arrays");
        let key = self.chunk_key(chunk_indices);
        let repr = self.chain.decoded_representation();
        let shard = if inner_parallel {
            crate::threads::pool()?.install(|| sharding.encode_block(source, view, repr, true))?
        } else {
            sharding.encode_block(source, view, repr, false)?
        };
        if shard.all_fill {
            self.storage.erase(&key)?;
        } else {
            self.storage.set(&key, &shard.bytes)?;
        }
        Ok(())
    }

    /// Read the selection `start`, `count` into `out` (dense, C order, host byte order;
    /// at least `selection_nbytes` long).
    ///
    /// The selection is cut along its first dimension at the boundaries of the chunks (inner
    /// chunks when sharded) into slabs, which are contiguous, disjoint parts of `out`, read
    /// in parallel (see [`Array::read_slab`]). So memory in flight stays at a few chunks or
    /// slabs rather than the whole selection. A failure leaves untouched the part of `out`
    /// that belongs to a failing chunk, and every byte past the selection's; other parts
    /// may already hold their data. Argument errors are found before anything is read and
    /// leave `out` untouched.
    pub fn read_region(&self, start: &[u64], count: &[u64], out: &mut [u8]) -> Result<(), Error> {
        let shape = self.shape();
        let selection = Selection::new(start, count, &shape)?;
        let element_size = self.data_type().size();
        let needed = selection.nbytes(element_size)?;
        if out.len() < needed {
            return Err(Error::BufferTooSmall {
                needed,
                given: out.len(),
            });
        }
        if selection.is_empty() {
            return Ok(());
        }
        let out = &mut out[..needed];
        // One chunk (or inner chunk) is read on the calling thread: starting the worker
        // pool would cost more than it saves (this is the latency of small reads).
        let units = checked_product(
            &selection
                .chunk_ranges(&self.inner_chunk_shape())
                .iter()
                .map(|r| r.end - r.start)
                .collect::<Vec<_>>(),
        );
        if units == Some(1) {
            return self.read_slab(&selection, out, SlabMode::Streaming);
        }
        let pool = crate::threads::pool()?;
        let slabs = self.slabs(&selection);
        if slabs.len() <= 1 {
            prefault::populate_for_write(out);
            return pool.install(|| self.read_slab(&selection, out, SlabMode::Parallel));
        }
        // With enough slabs to keep every worker busy, each reads its slab one unit at a
        // time (reusing buffers); with fewer, the units of each slab are spread too.
        let mode = if slabs.len() >= 2 * pool.current_num_threads() {
            SlabMode::Streaming
        } else {
            SlabMode::Parallel
        };
        // Bytes of one step along the first dimension of the selection.
        let row_bytes = needed / selection.count[0] as usize;
        let mut parts = Vec::with_capacity(slabs.len());
        let mut rest = out;
        for slab in &slabs {
            let (part, tail) = rest.split_at_mut(slab.count[0] as usize * row_bytes);
            parts.push((slab, part));
            rest = tail;
        }
        pool.install(|| {
            parts.into_par_iter().try_for_each(|(slab, part)| {
                // Each worker faults in its own slab's pages, in parallel.
                prefault::populate_for_write(part);
                self.read_slab(slab, part, mode)
            })
        })
    }

    /// The selection cut along its first dimension at the boundaries of the pieces that
    /// are decoded on their own: inner chunks of a sharded array, chunks otherwise.
    fn slabs(&self, selection: &Selection) -> Vec<Selection> {
        let Some(&step) = self.inner_chunk_shape().first() else {
            return vec![selection.clone()];
        };
        let (first, end) = (selection.start[0], selection.start[0] + selection.count[0]);
        let mut slabs = Vec::new();
        let mut at = first;
        while at < end {
            let next = ((at / step + 1) * step).min(end);
            let mut slab = selection.clone();
            slab.start[0] = at;
            slab.count[0] = next - at;
            slabs.push(slab);
            at = next;
        }
        slabs
    }

    /// Read one slab (see [`Array::read_region`]) into `out`, exactly its size. Sharded
    /// arrays are read in inner chunks. A plain-bytes chunk of which the slab needs little
    /// is read in byte ranges, not whole. In [`SlabMode::Parallel`] every unit of the slab
    /// is decoded on the worker pool (the caller is inside `pool.install`) before any is
    /// written; in [`SlabMode::Streaming`] one unit at a time is decoded and written on the
    /// calling thread, so that its buffers are reused. Either way, the part of `out` that
    /// belongs to a unit that fails is never written.
    fn read_slab(
        &self,
        selection: &Selection,
        out: &mut [u8],
        mode: SlabMode,
    ) -> Result<(), Error> {
        let parallel = mode == SlabMode::Parallel;
        let fill_value = self.fill_value();
        match self.chain.as_sharding() {
            Some(sharding) => {
                let unit_shape = sharding.inner_chunk_shape();
                let read = sharded::ShardedRead::new(self, sharding, selection, true, parallel)?;
                let units = read.inner_chunks();
                if parallel {
                    let decoded = map_units(&units, true, |global| read.decode(global))?;
                    for (unit, data) in units.iter().zip(decoded) {
                        self.write_unit(out, selection, unit, unit_shape, data, &fill_value);
                    }
                } else {
                    for unit in &units {
                        let data = read.decode(unit)?;
                        self.write_unit(out, selection, unit, unit_shape, data, &fill_value);
                    }
                }
            }
            None => {
                let chunk_shape = self.chunk_shape();
                let chunks = chunk_indices_in(&selection.chunk_ranges(&chunk_shape));
                let plain = self.chain.is_plain_bytes();
                let decode = |chunk_indices: &Vec<u64>| {
                    if plain && sharded::needs_small_part(chunk_indices, &chunk_shape, selection) {
                        self.read_chunk_part(chunk_indices, &chunk_shape, selection)
                    } else {
                        Ok(self.retrieve_chunk(chunk_indices)?.map(UnitData::Whole))
                    }
                };
                if parallel {
                    let decoded = map_units(&chunks, true, decode)?;
                    for (chunk, data) in chunks.iter().zip(decoded) {
                        self.write_unit(out, selection, chunk, &chunk_shape, data, &fill_value);
                    }
                } else {
                    for chunk in &chunks {
                        let data = decode(chunk)?;
                        self.write_unit(out, selection, chunk, &chunk_shape, data, &fill_value);
                    }
                }
            }
        }
        Ok(())
    }

    /// Write one decoded unit (chunk or inner chunk at `unit` of `unit_shape`; `None`: not
    /// stored, so fill value) into its part of `out`, the dense buffer of `selection`.
    fn write_unit(
        &self,
        out: &mut [u8],
        selection: &Selection,
        unit: &[u64],
        unit_shape: &[u64],
        data: Option<UnitData>,
        fill_value: &FillValue,
    ) {
        let element_size = fill_value.as_bytes().len();
        let overlap = ChunkOverlap::new(unit, unit_shape, selection);
        let target = BlockView {
            shape: &selection.count,
            offset: &overlap.in_selection,
        };
        match data {
            Some(UnitData::Whole(unit)) => copy_block(
                &unit,
                BlockView {
                    shape: unit_shape,
                    offset: &overlap.in_chunk,
                },
                out,
                target,
                &overlap.extent,
                element_size,
            ),
            Some(UnitData::Overlap(block)) => copy_block(
                &block,
                BlockView {
                    shape: &overlap.extent,
                    offset: &vec![0; overlap.extent.len()],
                },
                out,
                target,
                &overlap.extent,
                element_size,
            ),
            None => fill_block(
                out,
                &selection.count,
                &overlap.in_selection,
                &overlap.extent,
                fill_value,
            ),
        }
    }

    /// Write `data` (dense, C order, host byte order, exactly `selection_nbytes` long) into
    /// the selection `start`, `count`.
    ///
    /// Everything that can be checked is checked before the first chunk is written: the
    /// selection, the buffer size, and the decoding of existing chunks that are only
    /// partly overwritten. Each chunk is replaced atomically; if the store fails midway,
    /// the chunks already written hold the new data and the rest the old.
    pub fn write_region(&self, start: &[u64], count: &[u64], data: &[u8]) -> Result<(), Error> {
        let shape = self.shape();
        let selection = Selection::new(start, count, &shape)?;
        let element_size = self.data_type().size();
        let expected = selection.nbytes(element_size)?;
        if data.len() != expected {
            return Err(Error::BufferSizeMismatch {
                expected,
                given: data.len(),
            });
        }
        if selection.is_empty() {
            return Ok(());
        }
        let chunk_shape = self.chunk_shape();
        let chunks = chunk_indices_in(&selection.chunk_ranges(&chunk_shape));
        // First pass: the existing contents of partially covered chunks (None for chunks
        // the write covers whole), so that a corrupt chunk fails before anything is written.
        let pool = crate::threads::pool()?;
        let existing: Vec<Option<Vec<u8>>> = pool.install(|| {
            chunks
                .par_iter()
                .map(|chunk_indices| {
                    let overlap = ChunkOverlap::new(chunk_indices, &chunk_shape, &selection);
                    if overlap.extent == chunk_shape {
                        Ok(None)
                    } else {
                        self.retrieve_chunk_or_fill(chunk_indices).map(Some)
                    }
                })
                .collect::<Result<_, Error>>()
        })?;
        // Second pass: merge, encode and store each chunk (in parallel). With fewer shards
        // than workers, each shard's inner chunks are spread over the pool instead.
        let inner_parallel = chunks.len() < pool.current_num_threads();
        pool.install(|| {
            chunks
                .into_par_iter()
                .zip(existing)
                .try_for_each(|(chunk_indices, existing)| {
                    let overlap = ChunkOverlap::new(&chunk_indices, &chunk_shape, &selection);
                    let source = BlockView {
                        shape: &selection.count,
                        offset: &overlap.in_selection,
                    };
                    let chunk = match existing {
                        // A partly covered chunk: merge into its existing contents.
                        Some(mut chunk) => {
                            copy_block(
                                data,
                                source,
                                &mut chunk,
                                BlockView {
                                    shape: &chunk_shape,
                                    offset: &overlap.in_chunk,
                                },
                                &overlap.extent,
                                element_size,
                            );
                            chunk
                        }
                        // A covered shard is encoded inner chunk by inner chunk straight
                        // from `data`, never gathered whole.
                        None if self.chain.as_sharding().is_some() => {
                            return self.store_shard_from(
                                &chunk_indices,
                                data,
                                source,
                                inner_parallel,
                            );
                        }
                        // A covered chunk is gathered straight from `data`.
                        None => {
                            let mut chunk = Vec::new();
                            chunk.try_reserve_exact(self.chunk_nbytes).map_err(|_| {
                                Error::OutOfMemory(format!(
                                    "cannot allocate a chunk of {} bytes",
                                    self.chunk_nbytes
                                ))
                            })?;
                            extract_block(data, source, &chunk_shape, element_size, &mut chunk);
                            chunk
                        }
                    };
                    self.store_chunk(&chunk_indices, chunk, inner_parallel)
                })
        })
    }

    /// Read one whole chunk (the full chunk shape, including any part past the array's
    /// edge) into `out`, which must hold at least `chunk_nbytes` bytes.
    pub fn read_chunk(&self, chunk_indices: &[u64], out: &mut [u8]) -> Result<(), Error> {
        self.check_chunk_indices(chunk_indices)?;
        if out.len() < self.chunk_nbytes {
            return Err(Error::BufferTooSmall {
                needed: self.chunk_nbytes,
                given: out.len(),
            });
        }
        let out = &mut out[..self.chunk_nbytes];
        let key = self.chunk_key(chunk_indices);
        match self.storage.get(&key)? {
            // Decoded straight into `out`: a corrupt chunk may leave part of it written.
            Some(encoded) => self
                .chain
                .decode_into(encoded, out)
                .map_err(|e| with_chunk_context(e, &key))?,
            None => self.meta().fill_value.fill(out),
        }
        Ok(())
    }

    /// The shape of the smallest independently readable piece: the inner chunk shape of a
    /// sharded array, the chunk shape otherwise.
    pub fn inner_chunk_shape(&self) -> Vec<u64> {
        match self.chain.as_sharding() {
            Some(sharding) => sharding.inner_chunk_shape().to_vec(),
            None => self.chunk_shape(),
        }
    }

    /// Read one whole inner chunk (see [`Array::inner_chunk_shape`]), identified by its
    /// coordinates in the array-wide inner chunk grid, into `out`. For a sharded array only
    /// the shard's index and that inner chunk's bytes are read from the store.
    pub fn read_inner_chunk(&self, inner_indices: &[u64], out: &mut [u8]) -> Result<(), Error> {
        let Some(sharding) = self.chain.as_sharding() else {
            return self.read_chunk(inner_indices, out);
        };
        let inner_shape = sharding.inner_chunk_shape();
        let shape = self.shape();
        if inner_indices.len() != shape.len() {
            return Err(Error::InvalidArgument(format!(
                "inner chunk indices have rank {} but the array has {} dimensions",
                inner_indices.len(),
                shape.len()
            )));
        }
        // The part of the inner chunk inside the array (every inner chunk of the grid has
        // at least one element inside).
        let mut start = Vec::with_capacity(shape.len());
        let mut count = Vec::with_capacity(shape.len());
        for d in 0..shape.len() {
            let grid_extent = shape[d].div_ceil(inner_shape[d]);
            if inner_indices[d] >= grid_extent {
                return Err(Error::OutOfBounds(format!(
                    "inner chunk index {} is outside the grid's {grid_extent} inner chunks along dimension {d}",
                    inner_indices[d]
                )));
            }
            let first = inner_indices[d] * inner_shape[d];
            start.push(first);
            count.push(inner_shape[d].min(shape[d] - first));
        }
        let nbytes = sharding
            .inner_chain()
            .decoded_representation()
            .size_bytes()
            .expect("checked when the codec was built");
        if out.len() < nbytes {
            return Err(Error::BufferTooSmall {
                needed: nbytes,
                given: out.len(),
            });
        }
        let selection = Selection::new(&start, &count, &shape)?;
        // One inner chunk: read on the calling thread (no worker pool), decoded straight
        // into `out`.
        let read = sharded::ShardedRead::new(self, sharding, &selection, false, false)?;
        let out = &mut out[..nbytes];
        if !read.decode_into(inner_indices, out)? {
            self.meta().fill_value.fill(out);
        }
        Ok(())
    }

    /// Write one whole chunk from `data` (exactly `chunk_nbytes` bytes).
    pub fn write_chunk(&self, chunk_indices: &[u64], data: &[u8]) -> Result<(), Error> {
        self.check_chunk_indices(chunk_indices)?;
        if data.len() != self.chunk_nbytes {
            return Err(Error::BufferSizeMismatch {
                expected: self.chunk_nbytes,
                given: data.len(),
            });
        }
        if self.chain.as_sharding().is_some() {
            // Encoded straight from `data`, its inner chunks in parallel.
            return self.store_shard(chunk_indices, data, true);
        }
        let mut chunk = zeroed(data.len())?;
        chunk.copy_from_slice(data);
        self.store_chunk(chunk_indices, chunk, false)
    }
}

/// A zero-filled buffer of `len` bytes; an allocation failure is an error, not an abort.
fn zeroed(len: usize) -> Result<Vec<u8>, Error> {
    let mut buffer = Vec::new();
    buffer
        .try_reserve_exact(len)
        .map_err(|_| Error::OutOfMemory(format!("cannot allocate a chunk of {len} bytes")))?;
    buffer.resize(len, 0);
    Ok(buffer)
}

/// Name the chunk in a corruption report, not only the fault.
fn with_chunk_context(error: CodecError, key: &str) -> CodecError {
    match error {
        CodecError::Corrupt { codec, message } => CodecError::Corrupt {
            codec,
            message: format!("{message} (chunk '{key}')"),
        },
        other => other,
    }
}

/// Every chunk index in the hyper-rectangle `ranges`, in C order.
fn chunk_indices_in(ranges: &[std::ops::Range<u64>]) -> Vec<Vec<u64>> {
    let mut chunks = Vec::new();
    for_each_index(ranges, |chunk_indices| {
        chunks.push(chunk_indices.to_vec());
        Ok::<(), Error>(())
    })
    .expect("the visitor never fails");
    chunks
}

/// A decoded chunk or inner chunk, or only the part of it that a selection needs.
enum UnitData {
    /// The whole unit, in C order of the unit's shape.
    Whole(Vec<u8>),
    /// Only the unit's overlap with the selection, in C order of the overlap's extent.
    Overlap(Vec<u8>),
}

/// Where a chunk and a selection overlap: the block's offset inside the chunk, its offset
/// inside the selection buffer, and its extent.
struct ChunkOverlap {
    in_chunk: Vec<u64>,
    in_selection: Vec<u64>,
    extent: Vec<u64>,
}

impl ChunkOverlap {
    fn new(chunk_indices: &[u64], chunk_shape: &[u64], selection: &Selection) -> ChunkOverlap {
        let ndim = chunk_shape.len();
        let mut overlap = ChunkOverlap {
            in_chunk: Vec::with_capacity(ndim),
            in_selection: Vec::with_capacity(ndim),
            extent: Vec::with_capacity(ndim),
        };
        for d in 0..ndim {
            let chunk_start = chunk_indices[d] * chunk_shape[d];
            let chunk_end = chunk_start + chunk_shape[d];
            let sel_start = selection.start[d];
            let sel_end = sel_start + selection.count[d];
            let lo = chunk_start.max(sel_start);
            let hi = chunk_end.min(sel_end);
            overlap.in_chunk.push(lo - chunk_start);
            overlap.in_selection.push(lo - sel_start);
            overlap.extent.push(hi - lo);
        }
        overlap
    }
}

/// How [`Array::read_slab`] reads a slab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlabMode {
    /// Decode every unit of the slab on the worker pool, then write them all.
    Parallel,
    /// Decode and write one unit at a time on the calling thread.
    Streaming,
}

/// `f` applied to every item: on the worker pool when `parallel` (the caller is inside
/// `pool.install`), else in order on the calling thread. Stops at the first error.
pub(super) fn map_units<I: Sync, T: Send>(
    items: &[I],
    parallel: bool,
    f: impl Fn(&I) -> Result<T, Error> + Sync + Send,
) -> Result<Vec<T>, Error> {
    if parallel {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// Fill a block of a C-order buffer of `shape` with the fill value.
fn fill_block(out: &mut [u8], shape: &[u64], offset: &[u64], extent: &[u64], fill: &FillValue) {
    // The block is at most one chunk, which the caller could already allocate.
    let element_size = fill.as_bytes().len();
    let elements = checked_product(extent).unwrap_or(0) as usize;
    let mut block = vec![0u8; elements * element_size];
    fill.fill(&mut block);
    copy_block(
        &block,
        BlockView {
            shape: extent,
            offset: &vec![0; extent.len()],
        },
        out,
        BlockView { shape, offset },
        extent,
        element_size,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStore;
    use serde_json::json;

    fn store() -> Arc<dyn Storage> {
        Arc::new(MemoryStore::new())
    }

    fn metadata(shape: &[u64], chunks: &[u64], dtype: &str, fill: Value, codecs: Value) -> String {
        json!({
            "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": codecs,
        })
        .to_string()
    }

    fn le() -> Value {
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
            let expected = a.chain.encode(shard.clone()).unwrap();
            assert_eq!(
                s.get("s/c/1/0").unwrap(),
                Some(expected.clone()),
                "{location}"
            );
            // Inner chunks encoded in parallel give the same shard, from the same source
            // or from the shard alone (write_chunk).
            s.erase("s/c/1/0").unwrap();
            let view = BlockView {
                shape: &[6, 12],
                offset: &[2, 0],
            };
            a.store_shard_from(&[1, 0], &data, view, true).unwrap();
            assert_eq!(
                s.get("s/c/1/0").unwrap(),
                Some(expected.clone()),
                "{location}"
            );
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
        let mut out = vec![0u8; 4];
        let err = a.read_region(&[0, 0], &[1, 1], &mut out).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Storage(crate::storage::StorageError::RangeOutOfBounds { .. })
            ),
            "{err}"
        );
        // A whole-array read is cut into slabs of inner-chunk rows, so it reads the
        // shard in ranges too and meets the same lying index entry.
        let mut all = vec![0u8; data.len()];
        let err = a.read_region(&[0, 0], &[4, 6], &mut all).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Codec(CodecError::Corrupt { .. })
                    | Error::Storage(crate::storage::StorageError::RangeOutOfBounds { .. })
            ),
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

    /// A memory store that counts the bytes it hands out.
    #[derive(Debug, Default)]
    struct CountingStore {
        inner: MemoryStore,
        bytes_read: std::sync::atomic::AtomicU64,
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
        ) -> Result<Option<(u64, Vec<u8>)>, crate::storage::StorageError> {
            let Some(value) = self.inner.get(key)? else {
                return Ok(None);
            };
            let (size, bytes) = crate::storage::ranges_of(key, &value, ranges)?;
            self.bytes_read
                .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
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
}
