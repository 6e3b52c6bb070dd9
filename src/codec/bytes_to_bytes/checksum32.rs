//! numcodecs' 32-bit checksum codecs: `numcodecs.adler32`, `numcodecs.crc32`,
//! `numcodecs.crc32c` and `numcodecs.fletcher32`.
//!
//! The checksum of the data is stored as 4 little-endian bytes:
//!
//! * `adler32` (zlib's Adler-32) and `crc32` (zlib's CRC-32): before the data by default;
//!   `{"location": "end"}` puts it after.
//! * `crc32c` (CRC-32C, Castagnoli): after the data by default; `{"location": "start"}`
//!   puts it before.
//! * `fletcher32` (HDF5's Fletcher-32 on big-endian 16-bit words, as netCDF and HDF5
//!   write it): always after the data; no configuration.
//!
//! numcodecs writes `location` only when it was given; so does `configuration()`, which
//! writes it only when it differs from the codec's default (older numcodecs versions take no
//! `location`).

use super::BytesToBytesCodec;
use crate::codec::configuration::check_keys;
use crate::codec::{CodecError, DecodedSize};
use serde_json::{Map, Value};

const SIZE: usize = 4;

/// Which checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checksum {
    Adler32,
    Crc32,
    Crc32c,
    Fletcher32,
}

impl Checksum {
    fn name(self) -> &'static str {
        match self {
            Checksum::Adler32 => "numcodecs.adler32",
            Checksum::Crc32 => "numcodecs.crc32",
            Checksum::Crc32c => "numcodecs.crc32c",
            Checksum::Fletcher32 => "numcodecs.fletcher32",
        }
    }

    fn default_at_start(self) -> bool {
        matches!(self, Checksum::Adler32 | Checksum::Crc32)
    }

    fn compute(self, data: &[u8]) -> u32 {
        match self {
            Checksum::Adler32 => zlib_rs::adler32::adler32(1, data),
            Checksum::Crc32 => zlib_rs::crc32::crc32(0, data),
            Checksum::Crc32c => crc32c::crc32c(data),
            Checksum::Fletcher32 => fletcher32(data),
        }
    }
}

