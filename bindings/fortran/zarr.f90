! zarr.f90 -- the Fortran module `zarr`: libzarr (a Zarr v3 storage library) for Fortran.
!
! Build: compile this file with any Fortran 2018 compiler (gfortran >= 10 is tested) and link
! libzarr, e.g.  gfortran -c zarr.f90 && gfortran prog.f90 zarr.o -L<dir> -lzarr
! With CMake, link the target zarr::fortran (bindings/fortran/CMakeLists.txt).
!
! Two layers:
!
! - The raw layer: `c_zarr_<name>` are bind(C) interfaces to every function of zarr.h, with
!   the C types (type(c_ptr) handles, NUL-terminated strings, 0-based C-order indices).
! - The Fortran layer, described below, which is what most programs use.
!
! Conventions of the Fortran layer (modelled on netCDF-Fortran's nf90_* functions):
!
! - Status. Every fallible procedure is a FUNCTION returning an integer(c_int32_t) status:
!   ZARR_OK (0) or a negative ZARR_ERROR_* value, the same values as zarr.h. Typical use:
!       status = zarr_array_open(store, "/temperature", array)
!       if (status /= ZARR_OK) print *, zarr_status_str(status), ": ", zarr_last_error_message()
!   zarr_last_error_message() explains the most recent failure: the library's message, or the
!   message of a check made in this module (a Fortran buffer of the wrong type, a start below
!   1); either names the failing procedure. Outputs are written only on success, except
!   that a read failing on a corrupt or unreadable chunk may already have filled the parts
!   of the buffer that belong to other chunks (see zarr_array_read in zarr.h).
! - Handles. type(zarr_store), type(zarr_group), type(zarr_array) wrap a type(c_ptr) (component
!   `ptr`, NULL when not open). Free them with zarr_store_free / zarr_group_free /
!   zarr_array_free or the generic zarr_free (safe on a handle that is not open; the handle is
!   reset to NULL). A child keeps its parents alive, so handles may be freed in any order.
!   Open and create calls overwrite their handle argument: free an open handle before
!   reusing the variable, or the old handle leaks.
!   There are no final procedures on purpose: handles are plain values, and an intrinsic
!   assignment `b = a` copies the pointer, so finalizing both copies would free it twice.
! - Strings in are ordinary Fortran strings (trailing blanks are trimmed, the NUL is added
!   here). Strings out (JSON text) are `character(len=:), allocatable`; the C string is freed.
! - DIMENSION ORDER. Fortran arrays are column-major, Zarr (C) arrays row-major. A Fortran
!   array a(nx, ny) is stored as the Zarr array of shape (ny, nx), so that its memory layout is
!   unchanged and no transposition ever happens: Fortran's a(i, j) is zarr-python's
!   z[j-1, i-1]. Every shape, start, count, chunk shape and chunk index in this layer is in
!   Fortran order and every start and chunk index is 1-based; the module reverses them and
!   subtracts 1 for C. zarr_array_shape returns (nx, ny) for a Zarr array of shape (ny, nx).
!   dimension_names are given in Fortran order too.
! - Data. zarr_read / zarr_write (and zarr_read_chunk, zarr_write_chunk,
!   zarr_read_inner_chunk) are generic over arrays (and scalars) of any rank of
!     integer(c_int8_t)   int8, uint8, r<N> raw bytes     real(c_float)     float32
!     integer(c_int16_t)  int16, uint16, float16 (bits)   real(c_double)    float64
!     integer(c_int32_t)  int32, uint32                   complex(c_float_complex)   complex64
!     integer(c_int64_t)  int64, uint64                   complex(c_double_complex)  complex128
!     logical(c_bool)     bool
!   The Fortran type must match the array's data type as listed (unsigned types are read and
!   written as the signed integer of the same size, bit for bit), otherwise the call returns
!   ZARR_ERROR_INVALID_ARGUMENT. As in nf90_get_var / nf90_put_var, `start` (default: all 1)
!   and `count` (default: shape(values)) are optional; give `count` when the rank of `values`
!   differs from the array's, e.g. a 2-D slab of a 3-D array with count = [nx, ny, 1].
!   start and count are default integers; byte lengths are computed here from the buffer.
!   Non-contiguous actual arguments (array sections with strides) work: the compiler passes
!   a contiguous copy.
! - zarr_array_create is generic: with a metadata JSON document (as in C), or from a Fortran
!   shape, chunk shape (Fortran order), data type and optional codec ("none", "zstd", "gzip"),
!   compression level, fill value, dimension names and attributes, building the v3 metadata.
! - Threads: as the C library. The message of a check made by this module is kept per
!   thread when compiled with OpenMP (threadprivate), otherwise in one module variable.
module zarr
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
  implicit none
  private

  ! ---------------------------------------------------------------------------------------
  ! Constants (the values of zarr.h)
  ! ---------------------------------------------------------------------------------------
  integer(c_int32_t), parameter, public :: ZARR_OK = 0
  integer(c_int32_t), parameter, public :: ZARR_ERROR_NULL_ARGUMENT = -1
  integer(c_int32_t), parameter, public :: ZARR_ERROR_INVALID_ARGUMENT = -2
  integer(c_int32_t), parameter, public :: ZARR_ERROR_BUFFER_TOO_SMALL = -3
  integer(c_int32_t), parameter, public :: ZARR_ERROR_BUFFER_SIZE_MISMATCH = -4
  integer(c_int32_t), parameter, public :: ZARR_ERROR_OUT_OF_BOUNDS = -5
  integer(c_int32_t), parameter, public :: ZARR_ERROR_NOT_FOUND = -6
  integer(c_int32_t), parameter, public :: ZARR_ERROR_ALREADY_EXISTS = -7
  integer(c_int32_t), parameter, public :: ZARR_ERROR_NODE_TYPE_MISMATCH = -8
  integer(c_int32_t), parameter, public :: ZARR_ERROR_INVALID_METADATA = -9
  integer(c_int32_t), parameter, public :: ZARR_ERROR_UNSUPPORTED = -10
  integer(c_int32_t), parameter, public :: ZARR_ERROR_CORRUPT_DATA = -11
  integer(c_int32_t), parameter, public :: ZARR_ERROR_IO = -12
  integer(c_int32_t), parameter, public :: ZARR_ERROR_INVALID_PATH = -13
  integer(c_int32_t), parameter, public :: ZARR_ERROR_OUT_OF_MEMORY = -14
  integer(c_int32_t), parameter, public :: ZARR_ERROR_READ_ONLY = -15
  integer(c_int32_t), parameter, public :: ZARR_ERROR_NETWORK = -20
  integer(c_int32_t), parameter, public :: ZARR_ERROR_ACCESS_DENIED = -21
  integer(c_int32_t), parameter, public :: ZARR_ERROR_TIMEOUT = -22
  integer(c_int32_t), parameter, public :: ZARR_ERROR_REMOTE = -23
  integer(c_int32_t), parameter, public :: ZARR_ERROR_PANIC = -99

  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_BOOL = 1
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_INT8 = 2
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_INT16 = 3
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_INT32 = 4
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_INT64 = 5
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_UINT8 = 6
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_UINT16 = 7
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_UINT32 = 8
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_UINT64 = 9
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT16 = 10
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT32 = 11
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT64 = 12
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX64 = 13
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX128 = 14
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_RAW = 15

  ! ---------------------------------------------------------------------------------------
  ! Handles
  ! ---------------------------------------------------------------------------------------
  type, public :: zarr_store
    type(c_ptr) :: ptr = c_null_ptr
  end type zarr_store

  type, public :: zarr_group
    type(c_ptr) :: ptr = c_null_ptr
  end type zarr_group

  type, public :: zarr_array
    type(c_ptr) :: ptr = c_null_ptr
  end type zarr_array

  ! ---------------------------------------------------------------------------------------
  ! The raw layer: every function of zarr.h, C types and C (0-based, row-major) indices.
  ! ---------------------------------------------------------------------------------------
  public :: c_zarr_array_create, c_zarr_array_open, c_zarr_array_free, c_zarr_array_ndim
  public :: c_zarr_array_shape, c_zarr_array_chunk_shape, c_zarr_array_data_type
  public :: c_zarr_array_element_size, c_zarr_array_chunk_nbytes
  public :: c_zarr_array_selection_nbytes, c_zarr_array_read, c_zarr_array_write
  public :: c_zarr_array_read_chunk, c_zarr_array_write_chunk, c_zarr_array_metadata_json
  public :: c_zarr_array_attributes_json, c_zarr_array_set_attributes_json
  public :: c_zarr_array_inner_chunk_shape, c_zarr_array_read_inner_chunk
  public :: c_zarr_last_error_message, c_zarr_status_str
  public :: c_zarr_group_create, c_zarr_group_open, c_zarr_group_free
  public :: c_zarr_group_attributes_json, c_zarr_group_set_attributes_json
  public :: c_zarr_group_children_json
  public :: c_zarr_store_open_filesystem, c_zarr_store_open_memory, c_zarr_store_free
  public :: c_zarr_string_free, c_zarr_set_num_threads, c_zarr_num_threads
  public :: c_zarr_version_string, c_zarr_version_number
  public :: c_zarr_store_open_zip, c_zarr_store_open_consolidated, c_zarr_group_create_v2
  public :: c_zarr_store_open_url
  public :: c_zarr_group_descendants_json, c_zarr_group_consolidate
  public :: c_zarr_group_zarr_format, c_zarr_array_zarr_format

  interface
    function c_zarr_store_open_zip(path, out) result(status) bind(C, name="zarr_store_open_zip")
      import :: c_ptr, c_char, c_int32_t
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_store_open_zip

    ! options_json is passed by value as a pointer so that it can be C_NULL_PTR.
    function c_zarr_store_open_url(url, options_json, out) result(status) &
        bind(C, name="zarr_store_open_url")
      import :: c_ptr, c_char, c_int32_t
      character(kind=c_char), intent(in) :: url(*)
      type(c_ptr), value :: options_json
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_store_open_url

    function c_zarr_store_open_consolidated(store, out) result(status) &
        bind(C, name="zarr_store_open_consolidated")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: store
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_store_open_consolidated

    function c_zarr_group_create_v2(store, path, attributes_json, out) result(status) &
        bind(C, name="zarr_group_create_v2")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*), attributes_json(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_group_create_v2

    function c_zarr_group_descendants_json(group, json_out) result(status) &
        bind(C, name="zarr_group_descendants_json")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: group
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_group_descendants_json

    function c_zarr_group_consolidate(group) result(status) bind(C, name="zarr_group_consolidate")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: group
      integer(c_int32_t) :: status
    end function c_zarr_group_consolidate

    function c_zarr_group_zarr_format(group, format_out) result(status) &
        bind(C, name="zarr_group_zarr_format")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: group
      integer(c_int32_t), intent(out) :: format_out
      integer(c_int32_t) :: status
    end function c_zarr_group_zarr_format

    function c_zarr_array_zarr_format(array, format_out) result(status) &
        bind(C, name="zarr_array_zarr_format")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: array
      integer(c_int32_t), intent(out) :: format_out
      integer(c_int32_t) :: status
    end function c_zarr_array_zarr_format

    function c_zarr_array_create(store, path, metadata_json, out) result(status) &
        bind(C, name="zarr_array_create")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*), metadata_json(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_array_create

    function c_zarr_array_open(store, path, out) result(status) bind(C, name="zarr_array_open")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_array_open

    subroutine c_zarr_array_free(array) bind(C, name="zarr_array_free")
      import :: c_ptr
      type(c_ptr), value :: array
    end subroutine c_zarr_array_free

    function c_zarr_array_ndim(array, ndim_out) result(status) bind(C, name="zarr_array_ndim")
      import :: c_ptr, c_size_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: ndim_out
      integer(c_int32_t) :: status
    end function c_zarr_array_ndim

    function c_zarr_array_shape(array, ndim, shape_out) result(status) &
        bind(C, name="zarr_array_shape")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(inout) :: shape_out(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_shape

    function c_zarr_array_chunk_shape(array, ndim, chunk_shape_out) result(status) &
        bind(C, name="zarr_array_chunk_shape")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(inout) :: chunk_shape_out(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_chunk_shape

    function c_zarr_array_data_type(array, data_type_out) result(status) &
        bind(C, name="zarr_array_data_type")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: array
      integer(c_int32_t), intent(out) :: data_type_out
      integer(c_int32_t) :: status
    end function c_zarr_array_data_type

    function c_zarr_array_element_size(array, size_out) result(status) &
        bind(C, name="zarr_array_element_size")
      import :: c_ptr, c_size_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: size_out
      integer(c_int32_t) :: status
    end function c_zarr_array_element_size

    function c_zarr_array_chunk_nbytes(array, nbytes_out) result(status) &
        bind(C, name="zarr_array_chunk_nbytes")
      import :: c_ptr, c_size_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: nbytes_out
      integer(c_int32_t) :: status
    end function c_zarr_array_chunk_nbytes

    function c_zarr_array_selection_nbytes(array, ndim, start, count, nbytes_out) &
        result(status) bind(C, name="zarr_array_selection_nbytes")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      integer(c_size_t), intent(out) :: nbytes_out
      integer(c_int32_t) :: status
    end function c_zarr_array_selection_nbytes

    function c_zarr_array_read(array, ndim, start, count, buf, buf_len) result(status) &
        bind(C, name="zarr_array_read")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_read

    function c_zarr_array_write(array, ndim, start, count, buf, buf_len) result(status) &
        bind(C, name="zarr_array_write")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_write

    function c_zarr_array_read_chunk(array, ndim, chunk_indices, buf, buf_len) &
        result(status) bind(C, name="zarr_array_read_chunk")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: chunk_indices(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_read_chunk

    function c_zarr_array_write_chunk(array, ndim, chunk_indices, buf, buf_len) &
        result(status) bind(C, name="zarr_array_write_chunk")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: chunk_indices(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_write_chunk

    function c_zarr_array_metadata_json(array, json_out) result(status) &
        bind(C, name="zarr_array_metadata_json")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_array_metadata_json

    function c_zarr_array_attributes_json(array, json_out) result(status) &
        bind(C, name="zarr_array_attributes_json")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_array_attributes_json

    function c_zarr_array_set_attributes_json(array, attributes_json) result(status) &
        bind(C, name="zarr_array_set_attributes_json")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: attributes_json(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attributes_json

    function c_zarr_array_inner_chunk_shape(array, ndim, inner_chunk_shape_out) &
        result(status) bind(C, name="zarr_array_inner_chunk_shape")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(inout) :: inner_chunk_shape_out(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_inner_chunk_shape

    function c_zarr_array_read_inner_chunk(array, ndim, inner_chunk_indices, buf, buf_len) &
        result(status) bind(C, name="zarr_array_read_inner_chunk")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: inner_chunk_indices(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_read_inner_chunk

    function c_zarr_last_error_message() result(message) &
        bind(C, name="zarr_last_error_message")
      import :: c_ptr
      type(c_ptr) :: message
    end function c_zarr_last_error_message

    function c_zarr_status_str(status) result(text) bind(C, name="zarr_status_str")
      import :: c_ptr, c_int32_t
      integer(c_int32_t), value :: status
      type(c_ptr) :: text
    end function c_zarr_status_str

    ! `attributes_json` may be absent (C NULL: no attributes).
    function c_zarr_group_create(store, path, attributes_json, out) result(status) &
        bind(C, name="zarr_group_create")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(in), optional :: attributes_json(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_group_create

    function c_zarr_group_open(store, path, out) result(status) bind(C, name="zarr_group_open")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_group_open

    subroutine c_zarr_group_free(group) bind(C, name="zarr_group_free")
      import :: c_ptr
      type(c_ptr), value :: group
    end subroutine c_zarr_group_free

    function c_zarr_group_attributes_json(group, json_out) result(status) &
        bind(C, name="zarr_group_attributes_json")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: group
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_group_attributes_json

    function c_zarr_group_set_attributes_json(group, attributes_json) result(status) &
        bind(C, name="zarr_group_set_attributes_json")
      import :: c_ptr, c_char, c_int32_t
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: attributes_json(*)
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attributes_json

    function c_zarr_group_children_json(group, json_out) result(status) &
        bind(C, name="zarr_group_children_json")
      import :: c_ptr, c_int32_t
      type(c_ptr), value :: group
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_group_children_json

    function c_zarr_store_open_filesystem(path, out) result(status) &
        bind(C, name="zarr_store_open_filesystem")
      import :: c_ptr, c_char, c_int32_t
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_store_open_filesystem

    function c_zarr_store_open_memory(out) result(status) bind(C, name="zarr_store_open_memory")
      import :: c_ptr, c_int32_t
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_store_open_memory

    subroutine c_zarr_store_free(store) bind(C, name="zarr_store_free")
      import :: c_ptr
      type(c_ptr), value :: store
    end subroutine c_zarr_store_free

    subroutine c_zarr_string_free(s) bind(C, name="zarr_string_free")
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine c_zarr_string_free

    function c_zarr_set_num_threads(num_threads) result(status) &
        bind(C, name="zarr_set_num_threads")
      import :: c_size_t, c_int32_t
      integer(c_size_t), value :: num_threads
      integer(c_int32_t) :: status
    end function c_zarr_set_num_threads

    function c_zarr_num_threads(num_threads_out) result(status) bind(C, name="zarr_num_threads")
      import :: c_size_t, c_int32_t
      integer(c_size_t), intent(out) :: num_threads_out
      integer(c_int32_t) :: status
    end function c_zarr_num_threads

    function c_zarr_version_string() result(version) bind(C, name="zarr_version_string")
      import :: c_ptr
      type(c_ptr) :: version
    end function c_zarr_version_string

    ! uint32_t in C; the value (MAJOR*10000 + MINOR*100 + PATCH) fits an int32.
    function c_zarr_version_number() result(version) bind(C, name="zarr_version_number")
      import :: c_int32_t
      integer(c_int32_t) :: version
    end function c_zarr_version_number

    function c_strlen(s) result(n) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
  end interface

  ! ---------------------------------------------------------------------------------------
  ! The Fortran layer
  ! ---------------------------------------------------------------------------------------
  public :: zarr_store_open_filesystem, zarr_store_open_memory, zarr_store_free
  public :: zarr_group_create, zarr_group_open, zarr_group_free
  public :: zarr_group_attributes_json, zarr_group_set_attributes_json
  public :: zarr_group_children_json
  public :: zarr_store_open_zip, zarr_store_open_consolidated, zarr_group_create_v2
  public :: zarr_store_open_url
  public :: zarr_group_descendants_json, zarr_group_consolidate, zarr_group_zarr_format
  public :: zarr_array_zarr_format
  public :: zarr_array_create, zarr_array_open, zarr_array_free
  public :: zarr_array_ndim, zarr_array_shape, zarr_array_chunk_shape
  public :: zarr_array_inner_chunk_shape, zarr_array_data_type, zarr_array_element_size
  public :: zarr_array_chunk_nbytes, zarr_array_selection_nbytes
  public :: zarr_array_metadata_json, zarr_array_attributes_json
  public :: zarr_array_set_attributes_json
  public :: zarr_read, zarr_write, zarr_read_chunk, zarr_write_chunk, zarr_read_inner_chunk
  public :: zarr_free, zarr_last_error_message, zarr_status_str
  public :: zarr_version_string, zarr_version_number, zarr_set_num_threads, zarr_num_threads
  public :: zarr_data_type_name

  !> zarr_array_create(store, path, metadata_json, array): from a v3 metadata document, or
  !> zarr_array_create(store, path, shape, chunk_shape, data_type, array [, codec, level,
  !>                   fill_value, dimension_names, attributes_json]): from Fortran values.
  interface zarr_array_create
    module procedure zarr_array_create_json, zarr_array_create_i4, zarr_array_create_i8
  end interface zarr_array_create

  !> Free any handle (the generic name of zarr_store_free, zarr_group_free, zarr_array_free).
  interface zarr_free
    module procedure zarr_store_free, zarr_group_free, zarr_array_free
  end interface zarr_free

  !> status = zarr_read(array, values [, start, count])
  interface zarr_read
    module procedure zarr_read_i1, zarr_read_i2, zarr_read_i4, zarr_read_i8, zarr_read_r4, &
      zarr_read_r8, zarr_read_c4, zarr_read_c8, zarr_read_l1
  end interface zarr_read

  !> status = zarr_write(array, values [, start, count])
  interface zarr_write
    module procedure zarr_write_i1, zarr_write_i2, zarr_write_i4, zarr_write_i8, &
      zarr_write_r4, zarr_write_r8, zarr_write_c4, zarr_write_c8, zarr_write_l1
  end interface zarr_write

  !> status = zarr_read_chunk(array, chunk_index, values)
  interface zarr_read_chunk
    module procedure zarr_read_chunk_i1, zarr_read_chunk_i2, zarr_read_chunk_i4, &
      zarr_read_chunk_i8, zarr_read_chunk_r4, zarr_read_chunk_r8, zarr_read_chunk_c4, &
      zarr_read_chunk_c8, zarr_read_chunk_l1
  end interface zarr_read_chunk

  !> status = zarr_write_chunk(array, chunk_index, values)
  interface zarr_write_chunk
    module procedure zarr_write_chunk_i1, zarr_write_chunk_i2, zarr_write_chunk_i4, &
      zarr_write_chunk_i8, zarr_write_chunk_r4, zarr_write_chunk_r8, zarr_write_chunk_c4, &
      zarr_write_chunk_c8, zarr_write_chunk_l1
  end interface zarr_write_chunk

  !> status = zarr_read_inner_chunk(array, inner_chunk_index, values)
  interface zarr_read_inner_chunk
    module procedure zarr_read_inner_chunk_i1, zarr_read_inner_chunk_i2, &
      zarr_read_inner_chunk_i4, zarr_read_inner_chunk_i8, zarr_read_inner_chunk_r4, &
      zarr_read_inner_chunk_r8, zarr_read_inner_chunk_c4, zarr_read_inner_chunk_c8, &
      zarr_read_inner_chunk_l1
  end interface zarr_read_inner_chunk

  ! Fortran element types of the generic data procedures.
  integer, parameter :: FK_I1 = 1, FK_I2 = 2, FK_I4 = 3, FK_I8 = 4, FK_R4 = 5, FK_R8 = 6, &
    FK_C4 = 7, FK_C8 = 8, FK_L1 = 9
  ! Operations.
  integer, parameter :: OP_READ = 1, OP_WRITE = 2, OP_READ_CHUNK = 3, OP_WRITE_CHUNK = 4, &
    OP_READ_INNER_CHUNK = 5

  ! The message of the most recent failure detected by this module rather than by libzarr
  ! (unallocated after a libzarr failure, whose message libzarr keeps).
  character(len=:), allocatable, save :: fortran_message
  !$omp threadprivate(fortran_message)

contains

  ! ---------------------------------------------------------------------------------------
  ! Helpers
  ! ---------------------------------------------------------------------------------------

  ! The NUL-terminated C form of a Fortran string, trailing blanks removed.
  pure function c_str(s) result(r)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: r
    r = trim(s) // c_null_char
  end function c_str

  ! A copy of the NUL-terminated C string `p` ('' for NULL).
  function copy_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function copy_c_string

  ! Copies a string returned by libzarr through `char **` into `s` and frees it.
  subroutine take_c_string(p, s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable, intent(inout) :: s
    s = copy_c_string(p)
    call c_zarr_string_free(p)
  end subroutine take_c_string

  ! Records a failure detected by this module; returns `status`.
  function fail(status, message) result(st)
    integer(c_int32_t), intent(in) :: status
    character(len=*), intent(in) :: message
    integer(c_int32_t) :: st
    fortran_message = message
    st = status
  end function fail

  ! Passes a libzarr status through; after a libzarr failure its message is the current one.
  function track(status) result(st)
    integer(c_int32_t), intent(in) :: status
    integer(c_int32_t) :: st
    if (status /= ZARR_OK .and. allocated(fortran_message)) deallocate (fortran_message)
    st = status
  end function track

  pure function itoa(i) result(s)
    integer(c_int64_t), intent(in) :: i
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function itoa

  ! A JSON list of integers, e.g. "[3, 5]".
  pure function json_int_list(values) result(s)
    integer(c_int64_t), intent(in) :: values(:)
    character(len=:), allocatable :: s
    integer :: k
    s = '['
    do k = 1, size(values)
      if (k > 1) s = s // ', '
      s = s // itoa(values(k))
    end do
    s = s // ']'
  end function json_int_list

  ! A JSON string literal holding `text` (trailing blanks removed).
  pure function json_quote(text) result(s)
    character(len=*), intent(in) :: text
    character(len=:), allocatable :: s
    integer :: k
    character :: ch
    s = '"'
    do k = 1, len_trim(text)
      ch = text(k:k)
      select case (ch)
      case ('"', '\')
        s = s // '\' // ch
      case (achar(0):achar(31))
        s = s // '\u00' // hexdigit(iachar(ch) / 16) // hexdigit(mod(iachar(ch), 16))
      case default
        s = s // ch
      end select
    end do
    s = s // '"'
  contains
    pure function hexdigit(d) result(h)
      integer, intent(in) :: d
      character :: h
      h = '0123456789abcdef'(d + 1:d + 1)
    end function hexdigit
  end function json_quote

  pure function lower(s) result(r)
    character(len=*), intent(in) :: s
    character(len=len(s)) :: r
    integer :: k
    r = s
    do k = 1, len(s)
      if (r(k:k) >= 'A' .and. r(k:k) <= 'Z') r(k:k) = achar(iachar(r(k:k)) + 32)
    end do
  end function lower

  !> The Zarr name of a ZARR_DATA_TYPE_* code ("float32", ...; "r<N>" for raw; "" if unknown).
  pure function zarr_data_type_name(data_type) result(name)
    integer(c_int32_t), intent(in) :: data_type
    character(len=:), allocatable :: name
    select case (data_type)
    case (ZARR_DATA_TYPE_BOOL); name = 'bool'
    case (ZARR_DATA_TYPE_INT8); name = 'int8'
    case (ZARR_DATA_TYPE_INT16); name = 'int16'
    case (ZARR_DATA_TYPE_INT32); name = 'int32'
    case (ZARR_DATA_TYPE_INT64); name = 'int64'
    case (ZARR_DATA_TYPE_UINT8); name = 'uint8'
    case (ZARR_DATA_TYPE_UINT16); name = 'uint16'
    case (ZARR_DATA_TYPE_UINT32); name = 'uint32'
    case (ZARR_DATA_TYPE_UINT64); name = 'uint64'
    case (ZARR_DATA_TYPE_FLOAT16); name = 'float16'
    case (ZARR_DATA_TYPE_FLOAT32); name = 'float32'
    case (ZARR_DATA_TYPE_FLOAT64); name = 'float64'
    case (ZARR_DATA_TYPE_COMPLEX64); name = 'complex64'
    case (ZARR_DATA_TYPE_COMPLEX128); name = 'complex128'
    case (ZARR_DATA_TYPE_RAW); name = 'r<N>'
    case default; name = ''
    end select
  end function zarr_data_type_name

  pure function fortran_type_name(fk) result(name)
    integer, intent(in) :: fk
    character(len=:), allocatable :: name
    select case (fk)
    case (FK_I1); name = 'integer(c_int8_t)'
    case (FK_I2); name = 'integer(c_int16_t)'
    case (FK_I4); name = 'integer(c_int32_t)'
    case (FK_I8); name = 'integer(c_int64_t)'
    case (FK_R4); name = 'real(c_float)'
    case (FK_R8); name = 'real(c_double)'
    case (FK_C4); name = 'complex(c_float_complex)'
    case (FK_C8); name = 'complex(c_double_complex)'
    case default; name = 'logical(c_bool)'
    end select
  end function fortran_type_name

  ! Whether a Fortran buffer of element type `fk` holds elements of Zarr type `data_type`.
  pure logical function compatible(fk, data_type)
    integer, intent(in) :: fk
    integer(c_int32_t), intent(in) :: data_type
    select case (fk)
    case (FK_I1)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT8, ZARR_DATA_TYPE_UINT8, ZARR_DATA_TYPE_RAW])
    case (FK_I2)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT16, ZARR_DATA_TYPE_UINT16, &
                                     ZARR_DATA_TYPE_FLOAT16])
    case (FK_I4)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT32, ZARR_DATA_TYPE_UINT32])
    case (FK_I8)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT64, ZARR_DATA_TYPE_UINT64])
    case (FK_R4); compatible = data_type == ZARR_DATA_TYPE_FLOAT32
    case (FK_R8); compatible = data_type == ZARR_DATA_TYPE_FLOAT64
    case (FK_C4); compatible = data_type == ZARR_DATA_TYPE_COMPLEX64
    case (FK_C8); compatible = data_type == ZARR_DATA_TYPE_COMPLEX128
    case default; compatible = data_type == ZARR_DATA_TYPE_BOOL
    end select
  end function compatible

  pure function op_name(op) result(name)
    integer, intent(in) :: op
    character(len=:), allocatable :: name
    select case (op)
    case (OP_READ); name = 'zarr_read'
    case (OP_WRITE); name = 'zarr_write'
    case (OP_READ_CHUNK); name = 'zarr_read_chunk'
    case (OP_WRITE_CHUNK); name = 'zarr_write_chunk'
    case default; name = 'zarr_read_inner_chunk'
    end select
  end function op_name

  ! Checks that `array` is open and that Fortran type `fk` matches its data type.
  function check_buffer_type(procname, array, fk) result(status)
    character(len=*), intent(in) :: procname
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: fk
    integer(c_int32_t) :: status, data_type
    if (.not. c_associated(array%ptr)) then
      status = fail(ZARR_ERROR_NULL_ARGUMENT, procname // ': the array handle is not open')
      return
    end if
    status = track(c_zarr_array_data_type(array%ptr, data_type))
    if (status /= ZARR_OK) return
    if (.not. compatible(fk, data_type)) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': a ' // fortran_type_name(fk) &
                    // ' buffer does not match the array''s data type ' &
                    // zarr_data_type_name(data_type))
    end if
  end function check_buffer_type

  ! The C form (0-based, reversed) of a Fortran selection. `count` defaults to `vshape`
  ! (the shape of the caller's buffer), `start` to all ones.
  function c_selection(procname, vshape, start, count, cstart, ccount) result(status)
    character(len=*), intent(in) :: procname
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int64_t), allocatable, intent(out) :: cstart(:), ccount(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: fstart(:), fcount(:)
    integer :: n
    if (present(count)) then
      n = size(count)
      allocate (fcount(n))
      fcount = int(count, c_int64_t)
    else
      n = size(vshape)
      allocate (fcount(n))
      fcount = vshape
    end if
    if (present(start)) then
      if (size(start) /= n) then
        status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': start has ' &
                      // itoa(int(size(start), c_int64_t)) // ' values but count has ' &
                      // itoa(int(n, c_int64_t)))
        return
      end if
    end if
    allocate (fstart(n), cstart(n), ccount(n))
    if (present(start)) then
      fstart = int(start, c_int64_t)
    else
      fstart = 1
    end if
    if (any(fstart < 1)) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, procname // ': start values are 1-based: ' &
                    // json_int_list(fstart))
      return
    end if
    if (any(fcount < 0)) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': negative count: ' &
                    // json_int_list(fcount))
      return
    end if
    cstart = fstart(n:1:-1) - 1
    ccount = fcount(n:1:-1)
    status = ZARR_OK
  end function c_selection

  ! Region read or write of `nbytes` bytes at `buf` (Fortran element type `fk`).
  function region_io(op, array, fk, buf, nbytes, vshape, start, count) result(status)
    integer, intent(in) :: op, fk
    type(zarr_array), intent(in) :: array
    type(c_ptr), intent(in) :: buf
    integer(c_size_t), intent(in) :: nbytes
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    status = check_buffer_type(op_name(op), array, fk)
    if (status /= ZARR_OK) return
    status = c_selection(op_name(op), vshape, start, count, cstart, ccount)
    if (status /= ZARR_OK) return
    if (op == OP_READ) then
      status = track(c_zarr_array_read(array%ptr, size(ccount, kind=c_size_t), cstart, ccount, &
                                       buf, nbytes))
    else
      status = track(c_zarr_array_write(array%ptr, size(ccount, kind=c_size_t), cstart, &
                                        ccount, buf, nbytes))
    end if
  end function region_io

  ! Whole-chunk transfer; `chunk_index` is 1-based, in Fortran order.
  function chunk_io(op, array, fk, buf, nbytes, chunk_index) result(status)
    integer, intent(in) :: op, fk
    type(zarr_array), intent(in) :: array
    type(c_ptr), intent(in) :: buf
    integer(c_size_t), intent(in) :: nbytes
    integer, intent(in) :: chunk_index(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cindex(:)
    integer(c_size_t) :: n
    status = check_buffer_type(op_name(op), array, fk)
    if (status /= ZARR_OK) return
    if (any(chunk_index < 1)) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, op_name(op) // ': chunk indices are 1-based: ' &
                    // json_int_list(int(chunk_index, c_int64_t)))
      return
    end if
    n = size(chunk_index, kind=c_size_t)
    allocate (cindex(n))
    cindex = int(chunk_index(n:1:-1), c_int64_t) - 1
    select case (op)
    case (OP_READ_CHUNK)
      status = track(c_zarr_array_read_chunk(array%ptr, n, cindex, buf, nbytes))
    case (OP_WRITE_CHUNK)
      status = track(c_zarr_array_write_chunk(array%ptr, n, cindex, buf, nbytes))
    case default
      status = track(c_zarr_array_read_inner_chunk(array%ptr, n, cindex, buf, nbytes))
    end select
  end function chunk_io

  ! ---------------------------------------------------------------------------------------
  ! Errors, version, threads
  ! ---------------------------------------------------------------------------------------

  !> The message of the calling thread's most recent failure ('' if none), naming the
  !> failing procedure and the causes.
  function zarr_last_error_message() result(message)
    character(len=:), allocatable :: message
    if (allocated(fortran_message)) then
      message = fortran_message
    else
      message = copy_c_string(c_zarr_last_error_message())
    end if
  end function zarr_last_error_message

  !> Fixed text describing a status code ("unknown status" for unknown values).
  function zarr_status_str(status) result(text)
    integer(c_int32_t), intent(in) :: status
    character(len=:), allocatable :: text
    text = copy_c_string(c_zarr_status_str(status))
  end function zarr_status_str

  !> The library's version, "MAJOR.MINOR.PATCH".
  function zarr_version_string() result(version)
    character(len=:), allocatable :: version
    version = copy_c_string(c_zarr_version_string())
  end function zarr_version_string

  !> The library's version as MAJOR * 10000 + MINOR * 100 + PATCH.
  function zarr_version_number() result(version)
    integer(c_int32_t) :: version
    version = c_zarr_version_number()
  end function zarr_version_number

  !> Set the number of worker threads (0: the default). See zarr_set_num_threads in zarr.h.
  function zarr_set_num_threads(num_threads) result(status)
    integer, intent(in) :: num_threads
    integer(c_int32_t) :: status
    if (num_threads < 0) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_set_num_threads: negative count')
      return
    end if
    status = track(c_zarr_set_num_threads(int(num_threads, c_size_t)))
  end function zarr_set_num_threads

  !> The number of worker threads libzarr uses.
  function zarr_num_threads(num_threads) result(status)
    integer, intent(inout) :: num_threads
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_num_threads(n))
    if (status == ZARR_OK) num_threads = int(n)
  end function zarr_num_threads

  ! ---------------------------------------------------------------------------------------
  ! Stores
  ! ---------------------------------------------------------------------------------------

  !> Open a store on the local file system rooted at directory `path` (created on first
  !> write).
  function zarr_store_open_filesystem(path, store) result(status)
    character(len=*), intent(in) :: path
    type(zarr_store), intent(out) :: store
    integer(c_int32_t) :: status
    status = track(c_zarr_store_open_filesystem(c_str(path), store%ptr))
  end function zarr_store_open_filesystem

  !> Open a new, empty in-memory store.
  function zarr_store_open_memory(store) result(status)
    type(zarr_store), intent(out) :: store
    integer(c_int32_t) :: status
    status = track(c_zarr_store_open_memory(store%ptr))
  end function zarr_store_open_memory

  !> Free a store handle (no-op if not open); the handle is reset.
  subroutine zarr_store_free(store)
    type(zarr_store), intent(inout) :: store
    call c_zarr_store_free(store%ptr)
    store%ptr = c_null_ptr
  end subroutine zarr_store_free

  !> Open a read-only store over a .zip file holding a hierarchy (see zarr_store_open_zip).
  function zarr_store_open_zip(path, store) result(status)
    character(len=*), intent(in) :: path
    type(zarr_store), intent(out) :: store
    integer(c_int32_t) :: status
    status = track(c_zarr_store_open_zip(c_str(path), store%ptr))
  end function zarr_store_open_zip

  !> Open the store a URL names: `s3://bucket/prefix`, `http(s)://host/path` (read-only),
  !> `file:///abs/path` or a plain path, with optional options as a JSON object (see
  !> zarr_store_open_url in zarr.h: endpoint, region, anonymous, access_key_id,
  !> secret_access_key, session_token, profile, force_path_style, max_concurrency,
  !> timeout_ms, max_retries, read_only).
  function zarr_store_open_url(url, store, options_json) result(status)
    character(len=*), intent(in) :: url
    type(zarr_store), intent(out) :: store
    character(len=*), intent(in), optional :: options_json
    integer(c_int32_t) :: status
    character(kind=c_char, len=:), allocatable, target :: options
    if (present(options_json)) then
      options = c_str(options_json)
      status = track(c_zarr_store_open_url(c_str(url), c_loc(options), store%ptr))
    else
      status = track(c_zarr_store_open_url(c_str(url), c_null_ptr, store%ptr))
    end if
  end function zarr_store_open_url

  !> Open a view of `store` that reads node metadata from its consolidated metadata.
  function zarr_store_open_consolidated(store, view) result(status)
    type(zarr_store), intent(in) :: store
    type(zarr_store), intent(out) :: view
    integer(c_int32_t) :: status
    status = track(c_zarr_store_open_consolidated(store%ptr, view%ptr))
  end function zarr_store_open_consolidated

  ! ---------------------------------------------------------------------------------------
  ! Groups
  ! ---------------------------------------------------------------------------------------

  !> Create a Zarr v2 group at `path`, with optional attributes (a JSON object).
  function zarr_group_create_v2(store, path, group, attributes_json) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_group), intent(out) :: group
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    if (present(attributes_json)) then
      status = track(c_zarr_group_create_v2(store%ptr, c_str(path), c_str(attributes_json), &
                                            group%ptr))
    else
      status = track(c_zarr_group_create_v2(store%ptr, c_str(path), c_str("{}"), group%ptr))
    end if
  end function zarr_group_create_v2

  !> Every node below the group as JSON text (see zarr_group_descendants_json in zarr.h).
  function zarr_group_descendants_json(group, json) result(status)
    type(zarr_group), intent(in) :: group
    character(len=:), allocatable, intent(inout) :: json
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    status = track(c_zarr_group_descendants_json(group%ptr, p))
    if (status == ZARR_OK) call take_c_string(p, json)
  end function zarr_group_descendants_json

  !> Write consolidated metadata for every node below the group.
  function zarr_group_consolidate(group) result(status)
    type(zarr_group), intent(in) :: group
    integer(c_int32_t) :: status
    status = track(c_zarr_group_consolidate(group%ptr))
  end function zarr_group_consolidate

  !> The Zarr format (2 or 3) the group is stored in.
  function zarr_group_zarr_format(group, format) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(inout) :: format
    integer(c_int32_t) :: status, f
    status = track(c_zarr_group_zarr_format(group%ptr, f))
    if (status == ZARR_OK) format = int(f)
  end function zarr_group_zarr_format

  !> The Zarr format (2 or 3) the array is stored in.
  function zarr_array_zarr_format(array, format) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(inout) :: format
    integer(c_int32_t) :: status, f
    status = track(c_zarr_array_zarr_format(array%ptr, f))
    if (status == ZARR_OK) format = int(f)
  end function zarr_array_zarr_format

  !> Create a group at `path` ("/" for the root), with optional attributes (a JSON object).
  function zarr_group_create(store, path, group, attributes_json) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_group), intent(out) :: group
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    if (present(attributes_json)) then
      status = track(c_zarr_group_create(store%ptr, c_str(path), c_str(attributes_json), &
                                         group%ptr))
    else
      status = track(c_zarr_group_create(store%ptr, c_str(path), out=group%ptr))
    end if
  end function zarr_group_create

  !> Open the group at `path`.
  function zarr_group_open(store, path, group) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_group), intent(out) :: group
    integer(c_int32_t) :: status
    status = track(c_zarr_group_open(store%ptr, c_str(path), group%ptr))
  end function zarr_group_open

  !> Free a group handle (no-op if not open); the handle is reset.
  subroutine zarr_group_free(group)
    type(zarr_group), intent(inout) :: group
    call c_zarr_group_free(group%ptr)
    group%ptr = c_null_ptr
  end subroutine zarr_group_free

  !> The group's attributes as JSON object text.
  function zarr_group_attributes_json(group, json) result(status)
    type(zarr_group), intent(in) :: group
    character(len=:), allocatable, intent(inout) :: json
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    status = track(c_zarr_group_attributes_json(group%ptr, p))
    if (status == ZARR_OK) call take_c_string(p, json)
  end function zarr_group_attributes_json

  !> Replace the group's attributes with the JSON object `json`.
  function zarr_group_set_attributes_json(group, json) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: json
    integer(c_int32_t) :: status
    status = track(c_zarr_group_set_attributes_json(group%ptr, c_str(json)))
  end function zarr_group_set_attributes_json

  !> The group's children as JSON text: [{"name", "path", "node_type"}, ...] sorted by name.
  function zarr_group_children_json(group, json) result(status)
    type(zarr_group), intent(in) :: group
    character(len=:), allocatable, intent(inout) :: json
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    status = track(c_zarr_group_children_json(group%ptr, p))
    if (status == ZARR_OK) call take_c_string(p, json)
  end function zarr_group_children_json

  ! ---------------------------------------------------------------------------------------
  ! Arrays
  ! ---------------------------------------------------------------------------------------

  !> Create an array at `path` from a complete Zarr v3 array metadata document (JSON text,
  !> shapes in Zarr (C) order).
  function zarr_array_create_json(store, path, metadata_json, array) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path, metadata_json
    type(zarr_array), intent(out) :: array
    integer(c_int32_t) :: status
    status = track(c_zarr_array_create(store%ptr, c_str(path), c_str(metadata_json), &
                                       array%ptr))
  end function zarr_array_create_json

  !> Create an array from Fortran values; see zarr_array_create_i8.
  function zarr_array_create_i4(store, path, shape, chunk_shape, data_type, array, codec, &
                                level, fill_value, dimension_names, attributes_json) &
      result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    integer(c_int32_t), intent(in) :: shape(:), chunk_shape(:)
    integer(c_int32_t), intent(in) :: data_type
    type(zarr_array), intent(out) :: array
    character(len=*), intent(in), optional :: codec
    integer, intent(in), optional :: level
    character(len=*), intent(in), optional :: fill_value
    character(len=*), intent(in), optional :: dimension_names(:)
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    status = zarr_array_create_i8(store, path, int(shape, c_int64_t), &
                                  int(chunk_shape, c_int64_t), data_type, array, codec, level, &
                                  fill_value, dimension_names, attributes_json)
  end function zarr_array_create_i4

  !> Create an array at `path` from Fortran values:
  !> - shape, chunk_shape: extents in Fortran order (reversed into the Zarr shape);
  !> - data_type: a ZARR_DATA_TYPE_* code (not ZARR_DATA_TYPE_RAW);
  !> - codec: "none" (default), "zstd" (level default 3) or "gzip" (level default 6), after
  !>   the little-endian `bytes` codec;
  !> - fill_value: the Zarr fill value as text: a number ("0", "-9999", "1.5e30"), "NaN",
  !>   "Infinity", "-Infinity", "0x7fc00000", "true"/"false", "[re, im]"; default 0/false;
  !> - dimension_names: one name per dimension, in Fortran order;
  !> - attributes_json: a JSON object.
  !> The chunk key encoding is "default" with "/". Statuses as zarr_array_create in zarr.h,
  !> plus ZARR_ERROR_INVALID_ARGUMENT for an unknown data type or codec.
  function zarr_array_create_i8(store, path, shape, chunk_shape, data_type, array, codec, &
                                level, fill_value, dimension_names, attributes_json) &
      result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    integer(c_int64_t), intent(in) :: shape(:), chunk_shape(:)
    integer(c_int32_t), intent(in) :: data_type
    type(zarr_array), intent(out) :: array
    character(len=*), intent(in), optional :: codec
    integer, intent(in), optional :: level
    character(len=*), intent(in), optional :: fill_value
    character(len=*), intent(in), optional :: dimension_names(:)
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    character(len=:), allocatable :: json, type_name, codecs, fill, name
    integer :: k, lvl

    type_name = zarr_data_type_name(data_type)
    if (len(type_name) == 0 .or. data_type == ZARR_DATA_TYPE_RAW) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_create: unsupported data type ' &
                    // 'code ' // itoa(int(data_type, c_int64_t)) &
                    // ' (use the metadata JSON form for r<N>)')
      return
    end if

    codecs = '{"name": "bytes", "configuration": {"endian": "little"}}'
    name = 'none'
    if (present(codec)) name = lower(trim(adjustl(codec)))
    select case (name)
    case ('none', '')
    case ('zstd')
      lvl = 3
      if (present(level)) lvl = level
      codecs = codecs // ', {"name": "zstd", "configuration": {"level": ' &
               // itoa(int(lvl, c_int64_t)) // ', "checksum": false}}'
    case ('gzip')
      lvl = 6
      if (present(level)) lvl = level
      codecs = codecs // ', {"name": "gzip", "configuration": {"level": ' &
               // itoa(int(lvl, c_int64_t)) // '}}'
    case default
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_create: unknown codec "' &
                    // trim(codec) // '" (expected "none", "zstd" or "gzip")')
      return
    end select

    if (present(fill_value)) then
      fill = trim(adjustl(fill_value))
      if (.not. json_literal(fill)) fill = json_quote(fill)
    else if (data_type == ZARR_DATA_TYPE_BOOL) then
      fill = 'false'
    else if (data_type == ZARR_DATA_TYPE_COMPLEX64 .or. data_type == ZARR_DATA_TYPE_COMPLEX128) then
      fill = '[0.0, 0.0]'
    else
      fill = '0'
    end if

    json = '{"zarr_format": 3, "node_type": "array", "shape": ' &
           // json_int_list(shape(size(shape):1:-1)) // ', "data_type": "' // type_name &
           // '", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": ' &
           // json_int_list(chunk_shape(size(chunk_shape):1:-1)) &
           // '}}, "chunk_key_encoding": {"name": "default", "configuration": ' &
           // '{"separator": "/"}}, "fill_value": ' // fill // ', "codecs": [' // codecs // ']'
    if (present(dimension_names)) then
      json = json // ', "dimension_names": ['
      do k = size(dimension_names), 1, -1
        json = json // json_quote(dimension_names(k))
        if (k > 1) json = json // ', '
      end do
      json = json // ']'
    end if
    if (present(attributes_json)) json = json // ', "attributes": ' // trim(attributes_json)
    json = json // '}'
    status = track(c_zarr_array_create(store%ptr, c_str(path), c_str(json), array%ptr))
  contains
    ! Whether the fill value text goes into JSON as is (a number, boolean or list).
    pure logical function json_literal(t)
      character(len=*), intent(in) :: t
      json_literal = .false.
      if (len(t) == 0) return
      if (t == 'true' .or. t == 'false' .or. t(1:1) == '[') then
        json_literal = .true.
      else if (index('0123456789', t(1:1)) > 0) then
        json_literal = t(1:min(2, len(t))) /= '0x'
      else if (len(t) > 1 .and. t(1:1) == '-') then
        json_literal = index('0123456789', t(2:2)) > 0
      end if
    end function json_literal
  end function zarr_array_create_i8

  !> Open the array at `path`.
  function zarr_array_open(store, path, array) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_array), intent(out) :: array
    integer(c_int32_t) :: status
    status = track(c_zarr_array_open(store%ptr, c_str(path), array%ptr))
  end function zarr_array_open

  !> Free an array handle (no-op if not open); the handle is reset.
  subroutine zarr_array_free(array)
    type(zarr_array), intent(inout) :: array
    call c_zarr_array_free(array%ptr)
    array%ptr = c_null_ptr
  end subroutine zarr_array_free

  !> The array's rank.
  function zarr_array_ndim(array, ndim) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(inout) :: ndim
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_array_ndim(array%ptr, n))
    if (status == ZARR_OK) ndim = int(n)
  end function zarr_array_ndim

  ! Shape (which = 1), chunk shape (2) or inner chunk shape (3), in Fortran order.
  function extents(array, which, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: which
    integer(c_int64_t), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    integer(c_int64_t), allocatable :: c(:)
    status = track(c_zarr_array_ndim(array%ptr, n))
    if (status /= ZARR_OK) return
    allocate (c(n))
    select case (which)
    case (1); status = track(c_zarr_array_shape(array%ptr, n, c))
    case (2); status = track(c_zarr_array_chunk_shape(array%ptr, n, c))
    case default; status = track(c_zarr_array_inner_chunk_shape(array%ptr, n, c))
    end select
    if (status == ZARR_OK) values = c(n:1:-1)
  end function extents

  !> The array's shape in Fortran order: (nx, ny) for a Zarr array of shape (ny, nx).
  function zarr_array_shape(array, shape) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), allocatable, intent(inout) :: shape(:)
    integer(c_int32_t) :: status
    status = extents(array, 1, shape)
  end function zarr_array_shape

  !> The array's chunk shape in Fortran order.
  function zarr_array_chunk_shape(array, chunk_shape) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), allocatable, intent(inout) :: chunk_shape(:)
    integer(c_int32_t) :: status
    status = extents(array, 2, chunk_shape)
  end function zarr_array_chunk_shape

  !> The array's inner chunk shape (sharded arrays; else the chunk shape), Fortran order.
  function zarr_array_inner_chunk_shape(array, inner_chunk_shape) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), allocatable, intent(inout) :: inner_chunk_shape(:)
    integer(c_int32_t) :: status
    status = extents(array, 3, inner_chunk_shape)
  end function zarr_array_inner_chunk_shape

  !> The array's data type (a ZARR_DATA_TYPE_* code).
  function zarr_array_data_type(array, data_type) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), intent(inout) :: data_type
    integer(c_int32_t) :: status, t
    status = track(c_zarr_array_data_type(array%ptr, t))
    if (status == ZARR_OK) data_type = t
  end function zarr_array_data_type

  !> The size in bytes of one element.
  function zarr_array_element_size(array, element_size) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_size_t), intent(inout) :: element_size
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_array_element_size(array%ptr, n))
    if (status == ZARR_OK) element_size = n
  end function zarr_array_element_size

  !> The size in bytes of one whole chunk.
  function zarr_array_chunk_nbytes(array, nbytes) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_size_t), intent(inout) :: nbytes
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_array_chunk_nbytes(array%ptr, n))
    if (status == ZARR_OK) nbytes = n
  end function zarr_array_chunk_nbytes

  !> The size in bytes of the selection `start` (1-based), `count` (Fortran order).
  function zarr_array_selection_nbytes(array, start, count, nbytes) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: start(:), count(:)
    integer(c_size_t), intent(inout) :: nbytes
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    integer(c_size_t) :: n
    status = c_selection('zarr_array_selection_nbytes', [integer(c_int64_t) ::], start, &
                         count, cstart, ccount)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_selection_nbytes(array%ptr, size(ccount, kind=c_size_t), &
                                                 cstart, ccount, n))
    if (status == ZARR_OK) nbytes = n
  end function zarr_array_selection_nbytes

  !> The array's zarr.json document as JSON text (shapes in Zarr order).
  function zarr_array_metadata_json(array, json) result(status)
    type(zarr_array), intent(in) :: array
    character(len=:), allocatable, intent(inout) :: json
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    status = track(c_zarr_array_metadata_json(array%ptr, p))
    if (status == ZARR_OK) call take_c_string(p, json)
  end function zarr_array_metadata_json

  !> The array's attributes as JSON object text.
  function zarr_array_attributes_json(array, json) result(status)
    type(zarr_array), intent(in) :: array
    character(len=:), allocatable, intent(inout) :: json
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    status = track(c_zarr_array_attributes_json(array%ptr, p))
    if (status == ZARR_OK) call take_c_string(p, json)
  end function zarr_array_attributes_json

  !> Replace the array's attributes with the JSON object `json`.
  function zarr_array_set_attributes_json(array, json) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: json
    integer(c_int32_t) :: status
    status = track(c_zarr_array_set_attributes_json(array%ptr, c_str(json)))
  end function zarr_array_set_attributes_json

  ! ---------------------------------------------------------------------------------------
  ! Generic data procedures, one per Fortran element type (all alike).
  ! ---------------------------------------------------------------------------------------
  function zarr_read_i1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_I1, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_i1

  function zarr_read_i2(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_I2, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_i2

  function zarr_read_i4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_I4, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_i4

  function zarr_read_i8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_I8, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_i8

  function zarr_read_r4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_float), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_R4, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_r4

  function zarr_read_r8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_R8, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_r8

  function zarr_read_c4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_float_complex), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_C4, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_c4

  function zarr_read_c8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_double_complex), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_C8, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_c8

  function zarr_read_l1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    logical(c_bool), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_READ, array, FK_L1, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_read_l1

  function zarr_write_i1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_I1, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_i1

  function zarr_write_i2(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_I2, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_i2

  function zarr_write_i4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_I4, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_i4

  function zarr_write_i8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_I8, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_i8

  function zarr_write_r4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_float), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_R4, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_r4

  function zarr_write_r8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_R8, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_r8

  function zarr_write_c4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_float_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_C4, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_c4

  function zarr_write_c8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_double_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_C8, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_c8

  function zarr_write_l1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    logical(c_bool), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = region_io(OP_WRITE, array, FK_L1, p, c_sizeof(values), &
                       shape(values, kind=c_int64_t), start, count)
  end function zarr_write_l1

  function zarr_read_chunk_i1(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int8_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_I1, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_i1

  function zarr_read_chunk_i2(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int16_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_I2, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_i2

  function zarr_read_chunk_i4(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int32_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_I4, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_i4

  function zarr_read_chunk_i8(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int64_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_I8, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_i8

  function zarr_read_chunk_r4(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    real(c_float), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_R4, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_r4

  function zarr_read_chunk_r8(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    real(c_double), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_R8, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_r8

  function zarr_read_chunk_c4(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    complex(c_float_complex), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_C4, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_c4

  function zarr_read_chunk_c8(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    complex(c_double_complex), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_C8, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_c8

  function zarr_read_chunk_l1(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    logical(c_bool), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_CHUNK, array, FK_L1, p, c_sizeof(values), chunk_index)
  end function zarr_read_chunk_l1

  function zarr_write_chunk_i1(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_I1, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_i1

  function zarr_write_chunk_i2(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int16_t), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_I2, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_i2

  function zarr_write_chunk_i4(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int32_t), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_I4, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_i4

  function zarr_write_chunk_i8(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    integer(c_int64_t), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_I8, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_i8

  function zarr_write_chunk_r4(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    real(c_float), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_R4, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_r4

  function zarr_write_chunk_r8(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    real(c_double), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_R8, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_r8

  function zarr_write_chunk_c4(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    complex(c_float_complex), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_C4, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_c4

  function zarr_write_chunk_c8(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    complex(c_double_complex), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_C8, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_c8

  function zarr_write_chunk_l1(array, chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: chunk_index(:)
    logical(c_bool), dimension(..), intent(in), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_WRITE_CHUNK, array, FK_L1, p, c_sizeof(values), chunk_index)
  end function zarr_write_chunk_l1

  function zarr_read_inner_chunk_i1(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    integer(c_int8_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_I1, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_i1

  function zarr_read_inner_chunk_i2(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    integer(c_int16_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_I2, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_i2

  function zarr_read_inner_chunk_i4(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    integer(c_int32_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_I4, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_i4

  function zarr_read_inner_chunk_i8(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    integer(c_int64_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_I8, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_i8

  function zarr_read_inner_chunk_r4(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    real(c_float), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_R4, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_r4

  function zarr_read_inner_chunk_r8(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    real(c_double), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_R8, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_r8

  function zarr_read_inner_chunk_c4(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    complex(c_float_complex), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_C4, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_c4

  function zarr_read_inner_chunk_c8(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    complex(c_double_complex), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_C8, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_c8

  function zarr_read_inner_chunk_l1(array, inner_chunk_index, values) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: inner_chunk_index(:)
    logical(c_bool), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = chunk_io(OP_READ_INNER_CHUNK, array, FK_L1, p, c_sizeof(values), inner_chunk_index)
  end function zarr_read_inner_chunk_l1

end module zarr
