//! Bytes -> bytes codecs: compressors and checksums.

pub mod blosc;
pub mod crc32c;
pub mod gzip;
pub mod zstd;

use super::CodecError;
use serde_json::{Map, Value};
use std::fmt::Debug;

/// A codec that maps a byte string to a byte string.
pub trait BytesToBytesCodec: Debug + Send + Sync {
    /// The codec's registered name, as written in `zarr.json`.
    fn name(&self) -> &'static str;

    /// The full configuration to write into `zarr.json` (every key spelled out, so that
    /// readers with other defaults decode the same way). `None` means no configuration.
    fn configuration(&self) -> Option<Map<String, Value>>;

    /// Encode `input`.
    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError>;

    /// Decode `input`. `decoded_len` is the exact decoded size when the caller knows it
    /// (it always does for the last bytes->bytes codec before the array->bytes codec); a
    /// decoder must reject output of another size and must never allocate more than
    /// `decoded_len` bytes when it is given (protection against decompression bombs).
    fn decode(&self, input: Vec<u8>, decoded_len: Option<usize>) -> Result<Vec<u8>, CodecError>;

    /// The encoded size for a given decoded size, when it is fixed (checksums); `None` for
    /// variable-size codecs (compressors).
    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        let _ = decoded_len;
        None
    }
}

/// Build a bytes->bytes codec from its name and configuration.
///
/// `element_size` is the size in bytes of one element of the array the chain belongs to
/// (blosc uses it as the default `typesize`). Returns `Ok(None)` when `name` is not a
/// bytes->bytes codec, so that the caller can try the other kinds.
pub fn from_metadata(
    name: &str,
    configuration: Option<&Map<String, Value>>,
    element_size: usize,
) -> Result<Option<Box<dyn BytesToBytesCodec>>, CodecError> {
    let empty = Map::new();
    let config = configuration.unwrap_or(&empty);
    Ok(Some(match name {
        "gzip" => Box::new(gzip::GzipCodec::from_configuration(config)?),
        "zstd" => Box::new(zstd::ZstdCodec::from_configuration(config)?),
        "blosc" => Box::new(blosc::BloscCodec::from_configuration(config, element_size)?),
        "crc32c" => Box::new(crc32c::Crc32cCodec::from_configuration(config)?),
        _ => return Ok(None),
    }))
}

/// Helpers shared by the codecs' unit tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::codec::CodecError;
    use serde_json::{Map, Value};

    /// A JSON object literal as a configuration map.
    pub fn config(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    /// Bytes from a hex string (white space ignored).
    pub fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Deterministic pseudo-random bytes (xorshift), compressible when `modulo` is small.
    pub fn data(len: usize, seed: u64, modulo: u8) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x as u8) % modulo
            })
            .collect()
    }

    pub fn is_corrupt(r: Result<Vec<u8>, CodecError>) -> bool {
        matches!(r, Err(CodecError::Corrupt { .. }))
    }
}
