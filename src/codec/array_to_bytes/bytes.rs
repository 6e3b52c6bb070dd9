//! `bytes`: elements in C order, each in the configured byte order.

use super::{chunk_layout, ArrayToBytesCodec};
use crate::codec::{ChunkRepresentation, CodecError, Parallelism};
use crate::data_type::{ByteOrder, DataType, StructForm};
use crate::layout::{for_each_run, Layout};
use crate::storage::source::ByteSource;
use crate::storage::ByteRange;
use crate::sys::shared_out::OutBlock;
use serde_json::{Map, Value};

const NAME: &str = "bytes";

/// The `bytes` codec. `endian` is `None` only for types with single-byte units, and (read
/// leniently) for zarr-python's legacy `structured` type and GDAL's `fixed_length_utf32`,
/// whose multi-byte units are then little-endian.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytesCodec {
    endian: Option<ByteOrder>,
}

impl BytesCodec {
    #[cfg(test)]
    pub fn new(endian: Option<ByteOrder>) -> BytesCodec {
        BytesCodec { endian }
    }

    /// The byte order elements are stored in (struct fields may carry their own, see
    /// [`DataType::swap_stored`]).
    fn stored_order(&self) -> ByteOrder {
        // Only `structured` and `fixed_length_utf32` have multi-byte units without an
        // `endian` (see `from_configuration`): little-endian.
        self.endian.unwrap_or(ByteOrder::Little)
    }

    /// `{"endian": "little" | "big"}`; `endian` may be omitted only when the data type's
    /// units are single bytes (bool, int8, uint8, raw bits, float8, int4, float6, complex of
    /// one-byte components), where it has no effect.
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        data_type: &DataType,
    ) -> Result<BytesCodec, CodecError> {
        let endian = match configuration {
            None => None,
            Some(configuration) => {
                if let Some(key) = configuration.keys().find(|k| k.as_str() != "endian") {
                    return Err(CodecError::config(NAME, format!("unknown key \"{key}\"")));
                }
                match configuration.get("endian") {
                    None => None,
                    Some(Value::String(s)) if s == "little" => Some(ByteOrder::Little),
                    Some(Value::String(s)) if s == "big" => Some(ByteOrder::Big),
                    Some(other) => {
                        return Err(CodecError::config(
                            NAME,
                            format!("endian must be \"little\" or \"big\", not {other}"),
                        ))
                    }
                }
            }
        };
        // zarr-python 3.1 writes its legacy `structured` type with a `bytes` codec without
        // `endian`, and GDAL `fixed_length_utf32` too; both mean little-endian (zarr-python
        // reads them so).
        let implicit_little = matches!(data_type, DataType::FixedLengthUtf32(_))
            || matches!(data_type, DataType::Struct(s) if s.form == StructForm::Structured);
        if endian.is_none() && data_type.endian_unit() > 1 && !implicit_little {
            return Err(CodecError::config(
                NAME,
                format!("\"endian\" is required for data type {}", data_type.name()),
            ));
        }
        Ok(BytesCodec { endian })
    }

    /// Convert between host order and the stored order in place (its own inverse): each
    /// unit of the data type, struct fields field by field (see [`DataType::swap_stored`]).
    /// For the types whose bytes hold a code in their low bits (int4, float6, ...) the bits
    /// above the code are cleared both ways: on read because the registry says they are
    /// ignored (another writer may sign-extend int4 -1 to 0xff, and host buffers hold
    /// 0x0f), on write so that what is stored is the code alone, as tensorstore stores it.
    fn swap(&self, data: &mut [u8], data_type: &DataType) {
        if data_type.needs_swap(self.stored_order()) {
            data_type.swap_stored(data, self.stored_order());
        }
        data_type.clear_upper_bits(data);
    }

    /// Whether [`BytesCodec::swap`] changes anything for this type.
    fn changes(&self, data_type: &DataType) -> bool {
        data_type.needs_swap(self.stored_order()) || data_type.code_bits().is_some()
    }
}

