//! Changing an array's shape: resize (grow or shrink) and append.
//!
//! A resize rewrites the metadata document with the new shape and keeps the chunk grid (a
//! rectilinear grid that does not reach a grown extent gets more chunks of its last length
//! there). Chunks wholly outside the new shape are deleted. When a dimension grows past an edge
//! that was not on a chunk boundary, the elements of the old edge chunks between the old
//! edge and the new one are set to the fill value first: whatever those chunks held past
//! the old edge (data from before an earlier shrink, or another writer's padding) never
//! becomes visible.
//!
//! Order of the steps, so that an interruption leaves a readable array: the old edge chunks
//! are reset, then the new document is written, then the chunks outside are deleted. A
//! reader on another handle keeps the shape it opened with; it may find chunks deleted
//! under it (they read as the fill value), never a torn chunk.

use super::planner;
use super::{invalid_layout, Array, ArrayState, Codecs, StoredAs};
use crate::chunk_grid::ChunkGrid;
use crate::error::Error;
use crate::layout::{InBlock, Layout};
use crate::selection::{checked_product, for_each_index};
use std::ops::Range;
use std::sync::Arc;

impl Array {
    /// Change the array's shape to `shape` (same rank). See the module comment for what
    /// happens to the chunks. Arrays in the 2022 draft layout cannot be resized.
    pub fn resize(&self, shape: &[u64]) -> Result<(), Error> {
        let _update = self.updates.lock().unwrap_or_else(|e| e.into_inner());
        let state = self.state();
        let old = state.metadata.shape.clone();
        if shape.len() != old.len() {
            return Err(Error::InvalidArgument(format!(
                "the new shape has {} dimensions but the array has {}",
                shape.len(),
                old.len()
            )));
        }
        if checked_product(shape).is_none() {
            return Err(Error::InvalidArgument(format!(
                "shape {shape:?} has more than 2^64 elements"
            )));
        }
        let stored_as = match &state.stored_as {
            StoredAs::V3 => StoredAs::V3,
            StoredAs::V2(v2) => {
                let mut v2 = v2.clone();
                v2.shape = shape.to_vec();
                StoredAs::V2(v2)
            }
            StoredAs::V3Draft2022 { .. } => {
                return Err(Error::Unsupported(
                    "resizing an array stored in the 2022 draft layout is not supported".into(),
                ))
            }
        };
        let grid = state.grid().extended_to(shape);
        let old_grid = grid.grid_shape(&old);
        let new_grid = grid.grid_shape(shape);
        for d in 0..shape.len() {
            if shape[d] > old[d] && !grid.is_boundary(d, old[d], old[d] + 1) {
                for_each_past_edge(
                    &old,
                    shape,
                    &old_grid,
                    &new_grid,
                    &grid,
                    d,
                    |start, count| self.write_fill(&state, start, count),
                )?;
            }
        }
        let mut metadata = state.metadata.clone();
        metadata.shape = shape.to_vec();
        metadata.chunk_grid = grid;
        let resized = ArrayState::new(&self.path, metadata, stored_as)?;
        self.write_metadata(&resized.stored_as, &resized.metadata)?;
        erase_outside(&old_grid, &new_grid, |chunk| {
            self.storage.erase(&self.key_of(&state, chunk))?;
            Ok(())
        })?;
        *self.state.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(resized);
        Ok(())
    }

    /// Grow dimension `dim` by `count[dim]` and write `data` (dense, C order, host byte
    /// order, exactly the block's size) into the new part: `count` equals the shape on
    /// every other dimension.
    pub fn append(&self, count: &[u64], dim: usize, data: &[u8]) -> Result<(), Error> {
        // Variable-length arrays grow with resize and write_vlen.
        self.state().chain()?;
        let shape = self.shape();
        if count.len() != shape.len() {
            return Err(Error::InvalidArgument(format!(
                "count has {} dimensions but the array has {}",
                count.len(),
                shape.len()
            )));
        }
        if dim >= shape.len() {
            return Err(Error::InvalidArgument(format!(
                "dimension {dim} does not exist: the array has {}",
                shape.len()
            )));
        }
        if let Some(d) = (0..shape.len()).find(|&d| d != dim && count[d] != shape[d]) {
            return Err(Error::InvalidArgument(format!(
                "count[{d}] is {} but appending along dimension {dim} needs the array's extent {}",
                count[d], shape[d]
            )));
        }
        let mut start = vec![0; shape.len()];
        start[dim] = shape[dim];
        let mut grown = shape.clone();
        grown[dim] = shape[dim].checked_add(count[dim]).ok_or_else(|| {
            Error::OutOfBounds(format!(
                "appending {} to extent {} passes 2^64 - 1",
                count[dim], shape[dim]
            ))
        })?;
        // Check the buffer before changing anything.
        let element_size = self.data_type().size();
        let expected = checked_product(count)
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(element_size))
            .ok_or_else(|| {
                Error::OutOfMemory(format!("a block of {count:?} does not fit in memory"))
            })?;
        if data.len() != expected {
            return Err(Error::BufferSizeMismatch {
                expected,
                given: data.len(),
            });
        }
        self.resize(&grown)?;
        self.write_region(&start, count, data)
    }
}

