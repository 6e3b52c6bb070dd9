//! Zarr v3 `zarr.json` documents for arrays and groups.

use super::json::kind_of;
use super::{MetadataError, NamedConfig};
use crate::chunk_grid::{parse_u64_list, ChunkGrid};
use crate::chunk_key_encoding::ChunkKeyEncoding;
use crate::data_type::{ByteOrder, DataType, FillValue};
use serde_json::{Map, Value};

/// The kind of node a `zarr.json` describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeType {
    Array,
    Group,
}

impl NodeType {
    pub fn as_str(&self) -> &'static str {
        match self {
            NodeType::Array => "array",
            NodeType::Group => "group",
        }
    }
}

/// A parsed and validated v3 array `zarr.json`.
#[derive(Clone, Debug)]
pub struct ArrayMetadata {
    pub shape: Vec<u64>,
    pub data_type: DataType,
    pub chunk_grid: ChunkGrid,
    pub chunk_key_encoding: ChunkKeyEncoding,
    pub fill_value: FillValue,
    /// The codec list as written, in encoding order.
    pub codecs: Vec<NamedConfig>,
    pub attributes: Map<String, Value>,
    pub dimension_names: Option<Vec<Option<String>>>,
    /// Extension fields marked `"must_understand": false`, kept so that a rewrite of the
    /// document (e.g. new attributes) does not lose them.
    pub ignored_extensions: Map<String, Value>,
}

/// A parsed v3 group `zarr.json`.
#[derive(Clone, Debug, Default)]
pub struct GroupMetadata {
    pub attributes: Map<String, Value>,
    /// Extension fields marked `"must_understand": false` (such as zarr-python's
    /// `consolidated_metadata`), kept on rewrite.
    pub ignored_extensions: Map<String, Value>,
}

const ARRAY_KEYS: &[&str] = &[
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "storage_transformers",
];

/// Read `zarr_format` and `node_type` from a v3 document.
pub fn node_type_of(document: &Map<String, Value>) -> Result<NodeType, MetadataError> {
    match document.get("zarr_format") {
        Some(v) if v.as_u64() == Some(3) => {}
        Some(v) => {
            return Err(MetadataError::Unsupported(format!(
                "zarr_format {v} (expected 3)"
            )))
        }
        None => return Err(MetadataError::Invalid("missing \"zarr_format\"".into())),
    }
    match document.get("node_type").and_then(Value::as_str) {
        Some("array") => Ok(NodeType::Array),
        Some("group") => Ok(NodeType::Group),
        Some(other) => Err(MetadataError::Invalid(format!(
            "node_type must be \"array\" or \"group\", not \"{other}\""
        ))),
        None => Err(MetadataError::Invalid(
            "missing or non-string \"node_type\"".into(),
        )),
    }
}

/// Apply the spec's rule to keys this library does not know: keep them when their value is
/// an object with `"must_understand": false`, refuse the document otherwise.
fn collect_ignorable_extensions(
    document: &Map<String, Value>,
    known: &[&str],
) -> Result<Map<String, Value>, MetadataError> {
    let mut ignored = Map::new();
    for (key, value) in document {
        if known.contains(&key.as_str()) {
            continue;
        }
        let ignorable = value
            .as_object()
            .and_then(|o| o.get("must_understand"))
            .and_then(Value::as_bool)
            == Some(false);
        if !ignorable {
            return Err(MetadataError::Unsupported(format!(
                "unknown metadata field \"{key}\" (not marked \"must_understand\": false)"
            )));
        }
        ignored.insert(key.clone(), value.clone());
    }
    Ok(ignored)
}

fn parse_attributes(document: &Map<String, Value>) -> Result<Map<String, Value>, MetadataError> {
    match document.get("attributes") {
        None => Ok(Map::new()),
        Some(Value::Object(attributes)) => Ok(attributes.clone()),
        Some(other) => Err(MetadataError::Invalid(format!(
            "attributes must be an object, not {}",
            kind_of(other)
        ))),
    }
}

