//! Reading sharded arrays piecewise: for each shard the region touches, fetch its index
//! (or the whole shard when the region covers it), then only the inner chunks needed.

use super::subset::Selection;
use super::{chunk_indices_in, with_chunk_context, Array, ChunkOverlap, DecodedUnits};
use crate::codec::array_to_bytes::sharding::ShardingCodec;
use crate::codec::CodecError;
use crate::error::Error;
use crate::storage::ByteRange;
use rayon::prelude::*;
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

/// The decoded inner chunks (in the array-wide inner chunk grid) that `selection`
/// touches, `None` for those that are not stored.
pub(super) fn read_inner_chunks(
    array: &Array,
    codec: &ShardingCodec,
    selection: &Selection,
) -> Result<DecodedUnits, Error> {
    let shard_shape = array.chunk_shape();
    let shards = chunk_indices_in(&selection.chunk_ranges(&shard_shape));
    let shard_data: Vec<ShardData> = shards
        .par_iter()
        .map(|shard| {
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
        })
        .collect::<Result<_, Error>>()?;
    let shards: HashMap<Vec<u64>, ShardData> = shards.into_iter().zip(shard_data).collect();

    let inner_shape = codec.inner_chunk_shape();
    let per_shard = codec.chunks_per_shard();
    let inner_chunks = chunk_indices_in(&selection.chunk_ranges(inner_shape));
    let decoded: Vec<Option<Vec<u8>>> = inner_chunks
        .par_iter()
        .map(|global| {
            let shard: Vec<u64> = global.iter().zip(per_shard).map(|(g, n)| g / n).collect();
            // The inner chunk's position in its shard's index, in C order.
            let local = global
                .iter()
                .zip(per_shard)
                .fold(0u64, |acc, (g, n)| acc * n + g % n) as usize;
            let key = array.chunk_key(&shard);
            let encoded = match &shards[&shard] {
                ShardData::Absent => return Ok(None),
                ShardData::Whole { bytes, index } => match index[local] {
                    None => return Ok(None),
                    // Ranges were checked against the shard when its index was decoded.
                    Some((o, n)) => bytes[o as usize..(o + n) as usize].to_vec(),
                },
                ShardData::Indexed { index } => match index[local] {
                    None => return Ok(None),
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
            codec
                .inner_chain()
                .decode(encoded)
                .map(Some)
                .map_err(|e| Error::Codec(with_chunk_context(e, &key)))
        })
        .collect::<Result<_, Error>>()?;
    Ok(inner_chunks.into_iter().zip(decoded).collect())
}
