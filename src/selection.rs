//! Selections (hyper-rectangles of an array), and how a regular grid of chunks cuts them.
//!
//! Coordinates come from callers and metadata and reach up to 2^64 - 1, so everything here
//! is computed without overflow (grid positions in u128).

use crate::layout::GridCuts;
use std::ops::Range;
use thiserror::Error;

/// Why a selection is not valid for an array.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SelectionError {
    /// The selection's rank is not the array's.
    #[error("{0}")]
    Rank(String),
    /// The selection reaches past the array's edge.
    #[error("{0}")]
    OutOfBounds(String),
    /// The selection holds more bytes than memory can.
    #[error("{0}")]
    TooLarge(String),
}

/// A validated hyper-rectangle `start .. start + count` inside an array of known shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub start: Vec<u64>,
    pub count: Vec<u64>,
}

impl Selection {
    /// Check rank and bounds (with overflow-safe arithmetic) against `shape`.
    pub fn new(start: &[u64], count: &[u64], shape: &[u64]) -> Result<Selection, SelectionError> {
        if start.len() != shape.len() || count.len() != shape.len() {
            return Err(SelectionError::Rank(format!(
                "selection has rank {} but the array has {} dimensions",
                start.len(),
                shape.len()
            )));
        }
        for d in 0..shape.len() {
            let end = start[d].checked_add(count[d]);
            if end.is_none_or(|end| end > shape[d]) {
                return Err(SelectionError::OutOfBounds(format!(
                    "selection start {} + count {} exceeds extent {} of dimension {d}",
                    start[d], count[d], shape[d]
                )));
            }
        }
        Ok(Selection {
            start: start.to_vec(),
            count: count.to_vec(),
        })
    }

    /// Number of elements, failing when it does not fit in u64.
    pub fn num_elements(&self) -> Result<u64, SelectionError> {
        checked_product(&self.count).ok_or_else(|| {
            SelectionError::TooLarge(format!("selection {:?} has too many elements", self.count))
        })
    }

    /// Size in bytes of the dense buffer holding the selection.
    pub fn nbytes(&self, element_size: usize) -> Result<usize, SelectionError> {
        self.num_elements()
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(element_size))
            .ok_or_else(|| {
                SelectionError::TooLarge(format!(
                    "selection {:?} of {element_size}-byte elements does not fit in memory",
                    self.count
                ))
            })
    }

    pub fn is_empty(&self) -> bool {
        self.count.contains(&0)
    }
}

/// Product of extents, `None` on overflow.
pub fn checked_product(extents: &[u64]) -> Option<u64> {
    extents.iter().try_fold(1u64, |acc, &n| acc.checked_mul(n))
}

/// Visit every index in the hyper-rectangle `ranges`, in C order.
pub fn for_each_index<E>(
    ranges: &[Range<u64>],
    mut visit: impl FnMut(&[u64]) -> Result<(), E>,
) -> Result<(), E> {
    if ranges.iter().any(|r| r.is_empty()) {
        return Ok(());
    }
    let mut index: Vec<u64> = ranges.iter().map(|r| r.start).collect();
    loop {
        visit(&index)?;
        let mut d = ranges.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            index[d] += 1;
            if index[d] < ranges[d].end {
                break;
            }
            index[d] = ranges[d].start;
        }
    }
}

/// The cells that a regular grid of `cell_shape` (cells at multiples of it, from 0) cuts
/// out of the block `offset .. offset + extent`: cell `i` along dimension `d` is the part of
/// the block inside grid cell `first(d) + i`. Used for chunks of a selection and for inner
/// chunks of a region of a shard.
#[derive(Clone, Debug)]
pub struct RegularCuts {
    offset: Vec<u64>,
    extent: Vec<u64>,
    cell_shape: Vec<u64>,
}

impl RegularCuts {
    /// Cuts of a block; `cell_shape` has no zero extent (chunk grids guarantee it).
    pub fn new(offset: &[u64], extent: &[u64], cell_shape: &[u64]) -> RegularCuts {
        debug_assert!(!cell_shape.contains(&0));
        RegularCuts {
            offset: offset.to_vec(),
            extent: extent.to_vec(),
            cell_shape: cell_shape.to_vec(),
        }
    }

    /// The grid index of the first cell the block touches along `d`.
    pub fn first(&self, d: usize) -> u64 {
        self.offset[d] / self.cell_shape[d]
    }

    /// The number of cells along each dimension.
    pub fn cell_counts(&self) -> Vec<u64> {
        (0..self.extent.len()).map(|d| self.cells(d)).collect()
    }

