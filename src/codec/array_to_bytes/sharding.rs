//! `sharding_indexed`: many inner chunks stored in one object (a shard) with an index.
//!
//! A shard holds each non-empty inner chunk encoded with the inner `codecs`, and an index:
//! a uint64 array of shape `[inner chunks per shard..., 2]` of (offset, nbytes) pairs, with
//! offsets from the shard's first byte, encoded with `index_codecs` and placed at the
//! `index_location` ("start" or "end"). An inner chunk equal to the fill value everywhere
//! is not stored: its pair is (2^64-1, 2^64-1).

use super::ArrayToBytesCodec;
use crate::array::subset::{checked_product, copy_block, extract_block, for_each_index, BlockView};
use crate::codec::chain::CodecChain;
use crate::codec::{try_vec_with_capacity, ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue};
use crate::metadata::NamedConfig;
use crate::storage::ByteRange;
use rayon::prelude::*;
use serde_json::{Map, Value};

const NAME: &str = "sharding_indexed";

/// The (offset, nbytes) value of an inner chunk that is not stored.
const ABSENT: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexLocation {
    Start,
    End,
}

/// An encoded shard, and whether every inner chunk in it is fill value (such a shard need
/// not be stored at all).
pub struct EncodedShard {
    pub bytes: Vec<u8>,
    pub all_fill: bool,
}

