//! `packbits` (zarr-extensions registry, as zarrs implements it): the bits `first_bit ..=
//! last_bit` of every component (an element, or each part of a complex number), packed
//! one after the other, least significant bit first, into bytes.
//!
//! * Components: bool 1 bit; int8/uint8/float8 8; int16/uint16/float16/bfloat16 16;
//!   int32/uint32/float32 32; int64/uint64/float64/datetime64/timedelta64 64; complex64 two
//!   of 32, complex128 two of 64; int2/uint2 2 bits, int4/uint4/float4_e2m1fn 4, float6_*
//!   6 (the code in the low bits of the host byte); `complex_<type>` two of the component's
//!   width. Bits are numbered from the least significant bit of the component's
//!   little-endian value.
//! * Configuration (all optional): `padding_encoding` "none" (default), "first_byte" or
//!   "last_byte" (one extra byte holding the number of padding bits of the last byte),
//!   `first_bit` (0) and `last_bit` (the component's last bit), null meaning the default.
//! * Decoding sets the bits outside the range to zero, except that signed integers are
//!   sign-extended from `last_bit` (not int2 and int4, whose host bytes hold the code with
//!   the upper bits zero).

use super::ArrayToBytesCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Value};

const NAME: &str = "packbits";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Padding {
    None,
    FirstByte,
    LastByte,
}

/// The `packbits` codec for one data type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackBitsCodec {
    padding: Padding,
    first_bit_given: Option<u64>,
    last_bit_given: Option<u64>,
    first_bit: u32,
    last_bit: u32,
    /// Size of one component in bits, components per element, sign extension.
    component_bits: u32,
    components: usize,
    signed: bool,
}

fn components(dt: &DataType) -> Option<(u32, usize, bool)> {
    Some(match dt {
        DataType::Bool => (1, 1, false),
        DataType::Int8 => (8, 1, true),
        DataType::UInt8 | DataType::Float8(_) => (8, 1, false),
        DataType::Int16 => (16, 1, true),
        DataType::UInt16 | DataType::Float16 | DataType::BFloat16 => (16, 1, false),
        DataType::Int32 => (32, 1, true),
        DataType::UInt32 | DataType::Float32 => (32, 1, false),
        DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_) => (64, 1, true),
        DataType::UInt64 | DataType::Float64 => (64, 1, false),
        DataType::Complex64 => (32, 2, false),
        DataType::Complex128 => (64, 2, false),
        // The sub-byte types are their codes; decoding leaves a signed code (int2, int4)
        // as it is, not sign-extended, since that is their host layout.
        DataType::SubByteInt(_) | DataType::SubByteFloat(_) => (dt.code_bits()?, 1, false),
        DataType::Complex(part) => {
            let bits = match part.data_type().code_bits() {
                Some(bits) => bits,
                None => u32::try_from(part.size() * 8).ok()?,
            };
            (bits, 2, false)
        }
        _ => return None,
    })
}

fn config_error(message: impl Into<String>) -> CodecError {
    CodecError::config(NAME, message)
}

impl PackBitsCodec {
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        data_type: &DataType,
    ) -> Result<PackBitsCodec, CodecError> {
        let empty = Map::new();
        let config = configuration.unwrap_or(&empty);
        if let Some(key) = config
            .keys()
            .find(|k| !matches!(k.as_str(), "padding_encoding" | "first_bit" | "last_bit"))
        {
            return Err(config_error(format!("unknown key \"{key}\"")));
        }
        let (component_bits, components, signed) = components(data_type).ok_or_else(|| {
            config_error(format!(
                "data type {} cannot be bit-packed",
                data_type.name()
            ))
        })?;
        let padding = match config.get("padding_encoding") {
            None | Some(Value::Null) => Padding::None,
            Some(Value::String(s)) if s == "none" => Padding::None,
            Some(Value::String(s)) if s == "first_byte" => Padding::FirstByte,
            Some(Value::String(s)) if s == "last_byte" => Padding::LastByte,
            Some(other) => {
                return Err(config_error(format!(
                "padding_encoding must be \"none\", \"first_byte\" or \"last_byte\", not {other}"
            )))
            }
        };
        let bit = |key: &str| match config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                config_error(format!("{key} must be a non-negative integer or null"))
            }),
        };
        let (first_bit_given, last_bit_given) = (bit("first_bit")?, bit("last_bit")?);
        let first_bit = first_bit_given.unwrap_or(0);
        let last_bit = last_bit_given.unwrap_or(u64::from(component_bits) - 1);
        if last_bit < first_bit || last_bit >= u64::from(component_bits) {
            return Err(config_error(format!(
                "first_bit {first_bit} and last_bit {last_bit} must satisfy first_bit <= \
                 last_bit < {component_bits} for {}",
                data_type.name()
            )));
        }
        Ok(PackBitsCodec {
            padding,
            first_bit_given,
            last_bit_given,
            first_bit: first_bit as u32,
            last_bit: last_bit as u32,
            component_bits,
            components,
            signed,
        })
    }

    fn extracted_bits(&self) -> u32 {
        self.last_bit - self.first_bit + 1
    }

    /// Bytes of the packed bits of `n` elements, and the padding bits of the last byte.
    fn packed_len(&self, n: usize) -> Option<(usize, u8)> {
        let bits = n
            .checked_mul(self.components)?
            .checked_mul(self.extracted_bits() as usize)?;
        let padding = ((8 - bits % 8) % 8) as u8;
        Some((bits.div_ceil(8), padding))
    }

    fn component_bytes(&self) -> usize {
        (self.component_bits as usize).div_ceil(8)
    }

    /// A component's value (its little-endian bits) from host-order bytes.
    fn read_component(&self, b: &[u8]) -> u64 {
        let mut word = [0u8; 8];
        word[..b.len()].copy_from_slice(b);
        if cfg!(target_endian = "little") || b.len() == 1 {
            u64::from_le_bytes(word)
        } else {
            let mut be = [0u8; 8];
            be[8 - b.len()..].copy_from_slice(b);
            u64::from_be_bytes(be)
        }
    }

    fn write_component(&self, v: u64, out: &mut [u8]) {
        let n = out.len();
        if cfg!(target_endian = "little") || n == 1 {
            out.copy_from_slice(&v.to_le_bytes()[..n]);
        } else {
            out.copy_from_slice(&v.to_be_bytes()[8 - n..]);
        }
    }
}

