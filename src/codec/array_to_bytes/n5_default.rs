//! `n5_default` (zarr-extensions `codecs/n5_default`): chunks stored as N5 "default" mode
//! blocks, so that one array is both a Zarr v3 array and an N5 dataset.
//!
//! A block is a header (mode `0x0000` and the number of dimensions as big-endian `u16`,
//! then each dimension of the block as a big-endian `u32`, in the Zarr array's dimension
//! order) followed by the block's elements encoded by the inner `codecs`: a transpose that
//! reverses the dimensions (N5 stores blocks in F order), `bytes` big-endian, and at most
//! one bytes->bytes codec (the N5 compressor).
//!
//! Decoding takes the block's shape from its header: N5 writers either pad edge blocks to
//! the full block size (zarr-python 2, tensorstore) or truncate them (the Java library),
//! so a block no larger than the chunk is decoded with its own shape, then placed at the
//! chunk's origin with the fill value around it. Encoding always writes whole (padded)
//! blocks: a codec does not know where the array ends.

use super::ArrayToBytesCodec;
use crate::codec::array_to_array::transpose::TransposeCodec;
use crate::codec::chain::CodecChain;
use crate::codec::{bytes_to_bytes, try_vec_with_capacity, ChunkRepresentation, CodecError};
use crate::data_type::DataType;
use crate::extension::NamedConfig;
use serde_json::{Map, Value};

const NAME: &str = "n5_default";

/// N5 block modes (the header's first field).
const MODE_DEFAULT: u16 = 0;
const MODE_VARLENGTH: u16 = 1;
const MODE_OBJECT: u16 = 2;

#[derive(Debug)]
pub struct N5DefaultCodec {
    /// The inner chain for a whole chunk (the common case: blocks are padded).
    chain: CodecChain,
    /// The inner codecs as configured, to build the chain of a truncated block.
    codecs: Vec<NamedConfig>,
}

/// Whether N5 has the data type (`u?int(8|16|32|64)`, `float(32|64)`).
fn is_n5_type(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Float32
            | DataType::Float64
    )
}

fn header_len(ndim: usize) -> usize {
    4 + 4 * ndim
}

