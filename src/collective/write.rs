//! The collective write: check every rank's box, plan (`super::plan`), then in each round
//! send the pieces that travel to their owners, and let each owner write the units that
//! are complete.

use super::bands::{BandedShard, Own};
use super::plan::{plan, Assembly, Atom, Plan, Region, Unit};
use super::{fingerprint, Collective};
use crate::array::Array;
use crate::error::Error;
use crate::layout::{InBlock, Layout};
use rayon::prelude::*;
use std::collections::HashMap;

/// What one rank did in a collective write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Ranks in the communicator.
    pub ranks: usize,
    /// Rounds of exchange (the same on every rank).
    pub rounds: usize,
    /// Storage units (chunks, or shards) that any rank's box touched.
    pub units: usize,
    /// Units this rank wrote (it owned them).
    pub units_written: usize,
    /// Of those, units the boxes did not cover whole inside the array: their stored
    /// content was read and merged (under the store's update protection).
    pub units_merged: usize,
    /// Bytes of this rank's box sent to other ranks, and bytes received from them.
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl WriteReport {
    /// The report as a JSON object (the C API's `zarr_comm_last_write_json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "ranks": self.ranks,
            "rounds": self.rounds,
            "units": self.units,
            "units_written": self.units_written,
            "units_merged": self.units_merged,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
        })
    }
}

/// Write each rank's box `start .. start + count` of `array` from its `data` (dense, C
/// order, host byte order, exactly the box's size), collectively: the result is that of
/// one write of all the boxes. Boxes may be empty (a count with a zero: the rank takes part
/// and writes nothing) and must not overlap. Every rank returns the same outcome.
pub fn write(
    ctx: &Collective,
    array: &Array,
    start: &[u64],
    count: &[u64],
    data: &[u8],
) -> Result<WriteReport, Error> {
    let mine = ctx.agree(
        check_box(array, start, count, data.len()).and_then(|region| {
            // The same refusal as every other write (see `check_codes`), agreed by all ranks
            // before any of them stores a chunk.
            if let Some(region) = &region {
                let layout = Layout::c_order(&region.count, array.data_type().size())
                    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
                let input = InBlock::whole(data, &layout)
                    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
                crate::array::check_codes(&array.data_type(), &region.start, &input)?;
            }
            Ok(region)
        }),
    )?;
    let boxes = gather_boxes(ctx, array, &mine)?;
    let element_size = array.data_type().size() as u64;
    let grid = array.chunk_grid();
    let streamed = array.streamable_inner_chunk_shape();
    let plan = ctx.agree(plan(
        &boxes,
        &grid,
        &array.shape(),
        element_size,
        streamed.as_deref(),
        ctx.budget,
    ))?;
    let rank = ctx.comm.rank();
    let mut run = Run {
        ctx,
        array,
        plan: &plan,
        rank,
        mine: boxes[rank].as_ref(),
        data,
        element_size,
        arriving: HashMap::new(),
        report: WriteReport {
            ranks: ctx.comm.size(),
            rounds: plan.rounds.len(),
            units: plan.units.len(),
            ..WriteReport::default()
        },
    };
    for round in &plan.rounds {
        let atoms = &plan.atoms[round.atoms.clone()];
        let (send_lens, recv_lens) = run.round_lengths(atoms);
        let send = ctx.agree(run.pack(atoms, &send_lens))?;
        let (recv, recv_displs) = run.exchange(&send, &send_lens, &recv_lens)?;
        drop(send);
        let received = run.unpack(atoms, &recv, &recv_displs);
        drop(recv);
        let written = received.and_then(|()| run.write_units(&round.units));
        ctx.agree(written)?;
    }
    Ok(run.report)
}