impl ArrayToBytesCodec for PackBitsCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        let padding = match self.padding {
            Padding::None => "none",
            Padding::FirstByte => "first_byte",
            Padding::LastByte => "last_byte",
        };
        map.insert("padding_encoding".into(), Value::from(padding));
        map.insert(
            "first_bit".into(),
            self.first_bit_given.map_or(Value::Null, Value::from),
        );
        map.insert(
            "last_bit".into(),
            self.last_bit_given.map_or(Value::Null, Value::from),
        );
        Some(map)
    }

    fn encode(&self, decoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let n = repr
            .num_elements()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let (len, padding) = self
            .packed_len(n)
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let extra = usize::from(self.padding != Padding::None);
        let mut out = crate::codec::try_vec_with_capacity(len + extra)?;
        out.resize(len + extra, 0);
        let start = usize::from(self.padding == Padding::FirstByte);
        match self.padding {
            Padding::None => {}
            Padding::FirstByte => out[0] = padding,
            Padding::LastByte => out[len] = padding,
        }
        let width = self.extracted_bits();
        let mut bit_out = 0usize;
        for component in decoded.chunks_exact(self.component_bytes()) {
            let v = self.read_component(component) >> self.first_bit;
            for bit in 0..width {
                if (v >> bit) & 1 == 1 {
                    out[start + bit_out / 8] |= 1 << (bit_out % 8);
                }
                bit_out += 1;
            }
        }
        Ok(out)
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let n = repr
            .num_elements()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let (len, padding) = self
            .packed_len(n)
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let extra = usize::from(self.padding != Padding::None);
        if encoded.len() != len + extra {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "the chunk holds {} bytes, {} elements need {}",
                    encoded.len(),
                    n,
                    len + extra
                ),
            ));
        }
        let (packed, marker) = match self.padding {
            Padding::None => (&encoded[..], None),
            Padding::FirstByte => (&encoded[1..], Some(encoded[0])),
            Padding::LastByte => (&encoded[..len], Some(encoded[len])),
        };
        if marker.is_some_and(|m| m != padding) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "the padding byte says {} bits, expected {padding}",
                    marker.unwrap_or(0)
                ),
            ));
        }
        let size = repr
            .size_bytes()
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let mut out = crate::codec::try_vec_with_capacity(size)?;
        out.resize(size, 0);
        let width = self.extracted_bits();
        let component_bytes = self.component_bytes();
        let mut bit_in = 0usize;
        for component in out.chunks_exact_mut(component_bytes) {
            let mut v = 0u64;
            for bit in 0..width {
                if (packed[bit_in / 8] >> (bit_in % 8)) & 1 == 1 {
                    v |= 1 << bit;
                }
                bit_in += 1;
            }
            let negative = self.signed && (v >> (width - 1)) & 1 == 1;
            let mut v = v << self.first_bit;
            if negative && self.last_bit < 63 {
                // Sign-extend above the top extracted bit.
                v |= u64::MAX << (self.last_bit + 1);
            }
            let mask = if self.component_bits == 64 {
                u64::MAX
            } else {
                (1u64 << self.component_bits) - 1
            };
            self.write_component(v & mask, component);
        }
        Ok(out)
    }

    fn encoded_len(&self, repr: &ChunkRepresentation) -> Option<usize> {
        let n = usize::try_from(repr.num_elements()?).ok()?;
        let (len, _) = self.packed_len(n)?;
        Some(len + usize::from(self.padding != Padding::None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(conf: Value, dt: &DataType) -> Result<PackBitsCodec, CodecError> {
        PackBitsCodec::from_configuration(Some(conf.as_object().unwrap()), dt)
    }

    fn repr(n: u64, dt: &DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: vec![n],
            fill_value: dt.zero_fill_value(),
            data_type: dt.clone(),
        }
    }

    #[test]
    fn booleans_one_bit_each_lsb_first() {
        let dt = DataType::Bool;
        let c = codec(json!({"padding_encoding": "first_byte"}), &dt).unwrap();
        let data = vec![1, 0, 1, 1, 0, 0, 0, 0, 1, 1];
        let encoded = c.encode(data.clone(), &repr(10, &dt)).unwrap();
        // 10 bits: 0b0000_1101, 0b0000_0011, and 6 padding bits announced first.
        assert_eq!(encoded, vec![6, 0b0000_1101, 0b0000_0011]);
        assert_eq!(c.decode(encoded.clone(), &repr(10, &dt)).unwrap(), data);
        let mut bad = encoded;
        bad[0] = 5;
        assert!(matches!(
            c.decode(bad, &repr(10, &dt)),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(c.decode(vec![6, 1], &repr(10, &dt)).is_err(), "too short");
    }

    #[test]
    fn bit_ranges_and_sign_extension() {
        let dt = DataType::Int16;
        // Keep bits 0..=11 of each int16 (12-bit signed values).
        let c = codec(json!({"last_bit": 11}), &dt).unwrap();
        let values = [-2048i16, 2047, -1, 5];
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let encoded = c.encode(data.clone(), &repr(4, &dt)).unwrap();
        assert_eq!(encoded.len(), 6, "4 x 12 bits");
        assert_eq!(c.decode(encoded, &repr(4, &dt)).unwrap(), data);
        // Full width is the little-endian bytes.
        let c = codec(json!({}), &DataType::UInt32).unwrap();
        let data: Vec<u8> = [0x0102_0304u32]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(
            c.encode(data, &repr(1, &DataType::UInt32)).unwrap(),
            vec![4, 3, 2, 1]
        );
        // Bits 4..=7 of uint8.
        let c = codec(json!({"first_bit": 4, "last_bit": 7}), &DataType::UInt8).unwrap();
        let encoded = c
            .encode(vec![0xAB, 0xCD], &repr(2, &DataType::UInt8))
            .unwrap();
        assert_eq!(encoded, vec![0xCA]);
        assert_eq!(
            c.decode(encoded, &repr(2, &DataType::UInt8)).unwrap(),
            vec![0xA0, 0xC0]
        );
    }

    /// The registry's sub-byte types pack their codes (2, 4 or 6 bits), complex types each
    /// component; decoding gives the host layout, int4 -1 as 0x0f (not sign-extended).
    #[test]
    fn registry_sub_byte_types() {
        let int4 = DataType::from_name("int4").unwrap();
        let c = codec(json!({}), &int4).unwrap();
        let host = vec![0x0f, 0x01, 0x08];
        let packed = c.encode(host.clone(), &repr(3, &int4)).unwrap();
        assert_eq!(packed, vec![0x1f, 0x08]);
        assert_eq!(c.decode(packed, &repr(3, &int4)).unwrap(), host);
        let f6 = DataType::from_name("float6_e3m2fn").unwrap();
        let c = codec(json!({"padding_encoding": "last_byte"}), &f6).unwrap();
        let host = vec![0x3f, 0x00, 0x2a];
        let packed = c.encode(host.clone(), &repr(3, &f6)).unwrap();
        // 18 bits, least significant first: 111111 000000 010101 (0x2a), then 6 padding
        // bits announced last.
        assert_eq!(packed, vec![0x3f, 0xa0, 0x02, 6]);
        assert_eq!(c.decode(packed, &repr(3, &f6)).unwrap(), host);
        let int2 = DataType::from_name("int2").unwrap();
        assert!(
            codec(json!({"last_bit": 2}), &int2).is_err(),
            "int2 has 2 bits"
        );
        let cf4 = DataType::from_name("complex_float4_e2m1fn").unwrap();
        let c = codec(json!({}), &cf4).unwrap();
        assert_eq!(
            c.encode(vec![0x01, 0x02, 0x0f, 0x08], &repr(2, &cf4))
                .unwrap(),
            vec![0x21, 0x8f]
        );
        let cbf = DataType::from_name("complex_bfloat16").unwrap();
        let c = codec(json!({}), &cbf).unwrap();
        let host: Vec<u8> = [0x3f80u16, 0xc040]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let packed = c.encode(host.clone(), &repr(1, &cbf)).unwrap();
        assert_eq!(packed, vec![0x80, 0x3f, 0x40, 0xc0]);
        assert_eq!(c.decode(packed, &repr(1, &cbf)).unwrap(), host);
    }

    #[test]
    fn configurations() {
        for (conf, dt) in [
            (json!({"first_bit": 3, "last_bit": 2}), DataType::UInt8),
            (json!({"last_bit": 8}), DataType::UInt8),
            (json!({"padding_encoding": "middle"}), DataType::Bool),
            (json!({"start_bit": 0}), DataType::Bool),
            (json!({}), DataType::NullTerminatedBytes(2)),
        ] {
            assert!(codec(conf.clone(), &dt).is_err(), "{conf} {dt:?}");
        }
        let c = codec(json!({}), &DataType::Bool).unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"padding_encoding": "none", "first_bit": null, "last_bit": null})
        );
    }
}
