//! `zfp` (the zarr-extensions registry codec) and `numcodecs.zfpy`: chunks compressed by
//! the reference zfp C library (through `zfp-sys`).
//!
//! * `zfp`: `{"mode": "reversible" | "fixed_rate" (`rate`) | "fixed_precision"
//!   (`precision`) | "fixed_accuracy" (`tolerance`) | "expert" (`minbits`, `maxbits`,
//!   `maxprec`, `minexp`)}`; the stream has no header. Data types int32, int64, float32,
//!   float64, and int8/uint8/int16/uint16 promoted to int32 as zfp's `zfp_promote_*`
//!   functions do. Chunks of more than 4 dimensions drop their size-1 dimensions; 0-d
//!   chunks are one element. As in zarrs (where the codec originated), fixed-rate mode
//!   sets the rate with `zfp_stream_set_rate(.., dims = 3, ..)` whatever the chunk's rank,
//!   so that both write the same bits per block.
//! * `numcodecs.zfpy`: numcodecs' `{"mode": 2 (fixed rate) | 3 (fixed precision) |
//!   4 (fixed accuracy) | 5 (reversible), "tolerance", "rate", "precision"}` (-1 = unset;
//!   an unset parameter of the chosen mode means reversible, as zfpy's `compress_numpy`
//!   does), and the stream starts with zfp's full header, as zfpy writes it. Data types
//!   int32, int64, float32, float64; 1 to 4 dimensions.
//!
//! Decoding never trusts the stream: a header must describe exactly the chunk's type and
//! shape, the input is copied into a zero-padded, word-aligned buffer at least as large as
//! the largest stream the parameters allow (zfp reads whole words and does not check for
//! the end of its buffer), and a stream that needs more bytes than it has is corrupt.

use super::ArrayToBytesCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use crate::sys::zfp;
use serde_json::{Map, Value};

const ZFP: &str = "zfp";
const ZFPY: &str = "numcodecs.zfpy";

pub use crate::sys::zfp::Mode as ZfpMode;

/// How chunk elements map to zfp's four scalar types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Int8,
    UInt8,
    Int16,
    UInt16,
    Int32,
    Int64,
    Float32,
    Float64,
}

impl Element {
    fn of(data_type: &DataType, promote: bool) -> Option<Element> {
        Some(match data_type {
            DataType::Int32 => Element::Int32,
            DataType::Int64 => Element::Int64,
            DataType::Float32 => Element::Float32,
            DataType::Float64 => Element::Float64,
            DataType::Int8 if promote => Element::Int8,
            DataType::UInt8 if promote => Element::UInt8,
            DataType::Int16 if promote => Element::Int16,
            DataType::UInt16 if promote => Element::UInt16,
            _ => return None,
        })
    }

    fn scalar(self) -> zfp::Scalar {
        match self {
            Element::Int64 => zfp::Scalar::Int64,
            Element::Float32 => zfp::Scalar::Float,
            Element::Float64 => zfp::Scalar::Double,
            _ => zfp::Scalar::Int32,
        }
    }

    /// Host-order elements as zfp's values (native-endian values of `zfp::Scalar::size` bytes).
    fn promote(self, data: &[u8]) -> Vec<u8> {
        let ints = |f: &dyn Fn(&[u8]) -> i32, size: usize| -> Vec<u8> {
            data.chunks_exact(size)
                .flat_map(|b| f(b).to_ne_bytes())
                .collect()
        };
        match self {
            Element::Int8 => ints(&|b| (b[0] as i8 as i32) << 23, 1),
            Element::UInt8 => ints(&|b| (b[0] as i32 - 0x80) << 23, 1),
            Element::Int16 => ints(&|b| (i16::from_ne_bytes([b[0], b[1]]) as i32) << 15, 2),
            Element::UInt16 => ints(
                &|b| (u16::from_ne_bytes([b[0], b[1]]) as i32 - 0x8000) << 15,
                2,
            ),
            _ => data.to_vec(),
        }
    }