impl Array {
    /// Write the fill value over the block `start .. start + count` (inside one chunk, maybe
    /// past the array's current edge).
    fn write_fill(&self, state: &ArrayState, start: &[u64], count: &[u64]) -> Result<(), Error> {
        let fill = state.metadata.fill_value.as_bytes();
        let elements = checked_product(count)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                Error::OutOfMemory(format!("a block of {count:?} does not fit in memory"))
            })?;
        match &state.codecs {
            Codecs::Fixed(_) => {
                let element_size = state.metadata.data_type.size();
                let layout = Layout::c_order(count, element_size).map_err(invalid_layout)?;
                let values = fill.repeat(elements);
                let input = InBlock::whole(&values, &layout).map_err(invalid_layout)?;
                planner::write(&self.chunk_io(state)?, start, &input)
            }
            Codecs::Variable(_) => {
                let offsets: Vec<u64> = (0..=elements as u64)
                    .map(|i| i * fill.len() as u64)
                    .collect();
                let data = fill.repeat(elements);
                self.write_vlen_block(state, start, count, &offsets, &data)
            }
        }
    }
}

/// Call `reset(start, count)` for the part of each chunk on the old edge of dimension `d`
/// between the old edge and the new one (one chunk at a time, so that memory stays at a
/// chunk). Other dimensions span what both grids share.
fn for_each_past_edge(
    old: &[u64],
    new: &[u64],
    old_grid: &[u64],
    new_grid: &[u64],
    grid: &ChunkGrid,
    d: usize,
    mut reset: impl FnMut(&[u64], &[u64]) -> Result<(), Error>,
) -> Result<(), Error> {
    let axes = grid.axes();
    let edge_chunk = axes[d].index_of(old[d]);
    let edge_end = axes[d]
        .start(edge_chunk)
        .saturating_add(axes[d].length(edge_chunk))
        .min(new[d]);
    let ranges: Vec<Range<u64>> = (0..old.len())
        .map(|e| {
            if e == d {
                edge_chunk..edge_chunk + 1
            } else {
                0..old_grid[e].min(new_grid[e])
            }
        })
        .collect();
    for_each_index(&ranges, |chunk| {
        let mut start = Vec::with_capacity(chunk.len());
        let mut count = Vec::with_capacity(chunk.len());
        for e in 0..chunk.len() {
            if e == d {
                start.push(old[d]);
                count.push(edge_end - old[d]);
            } else {
                let first = axes[e].start(chunk[e]);
                start.push(first);
                count.push(axes[e].length(chunk[e]).min(new[e] - first));
            }
        }
        reset(&start, &count)
    })
}

