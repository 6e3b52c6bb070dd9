//! `numcodecs.lzma`: Python's `lzma.compress(data, format, check, preset, filters)`.
//!
//! * `format`: 1 = .xz (default), 2 = legacy .lzma ("alone"), 3 = raw (no header: the filter
//!   chain must be given, as GDAL writes it), 0 = automatic (decoding only: .xz or .lzma).
//! * `check` (.xz only): -1 = the format's default (CRC-64 for .xz, none otherwise), 0 none,
//!   1 CRC-32, 4 CRC-64, 10 SHA-256.
//! * `preset`: null (6) or 0..=9, optionally or'ed with `0x80000000` (extreme). Not together
//!   with `filters`.
//! * `filters`: null or a list of liblzma filter objects, last one LZMA1 or LZMA2:
//!   `{"id": 33}` (LZMA2) or `{"id": 4611686018427387905}` (LZMA1) with optional `preset`,
//!   `dict_size`, `lc`, `lp`, `pb`, `mode` (1 fast, 2 normal), `nice_len`, `mf` (3 hc3, 4
//!   hc4, 18 bt2, 19 bt3, 20 bt4), `depth`; `{"id": 3, "dist": 1..=256}` (delta); and the
//!   branch converters 4 x86, 5 PowerPC, 6 IA-64, 7 ARM, 8 ARM-Thumb, 9 SPARC, 10 ARM64,
//!   11 RISC-V with optional `start_offset`.
//!
//! Decoding reads the format named by the configuration (.xz streams may be concatenated);
//! integrity checks are verified; trailing bytes, truncation and corruption are
//! [`CodecError::Corrupt`]. The decoder's memory limit is 1 GiB (a preset 9 stream needs
//! 65 MiB); output never exceeds the expected size.

use super::{decode_stream, BytesToBytesCodec};
use crate::codec::configuration::{check_keys, get_int, range_error};
use crate::codec::{CodecError, DecodedSize};
use liblzma::bufread::{XzDecoder, XzEncoder};
use liblzma::stream::{
    Check, Filters, LzmaOptions, MatchFinder, Mode, Stream, CONCATENATED, PRESET_EXTREME,
};
use serde_json::{Map, Value};
use std::io::Read;

const NAME: &str = "numcodecs.lzma";

const MEMLIMIT: u64 = 1 << 30;
const FILTER_LZMA1: u64 = 0x4000_0000_0000_0001;
const FILTER_LZMA2: u64 = 0x21;
const FILTER_DELTA: u64 = 0x03;

/// One filter of a chain.
#[derive(Clone, Debug, PartialEq)]
enum FilterSpec {
    Lzma {
        lzma2: bool,
        preset: u32,
        dict_size: Option<u32>,
        lc: Option<u32>,
        lp: Option<u32>,
        pb: Option<u32>,
        mode: Option<u32>,
        nice_len: Option<u32>,
        mf: Option<u32>,
        depth: Option<u32>,
    },
    Delta {
        dist: u32,
    },
    Bcj {
        id: u64,
        start_offset: u32,
    },
}

/// The `numcodecs.lzma` codec.
#[derive(Clone, Debug, PartialEq)]
pub struct LzmaCodec {
    format: i64,
    check: i64,
    preset: Option<u32>,
    filters: Option<Vec<FilterSpec>>,
    /// The `filters` value as given, written back by `configuration()`.
    filters_json: Value,
}

fn cfg_err(message: impl Into<String>) -> CodecError {
    CodecError::config(NAME, message)
}

fn parse_preset(value: i64) -> Result<u32, CodecError> {
    let v = u32::try_from(value)
        .map_err(|_| range_error(NAME, "preset", "0 to 9 (| 0x80000000)", value))?;
    if v & !PRESET_EXTREME > 9 {
        return Err(range_error(NAME, "preset", "0 to 9 (| 0x80000000)", value));
    }
    Ok(v)
}

