//! Chunk grids: where each chunk of an array lies.
//!
//! - `regular`: every chunk has the same shape; edge chunks are stored full-size.
//! - `rectilinear` (zarr-extensions): along each dimension either a regular step (an
//!   integer) or a list of edge lengths, with `[length, repeat]` pairs for runs
//!   (`{"kind": "inline", "chunk_shapes": [4, [1, 2, 3], [[4, 2]], [[1, 3], 3]]}`). The
//!   lengths of a dimension add up to at least its extent; chunks past the extent are
//!   allowed and never touched.
//!
//! A grid is a list of [`Axis`] values, one per dimension, so both kinds share the
//! arithmetic: which chunk holds a position, where a chunk starts, how long it is. Runs are
//! kept as runs (a hostile `[1, 2^60]` costs nothing) and searched by bisection.

use crate::extension::{reject_unknown_keys, NamedConfig};
use crate::layout::GridCuts;
use crate::metadata_error::MetadataError;
use serde_json::{Map, Value};
use std::ops::Range;

/// The chunk edges along one dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Chunks of one length, as many as needed.
    Regular(u64),
    /// Runs of chunks of given lengths.
    Runs(Runs),
}

/// Runs of chunk lengths along a dimension: `(length, count)` in order, with the index and
/// position of the first chunk of each run (u128: sums of hostile lengths do not wrap).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runs {
    runs: Vec<(u64, u64)>,
    /// For each run, the index of its first chunk and where that chunk starts.
    firsts: Vec<(u128, u128)>,
    /// How the runs were given, per item: a plain length or a `[length, count]` pair.
    spelled_as_pairs: Vec<bool>,
}

impl Runs {
    fn new(items: Vec<(u64, u64, bool)>) -> Runs {
        let mut firsts = Vec::with_capacity(items.len());
        let (mut index, mut at) = (0u128, 0u128);
        for &(length, count, _) in &items {
            firsts.push((index, at));
            index += count as u128;
            at += length as u128 * count as u128;
        }
        Runs {
            runs: items.iter().map(|&(l, c, _)| (l, c)).collect(),
            firsts,
            spelled_as_pairs: items.iter().map(|&(_, _, p)| p).collect(),
        }
    }

    /// The sum of all lengths.
    fn total(&self) -> u128 {
        match (self.runs.last(), self.firsts.last()) {
            (Some(&(length, count)), Some(&(_, at))) => at + length as u128 * count as u128,
            _ => 0,
        }
    }

    /// The run holding chunk `index` (which exists).
    fn run_of_chunk(&self, index: u128) -> usize {
        self.firsts.partition_point(|&(first, _)| first <= index) - 1
    }
}

impl Axis {
    /// The chunk holding position `at` (inside the covered extent).
    pub fn index_of(&self, at: u64) -> u64 {
        match self {
            Axis::Regular(step) => at / step,
            Axis::Runs(runs) => {
                let run = runs
                    .firsts
                    .partition_point(|&(_, start)| start <= at as u128)
                    - 1;
                let (first, start) = runs.firsts[run];
                (first + (at as u128 - start) / runs.runs[run].0 as u128) as u64
            }
        }
    }

    /// Where chunk `index` starts, as u128 (a chunk past the end of a hostile grid may start
    /// beyond u64).
    fn start_wide(&self, index: u64) -> u128 {
        match self {
            Axis::Regular(step) => index as u128 * *step as u128,
            Axis::Runs(runs) => {
                let run = runs.run_of_chunk(index as u128);
                let (first, start) = runs.firsts[run];
                start + (index as u128 - first) * runs.runs[run].0 as u128
            }
        }
    }

    /// Where chunk `index` (one of the chunks covering the array) starts.
    pub fn start(&self, index: u64) -> u64 {
        self.start_wide(index) as u64
    }

