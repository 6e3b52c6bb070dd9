//! Where the elements of an N-dimensional block lie in a byte buffer, and copies between
//! two such buffers.
//!
//! A [`Layout`] is a shape, a distance in bytes between neighbours along each dimension
//! (the stride) and an element size. Dense C order is one layout; Fortran order, a slice of
//! a larger array and rows padded to an alignment are others. Chunks are always dense C
//! order; callers' buffers may be any layout in which no two elements share a byte.
//!
//! [`InBlock`] is a read-only block of a caller's buffer (what a write encodes); the
//! writable counterpart, shared by parallel workers, is `crate::sys::shared_out`.

use std::fmt;
use std::ops::Range;

/// A layout that cannot describe a buffer: a stride of zero or below, a span that does not
/// fit in memory or in the buffer, or elements that would share bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The placement of the elements of an index space `0..shape` in a byte buffer: element
/// `i` starts at byte `sum(i[d] * strides[d])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    shape: Vec<u64>,
    strides: Vec<usize>,
    element_size: usize,
}

impl Layout {
    /// Dense C order: the last dimension varies fastest and rows follow each other.
    pub fn c_order(shape: &[u64], element_size: usize) -> Result<Layout, LayoutError> {
        let mut strides = vec![0usize; shape.len()];
        let mut step = element_size;
        for d in (0..shape.len()).rev() {
            strides[d] = step;
            step = usize::try_from(shape[d])
                .ok()
                .and_then(|n| step.checked_mul(n.max(1)))
                .ok_or_else(|| {
                    LayoutError(format!(
                        "a block of shape {shape:?} of {element_size}-byte elements does not fit in memory"
                    ))
                })?;
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            element_size,
        })
    }

    /// A layout with explicit strides in bytes, each at least 1.
    pub fn strided(
        shape: &[u64],
        byte_strides: &[i64],
        element_size: usize,
    ) -> Result<Layout, LayoutError> {
        if byte_strides.len() != shape.len() {
            return Err(LayoutError(format!(
                "{} strides for {} dimensions",
                byte_strides.len(),
                shape.len()
            )));
        }
        let mut strides = Vec::with_capacity(shape.len());
        for (d, &s) in byte_strides.iter().enumerate() {
            match usize::try_from(s) {
                Ok(s) if s > 0 => strides.push(s),
                _ => {
                    return Err(LayoutError(format!(
                        "byte stride {s} of dimension {d} must be positive"
                    )))
                }
            }
        }
        let layout = Layout {
            shape: shape.to_vec(),
            strides,
            element_size,
        };
        layout.span()?;
        Ok(layout)
    }

    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    pub fn element_size(&self) -> usize {
        self.element_size
    }

    /// Whether the index space is empty (some extent is zero).
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// Bytes from the first element's first byte to the last element's last byte (0 for
    /// an empty block).
    pub fn span(&self) -> Result<usize, LayoutError> {
        if self.is_empty() {
            return Ok(0);
        }
        let mut span = self.element_size;
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            span = usize::try_from(n - 1)
                .ok()
                .and_then(|m| m.checked_mul(s))
                .and_then(|extra| span.checked_add(extra))
                .ok_or_else(|| {
                    LayoutError(format!(
                        "shape {:?} with strides {:?} spans more bytes than memory holds",
                        self.shape, self.strides
                    ))
                })?;
        }
        Ok(span)
    }

    /// Check that a buffer of `len` bytes holds every element.
    pub fn check_fits(&self, len: usize) -> Result<(), LayoutError> {
        let span = self.span()?;
        if span > len {
            return Err(LayoutError(format!(
                "the layout spans {span} bytes but the buffer holds {len}"
            )));
        }
        Ok(())
    }

    /// Check that no two elements share a byte, by a rule simple enough to document: taken
    /// from the smallest stride to the largest (over dimensions of extent above 1), each
    /// stride is at least the span of the dimensions before it. Dense C and Fortran order,
    /// slices of larger arrays and padded rows pass; interleavings that happen not to
    /// collide are refused.
    pub fn check_no_overlap(&self) -> Result<(), LayoutError> {
        let mut dims: Vec<usize> = (0..self.shape.len())
            .filter(|&d| self.shape[d] > 1)
            .collect();
        dims.sort_by_key(|&d| self.strides[d]);
        let mut span = self.element_size;
        for d in dims {
            if self.strides[d] < span {
                return Err(LayoutError(format!(
                    "byte stride {} of dimension {d} is smaller than the {span} bytes the \
                     dimensions with smaller strides span: elements would overlap",
                    self.strides[d]
                )));
            }
            span += (self.shape[d] as usize - 1) * self.strides[d];
        }
        Ok(())
    }

    /// Byte offset of the element at `index`. The caller keeps `index` inside the shape of
    /// a layout whose span was checked, so the sum cannot overflow.
    pub fn offset_of(&self, index: &[u64]) -> usize {
        index
            .iter()
            .zip(&self.strides)
            .map(|(&i, &s)| i as usize * s)
            .sum()
    }

    /// When the block at `offset` of `extent` lies in one run of consecutive bytes holding
    /// exactly its elements in C order, that run's byte range.
    pub fn contiguous_range(&self, offset: &[u64], extent: &[u64]) -> Option<Range<usize>> {
        let n: u64 = extent.iter().product();
        let len = usize::try_from(n).ok()?.checked_mul(self.element_size)?;
        if n == 0 {
            return None;
        }
        // Going outwards, each dimension of extent above 1 must step by exactly the bytes of
        // what lies inside it.
        let mut inner = self.element_size;
        for d in (0..extent.len()).rev() {
            if extent[d] > 1 && self.strides[d] != inner {
                return None;
            }
            inner *= extent[d] as usize;
        }
        let start = self.offset_of(offset);
        Some(start..start + len)
    }
}

