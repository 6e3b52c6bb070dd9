//! The plan of a collective write: which storage units (chunks, or shards) the ranks'
//! boxes touch, which rank owns each, and which pieces travel in which round.
//!
//! Every rank computes the same plan from the same inputs (every rank's box, the array's
//! chunk grid), so no plan is ever sent. The rules:
//! - **Units.** A unit is a cell of the array's chunk grid (a shard when the array is
//!   sharded): the unit of storage, one object, that must have exactly one writer. A
//!   unit's pieces are its intersections with the boxes, at most one per rank.
//! - **Owners.** The rank with the largest piece of a unit owns it (so the fewest bytes
//!   travel); ties go to the candidate that owns the fewest elements so far (so that
//!   decompositions that split every unit evenly still spread the writing), then to the
//!   lowest rank.
//! - **Atoms.** A piece that is not its owner's own travels in atoms: slabs of its rows
//!   along the first dimension, each at most [`Budget::bytes`] (unless one row is larger).
//! - **Rounds.** Atoms go in unit order, greedily packed into rounds in which no rank sends
//!   more than the budget, receives more than the budget, or starts to assemble units
//!   larger than the budget in all, except that each rank may always send one atom,
//!   receive one and start one unit in a round (so each round makes progress, and one large
//!   unit does not hold the other ranks back). A unit is written by its owner in the round
//!   of its last atom; a unit none of whose pieces travels, in the round where its owner
//!   has the least to write (the ranks then write side by side: every round ends with an
//!   agreement, so a rank with nothing to write in a round waits for the others). Since
//!   atoms go in unit order, at most one unit is assembled across a round's end.

use crate::chunk_grid::ChunkGrid;
use crate::error::Error;
use crate::layout::CellWalk;
use std::collections::BTreeMap;
use std::ops::Range;

/// The most (box, unit) pairs one collective write plans: its plan holds every unit, so a
/// write of more (a huge box over tiny chunks) is refused rather than allowed to exhaust
/// memory. 16 Mi pairs plan in a few GiB at most.
const MAX_PIECES: u64 = 1 << 24;

/// A box of the array: `start .. start + count` along each dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub start: Vec<u64>,
    pub count: Vec<u64>,
}

impl Region {
    /// The number of elements (0 when any extent is 0).
    pub fn elements(&self) -> u64 {
        self.count.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.count.contains(&0)
    }

    /// The common part of two boxes, if they share any element.
    pub fn intersection(&self, other: &Region) -> Option<Region> {
        let mut start = Vec::with_capacity(self.start.len());
        let mut count = Vec::with_capacity(self.start.len());
        for d in 0..self.start.len() {
            let lo = self.start[d].max(other.start[d]);
            let hi = (self.start[d] + self.count[d]).min(other.start[d] + other.count[d]);
            if lo >= hi {
                return None;
            }
            start.push(lo);
            count.push(hi - lo);
        }
        Some(Region { start, count })
    }

    /// The smallest box holding both.
    fn hull(&self, other: &Region) -> Region {
        let start: Vec<u64> = (0..self.start.len())
            .map(|d| self.start[d].min(other.start[d]))
            .collect();
        let count = (0..self.start.len())
            .map(|d| {
                (self.start[d] + self.count[d]).max(other.start[d] + other.count[d]) - start[d]
            })
            .collect();
        Region { start, count }
    }
}

/// A rank's part of a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub rank: usize,
    pub region: Region,
}

/// How a unit's owner writes it, once every piece has arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assembly {
    /// One piece: written as it is (from the owner's own buffer, or from the piece's
    /// receive buffer).
    Single,
    /// The pieces tile this box: assembled into one buffer of it, written with one write.
    Tiled(Region),
    /// The pieces do not form a box (some rank left a hole): each written by itself, one
    /// update of the unit after the other.
    Separate,
    /// A whole shard inside the array that the pieces cover, of an array whose codecs are
    /// `sharding_indexed` alone: assembled band after band (`rows` rows of inner chunks
    /// along the first dimension), each band's inner chunks encoded as soon as it is
    /// complete (`Array::shard_stream`), so the owner holds one band decoded, not the shard.
    /// Its atoms go band by band.
    Banded { rows: u64 },
}

/// A storage unit of the write.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Its coordinates in the chunk grid.
    pub grid_index: Vec<u64>,
    pub owner: usize,
    /// In rank order.
    pub pieces: Vec<Piece>,
    pub assembly: Assembly,
    /// Whether the pieces cover every element of the unit inside the array (the stored
    /// unit is then replaced without being read).
    pub covered: bool,
}

