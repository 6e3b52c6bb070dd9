//! The I/O planner: cuts a block of an array into units (the chunks it touches), runs the
//! units on the worker pool, and has each decode straight into its own block of the
//! caller's buffer, or encode straight from it.
//!
//! What a unit does is the codec chain's business ([`CodecChain::decode_region`],
//! [`CodecChain::encode_block`], [`CodecChain::encode_update`]): the planner never asks
//! which codecs it has. It only decides where work runs:
//! - one unit whose chunk has no smaller independently decodable parts runs on the calling
//!   thread (starting the pool would cost more than it saves: the latency of small reads);
//! - otherwise units run on the pool, in batches (so nothing proportional to the number of
//!   chunks is held at once); when there are fewer units than workers, each unit may spread
//!   its parts (a shard's inner chunks) over the workers too;
//! - among many units, neighbours along the last dimension whose rows in the caller's
//!   buffer are short are read as one row group: decoded side by side on one worker, then
//!   copied row by row (`read_row_group`), so that the caller's pages are written front to
//!   back.
//!
//! Memory: a read holds, per worker, at most one chunk's encoded bytes and its decoded form
//! (or, for a shard, one batch of neighbouring inner chunks, see `ByteSource::batch_bytes`,
//! and one decoded inner chunk; for a row group, the group's decoded units, at most
//! `ROW_GROUP_BYTES`); the caller's buffer is written in place. Each worker reuses those
//! buffers from chunk to chunk (`crate::scratch`: allocating them afresh made the kernel
//! fault their pages in again for every chunk) and frees them when the read or write ends.

use super::chains::Chains;
use super::locks::{store_chunk, update_chunk};
use crate::chunk_grid::{ChunkCuts, ChunkGrid};
use crate::chunk_key_encoding::ChunkKeyEncoding;
use crate::codec::chain::CodecChain;
use crate::codec::{CodecError, Parallelism};
use crate::data_type::FillValue;
use crate::error::Error;
use crate::layout::{CellWalk, InBlock, Layout};
use crate::selection::{checked_product, RegularCuts};
use crate::storage::source::StoreValue;
use crate::storage::Storage;
use crate::sys::shared_out::{OutBlock, OutBuffer, OutCell};
use rayon::prelude::*;

/// Units handed to the pool at a time.
const BATCH: usize = 4096;

/// Below this many bytes, faulting in the output's pages in advance is not worth it.
const PREFAULT_MIN: usize = 1 << 20;

/// Units whose rows in the caller's buffer are shorter than this are read in row groups
/// (see `read_row_group`), until the group's rows reach it.
const ROW_GROUP_ROW: usize = 4096;

/// The most bytes of decoded units a row group holds on its worker.
const ROW_GROUP_BYTES: usize = 4 << 20;

/// What the planner needs of an array: where its chunks are and how they are coded.
pub(super) struct ChunkIo<'a> {
    pub storage: &'a dyn Storage,
    /// Names this store's data for the chunk locks (see `WritableStorage::lock_scope`).
    pub lock_scope: &'a str,
    pub chains: &'a Chains,
    pub grid: &'a ChunkGrid,
    pub fill_value: &'a FillValue,
    /// Chunk keys are the prefix, then the chunk's coordinates in the key encoding.
    pub key_prefix: &'a str,
    pub key_encoding: ChunkKeyEncoding,
}

impl ChunkIo<'_> {
    /// The key of the chunk at the given grid coordinates.
    pub(super) fn key(&self, chunk: &[u64]) -> String {
        format!("{}{}", self.key_prefix, self.key_encoding.key(chunk))
    }

    /// The codec chain of the chunk at the given grid coordinates (and its shape).
    fn chain_of(&self, chunk: &[u64]) -> Result<(std::sync::Arc<CodecChain>, Vec<u64>), Error> {
        let shape = self.grid.chunk_shape_at(chunk);
        Ok((self.chains.for_shape(&shape)?, shape))
    }
}

/// Name the chunk in a corruption report, not only the fault.
pub(super) fn with_chunk_context(error: CodecError, key: &str) -> Error {
    Error::Codec(match error {
        CodecError::Corrupt { codec, message } => CodecError::Corrupt {
            codec,
            message: format!("{message} (chunk '{key}')"),
        },
        other => other,
    })
}