/// Call `run(source byte, destination byte, length)` for every run of consecutive bytes
/// of the block of `extent` elements at `src_offset` of `src` and `dst_offset` of `dst`,
/// which have the same element size. The runs come in the destination's order from its
/// largest stride to its smallest, so a dense destination is written front to back.
pub fn for_each_run(
    src: &Layout,
    src_offset: &[u64],
    dst: &Layout,
    dst_offset: &[u64],
    extent: &[u64],
    mut run: impl FnMut(usize, usize, usize),
) {
    for_each_line(src, src_offset, dst, dst_offset, extent, |line| {
        let (mut s, mut t) = (line.src, line.dst);
        for _ in 0..line.count {
            run(s, t, line.run_len);
            s += line.src_step;
            t += line.dst_step;
        }
    });
}

/// `count` runs of `run_len` consecutive bytes, the k-th at source byte
/// `src + k * src_step` and destination byte `dst + k * dst_step`: the innermost
/// dimension of a copy whose runs are short (down to one element, as between C and
/// Fortran order), so that a copy loop pays the index arithmetic once per line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub src: usize,
    pub dst: usize,
    pub run_len: usize,
    pub count: usize,
    pub src_step: usize,
    pub dst_step: usize,
}

/// Call `line` for every [`Line`] of the block copy described as in [`for_each_run`],
/// lines in the destination's order.
pub fn for_each_line(
    src: &Layout,
    src_offset: &[u64],
    dst: &Layout,
    dst_offset: &[u64],
    extent: &[u64],
    mut line: impl FnMut(Line),
) {
    debug_assert_eq!(src.element_size, dst.element_size);
    if extent.contains(&0) {
        return;
    }
    let element_size = dst.element_size;
    let src_base = src.offset_of(src_offset);
    let dst_base = dst.offset_of(dst_offset);
    // Dimensions from the destination's largest stride to its smallest; extents of 1 play
    // no part.
    let mut dims: Vec<usize> = (0..extent.len()).filter(|&d| extent[d] > 1).collect();
    dims.sort_by(|&a, &b| dst.strides[b].cmp(&dst.strides[a]).then(a.cmp(&b)));
    // The innermost dimensions form one run while both buffers are contiguous across them.
    let mut run_len = element_size;
    while let Some(&d) = dims.last() {
        if src.strides[d] == run_len && dst.strides[d] == run_len {
            run_len *= extent[d] as usize;
            dims.pop();
        } else {
            break;
        }
    }
    // The next dimension inwards is the line; the rest are walked index by index.
    let (count, src_step, dst_step) = match dims.pop() {
        Some(d) => (extent[d] as usize, src.strides[d], dst.strides[d]),
        None => (1, 0, 0),
    };
    let mut index = vec![0u64; dims.len()];
    loop {
        let (mut s, mut t) = (src_base, dst_base);
        for (k, &d) in dims.iter().enumerate() {
            s += index[k] as usize * src.strides[d];
            t += index[k] as usize * dst.strides[d];
        }
        line(Line {
            src: s,
            dst: t,
            run_len,
            count,
            src_step,
            dst_step,
        });
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < extent[dims[k]] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// Copy the block of `extent` elements at `src_offset` of `src` (laid out as
/// `src_layout`) to `dst_offset` of `dst`. Both blocks lie inside their checked layouts.
pub fn copy_block(
    src: &[u8],
    src_layout: &Layout,
    src_offset: &[u64],
    dst: &mut [u8],
    dst_layout: &Layout,
    dst_offset: &[u64],
    extent: &[u64],
) {
    /// The runs of `line`, `N` bytes each (a fixed-size copy for the common sizes).
    fn copy_runs<const N: usize>(src: &[u8], dst: &mut [u8], line: Line) {
        let (mut s, mut t) = (line.src, line.dst);
        for _ in 0..line.count {
            dst[t..t + N].copy_from_slice(&src[s..s + N]);
            s += line.src_step;
            t += line.dst_step;
        }
    }
    for_each_line(
        src_layout,
        src_offset,
        dst_layout,
        dst_offset,
        extent,
        |line| match line.run_len {
            1 => copy_runs::<1>(src, dst, line),
            2 => copy_runs::<2>(src, dst, line),
            4 => copy_runs::<4>(src, dst, line),
            8 => copy_runs::<8>(src, dst, line),
            n => {
                let (mut s, mut t) = (line.src, line.dst);
                for _ in 0..line.count {
                    dst[t..t + n].copy_from_slice(&src[s..s + n]);
                    s += line.src_step;
                    t += line.dst_step;
                }
            }
        },
    );
}

/// How a block is cut into a grid of cells, one dimension at a time: along dimension `d`
/// there are `cells(d)` cells, cell `i` covering `cell(d, i)` of the block's extent. The
/// cells of one dimension follow each other without gap or overlap from 0 to the extent.
pub trait GridCuts {
    fn cells(&self, d: usize) -> u64;
    fn cell(&self, d: usize, i: u64) -> Range<u64>;
}

/// The cells of a grid over a block of `extent`, visited in C order of the grid, with a
/// check that every cell continues the one before it (so that no two cells overlap).
pub(crate) struct CellWalk<'g, G: GridCuts + ?Sized> {
    grid: &'g G,
    extent: Vec<u64>,
    counts: Vec<u64>,
    index: Vec<u64>,
    done: bool,
}

/// One cell of a [`CellWalk`]: its grid coordinates, and its offset and extent in the block.
pub(crate) struct Cell {
    pub coords: Vec<u64>,
    pub offset: Vec<u64>,
    pub extent: Vec<u64>,
}

impl<'g, G: GridCuts + ?Sized> CellWalk<'g, G> {
    pub(crate) fn new(grid: &'g G, extent: &[u64]) -> Self {
        let counts: Vec<u64> = (0..extent.len()).map(|d| grid.cells(d)).collect();
        let done = extent.contains(&0) || counts.contains(&0);
        CellWalk {
            grid,
            extent: extent.to_vec(),
            index: vec![0; extent.len()],
            counts,
            done,
        }
    }

    /// The number of cells, when it fits in u64.
    pub(crate) fn len(&self) -> Option<u64> {
        if self.done {
            return Some(0);
        }
        self.counts.iter().try_fold(1u64, |a, &n| a.checked_mul(n))
    }
}

impl<G: GridCuts + ?Sized> Iterator for CellWalk<'_, G> {
    type Item = Cell;

    fn next(&mut self) -> Option<Cell> {
        if self.done {
            return None;
        }
        let ndim = self.extent.len();
        let mut offset = Vec::with_capacity(ndim);
        let mut extent = Vec::with_capacity(ndim);
        for d in 0..ndim {
            let range = self.grid.cell(d, self.index[d]);
            let i = self.index[d];
            // The cuts must tile the extent: first cell at 0, each next where the last
            // ended, the last at the end. A grid breaking this is a bug in the library.
            assert!(
                range.start < range.end
                    && range.end <= self.extent[d]
                    && (i > 0 || range.start == 0)
                    && (i + 1 < self.counts[d] || range.end == self.extent[d])
                    && (i == 0 || self.grid.cell(d, i - 1).end == range.start),
                "grid cuts do not tile dimension {d}"
            );
            offset.push(range.start);
            extent.push(range.end - range.start);
        }
        let coords = self.index.clone();
        // Advance in C order.
        let mut d = ndim;
        loop {
            if d == 0 {
                self.done = true;
                break;
            }
            d -= 1;
            self.index[d] += 1;
            if self.index[d] < self.counts[d] {
                break;
            }
            self.index[d] = 0;
        }
        Some(Cell {
            coords,
            offset,
            extent,
        })
    }
}

