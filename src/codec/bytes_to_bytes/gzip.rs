//! The `gzip` bytes -> bytes codec.
//!
//! Specification: <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/gzip/index.html>.
//!
//! * Configuration: `{"level": 0..=9}` (required).
//! * Encoding: one RFC 1952 gzip member (header with mtime 0 and OS "unknown", deflate body,
//!   CRC-32 and size trailer).
//! * Decoding: one or more concatenated gzip members (as `gzip`/`cat` produce). The whole input
//!   must be consumed: trailing bytes that are not a gzip member, a truncated member or a bad
//!   trailer are [`CodecError::Corrupt`].

use super::{deflate_bound, encode_stream, read_decoded, BytesToBytesCodec};
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use flate2::bufread::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::{Map, Value};

const NAME: &str = "gzip";

/// The largest gzip level.
pub const MAX_LEVEL: u32 = 9;

/// The `gzip` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GzipCodec {
    level: u32,
}

impl GzipCodec {
    /// A gzip codec with compression `level` (0 = stored, 9 = smallest).
    pub fn new(level: u32) -> Result<Self, CodecError> {
        if level > MAX_LEVEL {
            return Err(CodecError::config(
                NAME,
                format!("'level' must be an integer from 0 to {MAX_LEVEL}, got {level}"),
            ));
        }
        Ok(GzipCodec { level })
    }

    /// Build from the `configuration` object of the codec's metadata.
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        if let Some(key) = config.keys().find(|k| k.as_str() != "level") {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key '{key}'"),
            ));
        }
        let value = config
            .get("level")
            .ok_or_else(|| CodecError::config(NAME, "missing required key 'level'"))?;
        let level = value
            .as_u64()
            .and_then(|l| u32::try_from(l).ok())
            .filter(|&l| l <= MAX_LEVEL)
            .ok_or_else(|| {
                CodecError::config(
                    NAME,
                    format!("'level' must be an integer from 0 to {MAX_LEVEL}, got {value}"),
                )
            })?;
        Self::new(level)
    }

    #[cfg(test)]
    /// The compression level.
    pub fn level(&self) -> u32 {
        self.level
    }
}