fn parse_filter(value: &Value) -> Result<FilterSpec, CodecError> {
    let obj = value
        .as_object()
        .ok_or_else(|| cfg_err(format!("a filter must be an object, got {value}")))?;
    let id = obj
        .get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| cfg_err(format!("filter {value} has no integer 'id'")))?;
    let opt_u32 = |key: &str| -> Result<Option<u32>, CodecError> {
        match get_int(obj, key, NAME)? {
            None => Ok(None),
            Some(v) => u32::try_from(v)
                .map(Some)
                .map_err(|_| range_error(NAME, key, "a 32-bit unsigned integer", v)),
        }
    };
    Ok(match id {
        FILTER_LZMA1 | FILTER_LZMA2 => {
            check_keys(
                obj,
                &[
                    "id",
                    "preset",
                    "dict_size",
                    "lc",
                    "lp",
                    "pb",
                    "mode",
                    "nice_len",
                    "mf",
                    "depth",
                ],
                NAME,
            )?;
            let preset = match get_int(obj, "preset", NAME)? {
                None => 6,
                Some(p) => parse_preset(p)?,
            };
            FilterSpec::Lzma {
                lzma2: id == FILTER_LZMA2,
                preset,
                dict_size: opt_u32("dict_size")?,
                lc: opt_u32("lc")?,
                lp: opt_u32("lp")?,
                pb: opt_u32("pb")?,
                mode: opt_u32("mode")?,
                nice_len: opt_u32("nice_len")?,
                mf: opt_u32("mf")?,
                depth: opt_u32("depth")?,
            }
        }
        FILTER_DELTA => {
            check_keys(obj, &["id", "dist"], NAME)?;
            let dist = opt_u32("dist")?.unwrap_or(1);
            if !(1..=256).contains(&dist) {
                return Err(range_error(NAME, "dist", "1 to 256", dist.into()));
            }
            FilterSpec::Delta { dist }
        }
        4..=11 => {
            check_keys(obj, &["id", "start_offset"], NAME)?;
            FilterSpec::Bcj {
                id,
                start_offset: opt_u32("start_offset")?.unwrap_or(0),
            }
        }
        _ => return Err(cfg_err(format!("unsupported lzma filter id {id}"))),
    })
}

/// Build liblzma options for an LZMA1/LZMA2 filter.
fn lzma_options(spec: &FilterSpec) -> Result<LzmaOptions, CodecError> {
    let FilterSpec::Lzma {
        preset,
        dict_size,
        lc,
        lp,
        pb,
        mode,
        nice_len,
        mf,
        depth,
        ..
    } = spec
    else {
        return Err(cfg_err("the last filter must be LZMA1 or LZMA2"));
    };
    let mut o = LzmaOptions::new_preset(*preset)
        .map_err(|e| cfg_err(format!("invalid preset {preset}: {e}")))?;
    if let Some(v) = dict_size {
        if *v < 4096 {
            return Err(range_error(NAME, "dict_size", "at least 4096", (*v).into()));
        }
        o.dict_size(*v);
    }
    if let Some(v) = lc {
        if *v > 4 {
            return Err(range_error(NAME, "lc", "0 to 4", (*v).into()));
        }
        o.literal_context_bits(*v);
    }
    if let Some(v) = lp {
        if *v > 4 {
            return Err(range_error(NAME, "lp", "0 to 4", (*v).into()));
        }
        o.literal_position_bits(*v);
    }
    if let Some(v) = pb {
        if *v > 4 {
            return Err(range_error(NAME, "pb", "0 to 4", (*v).into()));
        }
        o.position_bits(*v);
    }
    if let Some(v) = mode {
        o.mode(match v {
            1 => Mode::Fast,
            2 => Mode::Normal,
            _ => {
                return Err(range_error(
                    NAME,
                    "mode",
                    "1 (fast) or 2 (normal)",
                    (*v).into(),
                ))
            }
        });
    }
    if let Some(v) = nice_len {
        if !(2..=273).contains(v) {
            return Err(range_error(NAME, "nice_len", "2 to 273", (*v).into()));
        }
        o.nice_len(*v);
    }
    if let Some(v) = mf {
        o.match_finder(match v {
            0x03 => MatchFinder::HashChain3,
            0x04 => MatchFinder::HashChain4,
            0x12 => MatchFinder::BinaryTree2,
            0x13 => MatchFinder::BinaryTree3,
            0x14 => MatchFinder::BinaryTree4,
            _ => return Err(range_error(NAME, "mf", "3, 4, 18, 19 or 20", (*v).into())),
        });
    }
    if let Some(v) = depth {
        o.depth(*v);
    }
    Ok(o)
}

