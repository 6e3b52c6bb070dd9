//! Reading sharded arrays piecewise: for each shard the region touches, fetch its index
//! (or the whole shard when the region covers it), then only the inner chunks needed.

use super::subset::Selection;
use super::subset::{checked_product, for_each_index};
use super::{chunk_indices_in, map_units, with_chunk_context, Array, ChunkOverlap, UnitData};
use crate::codec::array_to_bytes::sharding::ShardingCodec;
use crate::codec::chain::CodecChain;
use crate::codec::CodecError;
use crate::error::Error;
use crate::storage::ByteRange;
use std::collections::HashMap;

/// What is known of one shard after the first round of reads.
enum ShardData {
    /// The shard is not stored: every inner chunk is fill value.
    Absent,
    /// The whole shard was read (the region covers it): inner chunks are slices of it.
    Whole {
        bytes: Vec<u8>,
        index: Vec<Option<(u64, u64)>>,
    },
    /// Only the index was read: inner chunks are fetched by byte range.
    Indexed { index: Vec<Option<(u64, u64)>> },
}

/// A read of a selection of a sharded array, after its first round of store reads (each
/// shard's index, or the whole shard when the selection covers it): inner chunks can then
/// be decoded one by one, in any order or in parallel.
pub(super) struct ShardedRead<'a> {
    array: &'a Array,
    codec: &'a ShardingCodec,
    selection: &'a Selection,
    shards: HashMap<Vec<u64>, ShardData>,
    plain_inner: bool,
    inner_nbytes: usize,
}

impl<'a> ShardedRead<'a> {
    /// Fetch what every shard the selection touches needs first (on the worker pool when
    /// `parallel`).
    ///
    /// With `allow_partial`, an inner chunk stored with the plain `bytes` codec of which the
    /// selection needs only a small part is not read whole: only the byte runs of the
    /// needed elements are fetched, and the result holds just the overlap
    /// ([`UnitData::Overlap`]).
    pub(super) fn new(
        array: &'a Array,
        codec: &'a ShardingCodec,
        selection: &'a Selection,
        allow_partial: bool,
        parallel: bool,
    ) -> Result<ShardedRead<'a>, Error> {
        let shard_shape = array.chunk_shape();
        let shards = chunk_indices_in(&selection.chunk_ranges(&shard_shape));
        let shard_data: Vec<ShardData> = map_units(&shards, parallel, |shard| {
            let key = array.chunk_key(shard);
            let covered = ChunkOverlap::new(shard, &shard_shape, selection).extent == shard_shape;
            let context = |e: CodecError| Error::Codec(with_chunk_context(e, &key));
            if covered {
                match array.storage.get(&key)? {
                    None => Ok(ShardData::Absent),
                    Some(bytes) => {
                        let index = codec.decode_index(&bytes).map_err(context)?;
                        Ok(ShardData::Whole { bytes, index })
                    }
                }
            } else {
                match array.storage.get_range(&key, codec.index_range())? {
                    None => Ok(ShardData::Absent),
                    Some(index) => Ok(ShardData::Indexed {
                        index: codec.decode_index_bytes(index).map_err(context)?,
                    }),
                }
            }
        })?;
        let inner_nbytes = codec
            .inner_chain()
            .decoded_representation()
            .size_bytes()
            .expect("checked when the codec was built");
        Ok(ShardedRead {
            array,
            codec,
            selection,
            shards: shards.into_iter().zip(shard_data).collect(),
            plain_inner: allow_partial && codec.inner_chain().is_plain_bytes(),
            inner_nbytes,
        })
    }

    /// The inner chunks the selection touches, in C order of the inner chunk grid.
    pub(super) fn inner_chunks(&self) -> Vec<Vec<u64>> {
        chunk_indices_in(&self.selection.chunk_ranges(self.codec.inner_chunk_shape()))
    }

    /// Decode the inner chunk at `global` (array-wide inner chunk grid coordinates);
    /// `None` when it is not stored.
    pub(super) fn decode(&self, global: &[u64]) -> Result<Option<UnitData>, Error> {
        match self.fetch(global)? {
            Fetched::Absent => Ok(None),
            Fetched::Overlap(block) => Ok(Some(UnitData::Overlap(block))),
            Fetched::Encoded { key, bytes } => self
                .codec
                .inner_chain()
                .decode(bytes)
                .map(|decoded| Some(UnitData::Whole(decoded)))
                .map_err(|e| Error::Codec(with_chunk_context(e, &key))),
        }
    }

    /// Decode the whole inner chunk at `global` straight into `out` (exactly its size);
    /// `false` when it is not stored (`out` untouched). A corrupt inner chunk may leave
    /// part of `out` written. The read must have been made without `allow_partial`.
    pub(super) fn decode_into(&self, global: &[u64], out: &mut [u8]) -> Result<bool, Error> {
        match self.fetch(global)? {
            Fetched::Absent => Ok(false),
            Fetched::Overlap(_) => Err(Error::InvalidArgument(
                "internal error: part of an inner chunk where a whole one was asked".into(),
            )),
            Fetched::Encoded { key, bytes } => {
                self.codec
                    .inner_chain()
                    .decode_into(bytes, out)
                    .map_err(|e| Error::Codec(with_chunk_context(e, &key)))?;
                Ok(true)
            }
        }
    }

    /// The stored bytes of the inner chunk at `global`, or only the part of them the
    /// selection needs (see [`ShardedRead::new`] for `allow_partial`).
    fn fetch(&self, global: &[u64]) -> Result<Fetched, Error> {
        let (array, codec, selection) = (self.array, self.codec, self.selection);
        let inner_shape = codec.inner_chunk_shape();
        let per_shard = codec.chunks_per_shard();
        let inner_nbytes = self.inner_nbytes;
        let shard: Vec<u64> = global.iter().zip(per_shard).map(|(g, n)| g / n).collect();
        // The inner chunk's position in its shard's index, in C order.
        let local = global
            .iter()
            .zip(per_shard)
            .fold(0u64, |acc, (g, n)| acc * n + g % n) as usize;
        let key = array.chunk_key(&shard);
        let encoded = match &self.shards[&shard] {
            ShardData::Absent => return Ok(Fetched::Absent),
            ShardData::Whole { bytes, index } => match index[local] {
                None => return Ok(Fetched::Absent),
                // Ranges were checked against the shard when its index was decoded.
                Some((o, n)) => bytes[o as usize..(o + n) as usize].to_vec(),
            },
            ShardData::Indexed { index } => match index[local] {
                None => return Ok(Fetched::Absent),
                Some((offset, length))
                    if self.plain_inner && needs_small_part(global, inner_shape, selection) =>
                {
                    if length != inner_nbytes as u64 {
                        return Err(Error::Codec(with_chunk_context(
                            CodecError::corrupt(
                                "bytes",
                                format!("inner chunk of {length} bytes, expected {inner_nbytes}"),
                            ),
                            &key,
                        )));
                    }
                    return read_overlap(array, codec, &key, offset, global, selection)
                        .map(Fetched::Overlap);
                }
                Some((offset, length)) => {
                    let range = ByteRange::FromStart { offset, length };
                    match array.storage.get_range(&key, range)? {
                        Some(bytes) => bytes,
                        None => {
                            return Err(Error::NotFound(format!(
                                "shard '{key}' vanished while being read"
                            )))
                        }
                    }
                }
            },
        };
        Ok(Fetched::Encoded {
            key,
            bytes: encoded,
        })
    }
}

