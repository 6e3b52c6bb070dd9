//! `cast_value` (zarr-extensions registry; zarr-python 3.2): convert element values to
//! another data type when encoding, and back when decoding (value semantics, never a
//! reinterpretation of bits).
//!
//! * Configuration: `data_type` (the encoded type: an integer type, float16/32/64, bfloat16
//!   or a float8 type), `rounding` ("nearest-even" by default, "towards-zero",
//!   "towards-positive", "towards-negative", "nearest-away": how a non-integer becomes an
//!   integer), `out_of_range` (absent or "error": an error; "clamp": the nearest
//!   representable finite value; "wrap": modulo 2^bits, integer targets only), and
//!   zarr-python's `scalar_map` (`{"encode": [[in, out], ...], "decode": [[in, out], ...]}`,
//!   values spelled as fill values of the input and output types, applied first). No other
//!   keys.
//! * Conversions to float types round to nearest, ties to even. NaN becomes the target's
//!   NaN; NaN into an integer type is always an error (unless mapped). Infinities are out
//!   of range for types without them.
//! * The fill value is converted along the chain (an error if it cannot be).

use super::ArrayToArrayCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue, Float8Format};
use half::{bf16, f16};
use serde_json::{Map, Value};

const NAME: &str = "cast_value";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rounding {
    NearestEven,
    TowardsZero,
    TowardsPositive,
    TowardsNegative,
    NearestAway,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutOfRange {
    Error,
    Clamp,
    Wrap,
}

/// A value in flight: integers exactly, floats as f64 (which holds every value of the
/// float types here exactly).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

/// The numeric kinds `cast_value` converts between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int { bits: u32, signed: bool },
    F16,
    BF16,
    F32,
    F64,
    F8(Float8Format),
}

fn kind(dt: &DataType) -> Option<Kind> {
    Some(match dt {
        DataType::Int8 => Kind::Int {
            bits: 8,
            signed: true,
        },
        DataType::Int16 => Kind::Int {
            bits: 16,
            signed: true,
        },
        DataType::Int32 => Kind::Int {
            bits: 32,
            signed: true,
        },
        DataType::Int64 => Kind::Int {
            bits: 64,
            signed: true,
        },
        DataType::UInt8 => Kind::Int {
            bits: 8,
            signed: false,
        },
        DataType::UInt16 => Kind::Int {
            bits: 16,
            signed: false,
        },
        DataType::UInt32 => Kind::Int {
            bits: 32,
            signed: false,
        },
        DataType::UInt64 => Kind::Int {
            bits: 64,
            signed: false,
        },
        DataType::Float16 => Kind::F16,
        DataType::BFloat16 => Kind::BF16,
        DataType::Float32 => Kind::F32,
        DataType::Float64 => Kind::F64,
        DataType::Float8(f) => Kind::F8(*f),
        _ => return None,
    })
}

impl Kind {
    fn read(self, b: &[u8]) -> Num {
        match self {
            Kind::Int { bits, signed } => {
                let mut word = [0u8; 16];
                let n = bits as usize / 8;
                if cfg!(target_endian = "little") {
                    word[..n].copy_from_slice(&b[..n]);
                } else {
                    word[16 - n..].copy_from_slice(&b[..n]);
                }
                let raw = if cfg!(target_endian = "little") {
                    u128::from_le_bytes(word)
                } else {
                    u128::from_be_bytes(word)
                };
                let shift = 128 - bits;
                Num::Int(if signed {
                    ((raw << shift) as i128) >> shift
                } else {
                    raw as i128
                })
            }
            Kind::F16 => Num::Float(f16::from_bits(u16::from_ne_bytes([b[0], b[1]])).to_f64()),
            Kind::BF16 => Num::Float(bf16::from_bits(u16::from_ne_bytes([b[0], b[1]])).to_f64()),
            Kind::F32 => Num::Float(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as f64),
            Kind::F64 => Num::Float(f64::from_ne_bytes(b[..8].try_into().expect("8 bytes"))),
            Kind::F8(f) => Num::Float(f.to_f64(b[0])),
        }
    }

