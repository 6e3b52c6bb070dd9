//! `numcodecs.fixedscaleoffset`: `encoded = round((x - offset) * scale)` stored as `astype`,
//! `decoded = encoded / scale + offset` cast back to `dtype` (lossy: a float chunk is kept to
//! a fixed precision, typically in a small integer type).
//!
//! * Configuration: `{"offset": number, "scale": number, "dtype": numpy dtype (the chunk's;
//!   when missing, the chunk's type, as zarr-python assumes), "astype": numpy dtype (default
//!   dtype)}`; `offset` and `scale` are required.
//! * Arithmetic follows numpy: for a float `dtype` each step is rounded to `dtype`; for an
//!   integer `dtype` with integer `offset` and `scale` it is integer arithmetic in `dtype`,
//!   otherwise float64. Rounding is half to even. Decoding divides in `astype`'s precision
//!   when it is a float type, in float64 otherwise, and casts to `dtype` (float to integer
//!   truncates toward zero).

use super::numeric::{
    check_len, check_matches, get_dtype, is_float, map_elements, map_fill, round_to, wrap,
    NumpyDtype, Scalar,
};
use super::ArrayToArrayCodec;
use crate::codec::configuration::check_keys;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Number, Value};

const NAME: &str = "numcodecs.fixedscaleoffset";

/// The `numcodecs.fixedscaleoffset` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedScaleOffsetCodec {
    offset: Number,
    scale: Number,
    dtype: NumpyDtype,
    astype: NumpyDtype,
}

fn number(config: &Map<String, Value>, key: &str) -> Result<Number, CodecError> {
    match config.get(key) {
        Some(Value::Number(n)) if n.as_f64().is_some_and(f64::is_finite) => Ok(n.clone()),
        Some(other) => Err(CodecError::config(
            NAME,
            format!("'{key}' must be a finite number, got {other}"),
        )),
        None => Err(CodecError::config(
            NAME,
            format!("missing required key '{key}'"),
        )),
    }
}

fn as_int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

impl FixedScaleOffsetCodec {
    /// Build from a numcodecs configuration for a chunk of `data_type`.
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<Self, CodecError> {
        check_keys(config, &["offset", "scale", "dtype", "astype"], NAME)?;
        let offset = number(config, "offset")?;
        let scale = number(config, "scale")?;
        let dtype =
            get_dtype(config, "dtype", NAME)?.unwrap_or_else(|| NumpyDtype::native(data_type));
        check_matches(NAME, "dtype", &dtype, data_type)?;
        let astype = get_dtype(config, "astype", NAME)?.unwrap_or_else(|| dtype.clone());
        if dtype.data_type == DataType::Bool {
            return Err(CodecError::config(NAME, "boolean data cannot be scaled"));
        }
        if scale.as_f64() == Some(0.0) {
            return Err(CodecError::config(NAME, "'scale' must not be 0"));
        }
        Ok(FixedScaleOffsetCodec {
            offset,
            scale,
            dtype,
            astype,
        })
    }

    fn encode_one(&self, x: Scalar) -> Scalar {
        let d = &self.dtype.data_type;
        let (offset_f, scale_f) = (
            self.offset.as_f64().unwrap_or(0.0),
            self.scale.as_f64().unwrap_or(1.0),
        );
        if is_float(d) {
            // numpy: python scalars take the array's float type.
            let t = round_to(d, x.as_f64() - round_to(d, offset_f));
            let t = round_to(d, t * round_to(d, scale_f));
            return Scalar::Float(t.round_ties_even());
        }
        match (x, as_int(&self.offset), as_int(&self.scale)) {
            (Scalar::Int(v), Some(o), Some(s)) => {
                Scalar::Int(wrap(d, wrap(d, v - o).saturating_mul(s)))
            }
            _ => Scalar::Float(((x.as_f64() - offset_f) * scale_f).round_ties_even()),
        }
    }

    fn decode_one(&self, e: Scalar) -> Scalar {
        let a = &self.astype.data_type;
        let (offset_f, scale_f) = (
            self.offset.as_f64().unwrap_or(0.0),
            self.scale.as_f64().unwrap_or(1.0),
        );
        if is_float(a) {
            let t = round_to(a, e.as_f64() / round_to(a, scale_f));
            Scalar::Float(round_to(a, t + round_to(a, offset_f)))
        } else {
            Scalar::Float(e.as_f64() / scale_f + offset_f)
        }
    }
}

impl ArrayToArrayCodec for FixedScaleOffsetCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("scale".into(), Value::Number(self.scale.clone()));
        map.insert("offset".into(), Value::Number(self.offset.clone()));
        map.insert("dtype".into(), self.dtype.to_json());
        map.insert("astype".into(), self.astype.to_json());
        Some(map)
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        let (d, a) = (&self.dtype.data_type, &self.astype.data_type);
        Ok(ChunkRepresentation {
            shape: decoded.shape.clone(),
            data_type: a.clone(),
            fill_value: map_fill(NAME, &decoded.fill_value, d, a, |x| self.encode_one(x))?,
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (d, a) = (&self.dtype.data_type, &self.astype.data_type);
        check_len(NAME, &input, decoded, d)?;
        map_elements(NAME, &input, d, a, |x| self.encode_one(x))
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (d, a) = (&self.dtype.data_type, &self.astype.data_type);
        check_len(NAME, &input, decoded, a)?;
        map_elements(NAME, &input, a, d, |e| self.decode_one(e))
    }
}