impl Unit {
    /// The smallest box holding every piece (for a covered unit inside the array: the unit).
    pub fn hull(&self) -> Region {
        self.pieces[1..]
            .iter()
            .fold(self.pieces[0].region.clone(), |h, p| h.hull(&p.region))
    }

    /// Bytes the owner holds for the unit while its pieces arrive: the assembled box, or
    /// the pieces that travel.
    fn assembly_bytes(&self, element_size: u64) -> u64 {
        let travelling = self
            .pieces
            .iter()
            .filter(|p| p.rank != self.owner)
            .map(|p| p.region.elements());
        match &self.assembly {
            Assembly::Tiled(bbox) => bbox.elements() * element_size,
            Assembly::Single | Assembly::Separate => travelling.sum::<u64>() * element_size,
            Assembly::Banded { rows } => {
                let full = self.hull();
                rows * full.count[1..].iter().product::<u64>() * element_size
            }
        }
    }
}

/// Rows `rows` (along the first dimension of the piece; the whole element of a 0-d
/// array) of piece `piece` of unit `unit`, sent by the piece's rank to the unit's owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    pub unit: usize,
    pub piece: usize,
    pub rows: Range<u64>,
    pub bytes: u64,
}

/// A round: its atoms (a range of [`Plan::atoms`]), and the units written at its end
/// (indexes into [`Plan::units`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub atoms: Range<usize>,
    pub units: Vec<usize>,
}

/// How much one rank may send, receive and start assembling in one round.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub bytes: u64,
}

impl Budget {
    /// 16 MiB: small beside the boxes of a large write, large enough that rounds are few.
    pub const DEFAULT: Budget = Budget { bytes: 16 << 20 };
}

/// The plan of one collective write.
#[derive(Clone, Debug)]
pub struct Plan {
    pub units: Vec<Unit>,
    pub atoms: Vec<Atom>,
    pub rounds: Vec<Round>,
}

/// Plan the write of `boxes` (one per rank, `None` or empty when a rank writes nothing;
/// checked to lie inside an
/// array of `shape` and not to overlap) into an array of `shape` cut by `grid`, with
/// elements of `element_size` bytes.
pub fn plan(
    boxes: &[Option<Region>],
    grid: &ChunkGrid,
    shape: &[u64],
    element_size: u64,
    streamed: Option<&[u64]>,
    budget: Budget,
) -> Result<Plan, Error> {
    let units = units_of(boxes, grid, shape, streamed)?;
    let atoms = atoms_of(&units, element_size, budget);
    let rounds = rounds_of(&units, &atoms, boxes.len(), element_size, budget);
    Ok(Plan {
        units,
        atoms,
        rounds,
    })
}

/// The units the boxes touch, in C order of the grid, with their pieces and owners.
fn units_of(
    boxes: &[Option<Region>],
    grid: &ChunkGrid,
    shape: &[u64],
    streamed: Option<&[u64]>,
) -> Result<Vec<Unit>, Error> {
    let mut pieces_in_all = 0u64;
    for region in boxes.iter().flatten().filter(|r| !r.is_empty()) {
        let cuts = grid.cuts(&region.start, &region.count);
        let pieces = CellWalk::new(&cuts, &region.count)
            .len()
            .unwrap_or(u64::MAX);
        pieces_in_all = pieces_in_all.saturating_add(pieces);
    }
    if pieces_in_all > MAX_PIECES {
        return Err(Error::OutOfMemory(format!(
            "a collective write of boxes cut into {pieces_in_all} pieces of chunks (or \
             shards) is more than one call plans ({MAX_PIECES}): write the boxes in parts"
        )));
    }
    let mut touched: BTreeMap<Vec<u64>, Vec<Piece>> = BTreeMap::new();
    for (rank, region) in boxes.iter().enumerate() {
        let Some(region) = region.as_ref().filter(|r| !r.is_empty()) else {
            continue;
        };
        let cuts = grid.cuts(&region.start, &region.count);
        for cell in CellWalk::new(&cuts, &region.count) {
            let start = region
                .start
                .iter()
                .zip(&cell.offset)
                .map(|(s, o)| s + o)
                .collect();
            touched
                .entry(cuts.grid_index(&cell.coords))
                .or_default()
                .push(Piece {
                    rank,
                    region: Region {
                        start,
                        count: cell.extent,
                    },
                });
        }
    }
    let mut load = vec![0u64; boxes.len()];
    let mut units = Vec::with_capacity(touched.len());
    for (grid_index, pieces) in touched {
        let owner = pieces
            .iter()
            .max_by(|a, b| {
                a.region
                    .elements()
                    .cmp(&b.region.elements())
                    .then(load[b.rank].cmp(&load[a.rank]))
                    .then(b.rank.cmp(&a.rank))
            })
            .map(|p| p.rank)
            .expect("a touched unit has a piece");
        let written: u64 = pieces.iter().map(|p| p.region.elements()).sum();
        load[owner] += written;
        // The unit's elements inside the array.
        let (origin, full) = grid.chunk_region(&grid_index);
        let inside: u64 = (0..shape.len())
            .map(|d| full[d].min(shape[d].saturating_sub(origin[d])))
            .product();
        let hull = pieces[1..]
            .iter()
            .fold(pieces[0].region.clone(), |h, p| h.hull(&p.region));
        let covered = written == inside;
        let whole_inside = (0..shape.len()).all(|d| origin[d] + full[d] <= shape[d]);
        let travels = pieces.iter().any(|p| p.rank != owner);
        let assembly = match streamed {
            Some(inner) if covered && whole_inside && travels && !inner.is_empty() => {
                Assembly::Banded { rows: inner[0] }
            }
            _ if pieces.len() == 1 => Assembly::Single,
            _ if hull.elements() == written => Assembly::Tiled(hull),
            _ => Assembly::Separate,
        };
        units.push(Unit {
            grid_index,
            owner,
            pieces,
            assembly,
            covered,
        });
    }
    Ok(units)
}

