! quickstart.f90: open a dataset, list it, read a variable, write a new one.
program quickstart
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t
  use zarr
  implicit none
  type(zarr_store) :: store
  type(zarr_group) :: root
  type(zarr_array) :: tas, celsius
  character(len=:), allocatable :: json
  character(len=256) :: path
  integer(c_int64_t), allocatable :: n(:)
  real, allocatable :: t(:, :, :)

  path = "climate.zarr"
  if (command_argument_count() > 0) call get_command_argument(1, path)

  ! Open the dataset and list what is in it.
  call check(zarr_store_open_filesystem(trim(path), store))
  call check(zarr_group_open(store, "/", root))
  call check(zarr_group_children_json(root, json))
  print '(2a)', "variables: ", json

  ! Read tas(time, lat, lon): in Fortran order it is t(lon, lat, time), no copy, no transpose.
  call check(zarr_array_open(store, "/tas", tas))
  call check(zarr_array_shape(tas, n))
  allocate(t(n(1), n(2), n(3)))
  call check(zarr_read(tas, t))
  call check(zarr_array_attributes_json(tas, json))
  print '(a, 3i4, 2a)', "tas:", n, ", attributes ", json
  print '(a, f8.2, a)', "tas(1, 1, 1) = ", t(1, 1, 1), " K"

  ! Write a new variable beside it: tas in degrees Celsius, same shape and dimensions.
  call check(zarr_array_create(store, "/tas_celsius_f90", shape(t), shape(t), &
                               ZARR_DATA_TYPE_FLOAT32, celsius, codec="zstd", fill_value="NaN", &
                               dimension_names=["lon ", "lat ", "time"], &
                               attributes_json='{"units": "degC"}'))
  call check(zarr_write(celsius, t - 273.15))
  print '(a)', "wrote /tas_celsius_f90"
  call zarr_free(celsius)
  call zarr_free(tas)
  call zarr_free(root)
  call zarr_free(store)

contains

  subroutine check(status)
    integer(c_int32_t), intent(in) :: status
    if (status /= ZARR_OK) then
      print '(3a)', zarr_status_str(status), ": ", zarr_last_error_message()
      error stop 1
    end if
  end subroutine check

end program quickstart
