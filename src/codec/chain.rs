//! The codec pipeline of an array: array->array codecs, one array->bytes codec, then
//! bytes->bytes codecs. Encoding runs the list forwards, decoding backwards.

use super::array_to_array::{self, ArrayToArrayCodec};
use super::array_to_bytes::sharding::ShardingCodec;
use super::array_to_bytes::{self, ArrayToBytesCodec};
use super::bytes_to_bytes::{self, BytesToBytesCodec};
use super::{ChunkRepresentation, CodecError};
use crate::metadata::NamedConfig;

/// A validated codec chain for chunks of one representation.
#[derive(Debug)]
pub struct CodecChain {
    array_to_array: Vec<Box<dyn ArrayToArrayCodec>>,
    array_to_bytes: Box<dyn ArrayToBytesCodec>,
    bytes_to_bytes: Vec<Box<dyn BytesToBytesCodec>>,
    /// The chunk representation entering each array->array codec, then the one entering
    /// the array->bytes codec (so `array_to_array.len() + 1` entries). Array->array codecs
    /// may change the data type (numcodecs filters), so the array->bytes codec serialises
    /// the last entry's data type and the bytes->bytes codecs see its element size.
    representations: Vec<ChunkRepresentation>,
}

impl CodecChain {
    /// Build the chain from a `codecs` list for chunks of `decoded`.
    ///
    /// Every codec must be known: an unknown codec fails with [`CodecError::Unsupported`],
    /// even when marked `"must_understand": false`, because skipping a codec that changed
    /// the bytes would return wrong data.
    pub fn from_metadata(
        codecs: &[NamedConfig],
        decoded: &ChunkRepresentation,
    ) -> Result<CodecChain, CodecError> {
        let mut array_to_array = Vec::new();
        let mut array_to_bytes: Option<Box<dyn ArrayToBytesCodec>> = None;
        let mut bytes_to_bytes = Vec::new();
        let mut representations = vec![decoded.clone()];
        for codec in codecs {
            let name = codec.name.as_str();
            let configuration = codec.configuration.as_ref();
            let current = representations.last().expect("never empty");
            if let Some(c) = array_to_array::from_metadata(name, configuration, current)? {
                if array_to_bytes.is_some() {
                    return Err(CodecError::InvalidChain(format!(
                        "array->array codec '{name}' after the array->bytes codec"
                    )));
                }
                let next = c.encoded_representation(current)?;
                representations.push(next);
                array_to_array.push(c);
            } else if let Some(c) = array_to_bytes::from_metadata(name, configuration, current)? {
                if array_to_bytes.is_some() {
                    return Err(CodecError::InvalidChain(format!(
                        "second array->bytes codec '{name}'"
                    )));
                }
                array_to_bytes = Some(c);
            } else if let Some(c) =
                bytes_to_bytes::from_metadata(name, configuration, current.data_type.size())?
            {
                if array_to_bytes.is_none() {
                    return Err(CodecError::InvalidChain(format!(
                        "bytes->bytes codec '{name}' before the array->bytes codec"
                    )));
                }
                bytes_to_bytes.push(c);
            } else {
                return Err(CodecError::Unsupported(name.to_string()));
            }
        }
        let array_to_bytes = array_to_bytes.ok_or_else(|| {
            CodecError::InvalidChain("no array->bytes codec (such as \"bytes\")".into())
        })?;
        Ok(CodecChain {
            array_to_array,
            array_to_bytes,
            bytes_to_bytes,
            representations,
        })
    }

    /// A chain of just `bytes` in little-endian order (or without endian for 1-byte types).
    pub fn default_for(decoded: &ChunkRepresentation) -> CodecChain {
        let endian =
            (decoded.data_type.endian_unit() > 1).then_some(array_to_bytes::bytes::Endian::Little);
        CodecChain {
            array_to_array: Vec::new(),
            array_to_bytes: Box::new(array_to_bytes::bytes::BytesCodec::new(endian)),
            bytes_to_bytes: Vec::new(),
            representations: vec![decoded.clone()],
        }
    }

    /// The canonical metadata of the chain (every configuration key spelled out).
    pub fn to_metadata(&self) -> Vec<NamedConfig> {
        let mut out = Vec::new();
        for c in &self.array_to_array {
            out.push(NamedConfig::new(c.name(), c.configuration()));
        }
        out.push(NamedConfig::new(
            self.array_to_bytes.name(),
            self.array_to_bytes.configuration(),
        ));
        for c in &self.bytes_to_bytes {
            out.push(NamedConfig::new(c.name(), c.configuration()));
        }
        out
    }

