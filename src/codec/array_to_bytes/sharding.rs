//! `sharding_indexed`: many inner chunks stored in one object (a shard) with an index.
//!
//! A shard holds each non-empty inner chunk encoded with the inner `codecs`, and an index:
//! a uint64 array of shape `[inner chunks per shard..., 2]` of (offset, nbytes) pairs, with
//! offsets from the shard's first byte, encoded with `index_codecs` and placed at the
//! `index_location` ("start" or "end"). An inner chunk equal to the fill value everywhere
//! is not stored: its pair is (2^64-1, 2^64-1).
//!
//! Reading a region of a shard fetches the index, then only the inner chunks the region
//! touches: neighbours are fetched together in one range (up to the source's
//! [`ByteSource::batch_bytes`], across gaps of at most [`MAX_GAP`]), and an inner chunk of which little is needed is read
//! through its own chain's partial decoder (a few byte runs of an uncompressed one). Writing
//! encodes inner chunks as they come, straight from the caller's buffer, and an update of
//! part of a stored shard re-encodes only the inner chunks it touches, copying the others'
//! encoded bytes as they are.

use super::{chunk_layout, ArrayToBytesCodec};
use crate::codec::chain::CodecChain;
use crate::codec::{ChunkRepresentation, CodecError, Parallelism};
use crate::data_type::{DataType, FillValue};
use crate::layout::InBlock;
use crate::metadata::NamedConfig;
use crate::selection::{checked_product, RegularCuts};
use crate::storage::source::{ByteSource, InMemory, Slice};
use crate::storage::ByteRange;
use crate::sys::shared_out::{OutBlock, OutBuffer};
use rayon::prelude::*;
use serde_json::{Map, Value};

const NAME: &str = "sharding_indexed";

/// The (offset, nbytes) value of an inner chunk that is not stored.
const ABSENT: u64 = u64::MAX;

/// Neighbouring inner chunks are fetched in one range when the gap between them is at most
/// this many bytes (reading a gap costs less than another request), and the range stays
/// at most the source's `batch_bytes` long (what a reader holds in memory at once).
const MAX_GAP: u64 = 256 << 10;
/// Inner chunks are visited in windows of this many, so that nothing proportional to the
/// number of inner chunks in a shard is held besides the index itself.
const WINDOW: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexLocation {
    Start,
    End,
}

/// The sharding codec for shards of one representation.
#[derive(Debug)]
pub struct ShardingCodec {
    layout: ShardLayout,
    inner: CodecChain,
}

/// A `sharding_indexed` configuration as written, before it meets a shard shape: what
/// every shard of an array shares (a rectilinear grid's shards differ in shape).
#[derive(Clone, Debug)]
pub(crate) struct ShardConfig {
    pub(crate) inner_chunk_shape: Vec<u64>,
    /// The inner chunks' codecs, as listed.
    pub(crate) codecs: Vec<NamedConfig>,
    index_codecs: Vec<NamedConfig>,
    index_location: IndexLocation,
}

impl ShardConfig {
    /// `{"chunk_shape": [...], "codecs": [...], "index_codecs": [...], "index_location":
    /// "start" | "end"}`; `index_location` defaults to "end" (documents written before it
    /// existed have none).
    pub(crate) fn parse(
        configuration: Option<&Map<String, Value>>,
    ) -> Result<ShardConfig, CodecError> {
        let configuration =
            configuration.ok_or_else(|| CodecError::config(NAME, "missing configuration"))?;
        if let Some(key) = configuration.keys().find(|k| {
            !matches!(
                k.as_str(),
                "chunk_shape" | "codecs" | "index_codecs" | "index_location"
            )
        }) {
            return Err(CodecError::config(NAME, format!("unknown key \"{key}\"")));
        }
        let inner_chunk_shape: Vec<u64> = configuration
            .get("chunk_shape")
            .and_then(Value::as_array)
            .and_then(|items| {
                items
                    .iter()
                    .map(Value::as_u64)
                    .collect::<Option<Vec<u64>>>()
            })
            .ok_or_else(|| {
                CodecError::config(NAME, "\"chunk_shape\" must be a list of integers")
            })?;
        let index_location = match configuration.get("index_location") {
            None => IndexLocation::End,
            Some(Value::String(s)) if s == "end" => IndexLocation::End,
            Some(Value::String(s)) if s == "start" => IndexLocation::Start,
            Some(other) => {
                return Err(CodecError::config(
                    NAME,
                    format!("index_location must be \"start\" or \"end\", not {other}"),
                ))
            }
        };
        Ok(ShardConfig {
            inner_chunk_shape,
            codecs: parse_codec_list(configuration.get("codecs"), "codecs")?,
            index_codecs: parse_codec_list(configuration.get("index_codecs"), "index_codecs")?,
            index_location,
        })
    }
}

