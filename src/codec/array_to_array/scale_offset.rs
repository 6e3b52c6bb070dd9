//! `scale_offset` (zarr-extensions registry; zarr-python 3.2): encode `(x - offset) * scale`,
//! decode `x / scale + offset`, in the arithmetic of the array's own data type.
//!
//! * Configuration: `{"offset": <scalar>, "scale": <scalar>}`, both optional (0 and 1), each
//!   spelled as a fill value of the array's data type (so `"NaN"` or hex for floats); no
//!   other keys. `scale` must not be zero. Written back as zarr-python writes it: only the
//!   keys that differ from their defaults, with the values as given.
//! * Integers (int8..uint64): exact; a result outside the type's range is an error, and so
//!   is a decoded value that `scale` does not divide exactly (decoding divides by flooring).
//! * Floats (float16, float32, float64): each operation rounded to the type, as numpy does.
//! * The fill value is encoded along the chain.

use super::numeric::check_len;
use super::ArrayToArrayCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue};
use half::f16;
use serde_json::{Map, Value};

const NAME: &str = "scale_offset";

/// The parameters in the array's type: integers exactly (as i128), floats as f64 holding a
/// value of the type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Params {
    Int {
        offset: i128,
        scale: i128,
        min: i128,
        max: i128,
    },
    Float {
        offset: f64,
        scale: f64,
    },
}

/// The `scale_offset` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleOffsetCodec {
    data_type: DataType,
    params: Params,
    /// The configuration as given (defaults left out).
    written: Map<String, Value>,
}