    /// The length of chunk `index` (one of the grid's chunks).
    pub fn length(&self, index: u64) -> u64 {
        match self {
            Axis::Regular(step) => *step,
            Axis::Runs(runs) => runs.runs[runs.run_of_chunk(index as u128)].0,
        }
    }

    /// The number of chunks that hold part of an extent of `extent` (those starting below
    /// it); `None` when the chunks do not reach `extent`.
    pub fn chunks_covering(&self, extent: u64) -> Option<u64> {
        if extent == 0 {
            return Some(0);
        }
        match self {
            Axis::Regular(step) => Some(extent.div_ceil(*step)),
            Axis::Runs(runs) => {
                (runs.total() >= extent as u128).then(|| self.index_of(extent - 1) + 1)
            }
        }
    }

    /// The longest chunk among those covering `extent` (at least 1).
    fn longest(&self, extent: u64) -> u64 {
        match self {
            Axis::Regular(step) => *step,
            Axis::Runs(runs) => {
                let covering = self.chunks_covering(extent).unwrap_or(u64::MAX).max(1) as u128;
                runs.runs
                    .iter()
                    .zip(&runs.firsts)
                    .take_while(|(_, &(first, _))| first < covering)
                    .map(|(&(length, _), _)| length)
                    .max()
                    .unwrap_or(1)
            }
        }
    }

    /// The JSON of this axis in a `rectilinear` configuration: the step, or the runs
    /// (pairs where they were given as pairs or repeat, plain lengths otherwise).
    fn to_json(&self) -> Value {
        match self {
            Axis::Regular(step) => Value::from(*step),
            Axis::Runs(runs) => Value::Array(
                runs.runs
                    .iter()
                    .zip(&runs.spelled_as_pairs)
                    .map(|(&(length, count), &pair)| {
                        if pair || count != 1 {
                            Value::from(vec![length, count])
                        } else {
                            Value::from(length)
                        }
                    })
                    .collect(),
            ),
        }
    }

    /// Parse one item of `chunk_shapes`.
    fn parse(value: &Value, d: usize) -> Result<Axis, MetadataError> {
        let invalid = |what: String| {
            MetadataError::Invalid(format!(
                "chunk_grid 'rectilinear': chunk_shapes[{d}]: {what}"
            ))
        };
        let positive = |v: &Value, what: &str| {
            v.as_u64()
                .filter(|&n| n > 0)
                .ok_or_else(|| invalid(format!("{what} must be a positive integer, found {v}")))
        };
        match value {
            Value::Number(_) => Ok(Axis::Regular(positive(value, "a chunk length")?)),
            Value::Array(items) if !items.is_empty() => {
                let mut runs = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::Array(pair) if pair.len() == 2 => runs.push((
                            positive(&pair[0], "a run's chunk length")?,
                            positive(&pair[1], "a run's repeat count")?,
                            true,
                        )),
                        Value::Array(_) => {
                            return Err(invalid(format!("a run is [length, count], found {item}")))
                        }
                        _ => runs.push((positive(item, "a chunk length")?, 1, false)),
                    }
                }
                Ok(Axis::Runs(Runs::new(runs)))
            }
            _ => Err(invalid(format!(
                "expected a chunk length or a non-empty list of lengths and [length, count] \
                 runs, found {value}"
            ))),
        }
    }
}

/// Whether a grid was given as `regular` or `rectilinear` (kept for writing it back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Regular,
    Rectilinear,
}

/// A chunk grid: one [`Axis`] per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkGrid {
    kind: Kind,
    axes: Vec<Axis>,
    /// The chunk shape of a regular grid.
    regular: Option<Vec<u64>>,
}

impl ChunkGrid {
    /// A regular grid of the given chunk shape; every extent must be positive.
    pub fn regular(chunk_shape: Vec<u64>) -> Result<ChunkGrid, MetadataError> {
        if chunk_shape.contains(&0) {
            return Err(MetadataError::Invalid(format!(
                "chunk_grid: chunk_shape {chunk_shape:?} has a zero extent"
            )));
        }
        Ok(ChunkGrid {
            kind: Kind::Regular,
            axes: chunk_shape.iter().map(|&n| Axis::Regular(n)).collect(),
            regular: Some(chunk_shape),
        })
    }

