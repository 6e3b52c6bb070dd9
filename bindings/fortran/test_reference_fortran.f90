! Reading a Kerchunk reference set from Fortran. Usage: test_reference_fortran URL EXPECTED
!
! Opens URL, reference+file://.../hdf_v0.json (the JSON v0 references of an HDF5 file, made by
! interop/reference/make_references.py with h5py and kerchunk) and checks the float32
! dataset /gzip_shuffle (40 x 30 in Zarr's C order, chunks 16 x 8 with gzip and shuffle):
! its type, its shape in Fortran order (30, 40), every value against EXPECTED (h5py's values,
! raw little-endian bytes in C order, which is this array's Fortran order), and a section
! that crosses chunk edges; then that the reference store is read-only.
program test_reference_fortran
  use, intrinsic :: iso_c_binding
  use zarr
  implicit none

  integer, parameter :: nx = 30, ny = 40
  character(len=4096) :: url, expected_file
  type(zarr_store) :: store
  type(zarr_array) :: arr
  integer(c_int32_t) :: data_type
  integer(c_int64_t), allocatable :: shape_out(:)
  real(c_float) :: want(nx, ny), got(nx, ny), part(7, 11)
  integer :: unit, ios

  call get_command_argument(1, url)
  call get_command_argument(2, expected_file)
  if (len_trim(expected_file) == 0) error stop "usage: test_reference_fortran URL EXPECTED"
  open (newunit=unit, file=trim(expected_file), access="stream", form="unformatted", &
        status="old", action="read", iostat=ios)
  if (ios /= 0) error stop "cannot open the expected values"
  read (unit, iostat=ios) want
  if (ios /= 0) error stop "cannot read the expected values"
  close (unit)
  ! The expectations are little-endian; on a big-endian host they would need swapping.
  if (transfer(1_c_int16_t, 1_c_int8_t) /= 1_c_int8_t) error stop "big-endian host: not supported"

  call expect(zarr_store_open_url(trim(url), store), ZARR_OK, &
              "open the reference set")
  call expect(zarr_array_open(store, "/gzip_shuffle", arr), ZARR_OK, "open /gzip_shuffle")
  call expect(zarr_array_data_type(arr, data_type), ZARR_OK, "data type")
  if (data_type /= ZARR_DATA_TYPE_FLOAT32) error stop "/gzip_shuffle is not float32"
  call expect(zarr_array_shape(arr, shape_out), ZARR_OK, "shape")
  if (size(shape_out) /= 2) error stop "/gzip_shuffle is not 2-d"
  if (shape_out(1) /= nx .or. shape_out(2) /= ny) error stop "/gzip_shuffle has the wrong shape"
  got = -1
  call expect(zarr_read(arr, got), ZARR_OK, "read /gzip_shuffle")
  if (any(got /= want)) error stop "values read through the references differ from h5py's"
  ! A section from (x, y) = (5, 14), which crosses the chunk edges at x = 9 and y = 17.
  part = -1
  call expect(zarr_read(arr, part, start=[5, 14], count=[7, 11]), ZARR_OK, "read a section")
  if (any(part /= want(5:11, 14:24))) error stop "the section differs from h5py's values"
  call zarr_free(arr)
  call expect(zarr_array_create(store, "/new", [4, 4], [2, 2], ZARR_DATA_TYPE_FLOAT32, arr), &
              ZARR_ERROR_READ_ONLY, "create in a reference set")
  call zarr_free(store)
  print *, "reference set read from Fortran: ", nx * ny, " values equal"

contains

  subroutine expect(got_status, wanted, what)
    integer(c_int32_t), intent(in) :: got_status, wanted
    character(len=*), intent(in) :: what
    if (got_status /= wanted) then
      print *, what, ": status ", got_status, " (", zarr_status_str(got_status), "), expected ", &
               wanted, ": ", zarr_last_error_message()
      error stop 1
    end if
  end subroutine expect
end program test_reference_fortran