    /// The decoded chunk representation this chain was built for.
    pub fn decoded_representation(&self) -> &ChunkRepresentation {
        &self.representations[0]
    }

    /// The sharding codec when the chain is exactly one `sharding_indexed` codec (so a
    /// stored chunk is a shard whose byte ranges can be read directly).
    pub fn as_sharding(&self) -> Option<&ShardingCodec> {
        if self.array_to_array.is_empty() && self.bytes_to_bytes.is_empty() {
            self.array_to_bytes.as_sharding()
        } else {
            None
        }
    }

    /// Whether the chain is just the `bytes` codec, so that the bytes of any run of
    /// elements can be read from a stored chunk and decoded on their own.
    pub fn is_plain_bytes(&self) -> bool {
        self.array_to_array.is_empty()
            && self.bytes_to_bytes.is_empty()
            && self.array_to_bytes.is_plain_bytes()
    }

    /// Decode a C-order block of `shape` whose bytes were cut out of stored chunks of a
    /// plain-bytes chain (see [`CodecChain::is_plain_bytes`]).
    pub fn decode_plain_block(
        &self,
        encoded: Vec<u8>,
        shape: &[u64],
    ) -> Result<Vec<u8>, CodecError> {
        debug_assert!(self.is_plain_bytes());
        let repr = ChunkRepresentation {
            shape: shape.to_vec(),
            ..self.representations[0].clone()
        };
        self.array_to_bytes.decode(encoded, &repr)
    }

    /// The encoded size of a chunk when every codec has a fixed size (no compressor).
    pub fn encoded_len(&self) -> Option<usize> {
        let last = self.representations.last().expect("never empty");
        let mut len = self.array_to_bytes.encoded_len(last)?;
        for codec in &self.bytes_to_bytes {
            len = codec.encoded_len(len)?;
        }
        Some(len)
    }

    /// Encode a decoded chunk (C order, host byte order, exactly the chunk's size).
    pub fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut data = decoded;
        for (codec, repr) in self.array_to_array.iter().zip(&self.representations) {
            data = codec.encode(data, repr)?;
        }
        let last = self.representations.last().expect("never empty");
        data = self.array_to_bytes.encode(data, last)?;
        for codec in &self.bytes_to_bytes {
            data = codec.encode(data)?;
        }
        Ok(data)
    }

    /// The exact size each bytes->bytes decoder must produce, where it is known: the
    /// array->bytes codec's fixed size, grown by any fixed-size codecs (checksums) after it.
    fn expected_decoded_lens(&self) -> Vec<Option<usize>> {
        let last = self.representations.last().expect("never empty");
        let mut expected_lens = Vec::with_capacity(self.bytes_to_bytes.len());
        let mut len = self.array_to_bytes.encoded_len(last);
        for codec in &self.bytes_to_bytes {
            expected_lens.push(len);
            len = len.and_then(|n| codec.encoded_len(n));
        }
        expected_lens
    }

    /// Decode a stored chunk into the decoded representation. Every stage checks sizes, so
    /// a truncated or corrupt chunk is an error, never a wrongly shaped result.
    pub fn decode(&self, encoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let last = self.representations.last().expect("never empty");
        let mut data = encoded;
        for (codec, expected) in self
            .bytes_to_bytes
            .iter()
            .zip(self.expected_decoded_lens())
            .rev()
        {
            data = codec.decode(data, expected)?;
        }
        data = self.array_to_bytes.decode(data, last)?;
        for (codec, repr) in self.array_to_array.iter().zip(&self.representations).rev() {
            data = codec.decode(data, repr)?;
        }
        Ok(data)
    }
}

