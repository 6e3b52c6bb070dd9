//! `numcodecs.astype`: store the chunk cast to another numeric type (numpy's `astype`:
//! integers wrap, floats round to nearest, floats to integers truncate toward zero).
//!
//! * Configuration: `{"encode_dtype": numpy dtype (required), "decode_dtype": numpy dtype
//!   (the chunk's; when missing, the chunk's type, as zarr-python assumes)}`.

use super::numeric::{check_len, check_matches, get_dtype, map_elements, map_fill, NumpyDtype};
use super::ArrayToArrayCodec;
use crate::codec::configuration::check_keys;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.astype";

/// The `numcodecs.astype` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct AsTypeCodec {
    encode_dtype: NumpyDtype,
    decode_dtype: NumpyDtype,
}

impl AsTypeCodec {
    /// Build from a numcodecs configuration for a chunk of `data_type`.
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<Self, CodecError> {
        check_keys(config, &["encode_dtype", "decode_dtype"], NAME)?;
        let encode_dtype = get_dtype(config, "encode_dtype", NAME)?
            .ok_or_else(|| CodecError::config(NAME, "missing required key 'encode_dtype'"))?;
        let decode_dtype = get_dtype(config, "decode_dtype", NAME)?
            .unwrap_or_else(|| NumpyDtype::native(data_type));
        check_matches(NAME, "decode_dtype", &decode_dtype, data_type)?;
        Ok(AsTypeCodec {
            encode_dtype,
            decode_dtype,
        })
    }
}

impl ArrayToArrayCodec for AsTypeCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("encode_dtype".into(), self.encode_dtype.to_json());
        map.insert("decode_dtype".into(), self.decode_dtype.to_json());
        Some(map)
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        let (d, e) = (&self.decode_dtype.data_type, &self.encode_dtype.data_type);
        Ok(ChunkRepresentation {
            shape: decoded.shape.clone(),
            data_type: e.clone(),
            fill_value: map_fill(NAME, &decoded.fill_value, d, e, |x| x)?,
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (d, e) = (&self.decode_dtype.data_type, &self.encode_dtype.data_type);
        check_len(NAME, &input, decoded, d)?;
        if d == e {
            return Ok(input);
        }
        map_elements(NAME, &input, d, e, |x| x)
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (d, e) = (&self.decode_dtype.data_type, &self.encode_dtype.data_type);
        check_len(NAME, &input, decoded, e)?;
        if d == e {
            return Ok(input);
        }
        map_elements(NAME, &input, e, d, |x| x)
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
        // (encode, decode, decoded type, input, encoded type, encoded, decoded), little-endian
        // hex, from numcodecs 0.16.6 / numpy 2.4.
        for (e, d, dt, input, et, enc, dec) in [
            (
                "<f4",
                "<f8",
                DataType::Float64,
                "9a9999999999b93fa55cc3f129633d4800000000000004c0",
                DataType::Float32,
                "cdcccc3d0000807f000020c0",
                "000000a09999b93f000000000000f07f00000000000004c0",
            ),
            (
                "|i1",
                "<i8",
                DataType::Int64,
                "2c010000000000007fffffffffffffff0500000000000000",
                DataType::Int8,
                "2c7f05",
                "2c000000000000007f000000000000000500000000000000",
            ),
            (
                "<u2",
                "<f4",
                DataType::Float32,
                "9a99d93f9a99d9bf40b8884700006040",
                DataType::UInt16,
                "0100ffff70110300",
                "0000803f00ff7f4700808b4500004040",
            ),
            (
                "<f8",
                "<i2",
                DataType::Int16,
                "2c017fff0500",
                DataType::Float64,
                "0000000000c0724000000000002060c00000000000001440",
                "2c017fff0500",
            ),
        ] {
            let c = AsTypeCodec::from_configuration(
                &config(json!({"encode_dtype": e, "decode_dtype": d})),
                &dt,
            )
            .unwrap();
            let input = from_le(dt.clone(), &hex(input));
            let r = repr((input.len() / dt.size()) as u64, dt.clone());
            assert_eq!(c.encoded_representation(&r).unwrap().data_type, et);
            let got = c.encode(input, &r).unwrap();
            assert_eq!(got, from_le(et, &hex(enc)), "{e} {d}");
            assert_eq!(
                c.decode(got, &r).unwrap(),
                from_le(dt.clone(), &hex(dec)),
                "{e} {d}"
            );
        }
    }

    #[test]
    fn bool_round_trip_and_configuration() {
        let c = AsTypeCodec::from_configuration(
            &config(json!({"encode_dtype": "|u1", "decode_dtype": "|b1"})),
            &DataType::Bool,
        )
        .unwrap();
        let r = repr(3, DataType::Bool);
        let enc = c.encode(vec![1, 0, 1], &r).unwrap();
        assert_eq!(c.decode(enc, &r).unwrap(), vec![1, 0, 1]);
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"encode_dtype": "|u1", "decode_dtype": "|b1"})
        );
        for (bad, dt) in [
            (json!({"decode_dtype": "<f8"}), DataType::Float64),
            (
                json!({"encode_dtype": "<f4", "decode_dtype": "<f4"}),
                DataType::Float64,
            ),
            (
                json!({"encode_dtype": "<c8", "decode_dtype": "<f8"}),
                DataType::Float64,
            ),
            (
                json!({"encode_dtype": "<f4", "decode_dtype": "<f8", "x": 0}),
                DataType::Float64,
            ),
        ] {
            assert!(
                matches!(
                    AsTypeCodec::from_configuration(&config(bad.clone()), &dt),
                    Err(CodecError::InvalidConfiguration { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            c.decode(vec![0; 2], &r),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn non_finite_to_integer() {
        // numpy on x86-64: NaN and infinities become 0 in types narrower than 64 bits.
        let c = AsTypeCodec::from_configuration(
            &config(json!({"encode_dtype": "<i2", "decode_dtype": "<f4"})),
            &DataType::Float32,
        )
        .unwrap();
        let input: Vec<u8> = [f32::NAN, f32::INFINITY, -1.9, 65537.0]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let got = c.encode(input, &repr(4, DataType::Float32)).unwrap();
        let want: Vec<u8> = [0i16, 0, -1, 1]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(got, want);
    }
}