    /// The float in this (float) kind, rounded to nearest even; `None` when a finite value
    /// becomes infinite or NaN (out of range).
    fn float_bytes(self, x: f64) -> Option<Vec<u8>> {
        let (bytes, back) = match self {
            Kind::F16 => {
                let h = f16::from_f64(x);
                (h.to_bits().to_ne_bytes().to_vec(), h.to_f64())
            }
            Kind::BF16 => {
                let h = bf16::from_f64(x);
                (h.to_bits().to_ne_bytes().to_vec(), h.to_f64())
            }
            Kind::F32 => ((x as f32).to_ne_bytes().to_vec(), x as f32 as f64),
            Kind::F64 => (x.to_ne_bytes().to_vec(), x),
            Kind::F8(f) => {
                let b = f.from_f64(x);
                (vec![b], f.to_f64(b))
            }
            Kind::Int { .. } => return None,
        };
        // A finite value that became infinite or NaN did not fit.
        (!x.is_finite() || back.is_finite()).then_some(bytes)
    }

    /// The largest finite value of a float kind.
    fn max_finite(self) -> f64 {
        match self {
            Kind::F16 => f16::MAX.to_f64(),
            Kind::BF16 => bf16::MAX.to_f64(),
            Kind::F32 => f32::MAX as f64,
            Kind::F64 => f64::MAX,
            Kind::F8(f) => (0..=255u8)
                .map(|b| f.to_f64(b))
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max),
            Kind::Int { .. } => 0.0,
        }
    }

    fn has_infinity(self) -> bool {
        match self {
            Kind::F8(f) => f.has_infinity(),
            Kind::Int { .. } => false,
            _ => true,
        }
    }

    fn range(self) -> (i128, i128) {
        match self {
            Kind::Int { bits, signed: true } => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
            Kind::Int {
                bits,
                signed: false,
            } => (0, (1i128 << bits) - 1),
            _ => (0, 0),
        }
    }
}

/// One direction of the conversion.
#[derive(Clone, Debug, PartialEq)]
struct Direction {
    from: Kind,
    to: Kind,
    to_size: usize,
    /// (input element bytes, output element bytes), compared bit for bit except that any
    /// NaN key matches any NaN.
    map: Vec<(Num, Vec<u8>)>,
}

/// The `cast_value` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct CastValueCodec {
    decoded_type: DataType,
    encoded_type: DataType,
    rounding: Rounding,
    out_of_range: OutOfRange,
    encode: Direction,
    decode: Direction,
    configuration: Map<String, Value>,
}

fn config_error(message: impl Into<String>) -> CodecError {
    CodecError::config(NAME, message)
}

