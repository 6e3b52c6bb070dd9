//! `numcodecs.quantize`: keep `digits` decimal digits of precision by rounding to a multiple
//! of a power of two, `round(x * 2^bits) / 2^bits` (lossy; the result compresses well).
//!
//! * Configuration: `{"digits": int (required), "dtype": float dtype (the chunk's; when
//!   missing, the chunk's type, as zarr-python assumes), "astype": float dtype (default
//!   dtype)}`.
//! * `bits = ceil(log2(10^-e))` where `e` is `log10(10^-digits)` rounded away from zero, as
//!   numcodecs computes it; the arithmetic is done in `dtype`, rounding half to even, and the
//!   result cast to `astype`. Decoding casts back to `dtype`.

use super::numeric::{
    check_len, check_matches, get_dtype, is_float, map_elements, map_fill, round_to, NumpyDtype,
    Scalar,
};
use super::ArrayToArrayCodec;
use crate::codec::configuration::{check_keys, get_int};
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.quantize";

/// The `numcodecs.quantize` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantizeCodec {
    digits: i64,
    dtype: NumpyDtype,
    astype: NumpyDtype,
    scale: f64,
}

/// numcodecs' scale factor for `digits`.
fn scale_for(digits: i64) -> f64 {
    let precision = 10f64.powf(-(digits as f64));
    let exp = precision.log10();
    let exp = if exp < 0.0 { exp.floor() } else { exp.ceil() };
    let bits = 10f64.powf(-exp).log2().ceil();
    2f64.powf(bits)
}

impl QuantizeCodec {
    /// Build from a numcodecs configuration for a chunk of `data_type`.
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<Self, CodecError> {
        check_keys(config, &["digits", "dtype", "astype"], NAME)?;
        let digits = get_int(config, "digits", NAME)?
            .ok_or_else(|| CodecError::config(NAME, "missing required key 'digits'"))?;
        if !(-300..=300).contains(&digits) {
            return Err(CodecError::config(
                NAME,
                format!("'digits' {digits} is out of range"),
            ));
        }
        let dtype =
            get_dtype(config, "dtype", NAME)?.unwrap_or_else(|| NumpyDtype::native(data_type));
        check_matches(NAME, "dtype", &dtype, data_type)?;
        let astype = get_dtype(config, "astype", NAME)?.unwrap_or_else(|| dtype.clone());
        if !is_float(&dtype.data_type) || !is_float(&astype.data_type) {
            return Err(CodecError::config(
                NAME,
                "only floating point data types are supported",
            ));
        }
        Ok(QuantizeCodec {
            digits,
            dtype,
            astype,
            scale: scale_for(digits),
        })
    }

    fn encode_one(&self, x: Scalar) -> Scalar {
        let d = &self.dtype.data_type;
        let scale = round_to(d, self.scale);
        let t = round_to(d, scale * x.as_f64()).round_ties_even();
        Scalar::Float(round_to(d, t / scale))
    }
}

impl ArrayToArrayCodec for QuantizeCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("digits".into(), Value::from(self.digits));
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
        map_elements(NAME, &input, a, d, |x| x)
    }
}

#[cfg(test)]
mod tests {
    use super::super::numeric::test_support::*;
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::{config, hex};
    use serde_json::json;

    const F8: &str = "000000000000000072daf8b8db9abf3f6e861bf0f92109c0b22e6ea301005940";
    const F4: &str = "00000000ded6fc3dd00f49c00d00c842";

    /// (configuration, type, input, encoded type, encoded, decoded), little-endian hex, from
    /// numcodecs 0.16.6 / numpy 2.4.
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
            (
                json!({"digits": 2, "dtype": "<f8"}),
                DataType::Float64,
                F8,
                DataType::Float64,
                "0000000000000000000000000000c03f00000000002009c00000000000005940",
                "0000000000000000000000000000c03f00000000002009c00000000000005940",
            ),
            (
                json!({"digits": 3, "dtype": "<f8", "astype": "<f4"}),
                DataType::Float64,
                F8,
                DataType::Float32,
                "000000000000fc3d001049c00000c842",
                "0000000000000000000000000080bf3f00000000002209c00000000000005940",
            ),
            (
                json!({"digits": 1, "dtype": "<f4"}),
                DataType::Float32,
                F4,
                DataType::Float32,
                "000000000000003e000048c00000c842",
                "000000000000003e000048c00000c842",
            ),
            (
                json!({"digits": -1, "dtype": "<f8"}),
                DataType::Float64,
                "5839b4c8d61cc8400000000000e058c0",
                DataType::Float64,
                "00000000001cc84000000000000058c0",
                "00000000001cc84000000000000058c0",
            ),
        ]
    }

    #[test]
    fn matches_numcodecs() {
        for (conf, dt, input, et, enc, dec) in vectors() {
            let c = QuantizeCodec::from_configuration(&config(conf.clone()), &dt).unwrap();
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
    fn float16_and_configuration() {
        let c = QuantizeCodec::from_configuration(
            &config(json!({"digits": 1, "dtype": "<f2"})),
            &DataType::Float16,
        )
        .unwrap();
        let data = elements(
            DataType::Float16,
            &[Scalar::Float(0.5), Scalar::Float(-2.25)],
        );
        let r = repr(2, DataType::Float16);
        let enc = c.encode(data.clone(), &r).unwrap();
        assert_eq!(c.decode(enc, &r).unwrap(), data);
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"digits": 1, "dtype": "<f2", "astype": "<f2"})
        );
        for (bad, dt) in [
            (json!({"dtype": "<f8"}), DataType::Float64),
            (json!({"digits": 2}), DataType::Int8),
            (json!({"digits": 2, "dtype": "<i4"}), DataType::Int32),
            (
                json!({"digits": 2, "dtype": "<f8", "astype": "<i4"}),
                DataType::Float64,
            ),
            (json!({"digits": 2, "dtype": "<f4"}), DataType::Float64),
            (json!({"digits": 2.5, "dtype": "<f8"}), DataType::Float64),
        ] {
            assert!(
                matches!(
                    QuantizeCodec::from_configuration(&config(bad.clone()), &dt),
                    Err(CodecError::InvalidConfiguration { .. })
                ),
                "{bad}"
            );
        }
    }
}
