//! The caller's output buffer, written by parallel workers each in its own block.
//!
//! A read cuts its selection into units (chunks, inner chunks) and decodes each straight
//! into its part of the caller's buffer. Those parts interleave in memory (a chunk's rows
//! alternate with its neighbours'), so they cannot be handed out as disjoint `&mut [u8]`
//! slices; they are handed out as [`OutBlock`]s instead: an index block of the buffer's
//! [`Layout`], written through a raw pointer.
//!
//! Why no two blocks ever write the same byte:
//! - [`OutBuffer::new`] accepts only layouts whose elements do not overlap
//!   ([`Layout::check_no_overlap`]) and fit in the buffer ([`Layout::check_fits`]);
//! - the only way to get more than one block is to cut a block into the cells of a grid
//!   ([`OutBlock::cells`]), which borrows it mutably for as long as the cells live, and the cells of a grid are disjoint
//!   index blocks ([`CellWalk`] checks that the cuts tile the block);
//! - so two live blocks hold disjoint sets of elements, whose bytes are disjoint.
//!
//! And every byte written lies inside the buffer: a block lies inside the layout's shape,
//! whose span fits in the buffer.

use crate::layout::{for_each_line, for_each_run, CellWalk, GridCuts, Layout, LayoutError, Line};
use std::marker::PhantomData;

/// A caller's buffer with the layout of a selection's elements in it.
pub(crate) struct OutBuffer<'a> {
    buf: &'a mut [u8],
    layout: Layout,
}

impl<'a> OutBuffer<'a> {
    /// Check that `layout` fits in `buf` and that its elements do not overlap.
    pub(crate) fn new(buf: &'a mut [u8], layout: Layout) -> Result<OutBuffer<'a>, LayoutError> {
        layout.check_fits(buf.len())?;
        layout.check_no_overlap()?;
        Ok(OutBuffer { buf, layout })
    }

    /// The bytes the layout spans (every element lies inside them).
    pub(crate) fn spanned(&mut self) -> &mut [u8] {
        let span = self.layout.span().expect("checked in new");
        &mut self.buf[..span]
    }

    /// One block covering every element; blocks for parts come from
    /// [`OutBlock::cells`].
    pub(crate) fn whole(&mut self) -> OutBlock<'_> {
        OutBlock {
            base: self.buf.as_mut_ptr(),
            len: self.buf.len(),
            layout: &self.layout,
            offset: vec![0; self.layout.shape().len()],
            extent: self.layout.shape().to_vec(),
            _buffer: PhantomData,
        }
    }
}

/// The elements `offset .. offset + extent` of an [`OutBuffer`], writable by one thread
/// while other threads write other blocks of the same buffer.
pub(crate) struct OutBlock<'b> {
    base: *mut u8,
    len: usize,
    layout: &'b Layout,
    offset: Vec<u64>,
    extent: Vec<u64>,
    _buffer: PhantomData<&'b mut [u8]>,
}

// SAFETY: a block is the only way to write its elements (see the module comment), so moving
// it to another thread cannot race with anything; the layout it refers to is immutable.
unsafe impl Send for OutBlock<'_> {}

impl<'b> OutBlock<'b> {
    pub(crate) fn extent(&self) -> &[u64] {
        &self.extent
    }

    /// Cut the block into the cells of `grid` (cuts relative to this block), each a block of
    /// its own, with its grid coordinates and offset in this block, in C order of the grid.
    /// The block itself cannot be used while its cells are alive.
    pub(crate) fn cells<'s, 'g, G: GridCuts + ?Sized>(
        &'s mut self,
        grid: &'g G,
    ) -> OutCells<'s, 'g, G> {
        OutCells {
            walk: CellWalk::new(grid, &self.extent),
            parent: OutBlock {
                base: self.base,
                len: self.len,
                layout: self.layout,
                offset: self.offset.clone(),
                extent: self.extent.clone(),
                _buffer: PhantomData,
            },
        }
    }

