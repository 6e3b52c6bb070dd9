//! `numcodecs.delta`: the chunk flattened in C order, the first element kept and every other
//! element replaced by its difference from the previous one.
//!
//! * Configuration: `{"dtype": numpy dtype (the chunk's; numcodecs requires it, and when it
//!   is missing the chunk's type is assumed, as zarr-python does for other filters),
//!   "astype": numpy dtype (default dtype)}`. Differences are computed in `dtype` (integers wrap, floats round)
//!   and stored cast to `astype`; decoding casts each stored value back to `dtype` and sums
//!   in `dtype`, as numpy's `cumsum(enc, out=dec)` does.

use super::numeric::{
    check_len, check_matches, get_dtype, map_fill, read, round_to, wrap, write, NumpyDtype, Scalar,
};
use super::ArrayToArrayCodec;
use crate::codec::configuration::check_keys;
use crate::codec::{try_vec_with_capacity, ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.delta";

/// The `numcodecs.delta` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct DeltaCodec {
    dtype: NumpyDtype,
    astype: NumpyDtype,
}

/// `a - b` in type `dt`.
fn sub(dt: &DataType, a: Scalar, b: Scalar) -> Scalar {
    match (a, b) {
        (Scalar::Int(a), Scalar::Int(b)) => Scalar::Int(wrap(dt, a - b)),
        _ => Scalar::Float(round_to(dt, a.as_f64() - b.as_f64())),
    }
}

/// `a + b` in type `dt`.
fn add(dt: &DataType, a: Scalar, b: Scalar) -> Scalar {
    match (a, b) {
        (Scalar::Int(a), Scalar::Int(b)) => Scalar::Int(wrap(dt, a + b)),
        _ => Scalar::Float(round_to(dt, a.as_f64() + b.as_f64())),
    }
}

/// `value` as it reads back after being stored as `dt`.
fn cast(dt: &DataType, value: Scalar) -> Scalar {
    let mut b = Vec::with_capacity(8);
    write(dt, value, &mut b);
    read(dt, &b)
}

impl DeltaCodec {
    /// Build from a numcodecs configuration for a chunk of `data_type`.
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<Self, CodecError> {
        check_keys(config, &["dtype", "astype"], NAME)?;
        let dtype =
            get_dtype(config, "dtype", NAME)?.unwrap_or_else(|| NumpyDtype::native(data_type));
        check_matches(NAME, "dtype", &dtype, data_type)?;
        let astype = get_dtype(config, "astype", NAME)?.unwrap_or_else(|| dtype.clone());
        if dtype.data_type == DataType::Bool || astype.data_type == DataType::Bool {
            return Err(CodecError::config(NAME, "boolean data has no differences"));
        }
        Ok(DeltaCodec { dtype, astype })
    }

    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        let (d, a) = (&self.dtype.data_type, &self.astype.data_type);
        let n = input.len() / d.size();
        let mut out = try_vec_with_capacity(n * a.size())?;
        let mut previous: Option<Scalar> = None;
        for element in input.chunks_exact(d.size()) {
            let x = read(d, element);
            let v = match previous {
                None => x,
                Some(p) => sub(d, x, p),
            };
            write(a, v, &mut out);
            previous = Some(x);
        }
        Ok(out)
    }
}

