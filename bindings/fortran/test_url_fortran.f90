! Tests of zarr_store_open_url in the Fortran module. Usage: test_url_fortran DIRECTORY [S3_ENDPOINT]
!
! Writes a(5, 3) through a file:// URL into DIRECTORY and reads it back through a plain
! path opened read-only; checks the error statuses (unknown option, wrong type, unsupported
! scheme, malformed URL, a write to a read-only store); and, when S3_ENDPOINT is given (moto
! on 127.0.0.1, from the ctest fixture url_servers), writes and reads the same array in
! s3://zarr-test/ with options, and checks that unsigned requests are denied.
program test_url_fortran
  use, intrinsic :: iso_c_binding
  use zarr
  implicit none

  integer, parameter :: nx = 5, ny = 3
  character(len=4096) :: dir, endpoint
  character(len=:), allocatable :: options, url
  type(zarr_store) :: store
  type(zarr_array) :: arr
  real(c_float) :: a(nx, ny), b(nx, ny)
  integer :: i, j, clock

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) error stop "usage: test_url_fortran DIRECTORY [S3_ENDPOINT]"
  a = reshape([((10.0 * i + j, i = 1, nx), j = 1, ny)], [nx, ny])

  ! A directory that does not exist is not found; "create" makes it.
  call expect(zarr_store_open_url("file://" // trim(dir) // "/url.zarr", store), ZARR_ERROR_NOT_FOUND, &
              "open a missing directory")
  ! A file URL, then the plain path, read-only.
  call expect(zarr_store_open_url("file://" // trim(dir) // "/url.zarr", store, '{"create": true}'), ZARR_OK, &
              "open file URL")
  call write_and_read(store)
  call zarr_free(store)
  call expect(zarr_store_open_url(trim(dir) // "/url.zarr", store, '{"read_only": true}'), ZARR_OK, &
              "open path read-only")
  call expect(zarr_array_open(store, "/a", arr), ZARR_OK, "open /a")
  b = 0
  call expect(zarr_read(arr, b), ZARR_OK, "read /a")
  if (any(b /= a)) error stop "values read through the plain path differ"
  call zarr_free(arr)
  call expect(zarr_array_create(store, "/b", shape(a), [2, 2], ZARR_DATA_TYPE_FLOAT32, arr), &
              ZARR_ERROR_READ_ONLY, "create in a read-only store")
  call zarr_free(store)

  ! Errors.
  call expect(zarr_store_open_url("s3://bucket", store, '{"colour": 1}'), ZARR_ERROR_INVALID_ARGUMENT, &
              "unknown option")
  if (index(zarr_last_error_message(), "unknown option 'colour'") == 0) error stop "message names the key"
  call expect(zarr_store_open_url("s3://bucket", store, '{"timeout_ms": "5"}'), &
              ZARR_ERROR_INVALID_ARGUMENT, "wrong type")
  call expect(zarr_store_open_url("ftp://host/x", store), ZARR_ERROR_UNSUPPORTED, "ftp://")
  call expect(zarr_store_open_url("gs://bucket/x", store, '{"region": "eu"}'), ZARR_ERROR_INVALID_ARGUMENT, &
              "an S3 option for gs://")
  call expect(zarr_store_open_url("http://", store), ZARR_ERROR_INVALID_ARGUMENT, "malformed URL")

  ! S3 (moto), when the servers are there.
  call get_command_argument(2, endpoint)
  if (len_trim(endpoint) > 0) then
    call system_clock(clock)
    write (dir, '(a, i0)') "s3://zarr-test/fortran-", clock
    url = trim(dir)
    options = '{"endpoint": "' // trim(endpoint) // &
              '", "access_key_id": "test", "secret_access_key": "test", "max_concurrency": 4}'
    call expect(zarr_store_open_url(url, store, options), ZARR_OK, "open s3 URL")
    call write_and_read(store)
    call zarr_free(store)
    call expect(zarr_store_open_url(url, store, '{"endpoint": "' // trim(endpoint) // &
                                    '", "anonymous": true}'), ZARR_OK, "open s3 URL anonymously")
    call expect(zarr_array_open(store, "/a", arr), ZARR_ERROR_ACCESS_DENIED, "unsigned read")
    call zarr_free(store)
    print *, "s3 ok"
  end if
  print *, "1 passed, 0 failed"

contains

  subroutine expect(got, wanted, what)
    integer(c_int32_t), intent(in) :: got, wanted
    character(len=*), intent(in) :: what
    if (got /= wanted) then
      print *, what, ": status ", got, " (", zarr_status_str(got), "), expected ", wanted, &
               ": ", zarr_last_error_message()
      error stop 1
    end if
  end subroutine expect

  subroutine write_and_read(s)
    type(zarr_store), intent(in) :: s
    type(zarr_array) :: x
    call expect(zarr_array_create(s, "/a", shape(a), [2, 2], ZARR_DATA_TYPE_FLOAT32, x, &
                                  codec="zstd"), ZARR_OK, "create /a")
    call expect(zarr_write(x, a), ZARR_OK, "write /a")
    call zarr_free(x)
    call expect(zarr_array_open(s, "/a", x), ZARR_OK, "reopen /a")
    b = 0
    call expect(zarr_read(x, b), ZARR_OK, "read /a")
    if (any(b /= a)) error stop "values read back differ"
    call zarr_free(x)
  end subroutine write_and_read
end program test_url_fortran
