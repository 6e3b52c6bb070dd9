//! The `crc32c` bytes -> bytes codec.
//!
//! Specification: <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/crc32c/index.html>.
//!
//! * Configuration: none (an absent or empty `configuration` object).
//! * Encoding: the input followed by its CRC-32C (Castagnoli) checksum as a little-endian u32.
//! * Decoding: checks and strips the 4-byte checksum, in place.

use super::BytesToBytesCodec;
use crate::codec::{CodecError, DecodedSize};
use serde_json::{Map, Value};

const NAME: &str = "crc32c";

/// Size of the checksum appended by the codec.
pub const CHECKSUM_SIZE: usize = 4;

/// The `crc32c` codec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Crc32cCodec;

impl Crc32cCodec {
    #[cfg(test)]
    /// A crc32c codec.
    pub fn new() -> Self {
        Crc32cCodec
    }

    /// Build from the `configuration` object of the codec's metadata, which must be empty.
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        if let Some(key) = config.keys().next() {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key '{key}' (crc32c takes no configuration)"),
            ));
        }
        Ok(Crc32cCodec)
    }
}

impl BytesToBytesCodec for Crc32cCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        None
    }

    fn encode(&self, mut input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let checksum = crc32c::crc32c(&input);
        input
            .try_reserve_exact(CHECKSUM_SIZE)
            .map_err(|_| CodecError::OutOfMemory(input.len().saturating_add(CHECKSUM_SIZE)))?;
        input.extend_from_slice(&checksum.to_le_bytes());
        Ok(input)
    }

    fn decode(&self, mut input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let Some(payload_len) = input.len().checked_sub(CHECKSUM_SIZE) else {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "truncated: {} bytes is shorter than the {CHECKSUM_SIZE}-byte checksum",
                    input.len()
                ),
            ));
        };
        if !size.accepts(payload_len) {
            return Err(size.mismatch(NAME, payload_len));
        }
        let (payload, stored) = input.split_at(payload_len);
        let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let computed = crc32c::crc32c(payload);
        if stored != computed {
            return Err(CodecError::corrupt(
                NAME,
                format!("checksum mismatch: expected {stored:#010x} (stored), actual {computed:#010x} (computed)"),
            ));
        }
        input.truncate(payload_len);
        Ok(input)
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(CHECKSUM_SIZE)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn corrupt_message(r: Result<Vec<u8>, CodecError>) -> String {
        match r {
            Err(CodecError::Corrupt { codec, message }) => {
                assert_eq!(codec, "crc32c");
                message
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }

    #[test]
    fn known_check_value() {
        // The CRC-32C check value from RFC 3720 / the Rocksoft catalogue.
        let enc = Crc32cCodec.encode(b"123456789".to_vec()).unwrap();
        assert_eq!(&enc[..9], b"123456789");
        assert_eq!(&enc[9..], &0xE306_9283u32.to_le_bytes());
        assert_eq!(&enc[9..], &[0x83, 0x92, 0x06, 0xe3]);
    }

    #[test]
    fn empty_input() {
        // The CRC-32C of nothing is 0.
        let enc = Crc32cCodec.encode(Vec::new()).unwrap();
        assert_eq!(enc, vec![0, 0, 0, 0]);
        assert_eq!(
            Crc32cCodec
                .decode(enc.clone(), DecodedSize::Exact(0))
                .unwrap(),
            Vec::<u8>::new()
        );
        assert_eq!(
            Crc32cCodec
                .decode(enc, DecodedSize::AtMost(usize::MAX))
                .unwrap(),
            Vec::<u8>::new()
        );
    }

    #[test]
    fn decodes_zarr_python_vectors() {
        // zarr-python 3.1.6: Crc32cCodec encoding of bytes(range(10)) and of b"zarr".
        let enc = hex("0001020304050607080931212c02");
        let want: Vec<u8> = (0..10).collect();
        assert_eq!(
            Crc32cCodec.decode(enc, DecodedSize::Exact(10)).unwrap(),
            want
        );
        let enc = hex("7a617272d1d87c1f");
        assert_eq!(
            Crc32cCodec
                .decode(enc.clone(), DecodedSize::AtMost(usize::MAX))
                .unwrap(),
            b"zarr"
        );
        assert_eq!(Crc32cCodec.encode(b"zarr".to_vec()).unwrap(), enc);
    }

    #[test]
    fn round_trip_sizes() {
        for len in [0usize, 1, 3, 4, 5, 63, 64, 65, 4096, 100_003] {
            let input: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let enc = Crc32cCodec.encode(input.clone()).unwrap();
            assert_eq!(enc.len(), len + 4);
            assert_eq!(Crc32cCodec.encoded_len(len), Some(enc.len()));
            assert_eq!(
                Crc32cCodec
                    .decode(enc.clone(), DecodedSize::Exact(len))
                    .unwrap(),
                input
            );
            assert_eq!(
                Crc32cCodec
                    .decode(enc, DecodedSize::AtMost(usize::MAX))
                    .unwrap(),
                input
            );
        }
    }

    #[test]
    fn decode_strips_in_place() {
        let enc = Crc32cCodec.encode(vec![5u8; 1000]).unwrap();
        let ptr = enc.as_ptr();
        let dec = Crc32cCodec
            .decode(enc, DecodedSize::AtMost(usize::MAX))
            .unwrap();
        assert_eq!(dec.as_ptr(), ptr, "decode must not copy");
        assert_eq!(dec.len(), 1000);
    }

    #[test]
    fn truncated_input() {
        for len in 0..4 {
            let msg = corrupt_message(
                Crc32cCodec.decode(vec![0u8; len], DecodedSize::AtMost(usize::MAX)),
            );
            assert!(msg.contains("truncated"), "{msg}");
        }
        // Four zero bytes are a valid encoding of nothing.
        assert!(Crc32cCodec
            .decode(vec![0u8; 4], DecodedSize::Exact(0))
            .is_ok());
    }

    #[test]
    fn checksum_mismatch_names_both_values() {
        let mut enc = Crc32cCodec.encode(b"123456789".to_vec()).unwrap();
        enc[0] = b'0';
        let msg = corrupt_message(Crc32cCodec.decode(enc, DecodedSize::AtMost(usize::MAX)));
        assert!(msg.contains("0xe3069283"), "{msg}");
        let actual = crc32c::crc32c(b"023456789");
        assert!(msg.contains(&format!("{actual:#010x}")), "{msg}");
        // Every single-bit error is detected.
        let enc = Crc32cCodec.encode(b"abcdefgh".to_vec()).unwrap();
        for bit in 0..enc.len() * 8 {
            let mut bad = enc.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            corrupt_message(Crc32cCodec.decode(bad, DecodedSize::AtMost(usize::MAX)));
        }
    }

    #[test]
    fn decoded_len_mismatch() {
        let enc = Crc32cCodec.encode(vec![1u8; 10]).unwrap();
        corrupt_message(Crc32cCodec.decode(enc.clone(), DecodedSize::Exact(9)));
        corrupt_message(Crc32cCodec.decode(enc.clone(), DecodedSize::Exact(11)));
        corrupt_message(Crc32cCodec.decode(enc.clone(), DecodedSize::Exact(14)));
        assert!(Crc32cCodec.decode(enc, DecodedSize::Exact(10)).is_ok());
    }

    #[test]
    fn configuration() {
        let c = Crc32cCodec::from_configuration(&Map::new()).unwrap();
        assert_eq!(c, Crc32cCodec::new());
        assert_eq!(c.name(), "crc32c");
        assert_eq!(c.configuration(), None);
        assert_eq!(c.encoded_len(usize::MAX), None);
        for bad in [json!({"endian": "little"}), json!({"x": null})] {
            assert!(matches!(
                Crc32cCodec::from_configuration(&config(bad)),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
    }

    #[test]
    fn garbage_never_panics() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..200usize {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let _ = Crc32cCodec.decode(junk.clone(), DecodedSize::AtMost(usize::MAX));
            let _ = Crc32cCodec.decode(junk, DecodedSize::Exact(len.saturating_sub(4)));
        }
    }
}
