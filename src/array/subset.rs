//! Selections (hyper-rectangles of an array) and copies of N-dimensional blocks between
//! C-order buffers.

use crate::error::Error;
use std::ops::Range;

/// A validated hyper-rectangle `start .. start + count` inside an array of known shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub start: Vec<u64>,
    pub count: Vec<u64>,
}

impl Selection {
    /// Check rank and bounds (with overflow-safe arithmetic) against `shape`.
    pub fn new(start: &[u64], count: &[u64], shape: &[u64]) -> Result<Selection, Error> {
        if start.len() != shape.len() || count.len() != shape.len() {
            return Err(Error::InvalidArgument(format!(
                "selection has rank {} but the array has {} dimensions",
                start.len(),
                shape.len()
            )));
        }
        for d in 0..shape.len() {
            let end = start[d].checked_add(count[d]);
            if end.is_none_or(|end| end > shape[d]) {
                return Err(Error::OutOfBounds(format!(
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

    /// Number of elements, failing when it does not fit in memory.
    pub fn num_elements(&self) -> Result<u64, Error> {
        checked_product(&self.count).ok_or_else(|| {
            Error::OutOfMemory(format!("selection {:?} has too many elements", self.count))
        })
    }

    /// Size in bytes of the dense buffer holding the selection.
    pub fn nbytes(&self, element_size: usize) -> Result<usize, Error> {
        self.num_elements()
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(element_size))
            .ok_or_else(|| {
                Error::OutOfMemory(format!(
                    "selection {:?} of {element_size}-byte elements does not fit in memory",
                    self.count
                ))
            })
    }

    pub fn is_empty(&self) -> bool {
        self.count.contains(&0)
    }

    /// The range of chunk indices the selection touches along each dimension.
    pub fn chunk_ranges(&self, chunk_shape: &[u64]) -> Vec<Range<u64>> {
        self.start
            .iter()
            .zip(&self.count)
            .zip(chunk_shape)
            .map(|((&s, &c), &cs)| {
                if c == 0 {
                    0..0
                } else {
                    s / cs..(s + c - 1) / cs + 1
                }
            })
            .collect()
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

/// One side of a block copy: a C-order buffer of `shape` and the block's offset in it.
pub struct BlockView<'a> {
    pub shape: &'a [u64],
    pub offset: &'a [u64],
}

/// Copy a block of `extent` elements from `src` (laid out as `src_view`) to `dst` (laid out
/// as `dst_view`). Trailing dimensions that are contiguous in both buffers are merged so
/// that the innermost copy is as long as possible. Callers guarantee the block lies inside
/// both buffers.
pub fn copy_block(
    src: &[u8],
    src_view: BlockView,
    dst: &mut [u8],
    dst_view: BlockView,
    extent: &[u64],
    element_size: usize,
) {
    for_each_run(&src_view, &dst_view, extent, element_size, |s, t, run| {
        dst[t..t + run].copy_from_slice(&src[s..s + run]);
    });
}

/// Append to `out` the block of `extent` elements of `src` (laid out as `src_view`), dense
/// and in C order: the same as [`copy_block`] into a buffer of shape `extent`, without
/// having to initialise that buffer first.
pub fn extract_block(
    src: &[u8],
    src_view: BlockView,
    extent: &[u64],
    element_size: usize,
    out: &mut Vec<u8>,
) {
    let zeros = vec![0; extent.len()];
    let dense = BlockView {
        shape: extent,
        offset: &zeros,
    };
    // The runs come in the order of the dense destination, so appending them builds it.
    for_each_run(&src_view, &dense, extent, element_size, |s, _, run| {
        out.extend_from_slice(&src[s..s + run]);
    });
}

/// Call `copy(source offset, destination offset, length)` for every contiguous run of bytes
/// of a block of `extent` elements between two C-order buffers, in the destination's order.
fn for_each_run(
    src_view: &BlockView,
    dst_view: &BlockView,
    extent: &[u64],
    element_size: usize,
    mut copy: impl FnMut(usize, usize, usize),
) {
    let ndim = extent.len();
    if extent.contains(&0) {
        return;
    }
    if ndim == 0 {
        copy(0, 0, element_size);
        return;
    }
    let strides = |shape: &[u64]| -> Vec<usize> {
        let mut s = vec![element_size; ndim];
        for d in (0..ndim - 1).rev() {
            s[d] = s[d + 1] * shape[d + 1] as usize;
        }
        s
    };
    let src_strides = strides(src_view.shape);
    let dst_strides = strides(dst_view.shape);
    // Merge trailing dimensions while the block spans the whole extent in both buffers.
    let mut inner_dims = 1;
    let mut run = extent[ndim - 1] as usize * element_size;
    while inner_dims < ndim {
        let d = ndim - inner_dims;
        if extent[d] == src_view.shape[d] && extent[d] == dst_view.shape[d] {
            run *= extent[d - 1] as usize;
            inner_dims += 1;
        } else {
            break;
        }
    }
    let outer = ndim - inner_dims;
    let offset_of = |offset: &[u64], index: &[u64], strides: &[usize]| -> usize {
        (0..ndim)
            .map(|d| (offset[d] + index.get(d).copied().unwrap_or(0)) as usize * strides[d])
            .sum()
    };
    let mut index = vec![0u64; outer];
    loop {
        copy(
            offset_of(src_view.offset, &index, &src_strides),
            offset_of(dst_view.offset, &index, &dst_strides),
            run,
        );
        let mut d = outer;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < extent[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_bounds() {
        assert!(Selection::new(&[0, 0], &[2, 2], &[2, 2]).is_ok());
        assert!(matches!(
            Selection::new(&[1, 0], &[2, 2], &[2, 2]),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            Selection::new(&[u64::MAX, 0], &[2, 2], &[2, 2]),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            Selection::new(&[0], &[2], &[2, 2]),
            Err(Error::InvalidArgument(_))
        ));
        let big = Selection::new(&[0, 0], &[u64::MAX, u64::MAX], &[u64::MAX, u64::MAX]).unwrap();
        assert!(big.nbytes(1).is_err());
    }

    #[test]
    fn chunk_ranges() {
        let s = Selection::new(&[3, 0], &[10, 4], &[20, 4]).unwrap();
        assert_eq!(s.chunk_ranges(&[4, 4]), vec![0..4, 0..1]);
    }

    #[test]
    fn copies_blocks() {
        // src 3x4 holding 0..12; copy the 2x2 block at (1,1) into a 2x3 dst at (0,1).
        let src: Vec<u8> = (0..12).collect();
        let mut dst = vec![0u8; 6];
        copy_block(
            &src,
            BlockView {
                shape: &[3, 4],
                offset: &[1, 1],
            },
            &mut dst,
            BlockView {
                shape: &[2, 3],
                offset: &[0, 1],
            },
            &[2, 2],
            1,
        );
        assert_eq!(dst, vec![0, 5, 6, 0, 9, 10]);
        let mut whole = vec![0u8; 12];
        copy_block(
            &src,
            BlockView {
                shape: &[3, 4],
                offset: &[0, 0],
            },
            &mut whole,
            BlockView {
                shape: &[3, 4],
                offset: &[0, 0],
            },
            &[3, 4],
            1,
        );
        assert_eq!(whole, src);
    }

    #[test]
    fn extract_equals_copy_into_a_dense_block() {
        // A 2 x 3 x 4 block at (1, 0, 2) of a 3 x 5 x 7 array of 2-byte elements, and the
        // whole-rows case where runs merge.
        let src: Vec<u8> = (0..3 * 5 * 7 * 2).map(|i| i as u8).collect();
        for (offset, extent) in [([1u64, 0, 2], [2u64, 3, 4]), ([0, 1, 0], [3, 2, 7])] {
            let n = extent.iter().product::<u64>() as usize * 2;
            let view = || BlockView {
                shape: &[3, 5, 7],
                offset: &offset,
            };
            let mut copied = vec![0u8; n];
            copy_block(
                &src,
                view(),
                &mut copied,
                BlockView {
                    shape: &extent,
                    offset: &[0, 0, 0],
                },
                &extent,
                2,
            );
            let mut extracted = vec![9u8];
            extract_block(&src, view(), &extent, 2, &mut extracted);
            assert_eq!(extracted[0], 9, "appends after what is there");
            assert_eq!(&extracted[1..], &copied[..]);
        }
        let mut scalar = Vec::new();
        extract_block(
            &[5, 6],
            BlockView {
                shape: &[],
                offset: &[],
            },
            &[],
            2,
            &mut scalar,
        );
        assert_eq!(scalar, [5, 6]);
    }

    #[test]
    fn visits_in_c_order() {
        let mut seen = Vec::new();
        for_each_index(&[0..2, 5..7], |i| {
            seen.push(i.to_vec());
            Ok::<(), Error>(())
        })
        .unwrap();
        assert_eq!(seen, vec![vec![0, 5], vec![0, 6], vec![1, 5], vec![1, 6]]);
        let mut count = 0;
        for_each_index(&[], |_| {
            count += 1;
            Ok::<(), Error>(())
        })
        .unwrap();
        assert_eq!(count, 1); // a 0-d array has one chunk
    }
}
