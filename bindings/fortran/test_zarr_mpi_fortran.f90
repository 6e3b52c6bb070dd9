! Tests of the Fortran modules `zarr_mpi` and `zarr` under MPI. Usage (every rank):
!   mpirun -np 3 test_zarr_mpi_fortran STORE_DIRECTORY
! STORE_DIRECTORY must not hold the nodes yet. Every rank:
! - makes a communicator from MPI_COMM_WORLD (mpi_f08) and one from its integer handle;
! - writes its box of an uneven 2-D decomposition of f(23, 17), f(i, j) = 1000*i + j, with
!   zarr_write_collective into a chunked and a sharded int32 array (boxes cutting chunks,
!   shards and inner chunks), then reads both whole with zarr_read_collective and checks
!   every element;
! - appends 5 time steps to s(23, nt) along Fortran dimension 2, each rank writing its rows
!   of each step (the last rank none, when there are 3 or more), and checks every element;
! - checks that a wrong buffer type on one rank gives every rank the same status (the check
!   is agreed through zarr_comm_agree, so no rank waits for another) and writes nothing.
! A failed check prints the rank, what was checked and the status; the program then stops
! with a non-zero exit code on every rank.
program test_zarr_mpi_fortran
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use zarr
  use zarr_mpi
  implicit none

  integer, parameter :: nx = 23, ny = 17, nt = 5
  character(len=4096) :: dir
  type(zarr_comm) :: comm, comm2
  type(zarr_store) :: store
  type(zarr_group) :: root
  type(zarr_array) :: chunked, sharded, series
  integer(c_int32_t), allocatable :: mine(:, :)
  integer(c_int32_t) :: whole(nx, ny), expected(nx, ny)
  real(c_float), allocatable :: wrong(:, :)
  real(c_double), allocatable :: step(:)
  real(c_double) :: history(nx, nt)
  character(len=:), allocatable :: json
  integer :: rank, nranks, zrank, zsize, i, j, t, failures, total, ierr
  integer :: i0, i1, j0, j1, r0, r1
  integer(c_int32_t) :: status
  integer(c_int64_t), allocatable :: shp(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  failures = 0
  if (command_argument_count() /= 1) then
    if (rank == 0) print '(a)', 'usage: mpirun -np N test_zarr_mpi_fortran STORE_DIRECTORY'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  call get_command_argument(1, dir)

  ! ---- communicators
  call ok(zarr_comm_create_mpi(MPI_COMM_WORLD, comm), 'zarr_comm_create_mpi(MPI_COMM_WORLD)')
  zrank = -1
  zsize = -1
  call ok(zarr_comm_rank(comm, zrank), 'zarr_comm_rank')
  call ok(zarr_comm_size(comm, zsize), 'zarr_comm_size')
  call check(zrank == rank .and. zsize == nranks, 'the rank and size of MPI_COMM_WORLD')
  ! The integer handle of `use mpi` (here the MPI_VAL of mpi_f08's handle).
  call ok(zarr_comm_create_mpi(MPI_COMM_WORLD%MPI_VAL, comm2), 'zarr_comm_create_mpi(integer)')
  call ok(zarr_comm_rank(comm2, zrank), 'zarr_comm_rank (integer handle)')
  call check(zrank == rank, 'the rank through the integer handle')
  call zarr_free(comm2)
  call expect(zarr_comm_create_mpi(MPI_COMM_NULL, comm2), ZARR_ERROR_INVALID_ARGUMENT, &
              'zarr_comm_create_mpi(MPI_COMM_NULL)')
  call check(.not. c_associated(comm2%ptr), 'no communicator after a failure')

  ! ---- an uneven decomposition of f(nx, ny), written collectively
  call ok(zarr_store_open_filesystem(dir, store), 'zarr_store_open_filesystem')
  call ok(zarr_group_create_collective(comm, store, '/', root, '{"title": "mpi"}'), &
          'zarr_group_create_collective /')
  call ok(zarr_array_create_collective(comm, store, '/chunked', [nx, ny], [4, 6], &
                                       ZARR_DATA_TYPE_INT32, chunked, codec='zstd', &
                                       fill_value='-1', dimension_names=['x', 'y']), &
          'zarr_array_create_collective /chunked')
  ! The same array sharded: Zarr shape (ny, nx), shards of 8 x 10 in inner chunks of 4 x 5.
  call ok(zarr_array_create_collective(comm, store, '/sharded', &
          '{"zarr_format": 3, "node_type": "array", "shape": [17, 23], "data_type": "int32",' &
          // ' "fill_value": -1, "chunk_grid": {"name": "regular", "configuration": ' &
          // '{"chunk_shape": [8, 10]}}, "chunk_key_encoding": {"name": "default"}, ' &
          // '"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": ' &
          // '[4, 5], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, ' &
          // '{"name": "zstd", "configuration": {"level": 1, "checksum": false}}], ' &
          // '"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, ' &
          // '{"name": "crc32c"}]}}]}', sharded), 'zarr_array_create_collective /sharded')
  do j = 1, ny
    do i = 1, nx
      expected(i, j) = 1000 * i + j
    end do
  end do
  call my_box(rank, nranks, i0, i1, j0, j1)
  allocate (mine(i1 - i0 + 1, j1 - j0 + 1))
  mine = expected(i0:i1, j0:j1)

  ! A wrong buffer type on rank 1 (rank 0 alone): every rank gets the same status, agreed
  ! before any rank enters the collective write, and nothing is written.
  allocate (wrong(i1 - i0 + 1, j1 - j0 + 1))
  wrong = 0
  if (rank == min(1, nranks - 1)) then
    status = zarr_write_collective(comm, chunked, wrong, start=[i0, j0])
  else
    status = zarr_write_collective(comm, chunked, mine, start=[i0, j0])
  end if
  call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'a real(c_float) buffer on one rank')
  call check(index(zarr_last_error_message(), 'zarr_write_collective: a real(c_float) ' &
                   // 'buffer does not match') > 0, &
             'every rank has the failing rank''s message: ' // zarr_last_error_message())
  whole = 0
  call ok(zarr_read_collective(comm, chunked, whole), 'zarr_read_collective after the failure')
  call check(all(whole == -1), 'nothing was written by the failed call')

  call ok(zarr_write_collective(comm, chunked, mine, start=[i0, j0]), &
          'zarr_write_collective /chunked')
  call ok(zarr_comm_last_write_json(comm, json), 'zarr_comm_last_write_json')
  call check(index(nospace(json), '"ranks":' // itoa(nranks)) > 0, 'write report: ' // json)
  call ok(zarr_write_collective(comm, sharded, mine, start=[i0, j0], count=shape(mine)), &
          'zarr_write_collective /sharded')
  whole = 0
  call ok(zarr_read_collective(comm, chunked, whole), 'zarr_read_collective /chunked')
  call check_all(whole == expected, '/chunked holds f everywhere')
  whole = 0
  call ok(zarr_read_collective(comm, sharded, whole), 'zarr_read_collective /sharded')
  call check_all(whole == expected, '/sharded holds f everywhere')
  ! Every rank reads the box of the next rank (boxes of reads may overlap).
  call my_box(mod(rank + 1, nranks), nranks, i0, i1, j0, j1)
  deallocate (mine)
  allocate (mine(i1 - i0 + 1, j1 - j0 + 1))
  mine = 0
  call ok(zarr_read_collective(comm, sharded, mine, start=[i0, j0]), &
          'zarr_read_collective the next rank''s box')
  call check(all(mine == expected(i0:i1, j0:j1)), 'the next rank''s box')

  ! ---- time steps appended along Fortran dimension 2 of s(nx, nt)
  call ok(zarr_array_create_collective(comm, store, '/series', [nx, 0], [nx, 2], &
                                       ZARR_DATA_TYPE_FLOAT64, series, fill_value='NaN', &
                                       dimension_names=['x   ', 'time']), &
          'zarr_array_create_collective /series')
  call my_rows(rank, nranks, r0, r1)
  allocate (step(r1 - r0 + 1))
  do t = 1, nt
    do i = r0, r1
      step(i - r0 + 1) = 100.0d0 * t + i
    end do
    call ok(zarr_append_collective(comm, series, 2, step, start=[r0, 1], &
                                   count=[r1 - r0 + 1, 1]), 'zarr_append_collective a step')
  end do
  call ok(zarr_array_shape(series, shp), 'zarr_array_shape /series')
  call check(all(shp == [nx, nt]), 'the series grew along Fortran dimension 2')
  history = 0
  call ok(zarr_read_collective(comm, series, history), 'zarr_read_collective /series')
  call check_all(history == reshape([((100.0d0 * t + i, i = 1, nx), t = 1, nt)], [nx, nt]), &
                 'every element of every step')
  ! A wrong buffer type for an append on the last rank: every rank fails, nothing grows.
  if (rank == nranks - 1) then
    status = zarr_append_collective(comm, series, 2, wrong(:, 1), start=[1, 1], &
                                    count=[size(wrong, 1), 1])
  else
    status = zarr_append_collective(comm, series, 2, step, start=[r0, 1], &
                                    count=[r1 - r0 + 1, 1])
  end if
  call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'an append with a wrong type on one rank')
  call ok(zarr_array_shape(series, shp), 'zarr_array_shape after the failed append')
  call check(all(shp == [nx, nt]), 'a failed append does not grow the series')
  ! The program's own checks, agreed.
  call expect(zarr_comm_agree(comm, merge(ZARR_ERROR_NOT_FOUND, ZARR_OK, rank == nranks - 1), &
                              'input.nc is missing'), ZARR_ERROR_NOT_FOUND, 'zarr_comm_agree')
  call check(index(zarr_last_error_message(), 'rank ' // itoa(nranks - 1) // &
                   ': input.nc is missing') > 0, 'agreed: ' // zarr_last_error_message())

  call ok(zarr_array_set_attributes_json_collective(comm, series, '{"units": "K"}'), &
          'zarr_array_set_attributes_json_collective')
  call ok(zarr_group_consolidate_collective(comm, root), 'zarr_group_consolidate_collective')

  call zarr_free(series)
  call zarr_free(sharded)
  call zarr_free(chunked)
  call zarr_free(root)
  call zarr_free(store)
  call zarr_free(comm) ! before MPI_Finalize: MPI_Comm_free of libzarr's duplicate

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize(ierr)
  if (total > 0) then
    if (rank == 0) print '(i0, a)', total, ' check(s) failed'
    error stop 1
  end if
  if (rank == 0) print '(a, i0, a)', 'test_zarr_mpi_fortran: all checks passed on ', nranks, &
                                     ' ranks'

contains

  ! Rank r's box of f(nx, ny), 1-based and inclusive: rank 0 the columns 1:5 whole, the
  ! other ranks the rows of columns 6:ny in uneven parts (the cut k of p - 1 parts at
  ! nx*k*k/(p-1)^2); a single rank has everything.
  subroutine my_box(r, p, ia, ib, ja, jb)
    integer, intent(in) :: r, p
    integer, intent(out) :: ia, ib, ja, jb
    if (p == 1) then
      ia = 1; ib = nx; ja = 1; jb = ny
    else if (r == 0) then
      ia = 1; ib = nx; ja = 1; jb = 5
    else
      ia = nx * (r - 1)**2 / (p - 1)**2 + 1
      ib = nx * r**2 / (p - 1)**2
      ja = 6; jb = ny
    end if
  end subroutine my_box

  ! Rank r's rows of a time step: the first 10 rows, then the rest, then nothing (with 3 or
  ! more ranks, the last has no rows: a zero count, but it takes part).
  subroutine my_rows(r, p, ra, rb)
    integer, intent(in) :: r, p
    integer, intent(out) :: ra, rb
    if (p == 1) then
      ra = 1; rb = nx
    else if (r == 0) then
      ra = 1; rb = 10
    else if (r == 1) then
      ra = 11; rb = nx
    else
      ra = 1; rb = 0
    end if
  end subroutine my_rows

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      print '(a, i0, a, a)', 'rank ', rank, ': FAIL: ', what
    end if
  end subroutine check

  ! Checks an elementwise comparison, naming the first element that differs.
  subroutine check_all(same, what)
    logical, intent(in) :: same(:, :)
    character(len=*), intent(in) :: what
    integer :: at(2)
    if (all(same)) return
    at = findloc(same, .false.)
    call check(.false., what // ': element (' // itoa(at(1)) // ', ' // itoa(at(2)) &
               // ') differs')
  end subroutine check_all

  subroutine ok(st, what)
    integer(c_int32_t), intent(in) :: st
    character(len=*), intent(in) :: what
    call expect(st, ZARR_OK, what)
  end subroutine ok

  subroutine expect(st, want, what)
    integer(c_int32_t), intent(in) :: st, want
    character(len=*), intent(in) :: what
    if (st /= want) then
      failures = failures + 1
      print '(a, i0, a, a, a, i0, a, a, a, i0, a)', 'rank ', rank, ': FAIL: ', what, &
        ': status ', st, ' (', zarr_status_str(st), '), expected ', want, ''
      print '(a, i0, a, a)', 'rank ', rank, ':       last error: ', zarr_last_error_message()
    end if
  end subroutine expect

  function itoa(n) result(s)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    character(len=16) :: buf
    write (buf, '(i0)') n
    s = trim(buf)
  end function itoa

  ! `s` without blanks, to compare JSON text whatever its spacing.
  function nospace(s) result(r)
    character(len=*), intent(in) :: s
    character(len=:), allocatable :: r
    integer :: n
    r = ''
    do n = 1, len(s)
      if (s(n:n) /= ' ' .and. s(n:n) /= achar(10)) r = r // s(n:n)
    end do
  end function nospace
end program test_zarr_mpi_fortran
