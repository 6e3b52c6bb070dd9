/*
 * zarr_mpi.h -- MPI communicators for libzarr's collective calls (libzarr_mpi).
 *
 * libzarr itself holds no MPI type: its collective calls (`zarr_array_create_collective`,
 * `zarr_array_write_collective`, `zarr_array_append_collective`, ... in zarr.h) run over
 * a `zarr_comm`, a table of collective operations. This small library, built with the
 * MPI compiler, makes one from an `MPI_Comm`, so that one libzarr serves programs of any
 * MPI; libzarr_mpi itself belongs to the MPI it was built with (Open MPI and MPICH do not
 * share an ABI). Build a program with it:
 *
 *   mpicc prog.c $(pkg-config --cflags --libs zarr-mpi) \
 *         -Wl,-rpath,"$(pkg-config --variable=libdir zarr-mpi)"   (libzarr_mpi, libzarr)
 *   CMake: find_package(zarr CONFIG REQUIRED COMPONENTS mpi), target zarr::mpi
 *
 * (The run path, as for zarr.pc, unless libzarr is installed where the dynamic loader
 * looks anyway; LD_LIBRARY_PATH does as well, and mpirun passes it to local ranks.)
 *
 * Conventions (those of zarr.h, plus what MPI adds):
 *
 * - Private messages. `zarr_comm_create_mpi` duplicates the caller's communicator
 *   (`MPI_Comm_dup`), so libzarr's messages never match the application's receives on
 *   `comm`, whatever their tags, and the application's never match libzarr's. The
 *   duplicate's error handler is `MPI_ERRORS_RETURN`: an MPI failure inside a collective
 *   libzarr call does not abort the job but makes the call return
 *   `ZARR_ERROR_COMMUNICATION`, with MPI's text (`MPI_Error_string`) in
 *   `zarr_last_error_message()`. The error handler of the caller's `comm` is not changed.
 * - Operations. barrier, broadcast, all-gather(v), all-to-all(v) and the int64 reduction
 *   of `zarr_comm_ops` are MPI's blocking collectives `MPI_Barrier`, `MPI_Bcast`,
 *   `MPI_Allgather`, `MPI_Allgatherv`, `MPI_Alltoallv` on `MPI_BYTE`, and `MPI_Allreduce`
 *   (`MPI_IN_PLACE`, `MPI_INT64_T`, `MPI_MIN`/`MPI_MAX`/`MPI_SUM`). MPI counts and
 *   displacements are `int`: an exchange whose byte counts or displacements exceed
 *   INT_MAX fails on every rank with `ZARR_ERROR_COMMUNICATION` (an all-to-all first
 *   agrees on that with one `MPI_Allreduce`, so that no rank is left waiting). libzarr
 *   exchanges the pieces of a write in rounds of at most 16 MiB per rank, so this takes
 *   a single row of a chunk larger than 2 GiB.
 * - Threads. Make the collective calls of one communicator on every rank from one thread
 *   at a time (as for any MPI communicator). libzarr's worker threads never call MPI: the
 *   thread level `MPI_THREAD_FUNNELED` is enough when that thread is the main thread
 *   (`MPI_THREAD_SERIALIZED` when it is another one). It is the level the MPI standard
 *   asks of a process with threads; a program that calls plain `MPI_Init` works too in
 *   practice, since no other thread ever calls MPI. `zarr_comm_free` calls
 *   `MPI_Comm_free`, so it too belongs to that thread.
 * - Lifetime. MPI must be initialised before `zarr_comm_create_mpi`. Free the
 *   communicator with `zarr_comm_free` on every rank before `MPI_Finalize`
 *   (`MPI_Comm_free` is collective). A communicator freed after `MPI_Finalize` frees only
 *   its memory (it checks `MPI_Finalized` and makes no MPI call). Arrays and groups do
 *   not keep a communicator: it may be freed while they stay open.
 * - Statuses. A collective call returns the same status on every rank (see zarr.h);
 *   after `ZARR_ERROR_COMMUNICATION` the communicator should not be used for further
 *   collective calls (free it and make a new one, or end the job).
 */

#ifndef ZARR_MPI_H
#define ZARR_MPI_H

#include <mpi.h>

#include "zarr.h"

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// Create a libzarr communicator over the processes of the MPI communicator `comm`, for
// the collective calls of zarr.h. Collective over `comm`: every process of `comm` calls
// it, from the thread that makes MPI calls (it calls `MPI_Comm_dup`, then agrees on the
// outcome with one `MPI_Allreduce`). The libzarr rank and size are those of `comm`
// (`MPI_Comm_rank`, `MPI_Comm_size`).
//
// - `comm`: an intra-communicator (`MPI_COMM_WORLD`, or one from `MPI_Comm_split`...).
//   libzarr works on its own duplicate: `comm` stays the caller's, its error handler is
//   not changed, and it may be freed right after this call.
// - `out`: receives the new communicator, or NULL on failure. Free it with
//   `zarr_comm_free`, on every rank, before `MPI_Finalize`.
//
// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`out` is NULL); `ZARR_ERROR_INVALID_ARGUMENT`
// (MPI is not initialised or already finalised, `comm` is `MPI_COMM_NULL`, or an
// inter-communicator). These are found before anything is communicated: when every rank
// passes the same kind of argument, every rank returns the same status. After the
// duplication every rank returns the same status: `ZARR_ERROR_OUT_OF_MEMORY` (some rank
// could not allocate its few bytes of state); `ZARR_ERROR_COMMUNICATION` (an MPI call
// failed; with `comm`'s default error handler `MPI_ERRORS_ARE_FATAL`, a failure of
// `MPI_Comm_dup` itself aborts the job instead). `zarr_last_error_message()` explains
// every failure.
//
// Ownership: the communicator owns the duplicate of `comm` and frees it in
// `zarr_comm_free`. Thread safety: see the file comment (one thread per rank makes the
// collective calls).
ZARR_NODISCARD zarr_status zarr_comm_create_mpi(MPI_Comm comm, zarr_comm **out);

// `zarr_comm_create_mpi` for a Fortran communicator handle (`integer` from `use mpi` or
// `mpif.h`, or the `MPI_VAL` of a `type(MPI_Comm)` from `use mpi_f08`), converted with
// `MPI_Comm_f2c` as netCDF's `nc_create_par_fortran` does: the function to bind from
// Fortran (`bind(C)`, `comm` by value; `MPI_Fint` is the C type of a default Fortran
// integer, `integer(c_int)` unless MPI was built for 8-byte default integers).
//
// - `comm`: the Fortran handle of an intra-communicator; `MPI_COMM_NULL`'s handle, or a
//   handle that `MPI_Comm_f2c` does not know, is `ZARR_ERROR_INVALID_ARGUMENT`.
// - `out`: as for `zarr_comm_create_mpi`.
//
// Returns the statuses of `zarr_comm_create_mpi`. Collective over `comm`; ownership and
// thread safety as for `zarr_comm_create_mpi`.
ZARR_NODISCARD zarr_status zarr_comm_create_mpi_f(MPI_Fint comm, zarr_comm **out);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif /* ZARR_MPI_H */
