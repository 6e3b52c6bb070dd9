! The Fortran binding reading a whole array into a Fortran array, three ways, one per
! process (bench/fortran/run.sh runs them alternately and prints medians and ratios):
!
!   write     create the store: float32 1024 x 1024 x 256 (1 GiB), 64^3 chunks, zstd 1
!   reversed  zarr_read into t(256, 1024, 1024): the Fortran array with its dimensions in
!             reverse order, which holds the C-order bytes as they are (no copy)
!   strided   zarr_array_read_strided into a(1024, 1024, 256), a(i,j,k) = z[i-1,j-1,k-1]:
!             the same index order as Zarr, decoded straight into column-major memory
!   copy      what a dense, C-order-only API forces for that same a(1024, 1024, 256): read
!             into a temporary, then transpose it (twice the memory, an extra pass)
!
! Each mode prints one line: mode, seconds of the read alone, peak resident MiB of the
! process (VmHWM), and a checksum of a(:,:,:) in Zarr index order, which must agree.
program bench_fortran
  use, intrinsic :: iso_c_binding
  use zarr
  implicit none
  integer, parameter :: n0 = 1024, n1 = 1024, n2 = 256
  character(len=4096) :: path, mode
  type(zarr_store) :: store
  type(zarr_array) :: arr
  integer(c_int32_t) :: status
  integer(c_int64_t) :: t0, t1, rate
  real(c_float), allocatable, target :: a(:, :, :), t(:, :, :)
  integer(c_int64_t) :: start(3), count(3), strides(3)
  real(c_double) :: sum
  integer :: i, j, k

  call get_command_argument(1, mode)
  call get_command_argument(2, path)
  if (len_trim(path) == 0) stop "usage: bench_fortran write|reversed|strided|copy STORE"
  call check(zarr_store_open_filesystem(trim(path), store))

  if (mode == "write") then
    call check(c_zarr_array_create(store%ptr, "/a" // c_null_char, &
      '{"zarr_format": 3, "node_type": "array", "shape": [1024, 1024, 256],' // &
      ' "data_type": "float32", "fill_value": 0, "chunk_grid": {"name": "regular",' // &
      ' "configuration": {"chunk_shape": [64, 64, 64]}}, "chunk_key_encoding":' // &
      ' {"name": "default"}, "codecs": [{"name": "bytes", "configuration":' // &
      ' {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1,' // &
      ' "checksum": false}}]}' // c_null_char, arr%ptr))
    allocate (t(n2, n1, n0))
    do i = 1, n0
      do j = 1, n1
        do k = 1, n2
          t(k, j, i) = value_at(i, j, k)
        end do
      end do
    end do
    call check(zarr_write(arr, t))
    call zarr_free(arr)
    call zarr_free(store)
    print '(a)', "written"
    stop
  end if

  call check(zarr_array_open(store, "/a", arr))
  start = 0
  count = [int(n0, c_int64_t), int(n1, c_int64_t), int(n2, c_int64_t)]
  call system_clock(t0, rate)
  select case (trim(mode))
  case ("reversed")
    allocate (t(n2, n1, n0))
    call check(zarr_read(arr, t))
  case ("strided")
    allocate (a(n0, n1, n2))
    strides = [4_c_int64_t, 4_c_int64_t * n0, 4_c_int64_t * n0 * n1]
    call check(c_zarr_array_read_strided(arr%ptr, 3_c_size_t, start, count, strides, &
                                         c_loc(a), int(storage_size(a) / 8, c_size_t) * size(a, kind=c_size_t)))
  case ("copy")
    allocate (t(n2, n1, n0))
    call check(zarr_read(arr, t))
    allocate (a(n0, n1, n2))
    a = reshape(t, [n0, n1, n2], order=[3, 2, 1])
    deallocate (t)
  case default
    stop "mode: write, reversed, strided or copy"
  end select
  call system_clock(t1)

  ! Checksum in Zarr index order, weighted so that a transposition would show.
  sum = 0
  if (allocated(a)) then
    do k = 1, n2, 37
      do j = 1, n1, 13
        do i = 1, n0, 7
          sum = sum + a(i, j, k) * mod(i + 3 * j + 7 * k, 11)
        end do
      end do
    end do
  else
    do k = 1, n2, 37
      do j = 1, n1, 13
        do i = 1, n0, 7
          sum = sum + t(k, j, i) * mod(i + 3 * j + 7 * k, 11)
        end do
      end do
    end do
  end if
  print '(a10, f10.4, f10.1, es24.15)', trim(mode), real(t1 - t0, c_double) / rate, &
    peak_mib(), sum
  call zarr_free(arr)
  call zarr_free(store)

contains

  pure real(c_float) function value_at(i, j, k)
    integer, intent(in) :: i, j, k
    value_at = real(mod(i * 7 + j * 3 + k, 1000), c_float) / 8.0
  end function value_at

  subroutine check(s)
    integer(c_int32_t), intent(in) :: s
    if (s /= ZARR_OK) then
      print '(3a)', zarr_status_str(s), ": ", zarr_last_error_message()
      error stop 1
    end if
  end subroutine check

  ! The process's peak resident set (VmHWM in /proc/self/status), in MiB.
  real(c_double) function peak_mib()
    character(len=256) :: line
    integer :: u, ios, kib
    peak_mib = -1
    open (newunit=u, file="/proc/self/status", action="read", iostat=ios)
    if (ios /= 0) return
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (line(1:6) == "VmHWM:") then
        read (line(7:), *) kib
        peak_mib = kib / 1024.0_c_double
      end if
    end do
    close (u)
  end function peak_mib

end program bench_fortran
