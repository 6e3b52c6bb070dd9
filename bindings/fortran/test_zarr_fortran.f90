! Tests of the Fortran module `zarr`. Usage: test_zarr_fortran STORE_DIRECTORY
!
! Writes into STORE_DIRECTORY (which must not hold the nodes yet) what check_fortran_output.py
! then reads with zarr-python:
!   /        group, attributes {"title": "written by Fortran", "nx": 5}
!   /a2d     float32, Fortran a(5, 3) with a(i, j) = 10*i + j, so Zarr shape (3, 5)
!   /g/i3d   int32, Fortran v(4, 3, 2) with v(i, j, k) = 100*i + 10*j + k, Zarr shape (2, 3, 4)
! and exercises the rest of the module on an in-memory store. Every failed check prints what
! was checked, and for a status its text and zarr_last_error_message(); the program then
! stops with a non-zero exit code.
! A communicator of one rank made of Fortran procedures (zarr_comm_ops_t), so that the
! collective procedures of the module are checked without MPI: with a single rank every
! exchange is a copy of this rank's own bytes. (test_zarr_mpi_fortran.f90 runs them on
! several MPI processes.)
module one_rank_comm
  use, intrinsic :: iso_c_binding
  use zarr, only: ZARR_OK, ZARR_COMM_OPS_VERSION, zarr_comm_ops_t
  implicit none
  private
  public :: one_rank_ops, freed
  integer, save :: freed = 0

contains

  function one_rank_ops() result(ops)
    type(zarr_comm_ops_t) :: ops
    ops%version = ZARR_COMM_OPS_VERSION
    ops%barrier = c_funloc(barrier)
    ops%broadcast = c_funloc(broadcast)
    ops%all_gather = c_funloc(all_gather)
    ops%all_gather_v = c_funloc(all_gather_v)
    ops%all_to_all_v = c_funloc(all_to_all_v)
    ops%all_reduce_i64 = c_funloc(all_reduce_i64)
    ops%free_user_data = c_funloc(free_user_data)
  end function one_rank_ops

  ! Copies `len` bytes from `src` + `src_off` to `dst` + `dst_off`.
  subroutine copy_bytes(dst, dst_off, src, src_off, len)
    type(c_ptr), value :: dst, src
    integer(c_size_t), value :: dst_off, src_off, len
    integer(c_int8_t), pointer :: d(:), s(:)
    if (len == 0) return
    call c_f_pointer(dst, d, [dst_off + len])
    call c_f_pointer(src, s, [src_off + len])
    d(dst_off + 1:dst_off + len) = s(src_off + 1:src_off + len)
  end subroutine copy_bytes

  ! The arguments a single rank does not need are unused on purpose.
  integer(c_int32_t) function barrier(user_data) bind(C)
    type(c_ptr), value :: user_data
    if (c_associated(user_data)) continue
    barrier = ZARR_OK
  end function barrier

  integer(c_int32_t) function broadcast(user_data, buf, len, root) bind(C)
    type(c_ptr), value :: user_data, buf
    integer(c_size_t), value :: len, root
    if (c_associated(user_data) .or. c_associated(buf) .or. len + root < 0) continue
    broadcast = ZARR_OK
  end function broadcast

  integer(c_int32_t) function all_gather(user_data, send, len, recv) bind(C)
    type(c_ptr), value :: user_data, send, recv
    integer(c_size_t), value :: len
    if (c_associated(user_data)) continue
    call copy_bytes(recv, 0_c_size_t, send, 0_c_size_t, len)
    all_gather = ZARR_OK
  end function all_gather

  integer(c_int32_t) function all_gather_v(user_data, send, send_len, recv, recv_lens, &
                                           recv_displs) bind(C)
    type(c_ptr), value :: user_data, send, recv
    integer(c_size_t), value :: send_len
    integer(c_size_t), intent(in) :: recv_lens(1), recv_displs(1)
    if (c_associated(user_data) .or. send_len < 0) continue
    call copy_bytes(recv, recv_displs(1), send, 0_c_size_t, recv_lens(1))
    all_gather_v = ZARR_OK
  end function all_gather_v

  integer(c_int32_t) function all_to_all_v(user_data, send, send_lens, send_displs, recv, &
                                           recv_lens, recv_displs) bind(C)
    type(c_ptr), value :: user_data, send, recv
    integer(c_size_t), intent(in) :: send_lens(1), send_displs(1), recv_lens(1), recv_displs(1)
    if (c_associated(user_data) .or. recv_lens(1) /= send_lens(1)) continue
    call copy_bytes(recv, recv_displs(1), send, send_displs(1), send_lens(1))
    all_to_all_v = ZARR_OK
  end function all_to_all_v

  integer(c_int32_t) function all_reduce_i64(user_data, values, count, op) bind(C)
    type(c_ptr), value :: user_data, values
    integer(c_size_t), value :: count
    integer(c_int32_t), value :: op
    if (c_associated(user_data) .or. c_associated(values) .or. count < 0 .or. op < 0) continue
    all_reduce_i64 = ZARR_OK
  end function all_reduce_i64

  subroutine free_user_data(user_data) bind(C)
    type(c_ptr), value :: user_data
    if (c_associated(user_data)) continue
    freed = freed + 1
  end subroutine free_user_data
end module one_rank_comm