/// How a shard of one shape is laid out, whatever its inner chunks hold: the grid of inner
/// chunks and the index (its codecs, where it lies, its encoded size). Shared by the
/// sharding codec of fixed-size elements and by shards of variable-length ones
/// (`array::vlen`).
#[derive(Debug)]
pub(crate) struct ShardLayout {
    inner_chunk_shape: Vec<u64>,
    /// Inner chunks along each dimension of the shard.
    chunks_per_shard: Vec<u64>,
    index: CodecChain,
    index_location: IndexLocation,
    /// Encoded size of the index (index codecs must have a fixed size).
    index_len: usize,
}

/// The decoded index of one shard: (offset, nbytes) per inner chunk in C order, as
/// host-order u64 pairs, every stored range checked to lie inside the shard.
pub(crate) struct ShardIndex {
    decoded: Vec<u8>,
}

impl ShardIndex {
    /// Where the inner chunk at C-order position `inner` is stored: `None` when absent.
    pub(crate) fn get(&self, inner: usize) -> Option<(u64, u64)> {
        let pair = &self.decoded[16 * inner..16 * inner + 16];
        let offset = u64::from_ne_bytes(pair[..8].try_into().expect("8 bytes"));
        let nbytes = u64::from_ne_bytes(pair[8..].try_into().expect("8 bytes"));
        (offset != ABSENT || nbytes != ABSENT).then_some((offset, nbytes))
    }
}

/// One inner chunk of a shard being assembled.
pub(crate) enum Piece<'e> {
    /// Not stored: all fill value.
    Absent,
    /// Newly encoded bytes.
    New(Vec<u8>),
    /// Bytes kept from the shard being updated.
    Kept(&'e [u8]),
}

/// A shard under construction: its inner chunks appended in C order, each as soon as it is
/// encoded (so that a writer holds a shard's encoded bytes, not its decoded elements), then
/// the index. The builder holds data only; every call takes the shard's layout.
pub(crate) struct ShardBuilder {
    /// The shard so far (with room for the index first, when it goes at the start).
    shard: Vec<u8>,
    /// The decoded index so far: (offset, nbytes) as host-order u64 pairs.
    index: Vec<u8>,
    pushed: usize,
    all_absent: bool,
}

impl ShardBuilder {
    pub(crate) fn new(layout: &ShardLayout) -> Result<ShardBuilder, CodecError> {
        let index_size = layout.inner_count().saturating_mul(16);
        let mut index: Vec<u8> = Vec::new();
        index
            .try_reserve_exact(index_size)
            .map_err(|_| CodecError::OutOfMemory(index_size))?;
        // With the index at the start, its room comes first; it is written by `finish`,
        // once the offsets are known.
        let shard: Vec<u8> = match layout.index_location {
            IndexLocation::Start => crate::sys::alloc::zeroed_vec(layout.index_len)
                .ok_or(CodecError::OutOfMemory(layout.index_len))?,
            IndexLocation::End => Vec::new(),
        };
        Ok(ShardBuilder {
            shard,
            index,
            pushed: 0,
            all_absent: true,
        })
    }

    /// Append the next inner chunk (in C order).
    pub(crate) fn push(&mut self, layout: &ShardLayout, piece: Piece) -> Result<(), CodecError> {
        if self.pushed >= layout.inner_count() {
            return Err(CodecError::Internal {
                codec: NAME.to_string(),
                message: "more inner chunks than the shard holds".into(),
            });
        }
        self.pushed += 1;
        let bytes: &[u8] = match &piece {
            Piece::Absent => {
                self.pair(ABSENT, ABSENT);
                return Ok(());
            }
            Piece::New(bytes) => bytes,
            Piece::Kept(bytes) => bytes,
        };
        self.shard
            .try_reserve(bytes.len())
            .map_err(|_| CodecError::OutOfMemory(self.shard.len().saturating_add(bytes.len())))?;
        self.pair(self.shard.len() as u64, bytes.len() as u64);
        self.all_absent = false;
        self.shard.extend_from_slice(bytes);
        Ok(())
    }

