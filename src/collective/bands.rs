//! A banded shard on its owner (`plan::Assembly::Banded`): the shard is filled one band
//! (one row of inner chunks along the first dimension) at a time, and each band's inner
//! chunks are encoded into the shard's stream (`Array::shard_stream`) as soon as the band
//! is complete, so the owner holds one band decoded and the shard's encoded bytes, never the
//! whole shard decoded. The pieces' atoms arrive band by band (the plan orders them so).

use super::plan::Region;
use crate::array::{Array, ShardStream};
use crate::error::Error;
use crate::layout::{InBlock, Layout};
use rayon::prelude::*;
use std::ops::Range;

/// This rank's own piece of the shard, in its caller's buffer.
pub(super) struct Own<'a> {
    /// The piece.
    pub piece: &'a Region,
    /// The rank's whole box, whose dense C-order elements are `data`.
    pub within: &'a Region,
    pub data: &'a [u8],
}

pub(super) struct BandedShard {
    stream: ShardStream,
    /// The shard's region of the array.
    shard: Region,
    /// Rows of a band: the inner chunks' first extent.
    rows: u64,
    element_size: u64,
    /// The next band to encode.
    next: u64,
    /// The band being filled, and its elements.
    filling: Option<(u64, Vec<u8>)>,
}

impl BandedShard {
    /// Start the shard at `grid_index` of `array`, covering `shard` (its region), in bands
    /// of `rows`.
    pub(super) fn new(
        array: &Array,
        grid_index: &[u64],
        shard: Region,
        rows: u64,
        element_size: u64,
    ) -> Result<BandedShard, Error> {
        let stream = array.shard_stream(grid_index)?.ok_or_else(|| {
            Error::Internal("a banded shard whose array cannot stream shards".into())
        })?;
        Ok(BandedShard {
            stream,
            shard,
            rows,
            element_size,
            next: 0,
            filling: None,
        })
    }

    fn bands(&self) -> u64 {
        self.shard.count[0].div_ceil(self.rows)
    }

    /// Band `band`'s region of the array.
    fn band_region(&self, band: u64) -> Region {
        let mut region = self.shard.clone();
        region.start[0] += band * self.rows;
        region.count[0] = self.rows.min(self.shard.count[0] - band * self.rows);
        region
    }

    /// Put rows `rows` of `piece` (their elements `bytes`, dense C order) into their band,
    /// after encoding every band before it.
    pub(super) fn put(
        &mut self,
        piece: &Region,
        rows: Range<u64>,
        bytes: &[u8],
        own: Option<&Own>,
    ) -> Result<(), Error> {
        let first_row = piece.start[0] + rows.start - self.shard.start[0];
        let band = first_row / self.rows;
        self.encode_until(band, own)?;
        let region = self.band_region(band);
        let buffer = match &mut self.filling {
            Some((b, buffer)) if *b == band => buffer,
            _ => {
                let bytes = (region.elements() * self.element_size) as usize;
                let buffer = crate::sys::alloc::zeroed_vec(bytes).ok_or_else(|| {
                    Error::OutOfMemory(format!("{bytes} bytes of a band of a shard"))
                })?;
                &mut self.filling.insert((band, buffer)).1
            }
        };
        let mut extent = piece.count.clone();
        extent[0] = rows.end - rows.start;
        let mut at: Vec<u64> = (0..piece.start.len())
            .map(|d| piece.start[d] - region.start[d])
            .collect();
        at[0] = piece.start[0] + rows.start - region.start[0];
        let source = dense(&extent, self.element_size)?;
        let target = dense(&region.count, self.element_size)?;
        InBlock::whole(bytes, &source)
            .map_err(layout_error)?
            .copy_to(buffer, &target, &at);
        Ok(())
    }

    /// Encode every band before `band` (those no atom came for hold only this rank's own
    /// piece).
    fn encode_until(&mut self, band: u64, own: Option<&Own>) -> Result<(), Error> {
        while self.next < band {
            self.encode_next(own)?;
        }
        Ok(())
    }

    /// Complete the next band with this rank's own piece, encode its inner chunks (in
    /// parallel) and push them in order.
    fn encode_next(&mut self, own: Option<&Own>) -> Result<(), Error> {
        let band = self.next;
        let region = self.band_region(band);
        let mut buffer = match self.filling.take() {
            Some((b, buffer)) if b == band => buffer,
            _ => {
                let bytes = (region.elements() * self.element_size) as usize;
                crate::sys::alloc::zeroed_vec(bytes).ok_or_else(|| {
                    Error::OutOfMemory(format!("{bytes} bytes of a band of a shard"))
                })?
            }
        };
        let layout = dense(&region.count, self.element_size)?;
        if let Some(own) = own {
            if let Some(part) = own.piece.intersection(&region) {
                let source = dense(&own.within.count, self.element_size)?;
                let offset: Vec<u64> = (0..part.start.len())
                    .map(|d| part.start[d] - own.within.start[d])
                    .collect();
                let at: Vec<u64> = (0..part.start.len())
                    .map(|d| part.start[d] - region.start[d])
                    .collect();
                InBlock::whole(own.data, &source)
                    .map_err(layout_error)?
                    .sub(&offset, &part.count)
                    .copy_to(&mut buffer, &layout, &at);
            }
        }
        // The band is one row of inner chunks: their origins, in C order.
        let inner = self.stream.inner_chunk_shape().to_vec();
        let across: Vec<u64> = self.stream.chunks_per_shard()[1..].to_vec();
        let count: u64 = across.iter().product();
        let whole = InBlock::whole(&buffer, &layout).map_err(layout_error)?;
        let stream = &self.stream;
        let encoded: Vec<Option<Vec<u8>>> = crate::threads::pool()?.install(|| {
            (0..count)
                .into_par_iter()
                .map(|linear| {
                    let mut origin = vec![0u64; inner.len()];
                    let mut rest = linear;
                    for d in (1..inner.len()).rev() {
                        origin[d] = (rest % across[d - 1]) * inner[d];
                        rest /= across[d - 1];
                    }
                    stream.encode(&whole.sub(&origin, &inner))
                })
                .collect::<Result<_, _>>()
        })?;
        drop(buffer);
        for inner_chunk in encoded {
            self.stream.push(inner_chunk)?;
        }
        self.next += 1;
        Ok(())
    }

    /// Encode the bands left, then store the shard.
    pub(super) fn finish(mut self, own: Option<&Own>) -> Result<(), Error> {
        let bands = self.bands();
        self.encode_until(bands, own)?;
        self.stream.finish()
    }
}

fn dense(shape: &[u64], element_size: u64) -> Result<Layout, Error> {
    Layout::c_order(shape, element_size as usize).map_err(layout_error)
}

fn layout_error(error: crate::layout::LayoutError) -> Error {
    Error::Internal(format!("a banded shard's layout: {}", error.0))
}