/// A read-only block of a caller's buffer: the elements at `offset .. offset + extent` of
/// a layout, the source of a write.
#[derive(Clone)]
pub struct InBlock<'a> {
    data: &'a [u8],
    layout: &'a Layout,
    offset: Vec<u64>,
    extent: Vec<u64>,
}

impl<'a> InBlock<'a> {
    /// The whole of `data` laid out as `layout`, which must fit in it.
    pub fn whole(data: &'a [u8], layout: &'a Layout) -> Result<InBlock<'a>, LayoutError> {
        layout.check_fits(data.len())?;
        Ok(InBlock {
            data,
            layout,
            offset: vec![0; layout.shape.len()],
            extent: layout.shape.clone(),
        })
    }

    pub fn extent(&self) -> &[u64] {
        &self.extent
    }

    pub fn element_size(&self) -> usize {
        self.layout.element_size
    }

    /// The block at `offset .. offset + extent` of this block (inside it).
    pub fn sub(&self, offset: &[u64], extent: &[u64]) -> InBlock<'a> {
        debug_assert!(offset
            .iter()
            .zip(extent)
            .zip(&self.extent)
            .all(|((o, e), n)| o + e <= *n));
        InBlock {
            data: self.data,
            layout: self.layout,
            offset: self.offset.iter().zip(offset).map(|(a, b)| a + b).collect(),
            extent: extent.to_vec(),
        }
    }

    /// Append the block's elements to `out`, dense and in C order.
    pub fn gather_into(&self, out: &mut Vec<u8>) {
        let dense = Layout {
            shape: self.extent.clone(),
            strides: dense_strides(&self.extent, self.layout.element_size),
            element_size: self.layout.element_size,
        };
        let zero = vec![0; self.extent.len()];
        // Runs come in the dense destination's order, so appending them builds it.
        for_each_run(
            self.layout,
            &self.offset,
            &dense,
            &zero,
            &self.extent,
            |s, _, n| out.extend_from_slice(&self.data[s..s + n]),
        );
    }

    /// The coordinates in the block of the first element in C order whose bytes satisfy
    /// `found`, or `None`.
    pub fn find_element(&self, mut found: impl FnMut(&[u8]) -> bool) -> Option<Vec<u64>> {
        let element_size = self.layout.element_size;
        let dense = Layout {
            shape: self.extent.clone(),
            strides: dense_strides(&self.extent, element_size),
            element_size,
        };
        let zero = vec![0; self.extent.len()];
        // Runs come in the dense destination's order, so the first hit is the first in C
        // order; its place in the dense block gives its coordinates.
        let mut hit: Option<usize> = None;
        for_each_run(
            self.layout,
            &self.offset,
            &dense,
            &zero,
            &self.extent,
            |s, t, n| {
                if hit.is_some() {
                    return;
                }
                let run = &self.data[s..s + n];
                if let Some(k) = run.chunks_exact(element_size).position(&mut found) {
                    hit = Some(t / element_size + k);
                }
            },
        );
        let mut index = hit? as u64;
        let mut coords = vec![0u64; self.extent.len()];
        for d in (0..self.extent.len()).rev() {
            let n = self.extent[d].max(1);
            coords[d] = index % n;
            index /= n;
        }
        Some(coords)
    }

    /// Copy the block into `dst` at `dst_offset` of `dst_layout` (the block fits there).
    pub fn copy_to(&self, dst: &mut [u8], dst_layout: &Layout, dst_offset: &[u64]) {
        copy_block(
            self.data,
            self.layout,
            &self.offset,
            dst,
            dst_layout,
            dst_offset,
            &self.extent,
        );
    }

    /// When the block is one run of consecutive bytes in C order, those bytes.
    pub fn contiguous(&self) -> Option<&'a [u8]> {
        let range = self.layout.contiguous_range(&self.offset, &self.extent)?;
        Some(&self.data[range])
    }
}