/// Read the block of the array at `start` whose extent is `out`'s shape into `out`. The
/// block may reach past the array's edge (whole edge chunks are read this way) but never
/// past the last chunk. On failure, the parts of `out` belonging to units that were
/// decoded may hold their data, and the failing unit's part may be partly written.
pub(super) fn read(io: &ChunkIo, start: &[u64], out: &mut OutBuffer) -> Result<(), Error> {
    let extent = out.whole().extent().to_vec();
    if extent.contains(&0) {
        return Ok(());
    }
    let cuts = io.grid.cuts(start, &extent);
    let units = CellWalk::new(&cuts, &extent).len();
    if units == Some(1) && !has_parts(io, &cuts, &extent) {
        let mut whole = out.whole();
        let mut cells = whole.cells(&cuts);
        let cell = cells.next().expect("one unit");
        return read_unit(io, &cuts, cell, Parallelism::SERIAL);
    }
    let pool = pool_for(io)?;
    let workers = pool.current_num_threads();
    let many_units = units.is_none_or(|n| n >= 2 * workers as u64);
    let parallelism = if many_units {
        Parallelism::SERIAL
    } else {
        Parallelism { tasks: workers }
    };
    let result = pool.install(|| {
        prefault(out, workers);
        let mut whole = out.whole();
        let mut cells = whole.cells(&cuts).peekable();
        loop {
            let mut batch: Vec<Vec<OutCell>> = Vec::new();
            let mut units_in_batch = 0;
            while units_in_batch < BATCH {
                let Some(first) = cells.next() else { break };
                let mut group = vec![first];
                if many_units {
                    while let Some(next) = cells.next_if(|next| joins_row_group(&group, next)) {
                        group.push(next);
                    }
                }
                units_in_batch += group.len();
                batch.push(group);
            }
            if batch.is_empty() {
                return Ok(());
            }
            batch.into_par_iter().try_for_each(|mut group| {
                if group.len() == 1 {
                    let cell = group.pop().expect("one unit");
                    read_unit(io, &cuts, cell, parallelism)
                } else {
                    read_row_group(io, &cuts, group)
                }
            })?;
        }
    });
    release_scratch(&pool);
    result
}

/// Free the buffers the workers reused from chunk to chunk (`crate::scratch`), so that
/// nothing is kept past the read or write that needed them. Queued, not waited for: each
/// worker frees its stock as soon as it is idle, and a read never waits for workers busy
/// with another caller's read (or for the pool it may itself be running on).
fn release_scratch(pool: &rayon::ThreadPool) {
    pool.spawn_broadcast(|_| crate::scratch::release());
}

/// The workers a block's units run on: the library's pool, sized for the CPUs; or, for a
/// store that waits on round trips (remote stores say how many requests they keep in
/// flight), a pool of that many workers, so that the requests overlap.
fn pool_for(io: &ChunkIo) -> Result<std::sync::Arc<rayon::ThreadPool>, Error> {
    let pool = crate::threads::pool()?;
    match io.storage.max_concurrency() {
        Some(requests) if requests > pool.current_num_threads() => {
            Ok(crate::threads::io_pool(requests)?)
        }
        _ => Ok(pool),
    }
}

/// Whether the one chunk of a read has several independently decodable parts in the block
/// (inner chunks of a shard), which the workers can share.
fn has_parts(io: &ChunkIo, cuts: &ChunkCuts, extent: &[u64]) -> bool {
    let Some(inner) = io.chains.base().inner_chunk_shape() else {
        return false;
    };
    let zero = vec![0; extent.len()];
    let offset = cuts.offset_in_cell(&cuts.grid_index(&zero), &zero);
    checked_product(&RegularCuts::new(&offset, extent, inner).cell_counts()) != Some(1)
}

/// Decode one unit into its block of the caller's buffer.
fn read_unit(
    io: &ChunkIo,
    cuts: &ChunkCuts,
    mut cell: OutCell,
    parallelism: Parallelism,
) -> Result<(), Error> {
    decode_unit(
        io,
        cuts,
        &cell.coords,
        &cell.offset,
        &mut cell.block,
        parallelism,
    )
}

/// Decode the unit of the cell at `coords` (at `offset` in the read's block) into `block`:
/// the cell's own block, or a buffer of the same extent. A chunk that is not stored reads
/// as the fill value.
fn decode_unit(
    io: &ChunkIo,
    cuts: &ChunkCuts,
    coords: &[u64],
    offset: &[u64],
    block: &mut OutBlock,
    parallelism: Parallelism,
) -> Result<(), Error> {
    let chunk = cuts.grid_index(coords);
    let offset = cuts.offset_in_cell(&chunk, offset);
    let key = io.key(&chunk);
    let (chain, _) = io.chain_of(&chunk)?;
    let source = StoreValue {
        store: io.storage,
        key: &key,
    };
    let stored = chain
        .decode_region(&source, &offset, block, parallelism)
        .map_err(|e| with_chunk_context(e, &key))?;
    if !stored {
        block.fill(io.fill_value.as_bytes());
    }
    Ok(())
}

