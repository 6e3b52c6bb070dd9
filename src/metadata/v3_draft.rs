//! The 2022 draft of Zarr v3 (read): the layout zarr-python 2.x wrote under its
//! experimental v3 API and that the core-spec seed describes.
//!
//! * The store root holds an entry point `zarr.json` whose `zarr_format` is the URI
//!   `https://purl.org/zarr/spec/protocol/core/3.0`.
//! * The array at `/a/b` is described by `meta/root/a/b.array.json`, a group by
//!   `meta/root/a/b.group.json` (the root: `meta/root.array.json` / `.group.json`). A path
//!   with nodes below it but no document is an implicit group.
//! * Chunks live at `data/root/a/b/c0/1` (`c`, then the indices joined by the grid's
//!   `separator`).
//! * `data_type` is a NumPy-style name with its stored byte order (`<f8`, `u1`, `bool`),
//!   or a core name (`int32`, stored little-endian); `chunk_memory_layout` is `C` or `F`;
//!   `compressor` (one object) or `codecs` (a list) name codecs by URI
//!   (`https://purl.org/zarr/spec/codec/gzip/1.0`); `fill_value` may be `null`.
//!
//! Each array is translated into the v3 model so that the rest of the library reads it
//! like any other array.

use super::json::kind_of;
use super::v2::{column_major_transpose, parse_fill_value, parse_numpy_dtype};
use super::v3::ArrayMetadata;
use super::{MetadataError, NamedConfig};
use crate::chunk_grid::{parse_u64_list, ChunkGrid};
use crate::chunk_key_encoding::ChunkKeyEncoding;
use crate::data_type::ByteOrder;
use crate::data_type::DataType;
use crate::node_path::NodePath;
use serde_json::{Map, Value};

/// The `zarr_format` URI of the draft's entry point.
pub const PROTOCOL_URI_PREFIX: &str = "https://purl.org/zarr/spec/protocol/core/3.";

/// Whether a root `zarr.json` is the draft's entry point (its `zarr_format` is a URI).
pub fn is_entry_point(document: &Map<String, Value>) -> bool {
    document
        .get("zarr_format")
        .and_then(Value::as_str)
        .is_some_and(|s| s.starts_with(PROTOCOL_URI_PREFIX))
}

/// `meta/root<path><suffix>`: the metadata key of a node (`suffix` is `.array.json` or
/// `.group.json`).
pub fn metadata_key(path: &NodePath, suffix: &str) -> String {
    if path.is_root() {
        format!("meta/root{suffix}")
    } else {
        format!("meta/root{}{suffix}", path.as_str())
    }
}

/// The prefix under which a node's child documents live (`meta/root/a/b/`).
pub fn metadata_dir(path: &NodePath) -> String {
    if path.is_root() {
        "meta/root/".into()
    } else {
        format!("meta/root{}/", path.as_str())
    }
}

/// The prefix of an array's chunk keys (`data/root/a/b/`).
pub fn data_prefix(path: &NodePath) -> String {
    if path.is_root() {
        "data/root/".into()
    } else {
        format!("data/root{}/", path.as_str())
    }
}

/// The codec name in a codec URI: `https://purl.org/zarr/spec/codec/gzip/1.0` -> `gzip`.
fn codec_name_from_uri(uri: &str) -> &str {
    let mut parts = uri.trim_end_matches('/').rsplit('/');
    let last = parts.next().unwrap_or(uri);
    // The last segment is a version ("1.0") when it starts with a digit.
    if last.starts_with(|c: char| c.is_ascii_digit()) {
        parts.next().unwrap_or(last)
    } else {
        last
    }
}