program test_zarr_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
  use zarr
  use one_rank_comm, only: one_rank_ops, freed
  implicit none

  integer, parameter :: nx = 5, ny = 3
  character(len=4096) :: dir
  type(zarr_store) :: store, mem
  type(zarr_group) :: root, g, g2
  type(zarr_array) :: a2d, i3d, missing, arr
  real(c_float) :: a(nx, ny), b(nx, ny), sub(3, 2), chunk(2, 2)
  integer(c_int32_t) :: v(4, 3, 2), w(4, 3, 2), slab(4, 3), part(2, 2, 1), ichunk(2, 2)
  integer(c_int32_t) :: grid(nx, ny)
  real(c_double) :: d(10), d3(3), scalar
  integer(c_int64_t) :: big(6, 4), got(3, 4), big2(6, 4)
  integer(c_int16_t) :: h(7), h2(7)
  integer(c_int8_t) :: octets(4), octets2(4)
  logical(c_bool) :: flags(2, 3), flags2(2, 3)
  complex(c_double_complex) :: z(3), z2(3)
  type(zarr_store) :: smem
  type(zarr_array) :: sarr
  character(len=4) :: names(3), grid_names(2, 3)
  character(len=2) :: short(3)
  integer(c_int32_t) :: codes(4, 3), codes2(4, 2, 3)
  integer(c_int8_t) :: sbytes(3, 2)
  integer(c_int64_t), allocatable :: shp(:)
  character(len=:), allocatable :: json, msg
  ! Strings read by zarr_read_vlen (here rather than in the subroutine: gfortran 12 warns
  ! about deferred-length character arrays local to an internal procedure).
  character(len=:), allocatable :: texts(:), raw
  integer :: i, j, k, ndim, failures
  integer(c_int32_t) :: status, dt
  integer(c_size_t) :: nbytes

  failures = 0
  if (command_argument_count() /= 1) then
    print '(a)', 'usage: test_zarr_fortran STORE_DIRECTORY'
    error stop 2
  end if
  call get_command_argument(1, dir)

  ! ---- version, status text
  call check(len(zarr_version_string()) >= 5, 'zarr_version_string: ' // zarr_version_string())
  call check(zarr_version_number() > 0, 'zarr_version_number > 0')
  call check(zarr_status_str(ZARR_OK) /= zarr_status_str(ZARR_ERROR_NOT_FOUND), &
             'zarr_status_str distinguishes statuses')

  ! ---- groups and attributes (file system store)
  call ok(zarr_store_open_filesystem(dir, store), 'zarr_store_open_filesystem')
  call ok(zarr_group_create(store, '/', root, '{"title": "written by Fortran", "nx": 5}'), &
          'zarr_group_create / with attributes')
  call ok(zarr_group_attributes_json(root, json), 'zarr_group_attributes_json /')
  call check(index(json, '"written by Fortran"') > 0, 'root attributes round trip: ' // json)
  call ok(zarr_group_create(store, '/g', g), 'zarr_group_create /g without attributes')
  call ok(zarr_group_attributes_json(g, json), 'zarr_group_attributes_json /g')
  call check(nospace(json) == '{}', 'a group created without attributes has {}: ' // json)
  call ok(zarr_group_set_attributes_json(g, '{"units": "m", "scale": [1, 2, 3]}'), &
          'zarr_group_set_attributes_json')
  call zarr_free(g)
  call check(.not. c_associated(g%ptr), 'zarr_free resets the handle')
  call zarr_free(g) ! freeing a handle that is not open does nothing
  call ok(zarr_group_open(store, '/g', g), 'zarr_group_open /g')
  call ok(zarr_group_attributes_json(g, json), 'zarr_group_attributes_json /g reopened')
  call check(index(nospace(json), '"units":"m"') > 0 .and. &
             index(nospace(json), '"scale":[1,2,3]') > 0, 'group attributes round trip: ' // json)

  ! ---- 2-D float32: Fortran a(nx, ny) is the Zarr array of shape (ny, nx)
  do j = 1, ny
    do i = 1, nx
      a(i, j) = real(10 * i + j, c_float)
    end do
  end do
  call ok(zarr_array_create(store, '/a2d', [nx, ny], [2, 2], ZARR_DATA_TYPE_FLOAT32, a2d, &
                            codec='zstd', fill_value='NaN', dimension_names=['x', 'y'], &
                            attributes_json='{"rule": "a(i,j) = 10*i + j"}'), &
          'zarr_array_create /a2d')
  call ok(zarr_write(a2d, a), 'zarr_write a')
  call zarr_free(a2d)
  call ok(zarr_array_open(store, '/a2d', a2d), 'zarr_array_open /a2d')
  ndim = -1
  call ok(zarr_array_ndim(a2d, ndim), 'zarr_array_ndim')
  call check(ndim == 2, 'ndim == 2')
  call ok(zarr_array_shape(a2d, shp), 'zarr_array_shape')
  call check(all(shp == [nx, ny]), 'shape in Fortran order == [nx, ny]')
  call ok(zarr_array_chunk_shape(a2d, shp), 'zarr_array_chunk_shape')
  call check(all(shp == [2, 2]), 'chunk shape == [2, 2]')
  call ok(zarr_array_inner_chunk_shape(a2d, shp), 'zarr_array_inner_chunk_shape')
  call check(all(shp == [2, 2]), 'inner chunk shape == chunk shape when unsharded')
  dt = -1
  call ok(zarr_array_data_type(a2d, dt), 'zarr_array_data_type')
  call check(dt == ZARR_DATA_TYPE_FLOAT32, 'data type float32')
  call check(zarr_data_type_name(dt) == 'float32', 'zarr_data_type_name')
  nbytes = 0
  call ok(zarr_array_element_size(a2d, nbytes), 'zarr_array_element_size')
  call check(nbytes == 4, 'element size 4')
  call ok(zarr_array_chunk_nbytes(a2d, nbytes), 'zarr_array_chunk_nbytes')
  call check(nbytes == 16, 'chunk nbytes 16')
  call ok(zarr_array_selection_nbytes(a2d, [2, 2], [3, 2], nbytes), &
          'zarr_array_selection_nbytes')
  call check(nbytes == 24, 'selection nbytes 24')
  call ok(zarr_array_metadata_json(a2d, json), 'zarr_array_metadata_json')
  call check(index(nospace(json), '"shape":[3,5]') > 0, 'Zarr shape is (ny, nx): ' // json)
  call check(index(nospace(json), '"chunk_shape":[2,2]') > 0, 'chunk shape in metadata')
  call check(index(nospace(json), '"dimension_names":["y","x"]') > 0, &
             'dimension names reversed: ' // json)
  call check(index(json, 'zstd') > 0, 'zstd codec in metadata')
  call ok(zarr_array_attributes_json(a2d, json), 'zarr_array_attributes_json')
  call check(index(json, 'a(i,j) = 10*i + j') > 0, 'array attributes: ' // json)

  b = -1
  call ok(zarr_read(a2d, b), 'zarr_read whole a')
  call check(all(b == a), 'whole a round trip')
  sub = -1
  call ok(zarr_read(a2d, sub, start=[2, 2]), 'zarr_read a(2:4, 2:3)')
  call check(all(sub == a(2:4, 2:3)), '1-based sub-region a(2:4, 2:3)')
  sub = -1
  call ok(zarr_read(a2d, sub(2:3, :), start=[4, 1], count=[2, 2]), 'zarr_read into a section')
  call check(all(sub(2:3, :) == a(4:5, 1:2)) .and. all(sub(1, :) == -1), &
             'read into a section a(4:5, 1:2)')
  b = -1
  call ok(zarr_read(a2d, b(1:5:2, :), start=[1, 1], count=[3, 3]), 'zarr_read into a strided section')
  call check(all(b(1:5:2, :) == a(1:3, :)) .and. all(b(2:4:2, :) == -1), &
             'read into a strided section')
  chunk = -1
  call ok(zarr_read_chunk(a2d, [3, 2], chunk), 'zarr_read_chunk [3, 2]')
  call check(chunk(1, 1) == a(5, 3) .and. ieee_is_nan(chunk(2, 1)) .and. &
             ieee_is_nan(chunk(1, 2)) .and. ieee_is_nan(chunk(2, 2)), &
             'chunk [3, 2] holds a(5, 3) and the NaN fill past the edge')
  chunk = -1
  call ok(zarr_read_inner_chunk(a2d, [1, 1], chunk), 'zarr_read_inner_chunk [1, 1]')
  call check(all(chunk == a(1:2, 1:2)), 'inner chunk [1, 1] == a(1:2, 1:2)')

  ! ---- 3-D int32 in group /g, gzip
  do k = 1, 2
    do j = 1, 3
      do i = 1, 4
        v(i, j, k) = 100 * i + 10 * j + k
      end do
    end do
  end do
  call ok(zarr_array_create(store, '/g/i3d', shape(v), [2, 2, 2], ZARR_DATA_TYPE_INT32, i3d, &
                            codec='gzip', level=1, fill_value='-1'), 'zarr_array_create /g/i3d')
  call ok(zarr_write(i3d, v), 'zarr_write v')
  w = 0
  call ok(zarr_read(i3d, w), 'zarr_read whole v')
  call check(all(w == v), 'whole v round trip')
  slab = 0
  call ok(zarr_read(i3d, slab, start=[1, 1, 2], count=[4, 3, 1]), 'zarr_read 2-D slab of v')
  call check(all(slab == v(:, :, 2)), 'slab v(:, :, 2) read into a 2-D array')
  part = 0
  call ok(zarr_read(i3d, part, start=[3, 2, 1]), 'zarr_read v(3:4, 2:3, 1:1)')
  call check(all(part == v(3:4, 2:3, 1:1)), '1-based sub-region v(3:4, 2:3, 1:1)')
  call ok(zarr_group_children_json(root, json), 'zarr_group_children_json')
  call check(index(json, '"a2d"') > 0 .and. index(json, '"g"') > 0, 'children: ' // json)

  ! ---- errors: status, message, outputs unchanged
  status = zarr_array_open(store, '/missing', missing)
  call expect(status, ZARR_ERROR_NOT_FOUND, 'zarr_array_open /missing')
  msg = zarr_last_error_message()
  call check(len(msg) > 0, 'the error message is non-empty')
  call check(.not. c_associated(missing%ptr), 'no handle after a failed open')
  call check(len(zarr_status_str(status)) > 0, 'zarr_status_str(NOT_FOUND) non-empty')
  status = zarr_group_open(store, '/a2d', g2)
  call expect(status, ZARR_ERROR_NODE_TYPE_MISMATCH, 'zarr_group_open on an array')
  status = zarr_array_create(store, '/a2d', [nx, ny], [2, 2], ZARR_DATA_TYPE_FLOAT32, arr)
  call expect(status, ZARR_ERROR_ALREADY_EXISTS, 'zarr_array_create over /a2d')
  status = zarr_array_create(store, '/x', [2], [2], ZARR_DATA_TYPE_FLOAT32, arr, codec='lzma')
  call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_create with an unknown codec')
  call check(index(zarr_last_error_message(), 'lzma') > 0, 'message names the codec')
  w = 7
  status = zarr_write(a2d, w)
  call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_write int32 into float32')
  call check(index(zarr_last_error_message(), 'zarr_write') > 0, &
             'message names zarr_write: ' // zarr_last_error_message())
  b = 7
  status = zarr_read(a2d, b, start=[0, 1])
  call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_read with start 0')
  status = zarr_read(a2d, sub, start=[4, 1])
  call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_read past the edge')
  call check(index(zarr_last_error_message(), '1-based') == 0, &
             'after a libzarr failure its message is reported: ' // zarr_last_error_message())
  status = zarr_read(a2d, b(1:2, 1:1), count=[2, 2])
  call expect(status, ZARR_ERROR_BUFFER_TOO_SMALL, 'zarr_read into a too small buffer')
  status = zarr_read(a2d, b, start=[1, 1, 1], count=[1, 1, 1])
  call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_read with the wrong rank')
  call check(all(b == 7), 'failed reads leave the buffer unchanged')
  call zarr_free(missing)
  status = zarr_read(missing, b)
  call expect(status, ZARR_ERROR_NULL_ARGUMENT, 'zarr_read through a handle not open')
  ndim = -1
  status = zarr_array_ndim(missing, ndim)
  call expect(status, ZARR_ERROR_NULL_ARGUMENT, 'zarr_array_ndim through a handle not open')
  call check(ndim == -1, 'failed getter leaves its output unchanged')

  ! ---- the other element types, section writes, chunks (memory store)
  call ok(zarr_store_open_memory(mem), 'zarr_store_open_memory')
  call ok(zarr_array_create(mem, '/d', [10], [4], ZARR_DATA_TYPE_FLOAT64, arr, &
                            fill_value='NaN'), 'create float64')
  d3 = [1.5_c_double, 2.5_c_double, 3.5_c_double]
  call ok(zarr_write(arr, d3, start=[3]), 'zarr_write d(3:5)')
  d = 0
  call ok(zarr_read(arr, d), 'zarr_read d')
  call check(all(ieee_is_nan(d(1:2))) .and. all(d(3:5) == d3) .and. all(ieee_is_nan(d(6:))), &
             'region write of float64 leaves the NaN fill around')
  call zarr_free(arr)

  do j = 1, 4
    do i = 1, 6
      big(i, j) = int(i, c_int64_t) * 10000000000_c_int64_t + j
    end do
  end do
  call ok(zarr_array_create(mem, '/i64', [3, 4], [2, 3], ZARR_DATA_TYPE_INT64, arr), &
          'create int64')
  call ok(zarr_write(arr, big(1:6:2, :)), 'zarr_write a strided section')
  got = 0
  call ok(zarr_read(arr, got), 'zarr_read int64')
  call check(all(got == big(1:6:2, :)), 'int64 strided section round trip')
  big2 = 0
  call ok(zarr_read(arr, big2(2:6:2, :)), 'zarr_read int64 into a strided section')
  call check(all(big2(2:6:2, :) == big(1:6:2, :)) .and. all(big2(1:5:2, :) == 0), &
             'int64 read into a strided section')
  call zarr_free(arr)

  h = [(int(-3000 * i, c_int16_t), i = 1, 7)]
  call ok(zarr_array_create(mem, '/i16', [7], [3], ZARR_DATA_TYPE_INT16, arr, codec='zstd'), &
          'create int16')
  call ok(zarr_write(arr, h), 'zarr_write int16')
  h2 = 0
  call ok(zarr_read(arr, h2), 'zarr_read int16')
  call check(all(h2 == h), 'int16 round trip')
  call zarr_free(arr)

  octets = [0_c_int8_t, 127_c_int8_t, int(-128, c_int8_t), -1_c_int8_t]
  call ok(zarr_array_create(mem, '/u8', [4], [4], ZARR_DATA_TYPE_UINT8, arr), 'create uint8')
  call ok(zarr_write(arr, octets), 'zarr_write uint8 from integer(c_int8_t)')
  octets2 = 0
  call ok(zarr_read(arr, octets2), 'zarr_read uint8')
  call check(all(octets2 == octets), 'uint8 bit patterns round trip')
  call zarr_free(arr)

  flags = reshape([.true., .false., .false., .true., .true., .true.], [2, 3])
  call ok(zarr_array_create(mem, '/bool', [2, 3], [2, 2], ZARR_DATA_TYPE_BOOL, arr), &
          'create bool')
  call ok(zarr_write(arr, flags), 'zarr_write logical(c_bool)')
  flags2 = .false.
  call ok(zarr_read(arr, flags2), 'zarr_read logical(c_bool)')
  call check(logical(all(flags2 .eqv. flags)), 'bool round trip')
  call zarr_free(arr)

  z = [(cmplx(i, -i, c_double_complex), i = 1, 3)]
  call ok(zarr_array_create(mem, '/c128', [3], [2], ZARR_DATA_TYPE_COMPLEX128, arr), &
          'create complex128')
  call ok(zarr_write(arr, z), 'zarr_write complex')
  z2 = 0
  call ok(zarr_read(arr, z2), 'zarr_read complex')
  call check(all(z2 == z), 'complex128 round trip')
  call zarr_free(arr)

  call ok(zarr_array_create(mem, '/scalar', [integer ::], [integer ::], ZARR_DATA_TYPE_FLOAT64, &
                            arr, fill_value='-9999'), 'create a 0-d array')
  scalar = 0
  call ok(zarr_read(arr, scalar), 'zarr_read 0-d fill')
  call check(scalar == -9999, '0-d array reads its fill value')
  call ok(zarr_write(arr, 2.5_c_double), 'zarr_write 0-d')
  call ok(zarr_read(arr, scalar), 'zarr_read 0-d')
  call check(scalar == 2.5_c_double, '0-d round trip')
  call ok(zarr_array_set_attributes_json(arr, '{"kind": "scalar"}'), &
          'zarr_array_set_attributes_json')
  call ok(zarr_array_attributes_json(arr, json), 'zarr_array_attributes_json 0-d')
  call check(index(json, '"scalar"') > 0, 'array attributes round trip: ' // json)
  call zarr_free(arr)

  call ok(zarr_array_create(mem, '/chunks', [nx, ny], [2, 2], ZARR_DATA_TYPE_INT32, arr), &
          'create int32 for chunk writes')
  ichunk = reshape([1, 2, 3, 4], [2, 2])
  call ok(zarr_write_chunk(arr, [3, 2], ichunk), 'zarr_write_chunk [3, 2]')
  grid = -1
  call ok(zarr_read(arr, grid), 'zarr_read after zarr_write_chunk')
  call check(grid(5, 3) == 1 .and. count(grid /= 0) == 1, &
             'chunk [3, 2] lands at a(5:6, 3:4), clipped to a(5, 3)')
  status = zarr_write_chunk(arr, [0, 1], ichunk)
  call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_write_chunk with index 0')
  status = zarr_write_chunk(arr, [4, 1], ichunk)
  call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_write_chunk past the grid')
  call zarr_free(arr)

  ! Zarr v2 groups, consolidated metadata, hierarchy listing, formats.
  call ok(zarr_group_create_with_format(mem, '/v2', 2, g2, '{"k": 1}'), &
          'zarr_group_create_with_format 2')
  ndim = 0
  call ok(zarr_group_format(g2, ndim), 'zarr_group_format')
  call check(ndim == 2, 'a v2 group reports format 2')
  call ok(zarr_array_format(a2d, ndim), 'zarr_array_format')
  call check(ndim == 3, 'a v3 array reports format 3')
  status = zarr_group_create_with_format(mem, '/v4', 4, g)
  call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_group_create_with_format 4')
  ! The deprecated names still work.
  block
    type(zarr_group) :: old
    call ok(zarr_group_create_v2(mem, '/old', old), 'zarr_group_create_v2 (deprecated)')
    ndim = 0
    call ok(zarr_group_zarr_format(old, ndim), 'zarr_group_zarr_format (deprecated)')
    call check(ndim == 2, 'deprecated format name')
    call zarr_free(old)
    call ok(zarr_set_num_threads(2), 'zarr_set_num_threads (deprecated)')
    call ok(zarr_thread_pool_size(ndim), 'zarr_thread_pool_size')
    call check(ndim == 2, 'thread pool size 2')
    call ok(zarr_thread_pool_set_size(0), 'zarr_thread_pool_set_size 0')
    status = zarr_thread_pool_set_size(-1)
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_thread_pool_set_size -1')
  end block
  call zarr_free(g2)
  call ok(zarr_group_open(mem, '/', g2), 'zarr_group_open / of the memory store')
  call ok(zarr_group_descendants_json(g2, json), 'zarr_group_descendants_json')
  call check(index(json, '"/v2"') > 0 .and. index(json, '"/chunks"') > 0, &
             'descendants list /v2 and /chunks')
  call ok(zarr_group_consolidate(g2), 'zarr_group_consolidate')
  block
    type(zarr_store) :: view
    call ok(zarr_store_open_consolidated(mem, view), 'zarr_store_open_consolidated')
    call ok(zarr_array_open(view, '/chunks', arr), 'zarr_array_open through the view')
    call zarr_free(arr)
    call zarr_free(view)
  end block
  call zarr_free(g2)
  block
    type(zarr_store) :: zipped
    status = zarr_store_open_zip(trim(dir) // '/no-such.zip', zipped)
    call expect(status, ZARR_ERROR_NOT_FOUND, 'zarr_store_open_zip of a missing file')
  end block

  ! ---- fixed-length strings into character(len=n) arrays
  call ok(zarr_store_open_memory(smem), 'zarr_store_open_memory (strings)')
  call ok(zarr_array_create(smem, '/u', '{"zarr_format": 2, "shape": [3], "chunks": [2], ' // &
          '"dtype": ">U4", "compressor": null, "fill_value": "fill", "order": "C", ' // &
          '"filters": null}', sarr), 'zarr_array_create <U4')
  call ok(zarr_array_data_type(sarr, dt), 'zarr_array_data_type (strings)')
  call check(dt == ZARR_DATA_TYPE_FIXED_LENGTH_UTF32, 'data type fixed_length_utf32')
  call check(zarr_data_type_name(dt) == 'fixed_length_utf32', 'zarr_data_type_name strings')
  ! UTF-32 code units: "ab", "" (element 2 is left unwritten: the fill value "fill").
  codes = 0
  codes(1:2, 1) = [iachar('a'), iachar('b')]
  call ok(zarr_write(sarr, codes(:, 1:1), count=[1]), 'zarr_write code units')
  names = 'xxxx'
  call ok(zarr_read_strings(sarr, names), 'zarr_read_strings rank 1')
  call check(names(1) == 'ab' .and. names(2) == 'fill' .and. names(3) == 'fill', &
             'strings read: ' // names(1) // '|' // names(2) // '|' // names(3))
  call ok(zarr_read_strings(sarr, names(2:3), start=[2]), 'zarr_read_strings start=[2]')
  call check(names(2) == 'fill', 'strings from element 2')
  call expect(zarr_read_strings(sarr, short), ZARR_ERROR_BUFFER_TOO_SMALL, &
              'zarr_read_strings into character(len=2): "fill" does not fit')
  call check(index(zarr_last_error_message(), 'longer than len(values)') > 0, &
             'message names the length: ' // zarr_last_error_message())
  call expect(zarr_read_strings(sarr, names, start=[2]), ZARR_ERROR_OUT_OF_BOUNDS, &
              'zarr_read_strings past the end')
  call zarr_free(sarr)
  ! 2-D: Fortran names(2, 3) is the Zarr array of shape (3, 2).
  call ok(zarr_array_create(smem, '/u2', '{"zarr_format": 3, "node_type": "array", ' // &
          '"shape": [3, 2], "data_type": {"name": "fixed_length_utf32", ' // &
          '"configuration": {"length_bytes": 16}}, "chunk_grid": {"name": "regular", ' // &
          '"configuration": {"chunk_shape": [2, 2]}}, "chunk_key_encoding": {"name": ' // &
          '"default"}, "fill_value": "", "codecs": [{"name": "bytes", "configuration": ' // &
          '{"endian": "little"}}]}', sarr), 'zarr_array_create fixed_length_utf32 2-D')
  codes2 = 0
  do j = 1, 3
    do i = 1, 2
      codes2(1, i, j) = iachar('a') + i - 1
      codes2(2, i, j) = iachar('0') + j
    end do
  end do
  codes2(1, 2, 3) = 233 ! e acute, a Latin-1 character
  call ok(zarr_write(sarr, codes2, count=[2, 3]), 'zarr_write 2-D code units')
  call ok(zarr_read_strings(sarr, grid_names), 'zarr_read_strings rank 2')
  call check(grid_names(1, 1) == 'a1' .and. grid_names(2, 1) == 'b1' .and. &
             grid_names(1, 3) == 'a3' .and. grid_names(2, 3) == char(233) // '3', &
             'rank-2 strings in Fortran order: ' // grid_names(1, 1) // grid_names(2, 3))
  call zarr_free(sarr)
  ! Byte strings (|S3) and a type that holds no strings.
  call ok(zarr_array_create(smem, '/s', '{"zarr_format": 2, "shape": [2], "chunks": [2], ' // &
          '"dtype": "|S3", "compressor": null, "fill_value": null, "order": "C", ' // &
          '"filters": null}', sarr), 'zarr_array_create |S3')
  sbytes(:, 1) = [int(iachar('x'), c_int8_t), int(iachar('y'), c_int8_t), 0_c_int8_t]
  sbytes(:, 2) = [int(iachar('p'), c_int8_t), int(iachar('q'), c_int8_t), int(iachar('r'), c_int8_t)]
  call ok(zarr_write(sarr, sbytes, count=[2]), 'zarr_write byte strings')
  call ok(zarr_read_strings(sarr, names(1:2)), 'zarr_read_strings |S3')
  call check(names(1) == 'xy' .and. names(2) == 'pqr', 'byte strings: ' // names(1) // names(2))
  call zarr_free(sarr)
  call expect(zarr_read_strings(a2d, names), ZARR_ERROR_INVALID_ARGUMENT, &
              'zarr_read_strings of a float32 array')
  call expect(zarr_read_strings(sarr, names), ZARR_ERROR_NULL_ARGUMENT, &
              'zarr_read_strings on a freed handle')
  call zarr_free(smem)
  call accessors_attributes_builder(mem)
  call sections_resize_strings(mem)
  call read_double_checks(mem)
  call sub_byte_and_complex_checks()
  call collectives_one_rank()

  ! Handles may be freed in any order.
  call zarr_free(mem)
  call zarr_free(store)
  call zarr_free(root)
  call zarr_free(g)
  call zarr_free(a2d)
  call zarr_free(i3d)

  if (failures > 0) then
    print '(i0, a)', failures, ' check(s) failed'
    error stop 1
  end if
  print '(a)', 'test_zarr_fortran: all checks passed'

contains

  ! zarr_read_double converts int16, float32 (in Fortran order, a sub-region) and bool to
  ! real(c_double); complex is TYPE_MISMATCH, a buffer of the wrong size
  ! BUFFER_SIZE_MISMATCH, a closed handle NULL_ARGUMENT, each leaving the buffer alone;
  ! zarr_array_fill_value_double converts the fill value.
  subroutine read_double_checks(st)
    type(zarr_store), intent(in) :: st
    type(zarr_array) :: t, closed
    real(c_double) :: r7(7), r2(2, 2), r5(5), fill
    integer(c_int16_t) :: raw(7)
    logical(c_bool) :: flags3(3)
    raw = [(int(-3000 * i, c_int16_t), i = 1, 7)]
    call ok(zarr_array_open(st, '/i16', t), 'open /i16 for zarr_read_double')
    call ok(zarr_read_double(t, r7), 'zarr_read_double int16')
    call check(all(r7 == real(raw, c_double)), 'int16 read as double')
    r5 = -1
    call expect(zarr_read_double(t, r5, count=[7]), ZARR_ERROR_BUFFER_SIZE_MISMATCH, &
                'zarr_read_double: 5 values for 7 elements')
    call check(all(r5 == -1), 'a mismatched read leaves the buffer')
    call check(index(zarr_last_error_message(), '5 values') > 0, &
               'the message gives the buffer length: ' // zarr_last_error_message())
    call ok(zarr_read_double(t, r5, start=[3]), 'zarr_read_double int16 from 3')
    call check(all(r5 == real(raw(3:7), c_double)), 'int16 from 3 read as double')
    call ok(zarr_array_fill_value_double(t, fill), 'zarr_array_fill_value_double int16')
    call check(fill == 0, 'int16 fill value 0')
    call zarr_free(t)
    call ok(zarr_array_open(store, '/a2d', t), 'open /a2d for zarr_read_double')
    call ok(zarr_read_double(t, r2, start=[2, 2]), 'zarr_read_double float32 a(2:3, 2:3)')
    call check(all(r2 == real(a(2:3, 2:3), c_double)), 'float32 read as double, Fortran order')
    call zarr_free(t)
    call ok(zarr_array_create(st, '/flags3', [3], [3], ZARR_DATA_TYPE_BOOL, t), 'create bool')
    flags3 = [.true., .false., .true.]
    call ok(zarr_write(t, flags3), 'zarr_write bool')
    call ok(zarr_read_double(t, r5(1:3)), 'zarr_read_double bool')
    call check(all(r5(1:3) == [1d0, 0d0, 1d0]), 'bool read as 1 and 0')
    call zarr_free(t)
    call ok(zarr_array_open(st, '/c128', t), 'open /c128 for zarr_read_double')
    r5 = -1
    call expect(zarr_read_double(t, r5(1:3)), ZARR_ERROR_TYPE_MISMATCH, 'zarr_read_double complex128')
    call check(index(zarr_last_error_message(), 'complex128') > 0, &
               'the message names the data type: ' // zarr_last_error_message())
    call check(all(r5 == -1), 'a refused read leaves the buffer')
    call zarr_free(t)
    call expect(zarr_read_double(closed, r5), ZARR_ERROR_NULL_ARGUMENT, &
                'zarr_read_double on a handle that is not open')
  end subroutine read_double_checks

  ! The array builder, dimension names, fill values, codecs, children, typed attributes,
  ! chunk administration and deletion, in Fortran order.
  subroutine accessors_attributes_builder(st)
    type(zarr_store), intent(in) :: st
    type(zarr_array_builder) :: b
    type(zarr_array) :: t, t2
    type(zarr_group) :: top
    real(c_double) :: x, field(6, 4), back(6, 4)
    real(c_double), allocatable :: xs(:)
    integer(c_int64_t) :: n64
    integer(c_int64_t), allocatable :: ns(:)
    character(len=:), allocatable :: text
    integer :: count, ii
    integer(c_int32_t) :: nt, s
    logical :: named, stored
    integer(c_int64_t) :: nbytes

    ! A Fortran field(6, 4): Zarr shape (4, 6); chunks (3, 2) in Fortran order.
    call ok(zarr_array_builder_new(ZARR_DATA_TYPE_FLOAT64, [6, 4], b), 'zarr_array_builder_new')
    call ok(zarr_array_builder_set_chunk_shape(b, [3, 2]), 'builder chunk shape')
    call ok(zarr_array_builder_set_fill_value(b, -1.0_c_double), 'builder fill value')
    call ok(zarr_array_builder_add_gzip(b, 4), 'builder gzip')
    call ok(zarr_array_builder_add_codec(b, 'crc32c'), 'builder crc32c')
    call ok(zarr_array_builder_set_dimension_name(b, 1, 'lon'), 'builder dimension 1')
    call ok(zarr_array_builder_set_dimension_name(b, 2, 'lat'), 'builder dimension 2')
    call ok(zarr_array_builder_set_attributes_json(b, '{"history": "Fortran"}'), &
            'builder attributes json')
    call ok(zarr_put_att(b, 'units', 'K'), 'builder string attribute')
    call ok(zarr_put_att(b, 'valid_min', 180.0_c_double), 'builder double attribute')
    call ok(zarr_put_att(b, 'version', 2_c_int32_t), 'builder int attribute')
    status = zarr_array_builder_set_dimension_name(b, 3, 'z')
    call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'builder dimension 3 of 2')
    status = zarr_array_builder_add_gzip(b, 11)
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'builder gzip 11')
    status = zarr_array_builder_add_codec(b, 'nonsense')
    call expect(status, ZARR_ERROR_UNSUPPORTED, 'builder unknown codec')
    status = zarr_array_builder_set_fill_value(b, 1_c_int32_t)
    call expect(status, ZARR_ERROR_BUFFER_SIZE_MISMATCH, 'builder fill value of another size')
    status = zarr_array_builder_set_format(b, 7)
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'builder format 7')
    call ok(zarr_array_builder_set_format(b, 3), 'builder format 3')
    call ok(zarr_array_builder_create(b, st, '/built/t', t), 'zarr_array_builder_create')
    status = zarr_array_builder_create(b, st, '/built/t', t2)
    call expect(status, ZARR_ERROR_ALREADY_EXISTS, 'builder create twice')
    call zarr_free(b)
    call check(.not. c_associated(b%ptr), 'zarr_free resets a builder')

    ! Dimension names, fill value, codecs: Fortran order.
    call ok(zarr_array_dimension_name(t, 1, text, named), 'dimension name 1')
    call check(text == 'lon' .and. named, 'dimension 1 is lon: ' // text)
    call ok(zarr_array_dimension_name(t, 2, text), 'dimension name 2')
    call check(text == 'lat', 'dimension 2 is lat: ' // text)
    status = zarr_array_dimension_name(t, 3, text)
    call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'dimension name 3 of 2')
    x = 0
    call ok(zarr_array_fill_value(t, x), 'zarr_array_fill_value')
    call check(x == -1.0_c_double, 'fill value -1')
    status = zarr_array_fill_value(t, nt)
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'fill value into the wrong type')
    call ok(zarr_array_codec_count(t, count), 'zarr_array_codec_count')
    call check(count == 3, 'three codecs')
    call ok(zarr_array_codec_name(t, 2, text), 'zarr_array_codec_name 2')
    call check(text == 'gzip', 'codec 2 is gzip: ' // text)
    status = zarr_array_codec_name(t, 4, text)
    call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'codec 4 of 3')

    ! Typed attributes.
    call ok(zarr_get_att(t, 'units', text), 'zarr_get_att string')
    call check(text == 'K', 'units K')
    call ok(zarr_get_att(t, 'valid_min', x), 'zarr_get_att double')
    call check(x == 180.0_c_double, 'valid_min 180')
    call ok(zarr_get_att(t, 'version', n64), 'zarr_get_att int64')
    call check(n64 == 2, 'version 2')
    call ok(zarr_put_att(t, 'range', [1.5_c_double, 2.5_c_double]), 'zarr_put_att doubles')
    call ok(zarr_put_att(t, 'ids', [7_c_int64_t, 8_c_int64_t, 9_c_int64_t]), 'zarr_put_att int64s')
    call ok(zarr_get_att(t, 'range', xs), 'zarr_get_att doubles')
    call check(size(xs) == 2 .and. xs(2) == 2.5_c_double, 'range round trip')
    call ok(zarr_get_att(t, 'ids', ns), 'zarr_get_att int64s')
    call check(size(ns) == 3 .and. ns(3) == 9, 'ids round trip')
    call ok(zarr_att_count(t, count), 'zarr_att_count')
    call check(count == 6, 'six attributes')
    call ok(zarr_att_name(t, 1, text), 'zarr_att_name 1')
    call check(text == 'history', 'first attribute is history: ' // text)
    status = zarr_get_att(t, 'units', x)
    call expect(status, ZARR_ERROR_TYPE_MISMATCH, 'zarr_get_att a string as double')
    status = zarr_get_att(t, 'nothing', text)
    call expect(status, ZARR_ERROR_NOT_FOUND, 'zarr_get_att a missing key')
    call ok(zarr_del_att(t, 'ids'), 'zarr_del_att')
    status = zarr_del_att(t, 'ids')
    call expect(status, ZARR_ERROR_NOT_FOUND, 'zarr_del_att twice')

    ! Groups: attributes and children by index.
    call ok(zarr_group_open(st, '/built', top), 'open /built')
    call ok(zarr_put_att(top, 'title', 'built in Fortran'), 'group zarr_put_att')
    call ok(zarr_put_att(top, 'n', 5_c_int64_t), 'group zarr_put_att int64')
    call ok(zarr_get_att(top, 'title', text), 'group zarr_get_att')
    call check(text == 'built in Fortran', 'group title')
    call ok(zarr_group_child_count(top, count), 'zarr_group_child_count')
    call check(count == 1, 'one child')
    call ok(zarr_group_child_name(top, 1, text), 'zarr_group_child_name')
    call check(text == 't', 'child t')
    call ok(zarr_group_child_node_type(top, 1, nt), 'zarr_group_child_node_type')
    call check(nt == ZARR_NODE_TYPE_ARRAY, 'child t is an array')
    status = zarr_group_child_name(top, 2, text)
    call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'child 2 of 1')

    ! Data, chunks, deletion.
    field = reshape([(real(ii, c_double), ii = 1, 24)], [6, 4])
    call ok(zarr_write(t, field), 'zarr_write the built array')
    back = 0
    call ok(zarr_read(t, back), 'zarr_read the built array')
    call check(all(back == field), 'built array round trip')
    call ok(zarr_array_chunk_stored_nbytes(t, [2, 1], stored, nbytes), 'chunk stored nbytes')
    call check(stored .and. nbytes > 0, 'chunk (2, 1) is stored')
    call ok(zarr_array_erase_chunk(t, [2, 1]), 'zarr_array_erase_chunk')
    call ok(zarr_array_chunk_stored_nbytes(t, [2, 1], stored, nbytes), 'chunk stored nbytes')
    call check(.not. stored, 'chunk (2, 1) erased')
    call ok(zarr_read(t, back), 'zarr_read after erase')
    call check(all(back(4:6, 1:2) == -1.0_c_double) .and. back(1, 1) == 1, &
               'the erased chunk reads as the fill value')
    s = zarr_array_erase_chunk(t, [0, 1])
    call expect(s, ZARR_ERROR_OUT_OF_BOUNDS, 'erase chunk 0')
    call zarr_free(t)
    call ok(zarr_store_delete_node(st, '/built'), 'zarr_store_delete_node')
    status = zarr_array_open(st, '/built/t', t)
    call expect(status, ZARR_ERROR_NOT_FOUND, 'deleted array is gone')
    status = zarr_store_delete_node(st, '/')
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'the root cannot be deleted')
    call zarr_free(top)
  end subroutine accessors_attributes_builder

  ! Array sections straight through the strided calls, resizing, appending and
  ! variable-length strings. Uses /a2d (a(i, j) = 10*i + j) and /g/i3d of the file store.
  subroutine sections_resize_strings(st)
    type(zarr_store), intent(in) :: st
    type(zarr_array) :: t, s
    real(c_float) :: wide(9, 5), plain(3, 3), col(3, 1)
    real(c_float), allocatable :: back(:, :)
    integer(c_int32_t) :: cube(8, 3, 3), grid4(6, 4), first(4, 3)
    real(c_double) :: src(8, 6), dense(4, 3)
    character(len=12) :: words(4, 3)
    integer(c_int64_t), allocatable :: offs(:), shp2(:)
    character(len=*), parameter :: e_acute = char(195) // char(169)        ! U+00E9, 2 bytes
    character(len=*), parameter :: smiley = char(240) // char(159) // char(152) // char(128)
    integer :: ii, jj

    ! ---- reads into sections: Fortran wide(i, j) <-> Zarr [j-1, i-1] of the selection
    plain = -1
    call ok(zarr_read(a2d, plain, start=[1, 1], count=[3, 3]), 'zarr_read plain 3x3')
    wide = -1
    call ok(zarr_read_section(a2d, wide(1:5:2, 2:4), start=[1, 1], count=[3, 3]), &
            'zarr_read_section into wide(1:5:2, 2:4)')
    call check(all(wide(1:5:2, 2:4) == plain), 'section read == plain read')
    call check(all(wide(2:4:2, :) == -1) .and. all(wide(6:, :) == -1) .and. &
               all(wide(:, 1) == -1) .and. all(wide(:, 5) == -1), &
               'elements between and around the section are untouched')
    wide = -1
    call ok(zarr_read_section(a2d, wide(2:6:2, 1:5:2), start=[3, 1]), &
            'zarr_read_section, count from the section, start [3, 1]')
    call check(all(wide(2:6:2, 1:5:2) == a(3:5, 1:3)) .and. count(wide /= -1) == 9, &
               'section read of a(3:5, 1:3) with strides 2 and 2')
    ! A 2-D slice of a 3-D buffer receives a slab of the 3-D array (count's 1 skipped).
    cube = 0
    call ok(zarr_read_section(i3d, cube(1:8:2, 2, :), start=[1, 1, 2], count=[4, 3, 1]), &
            'zarr_read_section slab into cube(1:8:2, 2, :)')
    call check(all(cube(1:8:2, 2, :) == v(:, :, 2)) .and. count(cube /= 0) == 12, &
               'slab v(:, :, 2) into a 2-D slice of a 3-D array')
    cube = 0
    call ok(zarr_read_section(i3d, cube(1:8:2, :, 1:3:2)), 'zarr_read_section rank 3')
    call check(all(cube(1:8:2, :, 1:3:2) == v) .and. count(cube /= 0) == 24, &
               'whole v into cube(1:8:2, :, 1:3:2)')
    ! A whole contiguous array works too.
    b = -1
    call ok(zarr_read_section(a2d, b), 'zarr_read_section whole array')
    call check(all(b == a), 'zarr_read_section of a contiguous array')

    ! ---- writes from sections
    src = reshape([(real(ii, c_double), ii = 1, 48)], [8, 6])
    call ok(zarr_array_create(st, '/sec', [4, 3], [3, 2], ZARR_DATA_TYPE_FLOAT64, t, &
                              fill_value='-1'), 'create /sec')
    call ok(zarr_write_section(t, src(1:8:2, 1:6:2)), 'zarr_write_section src(1:8:2, 1:6:2)')
    dense = 0
    call ok(zarr_read(t, dense), 'zarr_read /sec')
    call check(all(dense == src(1:8:2, 1:6:2)), 'section write round trip')
    call ok(zarr_write_section(t, src(8:8, 2:6:2), start=[4, 1], count=[1, 3]), &
            'zarr_write_section one row, start [4, 1]')
    call ok(zarr_read(t, dense), 'zarr_read /sec again')
    call check(all(dense(4, :) == src(8, 2:6:2)) .and. all(dense(1:3, :) == src(1:6:2, 1:6:2)), &
               'partial section write')

    ! ---- section errors
    status = zarr_read_section(a2d, wide(1:5:2, 1:3), start=[1, 1, 1], count=[3, 3, 1])
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_read_section with the wrong rank')
    status = zarr_read_section(a2d, cube(1:8:2, 1, :))
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_read_section int32 from float32')
    status = zarr_read_section(a2d, wide(1:5:2, 1:2), count=[2, 3])
    call expect(status, ZARR_ERROR_BUFFER_SIZE_MISMATCH, 'zarr_read_section count /= shape')
    status = zarr_read_section(a2d, wide(5:1:-2, 1:3))
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_read_section into a reversed section')
    call check(index(zarr_last_error_message(), 'reversed') > 0, &
               'message names the reversed section: ' // zarr_last_error_message())
    wide = -1
    status = zarr_read_section(a2d, wide(1:9:2, 1:3), start=[2, 1])
    call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_read_section past the edge')
    call check(all(wide == -1), 'failed section reads leave the buffer unchanged')

    ! ---- resize: grow, shrink, grow again (the fill value beyond the old edge)
    first = reshape([(ii, ii = 1, 12)], [4, 3])
    call ok(zarr_array_create(st, '/grow', [4, 3], [2, 2], ZARR_DATA_TYPE_INT32, s, &
                              fill_value='-1'), 'create /grow')
    call ok(zarr_write(s, first), 'zarr_write /grow')
    call ok(zarr_array_resize(s, [6, 4]), 'zarr_array_resize grow to (6, 4)')
    call ok(zarr_array_shape(s, shp2), 'shape after growing')
    call check(all(shp2 == [6, 4]), 'grown shape in Fortran order')
    grid4 = 0
    call ok(zarr_read(s, grid4), 'zarr_read grown array')
    call check(all(grid4(1:4, 1:3) == first) .and. all(grid4(5:6, :) == -1) .and. &
               all(grid4(:, 4) == -1), 'old data kept, the new part is the fill value')
    call ok(zarr_array_resize(s, [3_c_int64_t, 2_c_int64_t]), 'zarr_array_resize shrink (int64)')
    call ok(zarr_array_shape(s, shp2), 'shape after shrinking')
    call check(all(shp2 == [3, 2]), 'shrunk shape')
    call ok(zarr_array_resize(s, [6, 4]), 'zarr_array_resize grow again')
    grid4 = 0
    call ok(zarr_read(s, grid4), 'zarr_read regrown array')
    call check(all(grid4(1:3, 1:2) == first(1:3, 1:2)) .and. all(grid4(4:6, :) == -1) .and. &
               all(grid4(:, 3:4) == -1), 'beyond the shrunk edge: the fill value, not old data')
    status = zarr_array_resize(s, [6, 4, 1])
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_resize with the wrong rank')
    status = zarr_array_resize(s, [6, -4])
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_resize negative extent')
    call zarr_free(s)

    ! ---- append along either Fortran dimension
    call ok(zarr_array_create(st, '/app', [3, 2], [2, 2], ZARR_DATA_TYPE_FLOAT32, s, &
                              fill_value='0'), 'create /app')
    call ok(zarr_write(s, plain(:, 1:2)), 'zarr_write /app')
    col(:, 1) = [7.0_c_float, 8.0_c_float, 9.0_c_float]
    call ok(zarr_array_append(s, 2, col), 'zarr_array_append a column along dimension 2')
    call ok(zarr_array_shape(s, shp2), 'shape after appending')
    call check(all(shp2 == [3, 3]), 'appended shape (3, 3)')
    call ok(zarr_array_append(s, 1, plain(1:2, :)), 'zarr_array_append two rows along dimension 1')
    call ok(zarr_array_shape(s, shp2), 'shape after the second append')
    call check(all(shp2 == [5, 3]), 'appended shape (5, 3)')
    allocate (back(5, 3))
    back = -1
    call ok(zarr_read(s, back), 'zarr_read appended array')
    call check(all(back(1:3, 1:2) == plain(:, 1:2)) .and. all(back(1:3, 3) == col(:, 1)) .and. &
               all(back(4:5, :) == plain(1:2, :)), 'appended data in place')
    status = zarr_array_append(s, 3, col)
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_append along dimension 3 of 2')
    status = zarr_array_append(s, 2, plain(1:2, 1:1))
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_append a block of the wrong height')
    status = zarr_array_append(s, 2, grid4(1:5, 1:1))
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_append int32 to float32')
    call ok(zarr_array_shape(s, shp2), 'shape after failed appends')
    call check(all(shp2 == [5, 3]), 'failed appends leave the shape')
    ! A 1-D block along dimension 2 of a 2-D array: count says where it goes.
    call ok(zarr_array_append(s, 2, back(:, 1), count=[5, 1]), 'zarr_array_append 1-D with count')
    call ok(zarr_array_shape(s, shp2), 'shape after the 1-D append')
    call check(all(shp2 == [5, 4]), 'appended shape (5, 4)')
    col = 0
    call ok(zarr_read(s, col(:, 1), start=[3, 4], count=[3, 1]), 'zarr_read column 4')
    call check(all(col(:, 1) == back(3:5, 1)), 'the 1-D block is column 4 (rows 3:5)')
    call zarr_free(s)

    ! ---- variable-length strings: Fortran words(4, 3) is the Zarr string array of shape (3, 4)
    call ok(zarr_array_create(st, '/str', '{"zarr_format": 3, "node_type": "array", ' // &
            '"shape": [3, 4], "data_type": "string", "chunk_grid": {"name": "regular", ' // &
            '"configuration": {"chunk_shape": [2, 2]}}, "chunk_key_encoding": {"name": ' // &
            '"default"}, "fill_value": "", "codecs": [{"name": "vlen-utf8"}, {"name": ' // &
            '"zstd", "configuration": {"level": 3, "checksum": false}}]}', s), &
            'zarr_array_create string (vlen-utf8)')
    call ok(zarr_array_data_type(s, dt), 'zarr_array_data_type string')
    call check(dt == ZARR_DATA_TYPE_STRING .and. zarr_data_type_name(dt) == 'string', &
               'data type string')
    do jj = 1, 3
      do ii = 1, 4
        words(ii, jj) = achar(iachar('a') + ii - 1) // achar(iachar('0') + jj)
      end do
    end do
    words(2, 1) = ''                                     ! an empty string
    words(3, 2) = 'h' // e_acute // 'llo ' // smiley     ! 11 bytes of UTF-8
    words(4, 3) = 'trailing   '                          ! trailing blanks are trimmed
    call ok(zarr_write_vlen(s, words), 'zarr_write_vlen words(4, 3)')
    call ok(zarr_read_vlen(s, texts, offsets=offs, data=raw), 'zarr_read_vlen whole array')
    call check(size(texts) == 12 .and. len(texts) == 11, 'twelve strings, padded to 11 bytes')
    call check(all(texts == reshape(words, [12])), 'strings round trip in Fortran order')
    call check(texts(2) == '' .and. offs(3) == offs(2), 'the empty string')
    call check(texts(7) == 'h' // e_acute // 'llo ' // smiley .and. offs(8) - offs(7) == 11, &
               'non-ASCII UTF-8 string: ' // texts(7))
    call check(size(offs) == 13 .and. offs(1) == 0 .and. offs(13) == len(raw), &
               'offsets: n + 1 values from 0 to the data size')
    call check(raw(offs(12) + 1:offs(13)) == 'trailing' .and. len(raw) == offs(13), &
               'trailing blanks trimmed on write')
    call ok(zarr_read_vlen(s, texts, start=[3, 2], count=[2, 1]), 'zarr_read_vlen a selection')
    call check(size(texts) == 2 .and. texts(1) == words(3, 2) .and. texts(2) == 'd2', &
               'selection words(3:4, 2)')
    call ok(zarr_read_vlen(s, texts, start=[4, 3]), 'zarr_read_vlen, count to the end')
    call check(size(texts) == 1 .and. texts(1) == 'trailing', 'last element')
    ! Offsets and bytes as given: the trailing blank stays.
    call ok(zarr_write_vlen(s, [0_c_int64_t, 3_c_int64_t, 3_c_int64_t], 'ab ', start=[1, 3], &
                            count=[2, 1]), 'zarr_write_vlen offsets and data')
    call ok(zarr_read_vlen(s, texts, start=[1, 3], count=[2, 1], offsets=offs, data=raw), &
            'zarr_read_vlen raw')
    call check(raw == 'ab ' .and. all(offs == [0, 3, 3]) .and. texts(2) == '', &
               'raw write keeps the trailing blank; an empty element')
    ! Errors.
    status = zarr_read_vlen(a2d, texts)
    call expect(status, ZARR_ERROR_UNSUPPORTED, 'zarr_read_vlen of a float32 array')
    status = zarr_write_vlen(a2d, ['x'], start=[1, 1], count=[1, 1])
    call expect(status, ZARR_ERROR_UNSUPPORTED, 'zarr_write_vlen into a float32 array')
    status = zarr_read(s, plain)
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_read of a string array (type check)')
    status = zarr_read_vlen(s, texts, start=[1], count=[1])
    call expect(status, ZARR_ERROR_INVALID_ARGUMENT, 'zarr_read_vlen with the wrong rank')
    status = zarr_read_vlen(s, texts, start=[1, 5])
    call expect(status, ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_read_vlen past the edge')
    status = zarr_write_vlen(s, words(:, 1:2))
    call check(status == ZARR_OK, 'zarr_write_vlen two columns, count from the shape')
    status = zarr_write_vlen(s, words(:, 1), count=[4, 2])
    call expect(status, ZARR_ERROR_BUFFER_SIZE_MISMATCH, 'zarr_write_vlen 4 strings for 8')
    call zarr_free(s)
    status = zarr_read_vlen(s, texts)
    call expect(status, ZARR_ERROR_NULL_ARGUMENT, 'zarr_read_vlen on a freed handle')
    call zarr_free(t)
  end subroutine sections_resize_strings

  ! The collective procedures on a communicator of one rank (one_rank_comm): creation, the
  ! checks agreed through zarr_comm_agree, writes and reads in Fortran order, appends along
  ! a Fortran dimension, resizing, attributes, groups, consolidation.
  subroutine collectives_one_rank()
    type(zarr_comm) :: comm, closed
    type(zarr_comm_ops_t) :: ops
    type(zarr_store) :: st, view
    type(zarr_group) :: top
    type(zarr_array) :: f, series, again
    real(c_float) :: field(7, 4), back(7, 4), part(3, 2), step(7)
    real(c_double) :: wrong(7, 4)
    integer(c_int32_t) :: cols(7, 2)
    integer(c_int64_t), allocatable :: extents(:)
    character(len=:), allocatable :: text
    integer :: r, n, t

    ops = one_rank_ops()
    call expect(zarr_comm_create(ops, 1, 1, comm), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_comm_create rank 1 of 1')
    call expect(zarr_comm_create(ops, -1, 1, comm), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_comm_create rank -1')
    ops%all_to_all_v = c_null_funptr
    call expect(zarr_comm_create(ops, 0, 1, comm), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_comm_create without all_to_all_v')
    call check(index(zarr_last_error_message(), 'all_to_all_v') > 0, &
               'the message names the missing operation: ' // zarr_last_error_message())
    call check(freed == 0, 'a failed creation does not free user_data')
    ops = one_rank_ops()
    call ok(zarr_comm_create(ops, 0, 1, comm), 'zarr_comm_create one rank')
    r = -1
    n = -1
    call ok(zarr_comm_rank(comm, r), 'zarr_comm_rank')
    call ok(zarr_comm_size(comm, n), 'zarr_comm_size')
    call check(r == 0 .and. n == 1, 'rank 0 of 1')
    call ok(zarr_comm_last_write_json(comm, text), 'zarr_comm_last_write_json before a write')
    call check(text == 'null', 'no collective write yet: ' // text)

    ! A 2-D float32 field(7, 4) in chunks of 3 x 2 (Zarr shape (4, 7)).
    call ok(zarr_store_open_memory(st), 'zarr_store_open_memory (collective)')
    call ok(zarr_group_create_collective(comm, st, '/', top, '{"title": "run"}'), &
            'zarr_group_create_collective /')
    call ok(zarr_array_create_collective(comm, st, '/field', [7, 4], [3, 2], &
                                         ZARR_DATA_TYPE_FLOAT32, f, codec='zstd', &
                                         fill_value='-1', dimension_names=['x', 'y']), &
            'zarr_array_create_collective from Fortran values')
    do t = 1, 4
      do r = 1, 7
        field(r, t) = 10.0 * r + t
      end do
    end do
    call ok(zarr_write_collective(comm, f, field(:, 1:2), count=[7, 2]), &
            'zarr_write_collective columns 1:2')
    call ok(zarr_write_collective(comm, f, field(:, 3:4), start=[1, 3]), &
            'zarr_write_collective columns 3:4')
    back = 0
    call ok(zarr_read_collective(comm, f, back), 'zarr_read_collective whole')
    call check(all(back == field), 'collective write and read round trip')
    call ok(zarr_read(f, back), 'zarr_read after collective writes')
    call check(all(back == field), 'a serial read sees the collective writes')
    call ok(zarr_read_collective(comm, f, part, start=[2, 3]), 'zarr_read_collective part')
    call check(all(part == field(2:4, 3:4)), '1-based part field(2:4, 3:4)')
    call ok(zarr_comm_last_write_json(comm, text), 'zarr_comm_last_write_json')
    call check(index(nospace(text), '"ranks":1') > 0 .and. index(text, 'units_written') > 0, &
               'the last write report: ' // text)

    ! Checks of this module, agreed through zarr_comm_agree: the message names the rank.
    wrong = 0
    call expect(zarr_write_collective(comm, f, wrong), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_write_collective of real(c_double) into float32')
    call check(index(zarr_last_error_message(), 'rank 0: zarr_write_collective: a ' &
                     // 'real(c_double) buffer') > 0, &
               'agreed message: ' // zarr_last_error_message())
    call expect(zarr_read_collective(comm, f, back, start=[0, 1]), ZARR_ERROR_OUT_OF_BOUNDS, &
                'zarr_read_collective start 0')
    call expect(zarr_read_collective(comm, f, back, start=[1]), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_read_collective start and count of different lengths')
    call expect(zarr_write_collective(comm, f, field, start=[2, 1]), ZARR_ERROR_OUT_OF_BOUNDS, &
                'zarr_write_collective past the edge (checked by libzarr)')
    call expect(zarr_write_collective(comm, again, field), ZARR_ERROR_NULL_ARGUMENT, &
                'zarr_write_collective on an array that is not open')
    call expect(zarr_write_collective(closed, f, field), ZARR_ERROR_NULL_ARGUMENT, &
                'zarr_write_collective with a communicator that is not open')
    call expect(zarr_array_create_collective(comm, st, '/bad', [2], [2], 999_c_int32_t, &
                                             again), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_array_create_collective unknown data type')
    call check(index(zarr_last_error_message(), 'rank 0: zarr_array_create_collective') > 0, &
               'agreed create message: ' // zarr_last_error_message())
    call expect(zarr_comm_agree(comm, ZARR_ERROR_IO, 'input.nc is missing'), ZARR_ERROR_IO, &
                'zarr_comm_agree of a failure')
    call check(index(zarr_last_error_message(), 'rank 0: input.nc is missing') > 0, &
               'zarr_comm_agree message: ' // zarr_last_error_message())
    call ok(zarr_comm_agree(comm, ZARR_OK), 'zarr_comm_agree ZARR_OK')
    back = 0
    call ok(zarr_read(f, back), 'zarr_read after failed collective calls')
    call check(all(back == field), 'failed collective calls wrote nothing')

    ! Appending time steps along Fortran dimension 2 of series(7, nt) (Zarr dimension 0).
    call ok(zarr_array_create_collective(comm, st, '/series', [7, 0], [7, 2], &
                                         ZARR_DATA_TYPE_FLOAT32, series, fill_value='NaN'), &
            'zarr_array_create_collective time series')
    do t = 1, 3
      step = [(100.0 * t + r, r = 1, 7)]
      call ok(zarr_append_collective(comm, series, 2, step, count=[7, 1]), &
              'zarr_append_collective one step')
    end do
    call ok(zarr_append_collective(comm, series, 2, field(:, 1:2), start=[1, 2], length=3), &
            'zarr_append_collective 3 steps, this rank writing the last 2')
    call ok(zarr_array_shape(series, extents), 'zarr_array_shape after appends')
    call check(all(extents == [7, 6]), 'series grew along Fortran dimension 2')
    call ok(zarr_read_collective(comm, series, back(:, 1:3)), 'zarr_read_collective steps 1:3')
    call check(all(back(:, 1:3) == reshape([((100.0 * t + r, r = 1, 7), t = 1, 3)], [7, 3])), &
               'appended steps in place')
    call ok(zarr_read_collective(comm, series, back(:, 1:3), start=[1, 4]), &
            'zarr_read_collective steps 4:6')
    call check(all(ieee_is_nan(back(:, 1))) .and. all(back(:, 2:3) == field(:, 1:2)), &
               'a step left unwritten is the fill value')
    call expect(zarr_append_collective(comm, series, 3, step), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_append_collective dimension 3 of 1')
    call expect(zarr_append_collective(comm, series, 2, step, count=[7, 1], length=-1), &
                ZARR_ERROR_INVALID_ARGUMENT, 'zarr_append_collective negative length')
    cols = 0
    call expect(zarr_append_collective(comm, series, 2, cols(:, 1), count=[7, 1]), &
                ZARR_ERROR_INVALID_ARGUMENT, 'zarr_append_collective int32 into float32')
    call ok(zarr_array_shape(series, extents), 'zarr_array_shape after failed appends')
    call check(all(extents == [7, 6]), 'failed appends do not grow the array')
    call ok(zarr_array_resize_collective(comm, series, [7, 8]), 'zarr_array_resize_collective')
    call ok(zarr_array_shape(series, extents), 'zarr_array_shape after resize')
    call check(all(extents == [7, 8]), 'resized to (7, 8)')
    call expect(zarr_array_resize_collective(comm, series, [7, -1]), &
                ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_resize_collective negative extent')

    ! Attributes, groups, consolidated metadata.
    call ok(zarr_array_set_attributes_json_collective(comm, series, '{"units": "K"}'), &
            'zarr_array_set_attributes_json_collective')
    call ok(zarr_array_attributes_json(series, text), 'zarr_array_attributes_json')
    call check(index(text, '"units"') > 0, 'collective array attributes: ' // text)
    call ok(zarr_group_set_attributes_json_collective(comm, top, '{"steps": 6}'), &
            'zarr_group_set_attributes_json_collective')
    call expect(zarr_group_set_attributes_json_collective(comm, top, '[1]'), &
                ZARR_ERROR_INVALID_ARGUMENT, 'collective attributes that are not an object')
    call ok(zarr_group_consolidate_collective(comm, top), 'zarr_group_consolidate_collective')
    call ok(zarr_store_open_consolidated(st, view), 'zarr_store_open_consolidated')
    call ok(zarr_array_open(view, '/series', again), 'open /series through consolidation')
    call zarr_free(again)
    call zarr_free(view)
    call zarr_free(top)
    call ok(zarr_group_create_collective(comm, st, '/sub', top), &
            'zarr_group_create_collective without attributes')

    call zarr_free(top)
    call zarr_free(series)
    call zarr_free(f)
    call zarr_free(st)
    call zarr_free(comm)
    call check(.not. c_associated(comm%ptr) .and. freed == 1, &
               'zarr_free(comm) frees the communicator (and its user_data once)')
    call zarr_free(comm) ! not open: nothing happens
  end subroutine collectives_one_rank

  ! int4 through integer(c_int8_t) buffers (codes in the low bits, ml_dtypes' layout: -1 is
  ! 15), converted from and to int8 values with zarr_int8_to_sub_byte / zarr_sub_byte_to_int8;
  ! a byte with bits above the 4 refused; complex_float8_e4m3 as values(2, n) of bytes
  ! (real part, imaginary part) and complex_float32 as complex(c_float_complex).
  subroutine sub_byte_and_complex_checks()
    type(zarr_store) :: st
    type(zarr_array) :: q, c8, c32
    integer(c_int8_t) :: vals(4, 2), codes(4, 2), back(4, 2), ints(4, 2), fill, bad(2)
    integer(c_int8_t) :: pairs(2, 3), pairs2(2, 5), small(3), fill2(2)
    complex(c_float_complex) :: cz(3), cz2(3)
    integer(c_int32_t) :: code
    integer(c_size_t) :: esize
    integer :: n
    call ok(zarr_store_open_memory(st), 'zarr_store_open_memory for int4')
    ! Fortran q(4, 2): Zarr shape (2, 4); fill value -3 (code 13).
    call ok(zarr_array_create(st, '/q', [4, 2], [2, 2], ZARR_DATA_TYPE_INT4, q, &
                              fill_value='-3'), 'zarr_array_create int4')
    call ok(zarr_array_data_type(q, code), 'zarr_array_data_type int4')
    call check(code == ZARR_DATA_TYPE_INT4 .and. zarr_data_type_name(code) == 'int4', &
               'int4 data type code and name')
    call ok(zarr_array_element_size(q, esize), 'zarr_array_element_size int4')
    call check(esize == 1, 'int4 element size 1')
    call ok(zarr_array_fill_value(q, fill), 'zarr_array_fill_value int4')
    call check(fill == 13_c_int8_t, 'int4 fill value -3 is the code 13')
    vals = reshape(int([-8, -7, -2, -1, 0, 1, 6, 7], c_int8_t), [4, 2])
    codes = -1
    call ok(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, vals, codes), 'zarr_int8_to_sub_byte')
    call check(all(codes == reshape(int([8, 9, 14, 15, 0, 1, 6, 7], c_int8_t), [4, 2])), &
               'int4 codes of -8 -7 -2 -1 0 1 6 7')
    call ok(zarr_write(q, codes(:, 1:1), count=[4, 1]), 'zarr_write int4 first row')
    back = -1
    call ok(zarr_read(q, back), 'zarr_read int4')
    call check(all(back(:, 1) == codes(:, 1)) .and. all(back(:, 2) == 13_c_int8_t), &
               'int4 read back: the row written, then the fill value''s code')
    call ok(zarr_write(q, codes), 'zarr_write int4 whole')
    back = -1
    call ok(zarr_read(q, back), 'zarr_read int4 whole')
    call check(all(back == codes), 'int4 round trip of the codes')
    ints = 0
    call ok(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, back, ints), 'zarr_sub_byte_to_int8')
    call check(all(ints == vals), 'int4 codes back to int8 values')
    ! Errors: a value out of range, another data type, mismatched sizes, a byte with bits
    ! above the type's width; nothing is written.
    codes = 0
    call expect(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, &
                                      reshape(int([0, 7, 8, 0, 0, 0, 0, 0], c_int8_t), [4, 2]), &
                                      codes), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_int8_to_sub_byte 8 into int4')
    call check(index(zarr_last_error_message(), 'values[2]') > 0 .and. all(codes == 0), &
               'the message names index 2 and codes is unchanged: ' // zarr_last_error_message())
    call expect(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_FLOAT32, codes, ints), &
                ZARR_ERROR_INVALID_ARGUMENT, 'zarr_sub_byte_to_int8 of float32')
    call expect(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, codes, small), &
                ZARR_ERROR_BUFFER_SIZE_MISMATCH, 'zarr_sub_byte_to_int8 8 codes into 3 values')
    call check(index(zarr_last_error_message(), 'zarr_sub_byte_to_int8') > 0, &
               'the message names zarr_sub_byte_to_int8: ' // zarr_last_error_message())
    bad = int([1, 31], c_int8_t)
    call expect(zarr_write(q, bad, count=[2, 1]), ZARR_ERROR_INVALID_ARGUMENT, &
                'zarr_write of an int4 byte 0x1f')
    call check(index(zarr_last_error_message(), '0x1f') > 0, &
               'the message shows the byte: ' // zarr_last_error_message())
    back = -1
    call ok(zarr_read(q, back), 'zarr_read int4 after the refused write')
    call check(all(back == reshape(int([8, 9, 14, 15, 0, 1, 6, 7], c_int8_t), [4, 2])), &
               'a refused write leaves the int4 array unchanged')
    ! A buffer of another Fortran type is refused.
    call expect(zarr_read(q, cz), ZARR_ERROR_INVALID_ARGUMENT, 'complex buffer for int4')

    ! complex_float8_e4m3: Fortran pairs(2, n), count [n]; fill [1.0, -2.0] is the bits
    ! 0x38 (1.0) and 0xc0 (-2.0).
    call ok(zarr_array_create(st, '/c8', [5], [2], ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3, c8, &
                              fill_value='[1.0, -2.0]'), 'zarr_array_create complex_float8_e4m3')
    call ok(zarr_array_element_size(c8, esize), 'zarr_array_element_size complex_float8')
    call check(esize == 2, 'complex_float8_e4m3 element size 2')
    fill2 = 0
    call ok(zarr_array_fill_value(c8, fill2), 'zarr_array_fill_value complex_float8_e4m3')
    call check(all(fill2 == int([56, -64], c_int8_t)), 'complex_float8_e4m3 fill value bits')
    call expect(zarr_array_fill_value(c8, fill), ZARR_ERROR_BUFFER_TOO_SMALL, &
                'zarr_array_fill_value of a 2-byte element into one byte')
    pairs = reshape(int([64, 0, 127, -2, -128, 1], c_int8_t), [2, 3])
    call ok(zarr_write(c8, pairs, start=[2], count=[3]), 'zarr_write complex_float8_e4m3')
    pairs2 = 0
    call ok(zarr_read(c8, pairs2, count=[5]), 'zarr_read complex_float8_e4m3')
    call check(all(pairs2(:, 2:4) == pairs) .and. all(pairs2(:, 1) == int([56, -64], c_int8_t)) &
               .and. all(pairs2(:, 5) == int([56, -64], c_int8_t)), &
               'complex_float8_e4m3: the pairs written, and the fill value at both ends')
    n = 0
    do code = ZARR_DATA_TYPE_INT2, ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU
      if (len(zarr_data_type_name(code)) > 0) n = n + 1
    end do
    call check(n == 21, 'zarr_data_type_name names codes 33 to 53')

    ! complex_float32 as complex(c_float_complex).
    call ok(zarr_array_create(st, '/c32', [3], [2], ZARR_DATA_TYPE_COMPLEX_FLOAT32, c32), &
            'zarr_array_create complex_float32')
    cz = [(cmplx(1.5 * n, -0.25 * n, c_float_complex), n = 1, 3)]
    call ok(zarr_write(c32, cz), 'zarr_write complex_float32')
    cz2 = 0
    call ok(zarr_read(c32, cz2), 'zarr_read complex_float32')
    call check(all(cz2 == cz), 'complex_float32 round trip')
    call zarr_free(q)
    call zarr_free(c8)
    call zarr_free(c32)
    call zarr_free(st)
  end subroutine sub_byte_and_complex_checks

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      print '(a, a)', 'FAIL: ', what
    end if
  end subroutine check

  subroutine ok(st, what)
    integer(c_int32_t), intent(in) :: st
    character(len=*), intent(in) :: what
    call expect(st, ZARR_OK, what)
  end subroutine ok

  subroutine expect(st, expected, what)
    integer(c_int32_t), intent(in) :: st, expected
    character(len=*), intent(in) :: what
    if (st /= expected) then
      failures = failures + 1
      print '(a, a, a, i0, a, a, a, i0, a, a, a)', 'FAIL: ', what, ': status ', st, ' (', &
        zarr_status_str(st), '), expected ', expected, ' (', zarr_status_str(expected), ')'
      print '(a, a)', '      last error: ', zarr_last_error_message()
    end if
  end subroutine expect

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
end program test_zarr_fortran
