//! `numcodecs.zlib`: one zlib stream (RFC 1950: 2-byte header, deflate body, Adler-32
//! trailer), as Python's `zlib.compress(data, level)` writes.
//!
//! * Configuration: `{"level": -1..=9}`, default 1 (-1 is zlib's default, level 6).
//! * Encoding uses zlib-rs: a valid stream that any zlib reads, though not always the same
//!   bytes as C zlib at the same level.
//! * Decoding: exactly one stream; trailing bytes, a truncated stream or a bad Adler-32
//!   trailer are [`CodecError::Corrupt`].

use super::{decode_stream, deflate_bound, encode_stream, BytesToBytesCodec};
use crate::codec::configuration::{check_keys, get_int, range_error};
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use flate2::bufread::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.zlib";

/// The `numcodecs.zlib` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZlibCodec {
    level: i32,
}

impl ZlibCodec {
    /// A zlib codec with `level` -1 (zlib's default, 6) or 0..=9.
    pub fn new(level: i32) -> Result<Self, CodecError> {
        if !(-1..=9).contains(&level) {
            return Err(range_error(
                NAME,
                "level",
                "an integer from -1 to 9",
                level.into(),
            ));
        }
        Ok(ZlibCodec { level })
    }

    /// Build from a numcodecs configuration (without `id`).
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        check_keys(config, &["level"], NAME)?;
        let level = get_int(config, "level", NAME)?.unwrap_or(1);
        let level = i32::try_from(level)
            .map_err(|_| range_error(NAME, "level", "an integer from -1 to 9", level))?;
        Self::new(level)
    }
}

impl BytesToBytesCodec for ZlibCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("level".into(), Value::from(self.level));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let level = if self.level < 0 { 6 } else { self.level as u32 };
        let encoder = ZlibEncoder::new(
            try_vec_with_capacity(deflate_bound(input.len()))?,
            Compression::new(level),
        );
        encode_stream(encoder, &input, NAME, ZlibEncoder::finish)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let decoder = ZlibDecoder::new(&input[..]);
        decode_stream(&input, size, NAME, "zlib", decoder, ZlibDecoder::into_inner)
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

    // numcodecs 0.16.6: Zlib(1).encode(sample()) and Zlib(9).encode(sample())
    const LEVEL1: &str =
        "7801cb2bcd4dce4f494d2e56c82392c5c0c8c4ccc2cac6cec1c9c5cdc3cbc72f2028240c007fa01424";
    const LEVEL9: &str =
        "78dacb2bcd4dce4f494d2e56c82392c5c0c8c4ccc2cac6cec1c9c5cdc3cbc72f2028240c007fa01424";

    #[test]
    fn matches_numcodecs() {
        for (level, vector) in [(1, LEVEL1), (9, LEVEL9)] {
            let c = ZlibCodec::new(level).unwrap();
            // zlib-rs picks other (equally valid) matches than zlib, so the deflate body may
            // differ; the zlib header (level flags) matches and the stream decodes.
            let ours = c.encode(sample()).unwrap();
            assert_eq!(ours[..2], hex(vector)[..2], "level {level}");
            assert_eq!(c.decode(ours, DecodedSize::Exact(70)).unwrap(), sample());
            assert_eq!(
                c.decode(hex(vector), DecodedSize::Exact(70)).unwrap(),
                sample()
            );
            assert_eq!(
                c.decode(hex(vector), DecodedSize::AtMost(usize::MAX))
                    .unwrap(),
                sample()
            );
        }
    }

    #[test]
    fn round_trips() {
        for level in [-1, 0, 1, 6, 9] {
            let c = ZlibCodec::new(level).unwrap();
            for len in [0usize, 1, 1000, 100_000] {
                let input = data(len, 5, 9);
                let enc = c.encode(input.clone()).unwrap();
                assert_eq!(
                    c.decode(enc.clone(), DecodedSize::Exact(len)).unwrap(),
                    input
                );
                assert_eq!(
                    c.decode(enc, DecodedSize::AtMost(usize::MAX)).unwrap(),
                    input
                );
            }
        }
    }

    #[test]
    fn corrupt_truncated_and_trailing() {
        let c = ZlibCodec::new(1).unwrap();
        let enc = hex(LEVEL1);
        for cut in 0..enc.len() {
            assert!(
                is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::Exact(70))),
                "{cut}"
            );
            assert!(
                is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::AtMost(usize::MAX))),
                "{cut}"
            );
        }
        let mut bad = enc.clone();
        bad.push(0);
        assert!(is_corrupt(c.decode(bad, DecodedSize::AtMost(usize::MAX))));
        let mut bad = enc.clone();
        *bad.last_mut().unwrap() ^= 1; // Adler-32 trailer
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(70))));
        assert!(is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(69))));
        assert!(is_corrupt(c.decode(enc, DecodedSize::Exact(71))));
        // A bomb is cut off at the expected size.
        let bomb = c.encode(vec![0; 1 << 22]).unwrap();
        assert!(is_corrupt(c.decode(bomb, DecodedSize::Exact(100))));
        for seed in 1..100 {
            let _ = c.decode(
                data(seed as usize, seed, 255),
                DecodedSize::AtMost(usize::MAX),
            );
        }
    }

    #[test]
    fn configuration() {
        let c = ZlibCodec::from_configuration(&Map::new()).unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"level": 1})
        );
        for bad in [
            json!({"level": 10}),
            json!({"level": -2}),
            json!({"level": "1"}),
            json!({"lvl": 1}),
        ] {
            assert!(matches!(
                ZlibCodec::from_configuration(&config(bad)),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
    }
}
