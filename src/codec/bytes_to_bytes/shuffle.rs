//! `numcodecs.shuffle`: byte shuffle. For `n` elements of `elementsize` bytes, byte `j` of
//! element `i` moves to position `j * n + i` (all first bytes, then all second bytes, ...).
//!
//! * Configuration: `{"elementsize": int}`, default 4. An `elementsize` of 0 or 1 leaves the
//!   data unchanged.
//! * Like numcodecs, a buffer that is not a whole number of elements is an error (it is not
//!   a shuffled buffer: [`CodecError::Corrupt`] on decode).

use super::BytesToBytesCodec;
use crate::codec::configuration::{check_keys, get_int, range_error};
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use serde_json::{Map, Value};

const NAME: &str = "numcodecs.shuffle";

/// The `numcodecs.shuffle` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShuffleCodec {
    elementsize: usize,
}

impl ShuffleCodec {
    pub fn new(elementsize: usize) -> Self {
        ShuffleCodec { elementsize }
    }

    /// Build from a numcodecs configuration (without `id`).
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        check_keys(config, &["elementsize"], NAME)?;
        let e = get_int(config, "elementsize", NAME)?.unwrap_or(4);
        let e = usize::try_from(e)
            .ok()
            .filter(|&e| e <= 1 << 24)
            .ok_or_else(|| range_error(NAME, "elementsize", "a non-negative integer", e))?;
        Ok(Self::new(e))
    }

    fn check(&self, len: usize) -> Result<(), String> {
        if self.elementsize > 1 && !len.is_multiple_of(self.elementsize) {
            return Err(format!(
                "{len} bytes is not a whole number of {}-byte elements",
                self.elementsize
            ));
        }
        Ok(())
    }
}

/// `out[j * n + i] = input[i * size + j]` (or the inverse when `unshuffle`).
fn shuffle(input: &[u8], size: usize, unshuffle: bool) -> Result<Vec<u8>, CodecError> {
    let n = input.len() / size;
    let mut out = try_vec_with_capacity(input.len())?;
    out.resize(input.len(), 0);
    for i in 0..n {
        for j in 0..size {
            if unshuffle {
                out[i * size + j] = input[j * n + i];
            } else {
                out[j * n + i] = input[i * size + j];
            }
        }
    }
    Ok(out)
}

impl BytesToBytesCodec for ShuffleCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("elementsize".into(), Value::from(self.elementsize));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        self.check(input.len())
            .map_err(|message| CodecError::EncodeFailed {
                codec: NAME.to_string(),
                message,
            })?;
        if self.elementsize <= 1 {
            return Ok(input);
        }
        shuffle(&input, self.elementsize, false)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        if !size.accepts(input.len()) {
            return Err(size.mismatch(NAME, input.len()));
        }
        self.check(input.len())
            .map_err(|message| CodecError::corrupt(NAME, message))?;
        if self.elementsize <= 1 {
            return Ok(input);
        }
        shuffle(&input, self.elementsize, true)
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(decoded_len)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_numcodecs() {
        // numcodecs 0.16.6: Shuffle(4).encode(np.arange(6, dtype='<u4'))
        let input: Vec<u8> = (0..6u32).flat_map(|v| v.to_le_bytes()).collect();
        let want = hex("000102030405000000000000000000000000000000000000");
        let c = ShuffleCodec::new(4);
        assert_eq!(c.encode(input.clone()).unwrap(), want);
        assert_eq!(c.decode(want, DecodedSize::Exact(24)).unwrap(), input);
        // Shuffle(2).encode(b'abcdef')
        assert_eq!(
            ShuffleCodec::new(2).encode(b"abcdef".to_vec()).unwrap(),
            b"acebdf"
        );
    }

    #[test]
    fn round_trips_and_sizes() {
        for size in [0usize, 1, 2, 3, 4, 8, 16] {
            let c = ShuffleCodec::new(size);
            let len = size.max(1) * 37;
            let input = data(len, size as u64 + 1, 255);
            let enc = c.encode(input.clone()).unwrap();
            assert_eq!(c.decode(enc, DecodedSize::Exact(len)).unwrap(), input);
        }
        let c = ShuffleCodec::new(4);
        assert!(c.encode(vec![0; 7]).is_err());
        assert!(is_corrupt(
            c.decode(vec![0; 7], DecodedSize::AtMost(usize::MAX))
        ));
        assert!(is_corrupt(c.decode(vec![0; 8], DecodedSize::Exact(12))));
        assert_eq!(c.encoded_len(12), Some(12));
    }

    #[test]
    fn configuration() {
        let c = ShuffleCodec::from_configuration(&Map::new()).unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"elementsize": 4})
        );
        for bad in [
            json!({"elementsize": -1}),
            json!({"elementsize": "4"}),
            json!({"size": 4}),
        ] {
            assert!(matches!(
                ShuffleCodec::from_configuration(&config(bad)),
                Err(CodecError::InvalidConfiguration { .. })
            ));
        }
    }
}
