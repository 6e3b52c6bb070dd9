! consumer.f90 -- a Fortran program built against an installed libzarr with find_package(zarr)
! and the target zarr::fortran (or pkg-config zarr-fortran). Writes a real(4) array a(5, 3)
! to a memory store, reads it back, checks every element and prints the version. ctest
! builds it against a staging install and against a moved one (label `install`).
program consumer
  use zarr
  implicit none
  type(zarr_store) :: store
  type(zarr_array) :: array
  real :: a(5, 3), back(5, 3)
  integer :: i, j, status

  a = reshape([((10.0 * i + j, i = 1, 5), j = 1, 3)], [5, 3])
  back = 0
  status = zarr_store_open_memory(store)
  if (status == ZARR_OK) status = zarr_array_create(store, "/a", shape(a), [5, 3], &
                                                    ZARR_DATA_TYPE_FLOAT32, array, codec="zstd")
  if (status == ZARR_OK) status = zarr_write(array, a)
  if (status == ZARR_OK) status = zarr_read(array, back)
  if (status /= ZARR_OK) then
    print '(a, ": ", a)', zarr_status_str(status), zarr_last_error_message()
    error stop 1
  end if
  if (any(back /= a)) then
    print '(a)', "read back differs from what was written"
    error stop 1
  end if
  print '("libzarr ", a, ": Fortran wrote and read back a 5x3 real array")', zarr_version_string()
  call zarr_free(array)
  call zarr_free(store)
end program consumer