    /// Write `element` (one element's bytes) into every element of the block.
    pub(crate) fn fill(&mut self, element: &[u8]) {
        assert_eq!(element.len(), self.layout.element_size());
        // Runs of whole elements: fill one run's worth of pattern once, then copy it.
        let dense = Layout::c_order(&self.extent, element.len()).expect("inside a checked layout");
        let zero = vec![0; self.extent.len()];
        let mut pattern: Vec<u8> = Vec::new();
        let (base, len) = (self.base, self.len);
        for_each_run(
            &dense,
            &zero,
            self.layout,
            &self.offset,
            &self.extent,
            |_, t, n| {
                if pattern.len() < n {
                    pattern = element.repeat(n / element.len());
                }
                write(base, len, t, &pattern[..n]);
            },
        );
    }

    /// Copy into the block the block of the same extent at `src_offset` of `src`, laid out
    /// as `src_layout`.
    pub(crate) fn copy_from(&mut self, src: &[u8], src_layout: &Layout, src_offset: &[u64]) {
        let (base, len) = (self.base, self.len);
        for_each_line(
            src_layout,
            src_offset,
            self.layout,
            &self.offset,
            &self.extent,
            |line| write_line(base, len, src, line),
        );
    }

    pub(crate) fn element_size(&self) -> usize {
        self.layout.element_size()
    }

    /// The distance in the buffer between neighbours along the last dimension (the element
    /// size when rows are runs of consecutive bytes); `None` for no dimensions.
    pub(crate) fn last_step(&self) -> Option<usize> {
        self.layout.strides().last().copied()
    }

    /// Whether the block's elements are one run of consecutive bytes in C order (see
    /// [`OutBlock::contiguous`]).
    pub(crate) fn is_contiguous(&self) -> bool {
        self.layout
            .contiguous_range(&self.offset, &self.extent)
            .is_some()
    }

