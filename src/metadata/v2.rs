//! Zarr v2 documents: `.zarray`, `.zgroup`, `.zattrs`.
//!
//! A v2 array is read and written by the same machinery as a v3 array: its `.zarray` is
//! translated into the v3 model ([`ArrayMetadata`]):
//!
//! * the dtype's byte order (`<f4`, `>i2`) becomes the `bytes` codec's endianness;
//! * `order: "F"` becomes a leading `transpose` that reverses the dimensions (a v2 chunk in
//!   F order holds its elements column-major);
//! * each filter and the compressor `{"id": X, ...}` become the codec `numcodecs.X` with the
//!   rest of the object as its configuration (the names zarr-python 3 uses); the
//!   compressors `zfpy` and `pcodec`, which compress the array itself, replace `bytes`;
//! * `dimension_separator` becomes the `v2` chunk key encoding (`0.1`, or `0/1`);
//! * `fill_value: null` reads unwritten chunks as zeros, as zarr-python does.
//!
//! The parsed `.zarray` is kept ([`ArrayMetadataV2`]) so that it can be written back as it
//! was: rewriting a v2 array's attributes touches `.zattrs` only.

use super::json::kind_of;
use super::v3::ArrayMetadata;
use super::{MetadataError, NamedConfig};
use crate::chunk_grid::{parse_u64_list, ChunkGrid};
use crate::chunk_key_encoding::ChunkKeyEncoding;
use crate::data_type::{ByteOrder, DataType, FillValue, StructType};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Key of a v2 array's metadata.
pub const ZARRAY: &str = ".zarray";
/// Key of a v2 group's metadata.
pub const ZGROUP: &str = ".zgroup";
/// Key of a v2 node's attributes.
pub const ZATTRS: &str = ".zattrs";
/// Key of v2 consolidated metadata.
pub const ZMETADATA: &str = ".zmetadata";

/// Memory layout of a v2 chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    C,
    F,
}

/// A parsed and validated `.zarray`.
#[derive(Clone, Debug)]
pub struct ArrayMetadataV2 {
    pub shape: Vec<u64>,
    pub chunks: Vec<u64>,
    /// The dtype as written (`"<f4"`, or a list of fields), kept for rewriting.
    pub dtype: Box<Value>,
    pub data_type: DataType,
    /// Byte order of the stored elements; `None` for single-byte types.
    pub byte_order: Option<ByteOrder>,
    /// The compressor object, `id` included; `None` for `null`.
    pub compressor: Option<Map<String, Value>>,
    /// The filter objects, `id` included, in encoding order (`null` is an empty list).
    pub filters: Vec<Map<String, Value>>,
    /// `fill_value` as written (`null`, a number, `"NaN"`, base64 text, ...).
    pub fill_value: Value,
    pub order: Order,
    pub dimension_separator: char,
}

/// Parse a NumPy dtype string (`"<f4"`, `"|u1"`, `">i8"`, `"|V16"`, `"<U4"`, `"|S3"`,
/// `"<M8[ns]"`; see [`crate::data_type::parse_numpy_dtype`]) into a data type and the byte
/// order of its stored elements (`None` for single-byte units). What is not a fixed-size
/// NumPy dtype is an error that says why: objects (`|O`, variable-length strings) are
/// unsupported.
pub fn parse_numpy_dtype(dtype: &str) -> Result<(DataType, Option<ByteOrder>), MetadataError> {
    match crate::data_type::parse_numpy_dtype(dtype) {
        Some(parsed) => Ok(parsed),
        None => {
            let code = dtype.trim_start_matches(['<', '>', '|', '=']);
            let what = match code.chars().next() {
                Some('O') => " (objects and variable-length strings are not supported)",
                Some('M' | 'm') => " (not a valid datetime64/timedelta64 unit)",
                _ => " (not a NumPy dtype this library knows)",
            };
            Err(MetadataError::Unsupported(format!("dtype '{dtype}'{what}")))
        }
    }
}

