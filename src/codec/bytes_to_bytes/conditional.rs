//! `conditional` (zarr-extensions `codecs/conditional`): a list of bytes->bytes codecs,
//! each applied or skipped chunk by chunk, with a bit mask saying which in front of the
//! data.
//!
//! The header is `header_bits / 8` bytes; bit `i` of the mask (byte `i / 8`, bit `i % 8`,
//! least significant first: the spec's "little-endian bit order") is set when codec `i`
//! was applied. Decoding runs the codecs whose bit is set, last to first. A set bit at or
//! beyond the number of codecs names a codec this configuration does not have, so the
//! chunk cannot be decoded: corrupt data.
//!
//! The spec lets the writer choose the mask per chunk through a decision function that
//! the library's API must accept; without one the mask is all zeros. libzarr has no such
//! API yet, so it writes every chunk with the mask all zeros (the codecs skipped), as the
//! spec prescribes for an encoder whose mask was not set.

use super::{BytesToBytesCodec, DecodedSize};
use crate::codec::configuration::get_int;
use crate::codec::{try_vec_with_capacity, CodecError};
use crate::extension::NamedConfig;
use serde_json::{Map, Value};

const NAME: &str = "conditional";

/// A bound on `header_bits` (the spec gives none): 64 Ki codecs is far beyond any
/// pipeline, and it keeps a configuration from asking for an absurd header.
const MAX_HEADER_BITS: i64 = 1 << 16;

#[derive(Debug)]
pub struct ConditionalCodec {
    codecs: Vec<Box<dyn BytesToBytesCodec>>,
    header_bits: usize,
    /// The mask encoding applies (all zeros until an API sets it).
    mask: Vec<u8>,
}

impl ConditionalCodec {
    pub fn from_configuration(
        config: &Map<String, Value>,
        element_size: usize,
    ) -> Result<ConditionalCodec, CodecError> {
        if let Some(key) = config
            .keys()
            .find(|k| !matches!(k.as_str(), "codecs" | "header_bits"))
        {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key \"{key}\""),
            ));
        }
        let items = match config.get("codecs") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(CodecError::config(
                    NAME,
                    format!("\"codecs\" must be a list, got {other}"),
                ))
            }
            None => return Err(CodecError::config(NAME, "missing \"codecs\"")),
        };
        let mut codecs = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let named = NamedConfig::parse(item, "conditional codec")
                .map_err(|e| CodecError::config(NAME, e.to_string()))?;
            match super::from_metadata(&named.name, named.configuration.as_ref(), element_size)? {
                Some(c) => codecs.push(c),
                None => {
                    return Err(CodecError::config(
                        NAME,
                        format!(
                            "\"codecs\"[{i}] is '{}', which is not a bytes->bytes codec \
                             (the only kind conditional takes)",
                            named.name
                        ),
                    ))
                }
            }
        }
        let default_bits = codecs.len().div_ceil(8) * 8;
        let header_bits = match get_int(config, "header_bits", NAME)? {
            None => default_bits,
            Some(bits) => {
                if bits < 0 || bits % 8 != 0 || bits > MAX_HEADER_BITS {
                    return Err(CodecError::config(
                        NAME,
                        format!(
                            "\"header_bits\" must be a multiple of 8 from 0 to {MAX_HEADER_BITS}, \
                             got {bits}"
                        ),
                    ));
                }
                if (bits as usize) < codecs.len() {
                    return Err(CodecError::config(
                        NAME,
                        format!(
                            "\"header_bits\" is {bits}, fewer than the {} codecs",
                            codecs.len()
                        ),
                    ));
                }
                bits as usize
            }
        };
        Ok(ConditionalCodec {
            codecs,
            header_bits,
            mask: vec![0; header_bits / 8],
        })
    }

    fn header_len(&self) -> usize {
        self.header_bits / 8
    }

    /// Set the mask the next encodings apply (bit `i`: apply codec `i`). For tests, and for
    /// the writer-side API the spec asks for, once there is one.
    #[cfg(test)]
    pub(crate) fn set_mask(&mut self, applied: &[bool]) {
        self.mask = vec![0; self.header_len()];
        for (i, &on) in applied.iter().enumerate().take(self.codecs.len()) {
            if on {
                self.mask[i / 8] |= 1 << (i % 8);
            }
        }
    }

    fn applied(mask: &[u8], i: usize) -> bool {
        mask[i / 8] & (1 << (i % 8)) != 0
    }
}

