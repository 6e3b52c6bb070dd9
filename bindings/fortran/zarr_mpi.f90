! zarr_mpi.f90 -- the Fortran module `zarr_mpi`: libzarr communicators from MPI communicators.
!
! Module `zarr` holds no MPI type; its collective procedures (zarr_array_create_collective,
! zarr_write_collective, zarr_read_collective, zarr_append_collective, ...) take a
! type(zarr_comm). This module makes one from an MPI communicator:
!
!     status = zarr_comm_create_mpi(MPI_COMM_WORLD, comm)
!
! generic over the communicator of `use mpi_f08` (type(MPI_Comm)) and of `use mpi` or
! mpif.h (a default integer handle). It calls zarr_comm_create_mpi_f of libzarr_mpi
! (zarr_mpi.h) with the Fortran handle (comm%MPI_VAL for mpi_f08), which converts it with
! MPI_Comm_f2c, as netCDF's nc_create_par_fortran does.
!
! Build: compile this file with the MPI Fortran compiler (mpif90; CMake: MPI::MPI_Fortran)
! after zarr.f90, and link libzarr_mpi, then libzarr. It must be compiled against the MPI
! that libzarr_mpi was built with. With CMake, link the target zarr::fortran_mpi
! (bindings/fortran/CMakeLists.txt); installed: pkg-config zarr-fortran-mpi.
!
! Conventions: those of module `zarr` (every procedure is a function returning an
! integer(c_int32_t) status; zarr_last_error_message() explains a failure), and those of
! zarr_mpi.h: MPI is initialised before zarr_comm_create_mpi, which is collective over the
! MPI communicator (every process calls it; once the communicator is duplicated every
! process gets the same status); libzarr works on its own duplicate, so its messages never
! mix with the program's; free the result with zarr_free (or zarr_comm_free) on every rank
! before MPI_Finalize, from the thread that makes MPI calls.
module zarr_mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_ptr, c_null_ptr
  use mpi_f08, only: MPI_Comm
  use zarr, only: zarr_comm, zarr_comm_adopt
  implicit none
  private

  public :: zarr_comm_create_mpi, c_zarr_comm_create_mpi_f

  !> status = zarr_comm_create_mpi(comm, zcomm): a libzarr communicator `zcomm` over the
  !> processes of the MPI intra-communicator `comm`, type(MPI_Comm) (use mpi_f08) or a
  !> default integer handle (use mpi). Collective over `comm`. Statuses as
  !> zarr_comm_create_mpi in zarr_mpi.h: ZARR_OK; ZARR_ERROR_INVALID_ARGUMENT (MPI not
  !> initialised or already finalised, MPI_COMM_NULL, an inter-communicator);
  !> ZARR_ERROR_OUT_OF_MEMORY; ZARR_ERROR_COMMUNICATION. `zcomm` is not open after a
  !> failure.
  interface zarr_comm_create_mpi
    module procedure zarr_comm_create_mpi_f08, zarr_comm_create_mpi_integer
  end interface zarr_comm_create_mpi

  ! The raw layer: zarr_mpi.h's zarr_comm_create_mpi_f (MPI_Fint is a C int).
  interface
    function c_zarr_comm_create_mpi_f(comm, out) result(status) &
        bind(C, name="zarr_comm_create_mpi_f")
      import :: c_int, c_int32_t, c_ptr
      integer(c_int), value :: comm
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_comm_create_mpi_f
  end interface

contains

  function zarr_comm_create_mpi_f08(comm, zcomm) result(status)
    type(MPI_Comm), intent(in) :: comm
    type(zarr_comm), intent(out) :: zcomm
    integer(c_int32_t) :: status
    status = zarr_comm_create_mpi_integer(comm%MPI_VAL, zcomm)
  end function zarr_comm_create_mpi_f08

  function zarr_comm_create_mpi_integer(comm, zcomm) result(status)
    integer, intent(in) :: comm
    type(zarr_comm), intent(out) :: zcomm
    integer(c_int32_t) :: status, st
    type(c_ptr) :: p
    p = c_null_ptr
    st = c_zarr_comm_create_mpi_f(int(comm, c_int), p)
    status = zarr_comm_adopt(st, p, zcomm)
  end function zarr_comm_create_mpi_integer

end module zarr_mpi
