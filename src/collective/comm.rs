//! The communicator: the few collective operations the collective layer needs from the
//! program's distributed engine (MPI, or the threads of `super::local` in tests).
//!
//! The core knows no MPI type. A communicator is a group of `size` ranks, each a process
//! (or a thread) running the same sequence of collective calls; every operation here is
//! collective: each rank of the group calls it, in the same order, with arguments that
//! agree (the same lengths where the operation says so). The C API fills this trait from
//! a table of C functions (`zarr_comm_ops`), which `libzarr_mpi` fills from an `MPI_Comm`.

use thiserror::Error;

/// A collective operation failed in the communicator itself (an MPI error, a rank that
/// died). What the other ranks see then depends on the engine: MPI usually fails the
/// operation everywhere, or aborts the job.
#[derive(Debug, Error)]
#[error("communication failed: {0}")]
pub struct CommError(pub String);

/// The element-wise reductions of [`Communicator::all_reduce_i64`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Min,
    Max,
    Sum,
}

/// A group of ranks and the collective operations over it. Buffers are bytes; lengths
/// and displacements are in bytes.
pub trait Communicator: Send + Sync + std::fmt::Debug {
    /// This rank's number, `0..size`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Wait until every rank has called it.
    fn barrier(&self) -> Result<(), CommError>;
    /// Copy `buf` of rank `root` into `buf` of every other rank (the same length on all).
    fn broadcast(&self, buf: &mut [u8], root: usize) -> Result<(), CommError>;
    /// Every rank's `send` (the same length on all) into `recv`, rank after rank
    /// (`recv.len() == size * send.len()`).
    fn all_gather(&self, send: &[u8], recv: &mut [u8]) -> Result<(), CommError>;
    /// Every rank's `send` into `recv`: rank `r`'s `recv_lens[r]` bytes at
    /// `recv_displs[r]` (`recv_lens[r]` is rank `r`'s `send.len()`).
    fn all_gather_v(
        &self,
        send: &[u8],
        recv: &mut [u8],
        recv_lens: &[usize],
        recv_displs: &[usize],
    ) -> Result<(), CommError>;
    /// Personalised exchange: `send_lens[r]` bytes at `send_displs[r]` of `send` go to
    /// rank `r`, and `recv_lens[r]` bytes from rank `r` land at `recv_displs[r]` of `recv`
    /// (what rank `r` sends here is what this rank expects from it).
    #[allow(clippy::too_many_arguments)]
    fn all_to_all_v(
        &self,
        send: &[u8],
        send_lens: &[usize],
        send_displs: &[usize],
        recv: &mut [u8],
        recv_lens: &[usize],
        recv_displs: &[usize],
    ) -> Result<(), CommError>;
    /// Reduce `values` (the same length on every rank) element-wise with `op`; every rank
    /// gets the result in place.
    fn all_reduce_i64(&self, values: &mut [i64], op: ReduceOp) -> Result<(), CommError>;
}

/// Byte offsets of consecutive blocks of `lens`, and their total.
pub(crate) fn displacements(lens: &[usize]) -> Result<(Vec<usize>, usize), CommError> {
    let mut displs = Vec::with_capacity(lens.len());
    let mut total = 0usize;
    for &len in lens {
        displs.push(total);
        total = total
            .checked_add(len)
            .ok_or_else(|| CommError("message sizes overflow".into()))?;
    }
    Ok((displs, total))
}

/// Every rank's `mine` (of any length), in rank order.
pub(crate) fn gather_all(comm: &dyn Communicator, mine: &[u8]) -> Result<Vec<Vec<u8>>, CommError> {
    let size = comm.size();
    let mut lens = vec![0u8; 8 * size];
    comm.all_gather(&(mine.len() as u64).to_le_bytes(), &mut lens)?;
    let lens: Vec<usize> = lens
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
        .collect();
    let (displs, total) = displacements(&lens)?;
    let mut all = Vec::new();
    all.try_reserve_exact(total).map_err(|_| {
        CommError(format!(
            "cannot hold {total} bytes gathered from every rank"
        ))
    })?;
    all.resize(total, 0);
    comm.all_gather_v(mine, &mut all, &lens, &displs)?;
    Ok(lens
        .iter()
        .zip(&displs)
        .map(|(&len, &at)| all[at..at + len].to_vec())
        .collect())
}