impl CodecChain {
    /// Decode a stored chunk straight into `out`, which must be exactly the decoded size.
    ///
    /// When the chain ends in the plain `bytes` codec (no array->array codecs), the
    /// innermost bytes->bytes codec decompresses into `out` and the byte order is fixed in
    /// place: no decoded buffer is allocated or copied. Other chains decode, then copy.
    /// On error, `out` may hold partial output.
    pub fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        let last = self.representations.last().expect("never empty");
        assert_eq!(
            Some(out.len()),
            self.representations[0].size_bytes(),
            "decode_into needs a buffer of exactly the chunk's size"
        );
        let direct = self.array_to_array.is_empty()
            && self.array_to_bytes.is_plain_bytes()
            && !self.bytes_to_bytes.is_empty();
        if !direct {
            out.copy_from_slice(&self.decode(encoded)?);
            return Ok(());
        }
        let mut data = encoded;
        let expected = self.expected_decoded_lens();
        // Decoding runs from the outermost codec inwards; the innermost one, whose output
        // is the chunk's elements, writes into `out`.
        let (innermost, outer) = self.bytes_to_bytes.split_first().expect("checked above");
        for (codec, expected) in outer.iter().zip(&expected[1..]).rev() {
            data = codec.decode(data, *expected)?;
        }
        innermost.decode_into(data, out)?;
        self.array_to_bytes.decode_plain_in_place(out, last);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::DataType;
    use serde_json::json;