/// Parse a `.zarray` `dtype`: a NumPy dtype string, or a structured dtype (a list of
/// `[name, dtype]` / `[name, dtype, shape]` fields, each in its own byte order).
pub fn parse_dtype_json(dtype: &Value) -> Result<(DataType, Option<ByteOrder>), MetadataError> {
    match dtype {
        Value::String(s) => parse_numpy_dtype(s),
        Value::Array(fields) => {
            let struct_type = StructType::from_numpy_v2(fields)?;
            // Every field carries its own byte order; the `bytes` codec's is a formality.
            let endian = (struct_type.max_endian_unit() > 1).then_some(ByteOrder::Little);
            Ok((DataType::Struct(Arc::new(struct_type)), endian))
        }
        other => Err(MetadataError::Invalid(format!(
            "dtype must be a string or a list of fields, not {}",
            kind_of(other)
        ))),
    }
}

/// Parse a fill value as v2 writes it. `null` means "no fill value": zero, as zarr-python
/// reads it. Integers written as whole floats (`0.0`) and booleans written as 0/1 are
/// accepted; raw (`V`), byte-string (`S`) and structured types use base64 text (structured
/// values hold each field in its own byte order), `U` strings are JSON strings, and
/// datetimes integers (or `"NaT"`).
pub fn parse_fill_value(data_type: &DataType, value: &Value) -> Result<FillValue, MetadataError> {
    match (data_type, value) {
        (_, Value::Null) => Ok(data_type.zero_fill_value()),
        (DataType::Bool, Value::Number(n)) if n.as_u64() == Some(0) || n.as_u64() == Some(1) => {
            data_type.parse_fill_value(&Value::Bool(n.as_u64() == Some(1)))
        }
        (
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64,
            Value::Number(n),
        ) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() != 0.0 || !f.is_finite() || f.abs() > 9.007_199_254_740_992e15 {
                return Err(MetadataError::Invalid(format!(
                    "fill_value {value} is not an integer"
                )));
            }
            data_type.parse_fill_value(&Value::from(f as i64))
        }
        // Complex fill values are written as [real, imaginary] like v3, or as a single real.
        (DataType::Complex64 | DataType::Complex128, Value::Number(_) | Value::String(_)) => {
            data_type.parse_fill_value(&Value::Array(vec![value.clone(), Value::from(0)]))
        }
        // `V<n>` is raw bits in the v3 model; its v2 fill value is base64 of any length up
        // to the size (numpy pads), and zarr-python 2 wrote 0 for "none".
        (DataType::RawBits(n), _) => DataType::RawBytes(*n).parse_fill_value(value),
        _ => data_type.parse_fill_value(value),
    }
}

/// The numcodecs filters that transform arrays (element values or types); every other
/// numcodecs codec transforms bytes.
const ARRAY_FILTERS: &[&str] = &[
    "delta",
    "fixedscaleoffset",
    "quantize",
    "bitround",
    "astype",
];

/// The numcodecs compressors that take an array (its shape and type), not bytes: in the
/// v3 model they are the array->bytes codec.
const ARRAY_COMPRESSORS: &[&str] = &["zfpy", "pcodec"];

/// The `transpose` codec that stores a C-order chunk of rank `ndim` in column-major
/// (Fortran) order; `None` when the rank makes both orders the same.
pub fn column_major_transpose(ndim: usize) -> Option<NamedConfig> {
    (ndim > 1).then(|| {
        let reversed: Vec<Value> = (0..ndim).rev().map(Value::from).collect();
        let mut configuration = Map::new();
        configuration.insert("order".into(), Value::Array(reversed));
        NamedConfig::new("transpose", Some(configuration))
    })
}

/// A numcodecs object (`{"id": "zlib", "level": 1}`) as the v3 codec `numcodecs.<id>`.
fn numcodecs_codec(object: &Map<String, Value>, what: &str) -> Result<NamedConfig, MetadataError> {
    let id = match object.get("id") {
        Some(Value::String(id)) if !id.is_empty() => id,
        _ => {
            return Err(MetadataError::Invalid(format!(
                "{what} has no string \"id\""
            )))
        }
    };
    let mut configuration = object.clone();
    configuration.remove("id");
    Ok(NamedConfig::new(
        &format!("numcodecs.{id}"),
        Some(configuration),
    ))
}

/// The numcodecs object codecs this library reads (`vlen-utf8`, `vlen-bytes`; `json2`
/// read only).
const OBJECT_CODECS: [&str; 3] = ["vlen-utf8", "vlen-bytes", "json2"];

fn codec_id(object: &Map<String, Value>) -> &str {
    object.get("id").and_then(Value::as_str).unwrap_or("")
}