    /// Join blocks of one buffer that follow each other along the last dimension (the same
    /// offset and extent in every other dimension, each starting where the one before it
    /// ends) into one block of all their elements; `None` when they do not, or when there
    /// are none. The blocks are consumed, so their elements stay written by one block only.
    pub(crate) fn join_along_last(blocks: Vec<OutBlock<'b>>) -> Option<OutBlock<'b>> {
        let first = blocks.first()?;
        let last = first.extent.len().checked_sub(1)?;
        let mut end = first.offset[last];
        for block in &blocks {
            let follows = block.base == first.base
                && block.len == first.len
                && std::ptr::eq(block.layout, first.layout)
                && block.offset[..last] == first.offset[..last]
                && block.extent[..last] == first.extent[..last]
                && block.offset[last] == end;
            if !follows {
                return None;
            }
            end += block.extent[last];
        }
        let mut extent = first.extent.clone();
        extent[last] = end - first.offset[last];
        Some(OutBlock {
            base: first.base,
            len: first.len,
            layout: first.layout,
            offset: first.offset.clone(),
            extent,
            _buffer: PhantomData,
        })
    }

    /// Copy into the block `parts` dense C-order blocks that lie one after another in `src`
    /// and cut the block's last dimension into `parts` equal pieces (part k holds the
    /// elements whose last index is in the k-th piece), as a row of chunks decoded side by
    /// side. The caller's buffer is written row by row, each row's pieces one after
    /// another, rather than part by part: short rows scattered part by part land a page
    /// apart, and the writes then cost a cache miss and often a TLB miss each.
    pub(crate) fn copy_parts_from(&mut self, src: &[u8], parts: usize) {
        let last = self
            .extent
            .len()
            .checked_sub(1)
            .expect("a block of one dimension or more");
        assert!(
            parts > 0 && self.extent[last].is_multiple_of(parts as u64),
            "parts that cut the last dimension evenly"
        );
        let piece = self.extent[last] / parts as u64;
        let element_size = self.layout.element_size();
        let mut part_extent = self.extent.clone();
        part_extent[last] = piece;
        let part = Layout::c_order(&part_extent, element_size).expect("inside a checked layout");
        let part_bytes = part.span().expect("inside a checked layout");
        assert_eq!(src.len(), part_bytes * parts, "the parts' bytes");
        // Both sides seen with the last dimension split in two, (piece number, index in the
        // piece): index i of the last dimension is (i / piece, i % piece). The destination's
        // offset keeps the block's start as an index into the second of them, which gives
        // the same byte offset.
        let mut extent = self.extent[..last].to_vec();
        extent.extend([parts as u64, piece]);
        let as_i64 = |s: usize| i64::try_from(s).expect("strides of a checked layout");
        let mut src_strides: Vec<i64> = part.strides()[..last].iter().map(|&s| as_i64(s)).collect();
        src_strides.extend([as_i64(part_bytes), as_i64(element_size)]);
        let step = self.layout.strides()[last];
        let mut dst_strides: Vec<i64> = self.layout.strides()[..last]
            .iter()
            .map(|&s| as_i64(s))
            .collect();
        dst_strides.extend([as_i64(step * piece as usize), as_i64(step)]);
        let src_split = Layout::strided(&extent, &src_strides, element_size).expect("inside `src`");
        let dst_split =
            Layout::strided(&extent, &dst_strides, element_size).expect("inside the buffer");
        let mut dst_offset = self.offset[..last].to_vec();
        dst_offset.extend([0, self.offset[last]]);
        let (base, len) = (self.base, self.len);
        for_each_line(
            &src_split,
            &vec![0; extent.len()],
            &dst_split,
            &dst_offset,
            &extent,
            |line| write_line(base, len, src, line),
        );
    }

    /// When the block's elements are one run of consecutive bytes in C order, that run, to
    /// decode into directly.
    pub(crate) fn contiguous(&mut self) -> Option<&mut [u8]> {
        let range = self.layout.contiguous_range(&self.offset, &self.extent)?;
        assert!(range.end <= self.len, "block outside its buffer");
        // SAFETY: the range lies inside the buffer (checked above) and holds exactly this
        // block's elements, which no other live block holds (module comment); the slice
        // borrows `self` mutably, so this block cannot write them meanwhile either.
        Some(unsafe { std::slice::from_raw_parts_mut(self.base.add(range.start), range.len()) })
    }
}

/// Copy `bytes` to byte `at` of the buffer at `base` of `len` bytes.
fn write(base: *mut u8, len: usize, at: usize, bytes: &[u8]) {
    assert!(
        at.checked_add(bytes.len()).is_some_and(|end| end <= len),
        "write outside the output buffer"
    );
    // SAFETY: the destination lies inside the buffer (checked above), belongs to the
    // writing block's elements, which no other live block writes (module comment), and
    // cannot overlap `bytes`, which is borrowed immutably from elsewhere (a decoded chunk).
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(at), bytes.len()) };
}

/// Copy the runs of `line` from `src` to the buffer at `base` of `len` bytes. Both ends are
/// checked once per line (steps are positive, so the last run lies furthest out); the runs
/// are then copied without per-run checks, with a fixed-size copy for the common element
/// sizes, since a line of one-element runs (C order into Fortran order) is copied element
/// by element, and for the common row lengths of chunks: 64- and 128-byte rows are then
/// copied inline and 256-byte rows by a `memcpy` call of constant length (the compiler's
/// choice), instead of a `memmove` call that first dispatches on the length; about 5% of a
/// whole sharded or zstd read in alternating runs.
fn write_line(base: *mut u8, len: usize, src: &[u8], line: Line) {
    if line.count == 0 {
        return;
    }
    let last = line.count - 1;
    let end = |start: usize, step: usize| {
        last.checked_mul(step)
            .and_then(|o| o.checked_add(start))
            .and_then(|o| o.checked_add(line.run_len))
    };
    assert!(
        end(line.dst, line.dst_step).is_some_and(|e| e <= len),
        "write outside the output buffer"
    );
    assert!(
        end(line.src, line.src_step).is_some_and(|e| e <= src.len()),
        "read outside the source block"
    );
    /// `count` copies of `N` bytes.
    ///
    /// # Safety
    /// As for the caller's block below.
    unsafe fn copy_runs<const N: usize>(s: *const u8, t: *mut u8, line: Line) {
        for k in 0..line.count {
            // SAFETY: per the caller.
            unsafe {
                std::ptr::copy_nonoverlapping(s.add(k * line.src_step), t.add(k * line.dst_step), N)
            };
        }
    }
    let s = src.as_ptr().wrapping_add(line.src);
    let t = base.wrapping_add(line.dst);
    // SAFETY: every run lies inside `src` and inside the output buffer (the last one, the
    // furthest out, was checked above; all offsets are below it); the destination bytes
    // belong to the writing block's elements, which no other live block writes (module
    // comment), and cannot overlap `src`, which is borrowed immutably from elsewhere (a
    // decoded chunk).
    unsafe {
        match line.run_len {
            1 => copy_runs::<1>(s, t, line),
            2 => copy_runs::<2>(s, t, line),
            4 => copy_runs::<4>(s, t, line),
            8 => copy_runs::<8>(s, t, line),
            16 => copy_runs::<16>(s, t, line),
            // The rows of common chunk shapes (32 or 64 four-byte elements; 16 eight-byte).
            64 => copy_runs::<64>(s, t, line),
            128 => copy_runs::<128>(s, t, line),
            256 => copy_runs::<256>(s, t, line),
            n => {
                for k in 0..line.count {
                    std::ptr::copy_nonoverlapping(
                        s.add(k * line.src_step),
                        t.add(k * line.dst_step),
                        n,
                    );
                }
            }
        }
    }
}

