//! A communicator of threads in one process: the ranks are threads sharing memory. For
//! tests of the collective layer (any number of ranks, no MPI), and for programs that want
//! to try collective calls without MPI.
//!
//! Each operation is two meetings of all ranks: every rank leaves its contribution in its
//! slot, meets the others, takes what it needs from theirs, and meets them again before
//! the slots can be reused. A rank that leaves the group (its thread of [`ThreadComm::run`]
//! ended, normally or by a panic) makes every later operation of the others fail instead
//! of waiting forever for it.

use super::comm::{CommError, Communicator, ReduceOp};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// One rank's contribution to the operation under way.
#[derive(Clone, Default)]
struct Slot {
    data: Vec<u8>,
    lens: Vec<usize>,
    displs: Vec<usize>,
    values: Vec<i64>,
}

struct Meeting {
    /// Ranks arrived at the current meeting.
    arrived: usize,
    /// Meetings completed so far (a rank waits for this to move on).
    generation: u64,
    /// Some rank left the group: every wait fails from now on.
    broken: bool,
    slots: Vec<Slot>,
}

struct Shared {
    size: usize,
    meeting: Mutex<Meeting>,
    moved_on: Condvar,
}

/// One rank of a group of threads (see the module documentation).
pub struct ThreadComm {
    rank: usize,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ThreadComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ThreadComm(rank {} of {})", self.rank, self.shared.size)
    }
}

impl ThreadComm {
    /// The `size` ranks of a new group, rank 0 first: give one to each thread.
    pub fn group(size: usize) -> Vec<ThreadComm> {
        let shared = Arc::new(Shared {
            size,
            meeting: Mutex::new(Meeting {
                arrived: 0,
                generation: 0,
                broken: false,
                slots: vec![Slot::default(); size],
            }),
            moved_on: Condvar::new(),
        });
        (0..size)
            .map(|rank| ThreadComm {
                rank,
                shared: shared.clone(),
            })
            .collect()
    }

    /// Run `work` on `size` threads, one rank each, and return what each returned, in
    /// rank order. A rank whose work ends (returns or panics) leaves the group: operations
    /// the others start afterwards fail. A panic is passed on once every thread has ended.
    pub fn run<T: Send>(size: usize, work: impl Fn(&ThreadComm) -> T + Sync) -> Vec<T> {
        let ranks = ThreadComm::group(size);
        std::thread::scope(|scope| {
            let handles: Vec<_> = ranks
                .iter()
                .map(|comm| {
                    let work = &work;
                    scope.spawn(move || {
                        let _leave = LeaveOnDrop(comm);
                        work(comm)
                    })
                })
                .collect();
            let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            results
                .into_iter()
                .map(|r| r.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    }

    fn lock(&self) -> MutexGuard<'_, Meeting> {
        self.shared
            .meeting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Leave this rank's contribution, wait for every rank's, run `take` on all of them,
    /// then wait until every rank has taken what it needs.
    fn meet<T>(&self, mine: Slot, take: impl FnOnce(&[Slot]) -> T) -> Result<T, CommError> {
        let mut meeting = self.lock();
        meeting.slots[self.rank] = mine;
        meeting = self.wait_for_all(meeting)?;
        let taken = take(&meeting.slots);
        drop(self.wait_for_all(meeting)?);
        Ok(taken)
    }

    fn wait_for_all<'a>(
        &'a self,
        mut meeting: MutexGuard<'a, Meeting>,
    ) -> Result<MutexGuard<'a, Meeting>, CommError> {
        let left = || CommError("a rank of the thread group left it".into());
        if meeting.broken {
            return Err(left());
        }
        let generation = meeting.generation;
        meeting.arrived += 1;
        if meeting.arrived == self.shared.size {
            meeting.arrived = 0;
            meeting.generation += 1;
            self.shared.moved_on.notify_all();
            return Ok(meeting);
        }
        while meeting.generation == generation && !meeting.broken {
            meeting = self
                .shared
                .moved_on
                .wait(meeting)
                .unwrap_or_else(|e| e.into_inner());
        }
        if meeting.generation == generation {
            return Err(left());
        }
        Ok(meeting)
    }
}

/// Marks the group broken when a rank's work ends. Every rank that made the same calls is
/// past its last meeting by then, so only a rank that calls more than the others fails.
struct LeaveOnDrop<'a>(&'a ThreadComm);

impl Drop for LeaveOnDrop<'_> {
    fn drop(&mut self) {
        let mut meeting = self.0.lock();
        meeting.broken = true;
        self.0.shared.moved_on.notify_all();
    }
}

