! quickstart.f90: open a dataset, list it, read a variable as numbers, write a new one.
program quickstart
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use zarr
  implicit none
  type(zarr_store) :: store
  type(zarr_group) :: root
  type(zarr_array) :: tas, celsius
  character(len=:), allocatable :: json
  character(len=256) :: path
  integer(c_int64_t), allocatable :: n(:)
  integer(c_int32_t) :: data_type, status
  integer :: format
  real(c_double), allocatable :: t(:, :, :)
  real(c_double) :: scale, offset, fill, missing, nan

  nan = ieee_value(nan, ieee_quiet_nan)
  path = "climate.zarr"
  if (command_argument_count() > 0) call get_command_argument(1, path)

  ! Open the dataset and list what is in it.
  call check(zarr_store_open_filesystem(trim(path), store))
  call check(zarr_group_open(store, "/", root))
  call check(zarr_group_children_json(root, json))
  print '(2a)', "variables: ", json

  ! tas(time, lat, lon): in Fortran order it is t(lon, lat, time), no copy, no transpose.
  call check(zarr_array_open(store, "/tas", tas))
  call check(zarr_array_data_type(tas, data_type))
  call check(zarr_array_shape(tas, n))
  print '(3a, 3i4)', "tas: ", zarr_data_type_name(data_type), ",", n

  ! Read it whole as doubles, whatever its data type (int16 when packed, real...).
  allocate(t(n(1), n(2), n(3)))
  call check(zarr_read_double(tas, t))

  ! Unpack it as CF says: raw * scale_factor + add_offset; _FillValue or missing_value
  ! marks a missing value. Xarray keeps _FillValue as an attribute in Zarr v3, as the
  ! array's fill value in Zarr v2.
  scale = attribute("scale_factor", 1d0)
  offset = attribute("add_offset", 0d0)
  missing = attribute("missing_value", nan)
  fill = attribute("_FillValue", nan)
  call check(zarr_array_format(tas, format))
  if (format == 2) status = zarr_array_fill_value_double(tas, fill) ! unchanged if none
  where (t == fill .or. t == missing)
    t = nan
  elsewhere
    t = t * scale + offset
  end where
  print '(a, 3f8.2, a)', "tas(1:3, 1, 1) = ", t(1:3, 1, 1), " K"

  ! Write tas in degrees Celsius beside it, as real, replacing an earlier run's.
  status = zarr_store_delete_node(store, "/tas_celsius_f90")
  if (status /= ZARR_ERROR_NOT_FOUND) call check(status)
  call check(zarr_array_create(store, "/tas_celsius_f90", shape(t), shape(t), &
                               ZARR_DATA_TYPE_FLOAT32, celsius, codec="zstd", fill_value="NaN", &
                               dimension_names=["lon ", "lat ", "time"], &
                               attributes_json='{"units": "degC"}'))
  call check(zarr_write(celsius, real(t - 273.15d0)))
  print '(a)', "wrote /tas_celsius_f90"
  call zarr_free(celsius)
  call zarr_free(tas)
  call zarr_free(root)
  call zarr_free(store)

contains

  ! The number attribute `key` of tas, or `otherwise` if there is none (see quickstart.c).
  function attribute(key, otherwise) result(value)
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: otherwise
    real(c_double) :: value
    if (zarr_get_att(tas, key, value) /= ZARR_OK) value = otherwise
  end function attribute

  subroutine check(status)
    integer(c_int32_t), intent(in) :: status
    if (status /= ZARR_OK) then
      print '(3a)', zarr_status_str(status), ": ", zarr_last_error_message()
      error stop 1
    end if
  end subroutine check

end program quickstart