impl BytesToBytesCodec for GzipCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("level".to_string(), Value::from(self.level));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let encoder = GzEncoder::new(
            try_vec_with_capacity(deflate_bound(input.len()))?,
            Compression::new(self.level),
        );
        encode_stream(encoder, &input, NAME, GzEncoder::finish)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        if input.is_empty() {
            return Err(CodecError::corrupt(
                NAME,
                "empty input is not a gzip stream",
            ));
        }
        let mut decoder = MultiGzDecoder::new(&input[..]);
        // Reading to the exact size also checks the last member's trailer and rejects
        // trailing bytes (see `read_decoded`).
        read_decoded(&mut decoder, size, input.len().saturating_mul(4), NAME)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn codec(level: u32) -> GzipCodec {
        GzipCodec::from_configuration(&config(json!({ "level": level }))).unwrap()
    }

    #[test]
    fn round_trip_sizes_and_levels() {
        for level in [0, 1, 5, 9] {
            let c = codec(level);
            for len in [0usize, 1, 2, 17, 1000, 65_535, 65_536, 200_001] {
                let input = data(len, len as u64 + 7, 16);
                let enc = c.encode(input.clone()).unwrap();
                assert_eq!(&enc[..3], &[0x1f, 0x8b, 0x08], "gzip magic + deflate");
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
    fn round_trip_incompressible_level_0() {
        let c = codec(0);
        let input = data(300_000, 99, 255);
        let enc = c.encode(input.clone()).unwrap();
        assert!(enc.len() > input.len());
        assert_eq!(
            c.decode(enc, DecodedSize::Exact(input.len())).unwrap(),
            input
        );
    }

    #[test]
    fn configuration_round_trip() {
        let c = codec(6);
        assert_eq!(c.name(), "gzip");
        assert_eq!(c.level(), 6);
        let conf = c.configuration().unwrap();
        assert_eq!(Value::Object(conf.clone()), json!({"level": 6}));
        assert_eq!(GzipCodec::from_configuration(&conf).unwrap(), c);
        assert_eq!(c.encoded_len(10), None);
    }

    #[test]
    fn rejects_bad_configurations() {
        for bad in [
            json!({}),
            json!({"level": 10}),
            json!({"level": -1}),
            json!({"level": 1.5}),
            json!({"level": 5.0}),
            json!({"level": "5"}),
            json!({"level": null}),
            json!({"level": true}),
            json!({"level": 5, "extra": 1}),
            json!({"levle": 5}),
        ] {
            let r = GzipCodec::from_configuration(&config(bad.clone()));
            assert!(
                matches!(r, Err(CodecError::InvalidConfiguration { .. })),
                "{bad} gave {r:?}"
            );
        }
        assert!(GzipCodec::new(10).is_err());
        assert!(GzipCodec::new(9).is_ok());
    }

    #[test]
    fn decodes_python_gzip() {
        // python3 -c "import gzip; print(gzip.compress(b'hello zarr '*8, compresslevel=9, mtime=0).hex())"
        let enc = hex("1f8b0800000000000203cb48cdc9c957a84a2c2a52c8a026130036f3587858000000");
        let want = b"hello zarr ".repeat(8);
        assert_eq!(
            codec(5)
                .decode(enc.clone(), DecodedSize::Exact(want.len()))
                .unwrap(),
            want
        );
        assert_eq!(
            codec(5)
                .decode(enc, DecodedSize::AtMost(usize::MAX))
                .unwrap(),
            want
        );
    }

    #[test]
    fn decodes_gzip_with_header_fields() {
        // A member with FNAME "a.txt" and mtime set, as the gzip command line writes:
        // python3 -c "import gzip,io; b=io.BytesIO(); f=gzip.GzipFile('a.txt','wb',9,b,mtime=1700000000); f.write(b'abcabcabc'); f.close(); print(b.getvalue().hex())"
        let enc = hex("1f8b080800f1536502ff612e747874004b4c4a4e04230018482d4609000000");
        assert_eq!(
            codec(1).decode(enc, DecodedSize::Exact(9)).unwrap(),
            b"abcabcabc"
        );
    }

    #[test]
    fn decodes_numcodecs_gzip() {
        // numcodecs.GZip(level=5).encode(b'numcodecs gzip' * 3) (numcodecs 0.16.6)
        let enc = hex("1f8b0800e1cf026b00ffcb2bcd4dce4f494d2e5648afca2cc8c3c303002204b4e42a000000");
        let want = b"numcodecs gzip".repeat(3);
        assert_eq!(
            codec(5)
                .decode(enc, DecodedSize::Exact(want.len()))
                .unwrap(),
            want
        );
    }

    #[test]
    fn decodes_multi_member() {
        let c = codec(3);
        let mut enc = c.encode(b"first member, ".to_vec()).unwrap();
        enc.extend(c.encode(Vec::new()).unwrap());
        enc.extend(c.encode(b"second member".to_vec()).unwrap());
        let want = b"first member, second member".to_vec();
        assert_eq!(
            c.decode(enc.clone(), DecodedSize::Exact(want.len()))
                .unwrap(),
            want
        );
        assert_eq!(
            c.decode(enc, DecodedSize::AtMost(usize::MAX)).unwrap(),
            want
        );
    }

    #[test]
    fn rejects_trailing_garbage() {
        let c = codec(3);
        let good = c.encode(b"payload".to_vec()).unwrap();
        for tail in [
            &b"x"[..],
            &b"\0"[..],
            &b"\0\0\0\0\0\0\0\0\0\0"[..],
            &b"\x1f\x8b"[..],
        ] {
            let mut enc = good.clone();
            enc.extend_from_slice(tail);
            assert!(
                is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(7))),
                "tail {tail:?}"
            );
            assert!(
                is_corrupt(c.decode(enc, DecodedSize::AtMost(usize::MAX))),
                "tail {tail:?}"
            );
        }
    }

    #[test]
    fn rejects_truncated_streams() {
        let c = codec(6);
        let input = data(5000, 3, 50);
        let enc = c.encode(input.clone()).unwrap();
        // Every cut in the header and trailer, and a sample of cuts in the body.
        let cuts = (0..40)
            .chain((40..enc.len() - 20).step_by(37))
            .chain(enc.len() - 20..enc.len());
        for cut in cuts {
            let t = enc[..cut].to_vec();
            assert!(
                is_corrupt(c.decode(t.clone(), DecodedSize::Exact(input.len()))),
                "cut {cut}"
            );
            assert!(
                is_corrupt(c.decode(t, DecodedSize::AtMost(usize::MAX))),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn rejects_bad_trailer() {
        let c = codec(6);
        let enc = c.encode(b"some data to checksum".to_vec()).unwrap();
        let n = enc.len();
        // Corrupt the CRC-32, then the ISIZE field.
        for pos in [n - 8, n - 1] {
            let mut bad = enc.clone();
            bad[pos] ^= 0x01;
            assert!(
                is_corrupt(c.decode(bad.clone(), DecodedSize::Exact(21))),
                "pos {pos}"
            );
            assert!(
                is_corrupt(c.decode(bad, DecodedSize::AtMost(usize::MAX))),
                "pos {pos}"
            );
        }
    }

    #[test]
    fn rejects_decoded_len_mismatch() {
        let c = codec(6);
        let enc = c.encode(vec![7u8; 1000]).unwrap();
        assert!(is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(999))));
        assert!(is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(1001))));
        assert!(is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(0))));
        assert_eq!(
            c.decode(enc, DecodedSize::Exact(1000)).unwrap(),
            vec![7u8; 1000]
        );
    }

    #[test]
    fn decompression_bomb_is_bounded_by_decoded_len() {
        // 4 MiB of zeros compresses to a few KiB; asking for 10 bytes must fail fast
        // without decoding (or allocating) the rest.
        let c = codec(1);
        let enc = c.encode(vec![0u8; 4 << 20]).unwrap();
        assert!(enc.len() < 100_000);
        assert!(is_corrupt(c.decode(enc, DecodedSize::Exact(10))));
    }

    #[test]
    fn rejects_empty_and_garbage_without_panicking() {
        let c = codec(1);
        assert!(is_corrupt(
            c.decode(Vec::new(), DecodedSize::AtMost(usize::MAX))
        ));
        assert!(is_corrupt(c.decode(Vec::new(), DecodedSize::Exact(0))));
        for seed in 1..300u64 {
            let len = (seed as usize * 7) % 200;
            let mut junk = data(len, seed, 255);
            if seed % 3 == 0 && len >= 3 {
                // Start with a valid magic so that the header parser goes further.
                junk[..3].copy_from_slice(&[0x1f, 0x8b, 0x08]);
            }
            let _ = c.decode(junk.clone(), DecodedSize::AtMost(usize::MAX));
            let _ = c.decode(junk, DecodedSize::Exact(len));
        }
        // Bit flips in a valid stream: any outcome but a panic, and a successful decode
        // must have the requested length.
        let input = data(3000, 11, 20);
        let enc = c.encode(input.clone()).unwrap();
        for i in (0..enc.len()).step_by(3) {
            let mut bad = enc.clone();
            bad[i] ^= 1 << (i % 8);
            if let Ok(out) = c.decode(bad.clone(), DecodedSize::Exact(input.len())) {
                assert_eq!(out.len(), input.len());
            }
            let _ = c.decode(bad, DecodedSize::AtMost(usize::MAX));
        }
    }
}