impl BytesToBytesCodec for ConditionalCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let codecs: Vec<Value> = self
            .codecs
            .iter()
            .map(|c| NamedConfig::new(c.name(), c.configuration()).to_json())
            .collect();
        let mut map = Map::new();
        map.insert("codecs".into(), Value::Array(codecs));
        map.insert("header_bits".into(), Value::from(self.header_bits));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut data = input;
        for (i, codec) in self.codecs.iter().enumerate() {
            if Self::applied(&self.mask, i) {
                data = codec.encode(data)?;
            }
        }
        let mut out = try_vec_with_capacity(self.header_len().saturating_add(data.len()))?;
        out.extend_from_slice(&self.mask);
        out.extend_from_slice(&data);
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let h = self.header_len();
        if input.len() < h {
            return Err(CodecError::corrupt(
                NAME,
                format!("{} bytes is shorter than the {h}-byte header", input.len()),
            ));
        }
        let mask = &input[..h];
        if let Some(bit) = (self.codecs.len()..self.header_bits).find(|&b| Self::applied(mask, b)) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "header bit {bit} is set, but only {} codecs are configured",
                    self.codecs.len()
                ),
            ));
        }
        // What each applied codec must decode to: the chunk's size for the first one
        // applied, then what the codecs before it can produce (as the chain does).
        let mut sizes = Vec::with_capacity(self.codecs.len());
        let mut current = size;
        for (i, codec) in self.codecs.iter().enumerate() {
            sizes.push(current);
            if Self::applied(mask, i) {
                current = match current {
                    DecodedSize::Exact(n) => match codec.encoded_len(n) {
                        Some(m) => DecodedSize::Exact(m),
                        None => DecodedSize::AtMost(codec.max_encoded_len(n)),
                    },
                    DecodedSize::AtMost(n) => DecodedSize::AtMost(codec.max_encoded_len(n)),
                };
            }
        }
        let mut data = input[h..].to_vec();
        for (i, codec) in self.codecs.iter().enumerate().rev() {
            if Self::applied(mask, i) {
                data = codec.decode(data, sizes[i])?;
            }
        }
        if !size.accepts(data.len()) {
            return Err(size.mismatch(NAME, data.len()));
        }
        Ok(data)
    }

    /// Chunks may apply different codecs, so the size is fixed only when no codec can
    /// change it.
    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        if self.codecs.is_empty() {
            decoded_len.checked_add(self.header_len())
        } else {
            None
        }
    }

    fn max_encoded_len(&self, decoded_len: usize) -> usize {
        // Any subset of the codecs may have been applied: take the larger of skipping and
        // applying at each step.
        let mut len = decoded_len;
        for codec in &self.codecs {
            len = len.max(codec.max_encoded_len(len));
        }
        len.saturating_add(self.header_len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::{config, data, is_corrupt};
    use serde_json::json;

    fn codec(v: Value) -> Result<ConditionalCodec, CodecError> {
        ConditionalCodec::from_configuration(&config(v), 4)
    }

    #[test]
    fn every_mask_round_trips_and_the_header_says_which() {
        let mut c = codec(json!({"codecs": [
            {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
            {"name": "zstd", "configuration": {"level": 1, "checksum": false}},
            {"name": "crc32c"}
        ]}))
        .unwrap();
        assert_eq!(c.header_bits, 8);
        let input = data(4000, 7, 4);
        for mask in 0..8u8 {
            let applied = [mask & 1 != 0, mask & 2 != 0, mask & 4 != 0];
            c.set_mask(&applied);
            let encoded = c.encode(input.clone()).unwrap();
            assert_eq!(encoded[0], mask);
            if mask == 0 {
                assert_eq!(&encoded[1..], &input[..]);
            }
            let decoded = c
                .decode(encoded.clone(), DecodedSize::Exact(input.len()))
                .unwrap();
            assert_eq!(decoded, input, "mask {mask}");
            // Bounded decoding works too.
            let decoded = c
                .decode(encoded, DecodedSize::AtMost(input.len() + 10))
                .unwrap();
            assert_eq!(decoded, input, "mask {mask}");
        }
    }

    #[test]
    fn unset_mask_skips_every_codec() {
        let c = codec(
            json!({"codecs": [{"name": "gzip", "configuration": {"level": 5}}],
                             "header_bits": 16}),
        )
        .unwrap();
        let encoded = c.encode(vec![1, 2, 3]).unwrap();
        assert_eq!(encoded, vec![0, 0, 1, 2, 3]);
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"codecs": [{"name": "gzip", "configuration": {"level": 5}}],
                   "header_bits": 16})
        );
    }

    #[test]
    fn spec_style_chunk_decodes() {
        // Written by another writer with bit 0 set: a gzip member after the one-byte header.
        let c =
            codec(json!({"codecs": [{"name": "gzip", "configuration": {"level": 1}}]})).unwrap();
        let gz = crate::codec::bytes_to_bytes::gzip::GzipCodec::new(1)
            .unwrap()
            .encode(b"hello hello hello".to_vec())
            .unwrap();
        let mut chunk = vec![1u8];
        chunk.extend_from_slice(&gz);
        assert_eq!(
            c.decode(chunk, DecodedSize::Exact(17)).unwrap(),
            b"hello hello hello"
        );
    }

    #[test]
    fn corrupt_chunks() {
        let c = codec(json!({"codecs": [{"name": "crc32c"}], "header_bits": 16})).unwrap();
        // Too short for the header.
        assert!(is_corrupt(c.decode(vec![0], DecodedSize::Exact(0))));
        // A reserved bit set.
        assert!(is_corrupt(c.decode(vec![0, 1, 5], DecodedSize::Exact(1))));
        assert!(is_corrupt(c.decode(vec![2, 0, 5], DecodedSize::Exact(1))));
        // The wrong size once decoded.
        assert!(is_corrupt(
            c.decode(vec![0, 0, 5, 6], DecodedSize::Exact(1))
        ));
        // A failing checksum.
        assert!(is_corrupt(
            c.decode(vec![1, 0, 5, 0, 0, 0, 0], DecodedSize::Exact(1))
        ));
    }

    #[test]
    fn configuration_rules() {
        let bad = |v: Value, needle: &str| match codec(v.clone()) {
            Err(CodecError::InvalidConfiguration { message, .. }) => {
                assert!(message.contains(needle), "{v}: {message}")
            }
            other => panic!("{v}: {other:?}"),
        };
        bad(json!({}), "missing \"codecs\"");
        bad(json!({"codecs": {}}), "must be a list");
        bad(
            json!({"codecs": [], "level": 1}),
            "unknown configuration key",
        );
        bad(
            json!({"codecs": [{"name": "bytes"}]}),
            "not a bytes->bytes codec",
        );
        bad(
            json!({"codecs": [{"name": "crc32c"}], "header_bits": 4}),
            "multiple of 8",
        );
        bad(
            json!({"codecs": [{"name": "crc32c"}], "header_bits": -8}),
            "multiple of 8",
        );
        bad(
            json!({"codecs": [{"name": "crc32c"}], "header_bits": 0}),
            "fewer than",
        );
        bad(
            json!({"codecs": [{"name": "crc32c"}], "header_bits": "8"}),
            "integer",
        );
        bad(json!({"codecs": [{"configuration": {}}]}), "name");
        // A nested codec's own configuration error comes through.
        assert!(
            codec(json!({"codecs": [{"name": "gzip", "configuration": {"level": 99}}]})).is_err()
        );
        // 9 codecs need two header bytes.
        let nine: Vec<Value> = (0..9).map(|_| json!({"name": "crc32c"})).collect();
        assert_eq!(codec(json!({ "codecs": nine })).unwrap().header_bits, 16);
        assert_eq!(codec(json!({"codecs": []})).unwrap().header_bits, 0);
    }
}
