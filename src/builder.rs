//! Creating arrays from typed settings instead of a hand-written metadata document: the
//! builder collects the data type, shape, chunk and shard shapes, fill value, codecs,
//! dimension names, attributes and Zarr format, checks each setting as it is made, and
//! writes the `zarr.json` (Zarr v3) or `.zarray` and `.zattrs` (Zarr v2) that other
//! implementations read.

use crate::array::Array;
use crate::codec::chain::CodecChain;
use crate::codec::{array_to_array, ChunkRepresentation, CodecError};
use crate::data_type::{numpy_dtype_str, ByteOrder, DataType, FillValue};
use crate::error::Error;
use crate::metadata::NamedConfig;
use crate::node::ZarrFormat;
use crate::selection::checked_product;
use crate::storage::Storage;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Chunks chosen by default hold at most this many bytes.
const DEFAULT_CHUNK_BYTES: u64 = 4 << 20;

/// The attribute in which Zarr v2 arrays keep their dimension names.
const ARRAY_DIMENSIONS: &str = "_ARRAY_DIMENSIONS";

/// Settings for a new array; see the module comment.
#[derive(Clone, Debug)]
pub struct ArrayBuilder {
    data_type: DataType,
    shape: Vec<u64>,
    chunk_shape: Vec<u64>,
    shard_shape: Option<Vec<u64>>,
    fill_value: FillValue,
    codecs: Vec<NamedConfig>,
    dimension_names: Vec<Option<String>>,
    attributes: Map<String, Value>,
    format: ZarrFormat,
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(message)
}

/// A codec error in the caller's settings: an unknown codec stays "unsupported", anything
/// else is an invalid argument.
fn codec_argument_error(error: CodecError) -> Error {
    match error {
        CodecError::Unsupported(_) => Error::Codec(error),
        other => Error::InvalidArgument(other.to_string()),
    }
}

/// The default chunk shape: the whole array, halving the largest extent until a chunk
/// holds at most [`DEFAULT_CHUNK_BYTES`] (zero extents become 1).
fn default_chunk_shape(shape: &[u64], element_size: usize) -> Vec<u64> {
    let mut chunk: Vec<u64> = shape.iter().map(|&n| n.max(1)).collect();
    loop {
        let bytes = checked_product(&chunk)
            .and_then(|n| n.checked_mul(element_size as u64))
            .unwrap_or(u64::MAX);
        if bytes <= DEFAULT_CHUNK_BYTES {
            return chunk;
        }
        let Some((d, _)) = chunk.iter().enumerate().max_by_key(|&(_, &n)| n) else {
            return chunk;
        };
        if chunk[d] == 1 {
            return chunk;
        }
        chunk[d] = chunk[d].div_ceil(2);
    }
}

impl ArrayBuilder {
    /// A builder for a Zarr v3 array of `data_type` and `shape`, with the defaults: chunk
    /// shape from [`default_chunk_shape`], no shards, fill value zero, codecs `bytes`
    /// (little endian) only, no dimension names or attributes. Raw types (`r<N>`) are not
    /// offered: create them from a document.
    pub fn new(data_type: DataType, shape: &[u64]) -> Result<ArrayBuilder, Error> {
        if let DataType::RawBits(_) = data_type {
            return Err(invalid(
                "raw data types (r<N>) cannot be built; create them from a metadata document"
                    .into(),
            ));
        }
        if checked_product(shape).is_none() {
            return Err(Error::OutOfBounds(format!(
                "shape {shape:?} has more than 2^64 elements"
            )));
        }
        Ok(ArrayBuilder {
            shape: shape.to_vec(),
            chunk_shape: default_chunk_shape(shape, data_type.size()),
            shard_shape: None,
            fill_value: data_type.zero_fill_value(),
            data_type,
            codecs: Vec::new(),
            dimension_names: vec![None; shape.len()],
            attributes: Map::new(),
            format: ZarrFormat::V3,
        })
    }

    fn check_rank(&self, what: &str, values: &[u64]) -> Result<(), Error> {
        if values.len() != self.shape.len() {
            return Err(invalid(format!(
                "{what} has {} dimensions but the array has {}",
                values.len(),
                self.shape.len()
            )));
        }
        if values.contains(&0) {
            return Err(invalid(format!("{what} {values:?} has a zero extent")));
        }
        Ok(())
    }

