//! `numcodecs.bitround`: keep `keepbits` bits of each float's mantissa, rounding half to even
//! on the bit pattern (lossy; the zeroed low bits compress well). Decoding is the identity.
//!
//! * Configuration: `{"keepbits": int}`, 0 up to the type's mantissa bits (10 for float16,
//!   23 for float32, 52 for float64). Floats only.

use super::numeric::check_len;
use super::ArrayToArrayCodec;
use crate::codec::configuration::{check_keys, get_int};
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue};
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.bitround";

/// The `numcodecs.bitround` codec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitRoundCodec {
    keepbits: u32,
    data_type: DataType,
}

fn mantissa_bits(dt: &DataType) -> Option<u32> {
    match dt {
        DataType::Float16 => Some(10),
        DataType::Float32 => Some(23),
        DataType::Float64 => Some(52),
        _ => None,
    }
}

impl BitRoundCodec {
    /// Build from a numcodecs configuration for a chunk of `data_type`.
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<Self, CodecError> {
        check_keys(config, &["keepbits"], NAME)?;
        let bits = mantissa_bits(data_type).ok_or_else(|| {
            CodecError::config(
                NAME,
                format!(
                    "only float16/32/64 data can be bit-rounded, not {}",
                    data_type.name()
                ),
            )
        })?;
        let keepbits = get_int(config, "keepbits", NAME)?
            .ok_or_else(|| CodecError::config(NAME, "missing required key 'keepbits'"))?;
        if !(0..=i64::from(bits)).contains(&keepbits) {
            return Err(CodecError::config(
                NAME,
                format!(
                    "'keepbits' must be from 0 to {bits} for {}, got {keepbits}",
                    data_type.name()
                ),
            ));
        }
        Ok(BitRoundCodec {
            keepbits: keepbits as u32,
            data_type: data_type.clone(),
        })
    }

    /// Round every element of `data` (host-order floats of the codec's type) in place.
    fn round(&self, data: &mut [u8]) {
        let bits = mantissa_bits(&self.data_type).unwrap_or(0);
        if self.keepbits >= bits {
            return;
        }
        let maskbits = bits - self.keepbits;
        // numpy works on the signed integer view: wrapping add, arithmetic shift.
        macro_rules! round_as {
            ($int:ty, $n:expr) => {{
                let mask: $int = (-1 as $int) << maskbits;
                let half_quantum1: $int = ((1 as $int) << (maskbits - 1)) - 1;
                for c in data.chunks_exact_mut($n) {
                    let mut b = <$int>::from_ne_bytes(c.try_into().expect("element size"));
                    b = b.wrapping_add(((b >> maskbits) & 1).wrapping_add(half_quantum1));
                    b &= mask;
                    c.copy_from_slice(&b.to_ne_bytes());
                }
            }};
        }
        match self.data_type {
            DataType::Float16 => round_as!(i16, 2),
            DataType::Float32 => round_as!(i32, 4),
            _ => round_as!(i64, 8),
        }
    }
}

impl ArrayToArrayCodec for BitRoundCodec {
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
        if fill.len() == self.data_type.size() {
            self.round(&mut fill);
        }
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
    use super::super::numeric::test_support::*;
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::{config, hex};
    use serde_json::json;

    #[test]
    fn matches_numcodecs() {
        // (keepbits, type, input, encoded), little-endian hex, numcodecs 0.16.6.
        for (keepbits, dt, input, enc) in [
            (
                3,
                DataType::Float32,
                "cdcc8c3f00002040cdcc6cc0acc527370000807f",
                "0000903f00002040000070c0000020370000807f",
            ),
            (
                10,
                DataType::Float64,
                "9a9999999999f13f00000000000004409a99999999990dc0f168e388b5f8e43e",
                "000000000098f13f00000000000004400000000000980dc00000000000f8e43e",
            ),
            (2, DataType::Float16, "663c004166c31914", "003c004100c30014"),
            (
                0,
                DataType::Float32,
                "cdcc8c3f00002040cdcc6cc000004040",
                "0000803f00000040000080c000000040",
            ),
        ] {
            let c = BitRoundCodec::from_configuration(&config(json!({"keepbits": keepbits})), &dt)
                .unwrap();
            let input = from_le(dt.clone(), &hex(input));
            let r = repr((input.len() / dt.size()) as u64, dt.clone());
            let got = c.encode(input, &r).unwrap();
            assert_eq!(got, from_le(dt.clone(), &hex(enc)), "{keepbits} {dt:?}");
            assert_eq!(c.decode(got.clone(), &r).unwrap(), got);
        }
        // keepbits equal to the mantissa width is the identity.
        let c =
            BitRoundCodec::from_configuration(&config(json!({"keepbits": 23})), &DataType::Float32)
                .unwrap();
        let input = from_le(DataType::Float32, &hex("cdcc8c3f"));
        assert_eq!(
            c.encode(input.clone(), &repr(1, DataType::Float32))
                .unwrap(),
            input
        );
    }

    #[test]
    fn configuration_rules() {
        let c =
            BitRoundCodec::from_configuration(&config(json!({"keepbits": 5})), &DataType::Float64)
                .unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"keepbits": 5})
        );
        for (bad, dt) in [
            (json!({"keepbits": 24}), DataType::Float32),
            (json!({"keepbits": 11}), DataType::Float16),
            (json!({"keepbits": -1}), DataType::Float64),
            (json!({}), DataType::Float64),
            (json!({"keepbits": 3}), DataType::Int32),
            (json!({"keepbits": 3, "dtype": "<f8"}), DataType::Float64),
        ] {
            assert!(
                matches!(
                    BitRoundCodec::from_configuration(&config(bad.clone()), &dt),
                    Err(CodecError::InvalidConfiguration { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            c.decode(vec![0; 7], &repr(1, DataType::Float64)),
            Err(CodecError::Corrupt { .. })
        ));
    }
}
