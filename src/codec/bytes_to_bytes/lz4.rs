//! `numcodecs.lz4`: the decoded size as a 4-byte little-endian integer, then one LZ4 block
//! (not the LZ4 frame format), as numcodecs' `LZ4` codec writes with the reference liblz4.
//!
//! * Configuration: `{"acceleration": int}`, default 1 (values below 1 mean 1, as in liblz4).
//! * Decoding: the size header is checked against the expected size and against LZ4's
//!   largest possible expansion before anything is allocated; the block must decode to
//!   exactly that size and use all of the input.

use super::BytesToBytesCodec;
use crate::codec::configuration::{check_keys, get_int, range_error};
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use ::lz4::block::{self, CompressionMode};
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.lz4";

/// An LZ4 block expands its input by at most this factor (a 1-byte match token codes at most
/// 255 bytes of output per byte of input, plus small constant overheads).
const MAX_RATIO: usize = 255;

/// The `numcodecs.lz4` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lz4Codec {
    acceleration: i32,
}

impl Lz4Codec {
    pub fn new(acceleration: i32) -> Self {
        Lz4Codec { acceleration }
    }

    /// Build from a numcodecs configuration (without `id`).
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        check_keys(config, &["acceleration"], NAME)?;
        let a = get_int(config, "acceleration", NAME)?.unwrap_or(1);
        let a = i32::try_from(a)
            .map_err(|_| range_error(NAME, "acceleration", "a 32-bit integer", a))?;
        Ok(Self::new(a))
    }
}

impl BytesToBytesCodec for Lz4Codec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("acceleration".into(), Value::from(self.acceleration));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let failed = |message: String| CodecError::EncodeFailed {
            codec: NAME.to_string(),
            message,
        };
        let bound = block::compress_bound(input.len()).map_err(|e| failed(e.to_string()))?;
        let mut out = try_vec_with_capacity(bound.saturating_add(4))?;
        out.resize(bound.saturating_add(4), 0);
        let mode = CompressionMode::FAST(self.acceleration.max(1));
        let n = block::compress_to_buffer(&input, Some(mode), true, &mut out)
            .map_err(|e| failed(e.to_string()))?;
        out.truncate(n);
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, expected: DecodedSize) -> Result<Vec<u8>, CodecError> {
        if input.len() < 4 {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "truncated: {} bytes is shorter than the 4-byte size header",
                    input.len()
                ),
            ));
        }
        let size = u32::from_le_bytes([input[0], input[1], input[2], input[3]]);
        let body = &input[4..];
        if size > i32::MAX as u32 {
            return Err(CodecError::corrupt(
                NAME,
                format!("invalid decoded size {size}"),
            ));
        }
        let size = size as usize;
        if !expected.accepts(size) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "header says {size} decoded bytes, expected {}{}",
                    if expected.exact().is_some() {
                        ""
                    } else {
                        "at most "
                    },
                    expected.max()
                ),
            ));
        }
        if size > body.len().saturating_mul(MAX_RATIO).saturating_add(16) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "header says {size} decoded bytes, more than {} compressed bytes can hold",
                    body.len()
                ),
            ));
        }
        if size == 0 {
            // liblz4 encodes nothing as the single token 0x00.
            return if body == [0] {
                Ok(Vec::new())
            } else {
                Err(CodecError::corrupt(NAME, "invalid empty block"))
            };
        }
        let mut out = try_vec_with_capacity(size)?;
        out.resize(size, 0);
        match block::decompress_to_buffer(body, Some(size as i32), &mut out) {
            Ok(n) if n == size => Ok(out),
            Ok(n) => Err(CodecError::corrupt(
                NAME,
                format!("decoded {n} bytes, header says {size}"),
            )),
            Err(e) => Err(CodecError::corrupt(NAME, format!("invalid LZ4 block: {e}"))),
        }
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

    // numcodecs 0.16.6: LZ4().encode(sample()) (the same with acceleration=10)
    const VECTOR: &str =
        "46000000af6e756d636f64656373200a0015f005000102030405060708090a0b0c0d0e0f10111213";

    #[test]
    fn matches_numcodecs() {
        for a in [1, 10] {
            let c = Lz4Codec::new(a);
            assert_eq!(c.encode(sample()).unwrap(), hex(VECTOR));
            assert_eq!(
                c.decode(hex(VECTOR), DecodedSize::Exact(70)).unwrap(),
                sample()
            );
            assert_eq!(
                c.decode(hex(VECTOR), DecodedSize::AtMost(usize::MAX))
                    .unwrap(),
                sample()
            );
        }
        // LZ4().encode(b"")
        assert_eq!(
            Lz4Codec::new(1).encode(Vec::new()).unwrap(),
            hex("0000000000")
        );
        assert_eq!(
            Lz4Codec::new(1)
                .decode(hex("0000000000"), DecodedSize::Exact(0))
                .unwrap(),
            b""
        );
    }

    #[test]
    fn round_trips() {
        for a in [0, 1, 5, 100] {
            let c = Lz4Codec::new(a);
            for len in [1usize, 100, 70_000, 1 << 20] {
                let input = data(len, 11, 12);
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
    fn corrupt_and_truncated() {
        let c = Lz4Codec::new(1);
        let enc = hex(VECTOR);
        for cut in 0..enc.len() {
            assert!(
                is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::AtMost(usize::MAX))),
                "{cut}"
            );
        }
        let mut tail = enc.clone();
        tail.push(0);
        assert!(is_corrupt(c.decode(tail, DecodedSize::AtMost(usize::MAX))));
        assert!(is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(71))));
        // A header claiming 2 GiB is refused before allocating.
        let mut bomb = enc.clone();
        bomb[..4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
        assert!(is_corrupt(
            c.decode(bomb.clone(), DecodedSize::AtMost(usize::MAX))
        ));
        bomb[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(is_corrupt(c.decode(bomb, DecodedSize::AtMost(usize::MAX))));
        let mut big = enc.clone();
        big[..4].copy_from_slice(&100u32.to_le_bytes());
        assert!(is_corrupt(c.decode(big, DecodedSize::AtMost(usize::MAX))));
        for seed in 1..300u64 {
            let mut junk = data((seed % 90) as usize + 4, seed, 255);
            junk[..4].copy_from_slice(&((seed * 13) as u32 % 2000).to_le_bytes());
            let _ = c.decode(junk, DecodedSize::AtMost(usize::MAX));
        }
    }

    #[test]
    fn configuration() {
        let c = Lz4Codec::from_configuration(&Map::new()).unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"acceleration": 1})
        );
        for bad in [
            json!({"acceleration": 1.5}),
            json!({"acceleration": 1u64 << 40}),
            json!({"level": 1}),
        ] {
            assert!(matches!(
                Lz4Codec::from_configuration(&config(bad)),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
    }
}