/// Call `erase` for every chunk of the old grid that lies outside the new one, each once:
/// for each dimension `d` that shrank, the chunks at `d` past the new grid whose earlier
/// coordinates are inside it.
fn erase_outside(
    old_grid: &[u64],
    new_grid: &[u64],
    mut erase: impl FnMut(&[u64]) -> Result<(), Error>,
) -> Result<(), Error> {
    for d in 0..old_grid.len() {
        if new_grid[d] >= old_grid[d] {
            continue;
        }
        let ranges: Vec<Range<u64>> = (0..old_grid.len())
            .map(|e| match e.cmp(&d) {
                std::cmp::Ordering::Less => 0..old_grid[e].min(new_grid[e]),
                std::cmp::Ordering::Equal => new_grid[d]..old_grid[d],
                std::cmp::Ordering::Greater => 0..old_grid[e],
            })
            .collect();
        for_each_index(&ranges, &mut erase)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{le, metadata, store};
    use super::*;
    use serde_json::json;

    fn values(a: &Array) -> Vec<i32> {
        let shape = a.shape();
        let mut out = vec![0u8; a.selection_nbytes(&[0, 0], &shape).unwrap()];
        a.read_region(&[0, 0], &shape, &mut out).unwrap();
        out.chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn sharded() -> serde_json::Value {
        json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [1, 3],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        }}])
    }

    #[test]
    fn shrink_then_grow_shows_fill_past_the_old_edge() {
        for codecs in [le(), sharded()] {
            let s = store();
            let a = Array::create(
                s.clone(),
                "/a",
                &metadata(&[5, 7], &[2, 3], "int32", json!(-1), codecs.clone()),
            )
            .unwrap();
            let data: Vec<u8> = (1..=35i32).flat_map(|v| v.to_ne_bytes()).collect();
            a.write_region(&[0, 0], &[5, 7], &data).unwrap();
            a.resize(&[3, 4]).unwrap();
            assert_eq!(a.shape(), vec![3, 4]);
            // Chunks of the old grid outside the new one are gone; (1, 1) straddles the new
            // edge and stays.
            for gone in ["a/c/2/0", "a/c/0/2", "a/c/2/2"] {
                assert_eq!(s.get(gone).unwrap(), None, "{gone} {codecs}");
            }
            assert!(s.get("a/c/1/1").unwrap().is_some());
            assert_eq!(values(&a), [1, 2, 3, 4, 8, 9, 10, 11, 15, 16, 17, 18]);
            // The metadata on disk says so: a new handle sees the new shape.
            assert_eq!(Array::open(s.clone(), "/a").unwrap().shape(), vec![3, 4]);
            // Growing again: what chunk (1, 1) still held past the old edge (row 3 and
            // columns 4 and 5, written before the shrink) reads as fill.
            a.resize(&[6, 8]).unwrap();
            let got = values(&a);
            for r in 0..6usize {
                for c in 0..8usize {
                    let want = if r < 3 && c < 4 {
                        (r * 7 + c + 1) as i32
                    } else {
                        -1
                    };
                    assert_eq!(got[r * 8 + c], want, "({r}, {c}) {codecs}");
                }
            }
        }
    }

    #[test]
    fn v2_arrays_rewrite_their_zarray() {
        let s = store();
        let a = Array::create(
            s.clone(),
            "/v",
            &json!({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<i2",
                    "compressor": null, "filters": null, "fill_value": 0, "order": "C"})
            .to_string(),
        )
        .unwrap();
        a.write_region(&[0], &[4], &[1, 0, 2, 0, 3, 0, 4, 0])
            .unwrap();
        a.resize(&[3]).unwrap();
        let doc: serde_json::Value =
            serde_json::from_slice(&s.get("v/.zarray").unwrap().unwrap()).unwrap();
        assert_eq!(doc["shape"], json!([3]));
        a.resize(&[5]).unwrap();
        let mut out = [9u8; 10];
        a.read_region(&[0], &[5], &mut out).unwrap();
        assert_eq!(out, [1, 0, 2, 0, 3, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn append_grows_and_writes() {
        let s = store();
        let a = Array::create(
            s,
            "/t",
            &metadata(&[2, 3], &[2, 2], "int32", json!(0), le()),
        )
        .unwrap();
        let first: Vec<u8> = (1..=6i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.write_region(&[0, 0], &[2, 3], &first).unwrap();
        let more: Vec<u8> = (7..=12i32).flat_map(|v| v.to_ne_bytes()).collect();
        a.append(&[2, 3], 0, &more).unwrap();
        assert_eq!(a.shape(), vec![4, 3]);
        assert_eq!(values(&a), (1..=12).collect::<Vec<_>>());
        // Wrong extents elsewhere, a dimension that does not exist, a short buffer: the
        // shape does not change.
        assert!(matches!(
            a.append(&[2, 2], 0, &more[..16]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            a.append(&[2, 3], 2, &more),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            a.append(&[2, 3], 0, &more[..20]),
            Err(Error::BufferSizeMismatch { .. })
        ));
        assert_eq!(a.shape(), vec![4, 3]);
        assert!(matches!(a.resize(&[4]), Err(Error::InvalidArgument(_))));
        assert!(matches!(
            a.resize(&[u64::MAX, 2]),
            Err(Error::InvalidArgument(_))
        ));
    }
}
