//! Reading and writing variable-length elements (`string`, `bytes`), element by element.
//!
//! The caller's side is Arrow's layout: element `i` of a selection (C order) is
//! `data[offsets[i] .. offsets[i + 1]]`. A chunk is decoded whole ([`VlenChain`]). A read
//! decodes the chunks a selection touches on the worker pool, a batch at a time, and then
//! puts the selected elements in selection order; a write encodes the chunks it covers from
//! the caller's elements and updates the others under their chunk lock (read, merge,
//! store), as writes of fixed-size elements do. A chunk whose elements all equal the fill
//! value is not stored (an existing one is erased). Sharded arrays read and write their
//! shards' inner chunks the same way (`vlen_shards`).

use super::locks::{store_chunk, update_chunk};
use super::vlen_shards::ShardElements;
use super::{Array, ArrayState};
use crate::codec::vlen::{VlenChain, VlenCodecs, VlenElements};
use crate::error::Error;
use crate::layout::CellWalk;
use crate::selection::{checked_product, for_each_index, Selection};
use rayon::prelude::*;

/// Chunks decoded (or encoded) at a time.
const BATCH: usize = 256;

impl Array {
    /// The elements of the selection `start`, `count` in C order: `offsets` (n + 1 values
    /// from 0) and `data`. Elements of chunks never written are the fill value.
    pub fn read_vlen(&self, start: &[u64], count: &[u64]) -> Result<VlenElements, Error> {
        let state = self.state();
        let codecs = state.vlen_codecs()?;
        let selection = Selection::new(start, count, &state.metadata.shape)?;
        let n = element_count(&selection)?;
        if n == 0 {
            return Ok(VlenElements::with_capacity(0, 0)?);
        }
        let cuts = state.grid().cuts(start, count);
        let fill = state.metadata.fill_value.as_bytes();
        // The selected elements as they come, chunk by chunk: their bytes one after another
        // in `bytes`, and for each its position in the selection and its place in `bytes`.
        let mut bytes: Vec<u8> = Vec::new();
        let mut pieces: Vec<(u64, usize, usize)> = Vec::new();
        pieces
            .try_reserve_exact(n)
            .map_err(|_| Error::OutOfMemory(format!("{n} elements")))?;
        let pool = crate::threads::pool()?;
        let mut cells = CellWalk::new(&cuts, count);
        loop {
            let batch: Vec<_> = cells.by_ref().take(BATCH).collect();
            if batch.is_empty() {
                break;
            }
            let decoded: Vec<Option<Decoded>> = pool.install(|| {
                batch
                    .par_iter()
                    .map(|cell| {
                        let chunk = cuts.grid_index(&cell.coords);
                        Ok(match codecs {
                            VlenCodecs::Chunks(chain) => self
                                .read_vlen_chunk(&state, chain, &chunk)?
                                .map(Decoded::Chunk),
                            VlenCodecs::Shards(shards) => {
                                let in_chunk = cuts.offset_in_cell(&chunk, &cell.offset);
                                self.read_vlen_shard(
                                    &state,
                                    shards,
                                    &chunk,
                                    &in_chunk,
                                    &cell.extent,
                                )?
                                .map(Decoded::Shard)
                            }
                        })
                    })
                    .collect::<Result<_, Error>>()
            })?;
            for (cell, chunk) in batch.iter().zip(&decoded) {
                let grid_index = cuts.grid_index(&cell.coords);
                let in_chunk = cuts.offset_in_cell(&grid_index, &cell.offset);
                let chunk_shape = cuts.chunk_shape(&grid_index);
                let mut failed = None;
                for_each_element(&cell.extent, |local| {
                    let element = match chunk {
                        Some(Decoded::Chunk(elements)) => {
                            let at = linear(&chunk_shape, &in_chunk, local) as usize;
                            elements.get(at).unwrap_or(fill)
                        }
                        Some(Decoded::Shard(shard)) => shard.get(&in_chunk, local).unwrap_or(fill),
                        None => fill,
                    };
                    if bytes.try_reserve(element.len()).is_err() {
                        failed = Some(bytes.len() + element.len());
                        return;
                    }
                    pieces.push((
                        linear(count, &cell.offset, local),
                        bytes.len(),
                        element.len(),
                    ));
                    bytes.extend_from_slice(element);
                });
                if let Some(size) = failed {
                    return Err(Error::OutOfMemory(format!("{size} bytes of elements")));
                }
            }
        }
        pieces.sort_unstable_by_key(|&(selected, _, _)| selected);
        let mut out = VlenElements::with_capacity(n, bytes.len())?;
        for (_, at, len) in pieces {
            out.push(&bytes[at..at + len])?;
        }
        Ok(out)
    }