impl N5DefaultCodec {
    /// `{"codecs": [transpose (reversed order), bytes (big-endian), optional compressor]}`
    /// for chunks of `decoded`.
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        decoded: &ChunkRepresentation,
    ) -> Result<N5DefaultCodec, CodecError> {
        let configuration =
            configuration.ok_or_else(|| CodecError::config(NAME, "missing configuration"))?;
        if let Some(key) = configuration.keys().find(|k| k.as_str() != "codecs") {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key \"{key}\""),
            ));
        }
        let items = match configuration.get("codecs") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(CodecError::config(
                    NAME,
                    format!("\"codecs\" must be a list, got {other}"),
                ))
            }
            None => return Err(CodecError::config(NAME, "missing \"codecs\"")),
        };
        if !(2..=3).contains(&items.len()) {
            return Err(CodecError::config(
                NAME,
                format!(
                    "\"codecs\" must be transpose, bytes and at most one bytes->bytes codec, \
                     got {} codecs",
                    items.len()
                ),
            ));
        }
        let codecs: Vec<NamedConfig> = items
            .iter()
            .map(|c| {
                NamedConfig::parse(c, "n5_default codec")
                    .map_err(|e| CodecError::config(NAME, e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        if !is_n5_type(&decoded.data_type) {
            return Err(CodecError::Unsupported(format!(
                "{NAME} with data type '{}' (N5 has only int8 to int64, uint8 to uint64, \
                 float32 and float64)",
                decoded.data_type.name()
            )));
        }
        let ndim = decoded.shape.len();
        if ndim > usize::from(u16::MAX) {
            return Err(CodecError::config(
                NAME,
                format!("{ndim} dimensions do not fit the N5 header's u16"),
            ));
        }
        // 1. A transpose reversing the dimensions.
        if codecs[0].name != "transpose" {
            return Err(CodecError::config(
                NAME,
                format!(
                    "the first inner codec must be transpose, got '{}'",
                    codecs[0].name
                ),
            ));
        }
        let transpose = TransposeCodec::from_configuration(codecs[0].configuration.as_ref(), ndim)?;
        let reversed: Vec<u64> = (0..ndim as u64).rev().collect();
        if transpose.encoded_shape(&(0..ndim as u64).collect::<Vec<_>>()) != reversed {
            return Err(CodecError::config(
                NAME,
                format!("the transpose must reverse the dimensions, order {reversed:?}"),
            ));
        }
        // 2. bytes, big-endian (the endian may be left out for one-byte types).
        if codecs[1].name != "bytes" {
            return Err(CodecError::config(
                NAME,
                format!(
                    "the second inner codec must be bytes, got '{}'",
                    codecs[1].name
                ),
            ));
        }
        let endian = codecs[1]
            .configuration
            .as_ref()
            .and_then(|c| c.get("endian"));
        match endian {
            Some(Value::String(e)) if e == "big" => {}
            None if decoded.data_type.size() == 1 => {}
            other => {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "the bytes codec must be big-endian (N5 blocks are), got {}",
                        other.map_or("no endian".to_string(), |v| v.to_string())
                    ),
                ))
            }
        }
        // 3. Optionally one compressor.
        if let Some(third) = codecs.get(2) {
            let known = bytes_to_bytes::from_metadata(
                &third.name,
                third.configuration.as_ref(),
                decoded.data_type.size(),
            )?;
            if known.is_none() {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "the third inner codec must be a bytes->bytes codec, got '{}'",
                        third.name
                    ),
                ));
            }
        }
        let chain = CodecChain::from_metadata(&codecs, decoded)?;
        Ok(N5DefaultCodec { chain, codecs })
    }

    /// Parse a block's header: the block's shape and where its data starts.
    fn parse_header(
        &self,
        encoded: &[u8],
        repr: &ChunkRepresentation,
    ) -> Result<Vec<u64>, CodecError> {
        let ndim = repr.shape.len();
        if encoded.len() < 4 {
            return Err(CodecError::corrupt(
                NAME,
                format!("{} bytes is shorter than an N5 block header", encoded.len()),
            ));
        }
        let mode = u16::from_be_bytes([encoded[0], encoded[1]]);
        match mode {
            MODE_DEFAULT => {}
            // The spec's decoding step 2 validates the mode: a varlength or object block is
            // valid N5 but not a block of this codec, so the chunk is not what the
            // metadata says it is.
            MODE_VARLENGTH | MODE_OBJECT => {
                return Err(CodecError::corrupt(
                    NAME,
                    format!(
                        "N5 block mode {mode} ({}): {NAME} decodes only default-mode (0) blocks",
                        if mode == MODE_VARLENGTH {
                            "varlength"
                        } else {
                            "object"
                        }
                    ),
                ))
            }
            _ => {
                return Err(CodecError::corrupt(
                    NAME,
                    format!("unknown N5 block mode {mode}"),
                ))
            }
        }
        let block_ndim = usize::from(u16::from_be_bytes([encoded[2], encoded[3]]));
        if block_ndim != ndim {
            return Err(CodecError::corrupt(
                NAME,
                format!("the N5 block has {block_ndim} dimensions, the array {ndim}"),
            ));
        }
        if encoded.len() < header_len(ndim) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "{} bytes is shorter than the {}-byte header of a {ndim}-dimensional N5 block",
                    encoded.len(),
                    header_len(ndim)
                ),
            ));
        }
        let shape: Vec<u64> = encoded[4..header_len(ndim)]
            .chunks_exact(4)
            .map(|b| u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
            .collect();
        if shape.iter().zip(&repr.shape).any(|(b, c)| b > c) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "the N5 block's shape {shape:?} is larger than the chunk's {:?}",
                    repr.shape
                ),
            ));
        }
        Ok(shape)
    }
}

