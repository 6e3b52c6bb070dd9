//! Array -> bytes codecs: serialise a chunk's elements into a byte string.
//!
//! Besides encoding and decoding whole chunks, every array->bytes codec decodes a region of
//! a chunk straight into the caller's buffer ([`ArrayToBytesCodec::decode_region`]) and
//! encodes a chunk from a block of the caller's buffer, whole or as an update of what is
//! stored ([`ArrayToBytesCodec::encode_block`], [`ArrayToBytesCodec::encode_update`]). The
//! defaults work on whole chunks; `bytes` reads only the byte runs a region needs, and
//! sharding reads its index, then only the inner chunks a region needs.

pub mod bytes;
pub mod n5_default;
pub mod packbits;
pub mod pcodec;
pub mod sharding;
pub mod zfp;

use super::{ChunkRepresentation, CodecError, Parallelism};
use crate::layout::{InBlock, Layout};
use crate::storage::source::ByteSource;
use crate::sys::shared_out::OutBlock;
use serde_json::{Map, Value};
use std::fmt::Debug;

/// A codec that serialises a C-order, host-order array into bytes.
pub trait ArrayToBytesCodec: Debug + Send + Sync {
    fn name(&self) -> &'static str;
    fn configuration(&self) -> Option<Map<String, Value>>;
    /// Encode a decoded chunk (`decoded.len()` equals `repr.size_bytes()`).
    fn encode(&self, decoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError>;
    /// Decode into a chunk of `repr.size_bytes()` bytes; any other size is corruption.
    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError>;
    /// The encoded size when it depends only on the representation.
    fn encoded_len(&self, repr: &ChunkRepresentation) -> Option<usize>;

    /// The most bytes a chunk of `repr` can be encoded into (what bounds the decoding of
    /// the codecs after this one); `None` when nothing bounds it.
    fn max_encoded_len(&self, repr: &ChunkRepresentation) -> Option<usize> {
        self.encoded_len(repr)
    }

    /// Decode the block of the chunk stored in `source` that starts at `offset` (in the
    /// chunk) and has `out`'s extent, into `out`. `Ok(false)` when the chunk is not stored
    /// (`out` untouched). On error, `out` may be partly written.
    ///
    /// The default reads and decodes the whole chunk, then copies the block.
    fn decode_region(
        &self,
        source: &dyn ByteSource,
        repr: &ChunkRepresentation,
        offset: &[u64],
        out: &mut OutBlock,
        parallelism: Parallelism,
    ) -> Result<bool, CodecError> {
        let _ = parallelism;
        let Some(encoded) = source.read_all()? else {
            return Ok(false);
        };
        let decoded = self.decode(encoded, repr)?;
        out.copy_from(&decoded, &chunk_layout(repr)?, offset);
        Ok(true)
    }

    /// Whether [`ArrayToBytesCodec::decode_region`] of this block reads less than the
    /// whole stored chunk (so that a shard should not fetch the chunk whole for it).
    fn reads_part(&self, repr: &ChunkRepresentation, offset: &[u64], extent: &[u64]) -> bool {
        let _ = (repr, offset, extent);
        false
    }

    /// Decode in place: when a chunk's encoded bytes are its decoded elements up to an
    /// in-place transformation (byte order), apply it to `data` (exactly the chunk's
    /// size) and return `true`; `false` when this codec cannot decode in place.
    fn decode_in_place(
        &self,
        data: &mut [u8],
        repr: &ChunkRepresentation,
    ) -> Result<bool, CodecError> {
        let _ = (data, repr);
        Ok(false)
    }

    /// Encode the chunk whose decoded contents are `input` (of `repr`'s shape), or
    /// `Ok(None)` when every element equals the fill value (such a chunk is not stored).
    ///
    /// The default gathers the block, then encodes it whole.
    fn encode_block(
        &self,
        input: &InBlock,
        repr: &ChunkRepresentation,
        parallelism: Parallelism,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let _ = parallelism;
        let decoded = gather(input)?;
        if repr.fill_value.equals_all(&decoded) {
            return Ok(None);
        }
        self.encode(decoded, repr).map(Some)
    }

    /// Encode the chunk stored as `existing` (`None`: not stored, all fill value) with the
    /// block `input` written at `offset`; `Ok(None)` when the result is all fill value.
    ///
    /// The default decodes the whole chunk, writes the block into it and encodes it whole.
    fn encode_update(
        &self,
        existing: Option<Vec<u8>>,
        repr: &ChunkRepresentation,
        offset: &[u64],
        input: &InBlock,
        parallelism: Parallelism,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let _ = parallelism;
        let mut chunk = match existing {
            Some(encoded) => self.decode(encoded, repr)?,
            None => fill_chunk(repr)?,
        };
        input.copy_to(&mut chunk, &chunk_layout(repr)?, offset);
        if repr.fill_value.equals_all(&chunk) {
            return Ok(None);
        }
        self.encode(chunk, repr).map(Some)
    }

    /// The shape of the smallest parts of a chunk that decode on their own, when a chunk
    /// has such parts (the inner chunks of a shard).
    fn inner_chunk_shape(&self) -> Option<&[u64]> {
        None
    }

    /// Sharding: the shard's layout and the chain of its inner chunks, for building a shard
    /// one inner chunk at a time (`sharding::ShardBuilder`).
    fn shard_parts(&self) -> Option<(&sharding::ShardLayout, &super::chain::CodecChain)> {
        None
    }
}

/// The dense C-order layout of a chunk of `repr`.
pub(crate) fn chunk_layout(repr: &ChunkRepresentation) -> Result<Layout, CodecError> {
    Layout::c_order(&repr.shape, repr.data_type.size())
        .map_err(|_| CodecError::OutOfMemory(repr.size_bytes().unwrap_or(usize::MAX)))
}

/// A block's elements gathered dense, in C order, into a new buffer.
pub(crate) fn gather(input: &InBlock) -> Result<Vec<u8>, CodecError> {
    let n: u64 = input.extent().iter().product();
    let len = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(input.element_size()))
        .ok_or(CodecError::OutOfMemory(usize::MAX))?;
    let mut out = super::try_vec_with_capacity(len)?;
    input.gather_into(&mut out);
    Ok(out)
}