fn int_range(dt: &DataType) -> Option<(i128, i128)> {
    Some(match dt {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// One host-order element as i128 (integers) or f64 (floats).
fn read_int(dt: &DataType, b: &[u8]) -> i128 {
    match dt {
        DataType::Int8 => (b[0] as i8).into(),
        DataType::UInt8 => b[0].into(),
        DataType::Int16 => i16::from_ne_bytes([b[0], b[1]]).into(),
        DataType::UInt16 => u16::from_ne_bytes([b[0], b[1]]).into(),
        DataType::Int32 => i32::from_ne_bytes([b[0], b[1], b[2], b[3]]).into(),
        DataType::UInt32 => u32::from_ne_bytes([b[0], b[1], b[2], b[3]]).into(),
        DataType::Int64 => i64::from_ne_bytes(b[..8].try_into().expect("8 bytes")).into(),
        _ => u64::from_ne_bytes(b[..8].try_into().expect("8 bytes")).into(),
    }
}

fn write_int(dt: &DataType, v: i128, out: &mut [u8]) {
    // In range (checked by the caller), so `as` keeps the value.
    match dt {
        DataType::Int8 | DataType::UInt8 => out[0] = v as u8,
        DataType::Int16 | DataType::UInt16 => out.copy_from_slice(&(v as u16).to_ne_bytes()),
        DataType::Int32 | DataType::UInt32 => out.copy_from_slice(&(v as u32).to_ne_bytes()),
        _ => out.copy_from_slice(&(v as u64).to_ne_bytes()),
    }
}

impl ScaleOffsetCodec {
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<ScaleOffsetCodec, CodecError> {
        if let Some(key) = config
            .keys()
            .find(|k| !matches!(k.as_str(), "offset" | "scale"))
        {
            return Err(CodecError::config(NAME, format!("unknown key \"{key}\"")));
        }
        let scalar = |key: &str, default: i64| -> Result<Vec<u8>, CodecError> {
            let value = config.get(key).cloned().unwrap_or(Value::from(default));
            data_type
                .parse_fill_value(&value)
                .map(|f| f.as_bytes().to_vec())
                .map_err(|e| {
                    CodecError::config(
                        NAME,
                        format!("{key} {value} is not a value of {}: {e}", data_type.name()),
                    )
                })
        };
        let (offset, scale) = (scalar("offset", 0)?, scalar("scale", 1)?);
        let params = if let Some((min, max)) = int_range(data_type) {
            let (offset, scale) = (read_int(data_type, &offset), read_int(data_type, &scale));
            if scale == 0 {
                return Err(CodecError::config(NAME, "scale must not be zero"));
            }
            Params::Int {
                offset,
                scale,
                min,
                max,
            }
        } else {
            let float = |b: &[u8]| match data_type {
                DataType::Float16 => {
                    Some(f16::from_bits(u16::from_ne_bytes([b[0], b[1]])).to_f64())
                }
                DataType::Float32 => Some(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as f64),
                DataType::Float64 => Some(f64::from_ne_bytes(b[..8].try_into().ok()?)),
                _ => None,
            };
            let (Some(offset), Some(scale)) = (float(&offset), float(&scale)) else {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "data type {} is not an integer or float16/32/64 type",
                        data_type.name()
                    ),
                ));
            };
            if scale == 0.0 {
                return Err(CodecError::config(NAME, "scale must not be zero"));
            }
            Params::Float { offset, scale }
        };
        let mut written = Map::new();
        let (default_offset, default_scale) = match params {
            Params::Int { offset, scale, .. } => (offset == 0, scale == 1),
            Params::Float { offset, scale } => (offset == 0.0, scale == 1.0),
        };
        if !default_offset {
            written.insert(
                "offset".into(),
                config.get("offset").cloned().unwrap_or_default(),
            );
        }
        if !default_scale {
            written.insert(
                "scale".into(),
                config.get("scale").cloned().unwrap_or_default(),
            );
        }
        Ok(ScaleOffsetCodec {
            data_type: data_type.clone(),
            params,
            written,
        })
    }

    /// Round `x` to the data type's float precision.
    fn round(&self, x: f64) -> f64 {
        match self.data_type {
            DataType::Float16 => f16::from_f64(x).to_f64(),
            DataType::Float32 => x as f32 as f64,
            _ => x,
        }
    }

    fn transform(&self, data: &mut [u8], encode: bool) -> Result<(), String> {
        let size = self.data_type.size();
        for element in data.chunks_exact_mut(size) {
            match self.params {
                Params::Int {
                    offset,
                    scale,
                    min,
                    max,
                } => {
                    let x = read_int(&self.data_type, element);
                    let y = if encode {
                        (x - offset) * scale
                    } else {
                        if x.rem_euclid(scale.abs()) != 0 {
                            return Err(format!(
                                "{x} is not a multiple of scale {scale}: not exactly representable in {}",
                                self.data_type.name()
                            ));
                        }
                        x.div_euclid(scale) + offset
                    };
                    if !(min..=max).contains(&y) {
                        return Err(format!(
                            "{y} is outside the range of {}",
                            self.data_type.name()
                        ));
                    }
                    write_int(&self.data_type, y, element);
                }
                Params::Float { offset, scale } => {
                    let x = match self.data_type {
                        DataType::Float16 => {
                            f16::from_bits(u16::from_ne_bytes([element[0], element[1]])).to_f64()
                        }
                        DataType::Float32 => {
                            f32::from_ne_bytes([element[0], element[1], element[2], element[3]])
                                as f64
                        }
                        _ => f64::from_ne_bytes(element[..8].try_into().expect("8 bytes")),
                    };
                    let y = if encode {
                        self.round(self.round(x - offset) * scale)
                    } else {
                        self.round(self.round(x / scale) + offset)
                    };
                    match self.data_type {
                        DataType::Float16 => {
                            element.copy_from_slice(&f16::from_f64(y).to_bits().to_ne_bytes())
                        }
                        DataType::Float32 => element.copy_from_slice(&(y as f32).to_ne_bytes()),
                        _ => element.copy_from_slice(&y.to_ne_bytes()),
                    }
                }
            }
        }
        Ok(())
    }
}

