//! The byte format of the `vlen-utf8` and `vlen-bytes` codecs (and numcodecs' `vlen-utf8` /
//! `vlen-bytes` of Zarr v2 `|O` arrays), as pure functions over Arrow-style buffers: the
//! elements of a chunk in C order are `data[offsets[i]..offsets[i + 1]]`.
//!
//! Encoded form: a `u32` little-endian element count, then for each element its length as
//! `u32` little-endian and its bytes.
//!
//! [`VlenChain`] is the codec chain of a variable-length array: one of these codecs (or
//! numcodecs' `json2`, read only) and the bytes->bytes codecs after it. [`VlenCodecs`] is
//! what an array's `codecs` say: such a chain for each chunk, or `sharding_indexed` with
//! such a chain for the inner chunks of each shard ([`VlenShards`]; zarr-python 3 writes
//! these when given `shards=`). The array layer reads and writes such arrays element by
//! element (`Array::read_vlen`).

use super::array_to_bytes::sharding::{ShardConfig, ShardLayout};
use super::bytes_to_bytes::{self, BytesToBytesCodec};
use super::{CodecError, DecodedSize};
use crate::data_type::DataType;
use crate::metadata::NamedConfig;
use crate::selection::checked_product;
use byteorder::{LittleEndian, ReadBytesExt};
use serde_json::Value;
use std::io::Cursor;

/// The most bytes one chunk of variable-length elements may decode to. Nothing in the
/// format bounds it (elements are as long as they are), so a compressor's output is capped
/// here, against decompression bombs; a chunk past it is `Corrupt`.
pub const MAX_DECODED_CHUNK: usize = 2 << 30;

/// Which codec: UTF-8 text (validated both ways) or arbitrary bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VlenKind {
    Utf8,
    Bytes,
}

impl VlenKind {
    fn name(self) -> &'static str {
        match self {
            VlenKind::Utf8 => "vlen-utf8",
            VlenKind::Bytes => "vlen-bytes",
        }
    }
}

/// Decoded elements: element `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VlenElements {
    pub offsets: Vec<u64>,
    pub data: Vec<u8>,
}