    /// zfp's values back to host-order elements (`zfp_demote_*`: shift and clamp).
    fn demote(self, values: &[u8], out: &mut [u8]) {
        let words = values
            .chunks_exact(4)
            .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
        match self {
            Element::Int8 => {
                for (o, v) in out.iter_mut().zip(words) {
                    *o = (v >> 23).clamp(-0x80, 0x7f) as i8 as u8;
                }
            }
            Element::UInt8 => {
                for (o, v) in out.iter_mut().zip(words) {
                    *o = ((v >> 23) + 0x80).clamp(0, 0xff) as u8;
                }
            }
            Element::Int16 => {
                for (o, v) in out.chunks_exact_mut(2).zip(words) {
                    o.copy_from_slice(&((v >> 15).clamp(-0x8000, 0x7fff) as i16).to_ne_bytes());
                }
            }
            Element::UInt16 => {
                for (o, v) in out.chunks_exact_mut(2).zip(words) {
                    o.copy_from_slice(
                        &(((v >> 15) + 0x8000).clamp(0, 0xffff) as u16).to_ne_bytes(),
                    );
                }
            }
            _ => out.copy_from_slice(&values[..out.len()]),
        }
    }
}

/// `zfp` or `numcodecs.zfpy`.
#[derive(Clone, Debug)]
pub struct ZfpCodec {
    mode: ZfpMode,
    element: Element,
    /// `numcodecs.zfpy`: its configuration as given (numcodecs' integer mode and the three
    /// parameters), written back unchanged; and a zfp header before the stream.
    zfpy: Option<Map<String, Value>>,
}

fn config_error(codec: &str, message: impl Into<String>) -> CodecError {
    CodecError::config(codec, message)
}

fn check_keys(
    codec: &str,
    config: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), CodecError> {
    match config.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(config_error(codec, format!("unknown key \"{key}\""))),
        None => Ok(()),
    }
}