impl ArrayMetadata {
    /// Parse and validate an array document (`node_type` must be `"array"`).
    pub fn parse(document: &Map<String, Value>) -> Result<ArrayMetadata, MetadataError> {
        if node_type_of(document)? != NodeType::Array {
            return Err(MetadataError::Invalid(
                "node_type is \"group\", expected \"array\"".into(),
            ));
        }
        let ignored_extensions = collect_ignorable_extensions(document, ARRAY_KEYS)?;
        let shape = parse_u64_list(document.get("shape"), "shape")?;

        let data_type = match document.get("data_type") {
            Some(value) => DataType::from_json(value)?,
            None => return Err(MetadataError::Invalid("missing \"data_type\"".into())),
        };

        let chunk_grid = ChunkGrid::from_metadata(&NamedConfig::parse(
            document
                .get("chunk_grid")
                .ok_or_else(|| MetadataError::Invalid("missing \"chunk_grid\"".into()))?,
            "chunk_grid",
        )?)?;
        if chunk_grid.ndim() != shape.len() {
            return Err(MetadataError::Invalid(format!(
                "the chunk grid has {} dimensions but shape {:?} has {}",
                chunk_grid.ndim(),
                shape,
                shape.len()
            )));
        }
        chunk_grid.check_covers(&shape)?;

        let chunk_key_encoding = ChunkKeyEncoding::from_metadata(&NamedConfig::parse(
            document
                .get("chunk_key_encoding")
                .ok_or_else(|| MetadataError::Invalid("missing \"chunk_key_encoding\"".into()))?,
            "chunk_key_encoding",
        )?)?;

        let codecs = match document.get("codecs") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| NamedConfig::parse(item, "codec"))
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                return Err(MetadataError::Invalid(format!(
                    "codecs must be an array, not {}",
                    kind_of(other)
                )))
            }
            // Pre-final drafts of v3 had no `codecs` key, meaning uncompressed little-endian
            // chunks; GDAL wrote such documents. The spec now requires the key: read the
            // old form, always write the new one.
            None => {
                let endian = (data_type.endian_unit() > 1).then(|| {
                    let mut configuration = Map::new();
                    configuration.insert("endian".into(), Value::from("little"));
                    configuration
                });
                vec![NamedConfig::new("bytes", endian)]
            }
        };

        // Base64 fill values of struct types (zarr-python's legacy `structured`) hold the
        // element in the byte order of the `bytes` codec, little-endian when it has none.
        let stored_order = match codecs
            .iter()
            .find(|c| c.name == "bytes" || c.name == "endian")
            .and_then(|c| c.configuration.as_ref())
            .and_then(|c| c.get("endian"))
            .and_then(Value::as_str)
        {
            Some("big") => ByteOrder::Big,
            _ => ByteOrder::Little,
        };
        let fill_value = data_type.parse_fill_value_stored(
            document
                .get("fill_value")
                .ok_or_else(|| MetadataError::Invalid("missing \"fill_value\"".into()))?,
            stored_order,
        )?;

        if let Some(transformers) = document.get("storage_transformers") {
            let transformers = transformers.as_array().ok_or_else(|| {
                MetadataError::Invalid("storage_transformers must be an array".into())
            })?;
            for transformer in transformers {
                let config = NamedConfig::parse(transformer, "storage transformer")?;
                if config.must_understand {
                    return Err(MetadataError::Unsupported(format!(
                        "storage transformer '{}'",
                        config.name
                    )));
                }
            }
        }

        let dimension_names = match document.get("dimension_names") {
            None | Some(Value::Null) => None,
            Some(Value::Array(names)) => {
                if names.len() != shape.len() {
                    return Err(MetadataError::Invalid(format!(
                        "dimension_names has {} entries but the array has {} dimensions",
                        names.len(),
                        shape.len()
                    )));
                }
                Some(
                    names
                        .iter()
                        .map(|name| match name {
                            Value::Null => Ok(None),
                            Value::String(s) => Ok(Some(s.clone())),
                            other => Err(MetadataError::Invalid(format!(
                                "dimension_names entries must be strings or null, found {other}"
                            ))),
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            Some(other) => {
                return Err(MetadataError::Invalid(format!(
                    "dimension_names must be an array, not {}",
                    kind_of(other)
                )))
            }
        };

        Ok(ArrayMetadata {
            shape,
            data_type,
            chunk_grid,
            chunk_key_encoding,
            fill_value,
            codecs,
            attributes: parse_attributes(document)?,
            dimension_names,
            ignored_extensions,
        })
    }

    /// The document to store, in the canonical spelling every peer reads.
    pub fn to_json(&self) -> Value {
        let mut document = Map::new();
        document.insert("zarr_format".into(), Value::from(3));
        document.insert("node_type".into(), Value::from("array"));
        document.insert("shape".into(), Value::from(self.shape.clone()));
        document.insert("data_type".into(), self.data_type.to_json());
        document.insert("chunk_grid".into(), self.chunk_grid.to_metadata().to_json());
        document.insert(
            "chunk_key_encoding".into(),
            self.chunk_key_encoding.to_metadata().to_json(),
        );
        document.insert(
            "fill_value".into(),
            self.data_type.fill_value_to_json(&self.fill_value),
        );
        document.insert(
            "codecs".into(),
            Value::Array(self.codecs.iter().map(NamedConfig::to_json).collect()),
        );
        document.insert("attributes".into(), Value::Object(self.attributes.clone()));
        if let Some(names) = &self.dimension_names {
            document.insert(
                "dimension_names".into(),
                Value::Array(
                    names
                        .iter()
                        .map(|n| n.clone().map_or(Value::Null, Value::from))
                        .collect(),
                ),
            );
        }
        for (key, value) in &self.ignored_extensions {
            document.insert(key.clone(), value.clone());
        }
        Value::Object(document)
    }
}

impl GroupMetadata {
    /// Parse a group document (`node_type` must be `"group"`).
    pub fn parse(document: &Map<String, Value>) -> Result<GroupMetadata, MetadataError> {
        if node_type_of(document)? != NodeType::Group {
            return Err(MetadataError::Invalid(
                "node_type is \"array\", expected \"group\"".into(),
            ));
        }
        let mut known = vec!["zarr_format", "node_type", "attributes"];
        // zarr-python <= 3.1.3 writes "consolidated_metadata": null into every group; the
        // key is tolerated as null and kept (as must_understand: false) when it is an object.
        if matches!(document.get("consolidated_metadata"), Some(Value::Null)) {
            known.push("consolidated_metadata");
        }
        let ignored_extensions = collect_ignorable_extensions(document, &known)?;
        Ok(GroupMetadata {
            attributes: parse_attributes(document)?,
            ignored_extensions,
        })
    }

    pub fn to_json(&self) -> Value {
        let mut document = Map::new();
        document.insert("zarr_format".into(), Value::from(3));
        document.insert("node_type".into(), Value::from("group"));
        document.insert("attributes".into(), Value::Object(self.attributes.clone()));
        for (key, value) in &self.ignored_extensions {
            document.insert(key.clone(), value.clone());
        }
        Value::Object(document)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn base() -> Value {
        json!({
            "zarr_format": 3, "node_type": "array", "shape": [10, 20], "data_type": "int16",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 5]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0,
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        })
    }

    #[test]
    fn parses_and_round_trips() {
        let m = ArrayMetadata::parse(&doc(base())).unwrap();
        assert_eq!(m.shape, vec![10, 20]);
        let again = ArrayMetadata::parse(m.to_json().as_object().unwrap()).unwrap();
        assert_eq!(again.shape, m.shape);
        assert_eq!(again.codecs, m.codecs);
    }

    #[test]
    fn must_understand_rule() {
        let mut v = base();
        v["my_ext"] = json!({"must_understand": false, "x": 1});
        let m = ArrayMetadata::parse(&doc(v.clone())).unwrap();
        assert!(m.to_json().get("my_ext").is_some());
        v["other"] = json!({"x": 1});
        assert!(matches!(
            ArrayMetadata::parse(&doc(v)),
            Err(MetadataError::Unsupported(_))
        ));
        let mut w = base();
        w["flag"] = json!(true);
        assert!(ArrayMetadata::parse(&doc(w)).is_err());
    }

    #[test]
    fn rejects_bad_documents() {
        for (key, value) in [
            ("shape", json!([10])),
            ("shape", json!([-1, 2])),
            ("fill_value", json!(null)),
            ("data_type", json!("int128")),
            (
                "chunk_grid",
                json!({"name": "regular", "configuration": {"chunk_shape": [0, 5]}}),
            ),
            ("chunk_grid", json!({"name": "rectilinear"})),
            ("codecs", json!({})),
            ("zarr_format", json!(2)),
            ("dimension_names", json!(["x"])),
            ("storage_transformers", json!([{"name": "t"}])),
        ] {
            let mut v = base();
            v[key] = value.clone();
            assert!(ArrayMetadata::parse(&doc(v)).is_err(), "{key} = {value}");
        }
    }

    #[test]
    fn group_tolerates_null_consolidated_metadata() {
        let g = GroupMetadata::parse(&doc(json!({
            "zarr_format": 3, "node_type": "group", "consolidated_metadata": null,
            "attributes": {"a": 1}
        })))
        .unwrap();
        assert_eq!(g.attributes["a"], json!(1));
        assert!(g.to_json().get("consolidated_metadata").is_none());
    }
}
