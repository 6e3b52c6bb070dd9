//! `numcodecs.pcodec`: pcodec (pco) standalone streams, through the reference `pco` crate
//! (the same library numcodecs' `pcodec` Python package wraps, so equal versions write equal
//! bytes).
//!
//! Configuration (numcodecs' keys and defaults): `level` (8, 0..=12), `mode_spec` ("auto" or
//! "classic"), `delta_spec` ("auto", "no_op", "none", "try_consecutive", "try_lookback"),
//! `paging_spec` ("equal_pages_up_to"), `delta_encoding_order` (null or 0..=7, with
//! "try_consecutive" or "auto"), `equal_pages_up_to` (262144). Data types: int16..int64,
//! uint16..uint64, float16, float32, float64 (numcodecs' list), and datetime64/timedelta64
//! (as int64).

use super::ArrayToBytesCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use pco::standalone::{simple_compress, simple_decompress_into};
use pco::{ChunkConfig, DeltaSpec, ModeSpec, PagingSpec};
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.pcodec";
const DEFAULT_LEVEL: u64 = 8;
const DEFAULT_PAGE_N: u64 = 262_144;

/// The numeric element types pco handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
}

impl Element {
    fn of(data_type: &DataType) -> Option<Element> {
        Some(match data_type {
            DataType::Int16 => Element::I16,
            DataType::Int32 => Element::I32,
            DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_) => Element::I64,
            DataType::UInt16 => Element::U16,
            DataType::UInt32 => Element::U32,
            DataType::UInt64 => Element::U64,
            DataType::Float16 => Element::F16,
            DataType::Float32 => Element::F32,
            DataType::Float64 => Element::F64,
            _ => return None,
        })
    }
}

/// The `numcodecs.pcodec` codec.
#[derive(Clone, Debug)]
pub struct PcodecCodec {
    level: u64,
    mode_spec: &'static str,
    delta_spec: &'static str,
    delta_encoding_order: Option<u64>,
    equal_pages_up_to: u64,
    element: Element,
}

fn config_error(message: impl Into<String>) -> CodecError {
    CodecError::config(NAME, message)
}

impl PcodecCodec {
    /// Parse a numcodecs configuration (keys not given take numcodecs' defaults) for arrays
    /// of `data_type`.
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        data_type: &DataType,
    ) -> Result<PcodecCodec, CodecError> {
        let empty = Map::new();
        let config = configuration.unwrap_or(&empty);
        if let Some(key) = config.keys().find(|k| {
            !matches!(
                k.as_str(),
                "level"
                    | "mode_spec"
                    | "delta_spec"
                    | "paging_spec"
                    | "delta_encoding_order"
                    | "equal_pages_up_to"
            )
        }) {
            return Err(config_error(format!("unknown key \"{key}\"")));
        }
        let element = Element::of(data_type).ok_or_else(|| {
            config_error(format!(
                "data type {} is not one pcodec compresses (16- to 64-bit integers, float16/32/64)",
                data_type.name()
            ))
        })?;
        let level = match config.get("level") {
            None | Some(Value::Null) => DEFAULT_LEVEL,
            Some(v) => v
                .as_u64()
                .filter(|l| *l <= 12)
                .ok_or_else(|| config_error(format!("level must be 0..=12, not {v}")))?,
        };
        let text =
            |key: &str, default: &'static str, allowed: &[&'static str]| match config.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::String(s)) => allowed
                    .iter()
                    .find(|a| **a == s.as_str())
                    .copied()
                    .ok_or_else(|| {
                        config_error(format!("{key} must be one of {allowed:?}, not \"{s}\""))
                    }),
                Some(other) => Err(config_error(format!("{key} must be a string, not {other}"))),
            };
        let mode_spec = text("mode_spec", "auto", &["auto", "classic"])?;
        let mut delta_spec = text(
            "delta_spec",
            "auto",
            &["auto", "no_op", "none", "try_consecutive", "try_lookback"],
        )?;
        if delta_spec == "none" {
            // numcodecs' deprecated spelling of "no_op".
            delta_spec = "no_op";
        }
        text("paging_spec", "equal_pages_up_to", &["equal_pages_up_to"])?;
        let delta_encoding_order = match config.get("delta_encoding_order") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().filter(|o| *o <= 7).ok_or_else(|| {
                config_error(format!(
                    "delta_encoding_order must be 0..=7 or null, not {v}"
                ))
            })?),
        };
        match (delta_spec, delta_encoding_order) {
            ("try_consecutive", None) => {
                return Err(config_error(
                    "delta_spec \"try_consecutive\" needs a delta_encoding_order",
                ))
            }
            ("try_consecutive" | "auto", _) | (_, None) => {}
            _ => {
                return Err(config_error(
                    "delta_encoding_order can only be set with delta_spec \"try_consecutive\" or \"auto\"",
                ))
            }
        }
        let equal_pages_up_to = match config.get("equal_pages_up_to") {
            None | Some(Value::Null) => DEFAULT_PAGE_N,
            Some(v) => v.as_u64().filter(|n| *n > 0).ok_or_else(|| {
                config_error(format!(
                    "equal_pages_up_to must be a positive integer, not {v}"
                ))
            })?,
        };
        Ok(PcodecCodec {
            level,
            mode_spec,
            delta_spec,
            delta_encoding_order,
            equal_pages_up_to,
            element,
        })
    }

    fn chunk_config(&self) -> ChunkConfig {
        let mode_spec = if self.mode_spec == "classic" {
            ModeSpec::Classic
        } else {
            ModeSpec::Auto
        };
        let delta_spec = match (self.delta_spec, self.delta_encoding_order) {
            ("auto" | "try_consecutive", Some(order)) => DeltaSpec::TryConsecutive(order as usize),
            ("no_op", _) => DeltaSpec::NoOp,
            ("try_lookback", _) => DeltaSpec::TryLookback,
            _ => DeltaSpec::Auto,
        };
        ChunkConfig::default()
            .with_compression_level(self.level as usize)
            .with_mode_spec(mode_spec)
            .with_delta_spec(delta_spec)
            .with_paging_spec(PagingSpec::EqualPagesUpTo(self.equal_pages_up_to as usize))
    }
}