/// The data type of a `|O` array, from its object codec: the first filter (as zarr-python
/// writes it), or the compressor when there are no filters.
fn object_data_type(
    filters: &[Map<String, Value>],
    compressor: Option<&Map<String, Value>>,
) -> Result<DataType, MetadataError> {
    let object = match filters.first() {
        Some(first) => Some(first),
        None => compressor,
    };
    match object.map(codec_id) {
        Some("vlen-utf8" | "json2") => Ok(DataType::String),
        Some("vlen-bytes") => Ok(DataType::Bytes),
        Some(other) => Err(MetadataError::Unsupported(format!(
            "dtype |O with the object codec '{other}' (vlen-utf8, vlen-bytes and json2 are read)"
        ))),
        None => Err(MetadataError::Invalid(
            "dtype |O needs an object codec (vlen-utf8, vlen-bytes, json2) as its first filter"
                .into(),
        )),
    }
}

/// The byte order of the array a numcodecs filter outputs, when its configuration says
/// (`astype` of delta, fixedscaleoffset and quantize; `encode_dtype` of astype).
fn filter_output_order(
    filter: &Map<String, Value>,
    input: (DataType, Option<ByteOrder>),
) -> Result<(DataType, Option<ByteOrder>), MetadataError> {
    let key = if filter.get("id").and_then(Value::as_str) == Some("astype") {
        "encode_dtype"
    } else {
        "astype"
    };
    match filter.get(key).and_then(Value::as_str) {
        Some(dtype) => parse_numpy_dtype(dtype),
        None => Ok(input),
    }
}

fn object_or_null(
    value: Option<&Value>,
    what: &str,
) -> Result<Option<Map<String, Value>>, MetadataError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o.clone())),
        Some(other) => Err(MetadataError::Invalid(format!(
            "{what} must be an object or null, not {}",
            kind_of(other)
        ))),
    }
}

