//! `numcodecs.packbits`: numcodecs' filter packing a bool chunk into bits, as
//! `numcodecs.PackBits` does (not the registry's `packbits` array -> bytes codec, which
//! packs any type LSB-first).
//!
//! The encoded chunk is 1-dimensional uint8: one byte giving the number of padding bits in
//! the last byte (0 to 7), then the elements in C order, eight per byte, the first in the
//! most significant bit (numpy's `packbits`). No configuration.

use super::ArrayToArrayCodec;
use crate::codec::configuration::check_keys;
use crate::codec::{try_vec_with_capacity, ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.packbits";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackBitsCodec;

impl PackBitsCodec {
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<Self, CodecError> {
        check_keys(config, &[], NAME)?;
        if *data_type != DataType::Bool {
            return Err(CodecError::config(
                NAME,
                format!(
                    "packs bool arrays only, not '{}' (use the registry's `packbits` codec)",
                    data_type.name()
                ),
            ));
        }
        Ok(PackBitsCodec)
    }
}

/// The number of elements of a chunk and the padding bits its packing ends with.
fn sizes(decoded: &ChunkRepresentation) -> Result<(usize, u8), CodecError> {
    let n = decoded
        .num_elements()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(CodecError::OutOfMemory(usize::MAX))?;
    Ok((n, ((8 - n % 8) % 8) as u8))
}

impl ArrayToArrayCodec for PackBitsCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        Some(Map::new())
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        let (n, _) = sizes(decoded)?;
        Ok(ChunkRepresentation {
            shape: vec![1 + n.div_ceil(8) as u64],
            data_type: DataType::UInt8,
            fill_value: DataType::UInt8.zero_fill_value(),
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (n, padding) = sizes(decoded)?;
        if input.len() != n {
            return Err(CodecError::Internal {
                codec: NAME.into(),
                message: format!("{} bytes to encode for {n} elements", input.len()),
            });
        }
        let mut out = try_vec_with_capacity(1 + n.div_ceil(8))?;
        out.push(padding);
        for group in input.chunks(8) {
            let mut byte = 0u8;
            for (k, &v) in group.iter().enumerate() {
                if v != 0 {
                    byte |= 0x80 >> k;
                }
            }
            out.push(byte);
        }
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (n, padding) = sizes(decoded)?;
        if input.len() != 1 + n.div_ceil(8) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "{} bytes is not the packing of {n} bools ({} bytes)",
                    input.len(),
                    1 + n.div_ceil(8)
                ),
            ));
        }
        if input[0] != padding {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "the header says {} padding bits, {n} bools have {padding}",
                    input[0]
                ),
            ));
        }
        let mut out = try_vec_with_capacity(n)?;
        out.extend((0..n).map(|i| (input[1 + i / 8] >> (7 - i % 8)) & 1));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::config;
    use serde_json::json;

    fn repr(n: u64) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: vec![n],
            fill_value: DataType::Bool.zero_fill_value(),
            data_type: DataType::Bool,
        }
    }

    #[test]
    fn packs_like_numpy_packbits() {
        let c = PackBitsCodec::from_configuration(&Map::new(), &DataType::Bool).unwrap();
        // numcodecs.PackBits().encode(np.array([1,0,0,1,0,0,1,0,0,1], bool)) == [6, 0x92, 0x40]
        let input = vec![1, 0, 0, 1, 0, 0, 1, 0, 0, 1];
        let r = repr(10);
        assert_eq!(c.encoded_representation(&r).unwrap().shape, vec![3]);
        let encoded = c.encode(input.clone(), &r).unwrap();
        assert_eq!(encoded, vec![6, 0x92, 0x40]);
        assert_eq!(c.decode(encoded, &r).unwrap(), input);
        // A multiple of 8: no padding.
        let r = repr(8);
        let encoded = c.encode(vec![1; 8], &r).unwrap();
        assert_eq!(encoded, vec![0, 0xff]);
        assert_eq!(c.decode(encoded, &r).unwrap(), vec![1; 8]);
    }

    #[test]
    fn corrupt_and_invalid() {
        let c = PackBitsCodec;
        let r = repr(10);
        for bad in [
            vec![6, 0x92],
            vec![6, 0x92, 0x40, 0],
            vec![5, 0x92, 0x40],
            vec![],
        ] {
            assert!(matches!(
                c.decode(bad.clone(), &r),
                Err(CodecError::Corrupt { .. })
            ));
        }
        assert!(matches!(
            PackBitsCodec::from_configuration(&Map::new(), &DataType::UInt8),
            Err(CodecError::InvalidConfiguration { .. })
        ));
        assert!(matches!(
            PackBitsCodec::from_configuration(&config(json!({"x": 1})), &DataType::Bool),
            Err(CodecError::InvalidConfiguration { .. })
        ));
    }
}