/// The sharding codec for shards of one representation.
#[derive(Debug)]
pub struct ShardingCodec {
    inner_chunk_shape: Vec<u64>,
    /// Inner chunks along each dimension of the shard.
    chunks_per_shard: Vec<u64>,
    inner: CodecChain,
    index: CodecChain,
    index_location: IndexLocation,
    /// Encoded size of the index (index codecs must have a fixed size).
    index_len: usize,
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
    /// `{"chunk_shape": [...], "codecs": [...], "index_codecs": [...], "index_location":
    /// "start" | "end"}`; `index_location` defaults to "end" (documents written before it
    /// existed have none).
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        shard: &ChunkRepresentation,
    ) -> Result<ShardingCodec, CodecError> {
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
        if inner_chunk_shape.len() != shard.shape.len() {
            return Err(CodecError::config(
                NAME,
                format!(
                    "chunk_shape {inner_chunk_shape:?} has {} dimensions, the shard {:?} has {}",
                    inner_chunk_shape.len(),
                    shard.shape,
                    shard.shape.len()
                ),
            ));
        }
        let mut chunks_per_shard = Vec::with_capacity(inner_chunk_shape.len());
        for (outer, inner) in shard.shape.iter().zip(&inner_chunk_shape) {
            if *inner == 0 || outer % inner != 0 {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "inner chunk_shape {inner_chunk_shape:?} must evenly divide the shard shape {:?}",
                        shard.shape
                    ),
                ));
            }
            chunks_per_shard.push(outer / inner);
        }
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
        let inner_repr = ChunkRepresentation {
            shape: inner_chunk_shape.clone(),
            data_type: shard.data_type.clone(),
            fill_value: shard.fill_value.clone(),
        };
        if inner_repr.size_bytes().is_none() {
            return Err(CodecError::config(NAME, "inner chunk_shape is too large"));
        }
        let inner = CodecChain::from_metadata(
            &parse_codec_list(configuration.get("codecs"), "codecs")?,
            &inner_repr,
        )?;
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
        let index = CodecChain::from_metadata(
            &parse_codec_list(configuration.get("index_codecs"), "index_codecs")?,
            &index_repr,
        )?;
        let index_len = index.encoded_len().ok_or_else(|| {
            CodecError::config(
                NAME,
                "index_codecs must have a fixed encoded size (no compressor)",
            )
        })?;
        Ok(ShardingCodec {
            inner_chunk_shape,
            chunks_per_shard,
            inner,
            index,
            index_location,
            index_len,
        })
    }

    pub fn inner_chunk_shape(&self) -> &[u64] {
        &self.inner_chunk_shape
    }

    /// Inner chunks along each dimension of a shard.
    pub fn chunks_per_shard(&self) -> &[u64] {
        &self.chunks_per_shard
    }

    /// The chain that encodes each inner chunk.
    pub fn inner_chain(&self) -> &CodecChain {
        &self.inner
    }

    /// Where the encoded index lies in a shard.
    pub fn index_range(&self) -> ByteRange {
        let length = self.index_len as u64;
        match self.index_location {
            IndexLocation::Start => ByteRange::FromStart { offset: 0, length },
            IndexLocation::End => ByteRange::Suffix { length },
        }
    }

    /// Decode an encoded index read on its own: one (offset, nbytes) pair per inner chunk
    /// in C order, `None` for inner chunks that are not stored. Offsets are checked later,
    /// by the range reads themselves.
    pub fn decode_index_bytes(
        &self,
        index: Vec<u8>,
    ) -> Result<Vec<Option<(u64, u64)>>, CodecError> {
        if index.len() != self.index_len {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "index of {} bytes, expected {}",
                    index.len(),
                    self.index_len
                ),
            ));
        }
        let decoded = self.index.decode(index)?;
        Ok(index_pairs(&decoded)
            .map(|(offset, nbytes)| {
                (offset != ABSENT || nbytes != ABSENT).then_some((offset, nbytes))
            })
            .collect())
    }

    /// Encode the shard whose decoded contents (of `repr`'s shape) are the block at
    /// `view.offset` of `source`, a C-order buffer of `view.shape`: each inner chunk is
    /// gathered straight from `source`, so a shard inside a larger buffer is encoded
    /// without first being copied out whole. The shard is built in one buffer, in place.
    ///
    /// With `parallel`, inner chunks are encoded on the rayon pool the caller runs in, a
    /// batch at a time (so at most a batch of encoded inner chunks waits to be appended).
    pub fn encode_block(
        &self,
        source: &[u8],
        view: BlockView,
        repr: &ChunkRepresentation,
        parallel: bool,
    ) -> Result<EncodedShard, CodecError> {
        let element_size = repr.data_type.size();
        let inner_nbytes = self
            .inner
            .decoded_representation()
            .size_bytes()
            .expect("checked at construction");
        let mut index: Vec<u64> = Vec::with_capacity(self.inner_chunk_count() * 2);
        // Room for the index and every inner chunk stored uncompressed: compressed shards
        // never grow the buffer, and the part left unused is never touched.
        let index_room = match self.index_location {
            IndexLocation::Start => self.index_len,
            IndexLocation::End => 0,
        };
        let mut shard = try_vec_with_capacity(
            repr.size_bytes()
                .ok_or(CodecError::OutOfMemory(usize::MAX))?
                .saturating_add(self.index_len),
        )?;
        shard.resize(index_room, 0);
        // The encoded inner chunk at `inner_indices`, `None` when it is all fill value.
        let encode_one = |inner_indices: &Vec<u64>| -> Result<Option<Vec<u8>>, CodecError> {
            let offset: Vec<u64> = inner_indices
                .iter()
                .zip(&self.inner_chunk_shape)
                .zip(view.offset)
                .map(|((i, s), o)| o + i * s)
                .collect();
            let mut inner = try_vec_with_capacity(inner_nbytes)?;
            extract_block(
                source,
                BlockView {
                    shape: view.shape,
                    offset: &offset,
                },
                &self.inner_chunk_shape,
                element_size,
                &mut inner,
            );
            if repr.fill_value.equals_all(&inner) {
                return Ok(None);
            }
            self.inner.encode(inner).map(Some)
        };
        let ranges: Vec<_> = self.chunks_per_shard.iter().map(|&n| 0..n).collect();
        let mut inner_chunks = Vec::with_capacity(self.inner_chunk_count());
        for_each_index(&ranges, |inner_indices| {
            inner_chunks.push(inner_indices.to_vec());
            Ok::<(), CodecError>(())
        })?;
        let mut append = |piece: Option<Vec<u8>>| match piece {
            None => index.extend([ABSENT, ABSENT]),
            Some(bytes) => {
                index.extend([shard.len() as u64, bytes.len() as u64]);
                shard.extend_from_slice(&bytes);
            }
        };
        if parallel {
            // Batches keep every worker busy while bounding what waits to be appended.
            const BATCH: usize = 64;
            for batch in inner_chunks.chunks(BATCH) {
                let encoded: Vec<Option<Vec<u8>>> =
                    batch.par_iter().map(encode_one).collect::<Result<_, _>>()?;
                encoded.into_iter().for_each(&mut append);
            }
        } else {
            // One at a time, each appended while still in cache.
            for inner_indices in &inner_chunks {
                append(encode_one(inner_indices)?);
            }
        }
        let all_fill = index.iter().all(|&v| v == ABSENT);
        let index_bytes: Vec<u8> = index.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let encoded_index = self.index.encode(index_bytes)?;
        if encoded_index.len() != self.index_len {
            return Err(CodecError::EncodeFailed {
                codec: NAME.to_string(),
                message: format!(
                    "index codecs produced {} bytes, expected {}",
                    encoded_index.len(),
                    self.index_len
                ),
            });
        }
        match self.index_location {
            // Offsets were taken after the room left for the index: they already count it.
            IndexLocation::Start => shard[..self.index_len].copy_from_slice(&encoded_index),
            IndexLocation::End => shard.extend_from_slice(&encoded_index),
        }
        Ok(EncodedShard {
            bytes: shard,
            all_fill,
        })
    }

    fn inner_chunk_count(&self) -> usize {
        // Validated to fit in memory (as the index size) at construction.
        checked_product(&self.chunks_per_shard).unwrap_or(0) as usize
    }

    /// The decoded index of a whole stored shard: one pair per inner chunk in C order,
    /// `None` for inner chunks that are not stored, every range checked against the shard.
    pub fn decode_index(&self, shard: &[u8]) -> Result<Vec<Option<(u64, u64)>>, CodecError> {
        if shard.len() < self.index_len {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "shard of {} bytes is shorter than its {}-byte index",
                    shard.len(),
                    self.index_len
                ),
            ));
        }
        let index_bytes = match self.index_location {
            IndexLocation::Start => &shard[..self.index_len],
            IndexLocation::End => &shard[shard.len() - self.index_len..],
        };
        let pairs = self.decode_index_bytes(index_bytes.to_vec())?;
        for (i, &(offset, nbytes)) in pairs
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((i, p.as_ref()?)))
        {
            let end = offset.checked_add(nbytes);
            if end.is_none_or(|end| end > shard.len() as u64) {
                return Err(CodecError::corrupt(
                    NAME,
                    format!(
                        "inner chunk {i} at offset {offset} with {nbytes} bytes lies outside the {}-byte shard",
                        shard.len()
                    ),
                ));
            }
        }
        Ok(pairs)
    }
}