    fn codecs(v: serde_json::Value) -> Vec<NamedConfig> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| NamedConfig::parse(c, "codec").unwrap())
            .collect()
    }

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    #[test]
    fn transpose_bytes_round_trip() {
        let chain = CodecChain::from_metadata(
            &codecs(json!([
                {"name": "transpose", "configuration": {"order": [1, 0]}},
                {"name": "bytes", "configuration": {"endian": "big"}}
            ])),
            &repr(&[2, 3], DataType::UInt16),
        )
        .unwrap();
        let data: Vec<u8> = (0..6u16).flat_map(|v| v.to_ne_bytes()).collect();
        let encoded = chain.encode(data.clone()).unwrap();
        // Column-major, big-endian: 0, 3, 1, 4, 2, 5.
        assert_eq!(&encoded[..4], &[0, 0, 0, 3]);
        assert_eq!(chain.decode(encoded).unwrap(), data);
    }

    #[test]
    fn decode_into_matches_decode_and_rejects_corruption() {
        let r = repr(&[6, 50], DataType::UInt32);
        // Smooth values, so that the compressors have something to do.
        let data: Vec<u8> = (0..300u32).flat_map(|v| (v / 7).to_ne_bytes()).collect();
        for chain_json in [
            // Direct: the innermost compressor decodes into the output, swap in place.
            json!([{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 1, "checksum": false}}]),
            json!([{"name": "bytes", "configuration": {"endian": "big"}},
                   {"name": "zstd", "configuration": {"level": 3, "checksum": true}},
                   {"name": "crc32c"}]),
            // Direct through the default decode-then-copy of a codec.
            json!([{"name": "bytes", "configuration": {"endian": "big"}},
                   {"name": "gzip", "configuration": {"level": 1}}]),
            // Not direct: bytes alone, and an array->array codec.
            json!([{"name": "bytes", "configuration": {"endian": "big"}}]),
            json!([{"name": "transpose", "configuration": {"order": [1, 0]}},
                   {"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 1, "checksum": false}}]),
        ] {
            let chain = CodecChain::from_metadata(&codecs(chain_json.clone()), &r).unwrap();
            let encoded = chain.encode(data.clone()).unwrap();
            let mut out = vec![0xAB; data.len()];
            chain.decode_into(encoded.clone(), &mut out).unwrap();
            assert_eq!(out, data, "{chain_json}");
            // Truncated: an error, never a short or garbage success.
            let truncated = encoded[..encoded.len() - 1].to_vec();
            assert!(
                matches!(
                    chain.decode_into(truncated, &mut out),
                    Err(CodecError::Corrupt { .. })
                ),
                "{chain_json}"
            );
        }
    }

    #[test]
    fn chain_shape_rules() {
        let r = repr(&[4], DataType::Int32);
        for bad in [
            json!([]),
            json!([{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "bytes", "configuration": {"endian": "little"}}]),
            json!([{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "transpose", "configuration": {"order": [0]}}]),
        ] {
            assert!(
                CodecChain::from_metadata(&codecs(bad.clone()), &r).is_err(),
                "{bad}"
            );
        }
        let unknown = CodecChain::from_metadata(
            &codecs(
                json!([{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "lz77"}]),
            ),
            &r,
        );
        assert!(matches!(unknown, Err(CodecError::Unsupported(n)) if n == "lz77"));
        let endian_alias = CodecChain::from_metadata(
            &codecs(json!([{"name": "endian", "configuration": {"endian": "little"}}])),
            &r,
        )
        .unwrap();
        assert_eq!(endian_alias.to_metadata()[0].name, "bytes");
    }

    #[test]
    fn numcodecs_fixedscaleoffset_bytes_zlib_round_trip() {
        let conf = json!([
            {"name": "numcodecs.fixedscaleoffset",
             "configuration": {"offset": 1000, "scale": 10, "dtype": "<f8", "astype": "|u1"}},
            {"name": "bytes"},
            {"name": "numcodecs.zlib", "configuration": {"level": 1}}
        ]);
        let chain =
            CodecChain::from_metadata(&codecs(conf), &repr(&[2, 3], DataType::Float64)).unwrap();
        let values = [1000.0f64, 1000.1, 1010.5, 1025.5, 1000.0, 1012.3];
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let encoded = chain.encode(data.clone()).unwrap();
        // The bytes codec serialised one byte per element: zlib holds 6 bytes.
        let zlib = crate::codec::bytes_to_bytes::zlib::ZlibCodec::new(1).unwrap();
        use crate::codec::bytes_to_bytes::BytesToBytesCodec;
        assert_eq!(
            zlib.decode(encoded.clone(), None).unwrap(),
            vec![0, 1, 105, 255, 0, 123]
        );
        assert_eq!(chain.decode(encoded).unwrap(), data);
        assert_eq!(chain.encoded_len(), None);
        let meta = chain.to_metadata();
        assert_eq!(meta[0].name, "numcodecs.fixedscaleoffset");
        assert_eq!(
            serde_json::Value::Object(meta[0].configuration.clone().unwrap()),
            json!({"scale": 10, "offset": 1000, "dtype": "<f8", "astype": "|u1"})
        );
        assert_eq!(meta[1].name, "bytes");
        assert_eq!(meta[1].configuration, None);
        assert_eq!(
            serde_json::Value::Object(meta[2].configuration.clone().unwrap()),
            json!({"level": 1})
        );
        // The metadata builds the same chain again.
        let again = CodecChain::from_metadata(&meta, &repr(&[2, 3], DataType::Float64)).unwrap();
        assert_eq!(again.to_metadata(), meta);
    }

    #[test]
    fn numcodecs_chain_threads_data_types() {
        // delta i4 -> i2 then big-endian bytes: 2 bytes per element reach the checksum.
        let conf = json!([
            {"name": "numcodecs.delta", "configuration": {"dtype": "<i4", "astype": "<i2"}},
            {"name": "bytes", "configuration": {"endian": "big"}},
            {"name": "numcodecs.crc32"}
        ]);
        let chain = CodecChain::from_metadata(&codecs(conf), &repr(&[3], DataType::Int32)).unwrap();
        assert_eq!(chain.encoded_len(), Some(3 * 2 + 4));
        let data: Vec<u8> = [10i32, 13, 7]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let encoded = chain.encode(data.clone()).unwrap();
        assert_eq!(&encoded[4..], &[0, 10, 0, 3, 0xff, 0xfa]);
        assert_eq!(chain.decode(encoded.clone()).unwrap(), data);
        let mut bad = encoded;
        bad[5] ^= 1;
        assert!(matches!(
            chain.decode(bad),
            Err(CodecError::Corrupt { codec, .. }) if codec == "numcodecs.crc32"
        ));
        // blosc takes its typesize from the data type entering it (1 byte after astype u1).
        let conf = json!([
            {"name": "numcodecs.astype", "configuration": {"encode_dtype": "|u1", "decode_dtype": "<u4"}},
            {"name": "bytes"},
            {"name": "numcodecs.blosc", "configuration": {"cname": "zstd", "shuffle": -1}}
        ]);
        let chain =
            CodecChain::from_metadata(&codecs(conf), &repr(&[1000], DataType::UInt32)).unwrap();
        let data: Vec<u8> = (0..1000u32).flat_map(|v| (v % 200).to_ne_bytes()).collect();
        let encoded = chain.encode(data.clone()).unwrap();
        assert_eq!(encoded[3], 1, "blosc typesize");
        assert_eq!(encoded[2] & 0x04, 0x04, "autoshuffle picked bit shuffle");
        assert_eq!(chain.decode(encoded).unwrap(), data);
        // The fill value is encoded along the chain.
        let mut r = repr(&[4], DataType::Int32);
        r.fill_value = crate::data_type::FillValue::new(300i32.to_ne_bytes().to_vec());
        let conf = json!([
            {"name": "numcodecs.astype", "configuration": {"encode_dtype": "<i2", "decode_dtype": "<i4"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ]);
        let chain = CodecChain::from_metadata(&codecs(conf), &r).unwrap();
        assert_eq!(chain.representations[1].data_type, DataType::Int16);
        assert_eq!(
            chain.representations[1].fill_value.as_bytes(),
            &300i16.to_ne_bytes()
        );
        assert_eq!(chain.decoded_representation().data_type, DataType::Int32);
    }

    #[test]
    fn numcodecs_unsupported_and_invalid() {
        let r = repr(&[4], DataType::Float64);
        for name in [
            "numcodecs.vlen-utf8",
            "numcodecs.json2",
            "numcodecs.imagecodecs_jpeg",
            "numcodecs.",
            "numcodecs.jenkins_lookup3",
        ] {
            let conf =
                json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": name}]);
            match CodecChain::from_metadata(&codecs(conf), &r) {
                Err(CodecError::Unsupported(n)) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        // pcodec and zfpy serialise arrays: they replace `bytes`, never follow it.
        for name in ["numcodecs.pcodec", "numcodecs.zfpy"] {
            let conf =
                json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": name}]);
            assert!(matches!(
                CodecChain::from_metadata(&codecs(conf), &r),
                Err(CodecError::InvalidChain(_))
            ));
            let chain = CodecChain::from_metadata(&codecs(json!([{"name": name}])), &r).unwrap();
            let data: Vec<u8> = (0..4).flat_map(|i| (i as f64).to_ne_bytes()).collect();
            let encoded = chain.encode(data.clone()).unwrap();
            assert_eq!(chain.decode(encoded).unwrap(), data, "{name}");
        }
        // An array->array numcodecs filter whose dtype does not match the chain.
        let conf = json!([
            {"name": "numcodecs.delta", "configuration": {"dtype": "<f4"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ]);
        assert!(matches!(
            CodecChain::from_metadata(&codecs(conf), &r),
            Err(CodecError::InvalidConfiguration { .. })
        ));
        // A filter after another one sees the first one's encoded type.
        let conf = json!([
            {"name": "numcodecs.astype", "configuration": {"encode_dtype": "<f4", "decode_dtype": "<f8"}},
            {"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ]);
        assert!(matches!(
            CodecChain::from_metadata(&codecs(conf), &r),
            Err(CodecError::InvalidConfiguration { .. })
        ));
        // Every supported id builds with numcodecs' defaults where it has them.
        for (name, conf) in [
            ("numcodecs.zlib", json!({})),
            ("numcodecs.gzip", json!({})),
            ("numcodecs.bz2", json!({})),
            ("numcodecs.lzma", json!({})),
            ("numcodecs.lz4", json!({})),
            ("numcodecs.zstd", json!({})),
            ("numcodecs.blosc", json!({})),
            ("numcodecs.shuffle", json!({"elementsize": 8})),
            ("numcodecs.adler32", json!({})),
            ("numcodecs.fletcher32", json!({})),
            ("numcodecs.crc32", json!({})),
            ("numcodecs.crc32c", json!({})),
        ] {
            let list = json!([{"name": "bytes", "configuration": {"endian": "little"}},
                              {"name": name, "configuration": conf}]);
            let chain = CodecChain::from_metadata(&codecs(list), &r).unwrap();
            let data: Vec<u8> = (0..4)
                .flat_map(|i| (i as f64 * 1.5).to_ne_bytes())
                .collect();
            let encoded = chain.encode(data.clone()).unwrap();
            assert_eq!(chain.decode(encoded).unwrap(), data, "{name}");
        }
        for (name, conf) in [
            ("numcodecs.delta", json!({"dtype": "<f8"})),
            (
                "numcodecs.fixedscaleoffset",
                json!({"offset": 0, "scale": 2, "dtype": "<f8"}),
            ),
            ("numcodecs.quantize", json!({"digits": 3, "dtype": "<f8"})),
            ("numcodecs.bitround", json!({"keepbits": 52})),
            (
                "numcodecs.astype",
                json!({"encode_dtype": "<f8", "decode_dtype": "<f8"}),
            ),
        ] {
            let list = json!([{"name": name, "configuration": conf},
                              {"name": "bytes", "configuration": {"endian": "little"}}]);
            let chain = CodecChain::from_metadata(&codecs(list), &r).unwrap();
            let data: Vec<u8> = (0..4)
                .flat_map(|i| (i as f64 * 1.5).to_ne_bytes())
                .collect();
            let encoded = chain.encode(data.clone()).unwrap();
            assert_eq!(chain.decode(encoded).unwrap(), data, "{name}");
        }
    }
}
