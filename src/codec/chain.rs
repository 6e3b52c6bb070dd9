//! The codec pipeline of an array: array->array codecs, one array->bytes codec, then
//! bytes->bytes codecs. Encoding runs the list forwards, decoding backwards.

use super::array_to_array::{self, ArrayToArrayCodec};
use super::array_to_bytes::sharding::ShardLayout;
use super::array_to_bytes::{self, chunk_layout, fill_chunk, gather, ArrayToBytesCodec};
use super::bytes_to_bytes::{self, BytesToBytesCodec};
use super::{try_to_vec, ChunkRepresentation, CodecError, DecodedSize, Parallelism};
use crate::layout::InBlock;
use crate::metadata::NamedConfig;
use crate::storage::source::{ByteSource, InMemory};
use crate::sys::shared_out::{OutBlock, OutBuffer};

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

    #[cfg(test)]
    /// The decoded chunk representation this chain was built for.
    pub fn decoded_representation(&self) -> &ChunkRepresentation {
        &self.representations[0]
    }

    /// The shape of the smallest parts of a chunk that decode on their own, when smaller
    /// than the chunk: the inner chunks of a shard (when no array->array codec reorders
    /// the elements before the shard).
    pub fn inner_chunk_shape(&self) -> Option<&[u64]> {
        if self.array_to_array.is_empty() {
            self.array_to_bytes.inner_chunk_shape()
        } else {
            None
        }
    }

    /// For a chain that is `sharding_indexed` alone (no codec before or after it): the
    /// shard's layout and the inner chunks' chain, to build a shard one inner chunk at a
    /// time (`sharding::ShardBuilder`) with the same bytes as [`CodecChain::encode_block`].
    pub fn shard_parts(&self) -> Option<(&ShardLayout, &CodecChain)> {
        if self.array_to_array.is_empty() && self.bytes_to_bytes.is_empty() {
            self.array_to_bytes.shard_parts()
        } else {
            None
        }
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

    /// The most bytes a chunk can be encoded into; `None` when nothing bounds it.
    pub fn max_encoded_len(&self) -> Option<usize> {
        let last = self.representations.last().expect("never empty");
        let mut len = self.array_to_bytes.max_encoded_len(last)?;
        for codec in &self.bytes_to_bytes {
            len = codec.max_encoded_len(len);
        }
        Some(len)
    }

    /// What each bytes->bytes decoder must produce: exactly the size the codecs before it
    /// fix (the array->bytes codec's fixed size, grown by fixed-size codecs such as
    /// checksums), or else at most what they can produce in the worst case.
    fn decoded_sizes(&self) -> Vec<DecodedSize> {
        let last = self.representations.last().expect("never empty");
        let mut exact = self.array_to_bytes.encoded_len(last);
        let mut max = self.array_to_bytes.max_encoded_len(last);
        let mut sizes = Vec::with_capacity(self.bytes_to_bytes.len());
        for codec in &self.bytes_to_bytes {
            sizes.push(match (exact, max) {
                (Some(n), _) => DecodedSize::Exact(n),
                (None, Some(n)) => DecodedSize::AtMost(n),
                (None, None) => DecodedSize::AtMost(usize::MAX),
            });
            exact = exact.and_then(|n| codec.encoded_len(n));
            max = max.map(|n| codec.max_encoded_len(n));
        }
        sizes
    }

    /// Undo the bytes->bytes codecs, giving what the array->bytes codec encoded.
    fn decode_bytes(&self, encoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut data = encoded;
        for (codec, size) in self.bytes_to_bytes.iter().zip(self.decoded_sizes()).rev() {
            data = codec.decode(data, size)?;
        }
        Ok(data)
    }

    /// [`CodecChain::decode_bytes`] of stored bytes the caller keeps: the outermost codec
    /// reads them where they are. There is at least one bytes->bytes codec. (Both exist
    /// because `decode_bytes` hands its owned input to the outermost codec, which a checksum
    /// codec then shortens in place, while here it would have to copy it.)
    fn decode_bytes_from(&self, stored: &[u8]) -> Result<Vec<u8>, CodecError> {
        let mut codecs = self.bytes_to_bytes.iter().zip(self.decoded_sizes()).rev();
        let Some((outermost, size)) = codecs.next() else {
            return Err(CodecError::Internal {
                codec: self.array_to_bytes.name().to_string(),
                message: "decode_bytes_from without a bytes->bytes codec".into(),
            });
        };
        let mut data = outermost.decode_slice(stored, size)?;
        for (codec, size) in codecs {
            data = codec.decode(data, size)?;
        }
        Ok(data)
    }

    /// Encode a decoded chunk (C order, host byte order, exactly the chunk's size).
    pub fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut data = decoded;
        for (codec, repr) in self.array_to_array.iter().zip(&self.representations) {
            data = codec.encode(data, repr)?;
        }
        let last = self.representations.last().expect("never empty");
        data = self.array_to_bytes.encode(data, last)?;
        self.encode_bytes(data)
    }

    /// Apply the bytes->bytes codecs to what the array->bytes codec encoded.
    fn encode_bytes(&self, mut data: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        for codec in &self.bytes_to_bytes {
            data = codec.encode(data)?;
        }
        Ok(data)
    }

    /// Decode a stored chunk into the decoded representation. Every stage checks sizes, so
    /// a truncated or corrupt chunk is an error, never a wrongly shaped result.
    pub fn decode(&self, encoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let last = self.representations.last().expect("never empty");
        let mut data = self.decode_bytes(encoded)?;
        data = self.array_to_bytes.decode(data, last)?;
        for (codec, repr) in self.array_to_array.iter().zip(&self.representations).rev() {
            data = codec.decode(data, repr)?;
        }
        Ok(data)
    }

    /// Decode a stored chunk straight into `out`, which is exactly the decoded size.
    ///
    /// When the array->bytes codec decodes in place (`bytes`: at most a byte swap) and no
    /// array->array codec follows, the innermost bytes->bytes codec decompresses into `out`
    /// and the array->bytes codec finishes there: no decoded buffer is allocated or copied.
    /// Other chains decode, then copy. On error, `out` may hold partial output.
    pub fn decode_into(&self, encoded: &[u8], out: &mut [u8]) -> Result<(), CodecError> {
        let last = self.representations.last().expect("never empty");
        if Some(out.len()) != self.representations[0].size_bytes() {
            return Err(CodecError::Internal {
                codec: self.array_to_bytes.name().to_string(),
                message: format!("decode_into a buffer of {} bytes", out.len()),
            });
        }
        if self.array_to_array.is_empty() && !self.bytes_to_bytes.is_empty() {
            // Decoding runs from the outermost codec inwards; the innermost one writes the
            // array->bytes codec's encoding into `out`. Outer codecs (a checksum around a
            // compressor) decode into buffers of their own.
            let sizes = self.decoded_sizes();
            let (innermost, outer) = self.bytes_to_bytes.split_first().expect("checked above");
            let mut outer_decoded: Option<Vec<u8>> = None;
            for (codec, size) in outer.iter().zip(&sizes[1..]).rev() {
                outer_decoded = Some(match outer_decoded {
                    Some(data) => codec.decode(data, *size)?,
                    None => codec.decode_slice(encoded, *size)?,
                });
            }
            let data = outer_decoded.as_deref().unwrap_or(encoded);
            if sizes[0] == DecodedSize::Exact(out.len()) {
                innermost.decode_into(data, out)?;
                if let Some(buffer) = outer_decoded {
                    crate::scratch::give_back(buffer);
                }
                if self.array_to_bytes.decode_in_place(out, last)? {
                    return Ok(());
                }
                // Not an in-place codec after all: decode what was decompressed.
                let decoded = self.array_to_bytes.decode(out.to_vec(), last)?;
                out.copy_from_slice(&decoded);
                return Ok(());
            }
            let data = innermost.decode_slice(data, sizes[0])?;
            out.copy_from_slice(&self.array_to_bytes.decode(data, last)?);
            return Ok(());
        }
        if self.array_to_array.is_empty() {
            // The array->bytes codec alone decodes straight into `out` (a shard: each inner
            // chunk into its place).
            let layout = chunk_layout(last)?;
            let mut buffer = OutBuffer::new(out, layout).map_err(|e| CodecError::Internal {
                codec: self.array_to_bytes.name().to_string(),
                message: e.to_string(),
            })?;
            let source = InMemory {
                name: "chunk",
                bytes: encoded,
            };
            let zero = vec![0; last.shape.len()];
            self.array_to_bytes.decode_region(
                &source,
                last,
                &zero,
                &mut buffer.whole(),
                Parallelism::SERIAL,
            )?;
            return Ok(());
        }
        out.copy_from_slice(&self.decode(try_to_vec(encoded)?)?);
        Ok(())
    }

    /// Decode the block of the chunk stored in `source` that starts at `offset` and has
    /// `out`'s extent into `out`; `Ok(false)` when the chunk is not stored (`out` untouched).
    ///
    /// A chain of only an array->bytes codec decodes the block itself (reading only what
    /// the block needs); with bytes->bytes codecs the stored chunk is read whole and
    /// decompressed, then the array->bytes codec decodes the block from memory (a shard
    /// behind a compressor still decodes only the inner chunks needed); with array->array
    /// codecs the whole chunk is decoded and the block copied. A whole chunk whose place in
    /// `out` is one run of bytes is decoded straight into it. On error, `out` may be partly
    /// written.
    pub fn decode_region(
        &self,
        source: &dyn ByteSource,
        offset: &[u64],
        out: &mut OutBlock,
        parallelism: Parallelism,
    ) -> Result<bool, CodecError> {
        let first = &self.representations[0];
        let last = self.representations.last().expect("never empty");
        if self.array_to_array.is_empty() && self.bytes_to_bytes.is_empty() {
            return self
                .array_to_bytes
                .decode_region(source, last, offset, out, parallelism);
        }
        let whole = offset.iter().all(|&o| o == 0) && out.extent() == first.shape.as_slice();
        if self.array_to_array.is_empty() {
            // Stored bytes already in memory (an inner chunk of a shard batch) are
            // decompressed from where they are.
            if let Some(stored) = source.in_memory() {
                if whole {
                    if let Some(dst) = out.contiguous() {
                        self.decode_into(stored, dst)?;
                        return Ok(true);
                    }
                }
                let bytes = self.decode_bytes_from(stored)?;
                return self.decode_region_of(source.name(), bytes, offset, out, parallelism);
            }
        }
        let Some(encoded) = source.read_all()? else {
            return Ok(false);
        };
        if whole {
            if let Some(dst) = out.contiguous() {
                self.decode_into(&encoded, dst)?;
                crate::scratch::give_back(encoded);
                return Ok(true);
            }
        }
        if self.array_to_array.is_empty() {
            let bytes = self.decode_bytes(encoded)?;
            return self.decode_region_of(source.name(), bytes, offset, out, parallelism);
        }
        let decoded = self.decode(encoded)?;
        out.copy_from(&decoded, &chunk_layout(first)?, offset);
        Ok(true)
    }

    /// The array->bytes codec's [`ArrayToBytesCodec::decode_region`] of `bytes`, which the
    /// bytes->bytes codecs decoded; the buffer is then kept for the next chunk.
    fn decode_region_of(
        &self,
        name: &str,
        bytes: Vec<u8>,
        offset: &[u64],
        out: &mut OutBlock,
        parallelism: Parallelism,
    ) -> Result<bool, CodecError> {
        let last = self.representations.last().expect("never empty");
        let memory = InMemory {
            name,
            bytes: &bytes,
        };
        let stored = self
            .array_to_bytes
            .decode_region(&memory, last, offset, out, parallelism);
        crate::scratch::give_back(bytes);
        stored
    }

    /// Whether [`CodecChain::decode_region`] of this block reads less than the whole
    /// stored chunk.
    pub fn reads_part(&self, offset: &[u64], extent: &[u64]) -> bool {
        self.array_to_array.is_empty()
            && self.bytes_to_bytes.is_empty()
            && self
                .array_to_bytes
                .reads_part(&self.representations[0], offset, extent)
    }

    /// Encode the chunk whose contents are `input` (of the chunk's shape); `Ok(None)` when
    /// every element is the fill value (such a chunk is not stored).
    pub fn encode_block(
        &self,
        input: &InBlock,
        parallelism: Parallelism,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let first = &self.representations[0];
        if self.array_to_array.is_empty() {
            let last = self.representations.last().expect("never empty");
            return match self.array_to_bytes.encode_block(input, last, parallelism)? {
                Some(bytes) => self.encode_bytes(bytes).map(Some),
                None => Ok(None),
            };
        }
        let decoded = gather(input)?;
        if first.fill_value.equals_all(&decoded) {
            return Ok(None);
        }
        self.encode(decoded).map(Some)
    }

    /// Encode the chunk stored as `existing` (`None`: not stored) with `input` written at
    /// `offset`; `Ok(None)` when the result is all fill value. A shard re-encodes only the
    /// inner chunks the block touches.
    pub fn encode_update(
        &self,
        existing: Option<Vec<u8>>,
        offset: &[u64],
        input: &InBlock,
        parallelism: Parallelism,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let first = &self.representations[0];
        if self.array_to_array.is_empty() {
            let last = self.representations.last().expect("never empty");
            let existing = existing.map(|e| self.decode_bytes(e)).transpose()?;
            return match self.array_to_bytes.encode_update(
                existing,
                last,
                offset,
                input,
                parallelism,
            )? {
                Some(bytes) => self.encode_bytes(bytes).map(Some),
                None => Ok(None),
            };
        }
        let mut chunk = match existing {
            Some(encoded) => self.decode(encoded)?,
            None => fill_chunk(first)?,
        };
        input.copy_to(&mut chunk, &chunk_layout(first)?, offset);
        if first.fill_value.equals_all(&chunk) {
            return Ok(None);
        }
        self.encode(chunk).map(Some)
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
            chain.decode_into(&encoded, &mut out).unwrap();
            assert_eq!(out, data, "{chain_json}");
            // Truncated: an error, never a short or garbage success.
            let truncated = encoded[..encoded.len() - 1].to_vec();
            assert!(
                matches!(
                    chain.decode_into(&truncated, &mut out),
                    Err(CodecError::Corrupt { .. })
                ),
                "{chain_json}"
            );
        }
    }

    #[test]
    fn compressors_after_compressors_are_bounded_by_what_the_inner_ones_can_produce() {
        // [bytes, zstd, zstd] for 16 bytes: the outer zstd may only decode to what a zstd
        // encoding of 16 bytes can be. A chunk whose outer frame decodes to 8 MiB (a valid
        // inner frame followed by a skippable frame, which zstd decoders would skip) is a
        // decompression bomb, refused without being decoded to its end.
        let chain = CodecChain::from_metadata(
            &codecs(json!([
                {"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "zstd", "configuration": {"level": 1, "checksum": false}},
                {"name": "zstd", "configuration": {"level": 1, "checksum": false}}
            ])),
            &repr(&[4], DataType::Int32),
        )
        .unwrap();
        let data: Vec<u8> = (0..4i32).flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(
            chain.decode(chain.encode(data.clone()).unwrap()).unwrap(),
            data
        );
        let mut inner = ::zstd::bulk::compress(&data, 1).unwrap();
        let skipped = 8usize << 20;
        inner.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
        inner.extend_from_slice(&(skipped as u32).to_le_bytes());
        inner.resize(inner.len() + skipped, 0);
        let bomb = ::zstd::bulk::compress(&inner, 1).unwrap();
        assert!(bomb.len() < 4096);
        match chain.decode(bomb) {
            Err(CodecError::Corrupt { message, .. }) => {
                assert!(message.contains("can produce"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        // The same bound holds behind sharding (whose encoded size is bounded too).
        assert!(chain.max_encoded_len().unwrap() < 1 << 18);
    }

    #[test]
    fn a_compressor_after_sharding_is_bounded_by_what_a_shard_can_be() {
        // [sharding_indexed, zstd] for 4 int32: the zstd frame may only decode to what a
        // shard of two 2-element inner chunks can be (its index and both inner chunks). A
        // frame holding a valid shard followed by 8 MiB of zeros is a decompression bomb,
        // refused without being decoded to its end.
        let chain = CodecChain::from_metadata(
            &codecs(json!([
                {"name": "sharding_indexed", "configuration": {
                    "chunk_shape": [2],
                    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}},
                {"name": "zstd", "configuration": {"level": 1, "checksum": false}}
            ])),
            &repr(&[4], DataType::Int32),
        )
        .unwrap();
        let data: Vec<u8> = (0..4i32).flat_map(|v| v.to_ne_bytes()).collect();
        let encoded = chain.encode(data.clone()).unwrap();
        assert_eq!(chain.decode(encoded.clone()).unwrap(), data);
        let bound = chain.max_encoded_len().unwrap();
        assert!(bound < 1 << 20, "{bound}");
        let mut shard = ::zstd::bulk::decompress(&encoded, 1 << 20).unwrap();
        shard.resize(shard.len() + (8 << 20), 0);
        let bomb = ::zstd::bulk::compress(&shard, 1).unwrap();
        assert!(bomb.len() < 4096);
        match chain.decode(bomb) {
            Err(CodecError::Corrupt { message, .. }) => {
                assert!(message.contains("can produce"), "{message}")
            }
            other => panic!("{other:?}"),
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
            zlib.decode(encoded.clone(), DecodedSize::AtMost(usize::MAX))
                .unwrap(),
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
            "numcodecs.zarr3_made_up",
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
