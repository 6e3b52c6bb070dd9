//! Extension points: `{"name": ..., "configuration": {...}}` or a bare name string.

use crate::metadata_error::{kind_of, MetadataError};
use serde_json::{Map, Value};

/// A parsed extension-point object (codec, chunk grid, chunk key encoding, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedConfig {
    pub name: String,
    pub configuration: Option<Map<String, Value>>,
    /// `false` only when the document says `"must_understand": false`.
    pub must_understand: bool,
}

impl NamedConfig {
    pub fn new(name: &str, configuration: Option<Map<String, Value>>) -> NamedConfig {
        NamedConfig {
            name: name.to_string(),
            configuration,
            must_understand: true,
        }
    }

    /// Parse the object form or the short-hand string form of an extension point.
    pub fn parse(value: &Value, what: &str) -> Result<NamedConfig, MetadataError> {
        match value {
            Value::String(name) => Ok(NamedConfig::new(name, None)),
            Value::Object(object) => {
                let name = match object.get("name") {
                    Some(Value::String(name)) => name.clone(),
                    Some(other) => {
                        return Err(MetadataError::Invalid(format!(
                            "{what}: \"name\" must be a string, not {}",
                            kind_of(other)
                        )))
                    }
                    None => {
                        return Err(MetadataError::Invalid(format!("{what}: missing \"name\"")))
                    }
                };
                let configuration = match object.get("configuration") {
                    None => None,
                    Some(Value::Object(c)) => Some(c.clone()),
                    Some(other) => {
                        return Err(MetadataError::Invalid(format!(
                            "{what} '{name}': \"configuration\" must be an object, not {}",
                            kind_of(other)
                        )))
                    }
                };
                let must_understand = match object.get("must_understand") {
                    None => true,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(MetadataError::Invalid(format!(
                            "{what} '{name}': \"must_understand\" must be a boolean, not {}",
                            kind_of(other)
                        )))
                    }
                };
                if let Some(key) = object
                    .keys()
                    .find(|k| !matches!(k.as_str(), "name" | "configuration" | "must_understand"))
                {
                    return Err(MetadataError::Invalid(format!(
                        "{what} '{name}': unexpected key \"{key}\""
                    )));
                }
                Ok(NamedConfig {
                    name,
                    configuration,
                    must_understand,
                })
            }
            other => Err(MetadataError::Invalid(format!(
                "{what} must be a string or an object, not {}",
                kind_of(other)
            ))),
        }
    }

    /// The object form, which every reader (including zarr-python 3.0) understands.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("name".into(), Value::from(self.name.clone()));
        if let Some(configuration) = &self.configuration {
            object.insert("configuration".into(), Value::Object(configuration.clone()));
        }
        if !self.must_understand {
            object.insert("must_understand".into(), Value::Bool(false));
        }
        Value::Object(object)
    }
}

/// Reject configuration keys other than `allowed`, naming the first stray one.
pub fn reject_unknown_keys(
    configuration: &Map<String, Value>,
    allowed: &[&str],
    what: &str,
) -> Result<(), MetadataError> {
    match configuration
        .keys()
        .find(|k| !allowed.contains(&k.as_str()))
    {
        Some(key) => Err(MetadataError::Invalid(format!(
            "{what}: unknown configuration key \"{key}\""
        ))),
        None => Ok(()),
    }
}