/// Whether `next`, the cell after the last one of `group`, joins the group: a row group
/// is a run of cells side by side along the last dimension (the next chunks of the same
/// row of chunks), all of one extent, whose blocks are not contiguous in the caller's
/// buffer (a contiguous block is decoded straight into it) and whose rows there are short
/// runs of consecutive bytes; it grows while its rows are shorter than
/// `ROW_GROUP_ROW` bytes and its decoded units fit in `ROW_GROUP_BYTES`.
fn joins_row_group(group: &[OutCell], next: &OutCell) -> bool {
    let first = &group[0].block;
    let Some(last) = first.extent().len().checked_sub(1) else {
        return false;
    };
    let element_size = first.element_size();
    let cell_bytes = first.extent().iter().try_fold(element_size, |n, &e| {
        n.checked_mul(usize::try_from(e).ok()?)
    });
    let row_bytes = first.extent()[last] as usize * element_size;
    let previous = &group[group.len() - 1];
    let side_by_side = next.coords[..last] == previous.coords[..last]
        && next.coords[last] == previous.coords[last] + 1;
    side_by_side
        && element_size > 0
        && next.block.extent() == first.extent()
        && !first.is_contiguous()
        && first.last_step() == Some(element_size)
        && row_bytes.saturating_mul(group.len()) < ROW_GROUP_ROW
        && cell_bytes.is_some_and(|n| n.saturating_mul(group.len() + 1) <= ROW_GROUP_BYTES)
}

/// Read a row group (see `joins_row_group`): decode its units side by side into one buffer
/// of the worker's, then copy them into the caller's buffer row by row, each row's pieces
/// one after another. Copied unit by unit, the short rows of one unit are spread thin over
/// many pages (a 64^3 float32 chunk of the benchmark's 1 GiB array: 4,096 rows of 256
/// bytes over 1,024 pages, a quarter of each), and the writes cost cache and TLB misses;
/// copied as a group, the rows of four such chunks fill those pages front to back. In a
/// hand-written loop over the benchmark's zstd layout the copy took 0.09 s per worker
/// instead of 0.155 s; libzarr's whole read of it went from 1.242 s to 1.187 s (medians
/// of 10 alternating pairs, 9 won).
fn read_row_group(io: &ChunkIo, cuts: &ChunkCuts, group: Vec<OutCell>) -> Result<(), Error> {
    let first = &group[0].block;
    let extent = first.extent().to_vec();
    let element_size = first.element_size();
    let unit_layout = Layout::c_order(&extent, element_size)
        .map_err(|e| Error::Internal(format!("a row group's unit: {}", e.0)))?;
    let unit_bytes = unit_layout
        .span()
        .map_err(|e| Error::Internal(format!("a row group's unit: {}", e.0)))?;
    // At most ROW_GROUP_BYTES (joins_row_group).
    let total = unit_bytes * group.len();
    let mut decoded = crate::scratch::take_filled(total).ok_or_else(|| {
        Error::OutOfMemory(format!("cannot allocate {total} bytes for a row of chunks"))
    })?;
    let result = decode_row_group(io, cuts, &group, &unit_layout, &mut decoded);
    if result.is_ok() {
        let parts = group.len();
        let blocks = group.into_iter().map(|cell| cell.block).collect();
        match OutBlock::join_along_last(blocks) {
            Some(mut row) => row.copy_parts_from(&decoded, parts),
            None => {
                crate::scratch::give_back(decoded);
                return Err(Error::Internal(
                    "a row group's cells do not follow each other".into(),
                ));
            }
        }
    }
    crate::scratch::give_back(decoded);
    result
}

/// Decode each unit of a row group into its part of `decoded`, one after another.
fn decode_row_group(
    io: &ChunkIo,
    cuts: &ChunkCuts,
    group: &[OutCell],
    unit_layout: &Layout,
    decoded: &mut [u8],
) -> Result<(), Error> {
    let unit_bytes = decoded.len() / group.len();
    for (cell, part) in group.iter().zip(decoded.chunks_exact_mut(unit_bytes)) {
        let mut part = OutBuffer::new(part, unit_layout.clone())
            .map_err(|e| Error::Internal(format!("a row group's unit: {}", e.0)))?;
        let mut block = part.whole();
        decode_unit(
            io,
            cuts,
            &cell.coords,
            &cell.offset,
            &mut block,
            Parallelism::SERIAL,
        )?;
    }
    Ok(())
}