#[cfg(test)]
mod tests {
    use super::super::numeric::test_support::*;
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::{config, hex};
    use serde_json::json;

    /// (configuration, decoded type, input hex, encoded type, encoded hex, decoded hex), all
    /// little-endian, from numcodecs 0.16.6 / numpy 2.4.
    #[allow(clippy::type_complexity)]
    fn vectors() -> Vec<(
        Value,
        DataType,
        &'static str,
        DataType,
        &'static str,
        &'static str,
    )> {
        vec![
            (json!({"offset": 1000, "scale": 10, "dtype": "<f8", "astype": "|u1"}), DataType::Float64,
             concat!("0000000000408f407b14ae47e1408f400000000000948f40333333333306904066666666",
                     "66408f403333333333418f40"),
             DataType::UInt8, "000169ff0001",
             concat!("0000000000408f40cdcccccccc408f400000000000948f4000000000000690400000000000408f40",
                     "cdcccccccc408f40")),
            (json!({"offset": 0.5, "scale": 3, "dtype": "<f4", "astype": "<i2"}), DataType::Float32,
             "cdcccc3d9a99d93f000010c09a99c842", DataType::Int16, "ffff0400f8ff2b01",
             "abaa2a3eabaaea3fabaa0ac05555c842"),
            (json!({"offset": 10, "scale": 2, "dtype": "<i4", "astype": "|u1"}), DataType::Int32,
             "0a0000000b0000003200000089000000", DataType::UInt8, "000250fe",
             "0a0000000b0000003200000089000000"),
            (json!({"offset": 0.5, "scale": 1.5, "dtype": "<i4", "astype": "<i4"}), DataType::Int32,
             "0a0000000b0000003200000077ffffff", DataType::Int32, "0e000000100000004a00000032ffffff",
             "090000000b0000003100000078ffffff"),
        ]
    }

    #[test]
    fn matches_numcodecs() {
        for (conf, dt, input, et, enc, dec) in vectors() {
            let c = FixedScaleOffsetCodec::from_configuration(&config(conf.clone()), &dt).unwrap();
            let input = from_le(dt.clone(), &hex(input));
            let r = repr((input.len() / dt.size()) as u64, dt.clone());
            assert_eq!(c.encoded_representation(&r).unwrap().data_type, et);
            let got = c.encode(input, &r).unwrap();
            assert_eq!(got, from_le(et, &hex(enc)), "{conf}");
            assert_eq!(
                c.decode(got, &r).unwrap(),
                from_le(dt.clone(), &hex(dec)),
                "{conf}"
            );
        }
    }

    #[test]
    fn fill_value_and_configuration() {
        let conf = json!({"scale": 10, "offset": 1000, "dtype": "<f8", "astype": "|u1"});
        let c =
            FixedScaleOffsetCodec::from_configuration(&config(conf.clone()), &DataType::Float64)
                .unwrap();
        assert_eq!(Value::Object(c.configuration().unwrap()), conf);
        let mut r = repr(4, DataType::Float64);
        r.fill_value = crate::data_type::FillValue::new(1001.0f64.to_ne_bytes().to_vec());
        assert_eq!(
            c.encoded_representation(&r).unwrap().fill_value.as_bytes(),
            &[10]
        );
        for (bad, dt) in [
            (json!({"scale": 10, "dtype": "<f8"}), DataType::Float64),
            (json!({"offset": 0, "dtype": "<f8"}), DataType::Float64),
            (
                json!({"offset": 0, "scale": 0, "dtype": "<f8"}),
                DataType::Float64,
            ),
            (
                json!({"offset": "0", "scale": 1, "dtype": "<f8"}),
                DataType::Float64,
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<f4"}),
                DataType::Float64,
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<f8", "astype": "<M8"}),
                DataType::Float64,
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<f8", "id": "x"}),
                DataType::Float64,
            ),
        ] {
            assert!(
                matches!(
                    FixedScaleOffsetCodec::from_configuration(&config(bad.clone()), &dt),
                    Err(CodecError::InvalidConfiguration { .. })
                ),
                "{bad}"
            );
        }
        assert!(FixedScaleOffsetCodec::from_configuration(
            &config(json!({"offset": 0, "scale": 1})),
            &DataType::Float32
        )
        .is_ok());
        assert!(matches!(
            c.decode(vec![0; 3], &r),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn round_trips_within_precision() {
        for (text, dt) in [
            ("<f2", DataType::Float16),
            ("<f4", DataType::Float32),
            ("<f8", DataType::Float64),
        ] {
            let c = FixedScaleOffsetCodec::from_configuration(
                &config(json!({"offset": 5, "scale": 100, "dtype": text, "astype": "<i4"})),
                &dt,
            )
            .unwrap();
            let values: Vec<Scalar> = (0..40)
                .map(|i| Scalar::Float(f64::from(i) * 0.25 - 3.0))
                .collect();
            let data = elements(dt.clone(), &values);
            let r = repr(40, dt.clone());
            let enc = c.encode(data.clone(), &r).unwrap();
            assert_eq!(c.decode(enc, &r).unwrap(), data, "{text}");
        }
    }
}