/// A draft codec object (`{"codec" | "type": URI, "configuration": {...}}`) as a v3 codec.
fn translate_codec(value: &Value) -> Result<NamedConfig, MetadataError> {
    let object = value.as_object().ok_or_else(|| {
        MetadataError::Invalid(format!("a codec must be an object, not {}", kind_of(value)))
    })?;
    let uri = ["codec", "type", "name"]
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str))
        .ok_or_else(|| MetadataError::Invalid("a codec has no \"codec\" URI".into()))?;
    let configuration = match object.get("configuration") {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => Some(c.clone()),
        Some(other) => {
            return Err(MetadataError::Invalid(format!(
                "codec configuration must be an object, not {}",
                kind_of(other)
            )))
        }
    };
    let name = match codec_name_from_uri(uri) {
        // The draft's blosc and zlib configurations are numcodecs'.
        "blosc" => "numcodecs.blosc".to_string(),
        "zlib" => "numcodecs.zlib".to_string(),
        "gzip" => "gzip".to_string(),
        "zstd" => "zstd".to_string(),
        "endian" | "bytes" => "bytes".to_string(),
        "transpose" => "transpose".to_string(),
        other => format!("numcodecs.{other}"),
    };
    Ok(NamedConfig::new(&name, configuration))
}

/// Parse a draft data type: NumPy-style with byte order, or a core name (little-endian).
fn parse_data_type(value: &Value) -> Result<(DataType, Option<ByteOrder>), MetadataError> {
    let name = match value {
        Value::String(s) => s,
        Value::Object(o) => match o.get("fallback").and_then(Value::as_str) {
            // An extension type with a core fallback reads as the fallback.
            Some(fallback) => fallback,
            None => {
                return Err(MetadataError::Unsupported(format!(
                    "extension data type {value} without a fallback"
                )))
            }
        },
        other => {
            return Err(MetadataError::Invalid(format!(
                "data_type must be a string, not {}",
                kind_of(other)
            )))
        }
    };
    match parse_numpy_dtype(name) {
        Ok(parsed) => Ok(parsed),
        Err(numpy_error) => match DataType::from_name(name) {
            Ok(t) => {
                let endian = (t.endian_unit() > 1).then_some(ByteOrder::Little);
                Ok((t, endian))
            }
            Err(_) => Err(numpy_error),
        },
    }
}

/// Parse a draft `.array.json` into the v3 model.
pub fn parse_array(document: &Map<String, Value>) -> Result<ArrayMetadata, MetadataError> {
    let shape = parse_u64_list(document.get("shape"), "shape")?;
    let grid = document
        .get("chunk_grid")
        .and_then(Value::as_object)
        .ok_or_else(|| MetadataError::Invalid("missing or non-object \"chunk_grid\"".into()))?;
    match grid.get("type").and_then(Value::as_str) {
        Some("regular") | None => {}
        Some(other) => {
            return Err(MetadataError::Unsupported(format!("chunk grid '{other}'")));
        }
    }
    let chunk_shape = parse_u64_list(grid.get("chunk_shape"), "chunk_grid chunk_shape")?;
    if chunk_shape.len() != shape.len() {
        return Err(MetadataError::Invalid(format!(
            "chunk_shape {chunk_shape:?} and shape {shape:?} have different ranks"
        )));
    }
    let separator = match grid.get("separator") {
        None => '/',
        Some(Value::String(s)) if s == "/" => '/',
        Some(Value::String(s)) if s == "." => '.',
        Some(other) => {
            return Err(MetadataError::Invalid(format!(
                "chunk_grid separator must be \"/\" or \".\", not {other}"
            )))
        }
    };
    let (data_type, endian) = parse_data_type(
        document
            .get("data_type")
            .ok_or_else(|| MetadataError::Invalid("missing \"data_type\"".into()))?,
    )?;
    let fill_value = parse_fill_value(
        &data_type,
        document.get("fill_value").unwrap_or(&Value::Null),
    )?;

    let mut codecs = Vec::new();
    match document.get("chunk_memory_layout") {
        None => {}
        Some(Value::String(s)) if s == "C" => {}
        Some(Value::String(s)) if s == "F" => codecs.extend(column_major_transpose(shape.len())),
        Some(other) => {
            return Err(MetadataError::Unsupported(format!(
                "chunk_memory_layout {other}"
            )))
        }
    }
    let mut compressors = Vec::new();
    match document.get("compressor") {
        None | Some(Value::Null) => {}
        Some(value) => compressors.push(translate_codec(value)?),
    }
    match document.get("codecs") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                compressors.push(translate_codec(item)?);
            }
        }
        Some(other) => {
            return Err(MetadataError::Invalid(format!(
                "codecs must be a list, not {}",
                kind_of(other)
            )))
        }
    }
    // The data type carries the stored byte order, unless an explicit endian codec says.
    if !compressors.iter().any(|c| c.name == "bytes") {
        let configuration = endian.map(|e| {
            let mut c = Map::new();
            c.insert(
                "endian".into(),
                Value::from(if e == ByteOrder::Big { "big" } else { "little" }),
            );
            c
        });
        codecs.push(NamedConfig::new("bytes", configuration));
    }
    codecs.extend(compressors);

    if let Some(extensions) = document.get("extensions") {
        match extensions.as_array() {
            Some(list) if list.is_empty() => {}
            _ => {
                return Err(MetadataError::Unsupported(format!(
                    "draft extensions {extensions}"
                )))
            }
        }
    }
    if let Some(Value::Array(transformers)) = document.get("storage_transformers") {
        if !transformers.is_empty() {
            return Err(MetadataError::Unsupported("storage transformers".into()));
        }
    }
    Ok(ArrayMetadata {
        shape,
        data_type,
        chunk_grid: ChunkGrid::regular(chunk_shape)?,
        chunk_key_encoding: ChunkKeyEncoding::Draft2022 { separator },
        fill_value,
        codecs,
        attributes: attributes_of(document)?,
        dimension_names: None,
        ignored_extensions: Map::new(),
    })
}