    /// Parse `{"name": "regular", "configuration": {"chunk_shape": [...]}}` or
    /// `{"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [...]}}`.
    pub fn from_metadata(config: &NamedConfig) -> Result<ChunkGrid, MetadataError> {
        let name = config.name.as_str();
        if name != "regular" && name != "rectilinear" {
            return Err(MetadataError::Unsupported(format!("chunk grid '{name}'")));
        }
        let configuration = config.configuration.as_ref().ok_or_else(|| {
            MetadataError::Invalid(format!("chunk_grid '{name}' needs a configuration"))
        })?;
        if name == "regular" {
            reject_unknown_keys(configuration, &["chunk_shape"], "chunk_grid 'regular'")?;
            let chunk_shape =
                parse_u64_list(configuration.get("chunk_shape"), "chunk_grid chunk_shape")?;
            return ChunkGrid::regular(chunk_shape);
        }
        reject_unknown_keys(
            configuration,
            &["kind", "chunk_shapes"],
            "chunk_grid 'rectilinear'",
        )?;
        match configuration.get("kind") {
            Some(Value::String(kind)) if kind == "inline" => {}
            Some(Value::String(kind)) => {
                return Err(MetadataError::Unsupported(format!(
                    "chunk_grid 'rectilinear' of kind '{kind}' (only \"inline\" is defined)"
                )))
            }
            _ => {
                return Err(MetadataError::Invalid(
                    "chunk_grid 'rectilinear' needs \"kind\": \"inline\"".into(),
                ))
            }
        }
        let shapes = configuration
            .get("chunk_shapes")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                MetadataError::Invalid(
                    "chunk_grid 'rectilinear' needs a \"chunk_shapes\" list".into(),
                )
            })?;
        let axes = shapes
            .iter()
            .enumerate()
            .map(|(d, v)| Axis::parse(v, d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ChunkGrid {
            kind: Kind::Rectilinear,
            axes,
            regular: None,
        })
    }

    pub fn to_metadata(&self) -> NamedConfig {
        let mut configuration = Map::new();
        match (&self.kind, &self.regular) {
            (Kind::Regular, Some(shape)) => {
                configuration.insert("chunk_shape".into(), Value::from(shape.clone()));
                NamedConfig::new("regular", Some(configuration))
            }
            _ => {
                configuration.insert("kind".into(), Value::from("inline"));
                configuration.insert(
                    "chunk_shapes".into(),
                    Value::Array(self.axes.iter().map(Axis::to_json).collect()),
                );
                NamedConfig::new("rectilinear", Some(configuration))
            }
        }
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.axes.len()
    }

    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// The chunk shape of a regular grid (`None` for a rectilinear one, even when its
    /// chunks happen to be alike).
    pub fn regular_chunk_shape(&self) -> Option<&[u64]> {
        self.regular.as_deref()
    }

    /// Check that the chunks reach the end of every dimension of `shape`.
    pub fn check_covers(&self, shape: &[u64]) -> Result<(), MetadataError> {
        for (d, (axis, &extent)) in self.axes.iter().zip(shape).enumerate() {
            if axis.chunks_covering(extent).is_none() {
                let total = match axis {
                    Axis::Runs(runs) => runs.total(),
                    Axis::Regular(_) => 0,
                };
                return Err(MetadataError::Invalid(format!(
                    "chunk_grid 'rectilinear': the chunk lengths of dimension {d} add up to \
                     {total}, short of the array's extent {extent}"
                )));
            }
        }
        Ok(())
    }

    /// The number of chunks along each dimension for an array of `shape` (which the grid
    /// covers).
    pub fn grid_shape(&self, shape: &[u64]) -> Vec<u64> {
        self.axes
            .iter()
            .zip(shape)
            .map(|(axis, &extent)| axis.chunks_covering(extent).unwrap_or(0))
            .collect()
    }

    /// Where chunk `chunk` starts and its full shape (it may reach past the array's edge).
    pub fn chunk_region(&self, chunk: &[u64]) -> (Vec<u64>, Vec<u64>) {
        self.axes
            .iter()
            .zip(chunk)
            .map(|(axis, &i)| (axis.start(i), axis.length(i)))
            .unzip()
    }

    /// The shape of chunk `chunk`.
    pub fn chunk_shape_at(&self, chunk: &[u64]) -> Vec<u64> {
        match &self.regular {
            Some(shape) => shape.clone(),
            None => self
                .axes
                .iter()
                .zip(chunk)
                .map(|(axis, &i)| axis.length(i))
                .collect(),
        }
    }

    /// A shape every chunk of an array of `shape` fits in: the chunk shape of a regular
    /// grid, the longest chunk along each dimension of a rectilinear one.
    pub fn largest_chunk_shape(&self, shape: &[u64]) -> Vec<u64> {
        match &self.regular {
            Some(chunk) => chunk.clone(),
            None => self
                .axes
                .iter()
                .zip(shape)
                .map(|(axis, &extent)| axis.longest(extent))
                .collect(),
        }
    }

    /// The distinct chunk lengths along each dimension, among the chunks covering `shape`.
    pub fn chunk_lengths(&self, shape: &[u64]) -> Vec<Vec<u64>> {
        self.axes
            .iter()
            .zip(shape)
            .map(|(axis, &extent)| match axis {
                Axis::Regular(step) => vec![*step],
                Axis::Runs(runs) => {
                    let covering = axis.chunks_covering(extent).unwrap_or(u64::MAX) as u128;
                    let mut lengths: Vec<u64> = runs
                        .runs
                        .iter()
                        .zip(&runs.firsts)
                        .take_while(|(_, &(first, _))| first < covering)
                        .map(|(&(length, _), _)| length)
                        .collect();
                    lengths.sort_unstable();
                    lengths.dedup();
                    lengths
                }
            })
            .collect()
    }

    /// Whether `at` is the start of a chunk along dimension `d` (or the end of `extent`).
    pub fn is_boundary(&self, d: usize, at: u64, extent: u64) -> bool {
        at == extent || self.axes[d].start(self.axes[d].index_of(at)) == at
    }

    /// This grid, with chunks appended where it does not reach `shape`: each dimension of
    /// a rectilinear grid gets more chunks of its last length (a regular grid reaches any
    /// extent already).
    pub fn extended_to(&self, shape: &[u64]) -> ChunkGrid {
        let mut grid = self.clone();
        for (axis, &extent) in grid.axes.iter_mut().zip(shape) {
            if let Axis::Runs(runs) = axis {
                let total = runs.total();
                if total < extent as u128 {
                    let length = runs.runs.last().map_or(1, |r| r.0);
                    let missing = (extent as u128 - total).div_ceil(length as u128) as u64;
                    let mut items: Vec<(u64, u64, bool)> = runs
                        .runs
                        .iter()
                        .zip(&runs.spelled_as_pairs)
                        .map(|(&(l, c), &p)| (l, c, p))
                        .collect();
                    items.push((length, missing, true));
                    *runs = Runs::new(items);
                }
            }
        }
        grid
    }

    /// The cells this grid cuts out of the block `offset .. offset + extent` of an array it
    /// covers.
    pub fn cuts(&self, offset: &[u64], extent: &[u64]) -> ChunkCuts<'_> {
        ChunkCuts {
            grid: self,
            offset: offset.to_vec(),
            extent: extent.to_vec(),
            first: self
                .axes
                .iter()
                .zip(offset)
                .map(|(axis, &at)| axis.index_of(at))
                .collect(),
        }
    }
}