/// Compress host-order elements of `$t`.
macro_rules! compress_as {
    ($t:ty, $data:expr, $config:expr) => {{
        let values: Vec<$t> = $data
            .chunks_exact(std::mem::size_of::<$t>())
            .map(|b| <$t>::from_ne_bytes(b.try_into().expect("exact chunk")))
            .collect();
        simple_compress(&values, $config)
    }};
}

/// Decompress exactly `out.len() / size_of::<$t>()` elements into `out` (host order).
macro_rules! decompress_as {
    ($t:ty, $zero:expr, $src:expr, $out:expr) => {{
        let n = $out.len() / std::mem::size_of::<$t>();
        let mut values: Vec<$t> = Vec::new();
        values
            .try_reserve_exact(n)
            .map_err(|_| CodecError::OutOfMemory($out.len()))?;
        values.resize(n, $zero);
        let progress = simple_decompress_into($src, &mut values)
            .map_err(|e| CodecError::corrupt(NAME, e.to_string()))?;
        if progress.n_processed != n || !progress.finished {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "the stream holds {} values{} but the chunk has {n}",
                    progress.n_processed,
                    if progress.finished { "" } else { " or more" }
                ),
            ));
        }
        for (dst, v) in $out
            .chunks_exact_mut(std::mem::size_of::<$t>())
            .zip(&values)
        {
            dst.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    }};
}