impl ArrayMetadataV2 {
    /// Parse and validate a `.zarray` document.
    pub fn parse(document: &Map<String, Value>) -> Result<ArrayMetadataV2, MetadataError> {
        match document.get("zarr_format") {
            Some(v) if v.as_u64() == Some(2) => {}
            Some(v) => {
                return Err(MetadataError::Invalid(format!(
                    ".zarray: zarr_format {v} (expected 2)"
                )))
            }
            None => return Err(MetadataError::Invalid("missing \"zarr_format\"".into())),
        }
        let shape = parse_u64_list(document.get("shape"), "shape")?;
        let chunks = parse_u64_list(document.get("chunks"), "chunks")?;
        if chunks.len() != shape.len() {
            return Err(MetadataError::Invalid(format!(
                "chunks {chunks:?} and shape {shape:?} have different ranks"
            )));
        }
        ChunkGrid::regular(chunks.clone())?;
        let dtype = Box::new(
            document
                .get("dtype")
                .cloned()
                .ok_or_else(|| MetadataError::Invalid("missing \"dtype\"".into()))?,
        );
        let compressor = object_or_null(document.get("compressor"), "compressor")?;
        let filters = match document.get("filters") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_object().cloned().ok_or_else(|| {
                        MetadataError::Invalid(format!(
                            "filters entries must be objects, not {}",
                            kind_of(item)
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(MetadataError::Invalid(format!(
                    "filters must be a list or null, not {}",
                    kind_of(other)
                )))
            }
        };
        let (data_type, byte_order) = if dtype.as_str() == Some("|O") {
            (object_data_type(&filters, compressor.as_ref())?, None)
        } else {
            parse_dtype_json(&dtype)?
        };
        let order = match document.get("order") {
            None => Order::C,
            Some(Value::String(s)) if s == "C" => Order::C,
            Some(Value::String(s)) if s == "F" => Order::F,
            Some(other) => {
                return Err(MetadataError::Invalid(format!(
                    "order must be \"C\" or \"F\", not {other}"
                )))
            }
        };
        let dimension_separator = match document.get("dimension_separator") {
            None | Some(Value::Null) => '.',
            Some(Value::String(s)) if s == "." => '.',
            Some(Value::String(s)) if s == "/" => '/',
            Some(other) => {
                return Err(MetadataError::Invalid(format!(
                    "dimension_separator must be \".\" or \"/\", not {other}"
                )))
            }
        };
        let fill_value = document.get("fill_value").cloned().unwrap_or(Value::Null);
        let metadata = ArrayMetadataV2 {
            shape,
            chunks,
            dtype,
            data_type,
            byte_order,
            compressor,
            filters,
            fill_value,
            order,
            dimension_separator,
        };
        // Validate the fill value and the codec objects now, with the document's key.
        metadata.to_v3_model(Map::new())?;
        Ok(metadata)
    }

    /// The codec list of the equivalent v3 array (see the module comment).
    pub fn codecs(&self) -> Result<Vec<NamedConfig>, MetadataError> {
        if self.data_type.is_variable_length() {
            // `|O`: the object codec serialises the elements; what follows it (further
            // filters, the compressor) works on its bytes.
            let mut codecs = Vec::new();
            let (object, rest) = match self.filters.split_first() {
                Some((first, rest)) if OBJECT_CODECS.contains(&codec_id(first)) => (first, rest),
                _ => match &self.compressor {
                    Some(compressor) if self.filters.is_empty() => (compressor, &[][..]),
                    _ => {
                        return Err(MetadataError::Unsupported(
                            "dtype |O whose object codec is not its first filter".into(),
                        ))
                    }
                },
            };
            codecs.push(numcodecs_codec(object, "the object codec")?);
            for filter in rest {
                codecs.push(numcodecs_codec(filter, "a filter")?);
            }
            if let Some(compressor) = &self.compressor {
                if !std::ptr::eq(compressor, object) {
                    codecs.push(numcodecs_codec(compressor, "the compressor")?);
                }
            }
            return Ok(codecs);
        }
        let mut codecs = Vec::new();
        if self.order == Order::F {
            codecs.extend(column_major_transpose(self.shape.len()));
        }
        // Filters that transform arrays (delta, fixedscaleoffset, ...) come before the
        // `bytes` codec; filters that transform bytes (shuffle, checksums, compressors used
        // as filters) after it. A v2 chain that puts an array filter after a bytes filter
        // (it reinterprets transformed bytes as numbers) has no v3 equivalent.
        let mut encoded = (self.data_type.clone(), self.byte_order);
        let mut bytes_filters = Vec::new();
        for filter in &self.filters {
            let codec = numcodecs_codec(filter, "a filter")?;
            let id = &codec.name["numcodecs.".len()..];
            if ARRAY_FILTERS.contains(&id) {
                if !bytes_filters.is_empty() {
                    return Err(MetadataError::Unsupported(format!(
                        "filter '{id}' after a bytes filter: no Zarr v3 codec chain is equivalent"
                    )));
                }
                codecs.push(codec);
                encoded = filter_output_order(filter, encoded)?;
            } else {
                bytes_filters.push(codec);
            }
        }
        // numcodecs' zfpy and pcodec compress the array itself: as the compressor they take
        // the place of the `bytes` codec (after any array filters).
        if let Some(compressor) = &self.compressor {
            let codec = numcodecs_codec(compressor, "the compressor")?;
            if ARRAY_COMPRESSORS.contains(&&codec.name["numcodecs.".len()..]) {
                if !bytes_filters.is_empty() {
                    return Err(MetadataError::Unsupported(format!(
                        "compressor '{}' after a bytes filter: no Zarr v3 codec chain is equivalent",
                        codec.name
                    )));
                }
                codecs.push(codec);
                return Ok(codecs);
            }
        }
        let endian = encoded.1.filter(|_| encoded.0.endian_unit() > 1);
        let bytes_configuration = endian.map(|endian| {
            let mut configuration = Map::new();
            let name = if endian == ByteOrder::Big {
                "big"
            } else {
                "little"
            };
            configuration.insert("endian".into(), Value::from(name));
            configuration
        });
        codecs.push(NamedConfig::new("bytes", bytes_configuration));
        codecs.extend(bytes_filters);
        if let Some(compressor) = &self.compressor {
            codecs.push(numcodecs_codec(compressor, "the compressor")?);
        }
        Ok(codecs)
    }

    /// The equivalent v3 array model, with `attributes` from `.zattrs`.
    pub fn to_v3_model(
        &self,
        attributes: Map<String, Value>,
    ) -> Result<ArrayMetadata, MetadataError> {
        Ok(ArrayMetadata {
            shape: self.shape.clone(),
            data_type: self.data_type.clone(),
            chunk_grid: ChunkGrid::regular(self.chunks.clone())?,
            chunk_key_encoding: ChunkKeyEncoding::V2 {
                separator: self.dimension_separator,
            },
            fill_value: parse_fill_value(&self.data_type, &self.fill_value)?,
            codecs: self.codecs()?,
            attributes,
            dimension_names: None,
            ignored_extensions: Map::new(),
        })
    }

    /// Prepare a document given by a caller for writing a new array. An object array's
    /// old-style `fill_value` of `0` becomes `""`: it reads as the empty element here, but
    /// zarr-python 3 reads a never-written element of a `0` array as the text "0", so a new
    /// array says what it means. `null` stays: zarr-python writes it for string arrays and
    /// reads it as the empty element, and xarray takes a v2 `fill_value` for the
    /// variable's `_FillValue`, so `""` there would mask every empty string.
    pub fn normalize_for_writing(&mut self) {
        if self.data_type.is_variable_length() && self.fill_value == 0 {
            self.fill_value = Value::from("");
        }
    }

    /// The `.zarray` document to store (keys sorted, as zarr-python writes them).
    pub fn to_json(&self) -> Value {
        let mut document = Map::new();
        document.insert("chunks".into(), Value::from(self.chunks.clone()));
        document.insert(
            "compressor".into(),
            self.compressor.clone().map_or(Value::Null, Value::Object),
        );
        document.insert(
            "dimension_separator".into(),
            Value::from(self.dimension_separator.to_string()),
        );
        document.insert("dtype".into(), (*self.dtype).clone());
        document.insert("fill_value".into(), self.fill_value.clone());
        document.insert(
            "filters".into(),
            if self.filters.is_empty() {
                Value::Null
            } else {
                Value::Array(self.filters.iter().cloned().map(Value::Object).collect())
            },
        );
        document.insert(
            "order".into(),
            Value::from(if self.order == Order::F { "F" } else { "C" }),
        );
        document.insert("shape".into(), Value::from(self.shape.clone()));
        document.insert("zarr_format".into(), Value::from(2));
        Value::Object(document)
    }
}

/// Check a `.zgroup` document.
pub fn parse_group(document: &Map<String, Value>) -> Result<(), MetadataError> {
    match document.get("zarr_format") {
        Some(v) if v.as_u64() == Some(2) => Ok(()),
        Some(v) => Err(MetadataError::Invalid(format!(
            ".zgroup: zarr_format {v} (expected 2)"
        ))),
        None => Err(MetadataError::Invalid(
            ".zgroup: missing \"zarr_format\"".into(),
        )),
    }
}

/// The `.zgroup` document.
pub fn group_document() -> Value {
    serde_json::json!({"zarr_format": 2})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn dtypes() {
        assert_eq!(
            parse_numpy_dtype("<f4").unwrap(),
            (DataType::Float32, Some(ByteOrder::Little))
        );
        assert_eq!(
            parse_numpy_dtype(">i2").unwrap(),
            (DataType::Int16, Some(ByteOrder::Big))
        );
        assert_eq!(parse_numpy_dtype("|u1").unwrap(), (DataType::UInt8, None));
        assert_eq!(parse_numpy_dtype("|b1").unwrap(), (DataType::Bool, None));
        assert_eq!(parse_numpy_dtype("<i1").unwrap(), (DataType::Int8, None));
        assert_eq!(
            parse_numpy_dtype(">c16").unwrap(),
            (DataType::Complex128, Some(ByteOrder::Big))
        );
        assert_eq!(
            parse_numpy_dtype("|V3").unwrap(),
            (DataType::RawBits(3), None)
        );
        assert_eq!(
            parse_numpy_dtype(">U5").unwrap(),
            (DataType::FixedLengthUtf32(20), Some(ByteOrder::Big))
        );
        assert_eq!(
            parse_numpy_dtype("|S3").unwrap(),
            (DataType::NullTerminatedBytes(3), None)
        );
        assert_eq!(
            parse_numpy_dtype("<M8[ns]").unwrap().1,
            Some(ByteOrder::Little)
        );
        for bad in ["|O", "<M8[fortnight]", "<f3", "", "<", "|V0", "<U0"] {
            assert!(parse_numpy_dtype(bad).is_err(), "{bad}");
        }
        let (dt, endian) = parse_dtype_json(&json!([["a", "<u2"], ["b", [["c", ">f4"]]]])).unwrap();
        assert_eq!(dt.size(), 6);
        assert_eq!(endian, Some(ByteOrder::Little));
        for bad in [
            json!([]),
            json!([["a"]]),
            json!([["a", "<u2"], ["a", "<u2"]]),
            json!([["a", "|O"]]),
            json!([["a", "<u2", [0]]]),
            json!({"a": "<u2"}),
        ] {
            assert!(parse_dtype_json(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn translates_to_v3() {
        let m = ArrayMetadataV2::parse(&doc(json!({
            "zarr_format": 2, "shape": [10, 20], "chunks": [5, 5], "dtype": ">i4",
            "compressor": {"id": "zlib", "level": 1}, "fill_value": null, "order": "F",
            "filters": [{"id": "delta", "dtype": ">i4", "astype": "<i2"}],
            "dimension_separator": "/"
        })))
        .unwrap();
        let v3 = m.to_v3_model(Map::new()).unwrap();
        let names: Vec<_> = v3.codecs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["transpose", "numcodecs.delta", "bytes", "numcodecs.zlib"]
        );
        // The delta filter's output is little-endian int16.
        assert_eq!(
            v3.codecs[2].configuration.as_ref().unwrap()["endian"],
            json!("little")
        );
        assert_eq!(v3.chunk_key_encoding.key(&[1, 2]), "1/2");
        assert_eq!(v3.fill_value, DataType::Int32.zero_fill_value());
        assert_eq!(
            m.to_json()["dimension_separator"],
            json!("/"),
            "written back as read"
        );
    }

    #[test]
    fn array_compressors_replace_bytes() {
        let m = ArrayMetadataV2::parse(&doc(json!({
            "zarr_format": 2, "shape": [10, 10], "chunks": [5, 5], "dtype": "<f4",
            "compressor": {"id": "zfpy", "mode": 4, "tolerance": 0.01, "rate": -1, "precision": -1},
            "fill_value": 0.0, "order": "C", "filters": null
        })))
        .unwrap();
        let names: Vec<_> = m.codecs().unwrap().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["numcodecs.zfpy"]);
        let m = ArrayMetadataV2::parse(&doc(json!({
            "zarr_format": 2, "shape": [10], "chunks": [5], "dtype": "<i4",
            "compressor": {"id": "pcodec"}, "fill_value": 0, "order": "C",
            "filters": [{"id": "delta", "dtype": "<i4"}]
        })))
        .unwrap();
        let names: Vec<_> = m.codecs().unwrap().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["numcodecs.delta", "numcodecs.pcodec"]);
        // After a bytes filter there is no v3 equivalent.
        assert!(ArrayMetadataV2::parse(&doc(json!({
            "zarr_format": 2, "shape": [10], "chunks": [5], "dtype": "<i4",
            "compressor": {"id": "pcodec"}, "fill_value": 0, "order": "C",
            "filters": [{"id": "shuffle", "elementsize": 4}]
        })))
        .is_err());
    }

    #[test]
    fn fill_values() {
        let f = |t: DataType, v: Value| parse_fill_value(&t, &v);
        assert!(f(DataType::Float32, json!("NaN")).is_ok());
        assert!(f(DataType::Float64, json!("-Infinity")).is_ok());
        assert_eq!(
            f(DataType::Int16, json!(3.0)).unwrap(),
            DataType::Int16.parse_fill_value(&json!(3)).unwrap()
        );
        assert!(f(DataType::Int16, json!(3.5)).is_err());
        assert_eq!(
            f(DataType::Bool, json!(1)).unwrap(),
            DataType::Bool.parse_fill_value(&json!(true)).unwrap()
        );
        assert_eq!(
            f(DataType::RawBits(2), json!("AQI=")).unwrap().as_bytes(),
            &[1, 2]
        );
    }

    #[test]
    fn rejects_bad_documents() {
        let base = json!({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<f8",
                          "compressor": null, "fill_value": 0.0, "order": "C", "filters": null});
        assert!(ArrayMetadataV2::parse(&doc(base.clone())).is_ok());
        for (key, value) in [
            ("zarr_format", json!(3)),
            ("chunks", json!([2, 2])),
            ("chunks", json!([0])),
            ("dtype", json!("|O")),
            ("dtype", json!([])),
            ("dtype", json!(4)),
            ("compressor", json!("zlib")),
            ("compressor", json!({"level": 1})),
            ("filters", json!({})),
            ("order", json!("K")),
            ("dimension_separator", json!("-")),
            ("fill_value", json!("pi")),
        ] {
            let mut v = base.clone();
            v[key] = value.clone();
            assert!(ArrayMetadataV2::parse(&doc(v)).is_err(), "{key} = {value}");
        }
    }
}