    fn pair(&mut self, offset: u64, nbytes: u64) {
        self.index.extend_from_slice(&offset.to_ne_bytes());
        self.index.extend_from_slice(&nbytes.to_ne_bytes());
    }

    /// The shard, once every inner chunk was pushed, and whether every one is absent.
    pub(crate) fn finish(mut self, layout: &ShardLayout) -> Result<(Vec<u8>, bool), CodecError> {
        if self.pushed != layout.inner_count() {
            return Err(CodecError::Internal {
                codec: NAME.to_string(),
                message: format!(
                    "a shard of {} inner chunks finished after {}",
                    layout.inner_count(),
                    self.pushed
                ),
            });
        }
        let encoded_index = layout.index.encode(self.index)?;
        if encoded_index.len() != layout.index_len {
            return Err(CodecError::Internal {
                codec: NAME.to_string(),
                message: format!(
                    "index codecs produced {} bytes, expected {}",
                    encoded_index.len(),
                    layout.index_len
                ),
            });
        }
        match layout.index_location {
            // Offsets were taken after the room left for the index: they already count it.
            IndexLocation::Start => self.shard[..layout.index_len].copy_from_slice(&encoded_index),
            IndexLocation::End => {
                self.shard
                    .try_reserve_exact(layout.index_len)
                    .map_err(|_| CodecError::OutOfMemory(self.shard.len() + layout.index_len))?;
                self.shard.extend_from_slice(&encoded_index);
            }
        }
        Ok((self.shard, self.all_absent))
    }
}

/// An inner chunk to decode: where it is stored, which part of it is wanted, and where the
/// part goes.
struct InnerRead<'o> {
    offset: u64,
    nbytes: u64,
    offset_in_inner: Vec<u64>,
    out: OutBlock<'o>,
}

fn parse_codec_list(value: Option<&Value>, what: &str) -> Result<Vec<NamedConfig>, CodecError> {
    let items = value
        .and_then(Value::as_array)
        .ok_or_else(|| CodecError::config(NAME, format!("\"{what}\" must be a list of codecs")))?;
    items
        .iter()
        .map(|item| {
            NamedConfig::parse(item, what).map_err(|e| CodecError::config(NAME, e.to_string()))
        })
        .collect()
}

impl ShardingCodec {
    /// The codec for shards of `shard` (see [`ShardConfig::parse`] for the configuration).
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        shard: &ChunkRepresentation,
    ) -> Result<ShardingCodec, CodecError> {
        let config = ShardConfig::parse(configuration)?;
        let layout = ShardLayout::new(&config, &shard.shape)?;
        let inner_repr = ChunkRepresentation {
            shape: config.inner_chunk_shape.clone(),
            data_type: shard.data_type.clone(),
            fill_value: shard.fill_value.clone(),
        };
        if inner_repr.size_bytes().is_none() {
            return Err(CodecError::config(NAME, "inner chunk_shape is too large"));
        }
        let inner = CodecChain::from_metadata(&config.codecs, &inner_repr)?;
        Ok(ShardingCodec { layout, inner })
    }
}