/// The atoms of the pieces that travel, in unit order, then piece order (for a banded
/// unit: band order, then piece order).
fn atoms_of(units: &[Unit], element_size: u64, budget: Budget) -> Vec<Atom> {
    let mut atoms = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let travelling = || {
            unit.pieces
                .iter()
                .enumerate()
                .filter(|(_, piece)| piece.rank != unit.owner)
        };
        match unit.assembly {
            Assembly::Banded { rows } => {
                let hull = unit.hull();
                let (top, height) = (hull.start[0], hull.count[0]);
                let mut band = 0;
                while band < height {
                    let band_rows = top + band..top + (band + rows).min(height);
                    for (p, piece) in travelling() {
                        let first = piece.region.start[0];
                        let lo = band_rows.start.max(first);
                        let hi = band_rows.end.min(first + piece.region.count[0]);
                        if lo < hi {
                            let rows = lo - first..hi - first;
                            push_atoms(&mut atoms, (u, p), piece, rows, element_size, budget);
                        }
                    }
                    band += rows;
                }
            }
            _ => {
                for (p, piece) in travelling() {
                    let rows = piece.region.count.first().copied().unwrap_or(1);
                    push_atoms(&mut atoms, (u, p), piece, 0..rows, element_size, budget);
                }
            }
        }
    }
    atoms
}

/// The atoms of rows `rows` of the piece `piece` (unit and piece index `at`): at most the
/// budget each, but at least one row. A 0-d array's one element is one row.
fn push_atoms(
    atoms: &mut Vec<Atom>,
    at: (usize, usize),
    piece: &Piece,
    rows: Range<u64>,
    element_size: u64,
    budget: Budget,
) {
    let count = &piece.region.count;
    let row_bytes = count
        .get(1..)
        .map_or(1, |rest| rest.iter().product::<u64>())
        * element_size;
    let per_atom = (budget.bytes / row_bytes.max(1)).max(1);
    let mut first = rows.start;
    while first < rows.end {
        let last = (first + per_atom).min(rows.end);
        atoms.push(Atom {
            unit: at.0,
            piece: at.1,
            rows: first..last,
            bytes: (last - first) * row_bytes,
        });
        first = last;
    }
}