    /// Write the elements of the selection `start`, `count`, given in C order as Arrow
    /// offsets (n + 1 values, non-decreasing, the last at most `data.len()`) and data.
    /// Text (`string`) must be valid UTF-8. Everything is checked before anything is
    /// written.
    pub fn write_vlen(
        &self,
        start: &[u64],
        count: &[u64],
        offsets: &[u64],
        data: &[u8],
    ) -> Result<(), Error> {
        let state = self.state();
        let chain = state.vlen_codecs()?.chain();
        chain.check_writable()?;
        let selection = Selection::new(start, count, &state.metadata.shape)?;
        let n = element_count(&selection)?;
        check_elements(offsets, data, n, chain.is_text())?;
        if n == 0 {
            return Ok(());
        }
        self.write_vlen_block(&state, start, count, offsets, data)
    }

    /// Write checked elements into the block `start .. start + count` (which may reach
    /// past the array's edge, inside the last chunks: a resize resets elements there).
    pub(super) fn write_vlen_block(
        &self,
        state: &ArrayState,
        start: &[u64],
        count: &[u64],
        offsets: &[u64],
        data: &[u8],
    ) -> Result<(), Error> {
        let codecs = state.vlen_codecs()?;
        codecs.chain().check_writable()?;
        let cuts = state.grid().cuts(start, count);
        let pool = crate::threads::pool()?;
        let mut cells = CellWalk::new(&cuts, count);
        loop {
            let batch: Vec<_> = cells.by_ref().take(BATCH).collect();
            if batch.is_empty() {
                return Ok(());
            }
            pool.install(|| {
                batch.par_iter().try_for_each(|cell| {
                    let chunk = cuts.grid_index(&cell.coords);
                    let in_chunk = cuts.offset_in_cell(&chunk, &cell.offset);
                    let chunk_shape = cuts.chunk_shape(&chunk);
                    let key = self.key_of(state, &chunk);
                    let input = CellInput {
                        in_chunk: &in_chunk,
                        extent: &cell.extent,
                        cell_offset: &cell.offset,
                        count,
                        offsets,
                        data,
                    };
                    let covered = input.covers(&vec![0; chunk_shape.len()], &chunk_shape);
                    match codecs {
                        VlenCodecs::Chunks(chain) => {
                            self.write_vlen_chunk(state, chain, &chunk_shape, &key, &input, covered)
                        }
                        VlenCodecs::Shards(shards) => {
                            self.write_vlen_shard(state, shards, &chunk, &key, &input, covered)
                        }
                    }
                })
            })?;
        }
    }

    /// Write the elements of `input` into the chunk of `chunk_shape` stored at `key`,
    /// merging with what is stored unless the input covers the chunk (an update:
    /// one at a time per chunk, within the process and across processes, see `locks`).
    fn write_vlen_chunk(
        &self,
        state: &ArrayState,
        chain: &VlenChain,
        chunk_shape: &[u64],
        key: &str,
        input: &CellInput,
        covered: bool,
    ) -> Result<(), Error> {
        let chunk_count = checked_product(chunk_shape).unwrap_or(u64::MAX);
        let merge = |stored: Option<Vec<u8>>| -> Result<Option<Vec<u8>>, Error> {
            let existing = stored
                .map(|encoded| chain.decode(encoded, chunk_count))
                .transpose()
                .map_err(|e| super::planner::with_chunk_context(e, key))?;
            merge_vlen_chunk(state, chain, chunk_shape, key, input, existing)
        };
        if covered {
            return store_chunk(self.storage.as_ref(), key, merge(None)?);
        }
        update_chunk(self.storage.as_ref(), &self.lock_scope, key, merge)
    }