    /// The shape of the chunks (with shards: of the inner chunks inside each shard).
    /// Every extent must be positive; one chunk must fit in memory.
    pub fn set_chunk_shape(&mut self, chunk_shape: &[u64]) -> Result<(), Error> {
        self.check_rank("the chunk shape", chunk_shape)?;
        let representation = ChunkRepresentation {
            shape: chunk_shape.to_vec(),
            data_type: self.data_type.clone(),
            fill_value: self.fill_value.clone(),
        };
        if representation.size_bytes().is_none() {
            return Err(Error::OutOfBounds(format!(
                "a chunk of shape {chunk_shape:?} does not fit in memory"
            )));
        }
        self.chunk_shape = chunk_shape.to_vec();
        Ok(())
    }

    /// Store the chunks in shards of `shard_shape` (the `sharding_indexed` codec): each
    /// extent a positive multiple of the chunk shape's (checked when the array is
    /// created, so that the two may be set in either order). Zarr v3 only.
    pub fn set_shard_shape(&mut self, shard_shape: &[u64]) -> Result<(), Error> {
        self.check_rank("the shard shape", shard_shape)?;
        if self.format == ZarrFormat::V2 {
            return Err(invalid("Zarr v2 arrays cannot be sharded".into()));
        }
        self.shard_shape = Some(shard_shape.to_vec());
        Ok(())
    }

    /// The fill value as the host-order bytes of one element (a bool is 0 or 1).
    pub fn set_fill_value(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let size = self.data_type.size();
        if bytes.len() != size {
            return Err(Error::BufferSizeMismatch {
                expected: size,
                given: bytes.len(),
            });
        }
        if self.data_type == DataType::Bool && bytes[0] > 1 {
            return Err(invalid(format!(
                "a bool fill value is 0 or 1, not {}",
                bytes[0]
            )));
        }
        self.fill_value = FillValue::new(bytes.to_vec());
        Ok(())
    }

    /// The codec list to store for chunks of `chunk_shape`: the caller's codecs with the
    /// `bytes` codec (little endian) inserted after the array->array ones when they hold
    /// no array->bytes codec, checked by building the chain.
    fn chunk_codecs(&self, codecs: &[NamedConfig]) -> Result<Vec<NamedConfig>, Error> {
        let representation = ChunkRepresentation {
            shape: self.chunk_shape.clone(),
            data_type: self.data_type.clone(),
            fill_value: self.fill_value.clone(),
        };
        let has_array_to_bytes = codecs
            .iter()
            .any(|c| matches!(c.name.as_str(), "bytes" | "sharding_indexed"));
        let mut list = codecs.to_vec();
        if !has_array_to_bytes {
            let mut at = 0;
            let mut current = representation.clone();
            for codec in codecs {
                let built = array_to_array::from_metadata(
                    &codec.name,
                    codec.configuration.as_ref(),
                    &current,
                )
                .map_err(codec_argument_error)?;
                match built {
                    Some(c) => {
                        current = c
                            .encoded_representation(&current)
                            .map_err(codec_argument_error)?;
                        at += 1;
                    }
                    None => break,
                }
            }
            let endian = (current.data_type.endian_unit() > 1).then(|| {
                let mut c = Map::new();
                c.insert("endian".into(), Value::from("little"));
                c
            });
            list.insert(at, NamedConfig::new("bytes", endian));
        }
        let chain =
            CodecChain::from_metadata(&list, &representation).map_err(codec_argument_error)?;
        Ok(chain.to_metadata())
    }

    /// Append a codec, by its Zarr v3 name ("gzip", "zstd", "blosc", "crc32c",
    /// "transpose", "bytes", "numcodecs.<id>"...) and configuration. Codecs apply in the
    /// order added; when none of them is an array->bytes codec, `bytes` (little endian) is
    /// placed after the array->array ones. The list is checked at once against the data
    /// type and the current chunk shape: an unknown name is
    /// [`CodecError::Unsupported`], a bad configuration or order an invalid argument, and
    /// the codec is then not added.
    pub fn add_codec(
        &mut self,
        name: &str,
        configuration: Option<Map<String, Value>>,
    ) -> Result<(), Error> {
        if name.is_empty() {
            return Err(invalid("the codec name is empty".into()));
        }
        let mut codecs = self.codecs.clone();
        codecs.push(NamedConfig::new(name, configuration));
        self.chunk_codecs(&codecs)?;
        self.codecs = codecs;
        Ok(())
    }

    /// Name dimension `dim` (`None`: unnamed).
    pub fn set_dimension_name(&mut self, dim: usize, name: Option<&str>) -> Result<(), Error> {
        let ndim = self.shape.len();
        let slot = self.dimension_names.get_mut(dim).ok_or_else(|| {
            Error::OutOfBounds(format!(
                "dimension {dim} is outside the array's {ndim} dimensions"
            ))
        })?;
        *slot = name.map(str::to_string);
        Ok(())
    }