/// Copy a C-order block of `block` shape into the origin of a C-order chunk of `chunk`
/// shape (every block dimension is at most the chunk's).
fn place_block(block_data: &[u8], block: &[u64], chunk_data: &mut [u8], chunk: &[u64], es: usize) {
    let ndim = block.len();
    if ndim == 0 {
        chunk_data[..es].copy_from_slice(&block_data[..es]);
        return;
    }
    if block.contains(&0) {
        return;
    }
    let row = block[ndim - 1] as usize * es;
    let mut index = vec![0u64; ndim - 1];
    loop {
        let mut src = 0u64;
        let mut dst = 0u64;
        for d in 0..ndim - 1 {
            src = src * block[d] + index[d];
            dst = dst * chunk[d] + index[d];
        }
        let src = (src * block[ndim - 1]) as usize * es;
        let dst = (dst * chunk[ndim - 1]) as usize * es;
        chunk_data[dst..dst + row].copy_from_slice(&block_data[src..src + row]);
        let mut d = ndim - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < block[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

impl ArrayToBytesCodec for N5DefaultCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let codecs: Vec<Value> = self
            .chain
            .to_metadata()
            .iter()
            .map(|c| c.to_json())
            .collect();
        let mut map = Map::new();
        map.insert("codecs".into(), Value::Array(codecs));
        Some(map)
    }

    fn encode(&self, decoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let mut header = try_vec_with_capacity(header_len(repr.shape.len()))?;
        header.extend_from_slice(&MODE_DEFAULT.to_be_bytes());
        let ndim = u16::try_from(repr.shape.len()).map_err(|_| CodecError::EncodeFailed {
            codec: NAME.into(),
            message: "more dimensions than an N5 header holds".into(),
        })?;
        header.extend_from_slice(&ndim.to_be_bytes());
        for &n in &repr.shape {
            let n = u32::try_from(n).map_err(|_| CodecError::EncodeFailed {
                codec: NAME.into(),
                message: format!("chunk dimension {n} does not fit the N5 header's u32"),
            })?;
            header.extend_from_slice(&n.to_be_bytes());
        }
        let body = self.chain.encode(decoded)?;
        header
            .try_reserve_exact(body.len())
            .map_err(|_| CodecError::OutOfMemory(header.len().saturating_add(body.len())))?;
        header.extend_from_slice(&body);
        Ok(header)
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let block = self.parse_header(&encoded, repr)?;
        let body = &encoded[header_len(repr.shape.len())..];
        if block == repr.shape {
            return self.chain.decode(body.to_vec());
        }
        // A truncated edge block: decode it with its own shape, then pad.
        let block_repr = ChunkRepresentation {
            shape: block.clone(),
            ..repr.clone()
        };
        let chain = CodecChain::from_metadata(&self.codecs, &block_repr)
            .map_err(|e| CodecError::corrupt(NAME, format!("N5 block of shape {block:?}: {e}")))?;
        let data = chain.decode(body.to_vec())?;
        let mut chunk = super::fill_chunk(repr)?;
        place_block(
            &data,
            &block,
            &mut chunk,
            &repr.shape,
            repr.data_type.size(),
        );
        Ok(chunk)
    }

    /// Blocks may be truncated, so the size is never fixed.
    fn encoded_len(&self, _repr: &ChunkRepresentation) -> Option<usize> {
        None
    }

    fn max_encoded_len(&self, repr: &ChunkRepresentation) -> Option<usize> {
        self.chain
            .max_encoded_len()
            .and_then(|n| n.checked_add(header_len(repr.shape.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::bytes_to_bytes::test_support::hex;
    use serde_json::json;

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    fn codec(config: Value, r: &ChunkRepresentation) -> Result<N5DefaultCodec, CodecError> {
        N5DefaultCodec::from_configuration(Some(config.as_object().unwrap()), r)
    }

    fn plain_2d() -> Value {
        json!({"codecs": [
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            {"name": "bytes", "configuration": {"endian": "big"}}
        ]})
    }

    #[test]
    fn encodes_an_n5_block_byte_for_byte() {
        // A 2x3 uint16 chunk [[0, 1, 2], [3, 4, 5]]: N5 stores it in F order, big-endian.
        let r = repr(&[2, 3], DataType::UInt16);
        let c = codec(plain_2d(), &r).unwrap();
        let data: Vec<u8> = (0..6u16).flat_map(|v| v.to_ne_bytes()).collect();
        let encoded = c.encode(data.clone(), &r).unwrap();
        assert_eq!(
            encoded,
            hex("0000 0002 00000002 00000003  0000 0003 0001 0004 0002 0005")
        );
        assert_eq!(c.decode(encoded, &r).unwrap(), data);
        assert_eq!(Value::Object(c.configuration().unwrap()), plain_2d());
    }

    #[test]
    fn truncated_edge_blocks_are_padded_with_the_fill_value() {
        // A Java-style edge block of 1x2 inside a 2x3 chunk: elements (0,0)=7, (0,1)=8.
        let r = repr(&[2, 3], DataType::UInt16);
        let c = codec(plain_2d(), &r).unwrap();
        let block = hex("0000 0002 00000001 00000002  0007 0008");
        let decoded = c.decode(block, &r).unwrap();
        let values: Vec<u16> = decoded
            .chunks(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(values, vec![7, 8, 0, 0, 0, 0]);
        // Several rows: a 2x2 block [[1, 2], [3, 4]] (F order 1, 3, 2, 4) in a 3x3 chunk.
        let r = repr(&[3, 3], DataType::UInt16);
        let c = codec(plain_2d(), &r).unwrap();
        let block = hex("0000 0002 00000002 00000002  0001 0003 0002 0004");
        let values: Vec<u16> = c
            .decode(block, &r)
            .unwrap()
            .chunks(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(values, vec![1, 2, 0, 3, 4, 0, 0, 0, 0]);
    }

    #[test]
    fn truncated_blocks_in_three_dimensions() {
        // A 2x2x3 block written by an N5 writer for the edge of a 3x4x3 chunk.
        let config = json!({"codecs": [
            {"name": "transpose", "configuration": {"order": [2, 1, 0]}},
            {"name": "bytes", "configuration": {"endian": "big"}}
        ]});
        let (block, chunk) = ([2u64, 2, 3], [3u64, 4, 3]);
        let block_repr = repr(&block, DataType::Int32);
        let chunk_repr = repr(&chunk, DataType::Int32);
        let values: Vec<i32> = (0..12).map(|v| v * 10 + 1).collect();
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let encoded = codec(config.clone(), &block_repr)
            .unwrap()
            .encode(data, &block_repr)
            .unwrap();
        let decoded: Vec<i32> = codec(config, &chunk_repr)
            .unwrap()
            .decode(encoded, &chunk_repr)
            .unwrap()
            .chunks(4)
            .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        for i in 0..3 {
            for j in 0..4 {
                for k in 0..3 {
                    let want = if i < 2 && j < 2 {
                        values[(i * 2 + j) * 3 + k]
                    } else {
                        0
                    };
                    assert_eq!(decoded[(i * 4 + j) * 3 + k], want, "({i}, {j}, {k})");
                }
            }
        }
    }

    #[test]
    fn registry_example_with_zstd() {
        // codecs/n5_default/examples/zstd_array/zarr.json (a 256x128 float32 array).
        let r = repr(&[256, 128], DataType::Float32);
        let config = json!({"codecs": [
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            {"name": "bytes", "configuration": {"endian": "big"}},
            {"name": "zstd", "configuration": {"level": 0, "checksum": false}}
        ]});
        let c = codec(config.clone(), &r).unwrap();
        assert_eq!(Value::Object(c.configuration().unwrap()), config);
        let data: Vec<u8> = (0..256 * 128)
            .flat_map(|i| (i as f32 / 3.0).to_ne_bytes())
            .collect();
        let encoded = c.encode(data.clone(), &r).unwrap();
        assert_eq!(&encoded[..12], &hex("0000 0002 00000100 00000080")[..]);
        assert_eq!(c.decode(encoded.clone(), &r).unwrap(), data);
        // A damaged compressed body is corrupt.
        let mut bad = encoded;
        let n = bad.len();
        bad.truncate(n - 3);
        assert!(matches!(c.decode(bad, &r), Err(CodecError::Corrupt { .. })));
    }

    #[test]
    fn corrupt_headers() {
        let r = repr(&[2, 3], DataType::UInt16);
        let c = codec(plain_2d(), &r).unwrap();
        let corrupt = |bytes: &str, needle: &str| match c.decode(hex(bytes), &r) {
            Err(CodecError::Corrupt { message, .. }) => {
                assert!(message.contains(needle), "{bytes}: {message}")
            }
            other => panic!("{bytes}: {other:?}"),
        };
        corrupt("", "shorter than an N5 block header");
        corrupt("0000 00", "shorter than an N5 block header");
        corrupt("0000 0002 00000002", "shorter than the 12-byte header");
        corrupt("0000 0003 00000002 00000003 00000001", "3 dimensions");
        corrupt("0007 0002 00000002 00000003", "unknown N5 block mode 7");
        corrupt("0000 0002 00000003 00000003", "larger than the chunk");
        corrupt("0000 0002 00000002 00000003 0000", "bytes");
        corrupt("0000 0002 00000001 00000002 0000", "bytes");
        corrupt("0001 0002 00000002 00000003 00000006", "varlength");
        corrupt("0002 0002 00000002 00000003", "object");
    }

    #[test]
    fn configuration_rules() {
        let r = repr(&[2, 3], DataType::UInt16);
        let bad = |config: Value, needle: &str| match codec(config.clone(), &r) {
            Err(CodecError::InvalidConfiguration { message, .. }) => {
                assert!(message.contains(needle), "{config}: {message}")
            }
            other => panic!("{config}: {other:?}"),
        };
        let t = json!({"name": "transpose", "configuration": {"order": [1, 0]}});
        let b = json!({"name": "bytes", "configuration": {"endian": "big"}});
        bad(json!({}), "missing \"codecs\"");
        bad(
            json!({"codecs": [t, b], "x": 1}),
            "unknown configuration key",
        );
        bad(json!({"codecs": [t]}), "got 1 codecs");
        bad(
            json!({"codecs": [t, b, {"name": "gzip"}, {"name": "crc32c"}]}),
            "got 4",
        );
        bad(
            json!({"codecs": [{"name": "transpose", "configuration": {"order": [0, 1]}}, b]}),
            "reverse",
        );
        bad(json!({"codecs": [b, t]}), "must be transpose");
        bad(
            json!({"codecs": [t, {"name": "bytes", "configuration": {"endian": "little"}}]}),
            "big-endian",
        );
        bad(json!({"codecs": [t, {"name": "bytes"}]}), "big-endian");
        bad(
            json!({"codecs": [t, {"name": "transpose", "configuration": {"order": [1, 0]}}]}),
            "must be bytes",
        );
        bad(
            json!({"codecs": [t, b, {"name": "transpose", "configuration": {"order": [1, 0]}}]}),
            "bytes->bytes",
        );
        // One-byte types may leave the endian out.
        let r8 = repr(&[2, 3], DataType::UInt8);
        assert!(N5DefaultCodec::from_configuration(
            Some(
                json!({"codecs": [t, {"name": "bytes"}]})
                    .as_object()
                    .unwrap()
            ),
            &r8
        )
        .is_ok());
        // Types N5 does not have.
        let rb = repr(&[2, 3], DataType::Bool);
        assert!(matches!(
            N5DefaultCodec::from_configuration(Some(plain_2d().as_object().unwrap()), &rb),
            Err(CodecError::Unsupported(_))
        ));
    }

    #[test]
    fn every_prefix_and_bit_flip_of_a_block_is_an_error_or_a_chunk() {
        // Untrusted bytes: any cut or damage gives an error or a chunk of the right size,
        // never a panic (the header is parsed before any length is trusted).
        let r = repr(&[3, 5], DataType::Int32);
        let config = json!({"codecs": [
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            {"name": "bytes", "configuration": {"endian": "big"}},
            {"name": "gzip", "configuration": {"level": 1}}
        ]});
        let c = codec(config, &r).unwrap();
        let data: Vec<u8> = (0..15i32)
            .flat_map(|v| (v * 1000 - 7).to_ne_bytes())
            .collect();
        let block = c.encode(data, &r).unwrap();
        for cut in 0..block.len() {
            assert!(c.decode(block[..cut].to_vec(), &r).is_err(), "prefix {cut}");
        }
        for i in 0..block.len() {
            for bit in 0..8 {
                let mut damaged = block.clone();
                damaged[i] ^= 1 << bit;
                if let Ok(chunk) = c.decode(damaged, &r) {
                    assert_eq!(chunk.len(), 60);
                }
            }
        }
    }
}
