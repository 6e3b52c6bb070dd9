//! Array -> bytes codecs: serialise a chunk's elements into a byte string.

pub mod bytes;
pub mod packbits;
pub mod pcodec;
pub mod sharding;
pub mod zfp;

use super::{ChunkRepresentation, CodecError};
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

    /// Whether this is the `bytes` codec: its encoding of a chunk is the elements in C
    /// order, so any element's bytes can be located without decoding the rest.
    fn is_plain_bytes(&self) -> bool {
        false
    }

    /// Decode in place the bytes of a whole chunk, already in `data`: only for codecs that
    /// are [`ArrayToBytesCodec::is_plain_bytes`], whose decoding is at most a byte swap.
    fn decode_plain_in_place(&self, data: &mut [u8], repr: &ChunkRepresentation) {
        let _ = (data, repr);
        unreachable!("only the bytes codec decodes in place");
    }

    /// This codec as the sharding codec, when it is one: the array layer then reads
    /// shards piecewise (index first, then only the inner chunks it needs).
    fn as_sharding(&self) -> Option<&sharding::ShardingCodec> {
        None
    }
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
        "numcodecs.pcodec" => Some(Box::new(pcodec::PcodecCodec::from_configuration(
            configuration,
            &decoded.data_type,
        )?)),
        _ => None,
    })
}
