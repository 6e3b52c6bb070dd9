//! Chunk key encodings: how chunk grid coordinates become store keys.

use crate::extension::{reject_unknown_keys, NamedConfig};
use crate::metadata_error::MetadataError;
use serde_json::{Map, Value};
use std::fmt::Write;

/// A chunk key encoding with its separator (`/` or `.`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKeyEncoding {
    /// `c` followed by each index after a separator: `c/1/2`, `c.1.2`; a 0-d chunk is `c`.
    Default { separator: char },
    /// The indices joined by the separator: `1.2`; a 0-d chunk is `0`.
    V2 { separator: char },
    /// The 2022 draft of v3 (read only): `c` directly followed by the indices joined by
    /// the separator: `c1/2`; a 0-d chunk is `c`. Never written into a `zarr.json`.
    Draft2022 { separator: char },
}

impl ChunkKeyEncoding {
    pub fn from_metadata(config: &NamedConfig) -> Result<ChunkKeyEncoding, MetadataError> {
        let (default_separator, make): (char, fn(char) -> ChunkKeyEncoding) =
            match config.name.as_str() {
                "default" => ('/', |separator| ChunkKeyEncoding::Default { separator }),
                "v2" => ('.', |separator| ChunkKeyEncoding::V2 { separator }),
                other => {
                    return Err(MetadataError::Unsupported(format!(
                        "chunk key encoding '{other}'"
                    )))
                }
            };
        let what = format!("chunk_key_encoding '{}'", config.name);
        let separator = match &config.configuration {
            None => default_separator,
            Some(configuration) => {
                reject_unknown_keys(configuration, &["separator"], &what)?;
                match configuration.get("separator") {
                    None => default_separator,
                    Some(Value::String(s)) if s == "/" => '/',
                    Some(Value::String(s)) if s == "." => '.',
                    Some(other) => {
                        return Err(MetadataError::Invalid(format!(
                            "{what}: separator must be \"/\" or \".\", not {other}"
                        )))
                    }
                }
            }
        };
        Ok(make(separator))
    }

    pub fn to_metadata(&self) -> NamedConfig {
        let (name, separator) = match self {
            ChunkKeyEncoding::Default { separator } => ("default", separator),
            ChunkKeyEncoding::V2 { separator } => ("v2", separator),
            // Only draft documents use it, and they are never rewritten as v3.
            ChunkKeyEncoding::Draft2022 { separator } => ("draft2022", separator),
        };
        let mut configuration = Map::new();
        configuration.insert("separator".into(), Value::from(separator.to_string()));
        NamedConfig::new(name, Some(configuration))
    }

    /// The key of the chunk at `indices`, relative to the array's prefix.
    pub fn key(&self, indices: &[u64]) -> String {
        let mut key = String::with_capacity(2 + indices.len() * 4);
        match self {
            ChunkKeyEncoding::Default { separator } => {
                key.push('c');
                for index in indices {
                    key.push(*separator);
                    let _ = write!(key, "{index}");
                }
            }
            ChunkKeyEncoding::V2 { separator } => {
                if indices.is_empty() {
                    key.push('0');
                }
                for (i, index) in indices.iter().enumerate() {
                    if i > 0 {
                        key.push(*separator);
                    }
                    let _ = write!(key, "{index}");
                }
            }
            ChunkKeyEncoding::Draft2022 { separator } => {
                key.push('c');
                for (i, index) in indices.iter().enumerate() {
                    if i > 0 {
                        key.push(*separator);
                    }
                    let _ = write!(key, "{index}");
                }
            }
        }
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<ChunkKeyEncoding, MetadataError> {
        ChunkKeyEncoding::from_metadata(&NamedConfig::parse(&v, "chunk_key_encoding").unwrap())
    }

    #[test]
    fn keys() {
        let d = parse(json!({"name": "default"})).unwrap();
        assert_eq!(d.key(&[1, 23, 45]), "c/1/23/45");
        assert_eq!(d.key(&[]), "c");
        let dot = parse(json!({"name": "default", "configuration": {"separator": "."}})).unwrap();
        assert_eq!(dot.key(&[1, 2]), "c.1.2");
        let v2 = parse(json!("v2")).unwrap();
        assert_eq!(v2.key(&[1, 23, 45]), "1.23.45");
        assert_eq!(v2.key(&[]), "0");
        let v2s = parse(json!({"name": "v2", "configuration": {"separator": "/"}})).unwrap();
        assert_eq!(v2s.key(&[1, 2]), "1/2");
        assert!(parse(json!({"name": "default", "configuration": {"separator": "-"}})).is_err());
        assert!(parse(json!({"name": "other"})).is_err());
    }
}