impl ArrayToBytesCodec for BytesCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        self.endian.map(|endian| {
            let mut map = Map::new();
            let text = match endian {
                ByteOrder::Little => "little",
                ByteOrder::Big => "big",
            };
            map.insert("endian".into(), Value::from(text));
            map
        })
    }

    fn encode(
        &self,
        mut decoded: Vec<u8>,
        repr: &ChunkRepresentation,
    ) -> Result<Vec<u8>, CodecError> {
        self.swap(&mut decoded, &repr.data_type);
        Ok(decoded)
    }

    fn decode(
        &self,
        mut encoded: Vec<u8>,
        repr: &ChunkRepresentation,
    ) -> Result<Vec<u8>, CodecError> {
        let expected = repr
            .size_bytes()
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
        self.check_size(encoded.len() as u64, expected, repr)?;
        self.swap(&mut encoded, &repr.data_type);
        Ok(encoded)
    }

    fn encoded_len(&self, repr: &ChunkRepresentation) -> Option<usize> {
        repr.size_bytes()
    }

    /// Reads only the byte runs of the block's elements when they are at most a quarter of
    /// the chunk (one run per contiguous stretch, from one opening of the value); otherwise
    /// the whole chunk. Either way the stored value must have the chunk's exact size.
    fn decode_region(
        &self,
        source: &dyn ByteSource,
        repr: &ChunkRepresentation,
        offset: &[u64],
        out: &mut OutBlock,
        _parallelism: Parallelism,
    ) -> Result<bool, CodecError> {
        let chunk = chunk_layout(repr)?;
        let expected = chunk
            .span()
            .map_err(|_| CodecError::OutOfMemory(usize::MAX))?;
        let extent = out.extent().to_vec();
        let element_size = repr.data_type.size();
        if self.reads_part(repr, offset, &extent) {
            let block = Layout::c_order(&extent, element_size)
                .map_err(|_| CodecError::OutOfMemory(usize::MAX))?;
            let zero = vec![0; extent.len()];
            let mut ranges = Vec::new();
            for_each_run(&chunk, offset, &block, &zero, &extent, |s, _, n| {
                ranges.push(ByteRange::FromStart {
                    offset: s as u64,
                    length: n as u64,
                })
            });
            let Some((size, mut bytes)) = source.read_ranges(&ranges)? else {
                return Ok(false);
            };
            // The store may not know the value's size (a range request): then only the
            // ranges themselves are checked, by the store.
            if let Some(size) = size {
                self.check_size(size, expected, repr)?;
            }
            self.swap(&mut bytes, &repr.data_type);
            out.copy_from(&bytes, &block, &zero);
            crate::scratch::give_back(bytes);
            return Ok(true);
        }
        let whole = offset.iter().all(|&o| o == 0) && extent == repr.shape;
        // Bytes already in memory (decompressed by an outer codec, or an inner chunk of a
        // shard batch) in the host's byte order are copied into place from where they are.
        if let Some(bytes) = source.in_memory() {
            if !self.changes(&repr.data_type) {
                self.check_size(bytes.len() as u64, expected, repr)?;
                match out.contiguous() {
                    Some(dst) if whole => dst.copy_from_slice(bytes),
                    _ => out.copy_from(bytes, &chunk, offset),
                }
                return Ok(true);
            }
        }
        let Some(mut bytes) = source.read_all()? else {
            return Ok(false);
        };
        self.check_size(bytes.len() as u64, expected, repr)?;
        match out.contiguous() {
            Some(dst) if whole => {
                dst.copy_from_slice(&bytes);
                self.swap(dst, &repr.data_type);
            }
            _ => {
                self.swap(&mut bytes, &repr.data_type);
                out.copy_from(&bytes, &chunk, offset);
            }
        }
        crate::scratch::give_back(bytes);
        Ok(true)
    }

    fn reads_part(&self, repr: &ChunkRepresentation, _offset: &[u64], extent: &[u64]) -> bool {
        // A 0-d chunk is one element: nothing to save.
        if extent.is_empty() {
            return false;
        }
        let needed = extent.iter().try_fold(1u64, |a, &n| a.checked_mul(n));
        let whole = repr.num_elements();
        matches!((needed, whole), (Some(n), Some(w)) if n.saturating_mul(4) <= w)
    }

    fn decode_in_place(
        &self,
        data: &mut [u8],
        repr: &ChunkRepresentation,
    ) -> Result<bool, CodecError> {
        self.swap(data, &repr.data_type);
        Ok(true)
    }
}

impl BytesCodec {
    /// A stored chunk must hold exactly the chunk's bytes.
    fn check_size(
        &self,
        size: u64,
        expected: usize,
        repr: &ChunkRepresentation,
    ) -> Result<(), CodecError> {
        if size != expected as u64 {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "chunk holds {size} bytes but a chunk of shape {:?} of {} needs {expected}",
                    repr.shape,
                    repr.data_type.name()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::FillValue;

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    #[test]
    fn big_endian_swaps_each_unit() {
        let codec = BytesCodec::new(Some(ByteOrder::Big));
        let values = [1u32, 0x01020304];
        let host: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let stored = codec
            .encode(host.clone(), &repr(&[2], DataType::UInt32))
            .unwrap();
        assert_eq!(stored, vec![0, 0, 0, 1, 1, 2, 3, 4]);
        assert_eq!(
            codec.decode(stored, &repr(&[2], DataType::UInt32)).unwrap(),
            host
        );
        // Complex numbers swap each component, not the whole element.
        let c: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let stored = codec.encode(c, &repr(&[1], DataType::Complex64)).unwrap();
        assert_eq!(&stored[..4], &1.0f32.to_be_bytes());
        let _ = FillValue::new(vec![0]);
    }

    #[test]
    fn wrong_size_is_corrupt() {
        let codec = BytesCodec::new(Some(ByteOrder::Little));
        assert!(codec
            .decode(vec![0; 7], &repr(&[2], DataType::UInt32))
            .is_err());
    }

    /// Sub-byte types: the bits above the code are ignored on read (a sign-extending
    /// writer's 0xff is int4 -1, 0x0f) and stored as zero; endian is not needed.
    #[test]
    fn sub_byte_upper_bits() {
        let int4 = DataType::from_name("int4").unwrap();
        let codec = BytesCodec::from_configuration(None, &int4).unwrap();
        assert_eq!(
            codec
                .decode(vec![0xff, 0x17, 0xf8], &repr(&[3], int4.clone()))
                .unwrap(),
            vec![0x0f, 0x07, 0x08]
        );
        assert_eq!(
            codec
                .encode(vec![0x0f, 0x07], &repr(&[2], int4.clone()))
                .unwrap(),
            vec![0x0f, 0x07]
        );
        let cf16 = DataType::from_name("complex_float16").unwrap();
        assert!(BytesCodec::from_configuration(None, &cf16).is_err());
        let cf8 = DataType::from_name("complex_float8_e5m2").unwrap();
        assert!(BytesCodec::from_configuration(None, &cf8).is_ok());
    }

    #[test]
    fn endian_required_for_multibyte() {
        assert!(BytesCodec::from_configuration(None, &DataType::Int16).is_err());
        assert!(BytesCodec::from_configuration(None, &DataType::UInt8).is_ok());
        assert!(BytesCodec::from_configuration(None, &DataType::RawBits(3)).is_ok());
    }
}