/// A chunk of `repr` holding the fill value everywhere.
pub(crate) fn fill_chunk(repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
    let len = repr
        .size_bytes()
        .ok_or(CodecError::OutOfMemory(usize::MAX))?;
    let mut chunk = super::try_vec_with_capacity(len)?;
    chunk.resize(len, 0);
    repr.fill_value.fill(&mut chunk);
    Ok(chunk)
}

/// Build an array->bytes codec, or `Ok(None)` when `name` is not one.
pub fn from_metadata(
    name: &str,
    configuration: Option<&Map<String, Value>>,
    decoded: &ChunkRepresentation,
) -> Result<Option<Box<dyn ArrayToBytesCodec>>, CodecError> {
    Ok(match name {
        // `endian` is the codec's name in the 2022 drafts.
        "bytes" | "endian" => Some(Box::new(bytes::BytesCodec::from_configuration(
            configuration,
            &decoded.data_type,
        )?)),
        "sharding_indexed" => Some(Box::new(sharding::ShardingCodec::from_configuration(
            configuration,
            decoded,
        )?)),
        "packbits" => Some(Box::new(packbits::PackBitsCodec::from_configuration(
            configuration,
            &decoded.data_type,
        )?)),
        "zfp" => Some(Box::new(zfp::ZfpCodec::from_configuration(
            configuration,
            &decoded.data_type,
        )?)),
        "numcodecs.zfpy" => Some(Box::new(zfp::ZfpCodec::from_numcodecs(
            configuration,
            &decoded.data_type,
        )?)),
        "n5_default" => Some(Box::new(n5_default::N5DefaultCodec::from_configuration(
            configuration,
            decoded,
        )?)),
        "numcodecs.pcodec" => Some(Box::new(pcodec::PcodecCodec::from_configuration(
            configuration,
            &decoded.data_type,
        )?)),
        _ => None,
    })
}