impl CastValueCodec {
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: &DataType,
    ) -> Result<CastValueCodec, CodecError> {
        if let Some(key) = config.keys().find(|k| {
            !matches!(
                k.as_str(),
                "data_type" | "rounding" | "out_of_range" | "scalar_map"
            )
        }) {
            return Err(config_error(format!("unknown key \"{key}\"")));
        }
        let from = kind(data_type).ok_or_else(|| {
            config_error(format!(
                "cannot cast values of data type {}",
                data_type.name()
            ))
        })?;
        let encoded_type = DataType::from_json(
            config
                .get("data_type")
                .ok_or_else(|| config_error("missing \"data_type\""))?,
        )
        .map_err(|e| config_error(format!("data_type: {e}")))?;
        let to = kind(&encoded_type).ok_or_else(|| {
            config_error(format!(
                "data_type {} is not an integer or floating-point type",
                encoded_type.name()
            ))
        })?;
        let rounding = match config.get("rounding").and_then(Value::as_str) {
            None if config.get("rounding").is_none() => Rounding::NearestEven,
            Some("nearest-even") => Rounding::NearestEven,
            Some("towards-zero") => Rounding::TowardsZero,
            Some("towards-positive") => Rounding::TowardsPositive,
            Some("towards-negative") => Rounding::TowardsNegative,
            Some("nearest-away") => Rounding::NearestAway,
            _ => {
                return Err(config_error(format!(
                    "rounding must be \"nearest-even\", \"towards-zero\", \"towards-positive\", \
                     \"towards-negative\" or \"nearest-away\", not {}",
                    config["rounding"]
                )))
            }
        };
        let out_of_range = match config.get("out_of_range") {
            None | Some(Value::Null) => OutOfRange::Error,
            Some(Value::String(s)) if s == "error" => OutOfRange::Error,
            Some(Value::String(s)) if s == "clamp" => OutOfRange::Clamp,
            Some(Value::String(s)) if s == "wrap" => OutOfRange::Wrap,
            Some(other) => {
                return Err(config_error(format!(
                    "out_of_range must be \"error\", \"clamp\" or \"wrap\", not {other}"
                )))
            }
        };
        // The registry defines "wrap" by the modulus of the output type, so the target must
        // be an integer type; the source may be a float (rounded first), which zarr-python
        // 3.4 writes (float64 -> uint8 with "wrap").
        if out_of_range == OutOfRange::Wrap && !matches!(to, Kind::Int { .. }) {
            return Err(config_error(
                "out_of_range \"wrap\" needs an integer data_type",
            ));
        }
        let (mut encode_map, mut decode_map) = (Vec::new(), Vec::new());
        if let Some(scalar_map) = config.get("scalar_map") {
            let scalar_map = scalar_map
                .as_object()
                .ok_or_else(|| config_error("scalar_map must be an object"))?;
            if let Some(key) = scalar_map
                .keys()
                .find(|k| !matches!(k.as_str(), "encode" | "decode"))
            {
                return Err(config_error(format!("scalar_map: unknown key \"{key}\"")));
            }
            for (direction, (input, output), out) in [
                ("encode", (data_type, &encoded_type), &mut encode_map),
                ("decode", (&encoded_type, data_type), &mut decode_map),
            ] {
                let Some(entries) = scalar_map.get(direction) else {
                    continue;
                };
                let entries = entries.as_array().ok_or_else(|| {
                    config_error(format!("scalar_map.{direction} must be a list of pairs"))
                })?;
                for entry in entries {
                    let pair = entry.as_array().filter(|p| p.len() == 2).ok_or_else(|| {
                        config_error(format!("scalar_map.{direction}: {entry} is not a pair"))
                    })?;
                    let key = input
                        .parse_fill_value(&pair[0])
                        .map_err(|e| config_error(format!("scalar_map.{direction}: {e}")))?;
                    let value = output
                        .parse_fill_value(&pair[1])
                        .map_err(|e| config_error(format!("scalar_map.{direction}: {e}")))?;
                    let in_kind = kind(input).expect("checked above");
                    out.push((in_kind.read(key.as_bytes()), value.as_bytes().to_vec()));
                }
            }
        }
        Ok(CastValueCodec {
            decoded_type: data_type.clone(),
            encode: Direction {
                from,
                to,
                to_size: encoded_type.size(),
                map: encode_map,
            },
            decode: Direction {
                from: to,
                to: from,
                to_size: data_type.size(),
                map: decode_map,
            },
            encoded_type,
            rounding,
            out_of_range,
            configuration: config.clone(),
        })
    }

    fn round(&self, x: f64) -> f64 {
        match self.rounding {
            Rounding::NearestEven => x.round_ties_even(),
            Rounding::TowardsZero => x.trunc(),
            Rounding::TowardsPositive => x.ceil(),
            Rounding::TowardsNegative => x.floor(),
            Rounding::NearestAway => x.round(),
        }
    }

    /// Convert one element of `direction.from` to `direction.to`.
    fn cast_one(&self, direction: &Direction, x: Num, out: &mut Vec<u8>) -> Result<(), String> {
        let same = |a: Num, b: Num| match (a, b) {
            (Num::Float(p), Num::Float(q)) => {
                (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()
            }
            _ => a == b,
        };
        if let Some((_, mapped)) = direction.map.iter().find(|(key, _)| same(*key, x)) {
            out.extend_from_slice(mapped);
            return Ok(());
        }
        let out_of_range = |what: &str| {
            format!(
                "{what} is outside the range of {}",
                self.target_name(direction)
            )
        };
        match direction.to {
            Kind::Int { bits, signed } => {
                let (min, max) = direction.to.range();
                let v = match x {
                    Num::Int(v) => v,
                    Num::Float(f) if f.is_nan() => {
                        return Err(format!(
                            "NaN cannot be cast to {}",
                            self.target_name(direction)
                        ))
                    }
                    Num::Float(f) if f.is_infinite() => match self.out_of_range {
                        OutOfRange::Clamp => {
                            if f > 0.0 {
                                max
                            } else {
                                min
                            }
                        }
                        _ => return Err(out_of_range(&f.to_string())),
                    },
                    Num::Float(f) => {
                        let r = self.round(f);
                        if r.abs() >= 1.7e38 {
                            match self.out_of_range {
                                OutOfRange::Clamp if r > 0.0 => max,
                                OutOfRange::Clamp => min,
                                // The remainder by 2^bits is exact in f64 (r is an integer,
                                // fmod is exact) and fits i128; the wrap below finishes it.
                                OutOfRange::Wrap => (r % f64::from(bits).exp2()) as i128,
                                _ => return Err(out_of_range(&f.to_string())),
                            }
                        } else {
                            r as i128
                        }
                    }
                };
                let v = if (min..=max).contains(&v) {
                    v
                } else {
                    match self.out_of_range {
                        OutOfRange::Error => return Err(out_of_range(&v.to_string())),
                        OutOfRange::Clamp => v.clamp(min, max),
                        OutOfRange::Wrap => {
                            let modulus = 1i128 << bits;
                            let w = v.rem_euclid(modulus);
                            if signed && w > max {
                                w - modulus
                            } else {
                                w
                            }
                        }
                    }
                };
                let bytes = (v as u128).to_ne_bytes();
                let n = bits as usize / 8;
                if cfg!(target_endian = "little") {
                    out.extend_from_slice(&bytes[..n]);
                } else {
                    out.extend_from_slice(&bytes[16 - n..]);
                }
            }
            to => {
                let f = match x {
                    Num::Int(v) => v as f64,
                    Num::Float(f) => f,
                };
                if f.is_infinite() && !to.has_infinity() {
                    match self.out_of_range {
                        OutOfRange::Clamp => {
                            let m = to.max_finite();
                            out.extend(
                                to.float_bytes(if f > 0.0 { m } else { -m })
                                    .unwrap_or_default(),
                            );
                            return Ok(());
                        }
                        _ => return Err(out_of_range(&f.to_string())),
                    }
                }
                match to.float_bytes(f) {
                    Some(bytes) => out.extend(bytes),
                    None => match self.out_of_range {
                        OutOfRange::Clamp => {
                            let m = to.max_finite();
                            out.extend(
                                to.float_bytes(if f > 0.0 { m } else { -m })
                                    .unwrap_or_default(),
                            );
                        }
                        _ => return Err(out_of_range(&f.to_string())),
                    },
                }
            }
        }
        Ok(())
    }

    fn target_name(&self, direction: &Direction) -> String {
        if std::ptr::eq(direction, &self.encode) {
            self.encoded_type.name()
        } else {
            self.decoded_type.name()
        }
    }

    fn cast(
        &self,
        direction: &Direction,
        input: &[u8],
        from_size: usize,
    ) -> Result<Vec<u8>, String> {
        let n = input.len() / from_size;
        let mut out = Vec::new();
        out.try_reserve_exact(n * direction.to_size)
            .map_err(|_| format!("out of memory allocating {} bytes", n * direction.to_size))?;
        for element in input.chunks_exact(from_size) {
            self.cast_one(direction, direction.from.read(element), &mut out)?;
        }
        Ok(out)
    }

    fn check(
        &self,
        input: &[u8],
        data_type: &DataType,
        decoded: &ChunkRepresentation,
    ) -> Result<(), CodecError> {
        let n = decoded.num_elements().and_then(|n| usize::try_from(n).ok());
        if n.and_then(|n| n.checked_mul(data_type.size())) != Some(input.len()) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "{} bytes are not {:?} elements of {}",
                    input.len(),
                    decoded.shape,
                    data_type.name()
                ),
            ));
        }
        Ok(())
    }
}