impl ShardLayout {
    /// The layout of shards of `shard_shape` under `config`: the inner chunk shape must
    /// divide it evenly, and the index codecs must give an index of a fixed size.
    pub(crate) fn new(
        config: &ShardConfig,
        shard_shape: &[u64],
    ) -> Result<ShardLayout, CodecError> {
        let inner_chunk_shape = &config.inner_chunk_shape;
        if inner_chunk_shape.len() != shard_shape.len() {
            return Err(CodecError::config(
                NAME,
                format!(
                    "chunk_shape {inner_chunk_shape:?} has {} dimensions, the shard {shard_shape:?} has {}",
                    inner_chunk_shape.len(),
                    shard_shape.len()
                ),
            ));
        }
        let mut chunks_per_shard = Vec::with_capacity(inner_chunk_shape.len());
        for (outer, inner) in shard_shape.iter().zip(inner_chunk_shape) {
            if *inner == 0 || outer % inner != 0 {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "inner chunk_shape {inner_chunk_shape:?} must evenly divide the shard shape {shard_shape:?}"
                    ),
                ));
            }
            chunks_per_shard.push(outer / inner);
        }
        let mut index_shape = chunks_per_shard.clone();
        index_shape.push(2);
        let index_repr = ChunkRepresentation {
            shape: index_shape,
            data_type: DataType::UInt64,
            fill_value: FillValue::new(ABSENT.to_ne_bytes().to_vec()),
        };
        if index_repr.size_bytes().is_none() {
            return Err(CodecError::config(NAME, "too many inner chunks per shard"));
        }
        let index = CodecChain::from_metadata(&config.index_codecs, &index_repr)?;
        let index_len = index.encoded_len().ok_or_else(|| {
            CodecError::config(
                NAME,
                "index_codecs must have a fixed encoded size (no compressor)",
            )
        })?;
        Ok(ShardLayout {
            inner_chunk_shape: inner_chunk_shape.clone(),
            chunks_per_shard,
            index,
            index_location: config.index_location,
            index_len,
        })
    }

    /// The configuration to store, with `codecs` for the inner chunks.
    pub(crate) fn configuration(&self, codecs: &[NamedConfig]) -> Map<String, Value> {
        let list = |codecs: &[NamedConfig]| {
            Value::Array(codecs.iter().map(NamedConfig::to_json).collect())
        };
        let mut map = Map::new();
        map.insert(
            "chunk_shape".into(),
            Value::from(self.inner_chunk_shape.clone()),
        );
        map.insert("codecs".into(), list(codecs));
        map.insert("index_codecs".into(), list(&self.index.to_metadata()));
        let location = match self.index_location {
            IndexLocation::Start => "start",
            IndexLocation::End => "end",
        };
        map.insert("index_location".into(), Value::from(location));
        map
    }

    pub(crate) fn inner_chunk_shape(&self) -> &[u64] {
        &self.inner_chunk_shape
    }

    pub(crate) fn chunks_per_shard(&self) -> &[u64] {
        &self.chunks_per_shard
    }

    /// The number of inner chunks in a shard (its product fits in memory: checked when the
    /// index representation was built).
    pub(crate) fn inner_count(&self) -> usize {
        checked_product(&self.chunks_per_shard).unwrap_or(0) as usize
    }

    /// The coordinates in the shard's inner chunk grid of the inner chunk at C-order
    /// position `linear`.
    pub(crate) fn inner_coords(&self, mut linear: usize) -> Vec<u64> {
        let mut coords = vec![0; self.chunks_per_shard.len()];
        for d in (0..coords.len()).rev() {
            let n = self.chunks_per_shard[d] as usize;
            coords[d] = (linear % n) as u64;
            linear /= n;
        }
        coords
    }

    /// The C-order position of the inner chunk at `coords` of the shard's grid.
    pub(crate) fn inner_linear(&self, coords: &[u64]) -> usize {
        coords
            .iter()
            .zip(&self.chunks_per_shard)
            .fold(0usize, |acc, (&c, &n)| acc * n as usize + c as usize)
    }

    /// Where the encoded index lies in a shard.
    fn index_range(&self) -> ByteRange {
        let length = self.index_len as u64;
        match self.index_location {
            IndexLocation::Start => ByteRange::FromStart { offset: 0, length },
            IndexLocation::End => ByteRange::Suffix { length },
        }
    }

    /// Read and decode the index of the shard in `source` (only its byte range, when the
    /// source can); `None` when the shard is not stored.
    pub(crate) fn read_index(
        &self,
        source: &dyn ByteSource,
    ) -> Result<Option<ShardIndex>, CodecError> {
        let result = source.read_ranges(&[self.index_range()]);
        // A shard shorter than its index is a corrupt shard, not a failing store.
        if let Err(crate::storage::StorageError::RangeOutOfBounds { size, .. }) = &result {
            return Err(self.too_short(*size));
        }
        let Some((shard_size, encoded)) = result? else {
            return Ok(None);
        };
        self.decode_index(encoded, shard_size).map(Some)
    }

    fn too_short(&self, size: u64) -> CodecError {
        CodecError::corrupt(
            NAME,
            format!(
                "shard of {size} bytes is shorter than its {}-byte index",
                self.index_len
            ),
        )
    }

    /// The index of a whole shard held in memory.
    pub(crate) fn index_of(&self, shard: &[u8]) -> Result<ShardIndex, CodecError> {
        let range = self
            .index_range()
            .resolve(shard.len() as u64)
            .ok_or_else(|| self.too_short(shard.len() as u64))?;
        let encoded = shard[range.start as usize..range.end as usize].to_vec();
        self.decode_index(encoded, Some(shard.len() as u64))
    }

    /// Decode an encoded index of a shard of `shard_size` bytes (when known), checking that
    /// every stored inner chunk lies inside the shard; when the size is unknown, only that
    /// no range passes 2^64 (the reads of the ranges then check the rest).
    fn decode_index(
        &self,
        encoded: Vec<u8>,
        shard_size: Option<u64>,
    ) -> Result<ShardIndex, CodecError> {
        if encoded.len() != self.index_len {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "index of {} bytes, expected {}",
                    encoded.len(),
                    self.index_len
                ),
            ));
        }
        let index = ShardIndex {
            decoded: self.index.decode(encoded)?,
        };
        for i in 0..self.inner_count() {
            if let Some((offset, nbytes)) = index.get(i) {
                let end = offset.checked_add(nbytes);
                if end.is_none_or(|end| shard_size.is_some_and(|size| end > size)) {
                    let shard = shard_size.map_or("shard".into(), |n| format!("{n}-byte shard"));
                    return Err(CodecError::corrupt(
                        NAME,
                        format!(
                            "inner chunk {i} at offset {offset} with {nbytes} bytes lies outside the {shard}"
                        ),
                    ));
                }
            }
        }
        Ok(index)
    }

    /// Build a shard from its inner chunks, produced in C order by `piece(linear)` (in
    /// parallel batches when `parallelism` allows). Returns the shard, and whether every
    /// inner chunk is absent.
    pub(crate) fn assemble<'e>(
        &self,
        parallelism: Parallelism,
        piece: impl Fn(usize) -> Result<Piece<'e>, CodecError> + Sync,
    ) -> Result<(Vec<u8>, bool), CodecError> {
        let count = self.inner_count();
        let mut builder = ShardBuilder::new(self)?;
        // Batches of a few inner chunks per worker keep every worker busy while bounding
        // what waits, encoded, to be appended (64 at a time held a whole 64 MiB shard of
        // 1 MiB inner chunks twice: in the batch and in the shard).
        let batch = if parallelism.is_parallel() {
            (4 * parallelism.tasks).clamp(2, 64)
        } else {
            1
        };
        let mut start = 0;
        while start < count {
            let end = (start + batch).min(count);
            if parallelism.is_parallel() && end - start > 1 {
                let pieces: Vec<Piece> = (start..end)
                    .into_par_iter()
                    .map(&piece)
                    .collect::<Result<_, _>>()?;
                for p in pieces {
                    builder.push(self, p)?;
                }
            } else {
                for linear in start..end {
                    builder.push(self, piece(linear)?)?;
                }
            }
            start = end;
        }
        builder.finish(self)
    }

    /// The box `start .. start + inner_chunk_shape` of the inner chunk at `coords`.
    pub(crate) fn inner_box(&self, coords: &[u64]) -> Vec<u64> {
        coords
            .iter()
            .zip(&self.inner_chunk_shape)
            .map(|(c, s)| c * s)
            .collect()
    }
}