impl ArrayToBytesCodec for PcodecCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("level".into(), Value::from(self.level));
        map.insert("mode_spec".into(), Value::from(self.mode_spec));
        map.insert("delta_spec".into(), Value::from(self.delta_spec));
        map.insert("paging_spec".into(), Value::from("equal_pages_up_to"));
        map.insert(
            "delta_encoding_order".into(),
            self.delta_encoding_order.map_or(Value::Null, Value::from),
        );
        map.insert(
            "equal_pages_up_to".into(),
            Value::from(self.equal_pages_up_to),
        );
        Some(map)
    }

    fn encode(&self, decoded: Vec<u8>, _repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let config = self.chunk_config();
        let result = match self.element {
            Element::I16 => compress_as!(i16, decoded, &config),
            Element::I32 => compress_as!(i32, decoded, &config),
            Element::I64 => compress_as!(i64, decoded, &config),
            Element::U16 => compress_as!(u16, decoded, &config),
            Element::U32 => compress_as!(u32, decoded, &config),
            Element::U64 => compress_as!(u64, decoded, &config),
            Element::F16 => compress_as!(half::f16, decoded, &config),
            Element::F32 => compress_as!(f32, decoded, &config),
            Element::F64 => compress_as!(f64, decoded, &config),
        };
        result.map_err(|e| CodecError::EncodeFailed {
            codec: NAME.into(),
            message: e.to_string(),
        })
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let size = repr
            .size_bytes()
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        // The stream's header says how many values it holds (when its writer knew): a
        // stream for another count is corrupt before the chunk's memory is allocated.
        let count = repr.num_elements().unwrap_or(u64::MAX);
        match pco::standalone::FileDecompressor::new(encoded.as_slice()) {
            Ok((header, _)) if header.n_hint() != 0 && header.n_hint() as u64 != count => {
                return Err(CodecError::corrupt(
                    NAME,
                    format!(
                        "the stream holds {} values but the chunk has {count}",
                        header.n_hint()
                    ),
                ));
            }
            Err(e) => return Err(CodecError::corrupt(NAME, e.to_string())),
            Ok(_) => {}
        }
        let mut out = crate::codec::try_vec_with_capacity(size)?;
        out.resize(size, 0);
        let src = encoded.as_slice();
        let result: Result<(), CodecError> = match self.element {
            Element::I16 => decompress_as!(i16, 0, src, out),
            Element::I32 => decompress_as!(i32, 0, src, out),
            Element::I64 => decompress_as!(i64, 0, src, out),
            Element::U16 => decompress_as!(u16, 0, src, out),
            Element::U32 => decompress_as!(u32, 0, src, out),
            Element::U64 => decompress_as!(u64, 0, src, out),
            Element::F16 => decompress_as!(half::f16, half::f16::ZERO, src, out),
            Element::F32 => decompress_as!(f32, 0.0, src, out),
            Element::F64 => decompress_as!(f64, 0.0, src, out),
        };
        result?;
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

    fn repr(n: u64, data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: vec![n],
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    #[test]
    fn round_trips_every_type() {
        for dt in [
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt16,
            DataType::UInt32,
            DataType::UInt64,
            DataType::Float16,
            DataType::Float32,
            DataType::Float64,
        ] {
            let codec = PcodecCodec::from_configuration(None, &dt).unwrap();
            let r = repr(1000, dt.clone());
            let data: Vec<u8> = (0..1000 * dt.size()).map(|i| (i * 7 % 13) as u8).collect();
            let encoded = codec.encode(data.clone(), &r).unwrap();
            assert_eq!(codec.decode(encoded, &r).unwrap(), data, "{dt:?}");
        }
    }

    #[test]
    fn bad_streams_are_corrupt() {
        // Streams written by numcodecs are read by the corpus test; here a stream of the
        // wrong length, a truncated one and garbage are errors, never a panic.
        let codec = PcodecCodec::from_configuration(None, &DataType::Float32).unwrap();
        let r = repr(10, DataType::Float32);
        let data: Vec<u8> = (0..10).flat_map(|i| (i as f32).to_ne_bytes()).collect();
        let encoded = codec.encode(data, &r).unwrap();
        assert!(matches!(
            codec.decode(encoded.clone(), &repr(11, DataType::Float32)),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            codec.decode(encoded.clone(), &repr(9, DataType::Float32)),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            codec.decode(encoded[..encoded.len() / 2].to_vec(), &r),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            codec.decode(vec![0xde, 0xad, 0xbe, 0xef], &r),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn configuration() {
        let codec = PcodecCodec::from_configuration(None, &DataType::Int32).unwrap();
        assert_eq!(
            Value::Object(codec.configuration().unwrap()),
            json!({"level": 8, "mode_spec": "auto", "delta_spec": "auto",
                   "paging_spec": "equal_pages_up_to", "delta_encoding_order": null,
                   "equal_pages_up_to": 262144})
        );
        for bad in [
            json!({"level": 13}),
            json!({"mode_spec": "dict"}),
            json!({"delta_spec": "no_op", "delta_encoding_order": 2}),
            json!({"delta_spec": "try_consecutive"}),
            json!({"equal_pages_up_to": 0}),
            json!({"unknown": 1}),
        ] {
            let conf = bad.as_object().unwrap().clone();
            assert!(
                PcodecCodec::from_configuration(Some(&conf), &DataType::Int32).is_err(),
                "{bad}"
            );
        }
        assert!(PcodecCodec::from_configuration(None, &DataType::Bool).is_err());
        assert!(PcodecCodec::from_configuration(None, &DataType::UInt8).is_err());
        assert!(PcodecCodec::from_configuration(None, &DataType::Complex64).is_err());
    }
}