/// The `attributes` of a draft document (absent means none).
pub fn attributes_of(document: &Map<String, Value>) -> Result<Map<String, Value>, MetadataError> {
    match document.get("attributes") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(a)) => Ok(a.clone()),
        Some(other) => Err(MetadataError::Invalid(format!(
            "attributes must be an object, not {}",
            kind_of(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_zarrita_array() {
        let doc = json!({
            "shape": [512, 512, 3], "data_type": "u1",
            "chunk_grid": {"type": "regular", "chunk_shape": [100, 100, 1], "separator": "/"},
            "chunk_memory_layout": "C", "fill_value": null, "extensions": [], "attributes": {},
            "compressor": {"codec": "https://purl.org/zarr/spec/codec/blosc/1.0",
                           "configuration": {"cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}}
        });
        let m = parse_array(doc.as_object().unwrap()).unwrap();
        assert_eq!(m.data_type, DataType::UInt8);
        let names: Vec<_> = m.codecs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["bytes", "numcodecs.blosc"]);
        assert_eq!(m.chunk_key_encoding.key(&[5, 3, 2]), "c5/3/2");
    }

    #[test]
    fn data_types_and_layout() {
        let doc = json!({
            "shape": [4, 6], "data_type": ">f8",
            "chunk_grid": {"type": "regular", "chunk_shape": [2, 3], "separator": "."},
            "chunk_memory_layout": "F", "fill_value": "NaN",
            "codecs": [{"type": "https://purl.org/zarr/spec/codec/gzip/1.0",
                        "configuration": {"level": 1}}]
        });
        let m = parse_array(doc.as_object().unwrap()).unwrap();
        let names: Vec<_> = m.codecs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["transpose", "bytes", "gzip"]);
        assert_eq!(
            m.codecs[1].configuration.as_ref().unwrap()["endian"],
            json!("big")
        );
        assert_eq!(m.chunk_key_encoding.key(&[1, 0]), "c1.0");
        assert_eq!(
            parse_data_type(&json!("int16")).unwrap(),
            (DataType::Int16, Some(ByteOrder::Little))
        );
        assert_eq!(
            parse_data_type(&json!("bool")).unwrap(),
            (DataType::Bool, None)
        );
        assert!(parse_data_type(&json!("|O")).is_err());
        assert_eq!(
            codec_name_from_uri("https://purl.org/zarr/spec/codec/zlib/1.0"),
            "zlib"
        );
    }

    #[test]
    fn keys() {
        let p = NodePath::new("/foo/baz").unwrap();
        assert_eq!(
            metadata_key(&p, ".array.json"),
            "meta/root/foo/baz.array.json"
        );
        assert_eq!(
            metadata_key(&NodePath::root(), ".group.json"),
            "meta/root.group.json"
        );
        assert_eq!(data_prefix(&p), "data/root/foo/baz/");
        assert!(is_entry_point(
            json!({"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0"})
                .as_object()
                .unwrap()
        ));
    }
}