/// Run `task` on every item: on the worker pool when `parallelism` allows and there is
/// more than one, else in order on the calling thread. Stops at the first error.
fn run_all<T: Send>(
    parallelism: Parallelism,
    items: Vec<T>,
    task: impl Fn(T) -> Result<(), CodecError> + Sync + Send,
) -> Result<(), CodecError> {
    if parallelism.is_parallel() && items.len() > 1 {
        items.into_par_iter().try_for_each(task)
    } else {
        items.into_iter().try_for_each(task)
    }
}

/// Group inner chunk reads, sorted by offset, into batches of neighbours, each with the
/// shard's bytes it spans (see [`Batch::fetch`]), at most `source.batch_bytes()` long
/// unless one inner chunk alone is longer; `span` gives a read's (offset, nbytes) in the
/// shard, from an index checked by `decode_index`.
pub(crate) fn coalesce<T>(
    source: &dyn ByteSource,
    reads: Vec<T>,
    span: impl Fn(&T) -> (u64, u64),
) -> Vec<Batch<T>> {
    let max_batch = source.batch_bytes();
    let mut batches: Vec<(u64, u64, Vec<T>)> = Vec::new();
    for read in reads {
        let (offset, nbytes) = span(&read);
        let end = offset + nbytes; // cannot pass 2^64: checked with the index
        match batches.last_mut() {
            Some((start, batch_end, items))
                if offset >= *batch_end
                    && offset - *batch_end <= MAX_GAP
                    && end.max(*batch_end) - *start <= max_batch =>
            {
                *batch_end = end.max(*batch_end);
                items.push(read);
            }
            _ => batches.push((offset, end, vec![read])),
        }
    }
    batches
        .into_iter()
        .map(|(start, end, reads)| Batch {
            start,
            length: end - start,
            reads,
        })
        .collect()
}

