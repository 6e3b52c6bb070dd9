//! Collective operations: every rank of a communicator calls the same function, each with
//! its own part, and they act as one.
//!
//! The principal one is [`write`]: each rank gives its box of the array (any decomposition:
//! boxes may cut chunks and shards anywhere, some may be empty), and the result equals one
//! serial write of all the boxes. Every storage unit (chunk, or shard) gets exactly one
//! writer, chosen identically on every rank from the exchanged boxes; the pieces of a unit
//! held by other ranks travel to that owner in bounded rounds (two-phase I/O), and the
//! owner writes the unit once (`plan` says who and when). No lock is needed, and a rank
//! holds its own box plus a bounded amount.
//!
//! Errors agree: the arguments of every rank are checked before anything is written, and a
//! failure on any rank (a bad box, a store error during the write) is returned on every
//! rank, with the same code ([`Collective::code_of`]): no rank is left waiting in a
//! collective call that the others abandoned.
//!
//! The layer knows no MPI: it runs over a [`Communicator`] (the C API fills one from a
//! table of C functions, `libzarr_mpi` from an `MPI_Comm`; [`local::ThreadComm`] is one of
//! threads). It uses the public API of arrays and groups only.

mod bands;
pub mod comm;
pub mod local;
mod metadata;
pub mod plan;
mod read;
#[cfg(test)]
mod tests;
mod write;

pub use comm::{CommError, Communicator, ReduceOp};
pub use metadata::{
    append, consolidate, create_array, create_group, resize, set_array_attributes,
    set_group_attributes,
};
pub use read::read;
pub use write::{write, WriteReport};

use crate::error::Error;
use plan::Budget;

impl From<CommError> for Error {
    fn from(error: CommError) -> Error {
        Error::Communication(error.0)
    }
}

/// What a collective call runs with: the communicator, how the program numbers failures,
/// and the exchange budget.
pub struct Collective<'c> {
    comm: &'c dyn Communicator,
    code_of: &'c (dyn Fn(&Error) -> i32 + Sync),
    budget: Budget,
}

impl<'c> Collective<'c> {
    /// Collective calls over `comm`. `code_of` gives a failure the code the program reports
    /// it with (the C API: its `zarr_status`); when one rank fails, the others report
    /// [`Error::OnRank`] with that code and the failing rank's message, so every rank's
    /// status is the same.
    pub fn new(
        comm: &'c dyn Communicator,
        code_of: &'c (dyn Fn(&Error) -> i32 + Sync),
    ) -> Collective<'c> {
        Collective {
            comm,
            code_of,
            budget: Budget::DEFAULT,
        }
    }

    /// The same, with another exchange budget (tests use a small one to force rounds).
    pub fn with_budget(mut self, budget: Budget) -> Collective<'c> {
        self.budget = budget;
        self
    }

    pub fn comm(&self) -> &dyn Communicator {
        self.comm
    }

    /// Make every rank's outcome every rank's: `Ok` everywhere when no rank failed;
    /// otherwise the failure of the lowest failing rank, on that rank as it is and on the
    /// others as [`Error::OnRank`]. Collective. The common case costs one reduction.
    pub fn agree<T>(&self, local: Result<T, Error>) -> Result<T, Error> {
        let size = self.comm.size();
        let rank = self.comm.rank();
        let mut first = [if local.is_err() { rank } else { size } as i64];
        self.comm.all_reduce_i64(&mut first, ReduceOp::Min)?;
        let first = first[0] as usize;
        if first >= size {
            return local;
        }
        // The first failing rank tells the others its code and its message.
        let (code, message) = match (&local, rank == first) {
            // An error already naming this rank (a check made outside the core) goes as
            // its own message, so that no rank reads "rank N: rank N: ...".
            (
                Err(
                    error @ Error::OnRank {
                        rank: r, message, ..
                    },
                ),
                true,
            ) if *r == rank => ((self.code_of)(error), message.clone()),
            (Err(error), true) => ((self.code_of)(error), error.full_message()),
            _ => (0, String::new()),
        };
        let mut header = [0u8; 12];
        header[..4].copy_from_slice(&code.to_le_bytes());
        header[4..].copy_from_slice(&(message.len() as u64).to_le_bytes());
        self.comm.broadcast(&mut header, first)?;
        let code = i32::from_le_bytes(header[..4].try_into().expect("4 bytes"));
        let length = u64::from_le_bytes(header[4..].try_into().expect("8 bytes")) as usize;
        let mut text = if rank == first {
            message.into_bytes()
        } else {
            vec![0u8; length]
        };
        self.comm.broadcast(&mut text, first)?;
        if rank == first {
            return local;
        }
        Err(Error::OnRank {
            rank: first,
            code,
            message: String::from_utf8_lossy(&text).into_owned(),
        })
    }

    /// Run `work` on rank 0 only, then give every rank its outcome (collective).
    pub(crate) fn on_root<T>(&self, work: impl FnOnce() -> Result<T, Error>) -> Result<(), Error> {
        let local = if self.comm.rank() == 0 {
            work().map(|_| ())
        } else {
            Ok(())
        };
        self.agree(local)
    }
}

/// A hash of `text` that is the same in every process (FNV-1a), to compare what ranks
/// hold without sending it whole.
pub(crate) fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