/// Strides of dense C order for a shape whose byte size is already known to fit.
fn dense_strides(shape: &[u64], element_size: usize) -> Vec<usize> {
    let mut strides = vec![0usize; shape.len()];
    let mut step = element_size;
    for d in (0..shape.len()).rev() {
        strides[d] = step;
        step *= shape[d].max(1) as usize;
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_overlap_rule() {
        let c = Layout::c_order(&[3, 4], 2).unwrap();
        assert_eq!(c.strides(), &[8, 2]);
        assert_eq!(c.span().unwrap(), 24);
        c.check_no_overlap().unwrap();
        let f = Layout::strided(&[3, 4], &[2, 6], 2).unwrap();
        assert_eq!(f.span().unwrap(), 24);
        f.check_no_overlap().unwrap();
        // Padded rows of a larger buffer.
        let padded = Layout::strided(&[3, 4], &[16, 2], 2).unwrap();
        assert_eq!(padded.span().unwrap(), 40);
        padded.check_no_overlap().unwrap();
        assert!(padded.check_fits(39).is_err());
        // Overlapping elements, and an interleaving that does not collide but is refused.
        assert!(Layout::strided(&[3, 4], &[2, 2], 2)
            .unwrap()
            .check_no_overlap()
            .is_err());
        assert!(Layout::strided(&[2, 3], &[3, 2], 1)
            .unwrap()
            .check_no_overlap()
            .is_err());
        assert!(Layout::strided(&[2], &[0], 1).is_err());
        assert!(Layout::strided(&[2], &[-4], 1).is_err());
        assert!(Layout::strided(&[u64::MAX, 2], &[1 << 40, 1], 1).is_err());
        assert!(Layout::c_order(&[u64::MAX, u64::MAX], 1).is_err());
        assert_eq!(Layout::c_order(&[0, 5], 4).unwrap().span().unwrap(), 0);
    }

    #[test]
    fn copies_between_c_and_fortran_order() {
        // 2 x 3 of u16 in C order: values 0..6.
        let c = Layout::c_order(&[2, 3], 2).unwrap();
        let src: Vec<u8> = (0..6u16).flat_map(|v| v.to_ne_bytes()).collect();
        let f = Layout::strided(&[2, 3], &[2, 4], 2).unwrap();
        let mut dst = vec![0u8; 12];
        copy_block(&src, &c, &[0, 0], &mut dst, &f, &[0, 0], &[2, 3]);
        let got: Vec<u16> = dst
            .chunks(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        // Column-major: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2).
        assert_eq!(got, vec![0, 3, 1, 4, 2, 5]);
        // A sub-block, back into C order.
        let mut back = vec![0u8; 4];
        let one_by_two = Layout::c_order(&[1, 2], 2).unwrap();
        copy_block(&dst, &f, &[1, 1], &mut back, &one_by_two, &[0, 0], &[1, 2]);
        assert_eq!(
            back,
            [4u16, 5]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn runs_merge_when_contiguous() {
        let c = Layout::c_order(&[4, 5, 6], 1).unwrap();
        let mut runs = Vec::new();
        for_each_run(&c, &[0, 0, 0], &c, &[0, 0, 0], &[4, 5, 6], |s, t, n| {
            runs.push((s, t, n))
        });
        assert_eq!(runs, vec![(0, 0, 120)]);
        runs.clear();
        let dense = Layout::c_order(&[2, 5, 3], 1).unwrap();
        for_each_run(&c, &[1, 0, 2], &dense, &[0, 0, 0], &[2, 5, 3], |s, t, n| {
            runs.push((s, t, n))
        });
        assert_eq!(runs.len(), 10);
        assert_eq!(runs[0], (32, 0, 3));
        assert_eq!(runs[1], (38, 3, 3));
        assert_eq!(c.contiguous_range(&[1, 0, 0], &[2, 5, 6]), Some(30..90));
        assert_eq!(c.contiguous_range(&[1, 2, 0], &[1, 2, 6]), Some(42..54));
        assert_eq!(c.contiguous_range(&[1, 0, 0], &[2, 5, 3]), None);
    }

    #[test]
    fn lines_copy_as_element_by_element_does() {
        // A 3 x 4 x 5 block at (1, 2, 0) of a 4 x 6 x 5 array, between C order and
        // Fortran order, for every element size the copy loop special-cases and one it
        // does not: the same bytes as a copy element by element through `offset_of`.
        for size in [1usize, 2, 3, 4, 8, 16] {
            let shape = [4u64, 6, 5];
            let c = Layout::c_order(&shape, size).unwrap();
            let s = size as i64;
            let f = Layout::strided(&shape, &[s, 4 * s, 24 * s], size).unwrap();
            let bytes = c.span().unwrap();
            let src: Vec<u8> = (0..bytes).map(|i| (i * 7 % 251) as u8).collect();
            let (offset, extent) = ([1u64, 2, 0], [3u64, 4, 5]);
            for (from, to) in [(&c, &f), (&f, &c)] {
                let mut fast = vec![0u8; bytes];
                copy_block(&src, from, &offset, &mut fast, to, &offset, &extent);
                let mut slow = vec![0u8; bytes];
                for i in 0..3 {
                    for j in 0..4 {
                        for k in 0..5 {
                            let at = [offset[0] + i, offset[1] + j, offset[2] + k];
                            let (a, b) = (from.offset_of(&at), to.offset_of(&at));
                            slow[b..b + size].copy_from_slice(&src[a..a + size]);
                        }
                    }
                }
                assert_eq!(fast, slow, "element size {size}");
            }
            // Into Fortran order the runs are single elements and the line is the first
            // dimension, whose destination stride is the element size.
            let mut lines = Vec::new();
            for_each_line(&c, &offset, &f, &offset, &extent, |l| lines.push(l));
            assert_eq!(lines.len(), 4 * 5);
            assert!(lines.iter().all(|l| l.run_len == size
                && l.count == 3
                && l.dst_step == size
                && l.src_step == 30 * size));
        }
    }

    #[test]
    fn in_blocks_gather_and_copy() {
        let layout = Layout::c_order(&[3, 4], 1).unwrap();
        let data: Vec<u8> = (0..12).collect();
        let whole = InBlock::whole(&data, &layout).unwrap();
        let sub = whole.sub(&[1, 1], &[2, 2]);
        let mut out = vec![9];
        sub.gather_into(&mut out);
        assert_eq!(out, vec![9, 5, 6, 9, 10]);
        assert_eq!(whole.sub(&[1, 0], &[2, 4]).contiguous(), Some(&data[4..12]));
        assert!(sub.contiguous().is_none());
        assert!(InBlock::whole(&data[..11], &layout).is_err());
    }

    struct Regular(Vec<u64>, Vec<u64>);
    impl GridCuts for Regular {
        fn cells(&self, d: usize) -> u64 {
            self.0[d].div_ceil(self.1[d])
        }
        fn cell(&self, d: usize, i: u64) -> Range<u64> {
            i * self.1[d]..((i + 1) * self.1[d]).min(self.0[d])
        }
    }

    #[test]
    fn cell_walk_tiles_in_c_order() {
        let grid = Regular(vec![5, 3], vec![2, 2]);
        let walk = CellWalk::new(&grid, &[5, 3]);
        assert_eq!(walk.len(), Some(6));
        let cells: Vec<_> = walk.map(|c| (c.coords, c.offset, c.extent)).collect();
        assert_eq!(cells[0], (vec![0, 0], vec![0, 0], vec![2, 2]));
        assert_eq!(cells[1], (vec![0, 1], vec![0, 2], vec![2, 1]));
        assert_eq!(cells[5], (vec![2, 1], vec![4, 2], vec![1, 1]));
        let zero_d = Regular(vec![], vec![]);
        assert_eq!(CellWalk::new(&zero_d, &[]).count(), 1);
    }

    struct Broken;
    impl GridCuts for Broken {
        fn cells(&self, _: usize) -> u64 {
            2
        }
        fn cell(&self, _: usize, i: u64) -> Range<u64> {
            // Overlapping cells.
            i..i + 2
        }
    }

    #[test]
    #[should_panic(expected = "grid cuts do not tile")]
    fn overlapping_cells_are_refused() {
        CellWalk::new(&Broken, &[3]).for_each(drop);
    }
}