/// Neighbouring inner chunk reads of one shard, fetched together.
pub(crate) struct Batch<T> {
    /// The byte offset in the shard of the first byte fetched.
    pub start: u64,
    pub length: u64,
    pub reads: Vec<T>,
}

impl<T> Batch<T> {
    /// The shard's bytes `start .. start + length`. A shard that vanished since its index
    /// was read is an I/O error (the array was being rewritten), not an absent chunk.
    pub fn fetch(&self, source: &dyn ByteSource) -> Result<Vec<u8>, CodecError> {
        let range = ByteRange::FromStart {
            offset: self.start,
            length: self.length,
        };
        let Some((_, bytes)) = source.read_ranges(&[range])? else {
            return Err(CodecError::Storage(crate::storage::StorageError::Io {
                key: source.name().to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the shard disappeared while it was being read",
                ),
            }));
        };
        Ok(bytes)
    }
}

impl ArrayToBytesCodec for ShardingCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        Some(self.layout.configuration(&self.inner.to_metadata()))
    }

    fn encode(&self, decoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let layout = chunk_layout(repr)?;
        let input = InBlock::whole(&decoded, &layout).map_err(|e| CodecError::Internal {
            codec: NAME.to_string(),
            message: e.to_string(),
        })?;
        let (shard, _) = self.layout.assemble(Parallelism::SERIAL, |linear| {
            self.encode_piece(&input, &vec![0; repr.shape.len()], linear)
        })?;
        Ok(shard)
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let layout = chunk_layout(repr)?;
        let len = layout
            .span()
            .map_err(|_| CodecError::OutOfMemory(usize::MAX))?;
        let mut shard = crate::sys::alloc::zeroed_vec(len).ok_or(CodecError::OutOfMemory(len))?;
        let mut out = OutBuffer::new(&mut shard, layout).map_err(|e| CodecError::Internal {
            codec: NAME.to_string(),
            message: e.to_string(),
        })?;
        let source = InMemory {
            name: "shard",
            bytes: &encoded,
        };
        let zero = vec![0; repr.shape.len()];
        self.decode_region(&source, repr, &zero, &mut out.whole(), Parallelism::SERIAL)?;
        Ok(shard)
    }

    fn encoded_len(&self, _repr: &ChunkRepresentation) -> Option<usize> {
        None
    }

    fn max_encoded_len(&self, _repr: &ChunkRepresentation) -> Option<usize> {
        self.inner
            .max_encoded_len()?
            .checked_mul(self.layout.inner_count())?
            .checked_add(self.layout.index_len)
    }

    fn inner_chunk_shape(&self) -> Option<&[u64]> {
        Some(&self.layout.inner_chunk_shape)
    }

    fn shard_parts(&self) -> Option<(&ShardLayout, &CodecChain)> {
        Some((&self.layout, &self.inner))
    }

    fn decode_region(
        &self,
        source: &dyn ByteSource,
        repr: &ChunkRepresentation,
        offset: &[u64],
        out: &mut OutBlock,
        parallelism: Parallelism,
    ) -> Result<bool, CodecError> {
        let Some(index) = self.layout.read_index(source)? else {
            return Ok(false);
        };
        let fill = repr.fill_value.as_bytes();
        let in_memory = source.in_memory().is_some();
        let cuts = RegularCuts::new(offset, out.extent(), &self.layout.inner_chunk_shape);
        let mut cells = out.cells(&cuts);
        loop {
            let window: Vec<_> = cells.by_ref().take(WINDOW).collect();
            if window.is_empty() {
                return Ok(true);
            }
            let mut whole = Vec::new();
            let mut parts = Vec::new();
            for mut cell in window {
                let inner = cuts.grid_index(&cell.coords);
                let offset_in_inner = cuts.offset_in_cell(&inner, &cell.offset);
                let Some((at, nbytes)) = index.get(self.layout.inner_linear(&inner)) else {
                    cell.block.fill(fill);
                    continue;
                };
                let read = InnerRead {
                    offset: at,
                    nbytes,
                    offset_in_inner,
                    out: cell.block,
                };
                let extent = read.out.extent().to_vec();
                if in_memory || self.inner.reads_part(&read.offset_in_inner, &extent) {
                    parts.push(read);
                } else {
                    whole.push(read);
                }
            }
            // Inner chunks of which little is needed, and every inner chunk of a shard
            // already in memory (decoded whole, or behind a compressor): through their
            // chain's own decoder, straight from the shard's source.
            run_all(parallelism, parts, |mut read| {
                let slice = Slice {
                    parent: source,
                    offset: read.offset,
                    length: read.nbytes,
                };
                self.decode_inner(&slice, &read.offset_in_inner, &mut read.out)
            })?;
            // The others: fetched whole, neighbours together.
            whole.sort_by_key(|read| read.offset);
            for batch in coalesce(source, whole, |read| (read.offset, read.nbytes)) {
                let bytes = batch.fetch(source)?;
                let (start, reads) = (batch.start, batch.reads);
                let batch = InMemory {
                    name: source.name(),
                    bytes: &bytes,
                };
                run_all(parallelism, reads, |mut read| {
                    let slice = Slice {
                        parent: &batch,
                        offset: read.offset - start,
                        length: read.nbytes,
                    };
                    self.decode_inner(&slice, &read.offset_in_inner, &mut read.out)
                })?;
                crate::scratch::give_back(bytes);
            }
        }
    }

    fn encode_block(
        &self,
        input: &InBlock,
        repr: &ChunkRepresentation,
        parallelism: Parallelism,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let zero = vec![0; repr.shape.len()];
        let (shard, all_absent) = self.layout.assemble(parallelism, |linear| {
            self.encode_piece(input, &zero, linear)
        })?;
        Ok((!all_absent).then_some(shard))
    }

    fn encode_update(
        &self,
        existing: Option<Vec<u8>>,
        _repr: &ChunkRepresentation,
        offset: &[u64],
        input: &InBlock,
        parallelism: Parallelism,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let existing = match &existing {
            Some(shard) => Some((shard.as_slice(), self.layout.index_of(shard)?)),
            None => None,
        };
        let end: Vec<u64> = offset
            .iter()
            .zip(input.extent())
            .map(|(o, e)| o + e)
            .collect();
        let (shard, all_absent) = self.layout.assemble(parallelism, |linear| {
            let coords = self.layout.inner_coords(linear);
            let start = self.layout.inner_box(&coords);
            let stored = existing.as_ref().and_then(|(shard, index)| {
                index
                    .get(linear)
                    .map(|(at, n)| &shard[at as usize..(at + n) as usize])
            });
            // The part of the inner chunk the write covers.
            let mut lo = Vec::with_capacity(coords.len());
            let mut hi = Vec::with_capacity(coords.len());
            for d in 0..coords.len() {
                lo.push(start[d].max(offset[d]));
                hi.push((start[d] + self.layout.inner_chunk_shape[d]).min(end[d]));
            }
            if lo.iter().zip(&hi).any(|(l, h)| l >= h) {
                return Ok(stored.map_or(Piece::Absent, Piece::Kept));
            }
            let in_input: Vec<u64> = lo.iter().zip(offset).map(|(l, o)| l - o).collect();
            let extent: Vec<u64> = lo.iter().zip(&hi).map(|(l, h)| h - l).collect();
            let part = input.sub(&in_input, &extent);
            let encoded = if extent == self.layout.inner_chunk_shape {
                self.inner.encode_block(&part, Parallelism::SERIAL)?
            } else {
                let in_inner: Vec<u64> = lo.iter().zip(&start).map(|(l, s)| l - s).collect();
                let stored = stored.map(<[u8]>::to_vec);
                self.inner
                    .encode_update(stored, &in_inner, &part, Parallelism::SERIAL)?
            };
            Ok(encoded.map_or(Piece::Absent, Piece::New))
        })?;
        Ok((!all_absent).then_some(shard))
    }
}