/// The chunks of a grid that a block touches, as [`GridCuts`]: cell `i` along dimension
/// `d` is the block's part in chunk `first(d) + i`.
pub struct ChunkCuts<'g> {
    grid: &'g ChunkGrid,
    offset: Vec<u64>,
    extent: Vec<u64>,
    first: Vec<u64>,
}

impl ChunkCuts<'_> {
    /// The grid coordinates of the cell at `coords` of the cut.
    pub fn grid_index(&self, coords: &[u64]) -> Vec<u64> {
        coords.iter().zip(&self.first).map(|(c, f)| f + c).collect()
    }

    /// Where the block's part in chunk `grid_index` starts inside that chunk, given the
    /// part's offset in the block.
    pub fn offset_in_cell(&self, grid_index: &[u64], offset_in_block: &[u64]) -> Vec<u64> {
        (0..grid_index.len())
            .map(|d| {
                let at = self.offset[d] as u128 + offset_in_block[d] as u128;
                (at - self.grid.axes[d].start_wide(grid_index[d])) as u64
            })
            .collect()
    }

    /// The full shape of chunk `grid_index`.
    pub fn chunk_shape(&self, grid_index: &[u64]) -> Vec<u64> {
        self.grid.chunk_shape_at(grid_index)
    }
}

impl GridCuts for ChunkCuts<'_> {
    fn cells(&self, d: usize) -> u64 {
        if self.extent[d] == 0 {
            return 0;
        }
        let last = self.grid.axes[d].index_of(self.offset[d] + (self.extent[d] - 1));
        last - self.first[d] + 1
    }

    fn cell(&self, d: usize, i: u64) -> Range<u64> {
        let axis = &self.grid.axes[d];
        let (offset, end) = (
            self.offset[d] as u128,
            self.offset[d] as u128 + self.extent[d] as u128,
        );
        let chunk = self.first[d] + i;
        let chunk_start = axis.start_wide(chunk);
        let lo = chunk_start.max(offset);
        let hi = (chunk_start + axis.length(chunk) as u128).min(end);
        (lo - offset) as u64..(hi - offset) as u64
    }
}