impl ZfpCodec {
    /// The registry's `zfp` codec.
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        data_type: &DataType,
    ) -> Result<ZfpCodec, CodecError> {
        let empty = Map::new();
        let config = configuration.unwrap_or(&empty);
        let number = |key: &str| {
            config
                .get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| config_error(ZFP, format!("\"{key}\" must be a number")))
        };
        let unsigned = |key: &str| {
            config
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| config_error(ZFP, format!("\"{key}\" must be an unsigned integer")))
        };
        let mode = match config.get("mode").and_then(Value::as_str) {
            Some("reversible") => {
                check_keys(ZFP, config, &["mode"])?;
                ZfpMode::Reversible
            }
            Some("fixed_rate") => {
                check_keys(ZFP, config, &["mode", "rate"])?;
                ZfpMode::FixedRate(number("rate")?)
            }
            Some("fixed_precision") => {
                check_keys(ZFP, config, &["mode", "precision"])?;
                ZfpMode::FixedPrecision(unsigned("precision")?)
            }
            Some("fixed_accuracy") => {
                check_keys(ZFP, config, &["mode", "tolerance"])?;
                ZfpMode::FixedAccuracy(number("tolerance")?)
            }
            Some("expert") => {
                check_keys(
                    ZFP,
                    config,
                    &["mode", "minbits", "maxbits", "maxprec", "minexp"],
                )?;
                let minexp = config
                    .get("minexp")
                    .and_then(Value::as_i64)
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| config_error(ZFP, "\"minexp\" must be an integer"))?;
                ZfpMode::Expert {
                    minbits: unsigned("minbits")?,
                    maxbits: unsigned("maxbits")?,
                    maxprec: unsigned("maxprec")?,
                    minexp,
                }
            }
            _ => {
                return Err(config_error(
                    ZFP,
                    "\"mode\" must be \"reversible\", \"fixed_rate\", \"fixed_precision\", \
                     \"fixed_accuracy\" or \"expert\"",
                ))
            }
        };
        ZfpCodec::new(mode, data_type, None)
    }

    /// numcodecs' `zfpy`.
    pub fn from_numcodecs(
        configuration: Option<&Map<String, Value>>,
        data_type: &DataType,
    ) -> Result<ZfpCodec, CodecError> {
        let empty = Map::new();
        let config = configuration.unwrap_or(&empty);
        check_keys(
            ZFPY,
            config,
            &[
                "mode",
                "tolerance",
                "rate",
                "precision",
                "compression_kwargs",
            ],
        )?;
        let float = |key: &str| match config.get(key) {
            None | Some(Value::Null) => Ok(-1.0),
            Some(v) => v
                .as_f64()
                .ok_or_else(|| config_error(ZFPY, format!("\"{key}\" must be a number"))),
        };
        let tolerance = float("tolerance")?;
        let rate = float("rate")?;
        let precision = float("precision")?;
        // numcodecs' default mode is fixed accuracy (4).
        let mode_number = match config.get("mode") {
            None | Some(Value::Null) => 4,
            Some(v) => v.as_i64().ok_or_else(|| {
                config_error(ZFPY, format!("\"mode\" must be an integer, not {v}"))
            })?,
        };
        let mode = match mode_number {
            2 if rate >= 0.0 => ZfpMode::FixedRate(rate),
            3 if precision >= 0.0 => {
                if precision.fract() != 0.0 || precision > u32::MAX as f64 {
                    return Err(config_error(ZFPY, "\"precision\" must be an integer"));
                }
                ZfpMode::FixedPrecision(precision as u32)
            }
            4 if tolerance >= 0.0 => ZfpMode::FixedAccuracy(tolerance),
            // zfpy's compress_numpy falls back to reversible mode when the parameter of
            // the mode is unset (-1).
            2..=5 => ZfpMode::Reversible,
            other => {
                return Err(config_error(
                    ZFPY,
                    format!("mode {other} is not one of 2 (fixed rate), 3 (fixed precision), 4 (fixed accuracy), 5 (reversible)"),
                ))
            }
        };
        let mut written = Map::new();
        written.insert("mode".into(), Value::from(mode_number));
        for key in ["tolerance", "rate", "precision"] {
            written.insert(
                key.into(),
                config.get(key).cloned().unwrap_or(Value::from(-1)),
            );
        }
        ZfpCodec::new(mode, data_type, Some(written))
    }

    fn new(
        mode: ZfpMode,
        data_type: &DataType,
        zfpy: Option<Map<String, Value>>,
    ) -> Result<ZfpCodec, CodecError> {
        let name = if zfpy.is_some() { ZFPY } else { ZFP };
        let element = Element::of(data_type, zfpy.is_none()).ok_or_else(|| {
            config_error(
                name,
                format!(
                    "data type {} is not one zfp compresses ({})",
                    data_type.name(),
                    if zfpy.is_some() {
                        "int32, int64, float32, float64"
                    } else {
                        "int8, uint8, int16, uint16, int32, int64, float32, float64"
                    }
                ),
            )
        })?;
        if let ZfpMode::FixedAccuracy(_) = mode {
            if matches!(element.scalar(), zfp::Scalar::Int32 | zfp::Scalar::Int64) {
                return Err(config_error(
                    name,
                    "fixed_accuracy mode applies to floating-point data only",
                ));
            }
        }
        match mode {
            ZfpMode::FixedRate(r) | ZfpMode::FixedAccuracy(r) if !r.is_finite() || r < 0.0 => {
                return Err(config_error(name, format!("invalid rate or tolerance {r}")))
            }
            _ => {}
        }
        Ok(ZfpCodec {
            mode,
            element,
            zfpy,
        })
    }

    fn codec_name(&self) -> &'static str {
        if self.zfpy.is_some() {
            ZFPY
        } else {
            ZFP
        }
    }

    /// The rank fixed-rate mode sizes its blocks for: zfpy passes the array's rank to
    /// `zfp_stream_set_rate` (and the header records the result); the registry codec
    /// follows zarrs, which passes 3 whatever the rank.
    fn rate_dims(&self, dims: &[usize]) -> u32 {
        if self.zfpy.is_some() {
            dims.len() as u32
        } else {
            3
        }
    }

    /// zfp's (nx, ny, nz, nw) for a C-order chunk: the fastest dimension first.
    fn zfp_dims(&self, shape: &[u64]) -> Result<Vec<usize>, CodecError> {
        let mut dims: Vec<u64> = if shape.is_empty() {
            vec![1]
        } else if shape.len() > 4 && self.zfpy.is_none() {
            // The registry lets chunks of more than 4 dimensions drop their size-1 ones.
            let kept: Vec<u64> = shape.iter().copied().filter(|n| *n != 1).collect();
            if kept.is_empty() {
                vec![1]
            } else {
                kept
            }
        } else {
            shape.to_vec()
        };
        if dims.len() > 4 {
            return Err(config_error(
                self.codec_name(),
                format!("zfp compresses 1 to 4 dimensions, the chunk shape is {shape:?}"),
            ));
        }
        dims.reverse();
        dims.iter()
            .map(|n| usize::try_from(*n).map_err(|_| CodecError::OutOfMemory(usize::MAX)))
            .collect()
    }
}

