//! `bitround` (the zarr-extensions registry codec): keep `keepbits` significant bits of
//! each value, rounding half to even on the bit pattern (lossy; the zeroed low bits
//! compress well). Decoding is the identity.
//!
//! * Floats (float16, bfloat16, float32, float64, and each component of complex64/128):
//!   `keepbits` bits of the mantissa, like `numcodecs.bitround`.
//! * Integers (and datetime64/timedelta64 as int64): `keepbits` bits counted from the most
//!   significant set bit of the value's bit pattern, as zarrs does (where the registry
//!   codec's definition comes from). Rounding that would carry out of the type saturates.
//! * Configuration: `{"keepbits": int}` (at least 1 for integers).

use super::numeric::check_len;
use super::ArrayToArrayCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue};
use serde_json::{Map, Value};

const NAME: &str = "bitround";

/// How one data type is rounded: floats of `width` bytes with a fixed mantissa, or
/// integers of `width` bytes from their top set bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rounding {
    Float { width: usize, mantissa: u32 },
    Int { width: usize },
}

fn rounding(dt: &DataType) -> Option<Rounding> {
    Some(match dt {
        DataType::Float16 => Rounding::Float {
            width: 2,
            mantissa: 10,
        },
        DataType::BFloat16 => Rounding::Float {
            width: 2,
            mantissa: 7,
        },
        DataType::Float32 | DataType::Complex64 => Rounding::Float {
            width: 4,
            mantissa: 23,
        },
        DataType::Float64 | DataType::Complex128 => Rounding::Float {
            width: 8,
            mantissa: 52,
        },
        DataType::Int8 | DataType::UInt8 => Rounding::Int { width: 1 },
        DataType::Int16 | DataType::UInt16 => Rounding::Int { width: 2 },
        DataType::Int32 | DataType::UInt32 => Rounding::Int { width: 4 },
        DataType::Int64 | DataType::UInt64 | DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
            Rounding::Int { width: 8 }
        }
        _ => return None,
    })
}

/// Round `input` to `keepbits` of its low `maxbits` bits (saturating on carry-out).
fn round_bits(input: u64, keepbits: u32, maxbits: u32, width_bits: u32) -> u64 {
    if keepbits >= maxbits {
        return input;
    }
    let maskbits = maxbits - keepbits;
    let all_set = if width_bits == 64 {
        u64::MAX
    } else {
        (1u64 << width_bits) - 1
    };
    let mask = (all_set >> maskbits) << maskbits;
    let half_quantum1 = (1u64 << (maskbits - 1)) - 1;
    let add = ((input >> maskbits) & 1) + half_quantum1;
    let sum = match input.checked_add(add) {
        Some(sum) if sum <= all_set => sum,
        _ => all_set,
    };
    sum & mask
}

/// The `bitround` codec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitroundCodec {
    keepbits: u32,
    data_type: DataType,
    rounding: Rounding,
}

impl BitroundCodec {
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<BitroundCodec, CodecError> {
        if let Some(key) = config.keys().find(|k| k.as_str() != "keepbits") {
            return Err(CodecError::config(NAME, format!("unknown key \"{key}\"")));
        }
        let rounding = rounding(data_type).ok_or_else(|| {
            CodecError::config(
                NAME,
                format!("data type {} cannot be bit-rounded", data_type.name()),
            )
        })?;
        let keepbits = config
            .get("keepbits")
            .and_then(Value::as_u64)
            .and_then(|k| u32::try_from(k).ok())
            .ok_or_else(|| {
                CodecError::config(NAME, "\"keepbits\" must be a non-negative integer")
            })?;
        if keepbits == 0 && matches!(rounding, Rounding::Int { .. }) {
            return Err(CodecError::config(
                NAME,
                "\"keepbits\" must be at least 1 for integer data",
            ));
        }
        Ok(BitroundCodec {
            keepbits,
            data_type: data_type.clone(),
            rounding,
        })
    }

    fn round(&self, data: &mut [u8]) {
        let (width, mantissa) = match self.rounding {
            Rounding::Float { width, mantissa } => (width, Some(mantissa)),
            Rounding::Int { width } => (width, None),
        };
        let width_bits = width as u32 * 8;
        for unit in data.chunks_exact_mut(width) {
            let mut bytes = [0u8; 8];
            let value = if cfg!(target_endian = "little") {
                bytes[..width].copy_from_slice(unit);
                u64::from_le_bytes(bytes)
            } else {
                bytes[8 - width..].copy_from_slice(unit);
                u64::from_be_bytes(bytes)
            };
            // Integers keep their bits from the top set one (the value is zero-extended,
            // so it has at least 64 - width_bits leading zeros).
            let maxbits = mantissa
                .unwrap_or_else(|| width_bits - (value.leading_zeros() - (64 - width_bits)));
            let rounded = round_bits(value, self.keepbits, maxbits, width_bits);
            if cfg!(target_endian = "little") {
                unit.copy_from_slice(&rounded.to_le_bytes()[..width]);
            } else {
                unit.copy_from_slice(&rounded.to_be_bytes()[8 - width..]);
            }
        }
    }
}