    /// Decode the chunk at `chunk`; `None` when it is not stored.
    fn read_vlen_chunk(
        &self,
        state: &ArrayState,
        chain: &VlenChain,
        chunk: &[u64],
    ) -> Result<Option<VlenElements>, Error> {
        let key = self.key_of(state, chunk);
        let Some(encoded) = self.storage.get(&key)? else {
            return Ok(None);
        };
        let count = checked_product(&state.grid().chunk_shape_at(chunk)).unwrap_or(u64::MAX);
        chain
            .decode(encoded, count)
            .map(Some)
            .map_err(|e| super::planner::with_chunk_context(e, &key))
    }
}

/// The chunk of `chunk_shape` (stored at `key`) that results from writing `input` over
/// `existing` (its stored elements, if any), encoded; `None` when every element is the
/// fill value (the chunk is then erased).
fn merge_vlen_chunk(
    state: &ArrayState,
    chain: &VlenChain,
    chunk_shape: &[u64],
    key: &str,
    input: &CellInput,
    existing: Option<VlenElements>,
) -> Result<Option<Vec<u8>>, Error> {
    let fill = state.metadata.fill_value.as_bytes();
    let chunk_count = checked_product(chunk_shape).unwrap_or(u64::MAX);
    // The chunk's elements in C order: the selection's where the cell covers them,
    // otherwise what is stored (or the fill value).
    let mut elements = VlenElements::with_capacity(chunk_count as usize, 0)?;
    let mut all_fill = true;
    let whole: Vec<_> = chunk_shape.iter().map(|&n| 0..n).collect();
    for_each_index(&whole, |position| {
        let element = match input.get(position) {
            Some(element) => element,
            None => existing
                .as_ref()
                .and_then(|stored| stored.get(elements.len()))
                .unwrap_or(fill),
        };
        all_fill &= element == fill;
        elements.push(element)
    })?;
    if all_fill {
        return Ok(None);
    }
    chain
        .encode(&elements.offsets, &elements.data)
        .map(Some)
        .map_err(|e| super::planner::with_chunk_context(e, key))
}

/// A decoded chunk, or the decoded inner chunks of a shard that a read needs.
enum Decoded {
    Chunk(VlenElements),
    Shard(ShardElements),
}

/// The caller's elements that go into one chunk (or shard): the cell of the selection
/// at `in_chunk` in the chunk, of `extent`, at `cell_offset` in the selection `count`,
/// whose elements are `data[offsets[i] .. offsets[i + 1]]` (checked).
pub(super) struct CellInput<'a> {
    pub in_chunk: &'a [u64],
    pub extent: &'a [u64],
    pub cell_offset: &'a [u64],
    pub count: &'a [u64],
    pub offsets: &'a [u64],
    pub data: &'a [u8],
}

impl CellInput<'_> {
    /// The caller's element at `position` in the chunk, or `None` outside the cell.
    pub(super) fn get(&self, position: &[u64]) -> Option<&[u8]> {
        let mut i = 0u64;
        for (d, &at) in position.iter().enumerate() {
            let local = at.checked_sub(self.in_chunk[d])?;
            if local >= self.extent[d] {
                return None;
            }
            i = i * self.count[d] + self.cell_offset[d] + local;
        }
        let i = i as usize;
        Some(&self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize])
    }

    /// Whether the cell covers the box `start .. start + shape` of the chunk.
    pub(super) fn covers(&self, start: &[u64], shape: &[u64]) -> bool {
        (0..start.len()).all(|d| {
            self.in_chunk[d] <= start[d] && start[d] + shape[d] <= self.in_chunk[d] + self.extent[d]
        })
    }

    /// Whether the cell and the box `start .. start + shape` of the chunk overlap.
    pub(super) fn touches(&self, start: &[u64], shape: &[u64]) -> bool {
        (0..start.len()).all(|d| {
            self.in_chunk[d] < start[d] + shape[d] && start[d] < self.in_chunk[d] + self.extent[d]
        })
    }
}

/// The number of elements of a selection, as a `usize`.
fn element_count(selection: &Selection) -> Result<usize, Error> {
    usize::try_from(selection.num_elements()?).map_err(|_| {
        Error::OutOfMemory(format!(
            "selection {:?} has too many elements",
            selection.count
        ))
    })
}

