//! Collective changes of the hierarchy and of metadata: creating arrays and groups,
//! resizing and appending, attributes, consolidated metadata. Rank 0 writes the metadata
//! once; every rank then sees it (the other ranks open or reload what rank 0 wrote), and
//! every rank returns the same outcome. Every rank must pass the same arguments: that is
//! checked first (a hash of them, compared across ranks), so a rank with other arguments
//! fails every rank's call instead of creating something else.

use super::{fingerprint, write, Collective, ReduceOp, WriteReport};
use crate::array::Array;
use crate::error::Error;
use crate::group::Group;
use crate::node::ZarrFormat;
use crate::storage::Storage;
use serde_json::{Map, Value};
use std::sync::Arc;

impl Collective<'_> {
    /// Check that every rank passed the same `what` (collective); INVALID_ARGUMENT on every
    /// rank otherwise.
    fn same_everywhere(&self, name: &str, what: &str) -> Result<(), Error> {
        let print = fingerprint(what) as i64;
        // The largest and the smallest hash, in one reduction.
        let mut extremes = [print, print.wrapping_neg()];
        self.comm.all_reduce_i64(&mut extremes, ReduceOp::Max)?;
        if extremes[0] != print || extremes[1] != print.wrapping_neg() {
            return Err(Error::InvalidArgument(format!(
                "the ranks passed different {name}: a collective call needs the same on every \
                 rank"
            )));
        }
        Ok(())
    }
}

/// Create the array at `path` of `storage` from `metadata_json` (as [`Array::create`]),
/// collectively: rank 0 writes the metadata, then every rank opens the array.
pub fn create_array(
    ctx: &Collective,
    storage: Arc<dyn Storage>,
    path: &str,
    metadata_json: &str,
) -> Result<Array, Error> {
    ctx.same_everywhere("paths or metadata", &format!("{path}\n{metadata_json}"))?;
    let mut created = None;
    ctx.on_root(|| {
        created = Some(Array::create(storage.clone(), path, metadata_json)?);
        Ok(())
    })?;
    let opened = match created {
        Some(array) => Ok(array),
        None => Array::open(storage, path),
    };
    ctx.agree(opened)
}

/// Create the group at `path` of `storage` with `attributes` (as [`Group::create`]),
/// collectively.
pub fn create_group(
    ctx: &Collective,
    storage: Arc<dyn Storage>,
    path: &str,
    attributes: Map<String, Value>,
    format: ZarrFormat,
) -> Result<Group, Error> {
    let what = format!("{path}\n{format:?}\n{}", Value::Object(attributes.clone()));
    ctx.same_everywhere("paths, formats or attributes", &what)?;
    let mut created = None;
    ctx.on_root(|| {
        created = Some(Group::create(storage.clone(), path, attributes, format)?);
        Ok(())
    })?;
    let opened = match created {
        Some(group) => Ok(group),
        None => Group::open(storage, path),
    };
    ctx.agree(opened)
}

/// Resize `array` to `shape` (as [`Array::resize`]), collectively: rank 0 resizes, the
/// other ranks then reload the metadata.
pub fn resize(ctx: &Collective, array: &Array, shape: &[u64]) -> Result<(), Error> {
    ctx.same_everywhere("shapes", &format!("{}\n{shape:?}", array.path().as_str()))?;
    ctx.on_root(|| array.resize(shape))?;
    reload_others(ctx, || array.reload())
}

/// Grow dimension `dim` of `array` by `length` (the same on every rank), then write each
/// rank's box of the appended block collectively: `start` and `count` are relative to that
/// block (`start[dim] + count[dim] <= length`), `data` as for [`write`].
pub fn append(
    ctx: &Collective,
    array: &Array,
    dim: usize,
    length: u64,
    start: &[u64],
    count: &[u64],
    data: &[u8],
) -> Result<WriteReport, Error> {
    let old = array.shape();
    let what = format!("{}\n{dim}\n{length}\n{old:?}", array.path().as_str());
    ctx.same_everywhere("dimensions, lengths or array shapes to append", &what)?;
    let grown = ctx.agree(grown_shape(&old, dim, length, start, count))?;
    resize(ctx, array, &grown)?;
    let mut shifted = start.to_vec();
    shifted[dim] += old[dim];
    write(ctx, array, &shifted, count, data)
}

/// The shape after appending `length` along `dim` to `old`, with the box checked against
/// the appended block.
fn grown_shape(
    old: &[u64],
    dim: usize,
    length: u64,
    start: &[u64],
    count: &[u64],
) -> Result<Vec<u64>, Error> {
    if dim >= old.len() {
        return Err(Error::InvalidArgument(format!(
            "dimension {dim} does not exist: the array has {}",
            old.len()
        )));
    }
    if start.len() != old.len() || count.len() != old.len() {
        return Err(Error::InvalidArgument(format!(
            "a box of {} dimensions for an array of {}",
            start.len(),
            old.len()
        )));
    }
    let end = start[dim].checked_add(count[dim]);
    if end.is_none_or(|end| end > length) {
        return Err(Error::OutOfBounds(format!(
            "the box {start:?} + {count:?} reaches past the {length} appended along dimension \
             {dim}"
        )));
    }
    let mut grown = old.to_vec();
    grown[dim] = old[dim].checked_add(length).ok_or_else(|| {
        Error::InvalidArgument(format!("dimension {dim} would exceed 2^64 elements"))
    })?;
    Ok(grown)
}

/// Set the attributes of `array` (as [`Array::set_attributes`]), collectively.
pub fn set_array_attributes(
    ctx: &Collective,
    array: &Array,
    attributes: Map<String, Value>,
) -> Result<(), Error> {
    let what = format!(
        "{}\n{}",
        array.path().as_str(),
        Value::Object(attributes.clone())
    );
    ctx.same_everywhere("attributes", &what)?;
    ctx.on_root(|| array.set_attributes(attributes))?;
    reload_others(ctx, || array.reload())
}

/// Set the attributes of `group` (as [`Group::set_attributes`]), collectively.
pub fn set_group_attributes(
    ctx: &Collective,
    group: &Group,
    attributes: Map<String, Value>,
) -> Result<(), Error> {
    let what = format!(
        "{}\n{}",
        group.path().as_str(),
        Value::Object(attributes.clone())
    );
    ctx.same_everywhere("attributes", &what)?;
    ctx.on_root(|| group.set_attributes(attributes))?;
    reload_others(ctx, || group.reload())
}

/// Write the consolidated metadata of `group` (as [`Group::consolidate`]), collectively:
/// call it after the last collective write, so that it lists every node.
pub fn consolidate(ctx: &Collective, group: &Group) -> Result<(), Error> {
    ctx.same_everywhere("groups", group.path().as_str())?;
    ctx.on_root(|| group.consolidate())?;
    reload_others(ctx, || group.reload())
}

/// After rank 0 changed metadata: the other ranks read it again, and every rank learns
/// whether that worked.
fn reload_others(
    ctx: &Collective,
    reload: impl FnOnce() -> Result<(), Error>,
) -> Result<(), Error> {
    let local = if ctx.comm.rank() == 0 {
        Ok(())
    } else {
        reload()
    };
    ctx.agree(local)
}