    /// The grid coordinates of the cell at `coords` of the cut (relative to the first).
    pub fn grid_index(&self, coords: &[u64]) -> Vec<u64> {
        coords
            .iter()
            .enumerate()
            .map(|(d, &c)| self.first(d) + c)
            .collect()
    }

    /// Where the block's part in grid cell `grid_index` starts inside that cell, given the
    /// part's offset in the block.
    pub fn offset_in_cell(&self, grid_index: &[u64], offset_in_block: &[u64]) -> Vec<u64> {
        (0..grid_index.len())
            .map(|d| {
                let at = self.offset[d] as u128 + offset_in_block[d] as u128;
                (at - grid_index[d] as u128 * self.cell_shape[d] as u128) as u64
            })
            .collect()
    }
}

impl GridCuts for RegularCuts {
    fn cells(&self, d: usize) -> u64 {
        if self.extent[d] == 0 {
            return 0;
        }
        let last =
            (self.offset[d] as u128 + self.extent[d] as u128 - 1) / self.cell_shape[d] as u128;
        (last - self.first(d) as u128 + 1) as u64
    }

    fn cell(&self, d: usize, i: u64) -> Range<u64> {
        let (offset, end) = (
            self.offset[d] as u128,
            self.offset[d] as u128 + self.extent[d] as u128,
        );
        let size = self.cell_shape[d] as u128;
        let cell_start = (self.first(d) as u128 + i as u128) * size;
        let lo = cell_start.max(offset);
        let hi = (cell_start + size).min(end);
        (lo - offset) as u64..(hi - offset) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::CellWalk;

    #[test]
    fn selection_bounds() {
        assert!(Selection::new(&[0, 0], &[2, 2], &[2, 2]).is_ok());
        assert!(matches!(
            Selection::new(&[1, 0], &[2, 2], &[2, 2]),
            Err(SelectionError::OutOfBounds(_))
        ));
        assert!(matches!(
            Selection::new(&[u64::MAX, 0], &[2, 2], &[2, 2]),
            Err(SelectionError::OutOfBounds(_))
        ));
        assert!(matches!(
            Selection::new(&[0], &[2], &[2, 2]),
            Err(SelectionError::Rank(_))
        ));
        let big = Selection::new(&[0, 0], &[u64::MAX, u64::MAX], &[u64::MAX, u64::MAX]).unwrap();
        assert!(big.nbytes(1).is_err());
    }

    #[test]
    fn regular_cuts() {
        // Rows 3..13 of chunks of 4: chunks 0..4, the first and last partly.
        let cuts = RegularCuts::new(&[3, 0], &[10, 4], &[4, 4]);
        assert_eq!((cuts.cells(0), cuts.cells(1)), (4, 1));
        assert_eq!(cuts.cell(0, 0), 0..1);
        assert_eq!(cuts.cell(0, 1), 1..5);
        assert_eq!(cuts.cell(0, 3), 9..10);
        assert_eq!(cuts.grid_index(&[1, 0]), vec![1, 0]);
        assert_eq!(cuts.offset_in_cell(&[0, 0], &[0, 0]), vec![3, 0]);
        assert_eq!(cuts.offset_in_cell(&[1, 0], &[1, 0]), vec![0, 0]);
        assert_eq!(CellWalk::new(&cuts, &[10, 4]).count(), 4);
    }

    #[test]
    fn regular_cuts_at_the_end_of_u64() {
        // The last element of an extent of 2^64 - 1 in chunks of 4: the chunk reaches past
        // 2^64, which must not wrap.
        let cuts = RegularCuts::new(&[u64::MAX - 1], &[1], &[4]);
        assert_eq!(cuts.cells(0), 1);
        assert_eq!(cuts.cell(0, 0), 0..1);
        assert_eq!(cuts.first(0), (u64::MAX - 1) / 4);
        assert_eq!(cuts.offset_in_cell(&[cuts.first(0)], &[0]), vec![2]);
        let three = RegularCuts::new(&[u64::MAX - 4], &[3], &[4]);
        assert_eq!(three.cells(0), 2);
        assert_eq!(three.cell(0, 0), 0..1);
        assert_eq!(three.cell(0, 1), 1..3);
    }

    #[test]
    fn visits_in_c_order() {
        let mut seen = Vec::new();
        for_each_index(&[0..2, 5..7], |i| {
            seen.push(i.to_vec());
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(seen, vec![vec![0, 5], vec![0, 6], vec![1, 5], vec![1, 6]]);
        let mut count = 0;
        for_each_index(&[], |_| {
            count += 1;
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(count, 1); // a 0-d array has one chunk
    }
}
