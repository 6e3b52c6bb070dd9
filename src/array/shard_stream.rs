//! Writing one whole shard from its inner chunks, each encoded as soon as its elements are
//! known, in C order: for writers that receive a shard in parts and should not hold it
//! decoded (the collective write, whose owner of a 64 MiB shard would otherwise hold the
//! shard decoded and encoded at once). Only the encoded inner chunks accumulate. The bytes
//! stored are those of writing the shard whole ([`Array::write_chunk`]): inner chunks all
//! fill value are left out, and a shard with none is erased.

use super::locks::store_chunk;
use super::{invalid_layout, Array, ArrayState};
use crate::codec::array_to_bytes::sharding::{Piece, ShardBuilder};
use crate::codec::chain::CodecChain;
use crate::codec::Parallelism;
use crate::error::Error;
use crate::layout::InBlock;
use crate::storage::Storage;
use std::sync::Arc;

/// A shard being written inner chunk by inner chunk (see the module documentation).
pub struct ShardStream {
    storage: Arc<dyn Storage>,
    key: String,
    /// The shard's chain: `sharding_indexed` alone.
    chain: Arc<CodecChain>,
    builder: ShardBuilder,
}

impl Array {
    /// The inner chunk shape, when the array's codecs are `sharding_indexed` alone: its
    /// shards can be written with [`Array::shard_stream`].
    pub fn streamable_inner_chunk_shape(&self) -> Option<Vec<u64>> {
        let state = self.state();
        let chains = state.chains().ok()?;
        let (layout, _) = chains.base().shard_parts()?;
        Some(layout.inner_chunk_shape().to_vec())
    }

    /// A stream writing the whole shard at grid coordinates `shard`, when the array's codecs
    /// are `sharding_indexed` alone and the shard lies inside the array (`None` otherwise:
    /// write the shard whole, or as a region).
    pub fn shard_stream(&self, shard: &[u64]) -> Result<Option<ShardStream>, Error> {
        let state: Arc<ArrayState> = self.state();
        state.check_chunk_indices(shard)?;
        let (origin, full) = state.grid().chunk_region(shard);
        let inside = (0..full.len()).all(|d| origin[d] + full[d] <= state.metadata.shape[d]);
        let chain = state.chains()?.for_shape(&full)?;
        let Some((layout, _)) = chain.shard_parts() else {
            return Ok(None);
        };
        if !inside {
            return Ok(None);
        }
        let builder = ShardBuilder::new(layout)?;
        Ok(Some(ShardStream {
            storage: self.storage.clone(),
            key: self.key_of(&state, shard),
            chain,
            builder,
        }))
    }
}

impl ShardStream {
    fn parts(
        &self,
    ) -> (
        &crate::codec::array_to_bytes::sharding::ShardLayout,
        &CodecChain,
    ) {
        self.chain
            .shard_parts()
            .expect("a stream is made only for a shard chain")
    }

    /// The shape of the inner chunks.
    pub fn inner_chunk_shape(&self) -> &[u64] {
        self.parts().0.inner_chunk_shape()
    }

    /// The number of inner chunks along each dimension of the shard.
    pub fn chunks_per_shard(&self) -> &[u64] {
        self.parts().0.chunks_per_shard()
    }

    /// Encode one inner chunk whose elements are `block` (its extent is the inner chunk
    /// shape); `None` when they are all the fill value. Safe to call from several threads;
    /// hand the results to [`ShardStream::push`] in C order of the inner chunks.
    pub fn encode(&self, block: &InBlock) -> Result<Option<Vec<u8>>, Error> {
        if block.extent() != self.inner_chunk_shape() {
            return Err(invalid_layout(crate::layout::LayoutError(format!(
                "an inner chunk of {:?} given for inner chunks of {:?}",
                block.extent(),
                self.inner_chunk_shape()
            ))));
        }
        let (_, inner) = self.parts();
        inner
            .encode_block(block, Parallelism::SERIAL)
            .map_err(|e| super::planner::with_chunk_context(e, &self.key))
    }

    /// Append the next inner chunk, as [`ShardStream::encode`] gave it.
    pub fn push(&mut self, encoded: Option<Vec<u8>>) -> Result<(), Error> {
        let piece = match encoded {
            Some(bytes) => Piece::New(bytes),
            None => Piece::Absent,
        };
        let layout = self
            .chain
            .shard_parts()
            .expect("a stream is made only for a shard chain")
            .0;
        Ok(self.builder.push(layout, piece)?)
    }

    /// Store the shard (every inner chunk pushed), replacing what was stored, or erase it
    /// when every inner chunk is absent.
    pub fn finish(self) -> Result<(), Error> {
        let layout = self
            .chain
            .shard_parts()
            .expect("a stream is made only for a shard chain")
            .0;
        let (shard, all_absent) = self.builder.finish(layout)?;
        store_chunk(
            self.storage.as_ref(),
            &self.key,
            (!all_absent).then_some(shard),
        )
    }
}
