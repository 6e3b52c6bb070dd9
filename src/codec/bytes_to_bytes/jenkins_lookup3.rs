//! `numcodecs.jenkins_lookup3`: the data, then Bob Jenkins' lookup3 hash of it (HDF5's
//! `H5_checksum_lookup3`, which is lookup3's `hashlittle`) as 4 little-endian bytes.
//!
//! Configuration: `initval` (the hash's seed, default 0). numcodecs also takes `prefix`,
//! bytes hashed before the data, but neither numcodecs (a numpy buffer) nor the registry
//! gives it a JSON spelling, so a `prefix` other than null is unsupported.

use super::BytesToBytesCodec;
use crate::codec::configuration::{check_keys, get_int, range_error};
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.jenkins_lookup3";
const SIZE: usize = 4;

/// lookup3's `hashlittle` of `data` with seed `initval`.
pub fn lookup3(data: &[u8], initval: u32) -> u32 {
    fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
        *a = a.wrapping_sub(*c);
        *a ^= c.rotate_left(4);
        *c = c.wrapping_add(*b);
        *b = b.wrapping_sub(*a);
        *b ^= a.rotate_left(6);
        *a = a.wrapping_add(*c);
        *c = c.wrapping_sub(*b);
        *c ^= b.rotate_left(8);
        *b = b.wrapping_add(*a);
        *a = a.wrapping_sub(*c);
        *a ^= c.rotate_left(16);
        *c = c.wrapping_add(*b);
        *b = b.wrapping_sub(*a);
        *b ^= a.rotate_left(19);
        *a = a.wrapping_add(*c);
        *c = c.wrapping_sub(*b);
        *c ^= b.rotate_left(4);
        *b = b.wrapping_add(*a);
    }
    fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
        *c ^= *b;
        *c = c.wrapping_sub(b.rotate_left(14));
        *a ^= *c;
        *a = a.wrapping_sub(c.rotate_left(11));
        *b ^= *a;
        *b = b.wrapping_sub(a.rotate_left(25));
        *c ^= *b;
        *c = c.wrapping_sub(b.rotate_left(16));
        *a ^= *c;
        *a = a.wrapping_sub(c.rotate_left(4));
        *b ^= *a;
        *b = b.wrapping_sub(a.rotate_left(14));
        *c ^= *b;
        *c = c.wrapping_sub(b.rotate_left(24));
    }
    let le = |w: &[u8]| u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    // The length enters the seed modulo 2^32, as the C code's cast does.
    let seed = 0xdead_beef_u32
        .wrapping_add(data.len() as u32)
        .wrapping_add(initval);
    let (mut a, mut b, mut c) = (seed, seed, seed);
    let mut rest = data;
    // Every whole block of 12 but the last one is mixed; the last 1 to 12 bytes go through
    // the final mix (zero-padded), and no bytes at all leave `c` as it is.
    while rest.len() > 12 {
        a = a.wrapping_add(le(&rest[0..4]));
        b = b.wrapping_add(le(&rest[4..8]));
        c = c.wrapping_add(le(&rest[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    if rest.is_empty() {
        return c;
    }
    let mut tail = [0u8; 12];
    tail[..rest.len()].copy_from_slice(rest);
    a = a.wrapping_add(le(&tail[0..4]));
    b = b.wrapping_add(le(&tail[4..8]));
    c = c.wrapping_add(le(&tail[8..12]));
    final_mix(&mut a, &mut b, &mut c);
    c
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JenkinsLookup3Codec {
    initval: u32,
}

impl JenkinsLookup3Codec {
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        check_keys(config, &["initval", "prefix"], NAME)?;
        match config.get("prefix") {
            None | Some(Value::Null) => {}
            Some(other) => {
                return Err(CodecError::Unsupported(format!(
                    "{NAME} with a 'prefix' ({other}): it has no JSON spelling in numcodecs \
                     or the registry"
                )))
            }
        }
        let initval = match get_int(config, "initval", NAME)? {
            None => 0,
            Some(v) => {
                u32::try_from(v).map_err(|_| range_error(NAME, "initval", "0 to 4294967295", v))?
            }
        };
        Ok(JenkinsLookup3Codec { initval })
    }
}

impl BytesToBytesCodec for JenkinsLookup3Codec {
    fn name(&self) -> &'static str {
        NAME
    }

    /// numcodecs writes `initval` only when it was given; the default is left out.
    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        if self.initval != 0 {
            map.insert("initval".into(), Value::from(self.initval));
        }
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let hash = lookup3(&input, self.initval);
        let mut out = input;
        out.try_reserve_exact(SIZE)
            .map_err(|_| CodecError::OutOfMemory(out.len().saturating_add(SIZE)))?;
        out.extend_from_slice(&hash.to_le_bytes());
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let mut data = input;
        let stored = self.check(&data, size)?;
        data.truncate(stored);
        Ok(data)
    }

    fn decode_slice(&self, input: &[u8], size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let stored = self.check(input, size)?;
        let mut out = try_vec_with_capacity(stored)?;
        out.extend_from_slice(&input[..stored]);
        Ok(out)
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(SIZE)
    }
}

impl JenkinsLookup3Codec {
    /// Check the trailing hash of `input`; the length of the data before it.
    fn check(&self, input: &[u8], size: DecodedSize) -> Result<usize, CodecError> {
        let Some(stored) = input.len().checked_sub(SIZE) else {
            return Err(CodecError::corrupt(
                NAME,
                format!("{} bytes is shorter than the 4-byte checksum", input.len()),
            ));
        };
        if !size.accepts(stored) {
            return Err(size.mismatch(NAME, stored));
        }
        let found = u32::from_le_bytes([
            input[stored],
            input[stored + 1],
            input[stored + 2],
            input[stored + 3],
        ]);
        let computed = lookup3(&input[..stored], self.initval);
        if found != computed {
            return Err(CodecError::corrupt(
                NAME,
                format!("checksum mismatch: stored {found:#010x}, computed {computed:#010x}"),
            ));
        }
        Ok(stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::{config, is_corrupt};
    use serde_json::json;

    #[test]
    fn lookup3_test_vectors() {
        // lookup3.c's driver5 vectors, and one checked against numcodecs 0.17.1.
        assert_eq!(lookup3(b"", 0), 0xdeadbeef);
        assert_eq!(lookup3(b"", 0xdeadbeef), 0xbd5b7dde);
        assert_eq!(lookup3(b"Four score and seven years ago", 0), 0x17770551);
        assert_eq!(lookup3(b"Four score and seven years ago", 1), 0xcd628161);
        let ramp: Vec<u8> = (0..25).collect();
        assert_eq!(lookup3(&ramp, 7), 0xbfa598f8);
    }

    #[test]
    fn round_trip_and_corruption() {
        let c = JenkinsLookup3Codec::from_configuration(&config(json!({"initval": 7}))).unwrap();
        let data: Vec<u8> = (0..25).collect();
        let encoded = c.encode(data.clone()).unwrap();
        assert_eq!(&encoded[25..], &0xbfa598f8u32.to_le_bytes());
        assert_eq!(
            c.decode(encoded.clone(), DecodedSize::Exact(25)).unwrap(),
            data
        );
        assert_eq!(
            c.decode_slice(&encoded, DecodedSize::AtMost(100)).unwrap(),
            data
        );
        let mut bad = encoded.clone();
        bad[3] ^= 1;
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(25))));
        assert!(is_corrupt(c.decode(vec![1, 2, 3], DecodedSize::AtMost(10))));
        assert!(is_corrupt(c.decode(encoded, DecodedSize::Exact(24))));
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"initval": 7})
        );
    }

    #[test]
    fn configuration_rules() {
        let d = JenkinsLookup3Codec::from_configuration(&Map::new()).unwrap();
        assert_eq!(d.initval, 0);
        assert_eq!(d.configuration().unwrap(), Map::new());
        for bad in [
            json!({"initval": -1}),
            json!({"initval": "1"}),
            json!({"seed": 1}),
        ] {
            assert!(matches!(
                JenkinsLookup3Codec::from_configuration(&config(bad.clone())),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
        assert!(matches!(
            JenkinsLookup3Codec::from_configuration(&config(json!({"prefix": [1, 2]}))),
            Err(CodecError::Unsupported(_))
        ));
        assert!(JenkinsLookup3Codec::from_configuration(&config(json!({"prefix": null}))).is_ok());
    }
}