/// What [`ShardedRead::fetch`] got for one inner chunk.
enum Fetched {
    /// Not stored: fill value.
    Absent,
    /// Only the elements the selection needs, already decoded (plain `bytes` inner chunks).
    Overlap(Vec<u8>),
    /// The inner chunk's stored bytes, from the shard named `key`.
    Encoded { key: String, bytes: Vec<u8> },
}

/// Whether the selection needs at most a quarter of the chunk or inner chunk at `global`
/// (of `inner_shape`): reading only those elements' bytes then beats reading it whole.
pub(super) fn needs_small_part(global: &[u64], inner_shape: &[u64], selection: &Selection) -> bool {
    let overlap = ChunkOverlap::new(global, inner_shape, selection);
    let needed = checked_product(&overlap.extent).unwrap_or(u64::MAX);
    let whole = checked_product(inner_shape).unwrap_or(u64::MAX);
    needed.saturating_mul(4) <= whole
}

/// Read only the elements of the inner chunk at `global` that `selection` needs, from a
/// shard whose inner chunks are plain `bytes` and whose inner chunk starts at `offset`.
fn read_overlap(
    array: &Array,
    codec: &ShardingCodec,
    key: &str,
    offset: u64,
    global: &[u64],
    selection: &Selection,
) -> Result<Vec<u8>, Error> {
    let unit = PlainUnit {
        chain: codec.inner_chain(),
        shape: codec.inner_chunk_shape(),
        key,
        offset,
    };
    match read_plain_overlap(array, &unit, global, selection)? {
        Some((_, block)) => Ok(block),
        None => Err(Error::NotFound(format!(
            "shard '{key}' vanished while being read"
        ))),
    }
}

/// A chunk or inner chunk stored with a plain `bytes` chain: its elements can be read
/// straight from the stored value.
pub(super) struct PlainUnit<'a> {
    pub chain: &'a CodecChain,
    /// The unit's shape.
    pub shape: &'a [u64],
    /// The value holding it, and where in the value it starts.
    pub key: &'a str,
    pub offset: u64,
}

/// Read only the elements of the unit at grid position `global` that `selection` needs:
/// one byte range per contiguous run along the last dimension, all from one opening of
/// the value. Returns the value's size and the decoded block (of the overlap's extent);
/// `None` when the value is absent.
pub(super) fn read_plain_overlap(
    array: &Array,
    unit: &PlainUnit,
    global: &[u64],
    selection: &Selection,
) -> Result<Option<(u64, Vec<u8>)>, Error> {
    let element_size = array.data_type().size() as u64;
    let overlap = ChunkOverlap::new(global, unit.shape, selection);
    let ndim = unit.shape.len();
    let last = ndim - 1; // 0-d arrays never take this path: their one element is the chunk
    let run_len = overlap.extent[last] * element_size;
    let mut ranges = Vec::new();
    let outer: Vec<_> = overlap.extent[..last].iter().map(|&n| 0..n).collect();
    for_each_index(&outer, |index| {
        // The run's first element, as a C-order position inside the unit.
        let position = unit.shape.iter().zip(&overlap.in_chunk).enumerate().fold(
            0u64,
            |position, (d, (extent, start))| {
                position * extent + start + index.get(d).copied().unwrap_or(0)
            },
        );
        ranges.push(ByteRange::FromStart {
            offset: unit.offset + position * element_size,
            length: run_len,
        });
        Ok::<(), Error>(())
    })?;
    let Some((size, bytes)) = array.storage.read_ranges(unit.key, &ranges)? else {
        return Ok(None);
    };
    let block = unit
        .chain
        .decode_plain_block(bytes, &overlap.extent)
        .map_err(|e| Error::Codec(with_chunk_context(e, unit.key)))?;
    Ok(Some((size, block)))
}