/// Build a liblzma filter chain.
fn build_filters(specs: &[FilterSpec]) -> Result<Filters, CodecError> {
    let mut filters = Filters::new();
    let lzma_error = |e: liblzma::stream::Error| cfg_err(format!("invalid filter options: {e}"));
    for spec in specs {
        match spec {
            FilterSpec::Lzma { lzma2, .. } => {
                let o = lzma_options(spec)?;
                if *lzma2 {
                    filters.lzma2(&o);
                } else {
                    filters.lzma1(&o);
                }
            }
            FilterSpec::Delta { dist } => {
                filters
                    .delta_properties(&[(dist - 1) as u8])
                    .map_err(lzma_error)?;
            }
            FilterSpec::Bcj { id, start_offset } => {
                let props = start_offset.to_le_bytes();
                let props: &[u8] = if *start_offset == 0 { &[] } else { &props };
                match id {
                    4 => filters.x86_properties(props),
                    5 => filters.powerpc_properties(props),
                    6 => filters.ia64_properties(props),
                    7 => filters.arm_properties(props),
                    8 => filters.arm_thumb_properties(props),
                    9 => filters.sparc_properties(props),
                    10 => filters.arm64_properties(props),
                    _ => filters.riscv_properties(props),
                }
                .map_err(lzma_error)?;
            }
        }
    }
    Ok(filters)
}

impl LzmaCodec {
    /// Build from a numcodecs configuration (without `id`).
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        check_keys(config, &["format", "check", "preset", "filters"], NAME)?;
        let format = get_int(config, "format", NAME)?.unwrap_or(1);
        if !(0..=3).contains(&format) {
            return Err(range_error(
                NAME,
                "format",
                "0 (auto), 1 (xz), 2 (alone) or 3 (raw)",
                format,
            ));
        }
        let check = get_int(config, "check", NAME)?.unwrap_or(-1);
        if ![-1, 0, 1, 4, 10].contains(&check) {
            return Err(range_error(NAME, "check", "-1, 0, 1, 4 or 10", check));
        }
        if format != 1 && check != -1 && check != 0 {
            return Err(cfg_err(
                "integrity checks are only supported by the xz format (1)",
            ));
        }
        let preset = get_int(config, "preset", NAME)?
            .map(parse_preset)
            .transpose()?;
        let filters_json = config.get("filters").cloned().unwrap_or(Value::Null);
        let filters = match &filters_json {
            Value::Null => None,
            Value::Array(items) => Some(
                items
                    .iter()
                    .map(parse_filter)
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            other => {
                return Err(cfg_err(format!(
                    "'filters' must be a list or null, got {other}"
                )))
            }
        };
        if preset.is_some() && filters.is_some() {
            return Err(cfg_err("cannot specify both 'preset' and 'filters'"));
        }
        if let Some(chain) = &filters {
            match chain.last() {
                Some(FilterSpec::Lzma { .. }) => {}
                _ => return Err(cfg_err("the last filter must be LZMA1 or LZMA2")),
            }
            if chain.len() > 4 {
                return Err(cfg_err("at most 4 filters"));
            }
            if chain[..chain.len() - 1]
                .iter()
                .any(|f| matches!(f, FilterSpec::Lzma { .. }))
            {
                return Err(cfg_err("LZMA1/LZMA2 may only be the last filter"));
            }
            let lzma1 = matches!(chain.last(), Some(FilterSpec::Lzma { lzma2: false, .. }));
            if format == 2 && (chain.len() != 1 || !lzma1) {
                return Err(cfg_err(
                    "the alone format (2) takes exactly one LZMA1 filter",
                ));
            }
            if format == 1 && lzma1 {
                return Err(cfg_err("the xz format (1) does not take LZMA1"));
            }
            build_filters(chain)?;
        } else if format == 3 {
            return Err(cfg_err("the raw format (3) needs 'filters'"));
        }
        Ok(LzmaCodec {
            format,
            check,
            preset,
            filters,
            filters_json,
        })
    }

    fn encoder(&self) -> Result<Stream, CodecError> {
        let failed = |e: liblzma::stream::Error| CodecError::EncodeFailed {
            codec: NAME.to_string(),
            message: e.to_string(),
        };
        let preset = self.preset.unwrap_or(6);
        match self.format {
            1 => {
                let check = match self.check {
                    0 => Check::None,
                    1 => Check::Crc32,
                    10 => Check::Sha256,
                    _ => Check::Crc64,
                };
                match &self.filters {
                    Some(chain) => Stream::new_stream_encoder(&build_filters(chain)?, check),
                    None => Stream::new_easy_encoder(preset, check),
                }
                .map_err(failed)
            }
            2 => {
                let options = match &self.filters {
                    Some(chain) => lzma_options(&chain[0])?,
                    None => LzmaOptions::new_preset(preset).map_err(failed)?,
                };
                Stream::new_lzma_encoder(&options).map_err(failed)
            }
            3 => {
                let chain = self.filters.as_deref().unwrap_or_default();
                Stream::new_raw_encoder(&build_filters(chain)?).map_err(failed)
            }
            _ => Err(CodecError::EncodeFailed {
                codec: NAME.to_string(),
                message: "format 0 (auto) can only decode".into(),
            }),
        }
    }