/// Check Arrow-style input: `n + 1` non-decreasing offsets within `data`, and (text) every
/// element valid UTF-8.
fn check_elements(offsets: &[u64], data: &[u8], n: usize, text: bool) -> Result<(), Error> {
    if offsets.len() != n + 1 {
        return Err(Error::InvalidArgument(format!(
            "{} offsets for {n} elements: n + 1 = {} are needed",
            offsets.len(),
            n + 1
        )));
    }
    if offsets[0] > data.len() as u64 {
        return Err(Error::InvalidArgument(format!(
            "the first offset {} is past the {} data bytes",
            offsets[0],
            data.len()
        )));
    }
    for (i, pair) in offsets.windows(2).enumerate() {
        let (start, end) = (pair[0], pair[1]);
        if end < start || end > data.len() as u64 {
            return Err(Error::InvalidArgument(format!(
                "element {i} spans offsets {start}..{end}, not within the {} data bytes",
                data.len()
            )));
        }
        if text && std::str::from_utf8(&data[start as usize..end as usize]).is_err() {
            return Err(Error::InvalidArgument(format!(
                "element {i} is not valid UTF-8"
            )));
        }
    }
    Ok(())
}

/// Visit every index of a block of `extent` in C order (0-d: one empty index).
fn for_each_element(extent: &[u64], mut visit: impl FnMut(&[u64])) {
    let ranges: Vec<_> = extent.iter().map(|&n| 0..n).collect();
    let _ = for_each_index(&ranges, |index| {
        visit(index);
        Ok::<(), ()>(())
    });
}

