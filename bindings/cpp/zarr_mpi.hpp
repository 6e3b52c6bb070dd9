// zarr_mpi.hpp -- MPI communicators for the collective calls of zarr.hpp (C++17).
//
// zarr.hpp holds no MPI type; this header adds the one function that needs <mpi.h>:
// `zarr::mpi::comm(MPI_Comm)`, a `zarr::Comm` over the processes of an MPI communicator
// (wraps `zarr_comm_create_mpi` of zarr_mpi.h, library libzarr_mpi). Everything else
// (`Array::write_collective`, `Group::create_collective`, ..., `Comm::agree`) is in
// zarr.hpp.
//
//     #include "zarr_mpi.hpp"
//
//     MPI_Init(&argc, &argv);
//     {
//         zarr::Comm comm = zarr::mpi::comm(MPI_COMM_WORLD);   // collective
//         zarr::Store store = zarr::Store::filesystem("out.zarr");
//         zarr::Array a = zarr::Array::create_collective(comm, store, "/t", metadata);
//         a.write_collective(comm, my_start, my_count, my_values); // every rank, its box
//     }   // comm destroyed (zarr_comm_free, which calls MPI_Comm_free) before MPI_Finalize
//     MPI_Finalize();
//
// Rules (those of zarr_mpi.h): MPI is initialised before `comm` and the communicator is
// destroyed on every rank before `MPI_Finalize`; one thread per rank makes the collective
// calls of a communicator (MPI_THREAD_FUNNELED is enough when it is the main thread).
// libzarr works on a duplicate of the MPI communicator, so its messages never mix with
// the application's, and an MPI failure inside a collective call throws
// ZARR_ERROR_COMMUNICATION instead of aborting the job.
//
// Build: compile with the MPI C++ compiler (or MPI::MPI_CXX) and link libzarr_mpi and
// libzarr: in CMake, link `zarr::cpp_mpi` (from add_subdirectory) or `zarr::cpp` and
// `zarr::mpi` (installed); otherwise `mpicxx -std=c++17 prog.cpp $(pkg-config --cflags
// --libs zarr-mpi)`.

#ifndef ZARR_MPI_HPP
#define ZARR_MPI_HPP

#include <mpi.h>

#include "zarr.hpp"
#include "zarr_mpi.h"

namespace zarr {
namespace mpi {

// A communicator over the processes of the MPI intra-communicator `mpi_comm`, this
// process being rank `MPI_Comm_rank(mpi_comm)` (wraps `zarr_comm_create_mpi`).
// Collective over `mpi_comm`: every process of it calls this. libzarr works on a duplicate
// of `mpi_comm`, which stays the caller's (it may be freed at once). Destroy the result on
// every rank before `MPI_Finalize`. Throws zarr::Error, with the same status on every rank
// once `mpi_comm` was duplicated: INVALID_ARGUMENT (MPI not initialised or already
// finalised, MPI_COMM_NULL, an inter-communicator), OUT_OF_MEMORY, COMMUNICATION.
inline Comm comm(MPI_Comm mpi_comm) {
    zarr_comm *raw = nullptr;
    detail::check(zarr_comm_create_mpi(mpi_comm, &raw));
    return Comm(raw);
}

} // namespace mpi
} // namespace zarr

#endif // ZARR_MPI_HPP