impl ArrayToArrayCodec for BitroundCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("keepbits".into(), Value::from(self.keepbits));
        Some(map)
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        if decoded.data_type != self.data_type {
            return Err(CodecError::config(
                NAME,
                "data type differs from the one configured",
            ));
        }
        let mut fill = decoded.fill_value.as_bytes().to_vec();
        self.round(&mut fill);
        Ok(ChunkRepresentation {
            fill_value: FillValue::new(fill),
            ..decoded.clone()
        })
    }

    fn encode(
        &self,
        mut input: Vec<u8>,
        decoded: &ChunkRepresentation,
    ) -> Result<Vec<u8>, CodecError> {
        check_len(NAME, &input, decoded, &self.data_type)?;
        self.round(&mut input);
        Ok(input)
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        check_len(NAME, &input, decoded, &self.data_type)?;
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(keepbits: u32, dt: &DataType) -> BitroundCodec {
        BitroundCodec::from_configuration(json!({"keepbits": keepbits}).as_object().unwrap(), dt)
            .unwrap()
    }

    #[test]
    fn integers_round_from_the_top_set_bit() {
        let c = codec(3, &DataType::UInt8);
        let mut data = vec![0, 1, 7, 8, 9, 13, 100, 200, 255, 0b1011_0000];
        c.round(&mut data);
        // 9 = 0b100|1 -> 0b1000 and 13 = 0b110|1 -> 0b1100 (ties to the even kept bits),
        // 100 = 0b110|0100 -> 0b110_0000, 200 = 0b110|01000 -> 0b1100_0000, and 255
        // saturates before the mask (zarrs' saturating add): 0b1110_0000.
        assert_eq!(data, vec![0, 1, 7, 8, 8, 12, 96, 192, 224, 0b1100_0000]);
        let c = codec(2, &DataType::Int32);
        let mut data: Vec<u8> = [5i32, -1].iter().flat_map(|v| v.to_ne_bytes()).collect();
        c.round(&mut data);
        let got: Vec<i32> = data
            .chunks_exact(4)
            .map(|b| i32::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got[0], 4, "0b101 -> 0b100");
        assert_eq!(
            got[1], 0xc000_0000u32 as i32,
            "all bits set saturate, then the mask"
        );
    }

    #[test]
    fn floats_match_numcodecs_bitround() {
        use crate::codec::array_to_array::bitround::BitRoundCodec;
        for (dt, keepbits) in [
            (DataType::Float32, 3),
            (DataType::Float64, 10),
            (DataType::Float16, 4),
        ] {
            let data: Vec<u8> = (0..64u32)
                .flat_map(|i| {
                    let f = (i as f64 * 1.37 - 20.0).powi(3);
                    match dt {
                        DataType::Float32 => (f as f32).to_ne_bytes().to_vec(),
                        DataType::Float16 => half::f16::from_f64(f).to_ne_bytes().to_vec(),
                        _ => f.to_ne_bytes().to_vec(),
                    }
                })
                .collect();
            let r = ChunkRepresentation {
                shape: vec![64],
                fill_value: dt.zero_fill_value(),
                data_type: dt.clone(),
            };
            let ours = codec(keepbits, &dt).encode(data.clone(), &r).unwrap();
            let numcodecs = BitRoundCodec::from_configuration(
                json!({"keepbits": keepbits}).as_object().unwrap(),
                &dt,
            )
            .unwrap()
            .encode(data, &r)
            .unwrap();
            assert_eq!(ours, numcodecs, "{dt:?}");
        }
    }

    #[test]
    fn configuration_errors() {
        for (conf, dt) in [
            (json!({}), DataType::Float32),
            (json!({"keepbits": -1}), DataType::Float32),
            (json!({"keepbits": 0}), DataType::Int8),
            (json!({"keepbits": 3, "x": 1}), DataType::Float32),
            (json!({"keepbits": 3}), DataType::Bool),
        ] {
            assert!(
                BitroundCodec::from_configuration(conf.as_object().unwrap(), &dt).is_err(),
                "{conf} {dt:?}"
            );
        }
    }
}