    /// The attributes to store with the array.
    pub fn attributes_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.attributes
    }

    /// Store as Zarr v3 (the default) or v2. Zarr v2 arrays cannot be sharded.
    pub fn set_format(&mut self, format: ZarrFormat) -> Result<(), Error> {
        match format {
            ZarrFormat::V2 if self.shard_shape.is_some() => {
                Err(invalid("Zarr v2 arrays cannot be sharded".into()))
            }
            ZarrFormat::V2 | ZarrFormat::V3 => {
                self.format = format;
                Ok(())
            }
            ZarrFormat::V3Draft2022 => Err(invalid(
                "arrays cannot be created in the 2022 draft layout (it is read only)".into(),
            )),
        }
    }

    /// The codecs of the stored array: the chunk codecs, wrapped in `sharding_indexed`
    /// when sharded.
    fn array_codecs(&self) -> Result<Vec<NamedConfig>, Error> {
        let inner = self.chunk_codecs(&self.codecs)?;
        let Some(shard) = &self.shard_shape else {
            return Ok(inner);
        };
        for (d, (&s, &c)) in shard.iter().zip(&self.chunk_shape).enumerate() {
            if s % c != 0 {
                return Err(invalid(format!(
                    "the shard shape {shard:?} is not a multiple of the chunk shape {:?} \
                     (dimension {d})",
                    self.chunk_shape
                )));
            }
        }
        let to_json = |codecs: Vec<NamedConfig>| {
            Value::Array(codecs.iter().map(NamedConfig::to_json).collect())
        };
        let configuration = json!({
            "chunk_shape": self.chunk_shape,
            "codecs": to_json(inner),
            "index_codecs": [
                {"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "crc32c"}
            ],
            "index_location": "end",
        });
        let configuration = configuration.as_object().cloned().unwrap_or_default();
        Ok(vec![NamedConfig::new(
            "sharding_indexed",
            Some(configuration),
        )])
    }

    /// The Zarr v3 `zarr.json` document.
    fn v3_document(&self) -> Result<Value, Error> {
        let grid = self.shard_shape.as_ref().unwrap_or(&self.chunk_shape);
        let mut document = json!({
            "zarr_format": 3,
            "node_type": "array",
            "shape": self.shape,
            "data_type": self.data_type.name(),
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": self.data_type.fill_value_to_json(&self.fill_value),
            "codecs": self.array_codecs()?.iter().map(NamedConfig::to_json).collect::<Vec<_>>(),
            "attributes": Value::Object(self.attributes.clone()),
        });
        if self.dimension_names.iter().any(Option::is_some) {
            document["dimension_names"] = json!(self.dimension_names);
        }
        Ok(document)
    }

    /// The Zarr v2 `.zarray` document, and the attributes for `.zattrs` (with the
    /// dimension names as `_ARRAY_DIMENSIONS`).
    fn v2_documents(&self) -> Result<(Value, Map<String, Value>), Error> {
        let codecs = self.chunk_codecs(&self.codecs)?;
        let mut order = "C";
        let mut byte_order = ByteOrder::Little;
        let mut filters = Vec::new();
        let mut bytes_codecs = Vec::new();
        let mut after_bytes = false;
        for codec in &codecs {
            let config = codec.configuration.clone().unwrap_or_default();
            let name = codec.name.as_str();
            match name {
                "transpose" => {
                    let reversed: Vec<u64> = (0..self.shape.len() as u64).rev().collect();
                    if config.get("order") != Some(&json!(reversed)) {
                        return Err(invalid(
                            "Zarr v2 stores only the reversed transpose (order \"F\")".into(),
                        ));
                    }
                    order = "F";
                }
                "bytes" => {
                    after_bytes = true;
                    if config.get("endian").and_then(Value::as_str) == Some("big") {
                        byte_order = ByteOrder::Big;
                    }
                }
                "sharding_indexed" => {
                    return Err(invalid("Zarr v2 arrays cannot be sharded".into()));
                }
                _ => {
                    let (id, mut object) = numcodecs_object(name, config)?;
                    object.insert("id".into(), Value::from(id));
                    // Before `bytes`: array filters; after it: bytes->bytes codecs.
                    if !after_bytes {
                        filters.push(Value::Object(object));
                    } else {
                        bytes_codecs.push(Value::Object(object));
                    }
                }
            }
        }
        // The last bytes->bytes codec is the compressor, the others are filters.
        let compressor = bytes_codecs.pop().unwrap_or(Value::Null);
        filters.extend(bytes_codecs);
        let mut attributes = self.attributes.clone();
        if self.dimension_names.iter().any(Option::is_some) {
            if self.dimension_names.iter().any(Option::is_none) {
                return Err(invalid(
                    "Zarr v2 keeps dimension names in _ARRAY_DIMENSIONS, which needs a name \
                     for every dimension"
                        .into(),
                ));
            }
            attributes.insert(ARRAY_DIMENSIONS.into(), json!(self.dimension_names));
        }
        let document = json!({
            "zarr_format": 2,
            "shape": self.shape,
            "chunks": self.chunk_shape,
            "dtype": numpy_dtype_str(&self.data_type, Some(byte_order)),
            "compressor": compressor,
            "fill_value": self.data_type.fill_value_to_json(&self.fill_value),
            "filters": if filters.is_empty() { Value::Null } else { Value::Array(filters) },
            "order": order,
            "dimension_separator": ".",
        });
        Ok((document, attributes))
    }

    /// The metadata document this builder would store (`zarr.json` for v3, `.zarray` for
    /// v2), as JSON text; for checking settings and for tests.
    pub fn metadata_json(&self) -> Result<String, Error> {
        Ok(match self.format {
            ZarrFormat::V2 => self.v2_documents()?.0.to_string(),
            _ => self.v3_document()?.to_string(),
        })
    }

    /// Create the array at `path` in `storage` (missing ancestor groups are created in the
    /// same format). For v2, `.zarray` is written first, then `.zattrs` when there are
    /// attributes.
    pub fn create(&self, storage: Arc<dyn Storage>, path: &str) -> Result<Array, Error> {
        match self.format {
            ZarrFormat::V2 => {
                let (document, attributes) = self.v2_documents()?;
                let array = Array::create(storage, path, &document.to_string())?;
                if !attributes.is_empty() {
                    array.set_attributes(attributes)?;
                }
                Ok(array)
            }
            _ => Array::create(storage, path, &self.v3_document()?.to_string()),
        }
    }
}