/// Parse a JSON array of non-negative integers.
pub(crate) fn parse_u64_list(value: Option<&Value>, what: &str) -> Result<Vec<u64>, MetadataError> {
    let items = value
        .and_then(Value::as_array)
        .ok_or_else(|| MetadataError::Invalid(format!("{what} must be an array of integers")))?;
    items
        .iter()
        .map(|item| {
            item.as_u64().ok_or_else(|| {
                MetadataError::Invalid(format!(
                    "{what} must hold non-negative integers, found {item}"
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::CellWalk;
    use serde_json::json;

    fn rectilinear(shapes: Value) -> Result<ChunkGrid, MetadataError> {
        ChunkGrid::from_metadata(&NamedConfig::parse(
            &json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": shapes}}),
            "chunk_grid",
        )?)
    }

    #[test]
    fn the_registry_example_expands_as_it_says() {
        let grid = rectilinear(json!([4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]])).unwrap();
        let shape = [6, 6, 6, 6, 6];
        grid.check_covers(&shape).unwrap();
        assert_eq!(grid.grid_shape(&shape), [2, 3, 2, 4, 2]);
        // [1, 2, 3] along dimension 1; [1, 1, 1, 3] along dimension 3.
        assert_eq!(
            grid.chunk_region(&[1, 2, 1, 3, 1]),
            (vec![4, 3, 4, 3, 4], vec![4, 3, 4, 3, 4])
        );
        assert_eq!(grid.axes()[3].index_of(2), 2);
        assert_eq!(grid.axes()[3].index_of(5), 3);
        assert_eq!(grid.largest_chunk_shape(&shape), [4, 3, 4, 3, 4]);
        // Written back with runs as pairs, plain lengths as given.
        assert_eq!(
            grid.to_metadata().configuration.unwrap()["chunk_shapes"],
            json!([4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]])
        );
    }

    #[test]
    fn grids_that_do_not_cover_the_shape_or_are_malformed_are_refused() {
        let grid = rectilinear(json!([[[2, 3]], [5]])).unwrap();
        assert!(grid.check_covers(&[6, 5]).is_ok());
        let short = grid.check_covers(&[7, 5]).unwrap_err().to_string();
        assert!(short.contains("dimension 0 add up to 6"), "{short}");
        for bad in [
            json!([[0, 2]]),
            json!([[2, 0]]),
            json!([0]),
            json!([[]]),
            json!([[[1, 2, 3]]]),
            json!([-1]),
            json!(["4"]),
            json!([[2.5]]),
        ] {
            assert!(
                matches!(rectilinear(bad.clone()), Err(MetadataError::Invalid(_))),
                "{bad}"
            );
        }
        let no_kind = json!({"name": "rectilinear", "configuration": {"chunk_shapes": [[1]]}});
        assert!(ChunkGrid::from_metadata(&NamedConfig::parse(&no_kind, "g").unwrap()).is_err());
        let other_kind = json!({"name": "rectilinear", "configuration": {"kind": "file", "chunk_shapes": [[1]]}});
        assert!(matches!(
            ChunkGrid::from_metadata(&NamedConfig::parse(&other_kind, "g").unwrap()),
            Err(MetadataError::Unsupported(_))
        ));
    }

    #[test]
    fn hostile_runs_cost_nothing_and_do_not_wrap() {
        let huge = u64::MAX / 2;
        let grid = rectilinear(json!([[[1, huge], [huge, 3]]])).unwrap();
        grid.check_covers(&[u64::MAX]).unwrap();
        assert_eq!(grid.grid_shape(&[u64::MAX]), [huge + 2]);
        assert_eq!(grid.axes()[0].index_of(huge - 1), huge - 1);
        assert_eq!(grid.axes()[0].index_of(huge), huge);
        assert_eq!(grid.chunk_region(&[huge]), (vec![huge], vec![huge]));
    }

    #[test]
    fn cuts_follow_the_chunk_edges() {
        // Dimension 0: chunks [0,1) [1,3) [3,6); dimension 1: regular 4.
        let grid = rectilinear(json!([[1, 2, 3], 4])).unwrap();
        let cuts = grid.cuts(&[2, 3], &[3, 3]);
        let cells: Vec<_> = CellWalk::new(&cuts, &[3, 3])
            .map(|c| (cuts.grid_index(&c.coords), c.offset, c.extent))
            .collect();
        assert_eq!(
            cells,
            [
                (vec![1, 0], vec![0, 0], vec![1, 1]),
                (vec![1, 1], vec![0, 1], vec![1, 2]),
                (vec![2, 0], vec![1, 0], vec![2, 1]),
                (vec![2, 1], vec![1, 1], vec![2, 2]),
            ]
        );
        assert_eq!(cuts.offset_in_cell(&[2, 1], &[1, 1]), [0, 0]);
        assert_eq!(cuts.offset_in_cell(&[1, 0], &[0, 0]), [1, 3]);
        assert_eq!(cuts.chunk_shape(&[2, 1]), [3, 4]);
    }

    #[test]
    fn extending_appends_chunks_of_the_last_length() {
        let grid = rectilinear(json!([[1, 2], 3])).unwrap();
        let longer = grid.extended_to(&[8, 10]);
        longer.check_covers(&[8, 10]).unwrap();
        assert_eq!(longer.grid_shape(&[8, 10]), [5, 4]);
        assert_eq!(
            longer.to_metadata().configuration.unwrap()["chunk_shapes"],
            json!([[1, 2, [2, 3]], 3])
        );
        assert_eq!(grid.extended_to(&[3, 10]), grid);
    }
}