/// The (offset, nbytes) pairs of a decoded index (host-order uint64 values).
fn index_pairs(decoded: &[u8]) -> impl Iterator<Item = (u64, u64)> + '_ {
    decoded.chunks_exact(16).map(|pair| {
        let offset = u64::from_ne_bytes(pair[..8].try_into().expect("8 bytes"));
        let nbytes = u64::from_ne_bytes(pair[8..].try_into().expect("8 bytes"));
        (offset, nbytes)
    })
}

impl ArrayToBytesCodec for ShardingCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let list = |chain: &CodecChain| {
            Value::Array(
                chain
                    .to_metadata()
                    .iter()
                    .map(NamedConfig::to_json)
                    .collect(),
            )
        };
        let mut map = Map::new();
        map.insert(
            "chunk_shape".into(),
            Value::from(self.inner_chunk_shape.clone()),
        );
        map.insert("codecs".into(), list(&self.inner));
        map.insert("index_codecs".into(), list(&self.index));
        let location = match self.index_location {
            IndexLocation::Start => "start",
            IndexLocation::End => "end",
        };
        map.insert("index_location".into(), Value::from(location));
        Some(map)
    }

    fn encode(&self, decoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let whole = BlockView {
            shape: &repr.shape,
            offset: &vec![0; repr.shape.len()],
        };
        Ok(self.encode_block(&decoded, whole, repr, false)?.bytes)
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let element_size = repr.data_type.size();
        let shard_nbytes = repr
            .size_bytes()
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let pairs = self.decode_index(&encoded)?;
        let mut shard = try_vec_with_capacity(shard_nbytes)?;
        shard.resize(shard_nbytes, 0);
        if pairs.iter().any(Option::is_none) {
            repr.fill_value.fill(&mut shard);
        }
        let ranges: Vec<_> = self.chunks_per_shard.iter().map(|&n| 0..n).collect();
        let mut pairs = pairs.into_iter();
        for_each_index(&ranges, |inner_indices| {
            let Some((offset, nbytes)) = pairs.next().expect("one pair per inner chunk") else {
                return Ok(());
            };
            // Bounds were checked when the index was decoded.
            let bytes = encoded[offset as usize..(offset + nbytes) as usize].to_vec();
            let inner = self.inner.decode(bytes)?;
            let at: Vec<u64> = inner_indices
                .iter()
                .zip(&self.inner_chunk_shape)
                .map(|(i, s)| i * s)
                .collect();
            copy_block(
                &inner,
                BlockView {
                    shape: &self.inner_chunk_shape,
                    offset: &vec![0; at.len()],
                },
                &mut shard,
                BlockView {
                    shape: &repr.shape,
                    offset: &at,
                },
                &self.inner_chunk_shape,
                element_size,
            );
            Ok::<(), CodecError>(())
        })?;
        Ok(shard)
    }

    fn encoded_len(&self, _repr: &ChunkRepresentation) -> Option<usize> {
        None
    }

    fn as_sharding(&self) -> Option<&ShardingCodec> {
        Some(self)
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
            codec(no_location, &repr).unwrap().index_location,
            IndexLocation::End
        );
    }
}