impl VlenElements {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of element `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let start = usize::try_from(*self.offsets.get(i)?).ok()?;
        let end = usize::try_from(*self.offsets.get(i + 1)?).ok()?;
        self.data.get(start..end)
    }

    /// Room for `count` elements holding `bytes` bytes in all, or `OutOfMemory`.
    pub fn with_capacity(count: usize, bytes: usize) -> Result<VlenElements, CodecError> {
        let mut offsets = Vec::new();
        offsets
            .try_reserve_exact(count.saturating_add(1))
            .map_err(|_| CodecError::OutOfMemory(count.saturating_mul(8)))?;
        offsets.push(0);
        let data = super::try_vec_with_capacity(bytes)?;
        Ok(VlenElements { offsets, data })
    }

    /// Append one element.
    pub fn push(&mut self, element: &[u8]) -> Result<(), CodecError> {
        self.data
            .try_reserve(element.len())
            .map_err(|_| CodecError::OutOfMemory(self.data.len().saturating_add(element.len())))?;
        self.offsets
            .try_reserve(1)
            .map_err(|_| CodecError::OutOfMemory(self.offsets.len().saturating_mul(8)))?;
        self.data.extend_from_slice(element);
        self.offsets.push(self.data.len() as u64);
        Ok(())
    }
}

/// How a chunk's elements are serialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `vlen-utf8` / `vlen-bytes` (see the module comment).
    Lengths(VlenKind),
    /// numcodecs' `json2` (Zarr v2 `|O`): a JSON list of the elements, then the dtype
    /// `"|O"` and the chunk's shape. Read only: strings are their text; any other JSON
    /// value is its compact JSON text.
    Json2,
}

/// The codec chain of a variable-length array.
#[derive(Debug)]
pub struct VlenChain {
    format: Format,
    /// The array->bytes codec as written in the metadata (kept for rewriting it).
    codec: NamedConfig,
    bytes_to_bytes: Vec<Box<dyn BytesToBytesCodec>>,
}

impl VlenChain {
    /// Build the chain from a `codecs` list for elements of `data_type` (`string` or
    /// `bytes`): `vlen-utf8` (`string`), `vlen-bytes` (`bytes`) or numcodecs' `json2`
    /// (`string`, read only), under their v3 names or as `numcodecs.<id>`, then
    /// bytes->bytes codecs.
    pub fn from_metadata(
        codecs: &[NamedConfig],
        data_type: &DataType,
    ) -> Result<VlenChain, CodecError> {
        let (first, rest) = codecs
            .split_first()
            .ok_or_else(|| CodecError::InvalidChain("no codecs".into()))?;
        let name = first.name.strip_prefix("numcodecs.").unwrap_or(&first.name);
        let format = match (name, data_type) {
            ("vlen-utf8", DataType::String) => Format::Lengths(VlenKind::Utf8),
            ("vlen-bytes", DataType::Bytes) => Format::Lengths(VlenKind::Bytes),
            ("json2", DataType::String) => Format::Json2,
            ("vlen-utf8" | "vlen-bytes" | "json2", _) => {
                return Err(CodecError::InvalidChain(format!(
                    "codec '{}' does not serialise data type {}",
                    first.name,
                    data_type.name()
                )))
            }
            _ => {
                return Err(CodecError::Unsupported(format!(
                    "{} (a variable-length {} array needs vlen-utf8, vlen-bytes or json2 first)",
                    first.name,
                    data_type.name()
                )))
            }
        };
        if let (Format::Lengths(_), Some(config)) = (format, &first.configuration) {
            if let Some(key) = config.keys().next() {
                return Err(CodecError::config(name, format!("unknown key \"{key}\"")));
            }
        }
        let mut bytes_to_bytes = Vec::new();
        for codec in rest {
            match bytes_to_bytes::from_metadata(&codec.name, codec.configuration.as_ref(), 1)? {
                Some(c) => bytes_to_bytes.push(c),
                None => {
                    return Err(CodecError::InvalidChain(format!(
                        "codec '{}' after {}: only bytes->bytes codecs may follow it",
                        codec.name, first.name
                    )))
                }
            }
        }
        Ok(VlenChain {
            format,
            codec: first.clone(),
            bytes_to_bytes,
        })
    }

    /// The codec list to store (the array->bytes codec as given, the others canonical).
    pub fn to_metadata(&self) -> Vec<NamedConfig> {
        let mut out = vec![self.codec.clone()];
        for c in &self.bytes_to_bytes {
            out.push(NamedConfig::new(c.name(), c.configuration()));
        }
        out
    }

    /// Decode a stored chunk of `count` elements.
    pub fn decode(&self, encoded: Vec<u8>, count: u64) -> Result<VlenElements, CodecError> {
        let mut data = encoded;
        for codec in self.bytes_to_bytes.iter().rev() {
            data = codec.decode(data, DecodedSize::AtMost(MAX_DECODED_CHUNK))?;
        }
        match self.format {
            Format::Lengths(kind) => decode(kind, &data, count),
            Format::Json2 => decode_json2(&data, count),
        }
    }

    /// Encode a chunk's elements (`offsets`, `data` as [`encode`] takes them).
    pub fn encode(&self, offsets: &[u64], data: &[u8]) -> Result<Vec<u8>, CodecError> {
        let mut out = match self.format {
            Format::Lengths(kind) => encode(kind, offsets, data)?,
            Format::Json2 => {
                return Err(CodecError::EncodeFailed {
                    codec: "json2".into(),
                    message: "arrays of the legacy json2 codec are read only here; \
                              write strings with vlen-utf8"
                        .into(),
                })
            }
        };
        for codec in &self.bytes_to_bytes {
            out = codec.encode(out)?;
        }
        Ok(out)
    }

    /// Whether chunks can be written (the legacy `json2` is read only here), as an error
    /// that names the codec to write with instead.
    pub fn check_writable(&self) -> Result<(), CodecError> {
        match self.format {
            Format::Lengths(_) => Ok(()),
            Format::Json2 => Err(CodecError::Unsupported(
                "writing the legacy json2 codec (arrays of it are read only here; \
                 write strings with vlen-utf8)"
                    .into(),
            )),
        }
    }

    /// Whether text elements must be valid UTF-8.
    pub fn is_text(&self) -> bool {
        !matches!(self.format, Format::Lengths(VlenKind::Bytes))
    }
}

/// The codecs of a variable-length array.
#[derive(Debug)]
pub enum VlenCodecs {
    /// Each chunk is encoded with the chain.
    Chunks(VlenChain),
    /// Each chunk is a shard of inner chunks.
    Shards(Box<VlenShards>),
}

/// `sharding_indexed` over variable-length elements: each inner chunk is encoded with
/// [`VlenShards::inner`], the shard and its index laid out as for fixed-size elements
/// ([`ShardLayout`], shared with the sharding codec).
#[derive(Debug)]
pub struct VlenShards {
    config: ShardConfig,
    /// The layout of shards of `layout_shape`, the grid's largest chunk shape (the only
    /// one of a regular grid); shards of other shapes get theirs when used.
    layout: ShardLayout,
    layout_shape: Vec<u64>,
    /// The chain of every inner chunk.
    pub inner: VlenChain,
    /// Elements per inner chunk.
    inner_count: u64,
}

const SHARDING: &str = "sharding_indexed";

impl VlenCodecs {
    /// Build the codecs from a `codecs` list for elements of `data_type` (see
    /// [`VlenChain::from_metadata`]), or from a lone `sharding_indexed` whose inner codecs
    /// are such a list, for shards of `shard_shape` (the grid's largest chunk shape).
    pub fn from_metadata(
        codecs: &[NamedConfig],
        data_type: &DataType,
        shard_shape: &[u64],
    ) -> Result<VlenCodecs, CodecError> {
        let Some(position) = codecs.iter().position(|c| c.name == SHARDING) else {
            return VlenChain::from_metadata(codecs, data_type).map(VlenCodecs::Chunks);
        };
        if codecs.len() != 1 {
            let others: Vec<&str> = codecs
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != position)
                .map(|(_, c)| c.name.as_str())
                .collect();
            return Err(CodecError::Unsupported(format!(
                "{SHARDING} with other codecs beside it ({}) in a variable-length {} array: \
                 put them inside its \"codecs\"",
                others.join(", "),
                data_type.name()
            )));
        }
        let config = ShardConfig::parse(codecs[0].configuration.as_ref())?;
        if config.codecs.iter().any(|c| c.name == SHARDING) {
            return Err(CodecError::Unsupported(format!(
                "nested {SHARDING} in a variable-length {} array (shards of variable-length \
                 elements hold vlen-utf8 or vlen-bytes inner chunks, not shards)",
                data_type.name()
            )));
        }
        let inner = VlenChain::from_metadata(&config.codecs, data_type)?;
        let layout = ShardLayout::new(&config, shard_shape)?;
        let inner_count = checked_product(&config.inner_chunk_shape)
            .filter(|&n| n <= u64::from(u32::MAX))
            .ok_or_else(|| {
                CodecError::config(
                    SHARDING,
                    format!(
                        "inner chunk_shape {:?} holds more elements than {} can count (2^32 - 1)",
                        config.inner_chunk_shape, inner.codec.name
                    ),
                )
            })?;
        Ok(VlenCodecs::Shards(Box::new(VlenShards {
            config,
            layout,
            layout_shape: shard_shape.to_vec(),
            inner,
            inner_count,
        })))
    }

    /// The codec list to store.
    pub fn to_metadata(&self) -> Vec<NamedConfig> {
        match self {
            VlenCodecs::Chunks(chain) => chain.to_metadata(),
            VlenCodecs::Shards(shards) => {
                let configuration = shards.layout.configuration(&shards.inner.to_metadata());
                vec![NamedConfig::new(SHARDING, Some(configuration))]
            }
        }
    }

    /// The chain that encodes each chunk, or each inner chunk of a shard.
    pub fn chain(&self) -> &VlenChain {
        match self {
            VlenCodecs::Chunks(chain) => chain,
            VlenCodecs::Shards(shards) => &shards.inner,
        }
    }

    /// The inner chunk shape of shards.
    pub fn inner_chunk_shape(&self) -> Option<&[u64]> {
        match self {
            VlenCodecs::Chunks(_) => None,
            VlenCodecs::Shards(shards) => Some(&shards.config.inner_chunk_shape),
        }
    }
}

impl VlenShards {
    /// Run `f` with the layout of shards of `shard_shape`.
    pub(crate) fn with_layout<R>(
        &self,
        shard_shape: &[u64],
        f: impl FnOnce(&ShardLayout) -> Result<R, CodecError>,
    ) -> Result<R, CodecError> {
        if shard_shape == self.layout_shape {
            f(&self.layout)
        } else {
            f(&ShardLayout::new(&self.config, shard_shape)?)
        }
    }

    /// The number of elements of an inner chunk (at most 2^32 - 1).
    pub fn inner_count(&self) -> u64 {
        self.inner_count
    }
}

/// Decode numcodecs' `json2`: `[e0, e1, ..., "|O", [shape...]]` with `count` elements.
fn decode_json2(encoded: &[u8], count: u64) -> Result<VlenElements, CodecError> {
    let corrupt = |message: String| CodecError::corrupt("json2", message);
    let value: Value =
        serde_json::from_slice(encoded).map_err(|e| corrupt(format!("not JSON: {e}")))?;
    let Value::Array(mut items) = value else {
        return Err(corrupt("not a JSON list".into()));
    };
    // The last two items are the dtype and the shape.
    let shape = items.pop();
    let dtype = items.pop();
    if !matches!(dtype, Some(Value::String(ref d)) if d == "|O")
        || !matches!(shape, Some(Value::Array(_)))
    {
        return Err(corrupt(
            "the list does not end with the dtype \"|O\" and the shape".into(),
        ));
    }
    // numpy's `tolist()` nests a chunk of n dimensions n - 1 lists deep.
    let depth = match &shape {
        Some(Value::Array(dims)) => dims.len().saturating_sub(1),
        _ => 0,
    };
    let mut flat = Vec::new();
    flatten(items, depth, &mut flat).map_err(|()| {
        corrupt(format!(
            "the elements are not nested {depth} lists deep as the chunk's shape says"
        ))
    })?;
    if flat.len() as u64 != count {
        return Err(corrupt(format!(
            "the chunk holds {} elements but {count} are expected",
            flat.len()
        )));
    }
    let mut elements = VlenElements::with_capacity(flat.len(), encoded.len())?;
    for item in flat {
        match item {
            Value::String(text) => elements.push(text.as_bytes())?,
            other => elements.push(other.to_string().as_bytes())?,
        }
    }
    Ok(elements)
}

/// Append the items of `items`, `depth` levels of lists deep, to `out`.
fn flatten(items: Vec<Value>, depth: usize, out: &mut Vec<Value>) -> Result<(), ()> {
    if depth == 0 {
        out.extend(items);
        return Ok(());
    }
    for item in items {
        match item {
            Value::Array(inner) => flatten(inner, depth - 1, out)?,
            _ => return Err(()),
        }
    }
    Ok(())
}

/// Encode the elements given by `offsets` (n + 1 non-decreasing values, the last at most
/// `data.len()`) and `data`. Fails on malformed offsets, on more than 2^32 - 1 elements or
/// an element longer than 2^32 - 1 bytes, and (utf8) on text that is not UTF-8.
pub fn encode(kind: VlenKind, offsets: &[u64], data: &[u8]) -> Result<Vec<u8>, CodecError> {
    let invalid = |message: String| CodecError::EncodeFailed {
        codec: kind.name().into(),
        message,
    };
    let count = offsets.len().saturating_sub(1);
    let count32 = u32::try_from(count)
        .map_err(|_| invalid(format!("{count} elements do not fit a u32 count")))?;
    let mut total = 4usize;
    for (i, pair) in offsets.windows(2).enumerate() {
        let (start, end) = (pair[0], pair[1]);
        if end < start || end > data.len() as u64 {
            return Err(invalid(format!(
                "offsets {start}..{end} of element {i} are not within the {} data bytes",
                data.len()
            )));
        }
        let len = u32::try_from(end - start)
            .map_err(|_| invalid(format!("element {i} is longer than 2^32 - 1 bytes")))?;
        if kind == VlenKind::Utf8
            && std::str::from_utf8(&data[start as usize..end as usize]).is_err()
        {
            return Err(invalid(format!("element {i} is not valid UTF-8")));
        }
        total = total
            .checked_add(4 + len as usize)
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
    }
    let mut out = super::try_vec_with_capacity(total)?;
    out.extend_from_slice(&count32.to_le_bytes());
    for pair in offsets.windows(2) {
        let bytes = &data[pair[0] as usize..pair[1] as usize];
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// Decode a chunk that must hold exactly `expected_count` elements. Every length is checked
/// against the bytes that remain, bytes after the last element are an error, and (utf8)
/// every element must be UTF-8. Allocations are bounded by the input's size.
pub fn decode(
    kind: VlenKind,
    encoded: &[u8],
    expected_count: u64,
) -> Result<VlenElements, CodecError> {
    let corrupt = |message: String| CodecError::corrupt(kind.name(), message);
    // A cursor over the chunk: each u32le read fails, rather than reads past the end, when
    // the input is cut short.
    let mut input = Cursor::new(encoded);
    let count = input.read_u32::<LittleEndian>().map_err(|_| {
        corrupt(format!(
            "{} bytes cannot hold the element count",
            encoded.len()
        ))
    })? as u64;
    if count != expected_count {
        return Err(corrupt(format!(
            "the chunk holds {count} elements but {expected_count} are expected"
        )));
    }
    // Each element takes at least its 4-byte length: a count the input cannot hold is
    // corrupt before anything is allocated for it.
    let rest = &encoded[4..];
    if count > (rest.len() / 4) as u64 {
        return Err(corrupt(format!(
            "{count} elements cannot fit in {} bytes",
            rest.len()
        )));
    }
    let mut offsets = Vec::new();
    offsets
        .try_reserve_exact(count as usize + 1)
        .map_err(|_| CodecError::OutOfMemory((count as usize + 1) * 8))?;
    let mut data = super::try_vec_with_capacity(rest.len() - 4 * count as usize)?;
    offsets.push(0u64);
    for i in 0..count {
        let len = input
            .read_u32::<LittleEndian>()
            .map_err(|_| corrupt(format!("element {i}: its length is cut off")))?
            as usize;
        let at = input.position() as usize;
        let bytes = encoded.get(at..at.saturating_add(len)).ok_or_else(|| {
            corrupt(format!(
                "element {i} claims {len} bytes but {} remain",
                encoded.len() - at
            ))
        })?;
        if kind == VlenKind::Utf8 && std::str::from_utf8(bytes).is_err() {
            return Err(corrupt(format!("element {i} is not valid UTF-8")));
        }
        input.set_position((at + len) as u64);
        data.extend_from_slice(bytes);
        offsets.push(data.len() as u64);
    }
    let at = input.position() as usize;
    if at != encoded.len() {
        return Err(corrupt(format!(
            "{} bytes follow the last element",
            encoded.len() - at
        )));
    }
    Ok(VlenElements { offsets, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_exact_bytes() {
        let data = "hello\u{00e9}t\u{1f600}".as_bytes();
        // "hello", "" and "\u{00e9}t\u{1f600}".
        let offsets_utf8 = [0u64, 5, 5, data.len() as u64];
        let encoded = encode(VlenKind::Utf8, &offsets_utf8, data).unwrap();
        assert_eq!(&encoded[..4], &3u32.to_le_bytes());
        assert_eq!(&encoded[4..8], &5u32.to_le_bytes());
        assert_eq!(&encoded[8..13], b"hello");
        assert_eq!(&encoded[13..17], &0u32.to_le_bytes());
        let decoded = decode(VlenKind::Utf8, &encoded, 3).unwrap();
        assert_eq!(decoded.offsets, offsets_utf8);
        assert_eq!(decoded.data, data);
        assert_eq!(decoded.get(2).unwrap(), "\u{00e9}t\u{1f600}".as_bytes());
        // Bytes need not be UTF-8; text must be.
        let raw = [0xffu8, 0x00, 0xfe];
        let encoded = encode(VlenKind::Bytes, &[0, 3], &raw).unwrap();
        assert_eq!(decode(VlenKind::Bytes, &encoded, 1).unwrap().data, raw);
        assert!(encode(VlenKind::Utf8, &[0, 3], &raw).is_err());
        assert!(matches!(
            decode(VlenKind::Utf8, &encoded, 1),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(
            encode(VlenKind::Bytes, &offsets_utf8, &data[..4]).is_err(),
            "offsets past the data"
        );
        assert!(
            encode(VlenKind::Bytes, &[3, 1], data).is_err(),
            "decreasing offsets"
        );
        // Empty chunk.
        let empty = encode(VlenKind::Bytes, &[0], &[]).unwrap();
        assert_eq!(empty, 0u32.to_le_bytes());
        assert!(decode(VlenKind::Bytes, &empty, 0).unwrap().is_empty());
    }

    #[test]
    fn hostile_input_is_corrupt_never_a_panic_or_a_huge_allocation() {
        let good = encode(VlenKind::Bytes, &[0, 2, 5], b"abcde").unwrap();
        for (what, bytes, count) in [
            ("no header", vec![1u8, 0], 0u64),
            ("wrong count", good.clone(), 3),
            (
                "huge count",
                u32::MAX.to_le_bytes().to_vec(),
                u32::MAX as u64,
            ),
            ("truncated", good[..good.len() - 1].to_vec(), 2),
            ("trailing bytes", [good.clone(), vec![0]].concat(), 2),
            (
                "length past the end",
                {
                    let mut b = good.clone();
                    b[4..8].copy_from_slice(&1000u32.to_le_bytes());
                    b
                },
                2,
            ),
            (
                "length cut off",
                vec![2, 0, 0, 0, 1, 0, 0, 0, b'x', 1, 0],
                2,
            ),
        ] {
            assert!(
                matches!(
                    decode(VlenKind::Bytes, &bytes, count),
                    Err(CodecError::Corrupt { .. })
                ),
                "{what}"
            );
        }
    }

    fn chain(names: &[&str], data_type: DataType) -> Result<VlenChain, CodecError> {
        let codecs: Vec<NamedConfig> = names.iter().map(|n| NamedConfig::new(n, None)).collect();
        VlenChain::from_metadata(&codecs, &data_type)
    }

    #[test]
    fn chains_pair_codecs_with_their_data_types() {
        assert!(chain(&["vlen-utf8"], DataType::String).is_ok());
        assert!(
            chain(&["numcodecs.vlen-bytes", "gzip"], DataType::Bytes).is_err(),
            "gzip without level"
        );
        assert!(chain(&["vlen-bytes", "crc32c"], DataType::Bytes).is_ok());
        assert!(matches!(
            chain(&["vlen-utf8"], DataType::Bytes),
            Err(CodecError::InvalidChain(_))
        ));
        assert!(matches!(
            chain(&["bytes"], DataType::String),
            Err(CodecError::Unsupported(_))
        ));
        assert!(matches!(
            chain(&["vlen-utf8", "vlen-utf8"], DataType::String),
            Err(CodecError::InvalidChain(_))
        ));
        assert!(matches!(
            chain(&[], DataType::String),
            Err(CodecError::InvalidChain(_))
        ));
        // The chain runs its bytes->bytes codecs: crc32c catches a flipped bit.
        let crc = chain(&["vlen-bytes", "crc32c"], DataType::Bytes).unwrap();
        let mut encoded = crc.encode(&[0, 1, 3], b"abc").unwrap();
        assert_eq!(crc.decode(encoded.clone(), 2).unwrap().data, b"abc");
        encoded[5] ^= 1;
        assert!(crc.decode(encoded, 2).is_err());
    }

    #[test]
    fn json2_reads_flat_and_nested_chunks_and_refuses_to_write() {
        let json2 = chain(&["json2"], DataType::String).unwrap();
        let flat = br#"["a","",3,"|O",[3]]"#.to_vec();
        let elements = json2.decode(flat, 3).unwrap();
        assert_eq!(elements.offsets, [0, 1, 1, 2]);
        assert_eq!(elements.data, b"a3");
        // A 2x2 chunk is a list of two lists.
        let nested = br#"[["a","b"],["c","d"],"|O",[2,2]]"#.to_vec();
        assert_eq!(json2.decode(nested, 4).unwrap().data, b"abcd");
        for (what, bad, count) in [
            ("count", &br#"["a","|O",[1]]"#[..], 2u64),
            ("dtype", br#"["a","<i4",[1]]"#, 1),
            ("nesting", br#"["a","b","|O",[1,2]]"#, 2),
            ("not JSON", b"[", 1),
        ] {
            assert!(
                matches!(
                    json2.decode(bad.to_vec(), count),
                    Err(CodecError::Corrupt { .. })
                ),
                "{what}"
            );
        }
        assert!(json2.encode(&[0, 1], b"a").is_err());
    }
}