/// This rank's box, checked against the array (what every rank must see before any rank
/// writes): the rank, the bounds, the buffer's size, a type of fixed size. `None` when the
/// rank writes nothing: a count with a zero, or, for a 0-d array (whose one element has no
/// count to set to zero), an empty buffer.
fn check_box(
    array: &Array,
    start: &[u64],
    count: &[u64],
    len: usize,
) -> Result<Option<Region>, Error> {
    if array.data_type().is_variable_length() {
        return Err(Error::Unsupported(
            "collective writes of variable-length elements are not supported: write them \
             with zarr_array_write_vlen from each rank (whole chunks per rank)"
                .into(),
        ));
    }
    let expected = array.selection_nbytes(start, count)?;
    if start.is_empty() && len == 0 {
        return Ok(None);
    }
    if len != expected {
        return Err(Error::BufferSizeMismatch {
            expected,
            given: len,
        });
    }
    let region = Region {
        start: start.to_vec(),
        count: count.to_vec(),
    };
    Ok((!region.is_empty()).then_some(region))
}

/// Every rank's box (collective), after checking that every rank writes the same array
/// (path and metadata) as rank 0 and that no two boxes overlap: the same outcome on every
/// rank, since every rank checks the same records.
fn gather_boxes(
    ctx: &Collective,
    array: &Array,
    mine: &Option<Region>,
) -> Result<Vec<Option<Region>>, Error> {
    let identity = fingerprint(&format!(
        "{}\n{}",
        array.path().as_str(),
        array.metadata_json()
    ));
    let ndim = array.ndim();
    // identity, then whether the rank writes, then its start and count.
    let mut record = Vec::with_capacity(16 + 16 * ndim);
    record.extend_from_slice(&identity.to_le_bytes());
    record.extend_from_slice(&u64::from(mine.is_some()).to_le_bytes());
    if let Some(region) = mine {
        for value in region.start.iter().chain(&region.count) {
            record.extend_from_slice(&value.to_le_bytes());
        }
    }
    let records = super::comm::gather_all(ctx.comm, &record)?;
    let decoded: Vec<Vec<u64>> = records
        .iter()
        .map(|r| {
            r.chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect()
        })
        .collect();
    let reference = decoded[0].first().copied();
    let mut boxes = Vec::with_capacity(decoded.len());
    for (rank, values) in decoded.iter().enumerate() {
        let (writes, rest) = match values.as_slice() {
            [identity, writes, rest @ ..] if Some(*identity) == reference => (*writes, rest),
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "rank {rank} writes another array than rank 0 (its path, shape or \
                     metadata differ): every rank must write the same array"
                )))
            }
        };
        if writes == 0 {
            boxes.push(None);
            continue;
        }
        let (start, count) = rest.split_at(rest.len() / 2);
        boxes.push(Some(Region {
            start: start.to_vec(),
            count: count.to_vec(),
        }));
    }
    for (a, first) in boxes.iter().enumerate() {
        let Some(first) = first else { continue };
        for (b, second) in boxes.iter().enumerate().skip(a + 1) {
            let Some(second) = second else { continue };
            if let Some(common) = overlap(first, second) {
                return Err(Error::InvalidArgument(format!(
                    "the boxes of ranks {a} and {b} overlap at {:?} + {:?}: each element must \
                     have one writer",
                    common.start, common.count
                )));
            }
        }
    }
    Ok(boxes)
}

/// The common part of two boxes; for a 0-d array, its one element when both write it.
fn overlap(first: &Region, second: &Region) -> Option<Region> {
    if first.start.is_empty() {
        return Some(first.clone());
    }
    first.intersection(second)
}

/// The state of one rank during a collective write.
struct Run<'a> {
    ctx: &'a Collective<'a>,
    array: &'a Array,
    plan: &'a Plan,
    rank: usize,
    /// This rank's box (`None`: it writes nothing, so it holds no piece).
    mine: Option<&'a Region>,
    data: &'a [u8],
    element_size: u64,
    /// The buffers of this rank's units whose pieces are arriving, by unit: one buffer of
    /// the tiled box, or one per travelling piece.
    arriving: HashMap<usize, UnitBuffers>,
    report: WriteReport,
}

enum UnitBuffers {
    Tiled(Vec<u8>),
    Pieces(HashMap<usize, Vec<u8>>),
    Banded(BandedShard),
}