    fn decoder(&self) -> Result<Stream, CodecError> {
        let failed = |e: liblzma::stream::Error| CodecError::corrupt(NAME, e.to_string());
        match self.format {
            0 => Stream::new_auto_decoder(MEMLIMIT, CONCATENATED),
            1 => Stream::new_stream_decoder(MEMLIMIT, CONCATENATED),
            2 => Stream::new_lzma_decoder(MEMLIMIT),
            _ => {
                let chain = self.filters.as_deref().unwrap_or_default();
                Stream::new_raw_decoder(&build_filters(chain)?)
            }
        }
        .map_err(failed)
    }
}

impl BytesToBytesCodec for LzmaCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("format".into(), Value::from(self.format));
        map.insert("check".into(), Value::from(self.check));
        map.insert(
            "preset".into(),
            self.preset.map_or(Value::Null, Value::from),
        );
        map.insert("filters".into(), self.filters_json.clone());
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut encoder = XzEncoder::new_stream(&input[..], self.encoder()?);
        let mut out = crate::codec::try_vec_with_capacity(input.len() / 2 + 128)?;
        encoder
            .read_to_end(&mut out)
            .map_err(|e| CodecError::EncodeFailed {
                codec: NAME.to_string(),
                message: e.to_string(),
            })?;
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let decoder = XzDecoder::new_stream(&input[..], self.decoder()?);
        decode_stream(&input, size, NAME, "lzma", decoder, XzDecoder::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn sample() -> Vec<u8> {
        let mut d = b"numcodecs ".repeat(5);
        d.extend(0u8..20);
        d
    }

    fn codec(conf: Value) -> LzmaCodec {
        LzmaCodec::from_configuration(&config(conf)).unwrap()
    }

    /// numcodecs 0.16.6 encodings of sample().
    fn vectors() -> Vec<(Value, &'static str)> {
        vec![
            // LZMA()
            (
                json!({}),
                concat!(
                "fd377a585a000004e6d6b4460200210116000000742fe5a3e0004500255d00371d49dda8291f5f3c",
                "3a5b41f5f4e20c290fa3e46cbdd9eeb907ace4d34f04fa4d1cfa288000000000c3d39add701d76c4",
                "00014146ca2f5b561fb6f37d010000000004595a"
            ),
            ),
            // LZMA(format=2)
            (
                json!({"format": 2}),
                concat!(
                "5d00008000ffffffffffffffff00371d49dda8291f5f3c3a5b41f5f4e20c290fa3e46cbdd9eeb907",
                "ace4d34f04fa4d40744053fff30e8000"
            ),
            ),
            // LZMA(check=1, preset=1)
            (
                json!({"check": 1, "preset": 1}),
                concat!(
                "fd377a585a0000016922de360200210110000000a8708e86e0004500255d00371d49dda8291f5f3c",
                "3a5b41f5f4e20c290fa3e46cbdd9eeb907ace4d34f04fa4d1cfa288000000000871387f000013d46",
                "3019d1d59042990d010000000001595a"
            ),
            ),
            // LZMA(format=3, filters=[{"id": 3, "dist": 4}, {"id": 33, "preset": 1}])
            (
                json!({"format": 3, "filters": [{"id": 3, "dist": 4}, {"id": 33, "preset": 1}]}),
                "e00045001c5d00371d49dda383b419066eecec281455cff4b140f8df7fd30b442a980000",
            ),
            // LZMA(format=3, filters=[{"id": lzma.FILTER_LZMA1, "preset": 2}])
            (
                json!({"format": 3, "filters": [{"id": FILTER_LZMA1, "preset": 2}]}),
                concat!(
                "00371d49dda8291f5f3c3a5b41f5f4e20c290fa3e46cbdd9eeb907ace4d34f04fa4d40744053fff3",
                "0e8000"
            ),
            ),
        ]
    }

    #[test]
    fn matches_numcodecs() {
        for (conf, vector) in vectors() {
            let c = codec(conf.clone());
            assert_eq!(c.encode(sample()).unwrap(), hex(vector), "{conf}");
            assert_eq!(
                c.decode(hex(vector), DecodedSize::Exact(70)).unwrap(),
                sample(),
                "{conf}"
            );
            assert_eq!(
                c.decode(hex(vector), DecodedSize::AtMost(usize::MAX))
                    .unwrap(),
                sample(),
                "{conf}"
            );
        }
        // Format 0 (auto) decodes .xz and .lzma.
        let auto = codec(json!({"format": 0}));
        for (_, vector) in vectors().into_iter().take(3) {
            assert_eq!(
                auto.decode(hex(vector), DecodedSize::Exact(70)).unwrap(),
                sample()
            );
        }
        assert!(auto.encode(sample()).is_err());
    }

    #[test]
    fn round_trips_and_bcj() {
        for conf in [
            json!({"check": 0}),
            json!({"check": 10, "preset": 0}),
            json!({"filters": [{"id": 4}, {"id": 33, "dict_size": 65536, "lc": 2, "mode": 1, "mf": 4, "nice_len": 32}]}),
            json!({"format": 3, "filters": [{"id": 7, "start_offset": 16}, {"id": 33}]}),
            json!({"format": 2, "filters": [{"id": FILTER_LZMA1, "lc": 0, "lp": 2, "pb": 2}]}),
        ] {
            let c = codec(conf.clone());
            for len in [0usize, 1, 5000, 200_000] {
                let input = data(len, 9, 30);
                let enc = c.encode(input.clone()).unwrap();
                assert_eq!(
                    c.decode(enc.clone(), DecodedSize::Exact(len)).unwrap(),
                    input,
                    "{conf} {len}"
                );
                assert_eq!(
                    c.decode(enc, DecodedSize::AtMost(usize::MAX)).unwrap(),
                    input,
                    "{conf} {len}"
                );
            }
        }
        // Concatenated .xz streams.
        let c = codec(json!({}));
        let mut two = c.encode(b"ab".to_vec()).unwrap();
        two.extend(c.encode(b"cd".to_vec()).unwrap());
        assert_eq!(c.decode(two, DecodedSize::Exact(4)).unwrap(), b"abcd");
    }

    #[test]
    fn corrupt_truncated_and_trailing() {
        for (conf, vector) in vectors() {
            let c = codec(conf.clone());
            let enc = hex(vector);
            for cut in 0..enc.len() {
                assert!(
                    is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::Exact(70))),
                    "{conf} cut {cut}"
                );
                assert!(
                    is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::AtMost(usize::MAX))),
                    "{conf} cut {cut}"
                );
            }
            let mut tail = enc.clone();
            tail.extend_from_slice(b"garbage");
            assert!(
                is_corrupt(c.decode(tail, DecodedSize::AtMost(usize::MAX))),
                "{conf}"
            );
            assert!(
                is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(69))),
                "{conf}"
            );
            assert!(
                is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(71))),
                "{conf}"
            );
            for i in 0..enc.len() {
                let mut bad = enc.clone();
                bad[i] ^= 1 << (i % 8);
                if let Ok(out) = c.decode(bad, DecodedSize::Exact(70)) {
                    assert_eq!(out.len(), 70);
                }
            }
        }
        // The xz check catches a flipped byte in the payload.
        let c = codec(json!({}));
        let mut bad = hex(vectors()[0].1);
        bad[40] ^= 0x01;
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(70))));
        let bomb = c.encode(vec![0; 1 << 22]).unwrap();
        assert!(is_corrupt(c.decode(bomb, DecodedSize::Exact(64))));
    }

    #[test]
    fn configuration() {
        let c = codec(json!({}));
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"format": 1, "check": -1, "preset": null, "filters": null})
        );
        let conf = json!({"format": 3, "check": -1, "preset": null, "filters": [{"id": 3, "dist": 4}, {"id": 33, "preset": 1}]});
        assert_eq!(
            Value::Object(codec(conf.clone()).configuration().unwrap()),
            conf
        );
        for bad in [
            json!({"format": 4}),
            json!({"format": 3}),
            json!({"format": 2, "check": 1}),
            json!({"check": 2}),
            json!({"preset": 10}),
            json!({"preset": 1, "filters": [{"id": 33}]}),
            json!({"filters": [{"id": 3}]}),
            json!({"filters": [{"id": 33}, {"id": 3}]}),
            json!({"filters": [{"id": 33, "dist": 1}]}),
            json!({"filters": [{"id": 3, "dist": 0}, {"id": 33}]}),
            json!({"filters": [{"id": 99}, {"id": 33}]}),
            json!({"filters": [{"id": 33, "lc": 5}]}),
            json!({"filters": [{"id": 33, "dict_size": 100}]}),
            json!({"filters": [{"id": FILTER_LZMA1}]}),
            json!({"format": 2, "filters": [{"id": 33}]}),
            json!({"filters": "lzma2"}),
            json!({"level": 1}),
        ] {
            assert!(
                matches!(
                    LzmaCodec::from_configuration(&config(bad.clone())),
                    Err(CodecError::InvalidConfiguration { .. })
                ),
                "{bad}"
            );
        }
    }
}
