//! The collective read: every rank reads its own box, and every rank learns whether any
//! read failed.

use super::Collective;
use crate::array::Array;
use crate::error::Error;

/// Read each rank's box `start .. start + count` of `array` into its `out` (dense, C
/// order, host byte order, at least the box's size), collectively: the arguments of every
/// rank are checked before any rank reads, and a failure on any rank is every rank's (see
/// [`Collective::agree`]). Boxes may overlap and may be empty. A rank's `out` is written
/// only by its own read; after another rank's failure it may hold this rank's data.
pub fn read(
    ctx: &Collective,
    array: &Array,
    start: &[u64],
    count: &[u64],
    out: &mut [u8],
) -> Result<(), Error> {
    let checked = array.selection_nbytes(start, count).and_then(|needed| {
        if out.len() < needed {
            Err(Error::BufferTooSmall {
                needed,
                given: out.len(),
            })
        } else if array.data_type().is_variable_length() {
            Err(Error::Unsupported(
                "collective reads of variable-length elements are not supported: read them \
                 with zarr_array_read_vlen"
                    .into(),
            ))
        } else {
            Ok(())
        }
    });
    ctx.agree(checked)?;
    ctx.agree(array.read_region(start, count, out))
}