impl ArrayToArrayCodec for CastValueCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        Some(self.configuration.clone())
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        if decoded.data_type != self.decoded_type {
            return Err(config_error("data type differs from the one configured"));
        }
        let fill = self
            .cast(
                &self.encode,
                decoded.fill_value.as_bytes(),
                self.decoded_type.size(),
            )
            .map_err(|e| config_error(format!("the fill value cannot be cast: {e}")))?;
        Ok(ChunkRepresentation {
            shape: decoded.shape.clone(),
            data_type: self.encoded_type.clone(),
            fill_value: FillValue::new(fill),
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        self.check(&input, &self.decoded_type, decoded)?;
        self.cast(&self.encode, &input, self.decoded_type.size())
            .map_err(|message| CodecError::EncodeFailed {
                codec: NAME.into(),
                message,
            })
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        self.check(&input, &self.encoded_type, decoded)?;
        self.cast(&self.decode, &input, self.encoded_type.size())
            .map_err(|message| CodecError::corrupt(NAME, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(conf: Value, dt: &DataType) -> Result<CastValueCodec, CodecError> {
        CastValueCodec::from_configuration(conf.as_object().unwrap(), dt)
    }

    fn repr(n: u64, dt: &DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: vec![n],
            fill_value: dt.zero_fill_value(),
            data_type: dt.clone(),
        }
    }

    fn f64s(values: &[f64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn float_to_uint8_rounding_and_range() {
        let dt = DataType::Float64;
        let input = f64s(&[0.5, 1.5, 2.5, -0.5, 254.7]);
        for (rounding, want) in [
            ("nearest-even", [0u8, 2, 2, 0, 255]),
            ("towards-zero", [0, 1, 2, 0, 254]),
            ("towards-positive", [1, 2, 3, 0, 255]),
            // -0.5 goes to -1, clamped to 0.
            ("towards-negative", [0, 1, 2, 0, 254]),
            ("nearest-away", [1, 2, 3, 0, 255]),
        ] {
            let c = codec(
                json!({"data_type": "uint8", "rounding": rounding, "out_of_range": "clamp"}),
                &dt,
            )
            .unwrap();
            assert_eq!(
                c.encode(input.clone(), &repr(5, &dt)).unwrap(),
                want,
                "{rounding}"
            );
        }
        let c = codec(
            json!({"data_type": "uint8", "rounding": "towards-negative", "out_of_range": "clamp"}),
            &dt,
        )
        .unwrap();
        assert_eq!(
            c.encode(f64s(&[-0.5, 300.0, 254.7]), &repr(3, &dt))
                .unwrap(),
            vec![0, 255, 254]
        );
        let c = codec(json!({"data_type": "uint8"}), &dt).unwrap();
        assert!(matches!(
            c.encode(f64s(&[256.0]), &repr(1, &dt)),
            Err(CodecError::EncodeFailed { .. })
        ));
        assert!(
            c.encode(f64s(&[f64::NAN]), &repr(1, &dt)).is_err(),
            "NaN into an integer"
        );
        assert_eq!(
            c.encode(f64s(&[2.5]), &repr(1, &dt)).unwrap(),
            vec![2],
            "ties to even"
        );
        // Decoding gives the float back.
        assert_eq!(c.decode(vec![7], &repr(1, &dt)).unwrap(), f64s(&[7.0]));
    }

    #[test]
    fn wrap_and_scalar_map() {
        let dt = DataType::Int16;
        let c = codec(json!({"data_type": "int8", "out_of_range": "wrap"}), &dt).unwrap();
        let input: Vec<u8> = [127i16, 128, -129, 300]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let got = c.encode(input, &repr(4, &dt)).unwrap();
        assert_eq!(
            got.iter().map(|b| *b as i8).collect::<Vec<_>>(),
            [127, -128, 127, 44]
        );
        // From floats: rounded (nearest-even), then modulo 2^bits, huge values included;
        // infinities and NaN have no remainder.
        let dt = DataType::Float64;
        let c = codec(json!({"data_type": "uint8", "out_of_range": "wrap"}), &dt).unwrap();
        let values = [
            300.0, -1.0, 256.5, 255.5, -129.0, 1000.25, 1e300, -1e300, -3.0e38,
        ];
        assert_eq!(
            c.encode(f64s(&values), &repr(9, &dt)).unwrap(),
            [44, 255, 0, 0, 127, 232, 0, 0, 0]
        );
        let c = codec(json!({"data_type": "int8", "out_of_range": "wrap"}), &dt).unwrap();
        let got = c
            .encode(f64s(&[200.0, -129.4, 1e300]), &repr(3, &dt))
            .unwrap();
        assert_eq!(
            got.iter().map(|b| *b as i8).collect::<Vec<_>>(),
            [-56, 127, 0]
        );
        for bad in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            assert!(c.encode(f64s(&[bad]), &repr(1, &dt)).is_err(), "{bad}");
        }
        let dt = DataType::Float32;
        let c = codec(
            json!({"data_type": "uint8", "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}}),
            &dt,
        )
        .unwrap();
        let input: Vec<u8> = [f32::NAN, 3.0]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let encoded = c.encode(input, &repr(2, &dt)).unwrap();
        assert_eq!(encoded, vec![255, 3]);
        let decoded = c.decode(encoded, &repr(2, &dt)).unwrap();
        assert!(f32::from_ne_bytes(decoded[..4].try_into().unwrap()).is_nan());
        assert_eq!(f32::from_ne_bytes(decoded[4..].try_into().unwrap()), 3.0);
    }

    #[test]
    fn float_targets_and_configuration() {
        let dt = DataType::Float64;
        let c = codec(json!({"data_type": "float16"}), &dt).unwrap();
        assert!(
            c.encode(f64s(&[1e6]), &repr(1, &dt)).is_err(),
            "overflows float16"
        );
        assert_eq!(
            c.encode(f64s(&[f64::INFINITY]), &repr(1, &dt)).unwrap(),
            f16::INFINITY.to_bits().to_ne_bytes().to_vec()
        );
        let c = codec(
            json!({"data_type": "float8_e4m3fn", "out_of_range": "clamp"}),
            &dt,
        )
        .unwrap();
        assert_eq!(
            c.encode(f64s(&[1e6, -1e6, 1.0]), &repr(3, &dt)).unwrap(),
            vec![0x7e, 0xfe, 0x38]
        );
        for bad in [
            json!({}),
            json!({"data_type": "bool"}),
            json!({"data_type": "int8", "rounding": "up"}),
            json!({"data_type": "int8", "out_of_range": "saturate"}),
            json!({"data_type": "float32", "out_of_range": "wrap"}),
            json!({"data_type": "int8", "extra": 1}),
            json!({"data_type": "int8", "scalar_map": {"encode": [[1]]}}),
        ] {
            assert!(codec(bad.clone(), &dt).is_err(), "{bad}");
        }
        // The fill value goes through the cast.
        let mut r = repr(1, &dt);
        r.fill_value = FillValue::new(f64s(&[f64::NAN]));
        let c = codec(json!({"data_type": "int8"}), &dt).unwrap();
        assert!(c.encoded_representation(&r).is_err());
    }
}