impl ShardingCodec {
    /// Encode the inner chunk at C-order position `linear` of a shard whose contents are
    /// the block of `input` at `shard_offset`.
    fn encode_piece<'e>(
        &self,
        input: &InBlock,
        shard_offset: &[u64],
        linear: usize,
    ) -> Result<Piece<'e>, CodecError> {
        let start = self.layout.inner_box(&self.layout.inner_coords(linear));
        let at: Vec<u64> = start.iter().zip(shard_offset).map(|(s, o)| s + o).collect();
        let part = input.sub(&at, &self.layout.inner_chunk_shape);
        Ok(match self.inner.encode_block(&part, Parallelism::SERIAL)? {
            Some(bytes) => Piece::New(bytes),
            None => Piece::Absent,
        })
    }

    /// Decode part of one stored inner chunk; it must be there (the index says so).
    fn decode_inner(
        &self,
        source: &dyn ByteSource,
        offset_in_inner: &[u64],
        out: &mut OutBlock,
    ) -> Result<(), CodecError> {
        if self
            .inner
            .decode_region(source, offset_in_inner, out, Parallelism::SERIAL)?
        {
            Ok(())
        } else {
            Err(CodecError::Internal {
                codec: NAME.to_string(),
                message: "an inner chunk read from memory was absent".into(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shard_repr(shape: &[u64]) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            data_type: DataType::UInt16,
            fill_value: FillValue::new(vec![0, 0]),
        }
    }

    fn codec(config: Value, shard: &ChunkRepresentation) -> Result<ShardingCodec, CodecError> {
        ShardingCodec::from_configuration(config.as_object(), shard)
    }

    fn config(location: &str) -> Value {
        json!({
            "chunk_shape": [2, 2],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_location": location,
        })
    }

    #[test]
    fn round_trip_with_absent_inner_chunks() {
        let repr = shard_repr(&[4, 4]);
        for location in ["start", "end"] {
            let c = codec(config(location), &repr).unwrap();
            // Only the top-left inner chunk holds non-fill values.
            let mut values = [0u16; 16];
            values[0] = 1;
            values[5] = 7;
            let decoded: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
            let shard = c.encode(decoded.clone(), &repr).unwrap();
            // One 8-byte inner chunk plus a 4x2x2 u64 index.
            assert_eq!(shard.len(), 8 + 64);
            let index_at = if location == "start" { 0 } else { 8 };
            let first = u64::from_le_bytes(shard[index_at..index_at + 8].try_into().unwrap());
            assert_eq!(first, if location == "start" { 64 } else { 0 });
            let second =
                u64::from_le_bytes(shard[index_at + 16..index_at + 24].try_into().unwrap());
            assert_eq!(second, ABSENT);
            assert_eq!(c.decode(shard, &repr).unwrap(), decoded);
        }
    }

    #[test]
    fn corrupt_shards_are_errors() {
        let repr = shard_repr(&[4, 4]);
        let c = codec(config("end"), &repr).unwrap();
        let values: Vec<u8> = (1..=16u16).flat_map(|v| v.to_ne_bytes()).collect();
        let shard = c.encode(values, &repr).unwrap();
        assert!(
            c.decode(shard[..10].to_vec(), &repr).is_err(),
            "shorter than the index"
        );
        let mut bad = shard.clone();
        let n = bad.len();
        bad[n - 64..n - 56].copy_from_slice(&1000u64.to_le_bytes());
        assert!(matches!(
            c.decode(bad, &repr),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn configuration_rules() {
        let repr = shard_repr(&[4, 4]);
        let mut uneven = config("end");
        uneven["chunk_shape"] = json!([3, 2]);
        assert!(codec(uneven, &repr).is_err());
        let mut bad_location = config("end");
        bad_location["index_location"] = json!("middle");
        assert!(codec(bad_location, &repr).is_err());
        let mut compressed_index = config("end");
        compressed_index["index_codecs"] = json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}]);
        assert!(codec(compressed_index, &repr).is_err());
        let mut no_location = config("end");
        no_location
            .as_object_mut()
            .unwrap()
            .remove("index_location");
        assert_eq!(
            codec(no_location, &repr).unwrap().layout.index_location,
            IndexLocation::End
        );
    }
}