impl Run<'_> {
    fn unit(&self, atom: &Atom) -> &Unit {
        &self.plan.units[atom.unit]
    }

    /// This rank's box, which it has whenever the plan gives it a piece.
    fn own_box(&self) -> Result<&Region, Error> {
        self.mine
            .ok_or_else(|| Error::Internal("a piece of a rank that writes nothing".into()))
    }

    /// Bytes this rank sends to each rank in the round, and receives from each.
    fn round_lengths(&self, atoms: &[Atom]) -> (Vec<usize>, Vec<usize>) {
        let size = self.ctx.comm.size();
        let mut send = vec![0usize; size];
        let mut recv = vec![0usize; size];
        for atom in atoms {
            let unit = self.unit(atom);
            let sender = unit.pieces[atom.piece].rank;
            if sender == self.rank {
                send[unit.owner] += atom.bytes as usize;
            }
            if unit.owner == self.rank {
                recv[sender] += atom.bytes as usize;
            }
        }
        (send, recv)
    }

    /// This rank's atoms of the round in one buffer: each receiving rank's part after the
    /// other's, each part's atoms in plan order (the order the receiver unpacks them in).
    fn pack(&self, atoms: &[Atom], send_lens: &[usize]) -> Result<Vec<u8>, Error> {
        let (displs, total) = super::comm::displacements(send_lens)?;
        let mut send = Vec::new();
        send.try_reserve_exact(total)
            .map_err(|_| Error::OutOfMemory(format!("{total} bytes to send")))?;
        if total == 0 {
            return Ok(send);
        }
        // Gathered part by part, so that each part lands at its displacement.
        let mine = self.own_box()?;
        let layout = dense(&mine.count, self.element_size)?;
        let whole = InBlock::whole(self.data, &layout).map_err(layout_error)?;
        for (to, &at) in displs.iter().enumerate() {
            debug_assert_eq!(send.len(), at);
            for atom in atoms {
                let unit = self.unit(atom);
                let piece = &unit.pieces[atom.piece];
                if piece.rank != self.rank || unit.owner != to {
                    continue;
                }
                let (offset, extent) = atom_in_box(atom, &piece.region, mine);
                whole.sub(&offset, &extent).gather_into(&mut send);
            }
        }
        Ok(send)
    }

    /// Send each rank its part of `send`; what every rank sent here, in one buffer with
    /// each sender's part at its displacement (collective).
    fn exchange(
        &mut self,
        send: &[u8],
        send_lens: &[usize],
        recv_lens: &[usize],
    ) -> Result<(Vec<u8>, Vec<usize>), Error> {
        let (send_displs, _) = super::comm::displacements(send_lens)?;
        let (recv_displs, recv_total) = super::comm::displacements(recv_lens)?;
        let mut recv = Vec::new();
        recv.try_reserve_exact(recv_total)
            .map_err(|_| Error::OutOfMemory(format!("{recv_total} bytes to receive")))?;
        recv.resize(recv_total, 0);
        self.ctx.comm.all_to_all_v(
            send,
            send_lens,
            &send_displs,
            &mut recv,
            recv_lens,
            &recv_displs,
        )?;
        self.report.bytes_sent += send.len() as u64;
        self.report.bytes_received += recv_total as u64;
        Ok((recv, recv_displs))
    }

    /// Put every atom received (each sender's part of `recv` at its displacement) into its
    /// unit's buffers.
    fn unpack(&mut self, atoms: &[Atom], recv: &[u8], recv_displs: &[usize]) -> Result<(), Error> {
        let mut read_at = recv_displs.to_vec();
        for atom in atoms {
            let unit = &self.plan.units[atom.unit];
            if unit.owner != self.rank {
                continue;
            }
            let piece = &unit.pieces[atom.piece];
            let from = piece.rank;
            let bytes = &recv[read_at[from]..read_at[from] + atom.bytes as usize];
            read_at[from] += atom.bytes as usize;
            let buffers = match self.arriving.remove(&atom.unit) {
                Some(buffers) => buffers,
                None => self.new_buffers(unit)?,
            };
            let buffers = match buffers {
                UnitBuffers::Tiled(mut buffer) => {
                    let Assembly::Tiled(bbox) = &unit.assembly else {
                        return Err(Error::Internal("tiled buffers of an untiled unit".into()));
                    };
                    let rows = &atom.rows;
                    let mut extent = piece.region.count.clone();
                    let mut at: Vec<u64> = piece
                        .region
                        .start
                        .iter()
                        .zip(&bbox.start)
                        .map(|(p, b)| p - b)
                        .collect();
                    if let (Some(first), Some(e)) = (at.first_mut(), extent.first_mut()) {
                        *first += rows.start;
                        *e = rows.end - rows.start;
                    }
                    let source_layout = dense(&extent, self.element_size)?;
                    let target_layout = dense(&bbox.count, self.element_size)?;
                    InBlock::whole(bytes, &source_layout)
                        .map_err(layout_error)?
                        .copy_to(&mut buffer, &target_layout, &at);
                    UnitBuffers::Tiled(buffer)
                }
                UnitBuffers::Banded(mut shard) => {
                    let own = self.own_piece(unit)?;
                    shard.put(&piece.region, atom.rows.clone(), bytes, own.as_ref())?;
                    UnitBuffers::Banded(shard)
                }
                UnitBuffers::Pieces(mut pieces) => {
                    // Rows are consecutive in the piece's dense buffer, which is made
                    // whole at its first atom.
                    let buffer = pieces.entry(atom.piece).or_default();
                    if buffer.capacity() == 0 {
                        let whole = (piece.region.elements() * self.element_size) as usize;
                        buffer
                            .try_reserve_exact(whole)
                            .map_err(|_| Error::OutOfMemory(format!("{whole} bytes of a piece")))?;
                    }
                    buffer.extend_from_slice(bytes);
                    UnitBuffers::Pieces(pieces)
                }
            };
            self.arriving.insert(atom.unit, buffers);
        }
        Ok(())
    }

    fn new_buffers(&self, unit: &Unit) -> Result<UnitBuffers, Error> {
        Ok(match &unit.assembly {
            Assembly::Tiled(bbox) => {
                let bytes = bbox.elements() * self.element_size;
                let buffer = usize::try_from(bytes)
                    .ok()
                    .and_then(crate::sys::alloc::zeroed_vec)
                    .ok_or_else(|| {
                        Error::OutOfMemory(format!("{bytes} bytes to assemble a chunk"))
                    })?;
                UnitBuffers::Tiled(buffer)
            }
            Assembly::Single | Assembly::Separate => UnitBuffers::Pieces(HashMap::new()),
            Assembly::Banded { rows } => UnitBuffers::Banded(BandedShard::new(
                self.array,
                &unit.grid_index,
                unit.hull(),
                *rows,
                self.element_size,
            )?),
        })
    }

    /// This rank's own piece of `unit`, if it has one.
    fn own_piece<'u>(&'u self, unit: &'u Unit) -> Result<Option<Own<'u>>, Error> {
        match unit.pieces.iter().find(|p| p.rank == self.rank) {
            Some(piece) => Ok(Some(Own {
                piece: &piece.region,
                within: self.own_box()?,
                data: self.data,
            })),
            None => Ok(None),
        }
    }

    /// Write the units of the round this rank owns, in parallel on the worker pool.
    fn write_units(&mut self, units: &[usize]) -> Result<(), Error> {
        let mine: Vec<(usize, Option<UnitBuffers>)> = units
            .iter()
            .copied()
            .filter(|&u| self.plan.units[u].owner == self.rank)
            .map(|u| (u, self.arriving.remove(&u)))
            .collect();
        self.report.units_written += mine.len();
        self.report.units_merged += mine
            .iter()
            .filter(|(u, _)| !self.plan.units[*u].covered)
            .count();
        // Units larger than the budget (shards, typically) are written one after the other,
        // each spreading its inner chunks over the workers: side by side, each would hold
        // its encoded bytes at once. Smaller units go side by side, one per worker.
        let large = mine.iter().any(|(u, _)| {
            self.plan.units[*u].hull().elements() * self.element_size > self.ctx.budget.bytes
        });
        if large {
            return mine
                .into_iter()
                .try_for_each(|(u, buffers)| self.write_unit(&self.plan.units[u], buffers));
        }
        let pool = crate::threads::pool()?;
        pool.install(|| {
            mine.into_par_iter()
                .try_for_each(|(u, buffers)| self.write_unit(&self.plan.units[u], buffers))
        })
    }

    /// Write one unit from its buffers and this rank's own piece.
    fn write_unit(&self, unit: &Unit, buffers: Option<UnitBuffers>) -> Result<(), Error> {
        let own = unit.pieces.iter().position(|p| p.rank == self.rank);
        match (&unit.assembly, buffers) {
            (Assembly::Tiled(bbox), Some(UnitBuffers::Tiled(mut buffer))) => {
                if let Some(p) = own {
                    let piece = &unit.pieces[p].region;
                    let mine = self.own_box()?;
                    let layout = dense(&mine.count, self.element_size)?;
                    let offset = offset_in(piece, mine);
                    let at = offset_in(piece, bbox);
                    InBlock::whole(self.data, &layout)
                        .map_err(layout_error)?
                        .sub(&offset, &piece.count)
                        .copy_to(&mut buffer, &dense(&bbox.count, self.element_size)?, &at);
                }
                self.array.write_region(&bbox.start, &bbox.count, &buffer)
            }
            (Assembly::Banded { .. }, Some(UnitBuffers::Banded(shard))) => {
                shard.finish(self.own_piece(unit)?.as_ref())
            }
            (Assembly::Single | Assembly::Separate, buffers) => {
                let mut received = match buffers {
                    Some(UnitBuffers::Pieces(pieces)) => pieces,
                    None => HashMap::new(),
                    Some(_) => {
                        return Err(Error::Internal(
                            "the buffers of another kind of unit".into(),
                        ))
                    }
                };
                for (p, piece) in unit.pieces.iter().enumerate() {
                    let region = &piece.region;
                    if piece.rank == self.rank {
                        self.write_own(region)?;
                    } else {
                        let buffer = received.remove(&p).ok_or_else(|| {
                            Error::Internal(format!("piece {p} of a unit never arrived"))
                        })?;
                        self.array
                            .write_region(&region.start, &region.count, &buffer)?;
                    }
                }
                Ok(())
            }
            (Assembly::Tiled(_) | Assembly::Banded { .. }, _) => Err(Error::Internal(
                "a unit without the buffers its pieces arrived in".into(),
            )),
        }
    }

    /// Write `region` (part of this rank's box) straight from the caller's buffer.
    fn write_own(&self, region: &Region) -> Result<(), Error> {
        let mine = self.own_box()?;
        let layout = dense(&mine.count, self.element_size)?;
        let offset = offset_in(region, mine);
        let at = layout.offset_of(&offset);
        let strides: Vec<i64> = layout.strides().iter().map(|&s| s as i64).collect();
        self.array.write_region_strided(
            &region.start,
            &region.count,
            Some(&strides),
            &self.data[at..],
        )
    }
}

/// Where an atom's rows of `piece` lie in the box `within`: offset and extent.
fn atom_in_box(atom: &Atom, piece: &Region, within: &Region) -> (Vec<u64>, Vec<u64>) {
    let mut offset = offset_in(piece, within);
    let mut extent = piece.count.clone();
    if let (Some(first), Some(e)) = (offset.first_mut(), extent.first_mut()) {
        *first += atom.rows.start;
        *e = atom.rows.end - atom.rows.start;
    }
    (offset, extent)
}

/// The offset of `inner`'s start from `outer`'s.
fn offset_in(inner: &Region, outer: &Region) -> Vec<u64> {
    inner
        .start
        .iter()
        .zip(&outer.start)
        .map(|(i, o)| i - o)
        .collect()
}

fn dense(shape: &[u64], element_size: u64) -> Result<Layout, Error> {
    Layout::c_order(shape, element_size as usize).map_err(layout_error)
}

fn layout_error(error: crate::layout::LayoutError) -> Error {
    Error::Internal(format!("a collective write's buffer layout: {}", error.0))
}