/// The C-order position in a block of `shape` of `offset + local`.
fn linear(shape: &[u64], offset: &[u64], local: &[u64]) -> u64 {
    shape
        .iter()
        .zip(offset)
        .zip(local)
        .fold(0u64, |acc, ((&n, &o), &l)| acc * n + o + l)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::tests::{metadata, store};
    use super::*;
    use serde_json::json;

    /// Arrow form of `items` (also used by the tests of `vlen_shards`).
    pub(crate) fn arrow<S: AsRef<[u8]>>(items: &[S]) -> (Vec<u64>, Vec<u8>) {
        let mut offsets = vec![0u64];
        let mut data = Vec::new();
        for item in items {
            data.extend_from_slice(item.as_ref());
            offsets.push(data.len() as u64);
        }
        (offsets, data)
    }

    /// The elements as strings (they must be UTF-8).
    pub(crate) fn texts(elements: &VlenElements) -> Vec<String> {
        (0..elements.len())
            .map(|i| String::from_utf8(elements.get(i).unwrap().to_vec()).unwrap())
            .collect()
    }

    fn string_array(fill: &str) -> (Array, std::sync::Arc<dyn crate::storage::Storage>) {
        let s = store();
        let doc = metadata(
            &[3, 5],
            &[2, 2],
            "string",
            json!(fill),
            json!([{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 1}}]),
        );
        (Array::create(s.clone(), "/s", &doc).unwrap(), s)
    }

    #[test]
    fn region_writes_merge_and_reads_give_the_fill_elsewhere() {
        let (a, s) = string_array("-");
        let (offsets, data) = arrow(&["a", "bb", "", "d\u{e9}", "e", "ffff"]);
        // Rows 1..3, columns 1..4: partly covers four chunks.
        a.write_vlen(&[1, 1], &[2, 3], &offsets, &data).unwrap();
        let all = a.read_vlen(&[0, 0], &[3, 5]).unwrap();
        assert_eq!(
            texts(&all),
            [
                "-", "-", "-", "-", "-", //
                "-", "a", "bb", "", "-", //
                "-", "d\u{e9}", "e", "ffff", "-",
            ]
        );
        // A sub-region, and a write over part of what was written.
        let (offsets, data) = arrow(&["X"]);
        a.write_vlen(&[2, 2], &[1, 1], &offsets, &data).unwrap();
        let part = a.read_vlen(&[1, 2], &[2, 2]).unwrap();
        assert_eq!(texts(&part), ["bb", "", "X", "ffff"]);
        // The chunk of rows 0..2, columns 4..6 holds only fill values: never stored.
        assert_eq!(s.get("s/c/0/2").unwrap(), None);
        // Writing the fill value over a whole chunk's elements erases it.
        let (offsets, data) = arrow(&["-", "-", "-", "-"]);
        assert!(s.get("s/c/0/0").unwrap().is_some());
        a.write_vlen(&[0, 0], &[2, 2], &offsets, &data).unwrap();
        assert_eq!(s.get("s/c/0/0").unwrap(), None);
        // A reopened handle reads the same.
        let again = Array::open(s, "/s").unwrap();
        assert_eq!(texts(&again.read_vlen(&[0, 0], &[3, 5]).unwrap()), {
            let mut expected = texts(&a.read_vlen(&[0, 0], &[3, 5]).unwrap());
            expected[6] = "-".into();
            expected
        });
    }

    #[test]
    fn fixed_size_functions_refuse_and_point_to_the_element_wise_ones() {
        let (a, _) = string_array("");
        let mut buf = [0u8; 64];
        for result in [
            a.read_region(&[0, 0], &[1, 1], &mut buf),
            a.write_region(&[0, 0], &[1, 1], &[0u8; 8]),
            a.read_chunk(&[0, 0], &mut buf),
            a.write_chunk(&[0, 0], &[0u8; 8]),
            a.decode_chunk(&[0, 0, 0, 0], &mut buf),
            a.selection_nbytes(&[0, 0], &[1, 1]).map(|_| ()),
            a.append(&[1, 5], 0, &[]),
        ] {
            match result {
                Err(Error::Unsupported(message)) => {
                    assert!(message.contains("zarr_array_read_vlen"), "{message}")
                }
                other => panic!("expected Unsupported, got {other:?}"),
            }
        }
        // And the other way round.
        let s = store();
        let doc = metadata(&[2], &[2], "int32", json!(0), super::super::tests::le());
        let numbers = Array::create(s, "/n", &doc).unwrap();
        assert!(matches!(
            numbers.read_vlen(&[0], &[1]),
            Err(Error::Unsupported(_))
        ));
    }

    #[test]
    fn bad_input_is_refused_before_anything_is_written() {
        let (a, s) = string_array("");
        let (offsets, data) = arrow(&["a", "b"]);
        for (what, offsets, data, count) in [
            ("too few offsets", &offsets[..2], &data[..], [1u64, 2]),
            ("too many offsets", &offsets[..], &data[..], [1, 1]),
            ("decreasing", &[0u64, 2, 1][..], &data[..], [1, 2]),
            ("past the data", &[0u64, 1, 3][..], &data[..], [1, 2]),
            ("not UTF-8", &[0u64, 1, 2][..], &[b'a', 0xff][..], [1, 2]),
        ] {
            assert!(
                matches!(
                    a.write_vlen(&[0, 0], &count, offsets, data),
                    Err(Error::InvalidArgument(_))
                ),
                "{what}"
            );
        }
        assert!(matches!(
            a.write_vlen(&[2, 4], &[2, 1], &offsets, &data),
            Err(Error::OutOfBounds(_))
        ));
        for key in [
            "s/c/0/0", "s/c/0/1", "s/c/0/2", "s/c/1/0", "s/c/1/1", "s/c/1/2",
        ] {
            assert_eq!(s.get(key).unwrap(), None, "{key}");
        }
        // A stored chunk that lies about its count reads as corrupt.
        s.set(
            "s/c/0/0",
            &zstd::encode_all(&[9u8, 0, 0, 0][..], 1).unwrap(),
        )
        .unwrap();
        assert!(matches!(
            a.read_vlen(&[0, 0], &[1, 1]),
            Err(Error::Codec { .. })
        ));
    }

    #[test]
    fn bytes_elements_need_not_be_text_and_empty_selections_are_empty() {
        let s = store();
        let doc = metadata(
            &[4],
            &[3],
            "bytes",
            json!(""),
            json!([{"name": "vlen-bytes"}]),
        );
        let a = Array::create(s, "/b", &doc).unwrap();
        a.write_vlen(&[1], &[2], &[0, 2, 3], &[0xff, 0x00, 0xfe])
            .unwrap();
        let read = a.read_vlen(&[0], &[4]).unwrap();
        assert_eq!(read.offsets, [0, 0, 2, 3, 3]);
        assert_eq!(read.data, [0xff, 0x00, 0xfe]);
        let none = a.read_vlen(&[4], &[0]).unwrap();
        assert_eq!(none.offsets, [0]);
        a.write_vlen(&[0], &[0], &[7], &[]).unwrap_err();
        a.write_vlen(&[0], &[0], &[0], &[]).unwrap();
    }
}