impl ArrayToArrayCodec for DeltaCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("dtype".into(), self.dtype.to_json());
        map.insert("astype".into(), self.astype.to_json());
        Some(map)
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        let a = &self.astype.data_type;
        Ok(ChunkRepresentation {
            shape: decoded.shape.clone(),
            data_type: a.clone(),
            fill_value: map_fill(NAME, &decoded.fill_value, &decoded.data_type, a, |x| x)?,
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        check_len(NAME, &input, decoded, &self.dtype.data_type)?;
        self.encode_bytes(&input)
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let (d, a) = (&self.dtype.data_type, &self.astype.data_type);
        check_len(NAME, &input, decoded, a)?;
        let n = input.len() / a.size();
        let mut out = try_vec_with_capacity(n * d.size())?;
        let mut sum: Option<Scalar> = None;
        for element in input.chunks_exact(a.size()) {
            let x = cast(d, read(a, element));
            let s = match sum {
                None => x,
                Some(s) => add(d, s, x),
            };
            write(d, s, &mut out);
            sum = Some(s);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::numeric::is_float;
    use super::super::numeric::test_support::*;
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::{config, hex};
    use serde_json::json;

    fn codec(conf: Value, dt: DataType) -> DeltaCodec {
        DeltaCodec::from_configuration(&config(conf), &dt).unwrap()
    }

    /// (configuration, decoded type, decoded little-endian hex, encoded type, encoded hex),
    /// from numcodecs 0.16.6 / numpy 2.4.
    fn vectors() -> Vec<(Value, DataType, &'static str, DataType, &'static str)> {
        vec![
            (
                json!({"dtype": "<i4", "astype": "<i1"}),
                DataType::Int32,
                "05000000030000000a000000feffffff07000000c8ffffff",
                DataType::Int8,
                "05fe07f409c1",
            ),
            (
                json!({"dtype": "|u1"}),
                DataType::UInt8,
                "fa036400",
                DataType::UInt8,
                "fa09619c",
            ),
            (
                json!({"dtype": "<f8"}),
                DataType::Float64,
                "000000000000f83f0000000000000240000000000000f0bf9c7500883ce4377e",
                DataType::Float64,
                "000000000000f83f000000000000e83f0000000000000ac09c7500883ce4377e",
            ),
            (
                json!({"dtype": "<f4", "astype": "<f8"}),
                DataType::Float32,
                "cdcccc3d3333333f333353c0",
                DataType::Float64,
                "000000a09999b93f000000203333e33f00000000000010c0",
            ),
            (
                json!({"dtype": "<i2", "astype": "<i8"}),
                DataType::Int16,
                "ff7f00800500",
                DataType::Int64,
                "ff7f00000000000001000000000000000580ffffffffffff",
            ),
        ]
    }

    #[test]
    fn matches_numcodecs() {
        for (conf, dt, dec, et, enc) in vectors() {
            let c = codec(conf.clone(), dt.clone());
            let dec = from_le(dt.clone(), &hex(dec));
            let enc = from_le(et.clone(), &hex(enc));
            let r = repr((dec.len() / dt.size()) as u64, dt.clone());
            assert_eq!(c.encoded_representation(&r).unwrap().data_type, et);
            assert_eq!(c.encode(dec.clone(), &r).unwrap(), enc, "{conf}");
            assert_eq!(c.decode(enc, &r).unwrap(), dec, "{conf}");
        }
    }

    #[test]
    fn round_trips_every_type() {
        for (text, dt) in [
            ("|i1", DataType::Int8),
            ("<i2", DataType::Int16),
            ("<i4", DataType::Int32),
            ("<i8", DataType::Int64),
            ("|u1", DataType::UInt8),
            ("<u2", DataType::UInt16),
            ("<u4", DataType::UInt32),
            ("<u8", DataType::UInt64),
            ("<f2", DataType::Float16),
            ("<f4", DataType::Float32),
            ("<f8", DataType::Float64),
        ] {
            let c = codec(json!({"dtype": text}), dt.clone());
            let values: Vec<Scalar> = (0..50i128)
                .map(|i| {
                    if is_float(&dt) {
                        Scalar::Float((i * i) as f64 / 4.0 - 30.0)
                    } else {
                        Scalar::Int(i * 37 - 400)
                    }
                })
                .collect();
            let data = elements(dt.clone(), &values);
            let r = repr(50, dt.clone());
            let enc = c.encode(data.clone(), &r).unwrap();
            assert_eq!(c.decode(enc.clone(), &r).unwrap(), data, "{text}");
            assert!(matches!(
                c.decode(enc[1..].to_vec(), &r),
                Err(CodecError::Corrupt { .. })
            ));
        }
    }

    #[test]
    fn configuration_rules() {
        let c = codec(json!({"dtype": "f8"}), DataType::Float64);
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"dtype": "<f8", "astype": "<f8"})
        );
        for (bad, dt) in [
            (json!({"dtype": "<i4"}), DataType::Int16),
            (json!({"dtype": ">u4"}), DataType::Int32),
            (json!({"dtype": "<c8"}), DataType::Complex64),
            (json!({"dtype": "|b1"}), DataType::Bool),
            (json!({"dtype": "<i4", "astype": "<U4"}), DataType::Int32),
            (json!({"dtype": "<i4", "x": 1}), DataType::Int32),
        ] {
            assert!(
                matches!(
                    DeltaCodec::from_configuration(&config(bad.clone()), &dt),
                    Err(CodecError::InvalidConfiguration { .. })
                ),
                "{bad}"
            );
        }
        // A missing dtype is the chunk's.
        let c = codec(json!({}), DataType::UInt16);
        assert_eq!(
            Value::Object(c.configuration().unwrap())["dtype"],
            json!(if cfg!(target_endian = "little") {
                "<u2"
            } else {
                ">u2"
            })
        );
        // Big-endian dtype strings are accepted (byte order is the bytes codec's business).
        assert!(
            DeltaCodec::from_configuration(&config(json!({"dtype": ">i4"})), &DataType::Int32)
                .is_ok()
        );
    }
}