/// The numcodecs id and configuration (without `id`) of a v3 bytes->bytes codec or a
/// `numcodecs.<id>` codec, for a Zarr v2 compressor or filter.
fn numcodecs_object(
    name: &str,
    mut config: Map<String, Value>,
) -> Result<(String, Map<String, Value>), Error> {
    if let Some(id) = name.strip_prefix("numcodecs.") {
        return Ok((id.to_string(), config));
    }
    match name {
        "gzip" => Ok(("gzip".into(), config)),
        "zstd" => Ok(("zstd".into(), config)),
        "crc32c" => Ok(("crc32c".into(), config)),
        "blosc" => {
            let shuffle = match config.get("shuffle").and_then(Value::as_str) {
                Some("noshuffle") => 0,
                Some("bitshuffle") => 2,
                _ => 1,
            };
            config.insert("shuffle".into(), Value::from(shuffle));
            config.remove("typesize");
            Ok(("blosc".into(), config))
        }
        other => Err(invalid(format!(
            "codec '{other}' has no Zarr v2 equivalent"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStore;

    fn store() -> Arc<dyn Storage> {
        Arc::new(MemoryStore::new())
    }

    #[test]
    fn default_chunks_are_bounded() {
        assert_eq!(default_chunk_shape(&[10, 20], 4), vec![10, 20]);
        assert_eq!(default_chunk_shape(&[0, 5], 8), vec![1, 5]);
        let big = default_chunk_shape(&[100_000, 100_000], 8);
        assert!(
            big.iter().product::<u64>() * 8 <= DEFAULT_CHUNK_BYTES,
            "{big:?}"
        );
        assert_eq!(default_chunk_shape(&[], 8), Vec::<u64>::new());
    }

    #[test]
    fn v3_array_with_everything() {
        let mut b = ArrayBuilder::new(DataType::Float32, &[40, 60]).unwrap();
        b.set_chunk_shape(&[10, 20]).unwrap();
        b.set_fill_value(&(-1.5f32).to_ne_bytes()).unwrap();
        b.add_codec(
            "gzip",
            Some(json!({"level": 5}).as_object().unwrap().clone()),
        )
        .unwrap();
        b.set_dimension_name(0, Some("lat")).unwrap();
        b.attributes_mut().insert("units".into(), json!("K"));
        let array = b.create(store(), "/t").unwrap();
        let doc = array.metadata_json();
        assert_eq!(doc["fill_value"], json!(-1.5));
        assert_eq!(doc["dimension_names"], json!(["lat", null]));
        assert_eq!(doc["codecs"][0]["name"], "bytes");
        assert_eq!(
            doc["codecs"][1],
            json!({"name": "gzip", "configuration": {"level": 5}})
        );
        assert_eq!(doc["attributes"], json!({"units": "K"}));
        assert_eq!(array.chunk_shape(), vec![10, 20]);
    }

    #[test]
    fn sharded_and_transposed() {
        let mut b = ArrayBuilder::new(DataType::UInt16, &[8, 8]).unwrap();
        b.set_shard_shape(&[8, 8]).unwrap();
        b.set_chunk_shape(&[4, 4]).unwrap();
        b.add_codec(
            "transpose",
            Some(json!({"order": [1, 0]}).as_object().unwrap().clone()),
        )
        .unwrap();
        b.add_codec("zstd", None).unwrap();
        let array = b.create(store(), "/s").unwrap();
        assert_eq!(array.chunk_shape(), vec![8, 8]);
        assert_eq!(array.inner_chunk_shape(), vec![4, 4]);
        let inner = &array.metadata_json()["codecs"][0]["configuration"]["codecs"];
        let names: Vec<_> = inner
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].clone())
            .collect();
        assert_eq!(
            names,
            vec![json!("transpose"), json!("bytes"), json!("zstd")]
        );
        b.set_shard_shape(&[6, 8]).unwrap();
        assert!(matches!(
            b.create(store(), "/x"),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn v2_array() {
        let mut b = ArrayBuilder::new(DataType::Int32, &[6]).unwrap();
        b.set_chunk_shape(&[4]).unwrap();
        b.add_codec(
            "blosc",
            Some(
                json!({"cname": "zstd", "clevel": 3, "shuffle": "bitshuffle"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .unwrap();
        b.set_dimension_name(0, Some("x")).unwrap();
        b.set_format(ZarrFormat::V2).unwrap();
        assert!(matches!(
            b.set_shard_shape(&[4]),
            Err(Error::InvalidArgument(_))
        ));
        let s = store();
        let array = b.create(s.clone(), "/v").unwrap();
        let doc = array.metadata_json();
        assert_eq!(doc["dtype"], "<i4");
        assert_eq!(doc["compressor"]["id"], "blosc");
        assert_eq!(doc["compressor"]["shuffle"], 2);
        assert_eq!(doc["filters"], Value::Null);
        assert_eq!(array.dimension_names().unwrap(), vec![Some("x".into())]);
        array.write_region(&[0], &[6], &[1u8; 24]).unwrap();
        let reopened = Array::open(s, "/v").unwrap();
        let mut out = [0u8; 24];
        reopened.read_region(&[0], &[6], &mut out).unwrap();
        assert_eq!(out, [1u8; 24]);
        b.set_dimension_name(0, None).unwrap();
        b.add_codec("crc32c", None).unwrap();
        let doc: Value = serde_json::from_str(&b.metadata_json().unwrap()).unwrap();
        assert_eq!(doc["compressor"]["id"], "crc32c");
        assert_eq!(doc["filters"][0]["id"], "blosc");
    }

    #[test]
    fn setter_errors() {
        assert!(ArrayBuilder::new(DataType::RawBits(3), &[2]).is_err());
        assert!(matches!(
            ArrayBuilder::new(DataType::UInt8, &[u64::MAX, 2]),
            Err(Error::OutOfBounds(_))
        ));
        let mut b = ArrayBuilder::new(DataType::Bool, &[3, 3]).unwrap();
        assert!(matches!(
            b.set_chunk_shape(&[3]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            b.set_chunk_shape(&[0, 3]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            b.set_chunk_shape(&[u64::MAX, u64::MAX]),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            b.set_fill_value(&[2]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            b.set_fill_value(&[1, 0]),
            Err(Error::BufferSizeMismatch { .. })
        ));
        assert!(matches!(
            b.add_codec("nonsense", None),
            Err(Error::Codec(CodecError::Unsupported(_)))
        ));
        assert!(matches!(
            b.add_codec(
                "gzip",
                Some(json!({"level": 99}).as_object().unwrap().clone())
            ),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            b.add_codec("", None),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            b.set_dimension_name(2, Some("z")),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            b.set_format(ZarrFormat::V3Draft2022),
            Err(Error::InvalidArgument(_))
        ));
        // A v2 array with only some dimensions named cannot be stored.
        b.set_dimension_name(0, Some("y")).unwrap();
        b.set_format(ZarrFormat::V2).unwrap();
        assert!(matches!(
            b.create(store(), "/b"),
            Err(Error::InvalidArgument(_))
        ));
        // Failed settings left the builder as it was.
        b.set_dimension_name(0, None).unwrap();
        let array = b.create(store(), "/b").unwrap();
        assert_eq!(array.chunk_shape(), vec![3, 3]);
    }
}