/// HDF5's `H5_checksum_fletcher32`: sums of big-endian 16-bit words (an odd last byte is the
/// high byte of a final word), reduced mod 65535 with end-around carry.
pub fn fletcher32(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let even = data.len() & !1;
    let odd = data.get(even).copied();
    // 360 words keep both sums below 2^32 between reductions.
    for block in data[..even].chunks(720) {
        for w in block.chunks_exact(2) {
            sum1 += u32::from(u16::from_be_bytes([w[0], w[1]]));
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if let Some(b) = odd {
        sum1 += u32::from(b) << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

/// A numcodecs checksum codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksum32Codec {
    checksum: Checksum,
    at_start: bool,
}

impl Checksum32Codec {
    /// The codec with the checksum at its default location.
    pub fn new(checksum: Checksum) -> Self {
        Checksum32Codec {
            checksum,
            at_start: checksum.default_at_start(),
        }
    }

    /// Build from numcodecs id `id` (`adler32`, `crc32`, `crc32c` or `fletcher32`) and its
    /// configuration.
    pub fn from_configuration(id: &str, config: &Map<String, Value>) -> Result<Self, CodecError> {
        let checksum = match id {
            "adler32" => Checksum::Adler32,
            "crc32" => Checksum::Crc32,
            "crc32c" => Checksum::Crc32c,
            "fletcher32" => Checksum::Fletcher32,
            _ => return Err(CodecError::Unsupported(format!("numcodecs.{id}"))),
        };
        let name = checksum.name();
        let mut codec = Self::new(checksum);
        if checksum == Checksum::Fletcher32 {
            check_keys(config, &[], name)?;
            return Ok(codec);
        }
        check_keys(config, &["location"], name)?;
        match config.get("location") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s == "start" => codec.at_start = true,
            Some(Value::String(s)) if s == "end" => codec.at_start = false,
            Some(other) => {
                return Err(CodecError::config(
                    name,
                    format!("'location' must be \"start\" or \"end\", got {other}"),
                ))
            }
        }
        Ok(codec)
    }
}

impl BytesToBytesCodec for Checksum32Codec {
    fn name(&self) -> &'static str {
        self.checksum.name()
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        if self.at_start != self.checksum.default_at_start() {
            let at = if self.at_start { "start" } else { "end" };
            map.insert("location".into(), Value::from(at));
        }
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let len = input.len().saturating_add(SIZE);
        let mut out = crate::codec::try_vec_with_capacity(len)?;
        let sum = self.checksum.compute(&input).to_le_bytes();
        if self.at_start {
            out.extend_from_slice(&sum);
            out.extend_from_slice(&input);
        } else {
            out.extend_from_slice(&input);
            out.extend_from_slice(&sum);
        }
        Ok(out)
    }

    fn decode(&self, mut input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let name = self.checksum.name();
        let Some(payload_len) = input.len().checked_sub(SIZE) else {
            return Err(CodecError::corrupt(
                name,
                format!(
                    "truncated: {} bytes is shorter than the 4-byte checksum",
                    input.len()
                ),
            ));
        };
        if !size.accepts(payload_len) {
            return Err(size.mismatch(name, payload_len));
        }
        let (stored, payload) = if self.at_start {
            (&input[..SIZE], &input[SIZE..])
        } else {
            (&input[payload_len..], &input[..payload_len])
        };
        let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let computed = self.checksum.compute(payload);
        if stored != computed {
            return Err(CodecError::corrupt(
                name,
                format!("checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"),
            ));
        }
        if self.at_start {
            input.drain(..SIZE);
        } else {
            input.truncate(payload_len);
        }
        Ok(input)
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(SIZE)
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

    fn codec(id: &str, conf: Value) -> Checksum32Codec {
        Checksum32Codec::from_configuration(id, &config(conf)).unwrap()
    }

    #[test]
    fn matches_numcodecs() {
        // numcodecs 0.16.6 encodings of sample(): (id, configuration, checksum, at start).
        for (id, conf, sum, start) in [
            ("adler32", json!({}), "2414a07f", true),
            ("adler32", json!({"location": "end"}), "2414a07f", false),
            ("crc32", json!({}), "871387f0", true),
            ("fletcher32", json!({}), "2a0d9754", false),
        ] {
            let c = codec(id, conf);
            let mut want = sample();
            if start {
                want.splice(0..0, hex(sum));
            } else {
                want.extend(hex(sum));
            }
            assert_eq!(c.encode(sample()).unwrap(), want, "{id}");
            assert_eq!(
                c.decode(want, DecodedSize::Exact(70)).unwrap(),
                sample(),
                "{id}"
            );
        }
        // Fletcher32().encode(b"abcde"): an odd length.
        assert_eq!(
            codec("fletcher32", json!({}))
                .encode(b"abcde".to_vec())
                .unwrap(),
            hex("6162636465c729f04f")
        );
        // CRC32().encode(b"") and Adler32().encode(b"").
        assert_eq!(
            codec("crc32", json!({})).encode(Vec::new()).unwrap(),
            hex("00000000")
        );
        assert_eq!(
            codec("adler32", json!({})).encode(Vec::new()).unwrap(),
            hex("01000000")
        );
        // CRC-32C at the end: the RFC 3720 check value of "123456789".
        let enc = codec("crc32c", json!({}))
            .encode(b"123456789".to_vec())
            .unwrap();
        assert_eq!(&enc[9..], &[0x83, 0x92, 0x06, 0xe3]);
        let enc = codec("crc32c", json!({"location": "start"}))
            .encode(b"123456789".to_vec())
            .unwrap();
        assert_eq!(&enc[..4], &[0x83, 0x92, 0x06, 0xe3]);
    }

    #[test]
    fn long_fletcher_matches_reference_reduction() {
        // Past 360 words the sums are reduced in blocks; compare with a plain mod-65535 sum,
        // which agrees except that the reference keeps 0xffff where mod gives 0.
        let input = data(100_001, 3, 255);
        let (mut a, mut b) = (0u64, 0u64);
        let mut words: Vec<u64> = input
            .chunks_exact(2)
            .map(|w| u64::from(u16::from_be_bytes([w[0], w[1]])))
            .collect();
        words.push(u64::from(input[100_000]) << 8);
        for w in words {
            a = (a + w) % 65535;
            b = (b + a) % 65535;
        }
        let got = fletcher32(&input);
        assert_eq!(u64::from(got & 0xffff) % 65535, a);
        assert_eq!(u64::from(got >> 16) % 65535, b);
    }

    #[test]
    fn corrupt_truncated_and_sizes() {
        for id in ["adler32", "crc32", "crc32c", "fletcher32"] {
            let c = codec(id, json!({}));
            let enc = c.encode(sample()).unwrap();
            assert_eq!(c.encoded_len(70), Some(74));
            for bit in 0..enc.len() * 8 {
                let mut bad = enc.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                match c.decode(bad, DecodedSize::AtMost(usize::MAX)) {
                    Err(CodecError::Corrupt { codec, .. }) => assert_eq!(codec, c.name()),
                    other => panic!("{id} bit {bit}: {other:?}"),
                }
            }
            for len in 0..4 {
                assert!(is_corrupt(
                    c.decode(vec![0; len], DecodedSize::AtMost(usize::MAX))
                ));
            }
            assert!(is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(69))));
            assert_eq!(
                c.decode(enc, DecodedSize::AtMost(usize::MAX)).unwrap(),
                sample()
            );
        }
    }

    #[test]
    fn configuration() {
        assert_eq!(codec("crc32", json!({})).configuration(), Some(Map::new()));
        assert_eq!(
            Value::Object(
                codec("crc32", json!({"location": "end"}))
                    .configuration()
                    .unwrap()
            ),
            json!({"location": "end"})
        );
        assert_eq!(
            Value::Object(
                codec("crc32c", json!({"location": "start"}))
                    .configuration()
                    .unwrap()
            ),
            json!({"location": "start"})
        );
        for (id, bad) in [
            ("crc32", json!({"location": "middle"})),
            ("adler32", json!({"location": 1})),
            ("fletcher32", json!({"location": "end"})),
            ("crc32c", json!({"x": 1})),
        ] {
            assert!(matches!(
                Checksum32Codec::from_configuration(id, &config(bad)),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
    }
}