impl ArrayToArrayCodec for ScaleOffsetCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        (!self.written.is_empty()).then(|| self.written.clone())
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
        self.transform(&mut fill, true).map_err(|e| {
            CodecError::config(NAME, format!("the fill value cannot be encoded: {e}"))
        })?;
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
        self.transform(&mut input, true)
            .map_err(|message| CodecError::EncodeFailed {
                codec: NAME.into(),
                message,
            })?;
        Ok(input)
    }

    fn decode(
        &self,
        mut input: Vec<u8>,
        decoded: &ChunkRepresentation,
    ) -> Result<Vec<u8>, CodecError> {
        check_len(NAME, &input, decoded, &self.data_type)?;
        self.transform(&mut input, false)
            .map_err(|message| CodecError::corrupt(NAME, message))?;
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(conf: Value, dt: &DataType) -> Result<ScaleOffsetCodec, CodecError> {
        ScaleOffsetCodec::from_configuration(conf.as_object().unwrap(), dt)
    }

    fn repr(n: u64, dt: &DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: vec![n],
            fill_value: dt.zero_fill_value(),
            data_type: dt.clone(),
        }
    }

    #[test]
    fn integers_exact_or_error() {
        let dt = DataType::Int16;
        let c = codec(json!({"offset": 100, "scale": 3}), &dt).unwrap();
        let data: Vec<u8> = [100i16, 101, 90]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let encoded = c.encode(data.clone(), &repr(3, &dt)).unwrap();
        let values: Vec<i16> = encoded
            .chunks_exact(2)
            .map(|b| i16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(values, [0, 3, -30]);
        assert_eq!(c.decode(encoded, &repr(3, &dt)).unwrap(), data);
        // Overflow on encode, and a value scale does not divide on decode.
        let big: Vec<u8> = 20000i16.to_ne_bytes().to_vec();
        assert!(matches!(
            c.encode(big, &repr(1, &dt)),
            Err(CodecError::EncodeFailed { .. })
        ));
        let odd: Vec<u8> = 4i16.to_ne_bytes().to_vec();
        assert!(matches!(
            c.decode(odd, &repr(1, &dt)),
            Err(CodecError::Corrupt { .. })
        ));
        // uint8 underflow.
        let c = codec(json!({"offset": 10}), &DataType::UInt8).unwrap();
        assert!(c.encode(vec![5], &repr(1, &DataType::UInt8)).is_err());
        assert_eq!(
            c.encode(vec![15], &repr(1, &DataType::UInt8)).unwrap(),
            vec![5]
        );
    }

    #[test]
    fn floats_in_their_own_precision() {
        let dt = DataType::Float32;
        let c = codec(json!({"offset": 1000.5, "scale": 0.1}), &dt).unwrap();
        let x = 1234.75f32;
        let encoded = c.encode(x.to_ne_bytes().to_vec(), &repr(1, &dt)).unwrap();
        let want = (x - 1000.5f32) * 0.1f32;
        assert_eq!(encoded, want.to_ne_bytes().to_vec());
        let decoded = c.decode(encoded, &repr(1, &dt)).unwrap();
        assert_eq!(decoded, (want / 0.1f32 + 1000.5f32).to_ne_bytes().to_vec());
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"offset": 1000.5, "scale": 0.1})
        );
        // The fill value goes through the codec.
        let mut r = repr(1, &dt);
        r.fill_value = FillValue::new(1010.5f32.to_ne_bytes().to_vec());
        let e = c.encoded_representation(&r).unwrap();
        assert_eq!(e.fill_value.as_bytes(), &((10.0f32) * 0.1f32).to_ne_bytes());
    }

    #[test]
    fn configurations() {
        assert!(codec(json!({}), &DataType::Float64)
            .unwrap()
            .configuration()
            .is_none());
        for (conf, dt) in [
            (json!({"scale": 0}), DataType::Int32),
            (json!({"scale": 0.0}), DataType::Float32),
            (json!({"offset": 300}), DataType::UInt8),
            (json!({"offset": 1.5}), DataType::Int8),
            (json!({"factor": 2}), DataType::Int8),
            (json!({}), DataType::Bool),
            (json!({}), DataType::Complex64),
        ] {
            assert!(codec(conf.clone(), &dt).is_err(), "{conf} {dt:?}");
        }
        assert!(codec(json!({"offset": "NaN"}), &DataType::Float64).is_ok());
    }
}
