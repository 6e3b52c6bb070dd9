//! The regular chunk grid: every chunk has the same shape; edge chunks are stored full-size.

use crate::metadata::extension::reject_unknown_keys;
use crate::metadata::{MetadataError, NamedConfig};
use serde_json::{Map, Value};

/// A regular chunk grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegularChunkGrid {
    chunk_shape: Vec<u64>,
}

impl RegularChunkGrid {
    /// A grid of the given chunk shape; every extent must be positive.
    pub fn new(chunk_shape: Vec<u64>) -> Result<RegularChunkGrid, MetadataError> {
        if chunk_shape.contains(&0) {
            return Err(MetadataError::Invalid(format!(
                "chunk_grid: chunk_shape {chunk_shape:?} has a zero extent"
            )));
        }
        Ok(RegularChunkGrid { chunk_shape })
    }

    /// Parse `{"name": "regular", "configuration": {"chunk_shape": [...]}}`.
    pub fn from_metadata(config: &NamedConfig) -> Result<RegularChunkGrid, MetadataError> {
        if config.name != "regular" {
            return Err(MetadataError::Unsupported(format!(
                "chunk grid '{}'",
                config.name
            )));
        }
        let configuration = config.configuration.as_ref().ok_or_else(|| {
            MetadataError::Invalid("chunk_grid 'regular' needs a configuration".into())
        })?;
        reject_unknown_keys(configuration, &["chunk_shape"], "chunk_grid 'regular'")?;
        let chunk_shape =
            parse_u64_list(configuration.get("chunk_shape"), "chunk_grid chunk_shape")?;
        RegularChunkGrid::new(chunk_shape)
    }

    pub fn to_metadata(&self) -> NamedConfig {
        let mut configuration = Map::new();
        configuration.insert("chunk_shape".into(), Value::from(self.chunk_shape.clone()));
        NamedConfig::new("regular", Some(configuration))
    }

    pub fn chunk_shape(&self) -> &[u64] {
        &self.chunk_shape
    }

    /// Number of chunks along each dimension for an array of `array_shape`.
    pub fn grid_shape(&self, array_shape: &[u64]) -> Vec<u64> {
        array_shape
            .iter()
            .zip(&self.chunk_shape)
            .map(|(extent, chunk)| extent.div_ceil(*chunk))
            .collect()
    }
}

/// Parse a JSON array of non-negative integers.
pub(crate) fn parse_u64_list(value: Option<&Value>, what: &str) -> Result<Vec<u64>, MetadataError> {
    let items = value
        .and_then(Value::as_array)
        .ok_or_else(|| MetadataError::Invalid(format!("{what} must be an array of integers")))?;
    items
        .iter()
        .map(|item| {
            item.as_u64().ok_or_else(|| {
                MetadataError::Invalid(format!(
                    "{what} must hold non-negative integers, found {item}"
                ))
            })
        })
        .collect()
}