/// Pack the atoms into rounds (see the module documentation), then place the units whose
/// pieces do not travel.
fn rounds_of(
    units: &[Unit],
    atoms: &[Atom],
    ranks: usize,
    element_size: u64,
    budget: Budget,
) -> Vec<Round> {
    // Which unit each atom completes: the last atom of a unit.
    let mut last_atom_of = vec![None; units.len()];
    for (a, atom) in atoms.iter().enumerate() {
        last_atom_of[atom.unit] = Some(a);
    }
    let mut rounds: Vec<Round> = Vec::new();
    let mut sent = vec![0u64; ranks];
    let mut received = vec![0u64; ranks];
    let mut opened = vec![0u64; ranks];
    let mut first_atom = 0;
    let mut completed = Vec::new();
    let mut open_unit = None;
    for (a, atom) in atoms.iter().enumerate() {
        let unit = &units[atom.unit];
        let sender = unit.pieces[atom.piece].rank;
        let assembly = if open_unit != Some(atom.unit) {
            unit.assembly_bytes(element_size)
        } else {
            0
        };
        // Within the budget, or the rank's first of its kind in the round (a rank always
        // gets to send one atom, receive one and open one unit, so that one large unit
        // does not make every other rank wait).
        let within = |used: u64, more: u64| used == 0 || used + more <= budget.bytes;
        let fits = within(sent[sender], atom.bytes)
            && within(received[unit.owner], atom.bytes)
            && within(opened[unit.owner], assembly);
        if !fits && a > first_atom {
            rounds.push(Round {
                atoms: first_atom..a,
                units: std::mem::take(&mut completed),
            });
            first_atom = a;
            sent.iter_mut().for_each(|b| *b = 0);
            received.iter_mut().for_each(|b| *b = 0);
            opened.iter_mut().for_each(|b| *b = 0);
        }
        sent[sender] += atom.bytes;
        received[unit.owner] += atom.bytes;
        opened[unit.owner] += assembly;
        open_unit = Some(atom.unit);
        if last_atom_of[atom.unit] == Some(a) {
            completed.push(atom.unit); // written at the end of this round
        }
    }
    if first_atom < atoms.len() || rounds.is_empty() {
        rounds.push(Round {
            atoms: first_atom..atoms.len(),
            units: completed,
        });
    }
    // The units whose pieces do not travel can be written in any round: each goes to the
    // round in which its owner has the least to write so far, so that the owners write
    // side by side instead of one waiting for the other at the end of each round.
    let elements = |u: usize| {
        units[u]
            .pieces
            .iter()
            .map(|p| p.region.elements())
            .sum::<u64>()
    };
    let mut load = vec![vec![0u64; ranks]; rounds.len()];
    for (r, round) in rounds.iter().enumerate() {
        for &u in &round.units {
            load[r][units[u].owner] += elements(u);
        }
    }
    for (u, unit) in units.iter().enumerate() {
        if last_atom_of[u].is_some() {
            continue;
        }
        let r = (0..rounds.len())
            .min_by_key(|&r| load[r][unit.owner])
            .expect("at least one round");
        load[r][unit.owner] += elements(u);
        rounds[r].units.push(u);
    }
    if units.is_empty() {
        rounds.clear();
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &[u64], count: &[u64]) -> Region {
        Region {
            start: start.to_vec(),
            count: count.to_vec(),
        }
    }

    fn grid(chunk: &[u64]) -> ChunkGrid {
        ChunkGrid::regular(chunk.to_vec()).unwrap()
    }

    #[test]
    fn slabs_of_four_ranks_over_chunks_of_sixteen_rows() {
        // 96 rows in slabs of 24 over chunks of 16: six units, two of them shared.
        let boxes: Vec<Option<Region>> = (0..4)
            .map(|r| Some(region(&[24 * r, 0], &[24, 64])))
            .collect();
        let plan = plan(
            &boxes,
            &grid(&[16, 64]),
            &[96, 64],
            4,
            None,
            Budget::DEFAULT,
        )
        .unwrap();
        assert_eq!(plan.units.len(), 6);
        let owners: Vec<usize> = plan.units.iter().map(|u| u.owner).collect();
        // Chunk 1 (rows 16-32): rank 0 has 8 rows, rank 1 has 8: a tie, rank 1 owns less.
        assert_eq!(owners, [0, 1, 1, 2, 3, 3]);
        assert!(plan.units.iter().all(|u| u.covered));
        assert_eq!(
            plan.units[1].assembly,
            Assembly::Tiled(region(&[16, 0], &[16, 64]))
        );
        assert_eq!(plan.units[0].assembly, Assembly::Single);
        // Everything fits in one round; every unit is written.
        assert_eq!(plan.rounds.len(), 1);
        let mut written = plan.rounds[0].units.clone();
        written.sort();
        assert_eq!(written, [0, 1, 2, 3, 4, 5]);
        // Rank 0 sends its 8 rows of chunk 1 to rank 1, and so on.
        let bytes: u64 = plan.atoms.iter().map(|a| a.bytes).sum();
        // Chunks 1 and 4 are shared: 8 rows of each travel.
        assert_eq!(bytes, 2 * 8 * 64 * 4);
    }

    #[test]
    fn a_hole_is_written_piece_by_piece_and_not_covered() {
        // Ranks 0 and 2 write corners of one 4 x 4 chunk; rank 1 writes nothing.
        let boxes = [
            Some(region(&[0, 0], &[2, 2])),
            None,
            Some(region(&[2, 2], &[2, 2])),
        ];
        let plan = plan(&boxes, &grid(&[4, 4]), &[4, 4], 1, None, Budget::DEFAULT).unwrap();
        assert_eq!(plan.units.len(), 1);
        assert_eq!(plan.units[0].assembly, Assembly::Separate);
        assert!(!plan.units[0].covered);
        assert_eq!(plan.units[0].pieces.len(), 2);
    }

    #[test]
    fn edge_units_are_covered_by_their_part_inside_the_array() {
        let boxes = [Some(region(&[0], &[5])), Some(region(&[5], &[5]))];
        let plan = plan(&boxes, &grid(&[4]), &[10], 1, None, Budget::DEFAULT).unwrap();
        assert_eq!(plan.units.len(), 3);
        assert!(plan.units.iter().all(|u| u.covered), "{:?}", plan.units);
    }

    #[test]
    fn rounds_respect_the_budget_and_write_every_unit_once() {
        // Two ranks, each owning every other unit of one row of 1-row units.
        let boxes = [
            Some(region(&[0, 0], &[64, 100])),
            Some(region(&[0, 100], &[64, 100])),
        ];
        let budget = Budget { bytes: 1000 };
        let plan = plan(&boxes, &grid(&[8, 150]), &[64, 200], 1, None, budget).unwrap();
        // Units along the first dimension: 8 chunk rows x 2 chunk columns.
        assert_eq!(plan.units.len(), 16);
        let mut written: Vec<usize> = plan.rounds.iter().flat_map(|r| r.units.clone()).collect();
        written.sort();
        assert_eq!(written, (0..16).collect::<Vec<_>>());
        for round in &plan.rounds {
            let mut sent = [0u64; 2];
            for atom in &plan.atoms[round.atoms.clone()] {
                sent[plan.units[atom.unit].pieces[atom.piece].rank] += atom.bytes;
            }
            assert!(sent.iter().all(|&b| b <= 1000), "{sent:?}");
        }
        assert!(plan.rounds.len() > 1);
        // A unit is written in the round of its last atom, never before it.
        for (r, round) in plan.rounds.iter().enumerate() {
            for &u in &round.units {
                for (a, atom) in plan.atoms.iter().enumerate() {
                    if atom.unit == u {
                        assert!(plan.rounds[..=r].iter().any(|x| x.atoms.contains(&a)));
                    }
                }
            }
        }
    }

    #[test]
    fn a_plan_of_too_many_pieces_is_refused() {
        // 2^30 one-element chunks.
        let boxes = [Some(region(&[0], &[1 << 30]))];
        let refused = plan(&boxes, &grid(&[1]), &[1 << 30], 1, None, Budget::DEFAULT);
        assert!(matches!(refused, Err(Error::OutOfMemory(_))));
    }

    #[test]
    fn nothing_to_write_is_an_empty_plan() {
        let boxes = [Some(region(&[0], &[0])), None];
        let plan = plan(&boxes, &grid(&[4]), &[10], 1, None, Budget::DEFAULT).unwrap();
        assert!(plan.units.is_empty() && plan.atoms.is_empty() && plan.rounds.is_empty());
    }

    #[test]
    fn units_without_travel_balance_the_rounds() {
        // Rank 0 holds most of shard row 0 and rank 1 a sliver of it, then all of shard
        // row 1: rank 0's units need rank 1's rows, rank 1's need nothing. Rank 1 writes
        // its units in a round where rank 0 writes too, not after it.
        let boxes = [
            Some(region(&[0, 0], &[14, 16])),
            Some(region(&[14, 0], &[18, 16])),
        ];
        let budget = Budget { bytes: 2 * 16 };
        let plan = plan(&boxes, &grid(&[16, 8]), &[32, 16], 1, None, budget).unwrap();
        assert_eq!(plan.rounds.len(), 2, "{:?}", plan.rounds);
        for round in &plan.rounds {
            let owners: Vec<usize> = round.units.iter().map(|&u| plan.units[u].owner).collect();
            assert!(
                owners.contains(&0) && owners.contains(&1),
                "{:?}",
                plan.rounds
            );
        }
    }
}