/// Fault in the output's pages before the workers fill it, each worker a part, in one
/// system call per part instead of one page fault per 4 KiB (see `sys::madvise`).
fn prefault(out: &mut OutBuffer, workers: usize) {
    let spanned = out.spanned();
    if spanned.len() < PREFAULT_MIN {
        return;
    }
    let part = spanned.len().div_ceil(workers.max(1)).max(PREFAULT_MIN);
    spanned
        .par_chunks_mut(part)
        .for_each(crate::sys::madvise::populate_for_write);
}

/// Write `input` into the block of the array at `start` of the same extent. Chunks the
/// block covers are encoded straight from `input`; chunks it covers in part are updated
/// (read, merge, store) one update at a time, within the process and across processes
/// (see `locks`). A chunk that ends up all fill value is erased. Each chunk is replaced
/// atomically; on failure, the chunks already written hold the new data and the others
/// the old.
pub(super) fn write(io: &ChunkIo, start: &[u64], input: &InBlock) -> Result<(), Error> {
    let extent = input.extent().to_vec();
    if extent.contains(&0) {
        return Ok(());
    }
    check_codes(io.chains.data_type(), start, input)?;
    let cuts = io.grid.cuts(start, &extent);
    let units = CellWalk::new(&cuts, &extent).len();
    let pool = pool_for(io)?;
    let workers = pool.current_num_threads();
    // With fewer chunks than workers, a covered shard spreads its inner chunks over them.
    let parallelism = if units.is_some_and(|n| n < workers as u64) {
        Parallelism { tasks: workers }
    } else {
        Parallelism::SERIAL
    };
    let result = pool.install(|| {
        let mut cells = CellWalk::new(&cuts, &extent);
        loop {
            let batch: Vec<_> = cells.by_ref().take(BATCH).collect();
            if batch.is_empty() {
                return Ok(());
            }
            batch.into_par_iter().try_for_each(|cell| {
                let chunk = cuts.grid_index(&cell.coords);
                let offset = cuts.offset_in_cell(&chunk, &cell.offset);
                let part = input.sub(&cell.offset, &cell.extent);
                write_unit(io, &chunk, &offset, &part, parallelism)
            })?;
        }
    });
    release_scratch(&pool);
    result
}

/// Refuse a write whose buffer has a byte with bits set above the code of a sub-byte type
/// (an int4 byte 0x1f): storing it would silently drop the bits, and host buffers hold such
/// bytes with the upper bits zero (ml_dtypes' layout). Every fixed-size write passes here
/// before any chunk is touched, so nothing is stored; the error names the element by its
/// coordinates in the array.
pub(crate) fn check_codes(
    data_type: &crate::data_type::DataType,
    start: &[u64],
    input: &InBlock,
) -> Result<(), Error> {
    let Some(bits) = data_type.code_bits() else {
        return Ok(());
    };
    let Some(coords) = input.find_element(|e| data_type.first_byte_above_code(e).is_some()) else {
        return Ok(());
    };
    let at: Vec<u64> = coords.iter().zip(start).map(|(c, s)| c + s).collect();
    Err(Error::InvalidArgument(format!(
        "the element at {at:?} has bits set above the {bits}-bit code of {}: {} (host \
         buffers hold the code in the low bits, upper bits zero)",
        data_type.name(),
        describe_element(input, &coords)
    )))
}

/// The bytes of the element of `input` at `coords`, in hex.
fn describe_element(input: &InBlock, coords: &[u64]) -> String {
    let ones = vec![1u64; coords.len()];
    let mut bytes = Vec::new();
    input.sub(coords, &ones).gather_into(&mut bytes);
    bytes
        .iter()
        .map(|b| format!("0x{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Encode and store one chunk from `part`, written at `offset` of it.
fn write_unit(
    io: &ChunkIo,
    chunk: &[u64],
    offset: &[u64],
    part: &InBlock,
    parallelism: Parallelism,
) -> Result<(), Error> {
    let key = io.key(chunk);
    let (chain, chunk_shape) = io.chain_of(chunk)?;
    let covered = offset.iter().all(|&o| o == 0) && part.extent() == chunk_shape.as_slice();
    if covered {
        let encoded = chain
            .encode_block(part, parallelism)
            .map_err(|e| with_chunk_context(e, &key))?;
        return store_chunk(io.storage, &key, encoded);
    }
    // Read, merge, store: one update of the chunk at a time, serially (see `locks`).
    update_chunk(io.storage, io.lock_scope, &key, |existing| {
        chain
            .encode_update(existing, offset, part, Parallelism::SERIAL)
            .map_err(|e| with_chunk_context(e, &key))
    })
}
