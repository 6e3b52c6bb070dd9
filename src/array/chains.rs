//! The codec chains of an array of fixed-size elements: one per chunk shape.
//!
//! A codec chain is built for one chunk representation (shape, data type, fill value):
//! sharding checks that its inner chunks tile the shard, transpose permutes that shape.
//! A regular grid has one chunk shape, so one chain. The chunks of a rectilinear grid
//! differ, so each shape met gets its chain, built when first needed and kept (a bounded
//! number of them: a grid with more distinct shapes rebuilds the rarely used ones).

use crate::chunk_grid::ChunkGrid;
use crate::codec::chain::CodecChain;
use crate::codec::{ChunkRepresentation, CodecError};
use crate::data_type::{DataType, FillValue};
use crate::metadata::NamedConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Chains kept for shapes other than the first (more are built and dropped).
const MAX_KEPT: usize = 256;

#[derive(Debug)]
pub(super) struct Chains {
    codecs: Vec<NamedConfig>,
    data_type: DataType,
    fill_value: FillValue,
    /// The chain for the grid's largest chunk shape (its only one when regular).
    base: Arc<CodecChain>,
    base_shape: Vec<u64>,
    /// Chains for the other chunk shapes of a rectilinear grid.
    others: Mutex<HashMap<Vec<u64>, Arc<CodecChain>>>,
}

impl Chains {
    /// Build the chain of the grid's largest chunk shape (for an array of `shape`), and
    /// check what the other shapes need: with sharding, every chunk length along each
    /// dimension must be a multiple of the inner chunk's.
    pub(super) fn new(
        codecs: &[NamedConfig],
        data_type: &DataType,
        fill_value: &FillValue,
        grid: &ChunkGrid,
        shape: &[u64],
    ) -> Result<Chains, CodecError> {
        let representation = ChunkRepresentation {
            shape: grid.largest_chunk_shape(shape),
            data_type: data_type.clone(),
            fill_value: fill_value.clone(),
        };
        let base = CodecChain::from_metadata(codecs, &representation)?;
        let base_shape = representation.shape;
        if grid.regular_chunk_shape().is_none() {
            if let Some(inner) = base.inner_chunk_shape() {
                check_shards_tile(grid, shape, inner)?;
            }
        }
        Ok(Chains {
            codecs: codecs.to_vec(),
            data_type: data_type.clone(),
            fill_value: fill_value.clone(),
            base: Arc::new(base),
            base_shape,
            others: Mutex::new(HashMap::new()),
        })
    }

    /// The chain of the largest chunk shape: what every chunk shares (its inner chunk
    /// shape, the codec list it writes back).
    pub(super) fn base(&self) -> &CodecChain {
        &self.base
    }

    /// The array's data type.
    pub(super) fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// The chain for chunks of `shape`.
    pub(super) fn for_shape(&self, shape: &[u64]) -> Result<Arc<CodecChain>, CodecError> {
        if self.base_shape == shape {
            return Ok(self.base.clone());
        }
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(chain) = others.get(shape) {
            return Ok(chain.clone());
        }
        let representation = ChunkRepresentation {
            shape: shape.to_vec(),
            data_type: self.data_type.clone(),
            fill_value: self.fill_value.clone(),
        };
        let chain = Arc::new(CodecChain::from_metadata(&self.codecs, &representation)?);
        if others.len() >= MAX_KEPT {
            others.clear();
        }
        others.insert(shape.to_vec(), chain.clone());
        Ok(chain)
    }
}

/// With a rectilinear grid of shards, every shard length along each dimension must be a
/// multiple of the inner chunk length there (each shard is tiled by whole inner chunks).
pub(super) fn check_shards_tile(
    grid: &ChunkGrid,
    shape: &[u64],
    inner: &[u64],
) -> Result<(), CodecError> {
    for (d, (lengths, &inner)) in grid.chunk_lengths(shape).iter().zip(inner).enumerate() {
        if let Some(length) = lengths.iter().find(|&&l| l % inner != 0) {
            return Err(CodecError::InvalidChain(format!(
                "sharding_indexed: a shard of length {length} along dimension {d} is not a \
                 multiple of the inner chunk length {inner}"
            )));
        }
    }
    Ok(())
}
