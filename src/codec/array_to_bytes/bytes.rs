//! `bytes`: elements in C order, each in the configured byte order.

use super::ArrayToBytesCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Value};

const NAME: &str = "bytes";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    pub fn native() -> Endian {
        if cfg!(target_endian = "little") {
            Endian::Little
        } else {
            Endian::Big
        }
    }
}

/// The `bytes` codec. `endian` is `None` only for types with single-byte units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytesCodec {
    endian: Option<Endian>,
}

impl BytesCodec {
    pub fn new(endian: Option<Endian>) -> BytesCodec {
        BytesCodec { endian }
    }

    /// `{"endian": "little" | "big"}`; `endian` may be omitted only when the data type's
    /// elements are single bytes (bool, int8, uint8, raw bits).
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        data_type: DataType,
    ) -> Result<BytesCodec, CodecError> {
        let endian = match configuration {
            None => None,
            Some(configuration) => {
                if let Some(key) = configuration.keys().find(|k| k.as_str() != "endian") {
                    return Err(CodecError::config(NAME, format!("unknown key \"{key}\"")));
                }
                match configuration.get("endian") {
                    None => None,
                    Some(Value::String(s)) if s == "little" => Some(Endian::Little),
                    Some(Value::String(s)) if s == "big" => Some(Endian::Big),
                    Some(other) => {
                        return Err(CodecError::config(
                            NAME,
                            format!("endian must be \"little\" or \"big\", not {other}"),
                        ))
                    }
                }
            }
        };
        if endian.is_none() && data_type.endian_unit() > 1 {
            return Err(CodecError::config(
                NAME,
                format!("\"endian\" is required for data type {}", data_type.name()),
            ));
        }
        Ok(BytesCodec { endian })
    }

    /// Whether stored bytes differ from host order for this data type.
    fn needs_swap(&self, data_type: DataType) -> bool {
        data_type.endian_unit() > 1 && self.endian.is_some_and(|e| e != Endian::native())
    }
}

/// Reverse the bytes of every `unit`-byte group in place.
fn swap_units(data: &mut [u8], unit: usize) {
    match unit {
        2 => data.chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
        4 => data.chunks_exact_mut(4).for_each(|c| {
            let v = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]).swap_bytes();
            c.copy_from_slice(&v.to_ne_bytes());
        }),
        8 => data.chunks_exact_mut(8).for_each(|c| {
            let v = u64::from_ne_bytes(c.try_into().unwrap()).swap_bytes();
            c.copy_from_slice(&v.to_ne_bytes());
        }),
        _ => data.chunks_exact_mut(unit).for_each(|c| c.reverse()),
    }
}

impl ArrayToBytesCodec for BytesCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        self.endian.map(|endian| {
            let mut map = Map::new();
            let text = match endian {
                Endian::Little => "little",
                Endian::Big => "big",
            };
            map.insert("endian".into(), Value::from(text));
            map
        })
    }

    fn encode(
        &self,
        mut decoded: Vec<u8>,
        repr: &ChunkRepresentation,
    ) -> Result<Vec<u8>, CodecError> {
        if self.needs_swap(repr.data_type) {
            swap_units(&mut decoded, repr.data_type.endian_unit());
        }
        Ok(decoded)
    }

    fn decode(
        &self,
        mut encoded: Vec<u8>,
        repr: &ChunkRepresentation,
    ) -> Result<Vec<u8>, CodecError> {
        let expected = repr
            .size_bytes()
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        if encoded.len() != expected {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "chunk holds {} bytes but a chunk of shape {:?} of {} needs {expected}",
                    encoded.len(),
                    repr.shape,
                    repr.data_type.name()
                ),
            ));
        }
        if self.needs_swap(repr.data_type) {
            swap_units(&mut encoded, repr.data_type.endian_unit());
        }
        Ok(encoded)
    }

    fn encoded_len(&self, repr: &ChunkRepresentation) -> Option<usize> {
        repr.size_bytes()
    }

    fn is_plain_bytes(&self) -> bool {
        true
    }

    fn decode_plain_in_place(&self, data: &mut [u8], repr: &ChunkRepresentation) {
        if self.needs_swap(repr.data_type) {
            swap_units(data, repr.data_type.endian_unit());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::FillValue;

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            data_type,
            fill_value: data_type.zero_fill_value(),
        }
    }

    #[test]
    fn big_endian_swaps_each_unit() {
        let codec = BytesCodec::new(Some(Endian::Big));
        let values = [1u32, 0x01020304];
        let host: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let stored = codec
            .encode(host.clone(), &repr(&[2], DataType::UInt32))
            .unwrap();
        assert_eq!(stored, vec![0, 0, 0, 1, 1, 2, 3, 4]);
        assert_eq!(
            codec.decode(stored, &repr(&[2], DataType::UInt32)).unwrap(),
            host
        );
        // Complex numbers swap each component, not the whole element.
        let c: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let stored = codec.encode(c, &repr(&[1], DataType::Complex64)).unwrap();
        assert_eq!(&stored[..4], &1.0f32.to_be_bytes());
        let _ = FillValue::new(vec![0]);
    }

    #[test]
    fn wrong_size_is_corrupt() {
        let codec = BytesCodec::new(Some(Endian::Little));
        assert!(codec
            .decode(vec![0; 7], &repr(&[2], DataType::UInt32))
            .is_err());
    }

    #[test]
    fn endian_required_for_multibyte() {
        assert!(BytesCodec::from_configuration(None, DataType::Int16).is_err());
        assert!(BytesCodec::from_configuration(None, DataType::UInt8).is_ok());
        assert!(BytesCodec::from_configuration(None, DataType::RawBits(3)).is_ok());
    }
}