/// The cells of a block cut by a grid (see [`OutBlock::cells`]).
pub(crate) struct OutCells<'b, 'g, G: GridCuts + ?Sized> {
    walk: CellWalk<'g, G>,
    parent: OutBlock<'b>,
}

/// One cell: its coordinates in the grid, its offset in the cut block, and its block.
pub(crate) struct OutCell<'b> {
    pub coords: Vec<u64>,
    pub offset: Vec<u64>,
    pub block: OutBlock<'b>,
}

impl<'b, G: GridCuts + ?Sized> Iterator for OutCells<'b, '_, G> {
    type Item = OutCell<'b>;

    fn next(&mut self) -> Option<OutCell<'b>> {
        let cell = self.walk.next()?;
        let parent = &self.parent;
        let offset = parent
            .offset
            .iter()
            .zip(&cell.offset)
            .map(|(a, b)| a + b)
            .collect();
        Some(OutCell {
            coords: cell.coords,
            block: OutBlock {
                base: parent.base,
                len: parent.len,
                layout: parent.layout,
                offset,
                extent: cell.extent,
                _buffer: PhantomData,
            },
            offset: cell.offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;

    struct Halves(u64);
    impl GridCuts for Halves {
        fn cells(&self, _: usize) -> u64 {
            2
        }
        fn cell(&self, _: usize, i: u64) -> Range<u64> {
            if i == 0 {
                0..self.0
            } else {
                self.0..4
            }
        }
    }

    #[test]
    fn cells_fill_their_own_elements_from_threads() {
        // A 4 x 4 selection in Fortran order inside a buffer with a spare byte at the end.
        let layout = Layout::strided(&[4, 4], &[1, 4], 1).unwrap();
        let mut buf = vec![0u8; 17];
        let mut out = OutBuffer::new(&mut buf, layout).unwrap();
        let mut whole = out.whole();
        let cells: Vec<_> = whole.cells(&Halves(1)).collect();
        assert_eq!(cells.len(), 4);
        std::thread::scope(|s| {
            for (k, mut cell) in cells.into_iter().enumerate() {
                s.spawn(move || cell.block.fill(&[k as u8 + 1]));
            }
        });
        // Cell (0,0) is row 0, column 0; (0,1) row 0, columns 1..4; (1,0) rows 1..4,
        // column 0; (1,1) the rest. Fortran order: byte = row + 4 * column.
        assert_eq!(buf[0], 1);
        assert_eq!(&buf[1..4], &[3, 3, 3]);
        assert_eq!(buf[4], 2);
        assert_eq!(&buf[5..8], &[4, 4, 4]);
        assert_eq!(buf[16], 0, "past the layout's span");
    }

    /// Cuts given dimension by dimension.
    struct Cuts(Vec<Vec<Range<u64>>>);
    impl GridCuts for Cuts {
        fn cells(&self, d: usize) -> u64 {
            self.0[d].len() as u64
        }
        fn cell(&self, d: usize, i: u64) -> Range<u64> {
            self.0[d][i as usize].clone()
        }
    }

    /// The cells of row 1 of a 4 x 8 byte buffer cut at rows 1, 3 and columns 1, 3, 5, 7
    /// that lie at columns 1..7: three 2 x 2 cells side by side.
    fn middle_row_of_cells<'s>(whole: &'s mut OutBlock<'_>) -> Vec<OutBlock<'s>> {
        let cuts = Cuts(vec![
            vec![0..1, 1..3, 3..4],
            vec![0..1, 1..3, 3..5, 5..7, 7..8],
        ]);
        whole
            .cells(&cuts)
            .filter(|cell| cell.coords[0] == 1 && (1..4).contains(&cell.coords[1]))
            .map(|cell| cell.block)
            .collect()
    }

    #[test]
    fn row_groups_join_and_are_copied_row_by_row() {
        let layout = Layout::c_order(&[4, 8], 1).unwrap();
        let mut buf = vec![0u8; 32];
        let mut out = OutBuffer::new(&mut buf, layout).unwrap();
        {
            let mut whole = out.whole();
            let mut row = middle_row_of_cells(&mut whole);
            assert_eq!(row.len(), 3);
            assert!(row
                .iter()
                .all(|b| !b.is_contiguous() && b.last_step() == Some(1)));
            // Out of order they do not join; nor does nothing.
            row.swap(0, 1);
            assert!(OutBlock::join_along_last(row).is_none());
            assert!(OutBlock::join_along_last(Vec::new()).is_none());
        }
        {
            let mut whole = out.whole();
            let mut row = middle_row_of_cells(&mut whole);
            row.remove(1);
            assert!(OutBlock::join_along_last(row).is_none(), "a gap");
        }
        {
            let mut whole = out.whole();
            let row = middle_row_of_cells(&mut whole);
            let mut joined = OutBlock::join_along_last(row).expect("side by side");
            assert_eq!(joined.extent(), &[2, 6]);
            // Three 2 x 2 parts one after another; part k holds 40 (k + 1) + 10 row + column.
            let parts: Vec<u8> = (0..3u8)
                .flat_map(|k| [0u8, 1, 10, 11].map(|v| 40 * (k + 1) + v))
                .collect();
            joined.copy_parts_from(&parts, 3);
        }
        let mut expected = vec![0u8; 32];
        expected[9..15].copy_from_slice(&[40, 41, 80, 81, 120, 121]);
        expected[17..23].copy_from_slice(&[50, 51, 90, 91, 130, 131]);
        assert_eq!(buf, expected);
    }

    #[test]
    fn copies_and_contiguous_blocks() {
        let layout = Layout::c_order(&[2, 3], 2).unwrap();
        let mut buf = vec![0u8; 12];
        let mut out = OutBuffer::new(&mut buf, layout).unwrap();
        let mut whole = out.whole();
        assert_eq!(whole.contiguous().map(|s| s.len()), Some(12));
        // Copy a 2 x 3 block from a 3 x 4 source at (1, 1).
        let src_layout = Layout::c_order(&[3, 4], 2).unwrap();
        let src: Vec<u8> = (0..12u16).flat_map(|v| v.to_ne_bytes()).collect();
        whole.copy_from(&src, &src_layout, &[1, 1]);
        let got: Vec<u16> = buf
            .chunks(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(got, vec![5, 6, 7, 9, 10, 11]);
    }

    #[test]
    fn refuses_layouts_that_do_not_fit_or_overlap() {
        let mut small = vec![0u8; 5];
        assert!(OutBuffer::new(&mut small, Layout::c_order(&[2, 3], 1).unwrap()).is_err());
        let mut buf = vec![0u8; 64];
        let overlapping = Layout::strided(&[3, 4], &[1, 1], 1).unwrap();
        assert!(OutBuffer::new(&mut buf, overlapping).is_err());
    }
}
