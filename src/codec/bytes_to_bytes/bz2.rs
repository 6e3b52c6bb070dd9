//! `numcodecs.bz2`: a bzip2 stream, as Python's `bz2.compress(data, level)` writes.
//!
//! * Configuration: `{"level": 1..=9}`, default 1 (the block size in units of 100 kB).
//! * Decoding: one or more concatenated streams; trailing bytes, truncation and bad CRCs
//!   are [`CodecError::Corrupt`].

use super::{decode_stream, encode_stream, BytesToBytesCodec};
use crate::codec::configuration::{check_keys, get_int, range_error};
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use bzip2::bufread::MultiBzDecoder;
use bzip2::write::BzEncoder;
use bzip2::Compression;
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.bz2";

/// The `numcodecs.bz2` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bz2Codec {
    level: u32,
}

impl Bz2Codec {
    /// A bzip2 codec with block size `level` (1..=9).
    pub fn new(level: u32) -> Result<Self, CodecError> {
        if !(1..=9).contains(&level) {
            return Err(range_error(
                NAME,
                "level",
                "an integer from 1 to 9",
                level.into(),
            ));
        }
        Ok(Bz2Codec { level })
    }

    /// Build from a numcodecs configuration (without `id`).
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        check_keys(config, &["level"], NAME)?;
        let level = get_int(config, "level", NAME)?.unwrap_or(1);
        let level = u32::try_from(level)
            .map_err(|_| range_error(NAME, "level", "an integer from 1 to 9", level))?;
        Self::new(level)
    }
}

impl BytesToBytesCodec for Bz2Codec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("level".into(), Value::from(self.level));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let bound = input
            .len()
            .saturating_add(input.len() / 100)
            .saturating_add(600);
        let encoder = BzEncoder::new(try_vec_with_capacity(bound)?, Compression::new(self.level));
        encode_stream(encoder, &input, NAME, BzEncoder::finish)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let decoder = MultiBzDecoder::new(&input[..]);
        decode_stream(
            &input,
            size,
            NAME,
            "bzip2",
            decoder,
            MultiBzDecoder::into_inner,
        )
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

    // numcodecs 0.16.6: BZ2(1).encode(sample())
    const LEVEL1: &str = concat!(
        "425a68313141592653599c5820f500001b71807ffff80040000e038a00200021254340d1a001e9a4",
        "28001a0000eaaaec85b75f8631cb3969aedbf1cba190c8744d144304dc4511f8bb9229c28484e2c1",
        "07a8"
    );

    #[test]
    fn matches_numcodecs() {
        let c = Bz2Codec::new(1).unwrap();
        assert_eq!(c.encode(sample()).unwrap(), hex(LEVEL1));
        assert_eq!(
            c.decode(hex(LEVEL1), DecodedSize::Exact(70)).unwrap(),
            sample()
        );
        assert_eq!(
            c.decode(hex(LEVEL1), DecodedSize::AtMost(usize::MAX))
                .unwrap(),
            sample()
        );
        // Level 9 differs only in the block-size digit of the header.
        let mut nine = hex(LEVEL1);
        nine[3] = b'9';
        assert_eq!(Bz2Codec::new(9).unwrap().encode(sample()).unwrap(), nine);
    }

    #[test]
    fn round_trips_and_multistream() {
        let c = Bz2Codec::new(3).unwrap();
        for len in [0usize, 1, 5000, 400_000] {
            let input = data(len, 7, 20);
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
        let mut two = c.encode(b"ab".to_vec()).unwrap();
        two.extend(c.encode(b"cd".to_vec()).unwrap());
        assert_eq!(c.decode(two, DecodedSize::Exact(4)).unwrap(), b"abcd");
    }

    #[test]
    fn corrupt_truncated_and_trailing() {
        let c = Bz2Codec::new(1).unwrap();
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
        bad.extend_from_slice(b"xyz");
        assert!(is_corrupt(c.decode(bad, DecodedSize::AtMost(usize::MAX))));
        // Bytes 10..14 are the block CRC.
        let mut bad = enc.clone();
        bad[11] ^= 0x10;
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(70))));
        for i in 0..enc.len() {
            let mut bad = enc.clone();
            bad[i] ^= 1 << (i % 8);
            if let Ok(out) = c.decode(bad, DecodedSize::Exact(70)) {
                assert_eq!(out.len(), 70);
            }
        }
        assert!(is_corrupt(c.decode(enc, DecodedSize::Exact(69))));
        let bomb = c.encode(vec![0; 1 << 20]).unwrap();
        assert!(is_corrupt(c.decode(bomb, DecodedSize::Exact(10))));
        for seed in 1..100 {
            let _ = c.decode(
                data(seed as usize, seed, 255),
                DecodedSize::AtMost(usize::MAX),
            );
        }
    }

    #[test]
    fn configuration() {
        let c = Bz2Codec::from_configuration(&Map::new()).unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"level": 1})
        );
        for bad in [
            json!({"level": 0}),
            json!({"level": 10}),
            json!({"level": 1.5}),
            json!({"x": 1}),
        ] {
            assert!(matches!(
                Bz2Codec::from_configuration(&config(bad)),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
    }
}