impl Communicator for ThreadComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn barrier(&self) -> Result<(), CommError> {
        self.meet(Slot::default(), |_| ())
    }

    fn broadcast(&self, buf: &mut [u8], root: usize) -> Result<(), CommError> {
        let mine = Slot {
            data: if self.rank == root {
                buf.to_vec()
            } else {
                Vec::new()
            },
            ..Slot::default()
        };
        self.meet(mine, |slots| buf.copy_from_slice(&slots[root].data))
    }

    fn all_gather(&self, send: &[u8], recv: &mut [u8]) -> Result<(), CommError> {
        let mine = Slot {
            data: send.to_vec(),
            ..Slot::default()
        };
        self.meet(mine, |slots| {
            for (r, slot) in slots.iter().enumerate() {
                recv[r * send.len()..(r + 1) * send.len()].copy_from_slice(&slot.data);
            }
        })
    }

    fn all_gather_v(
        &self,
        send: &[u8],
        recv: &mut [u8],
        recv_lens: &[usize],
        recv_displs: &[usize],
    ) -> Result<(), CommError> {
        let mine = Slot {
            data: send.to_vec(),
            ..Slot::default()
        };
        self.meet(mine, |slots| {
            for (r, slot) in slots.iter().enumerate() {
                let at = recv_displs[r];
                recv[at..at + recv_lens[r]].copy_from_slice(&slot.data[..recv_lens[r]]);
            }
        })
    }

    fn all_to_all_v(
        &self,
        send: &[u8],
        send_lens: &[usize],
        send_displs: &[usize],
        recv: &mut [u8],
        recv_lens: &[usize],
        recv_displs: &[usize],
    ) -> Result<(), CommError> {
        let mine = Slot {
            data: send.to_vec(),
            lens: send_lens.to_vec(),
            displs: send_displs.to_vec(),
            ..Slot::default()
        };
        let rank = self.rank;
        self.meet(mine, |slots| {
            for (r, slot) in slots.iter().enumerate() {
                let from = &slot.data[slot.displs[rank]..slot.displs[rank] + slot.lens[rank]];
                let at = recv_displs[r];
                recv[at..at + recv_lens[r]].copy_from_slice(&from[..recv_lens[r]]);
            }
        })
    }

    fn all_reduce_i64(&self, values: &mut [i64], op: ReduceOp) -> Result<(), CommError> {
        let mine = Slot {
            values: values.to_vec(),
            ..Slot::default()
        };
        self.meet(mine, |slots| {
            for (i, value) in values.iter_mut().enumerate() {
                let all = slots.iter().map(|s| s.values[i]);
                *value = match op {
                    ReduceOp::Min => all.min().unwrap_or(0),
                    ReduceOp::Max => all.max().unwrap_or(0),
                    ReduceOp::Sum => all.sum(),
                };
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::comm::gather_all;

    #[test]
    fn every_operation_on_four_ranks() {
        let results = ThreadComm::run(4, |comm| {
            let rank = comm.rank();
            comm.barrier().unwrap();
            let mut buf = vec![rank as u8; 3];
            comm.broadcast(&mut buf, 2).unwrap();
            assert_eq!(buf, [2, 2, 2]);
            let mut all = vec![0u8; 8];
            comm.all_gather(&[rank as u8, 10 + rank as u8], &mut all)
                .unwrap();
            assert_eq!(all, [0, 10, 1, 11, 2, 12, 3, 13]);
            // Rank r sends r + 1 bytes.
            let gathered = gather_all(comm, &vec![rank as u8; rank + 1]).unwrap();
            assert_eq!(gathered[3], [3, 3, 3, 3]);
            // Rank r sends (r, d) to rank d, one byte pair each.
            let send: Vec<u8> = (0..4).flat_map(|d| [rank as u8, d as u8]).collect();
            let lens = [2; 4];
            let displs = [0, 2, 4, 6];
            let mut recv = vec![0u8; 8];
            comm.all_to_all_v(&send, &lens, &displs, &mut recv, &lens, &displs)
                .unwrap();
            let expected: Vec<u8> = (0..4).flat_map(|s| [s as u8, rank as u8]).collect();
            assert_eq!(recv, expected);
            let mut values = [rank as i64, -(rank as i64)];
            comm.all_reduce_i64(&mut values, ReduceOp::Max).unwrap();
            assert_eq!(values, [3, 0]);
            let mut values = [rank as i64];
            comm.all_reduce_i64(&mut values, ReduceOp::Sum).unwrap();
            values[0]
        });
        assert_eq!(results, [6, 6, 6, 6]);
    }

    #[test]
    fn a_rank_that_leaves_fails_the_others_instead_of_hanging() {
        let ranks = ThreadComm::group(2);
        let (first, second) = (&ranks[0], &ranks[1]);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| first.barrier());
            // The second rank's thread ends without taking part.
            scope
                .spawn(|| {
                    let _leave = LeaveOnDrop(second);
                })
                .join()
                .unwrap();
            assert!(waiter.join().unwrap().is_err());
        });
    }
}