impl ZfpCodec {
    /// The zfp stream of a chunk of `dims` (zfp order) with this codec's parameters.
    fn stream(&self, dims: &[usize]) -> zfp::Stream {
        zfp::Stream {
            mode: self.mode,
            scalar: self.element.scalar(),
            dims: dims.to_vec(),
            rate_dims: self.rate_dims(dims),
            header: self.zfpy.is_some(),
        }
    }

    fn error(&self, error: zfp::ZfpError, encoding: bool) -> CodecError {
        let codec = self.codec_name();
        match error {
            zfp::ZfpError::OutOfMemory(n) => CodecError::OutOfMemory(n),
            zfp::ZfpError::InvalidParameters(m) => CodecError::config(codec, m),
            zfp::ZfpError::Failed(message) if encoding => CodecError::EncodeFailed {
                codec: codec.into(),
                message,
            },
            zfp::ZfpError::Failed(message) | zfp::ZfpError::Corrupt(message) => {
                CodecError::corrupt(codec, message)
            }
        }
    }
}

impl ArrayToBytesCodec for ZfpCodec {
    fn name(&self) -> &'static str {
        self.codec_name()
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        if let Some(zfpy) = &self.zfpy {
            return Some(zfpy.clone());
        }
        let mut map = Map::new();
        match self.mode {
            ZfpMode::Reversible => {
                map.insert("mode".into(), Value::from("reversible"));
            }
            ZfpMode::FixedRate(rate) => {
                map.insert("mode".into(), Value::from("fixed_rate"));
                map.insert("rate".into(), Value::from(rate));
            }
            ZfpMode::FixedPrecision(precision) => {
                map.insert("mode".into(), Value::from("fixed_precision"));
                map.insert("precision".into(), Value::from(precision));
            }
            ZfpMode::FixedAccuracy(tolerance) => {
                map.insert("mode".into(), Value::from("fixed_accuracy"));
                map.insert("tolerance".into(), Value::from(tolerance));
            }
            ZfpMode::Expert {
                minbits,
                maxbits,
                maxprec,
                minexp,
            } => {
                map.insert("mode".into(), Value::from("expert"));
                map.insert("minbits".into(), Value::from(minbits));
                map.insert("maxbits".into(), Value::from(maxbits));
                map.insert("maxprec".into(), Value::from(maxprec));
                map.insert("minexp".into(), Value::from(minexp));
            }
        }
        Some(map)
    }

    fn encode(&self, decoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let dims = self.zfp_dims(&repr.shape)?;
        let values = self.element.promote(&decoded);
        zfp::compress(&self.stream(&dims), &values).map_err(|e| self.error(e, true))
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let dims = self.zfp_dims(&repr.shape)?;
        let values =
            zfp::decompress(&self.stream(&dims), &encoded).map_err(|e| self.error(e, false))?;
        let size = repr
            .size_bytes()
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        let mut out = crate::codec::try_vec_with_capacity(size)?;
        out.resize(size, 0);
        self.element.demote(&values, &mut out);
        Ok(out)
    }

    fn encoded_len(&self, _repr: &ChunkRepresentation) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    fn zfp(conf: Value, dt: &DataType) -> ZfpCodec {
        ZfpCodec::from_configuration(Some(conf.as_object().unwrap()), dt).unwrap()
    }

    #[test]
    fn reversible_round_trips_every_type_and_rank() {
        for dt in [
            DataType::Int8,
            DataType::UInt8,
            DataType::Int16,
            DataType::UInt16,
            DataType::Int32,
            DataType::Int64,
            DataType::Float32,
            DataType::Float64,
        ] {
            for shape in [
                &[][..],
                &[7],
                &[5, 6],
                &[3, 4, 5],
                &[2, 3, 2, 3],
                &[2, 1, 3, 1, 1, 2],
            ] {
                let codec = zfp(json!({"mode": "reversible"}), &dt);
                let r = repr(shape, dt.clone());
                let n = r.size_bytes().unwrap();
                let data: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
                let encoded = codec.encode(data.clone(), &r).unwrap();
                assert_eq!(codec.decode(encoded, &r).unwrap(), data, "{dt:?} {shape:?}");
            }
        }
        let codec = zfp(json!({"mode": "reversible"}), &DataType::Float32);
        let r = repr(&[2, 2, 2, 2, 2], DataType::Float32);
        assert!(codec.encode(vec![0; 128], &r).is_err(), "5 dimensions > 1");
    }

    #[test]
    fn lossy_modes_and_zfpy_header() {
        let r = repr(&[8, 8], DataType::Float64);
        let values: Vec<f64> = (0..64).map(|i| (i as f64 * 0.37).sin() * 100.0).collect();
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        for conf in [
            json!({"mode": "fixed_accuracy", "tolerance": 0.01}),
            json!({"mode": "fixed_precision", "precision": 30}),
            json!({"mode": "fixed_rate", "rate": 32.0}),
            json!({"mode": "expert", "minbits": 1, "maxbits": 16657, "maxprec": 64, "minexp": -1074}),
        ] {
            let codec = zfp(conf.clone(), &DataType::Float64);
            let decoded = codec
                .decode(codec.encode(data.clone(), &r).unwrap(), &r)
                .unwrap();
            for (a, b) in decoded.chunks_exact(8).zip(&values) {
                let a = f64::from_ne_bytes(a.try_into().unwrap());
                assert!((a - b).abs() < 0.05, "{conf}: {a} vs {b}");
            }
        }
        let zfpy = ZfpCodec::from_numcodecs(
            Some(json!({"mode": 4, "tolerance": 0.01}).as_object().unwrap()),
            &DataType::Float64,
        )
        .unwrap();
        let encoded = zfpy.encode(data.clone(), &r).unwrap();
        assert_eq!(
            &encoded[..3],
            b"zfp",
            "the full header starts with the magic"
        );
        let decoded = zfpy.decode(encoded.clone(), &r).unwrap();
        assert_eq!(decoded.len(), data.len());
        // A header of another shape or type, truncation and garbage are corrupt data.
        assert!(matches!(
            zfpy.decode(encoded.clone(), &repr(&[8, 7], DataType::Float64)),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            zfpy.decode(encoded[..encoded.len() / 2].to_vec(), &r),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            zfpy.decode(b"not a zfp stream".to_vec(), &r),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            zfpy.decode(Vec::new(), &r),
            Err(CodecError::Corrupt { .. })
        ));
        assert_eq!(
            Value::Object(zfpy.configuration().unwrap()),
            json!({"mode": 4, "tolerance": 0.01, "rate": -1, "precision": -1})
        );
    }

    #[test]
    fn truncated_headerless_stream_is_corrupt() {
        let r = repr(&[16, 16], DataType::Float32);
        let data: Vec<u8> = (0..256)
            .flat_map(|i| ((i as f32).sqrt()).to_ne_bytes())
            .collect();
        let codec = zfp(json!({"mode": "reversible"}), &DataType::Float32);
        let encoded = codec.encode(data, &r).unwrap();
        assert!(matches!(
            codec.decode(encoded[..encoded.len() - 40].to_vec(), &r),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn configurations() {
        for bad in [
            json!({}),
            json!({"mode": "lossless"}),
            json!({"mode": "fixed_rate"}),
            json!({"mode": "fixed_rate", "rate": -1}),
            json!({"mode": "reversible", "rate": 1}),
            json!({"mode": "expert", "minbits": 1}),
        ] {
            assert!(
                ZfpCodec::from_configuration(Some(bad.as_object().unwrap()), &DataType::Float32)
                    .is_err(),
                "{bad}"
            );
        }
        let acc = json!({"mode": "fixed_accuracy", "tolerance": 0.1});
        assert!(
            ZfpCodec::from_configuration(Some(acc.as_object().unwrap()), &DataType::Int32).is_err()
        );
        assert!(ZfpCodec::from_configuration(None, &DataType::Float32).is_err());
        let rev = json!({"mode": "reversible"});
        assert!(
            ZfpCodec::from_configuration(Some(rev.as_object().unwrap()), &DataType::Bool).is_err()
        );
        assert!(ZfpCodec::from_numcodecs(None, &DataType::Int16).is_err());
        assert!(ZfpCodec::from_numcodecs(
            Some(json!({"mode": 7}).as_object().unwrap()),
            &DataType::Float32
        )
        .is_err());
    }
}
