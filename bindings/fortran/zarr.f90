! zarr.f90 -- the Fortran module `zarr`: libzarr (a Zarr v3 storage library) for Fortran.
!
! Build: compile this file with any Fortran 2018 compiler (gfortran >= 10 is tested) and link
! libzarr, e.g.  gfortran -c zarr.f90 && gfortran prog.f90 zarr.o -L<dir> -lzarr
! With CMake, link the target zarr::fortran (bindings/fortran/CMakeLists.txt).
!
! Two layers:
!
! - The raw layer: `c_zarr_<name>` are bind(C) interfaces to the functions of zarr.h (all
!   but those docs/bindings.md lists as not bound), with the C types (type(c_ptr) handles,
!   NUL-terminated strings, 0-based C-order indices).
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
!   and the other fixed-size types as their bits: integer(c_int8_t) for float8, byte strings,
!   raw bytes and structs (bytes of the packed record), for int2, int4, uint2, uint4,
!   float4_e2m1fn and float6_* (one byte per element holding the code in its low bits, the
!   upper bits zero; zarr_sub_byte_to_int8 / zarr_int8_to_sub_byte convert int2/int4/uint2/
!   uint4 codes from and to integer(c_int8_t) values) and, two per element (real part,
!   imaginary part: values(2, n) with count [n]), for the complex float4/float6/float8
!   types; integer(c_int16_t) for bfloat16 and, two per element, complex_bfloat16 and
!   complex_float16; complex(c_float_complex) and complex(c_double_complex) also for
!   complex_float32 and complex_float64,
!   integer(c_int32_t) for fixed_length_utf32 code units, integer(c_int64_t) for
!   datetime64/timedelta64 (NaT is -huge-1).
! - Numbers of any real type as real(c_double): zarr_read_double(array, values [, start,
!   count]) takes the arguments of zarr_read with a real(c_double) buffer of any rank and
!   converts bool, integers, float16, bfloat16, float8, float32 and float64 elements (CF
!   packing is the caller's); zarr_array_fill_value_double(array, value) converts the fill
!   value likewise.
! - Fixed-length strings: zarr_read_strings(array, values [, start, count]) reads a
!   fixed_length_utf32 (Zarr v2 `<U n`) or null_terminated_bytes (`|S n`) array into
!   `character(len=*)` arrays of rank 1 or 2: each element's text, blank-padded (code points
!   above 255 become '?'); a `len` shorter than the stored text is an error.
!   The Fortran type must match the array's data type as listed (unsigned types are read and
!   written as the signed integer of the same size, bit for bit), otherwise the call returns
!   ZARR_ERROR_INVALID_ARGUMENT. As in nf90_get_var / nf90_put_var, `start` (default: all 1)
!   and `count` (default: shape(values)) are optional; give `count` when the rank of `values`
!   differs from the array's, e.g. a 2-D slab of a 3-D array with count = [nx, ny, 1].
!   start and count are default integers; byte lengths are computed here from the buffer.
!   Non-contiguous actual arguments (array sections with strides) work: the compiler passes
!   a contiguous copy.
! - Array sections without a copy: zarr_read_section / zarr_write_section(array, values
!   [, start, count]) take the same arguments and types as zarr_read / zarr_write, but
!   `values` may be any array section of rank 0 to 7 (b(1:5:2, :), a 2-D slice
!   c(1:8:2, 2, :) of a 3-D array, or a whole array): the elements go straight into (come
!   straight from) their places through zarr_array_read_strided / zarr_array_write_strided,
!   with byte strides taken from the addresses of neighbouring elements; the elements
!   between them are never touched. The mapping is that of zarr_read: with start = [1, 1],
!   values(i, j) is zarr-python's z[j-1, i-1]; in general values(i, j) <-> z[start(2)+j-2,
!   start(1)+i-2]. `count` (default shape(values)) must have the extents of `values` once
!   the extents of 1 are left out of both (so count = [nx, 1, nt] fits values(nx, nt)),
!   otherwise ZARR_ERROR_BUFFER_SIZE_MISMATCH; a reversed section (negative stride) is
!   ZARR_ERROR_INVALID_ARGUMENT.
! - Growing and shrinking: zarr_array_resize(array, shape) (Fortran order; elements
!   between the old edge and a grown one read as the fill value) and
!   zarr_array_append(array, dim, values [, count]): grow Fortran dimension `dim` by
!   count(dim) (default shape(values)) and write `values` (any type of zarr_write) there,
!   e.g. the next time step of a(nx, ny, nt): dim = 3, values(nx, ny), count = [nx, ny, 1].
! - Variable-length strings (data types `string` and `bytes`, ZARR_DATA_TYPE_STRING /
!   _BYTES): zarr_read_vlen(array, values [, start, count, offsets, data]) reads the
!   selection (count defaults to the rest of the array from start) into a
!   `character(len=:), allocatable` rank-1 array in Fortran element order (reshape it to
!   count), each element blank-padded to the longest one's length in bytes (UTF-8 is kept
!   as bytes: U+00E9 takes two characters); optionally also the raw form: `offsets`
!   (integer(c_int64_t), n + 1 values from 0) and `data` (all bytes), element k being
!   data(offsets(k)+1 : offsets(k+1)). zarr_write_vlen(array, values [, start, count])
!   writes a character array of rank 1 or 2 with each element's trailing blanks removed
!   (an all-blank element is the empty string); zarr_write_vlen(array, offsets, data
!   [, start, count]) writes the raw form, keeping trailing blanks. zarr_read_vlen on an
!   array of fixed-size elements returns ZARR_ERROR_UNSUPPORTED.
! - zarr_array_create is generic: with a metadata JSON document (as in C), or from a Fortran
!   shape, chunk shape (Fortran order), data type and optional codec ("none", "zstd", "gzip"),
!   compression level, fill value, dimension names and attributes, building the v3 metadata.
! - Collective calls (MPI programs, or any group of ranks): type(zarr_comm) is a
!   communicator, made from an MPI communicator by zarr_comm_create_mpi of module zarr_mpi
!   (zarr_mpi.f90, compiled with the MPI compiler; this module holds no MPI type), or from a
!   zarr_comm_ops_t table by zarr_comm_create; free it with zarr_free. The collective
!   procedures take `comm` first, then the arguments of their serial counterparts, in
!   Fortran order and 1-based like everything here: zarr_array_create_collective (both forms
!   of zarr_array_create), zarr_write_collective / zarr_read_collective (the types and ranks
!   of zarr_write / zarr_read), zarr_append_collective(comm, array, dim, values [, start,
!   count, length]) (grow Fortran dimension `dim` by `length`, every rank writing its box of
!   the new block), zarr_array_resize_collective, zarr_array_set_attributes_json_collective,
!   zarr_group_create_collective, zarr_group_set_attributes_json_collective,
!   zarr_group_consolidate_collective and zarr_comm_agree. Every rank of the communicator
!   calls them, in the same order, and gets the same status. THE RULE: a collective call
!   never leaves other ranks waiting, so this module's own checks before such a call (buffer
!   type, start/count, data type and codec names) are agreed with the other ranks through
!   zarr_comm_agree first: a mistake on one rank fails every rank's call, and no rank enters
!   the C call alone. zarr_comm_rank, zarr_comm_size and zarr_comm_last_write_json are local.
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
  integer(c_int32_t), parameter, public :: ZARR_ERROR_INTERNAL = -16
  integer(c_int32_t), parameter, public :: ZARR_ERROR_TYPE_MISMATCH = -17
  integer(c_int32_t), parameter, public :: ZARR_ERROR_RESOURCE = -18
  integer(c_int32_t), parameter, public :: ZARR_ERROR_NETWORK = -20
  integer(c_int32_t), parameter, public :: ZARR_ERROR_ACCESS_DENIED = -21
  integer(c_int32_t), parameter, public :: ZARR_ERROR_TIMEOUT = -22
  integer(c_int32_t), parameter, public :: ZARR_ERROR_REMOTE = -23
  integer(c_int32_t), parameter, public :: ZARR_ERROR_CONFLICT = -24
  integer(c_int32_t), parameter, public :: ZARR_ERROR_COMMUNICATION = -25
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
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_BFLOAT16 = 16
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E4M3 = 17
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E4M3FN = 18
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E4M3FNUZ = 19
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E4M3B11FNUZ = 20
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E5M2 = 21
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E5M2FNUZ = 22
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E3M4 = 23
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT8_E8M0FNU = 24
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FIXED_LENGTH_UTF32 = 25
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_NULL_TERMINATED_BYTES = 26
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_RAW_BYTES = 27
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_DATETIME64 = 28
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_TIMEDELTA64 = 29
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_STRUCT = 30
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_STRING = 31
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_BYTES = 32
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_INT2 = 33
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_INT4 = 34
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_UINT2 = 35
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_UINT4 = 36
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT4_E2M1FN = 37
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT6_E2M3FN = 38
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_FLOAT6_E3M2FN = 39
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_BFLOAT16 = 40
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT16 = 41
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT32 = 42
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT64 = 43
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN = 44
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT6_E2M3FN = 45
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT6_E3M2FN = 46
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E3M4 = 47
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3 = 48
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3B11FNUZ = 49
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3FNUZ = 50
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2 = 51
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2FNUZ = 52
  integer(c_int32_t), parameter, public :: ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU = 53

  integer(c_int32_t), parameter, public :: ZARR_NODE_TYPE_ARRAY = 1
  integer(c_int32_t), parameter, public :: ZARR_NODE_TYPE_GROUP = 2
  integer(c_int32_t), parameter, public :: ZARR_STORE_CALLBACKS_VERSION = 1
  integer(c_int32_t), parameter, public :: ZARR_COMM_OPS_VERSION = 1
  ! The reductions of zarr_comm_ops_t%all_reduce_i64.
  integer(c_int32_t), parameter, public :: ZARR_REDUCE_MIN = 1
  integer(c_int32_t), parameter, public :: ZARR_REDUCE_MAX = 2
  integer(c_int32_t), parameter, public :: ZARR_REDUCE_SUM = 3

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

  !> Settings for a new array (zarr_array_builder_new ... zarr_array_builder_create).
  type, public :: zarr_array_builder
    type(c_ptr) :: ptr = c_null_ptr
    integer :: ndim = 0
  end type zarr_array_builder

  !> zarr.h's zarr_store_callbacks, for c_zarr_store_open_callbacks: `version` is
  !> ZARR_STORE_CALLBACKS_VERSION, the callbacks are c_funloc of bind(C) procedures with
  !> the signatures of zarr.h's zarr_store_*_fn types (c_null_funptr for the optional ones).
  type, bind(C), public :: zarr_store_callbacks_t
    integer(c_int32_t) :: version = 0
    type(c_ptr) :: user_data = c_null_ptr
    type(c_funptr) :: get = c_null_funptr
    type(c_funptr) :: get_range = c_null_funptr
    type(c_funptr) :: size = c_null_funptr
    type(c_funptr) :: set = c_null_funptr
    type(c_funptr) :: erase = c_null_funptr
    type(c_funptr) :: list = c_null_funptr
    type(c_funptr) :: erase_prefix = c_null_funptr
    type(c_funptr) :: free_user_data = c_null_funptr
  end type zarr_store_callbacks_t

  !> A communicator: the ranks that make collective calls together. Made by
  !> zarr_comm_create_mpi (module zarr_mpi) from an MPI communicator, or by zarr_comm_create
  !> from a table of collective operations; freed with zarr_comm_free or zarr_free.
  type, public :: zarr_comm
    type(c_ptr) :: ptr = c_null_ptr
  end type zarr_comm

  !> zarr.h's zarr_comm_ops, for zarr_comm_create: `version` is ZARR_COMM_OPS_VERSION
  !> (uint32_t in C), the operations are c_funloc of bind(C) procedures with the signatures
  !> of zarr.h's zarr_comm_*_fn types; all are required but free_user_data.
  type, bind(C), public :: zarr_comm_ops_t
    integer(c_int32_t) :: version = 0
    type(c_ptr) :: user_data = c_null_ptr
    type(c_funptr) :: barrier = c_null_funptr
    type(c_funptr) :: broadcast = c_null_funptr
    type(c_funptr) :: all_gather = c_null_funptr
    type(c_funptr) :: all_gather_v = c_null_funptr
    type(c_funptr) :: all_to_all_v = c_null_funptr
    type(c_funptr) :: all_reduce_i64 = c_null_funptr
    type(c_funptr) :: free_user_data = c_null_funptr
  end type zarr_comm_ops_t

  ! ---------------------------------------------------------------------------------------
  ! The raw layer: the functions of zarr.h (docs/bindings.md lists the few not bound), C
  ! types and C (0-based, row-major) indices.
  ! ---------------------------------------------------------------------------------------
  public :: c_zarr_array_create, c_zarr_array_open, c_zarr_array_free, c_zarr_array_ndim
  public :: c_zarr_array_shape, c_zarr_array_chunk_shape, c_zarr_array_data_type
  public :: c_zarr_array_element_size, c_zarr_array_chunk_nbytes
  public :: c_zarr_array_selection_nbytes, c_zarr_array_read, c_zarr_array_write
  public :: c_zarr_array_read_double, c_zarr_array_fill_value_double, c_zarr_data_type_str
  public :: c_zarr_sub_byte_to_int8, c_zarr_int8_to_sub_byte
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
  public :: c_zarr_array_attribute_count, c_zarr_array_attribute_double
  public :: c_zarr_array_attribute_double_array, c_zarr_array_attribute_int64
  public :: c_zarr_array_attribute_int64_array, c_zarr_array_attribute_name
  public :: c_zarr_array_attribute_string, c_zarr_array_builder_add_codec
  public :: c_zarr_array_builder_add_gzip, c_zarr_array_builder_add_zstd
  public :: c_zarr_array_builder_create, c_zarr_array_builder_free, c_zarr_array_builder_new
  public :: c_zarr_array_builder_set_attribute_double, c_zarr_array_builder_set_attribute_int64
  public :: c_zarr_array_builder_set_attribute_string, c_zarr_array_builder_set_attributes_json
  public :: c_zarr_array_builder_set_chunk_shape, c_zarr_array_builder_set_dimension_name
  public :: c_zarr_array_builder_set_fill_value, c_zarr_array_builder_set_format
  public :: c_zarr_array_builder_set_shard_shape, c_zarr_array_chunk_stored_nbytes
  public :: c_zarr_array_codec_configuration_json, c_zarr_array_codec_count
  public :: c_zarr_array_codec_name, c_zarr_array_delete_attribute, c_zarr_array_dimension_name
  public :: c_zarr_array_erase_chunk, c_zarr_array_fill_value, c_zarr_array_format
  public :: c_zarr_array_set_attribute_double, c_zarr_array_set_attribute_double_array
  public :: c_zarr_array_set_attribute_int64, c_zarr_array_set_attribute_int64_array
  public :: c_zarr_array_set_attribute_string, c_zarr_group_attribute_count
  public :: c_zarr_group_attribute_double, c_zarr_group_attribute_double_array
  public :: c_zarr_group_attribute_int64, c_zarr_group_attribute_int64_array
  public :: c_zarr_group_attribute_name, c_zarr_group_attribute_string, c_zarr_group_child_count
  public :: c_zarr_group_child_name, c_zarr_group_child_node_type
  public :: c_zarr_group_create_with_format, c_zarr_group_delete_attribute, c_zarr_group_format
  public :: c_zarr_group_set_attribute_double, c_zarr_group_set_attribute_double_array
  public :: c_zarr_group_set_attribute_int64, c_zarr_group_set_attribute_int64_array
  public :: c_zarr_group_set_attribute_string, c_zarr_sink_extend, c_zarr_sink_write
  public :: c_zarr_store_callback_set_error, c_zarr_store_delete_node
  public :: c_zarr_store_open_callbacks, c_zarr_thread_pool_set_size, c_zarr_thread_pool_size
  public :: c_zarr_array_read_strided, c_zarr_array_write_strided, c_zarr_array_resize
  public :: c_zarr_array_append, c_zarr_array_read_vlen, c_zarr_array_write_vlen
  public :: c_zarr_comm_create, c_zarr_comm_free, c_zarr_comm_rank, c_zarr_comm_size
  public :: c_zarr_comm_agree, c_zarr_comm_last_write_json, c_zarr_comm_callback_set_error
  public :: c_zarr_array_create_collective, c_zarr_array_write_collective
  public :: c_zarr_array_read_collective, c_zarr_array_resize_collective
  public :: c_zarr_array_append_collective, c_zarr_array_set_attributes_json_collective
  public :: c_zarr_group_create_collective, c_zarr_group_set_attributes_json_collective
  public :: c_zarr_group_consolidate_collective

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

    function c_zarr_array_read_double(array, ndim, start, count, values, values_len) &
        result(status) bind(C, name="zarr_array_read_double")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: values
      integer(c_size_t), value :: values_len
      integer(c_int32_t) :: status
    end function c_zarr_array_read_double

    function c_zarr_array_fill_value_double(array, value_out) result(status) &
        bind(C, name="zarr_array_fill_value_double")
      import :: c_ptr, c_double, c_int32_t
      type(c_ptr), value :: array
      real(c_double), intent(inout) :: value_out
      integer(c_int32_t) :: status
    end function c_zarr_array_fill_value_double

    function c_zarr_data_type_str(data_type) result(text) bind(C, name="zarr_data_type_str")
      import :: c_ptr, c_int32_t
      integer(c_int32_t), value :: data_type
      type(c_ptr) :: text
    end function c_zarr_data_type_str

    function c_zarr_sub_byte_to_int8(data_type, codes, values, count) result(status) &
        bind(C, name="zarr_sub_byte_to_int8")
      import :: c_ptr, c_size_t, c_int32_t
      integer(c_int32_t), value :: data_type
      type(c_ptr), value :: codes, values
      integer(c_size_t), value :: count
      integer(c_int32_t) :: status
    end function c_zarr_sub_byte_to_int8

    function c_zarr_int8_to_sub_byte(data_type, values, codes, count) result(status) &
        bind(C, name="zarr_int8_to_sub_byte")
      import :: c_ptr, c_size_t, c_int32_t
      integer(c_int32_t), value :: data_type
      type(c_ptr), value :: values, codes
      integer(c_size_t), value :: count
      integer(c_int32_t) :: status
    end function c_zarr_int8_to_sub_byte

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
        bind(C, name="zarr_thread_pool_set_size")
      import :: c_size_t, c_int32_t
      integer(c_size_t), value :: num_threads
      integer(c_int32_t) :: status
    end function c_zarr_set_num_threads

    function c_zarr_num_threads(num_threads_out) result(status) bind(C, name="zarr_thread_pool_size")
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

  ! The functions added with typed attributes, accessors, deletion, the array builder, stores
  ! of the caller's own and the renamed functions.
  interface
    function c_zarr_array_attribute_count(array, count_out) &
        result(status) bind(C, name="zarr_array_attribute_count")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_count

    function c_zarr_array_attribute_double(array, key, value) &
        result(status) bind(C, name="zarr_array_attribute_double")
      import :: c_char, c_double, c_int32_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), intent(out) :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_double

    function c_zarr_array_attribute_double_array(array, key, values, capacity, count_out) &
        result(status) bind(C, name="zarr_array_attribute_double_array")
      import :: c_char, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: values
      integer(c_size_t), value :: capacity
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_double_array

    function c_zarr_array_attribute_int64(array, key, value) &
        result(status) bind(C, name="zarr_array_attribute_int64")
      import :: c_char, c_int32_t, c_int64_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), intent(out) :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_int64

    function c_zarr_array_attribute_int64_array(array, key, values, capacity, count_out) &
        result(status) bind(C, name="zarr_array_attribute_int64_array")
      import :: c_char, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: values
      integer(c_size_t), value :: capacity
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_int64_array

    function c_zarr_array_attribute_name(array, index, name_out) &
        result(status) bind(C, name="zarr_array_attribute_name")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: index
      type(c_ptr), intent(out) :: name_out
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_name

    function c_zarr_array_attribute_string(array, key, value) &
        result(status) bind(C, name="zarr_array_attribute_string")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), intent(out) :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_attribute_string

    function c_zarr_array_builder_add_codec(builder, name, configuration_json) &
        result(status) bind(C, name="zarr_array_builder_add_codec")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: builder
      character(kind=c_char), intent(in) :: name(*)
      character(kind=c_char), intent(in), optional :: configuration_json(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_add_codec

    function c_zarr_array_builder_add_gzip(builder, level) &
        result(status) bind(C, name="zarr_array_builder_add_gzip")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: builder
      integer(c_int32_t), value :: level
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_add_gzip

    function c_zarr_array_builder_add_zstd(builder, level) &
        result(status) bind(C, name="zarr_array_builder_add_zstd")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: builder
      integer(c_int32_t), value :: level
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_add_zstd

    function c_zarr_array_builder_create(builder, store, path, out) &
        result(status) bind(C, name="zarr_array_builder_create")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: builder
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_create

    subroutine c_zarr_array_builder_free(builder) bind(C, name="zarr_array_builder_free")
      import :: c_ptr
      type(c_ptr), value :: builder
    end subroutine c_zarr_array_builder_free

    function c_zarr_array_builder_new(data_type, ndim, shape, out) &
        result(status) bind(C, name="zarr_array_builder_new")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      integer(c_int32_t), value :: data_type
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: shape(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_new

    function c_zarr_array_builder_set_attribute_double(builder, key, value) &
        result(status) bind(C, name="zarr_array_builder_set_attribute_double")
      import :: c_char, c_double, c_int32_t, c_ptr
      type(c_ptr), value :: builder
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), value :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_attribute_double

    function c_zarr_array_builder_set_attribute_int64(builder, key, value) &
        result(status) bind(C, name="zarr_array_builder_set_attribute_int64")
      import :: c_char, c_int32_t, c_int64_t, c_ptr
      type(c_ptr), value :: builder
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), value :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_attribute_int64

    function c_zarr_array_builder_set_attribute_string(builder, key, value) &
        result(status) bind(C, name="zarr_array_builder_set_attribute_string")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: builder
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(in) :: value(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_attribute_string

    function c_zarr_array_builder_set_attributes_json(builder, attributes_json) &
        result(status) bind(C, name="zarr_array_builder_set_attributes_json")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: builder
      character(kind=c_char), intent(in) :: attributes_json(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_attributes_json

    function c_zarr_array_builder_set_chunk_shape(builder, ndim, chunk_shape) &
        result(status) bind(C, name="zarr_array_builder_set_chunk_shape")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: builder
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: chunk_shape(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_chunk_shape

    function c_zarr_array_builder_set_dimension_name(builder, dim, name) &
        result(status) bind(C, name="zarr_array_builder_set_dimension_name")
      import :: c_char, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: builder
      integer(c_size_t), value :: dim
      character(kind=c_char), intent(in), optional :: name(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_dimension_name

    function c_zarr_array_builder_set_fill_value(builder, value, value_len) &
        result(status) bind(C, name="zarr_array_builder_set_fill_value")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: builder
      type(c_ptr), value :: value
      integer(c_size_t), value :: value_len
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_fill_value

    function c_zarr_array_builder_set_format(builder, zarr_format) &
        result(status) bind(C, name="zarr_array_builder_set_format")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: builder
      integer(c_int32_t), value :: zarr_format
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_format

    function c_zarr_array_builder_set_shard_shape(builder, ndim, shard_shape) &
        result(status) bind(C, name="zarr_array_builder_set_shard_shape")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: builder
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: shard_shape(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_builder_set_shard_shape

    function c_zarr_array_chunk_stored_nbytes(array, ndim, chunk_indices, stored_out, nbytes_out) &
        result(status) bind(C, name="zarr_array_chunk_stored_nbytes")
      import :: c_bool, c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: chunk_indices(*)
      logical(c_bool), intent(out) :: stored_out
      integer(c_int64_t), intent(out) :: nbytes_out
      integer(c_int32_t) :: status
    end function c_zarr_array_chunk_stored_nbytes

    function c_zarr_array_codec_configuration_json(array, index, json_out) &
        result(status) bind(C, name="zarr_array_codec_configuration_json")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: index
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_array_codec_configuration_json

    function c_zarr_array_codec_count(array, count_out) &
        result(status) bind(C, name="zarr_array_codec_count")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_array_codec_count

    function c_zarr_array_codec_name(array, index, name) &
        result(status) bind(C, name="zarr_array_codec_name")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: index
      type(c_ptr), intent(out) :: name
      integer(c_int32_t) :: status
    end function c_zarr_array_codec_name

    function c_zarr_array_delete_attribute(array, key) &
        result(status) bind(C, name="zarr_array_delete_attribute")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_delete_attribute

    function c_zarr_array_dimension_name(array, dim, name) &
        result(status) bind(C, name="zarr_array_dimension_name")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: dim
      type(c_ptr), intent(out) :: name
      integer(c_int32_t) :: status
    end function c_zarr_array_dimension_name

    function c_zarr_array_erase_chunk(array, ndim, chunk_indices) &
        result(status) bind(C, name="zarr_array_erase_chunk")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: chunk_indices(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_erase_chunk

    function c_zarr_array_fill_value(array, buf, buf_len) &
        result(status) bind(C, name="zarr_array_fill_value")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_fill_value

    function c_zarr_array_format(array, format_out) result(status) bind(C, name="zarr_array_format")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int32_t), intent(out) :: format_out
      integer(c_int32_t) :: status
    end function c_zarr_array_format

    function c_zarr_array_set_attribute_double(array, key, value) &
        result(status) bind(C, name="zarr_array_set_attribute_double")
      import :: c_char, c_double, c_int32_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), value :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attribute_double

    function c_zarr_array_set_attribute_double_array(array, key, values, count) &
        result(status) bind(C, name="zarr_array_set_attribute_double_array")
      import :: c_char, c_double, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), intent(in) :: values(*)
      integer(c_size_t), value :: count
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attribute_double_array

    function c_zarr_array_set_attribute_int64(array, key, value) &
        result(status) bind(C, name="zarr_array_set_attribute_int64")
      import :: c_char, c_int32_t, c_int64_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), value :: value
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attribute_int64

    function c_zarr_array_set_attribute_int64_array(array, key, values, count) &
        result(status) bind(C, name="zarr_array_set_attribute_int64_array")
      import :: c_char, c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), intent(in) :: values(*)
      integer(c_size_t), value :: count
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attribute_int64_array

    function c_zarr_array_set_attribute_string(array, key, value) &
        result(status) bind(C, name="zarr_array_set_attribute_string")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(in) :: value(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attribute_string

    function c_zarr_group_attribute_count(group, count_out) &
        result(status) bind(C, name="zarr_group_attribute_count")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_count

    function c_zarr_group_attribute_double(group, key, value) &
        result(status) bind(C, name="zarr_group_attribute_double")
      import :: c_char, c_double, c_int32_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), intent(out) :: value
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_double

    function c_zarr_group_attribute_double_array(group, key, values, capacity, count_out) &
        result(status) bind(C, name="zarr_group_attribute_double_array")
      import :: c_char, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: values
      integer(c_size_t), value :: capacity
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_double_array

    function c_zarr_group_attribute_int64(group, key, value) &
        result(status) bind(C, name="zarr_group_attribute_int64")
      import :: c_char, c_int32_t, c_int64_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), intent(out) :: value
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_int64

    function c_zarr_group_attribute_int64_array(group, key, values, capacity, count_out) &
        result(status) bind(C, name="zarr_group_attribute_int64_array")
      import :: c_char, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: values
      integer(c_size_t), value :: capacity
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_int64_array

    function c_zarr_group_attribute_name(group, index, name_out) &
        result(status) bind(C, name="zarr_group_attribute_name")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      integer(c_size_t), value :: index
      type(c_ptr), intent(out) :: name_out
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_name

    function c_zarr_group_attribute_string(group, key, value) &
        result(status) bind(C, name="zarr_group_attribute_string")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), intent(out) :: value
      integer(c_int32_t) :: status
    end function c_zarr_group_attribute_string

    function c_zarr_group_child_count(group, count_out) &
        result(status) bind(C, name="zarr_group_child_count")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      integer(c_size_t), intent(out) :: count_out
      integer(c_int32_t) :: status
    end function c_zarr_group_child_count

    function c_zarr_group_child_name(group, index, name) &
        result(status) bind(C, name="zarr_group_child_name")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      integer(c_size_t), value :: index
      type(c_ptr), intent(out) :: name
      integer(c_int32_t) :: status
    end function c_zarr_group_child_name

    function c_zarr_group_child_node_type(group, index, node_type_out) &
        result(status) bind(C, name="zarr_group_child_node_type")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      integer(c_size_t), value :: index
      integer(c_int32_t), intent(out) :: node_type_out
      integer(c_int32_t) :: status
    end function c_zarr_group_child_node_type

    function c_zarr_group_create_with_format(store, path, attributes_json, zarr_format, out) &
        result(status) bind(C, name="zarr_group_create_with_format")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(in), optional :: attributes_json(*)
      integer(c_int32_t), value :: zarr_format
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_group_create_with_format

    function c_zarr_group_delete_attribute(group, key) &
        result(status) bind(C, name="zarr_group_delete_attribute")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int32_t) :: status
    end function c_zarr_group_delete_attribute

    function c_zarr_group_format(group, format_out) result(status) bind(C, name="zarr_group_format")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: group
      integer(c_int32_t), intent(out) :: format_out
      integer(c_int32_t) :: status
    end function c_zarr_group_format

    function c_zarr_group_set_attribute_double(group, key, value) &
        result(status) bind(C, name="zarr_group_set_attribute_double")
      import :: c_char, c_double, c_int32_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), value :: value
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attribute_double

    function c_zarr_group_set_attribute_double_array(group, key, values, count) &
        result(status) bind(C, name="zarr_group_set_attribute_double_array")
      import :: c_char, c_double, c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), intent(in) :: values(*)
      integer(c_size_t), value :: count
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attribute_double_array

    function c_zarr_group_set_attribute_int64(group, key, value) &
        result(status) bind(C, name="zarr_group_set_attribute_int64")
      import :: c_char, c_int32_t, c_int64_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), value :: value
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attribute_int64

    function c_zarr_group_set_attribute_int64_array(group, key, values, count) &
        result(status) bind(C, name="zarr_group_set_attribute_int64_array")
      import :: c_char, c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), intent(in) :: values(*)
      integer(c_size_t), value :: count
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attribute_int64_array

    function c_zarr_group_set_attribute_string(group, key, value) &
        result(status) bind(C, name="zarr_group_set_attribute_string")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: group
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(in) :: value(*)
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attribute_string

    function c_zarr_sink_extend(sink, len, buf_out) result(status) bind(C, name="zarr_sink_extend")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: sink
      integer(c_size_t), value :: len
      type(c_ptr), intent(out) :: buf_out
      integer(c_int32_t) :: status
    end function c_zarr_sink_extend

    function c_zarr_sink_write(sink, data, len) result(status) bind(C, name="zarr_sink_write")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: sink
      type(c_ptr), value :: data
      integer(c_size_t), value :: len
      integer(c_int32_t) :: status
    end function c_zarr_sink_write

    subroutine c_zarr_store_callback_set_error(message) &
        bind(C, name="zarr_store_callback_set_error")
      import :: c_char
      character(kind=c_char), intent(in), optional :: message(*)
    end subroutine c_zarr_store_callback_set_error

    function c_zarr_store_delete_node(store, path) &
        result(status) bind(C, name="zarr_store_delete_node")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t) :: status
    end function c_zarr_store_delete_node

    function c_zarr_store_open_callbacks(callbacks, out) &
        result(status) bind(C, name="zarr_store_open_callbacks")
      import :: c_int32_t, c_ptr, zarr_store_callbacks_t
      type(zarr_store_callbacks_t), intent(in) :: callbacks
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_store_open_callbacks

    function c_zarr_thread_pool_set_size(size) &
        result(status) bind(C, name="zarr_thread_pool_set_size")
      import :: c_int32_t, c_size_t
      integer(c_size_t), value :: size
      integer(c_int32_t) :: status
    end function c_zarr_thread_pool_set_size

    function c_zarr_thread_pool_size(size_out) result(status) bind(C, name="zarr_thread_pool_size")
      import :: c_int32_t, c_size_t
      integer(c_size_t), intent(out) :: size_out
      integer(c_int32_t) :: status
    end function c_zarr_thread_pool_size

  end interface

  ! Strided transfers, resizing, appending and variable-length elements. Unsigned C values
  ! (uint64_t) are integer(c_int64_t) here.
  interface
    function c_zarr_array_read_strided(array, ndim, start, count, byte_strides, buf, buf_len) &
        result(status) bind(C, name="zarr_array_read_strided")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*), byte_strides(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_read_strided

    function c_zarr_array_write_strided(array, ndim, start, count, byte_strides, buf, buf_len) &
        result(status) bind(C, name="zarr_array_write_strided")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*), byte_strides(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_write_strided

    function c_zarr_array_resize(array, ndim, shape) result(status) &
        bind(C, name="zarr_array_resize")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_resize

    function c_zarr_array_append(array, ndim, count, dim, buf, buf_len) result(status) &
        bind(C, name="zarr_array_append")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: count(*)
      integer(c_size_t), value :: dim
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_append

    ! `data` may be C_NULL_PTR to learn `data_size` (the offsets are filled too).
    function c_zarr_array_read_vlen(array, ndim, start, count, offsets, offsets_len, data, &
                                    data_capacity, data_size) result(status) &
        bind(C, name="zarr_array_read_vlen")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      integer(c_int64_t), intent(inout) :: offsets(*)
      integer(c_size_t), value :: offsets_len
      type(c_ptr), value :: data
      integer(c_size_t), value :: data_capacity
      integer(c_size_t), intent(out) :: data_size
      integer(c_int32_t) :: status
    end function c_zarr_array_read_vlen

    function c_zarr_array_write_vlen(array, ndim, start, count, offsets, offsets_len, data, &
                                     data_size) result(status) bind(C, name="zarr_array_write_vlen")
      import :: c_ptr, c_size_t, c_int64_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*), offsets(*)
      integer(c_size_t), value :: offsets_len
      type(c_ptr), value :: data
      integer(c_size_t), value :: data_size
      integer(c_int32_t) :: status
    end function c_zarr_array_write_vlen
  end interface

  ! Communicators and collective calls (zarr.h's zarr_comm_*, *_collective). Every rank of
  ! the communicator makes a collective call; `rank` is 0-based, as in C and MPI.
  interface
    function c_zarr_comm_create(ops, rank, size, out) result(status) &
        bind(C, name="zarr_comm_create")
      import :: c_int32_t, c_ptr, c_size_t, zarr_comm_ops_t
      type(zarr_comm_ops_t), intent(in) :: ops
      integer(c_size_t), value :: rank, size
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_comm_create

    subroutine c_zarr_comm_free(comm) bind(C, name="zarr_comm_free")
      import :: c_ptr
      type(c_ptr), value :: comm
    end subroutine c_zarr_comm_free

    function c_zarr_comm_rank(comm, rank_out) result(status) bind(C, name="zarr_comm_rank")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: comm
      integer(c_size_t), intent(out) :: rank_out
      integer(c_int32_t) :: status
    end function c_zarr_comm_rank

    function c_zarr_comm_size(comm, size_out) result(status) bind(C, name="zarr_comm_size")
      import :: c_int32_t, c_ptr, c_size_t
      type(c_ptr), value :: comm
      integer(c_size_t), intent(out) :: size_out
      integer(c_int32_t) :: status
    end function c_zarr_comm_size

    ! `message` is passed by value as a pointer so that it can be C_NULL_PTR.
    function c_zarr_comm_agree(comm, status, message) result(agreed) &
        bind(C, name="zarr_comm_agree")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: comm
      integer(c_int32_t), value :: status
      type(c_ptr), value :: message
      integer(c_int32_t) :: agreed
    end function c_zarr_comm_agree

    function c_zarr_comm_last_write_json(comm, json_out) result(status) &
        bind(C, name="zarr_comm_last_write_json")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: comm
      type(c_ptr), intent(out) :: json_out
      integer(c_int32_t) :: status
    end function c_zarr_comm_last_write_json

    subroutine c_zarr_comm_callback_set_error(message) &
        bind(C, name="zarr_comm_callback_set_error")
      import :: c_char
      character(kind=c_char), intent(in), optional :: message(*)
    end subroutine c_zarr_comm_callback_set_error

    function c_zarr_array_create_collective(comm, store, path, metadata_json, out) &
        result(status) bind(C, name="zarr_array_create_collective")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: comm, store
      character(kind=c_char), intent(in) :: path(*), metadata_json(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_array_create_collective

    function c_zarr_array_write_collective(comm, array, ndim, start, count, buf, buf_len) &
        result(status) bind(C, name="zarr_array_write_collective")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: comm, array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_write_collective

    function c_zarr_array_read_collective(comm, array, ndim, start, count, buf, buf_len) &
        result(status) bind(C, name="zarr_array_read_collective")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: comm, array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_read_collective

    function c_zarr_array_resize_collective(comm, array, ndim, shape) result(status) &
        bind(C, name="zarr_array_resize_collective")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: comm, array
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_resize_collective

    function c_zarr_array_append_collective(comm, array, dim, length, ndim, start, count, &
                                            buf, buf_len) result(status) &
        bind(C, name="zarr_array_append_collective")
      import :: c_int32_t, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: comm, array
      integer(c_size_t), value :: dim
      integer(c_int64_t), value :: length
      integer(c_size_t), value :: ndim
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_int32_t) :: status
    end function c_zarr_array_append_collective

    function c_zarr_array_set_attributes_json_collective(comm, array, attributes_json) &
        result(status) bind(C, name="zarr_array_set_attributes_json_collective")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: comm, array
      character(kind=c_char), intent(in) :: attributes_json(*)
      integer(c_int32_t) :: status
    end function c_zarr_array_set_attributes_json_collective

    ! `attributes_json` may be absent (C NULL: no attributes).
    function c_zarr_group_create_collective(comm, store, path, attributes_json, out) &
        result(status) bind(C, name="zarr_group_create_collective")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: comm, store
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(in), optional :: attributes_json(*)
      type(c_ptr), intent(out) :: out
      integer(c_int32_t) :: status
    end function c_zarr_group_create_collective

    function c_zarr_group_set_attributes_json_collective(comm, group, attributes_json) &
        result(status) bind(C, name="zarr_group_set_attributes_json_collective")
      import :: c_char, c_int32_t, c_ptr
      type(c_ptr), value :: comm, group
      character(kind=c_char), intent(in) :: attributes_json(*)
      integer(c_int32_t) :: status
    end function c_zarr_group_set_attributes_json_collective

    function c_zarr_group_consolidate_collective(comm, group) result(status) &
        bind(C, name="zarr_group_consolidate_collective")
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: comm, group
      integer(c_int32_t) :: status
    end function c_zarr_group_consolidate_collective
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
  public :: zarr_read_strings
  public :: zarr_read_section, zarr_write_section, zarr_array_resize, zarr_array_append
  public :: zarr_read_vlen, zarr_write_vlen
  public :: zarr_read_double, zarr_array_fill_value_double

  !> status = zarr_read_strings(array, values [, start, count]): fixed-length strings into
  !> character(len=*) arrays of rank 1 or 2.
  interface zarr_read_strings
    module procedure zarr_read_strings_1d, zarr_read_strings_2d
  end interface zarr_read_strings
  public :: zarr_free, zarr_last_error_message, zarr_status_str
  public :: zarr_version_string, zarr_version_number, zarr_set_num_threads, zarr_num_threads
  public :: zarr_data_type_name
  public :: zarr_sub_byte_to_int8, zarr_int8_to_sub_byte

  !> zarr_array_create(store, path, metadata_json, array): from a v3 metadata document, or
  !> zarr_array_create(store, path, shape, chunk_shape, data_type, array [, codec, level,
  !>                   fill_value, dimension_names, attributes_json]): from Fortran values.
  interface zarr_array_create
    module procedure zarr_array_create_json, zarr_array_create_i4, zarr_array_create_i8
  end interface zarr_array_create

  !> Free any handle (the generic name of zarr_store_free, zarr_group_free, zarr_array_free,
  !> zarr_array_builder_free, zarr_comm_free).
  interface zarr_free
    module procedure zarr_store_free, zarr_group_free, zarr_array_free, zarr_array_builder_free, &
      zarr_comm_free
  end interface zarr_free

  public :: zarr_array_format, zarr_group_format, zarr_group_create_with_format
  public :: zarr_thread_pool_set_size, zarr_thread_pool_size
  public :: zarr_array_dimension_name, zarr_array_fill_value, zarr_array_codec_count
  public :: zarr_array_codec_name, zarr_group_child_count, zarr_group_child_name
  public :: zarr_group_child_node_type, zarr_get_att, zarr_put_att, zarr_del_att
  public :: zarr_att_count, zarr_att_name, zarr_store_delete_node, zarr_array_erase_chunk
  public :: zarr_array_chunk_stored_nbytes, zarr_array_builder_new, zarr_array_builder_free
  public :: zarr_array_builder_set_chunk_shape, zarr_array_builder_set_shard_shape
  public :: zarr_array_builder_set_fill_value, zarr_array_builder_add_codec
  public :: zarr_array_builder_add_gzip, zarr_array_builder_add_zstd
  public :: zarr_array_builder_set_dimension_name, zarr_array_builder_set_attributes_json
  public :: zarr_array_builder_set_format, zarr_array_builder_create

  !> status = zarr_array_fill_value(array, value): the fill value as a Fortran scalar of the
  !> array's type (as for zarr_read).
  interface zarr_array_fill_value
    module procedure fill_value_i1, fill_value_i2, fill_value_i4, fill_value_i8, &
      fill_value_r4, fill_value_r8, fill_value_i1_parts, fill_value_i2_parts
  end interface zarr_array_fill_value

  !> status = zarr_get_att(array_or_group, key, value): value is character(len=:),
  !> allocatable; real(c_double); integer(c_int64_t); or an allocatable rank-1 array of
  !> real(c_double) or integer(c_int64_t). Like nf90_get_att.
  interface zarr_get_att
    module procedure get_att_array_str, get_att_group_str, get_att_array_r8, get_att_group_r8, &
      get_att_array_i8, get_att_group_i8, get_att_array_r8v, get_att_group_r8v, &
      get_att_array_i8v, get_att_group_i8v
  end interface zarr_get_att

  !> status = zarr_put_att(array_or_group_or_builder, key, value): value is a string, a
  !> real(c_double), an integer(c_int32_t) or integer(c_int64_t), or (arrays and groups) a
  !> rank-1 array of real(c_double) or integer(c_int64_t). Like nf90_put_att.
  interface zarr_put_att
    module procedure put_att_array_str, put_att_group_str, put_att_builder_str, &
      put_att_array_r8, put_att_group_r8, put_att_builder_r8, put_att_array_i8, &
      put_att_group_i8, put_att_builder_i8, put_att_array_i4, put_att_group_i4, &
      put_att_builder_i4, put_att_array_r8v, put_att_group_r8v, put_att_array_i8v, &
      put_att_group_i8v
  end interface zarr_put_att

  !> status = zarr_del_att(array_or_group, key)
  interface zarr_del_att
    module procedure del_att_array, del_att_group
  end interface zarr_del_att

  !> status = zarr_att_count(array_or_group, count)
  interface zarr_att_count
    module procedure att_count_array, att_count_group
  end interface zarr_att_count

  !> status = zarr_att_name(array_or_group, index, name): 1-based, in document order.
  interface zarr_att_name
    module procedure att_name_array, att_name_group
  end interface zarr_att_name

  !> status = zarr_array_builder_set_fill_value(builder, value): value is an
  !> integer(c_int32_t), integer(c_int64_t), real(c_float) or real(c_double) scalar of the
  !> array's element size.
  interface zarr_array_builder_set_fill_value
    module procedure builder_fill_i4, builder_fill_i8, builder_fill_r4, builder_fill_r8
  end interface zarr_array_builder_set_fill_value

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

  !> status = zarr_read_section(array, values [, start, count]): as zarr_read, but straight
  !> into `values` when it is a non-contiguous array section (b(1:5:2, :), a slice of a
  !> larger array): no contiguous temporary is made.
  interface zarr_read_section
    module procedure zarr_read_section_i1, zarr_read_section_i2, zarr_read_section_i4, &
      zarr_read_section_i8, zarr_read_section_r4, zarr_read_section_r8, zarr_read_section_c4, &
      zarr_read_section_c8, zarr_read_section_l1
  end interface zarr_read_section

  !> status = zarr_write_section(array, values [, start, count]): as zarr_write, straight
  !> from a non-contiguous `values`.
  interface zarr_write_section
    module procedure zarr_write_section_i1, zarr_write_section_i2, zarr_write_section_i4, &
      zarr_write_section_i8, zarr_write_section_r4, zarr_write_section_r8, &
      zarr_write_section_c4, zarr_write_section_c8, zarr_write_section_l1
  end interface zarr_write_section

  !> status = zarr_array_resize(array, shape): shape in Fortran order, integer(c_int32_t) or
  !> integer(c_int64_t).
  interface zarr_array_resize
    module procedure zarr_array_resize_i4, zarr_array_resize_i8
  end interface zarr_array_resize

  !> status = zarr_array_append(array, dim, values [, count]): grow Fortran dimension `dim`
  !> by count(dim) and write `values` there.
  interface zarr_array_append
    module procedure zarr_array_append_i1, zarr_array_append_i2, zarr_array_append_i4, &
      zarr_array_append_i8, zarr_array_append_r4, zarr_array_append_r8, zarr_array_append_c4, &
      zarr_array_append_c8, zarr_array_append_l1
  end interface zarr_array_append

  !> status = zarr_write_vlen(array, values [, start, count]): variable-length strings from a
  !> character array of rank 1 or 2 (trailing blanks trimmed), or
  !> status = zarr_write_vlen(array, offsets, data [, start, count]): element k is
  !> data(offsets(k) + 1 : offsets(k + 1)) (trailing blanks kept).
  interface zarr_write_vlen
    module procedure write_vlen_1d, write_vlen_2d, write_vlen_raw
  end interface zarr_write_vlen

  ! Communicators and collective calls: every rank of the communicator calls them together.
  public :: zarr_comm_create, zarr_comm_adopt, zarr_comm_free, zarr_comm_rank, zarr_comm_size
  public :: zarr_comm_agree, zarr_comm_last_write_json
  public :: zarr_array_create_collective, zarr_write_collective, zarr_read_collective
  public :: zarr_append_collective, zarr_array_resize_collective
  public :: zarr_array_set_attributes_json_collective, zarr_group_create_collective
  public :: zarr_group_set_attributes_json_collective, zarr_group_consolidate_collective

  !> zarr_array_create_collective(comm, store, path, metadata_json, array), or
  !> zarr_array_create_collective(comm, store, path, shape, chunk_shape, data_type, array
  !>                              [, codec, level, fill_value, dimension_names, attributes_json])
  !> with the arguments of zarr_array_create.
  interface zarr_array_create_collective
    module procedure zarr_array_create_collective_json, zarr_array_create_collective_i4, &
      zarr_array_create_collective_i8
  end interface zarr_array_create_collective

  !> status = zarr_write_collective(comm, array, values [, start, count]): every rank writes
  !> its box (the types, ranks and Fortran order of zarr_write).
  interface zarr_write_collective
    module procedure zarr_write_collective_i1, zarr_write_collective_i2, &
      zarr_write_collective_i4, zarr_write_collective_i8, zarr_write_collective_r4, &
      zarr_write_collective_r8, zarr_write_collective_c4, zarr_write_collective_c8, &
      zarr_write_collective_l1
  end interface zarr_write_collective

  !> status = zarr_read_collective(comm, array, values [, start, count]): every rank reads
  !> its box (boxes may overlap).
  interface zarr_read_collective
    module procedure zarr_read_collective_i1, zarr_read_collective_i2, &
      zarr_read_collective_i4, zarr_read_collective_i8, zarr_read_collective_r4, &
      zarr_read_collective_r8, zarr_read_collective_c4, zarr_read_collective_c8, &
      zarr_read_collective_l1
  end interface zarr_read_collective

  !> status = zarr_append_collective(comm, array, dim, values [, start, count, length]):
  !> grow Fortran dimension `dim` by `length`, every rank writing its box of the new block.
  interface zarr_append_collective
    module procedure zarr_append_collective_i1, zarr_append_collective_i2, &
      zarr_append_collective_i4, zarr_append_collective_i8, zarr_append_collective_r4, &
      zarr_append_collective_r8, zarr_append_collective_c4, zarr_append_collective_c8, &
      zarr_append_collective_l1
  end interface zarr_append_collective

  !> status = zarr_array_resize_collective(comm, array, shape): shape in Fortran order,
  !> integer(c_int32_t) or integer(c_int64_t), the same on every rank.
  interface zarr_array_resize_collective
    module procedure zarr_array_resize_collective_i4, zarr_array_resize_collective_i8
  end interface zarr_array_resize_collective

  ! Fortran element types of the generic data procedures.
  ! Which kind of node an attribute procedure works on.
  integer, parameter :: NODE_ARRAY = 1, NODE_GROUP = 2, NODE_BUILDER = 3

  integer, parameter :: FK_I1 = 1, FK_I2 = 2, FK_I4 = 3, FK_I8 = 4, FK_R4 = 5, FK_R8 = 6, &
    FK_C4 = 7, FK_C8 = 8, FK_L1 = 9
  ! Operations.
  integer, parameter :: OP_READ = 1, OP_WRITE = 2, OP_READ_CHUNK = 3, OP_WRITE_CHUNK = 4, &
    OP_READ_INNER_CHUNK = 5, OP_READ_SECTION = 6, OP_WRITE_SECTION = 7, &
    OP_READ_COLLECTIVE = 8, OP_WRITE_COLLECTIVE = 9
  ! The highest rank of zarr_read_section / zarr_write_section.
  integer, parameter :: MAX_SECTION_RANK = 7

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

  ! The address `p` holds, as an integer (for byte distances between elements).
  pure function address(p) result(a)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: a
    a = int(transfer(p, 0_c_intptr_t), c_int64_t)
  end function address

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
    case (ZARR_DATA_TYPE_BFLOAT16); name = 'bfloat16'
    case (ZARR_DATA_TYPE_FLOAT8_E4M3); name = 'float8_e4m3'
    case (ZARR_DATA_TYPE_FLOAT8_E4M3FN); name = 'float8_e4m3fn'
    case (ZARR_DATA_TYPE_FLOAT8_E4M3FNUZ); name = 'float8_e4m3fnuz'
    case (ZARR_DATA_TYPE_FLOAT8_E4M3B11FNUZ); name = 'float8_e4m3b11fnuz'
    case (ZARR_DATA_TYPE_FLOAT8_E5M2); name = 'float8_e5m2'
    case (ZARR_DATA_TYPE_FLOAT8_E5M2FNUZ); name = 'float8_e5m2fnuz'
    case (ZARR_DATA_TYPE_FLOAT8_E3M4); name = 'float8_e3m4'
    case (ZARR_DATA_TYPE_FLOAT8_E8M0FNU); name = 'float8_e8m0fnu'
    case (ZARR_DATA_TYPE_FIXED_LENGTH_UTF32); name = 'fixed_length_utf32'
    case (ZARR_DATA_TYPE_NULL_TERMINATED_BYTES); name = 'null_terminated_bytes'
    case (ZARR_DATA_TYPE_RAW_BYTES); name = 'raw_bytes'
    case (ZARR_DATA_TYPE_DATETIME64); name = 'numpy.datetime64'
    case (ZARR_DATA_TYPE_TIMEDELTA64); name = 'numpy.timedelta64'
    case (ZARR_DATA_TYPE_STRUCT); name = 'struct'
    case (ZARR_DATA_TYPE_STRING); name = 'string'
    case (ZARR_DATA_TYPE_BYTES); name = 'bytes'
    case (ZARR_DATA_TYPE_INT2); name = 'int2'
    case (ZARR_DATA_TYPE_INT4); name = 'int4'
    case (ZARR_DATA_TYPE_UINT2); name = 'uint2'
    case (ZARR_DATA_TYPE_UINT4); name = 'uint4'
    case (ZARR_DATA_TYPE_FLOAT4_E2M1FN); name = 'float4_e2m1fn'
    case (ZARR_DATA_TYPE_FLOAT6_E2M3FN); name = 'float6_e2m3fn'
    case (ZARR_DATA_TYPE_FLOAT6_E3M2FN); name = 'float6_e3m2fn'
    case (ZARR_DATA_TYPE_COMPLEX_BFLOAT16); name = 'complex_bfloat16'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT16); name = 'complex_float16'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT32); name = 'complex_float32'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT64); name = 'complex_float64'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN); name = 'complex_float4_e2m1fn'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT6_E2M3FN); name = 'complex_float6_e2m3fn'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT6_E3M2FN); name = 'complex_float6_e3m2fn'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E3M4); name = 'complex_float8_e3m4'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3); name = 'complex_float8_e4m3'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3B11FNUZ); name = 'complex_float8_e4m3b11fnuz'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3FNUZ); name = 'complex_float8_e4m3fnuz'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2); name = 'complex_float8_e5m2'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2FNUZ); name = 'complex_float8_e5m2fnuz'
    case (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU); name = 'complex_float8_e8m0fnu'
    case default; name = ''
    end select
  end function zarr_data_type_name

  !> int8 values of int2, int4, uint2 or uint4 codes (`data_type`), as an array of that type
  !> reads them (one byte per element, the code in the low bits): int2/int4 sign-extended,
  !> uint2/uint4 zero-extended, bits above the code ignored (as the registry says a reader
  !> ignores them). `codes` and `values` are integer(c_int8_t) arrays of any
  !> rank with the same number of elements (ZARR_ERROR_BUFFER_SIZE_MISMATCH otherwise);
  !> statuses of zarr_sub_byte_to_int8 in zarr.h. `values` is written only on success.
  function zarr_sub_byte_to_int8(data_type, codes, values) result(status)
    integer(c_int32_t), intent(in) :: data_type
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: codes
    integer(c_int8_t), dimension(..), intent(inout), target, contiguous :: values
    integer(c_int32_t) :: status
    type(c_ptr) :: pc, pv
    if (size(codes) /= size(values)) then
      status = fail(ZARR_ERROR_BUFFER_SIZE_MISMATCH, 'zarr_sub_byte_to_int8: codes has ' &
                    // itoa(int(size(codes), c_int64_t)) // ' elements but values has ' &
                    // itoa(int(size(values), c_int64_t)))
      return
    end if
    pc = c_null_ptr
    pv = c_null_ptr
    if (size(codes) > 0) then
      pc = c_loc(codes)
      pv = c_loc(values)
    end if
    status = track(c_zarr_sub_byte_to_int8(data_type, pc, pv, int(size(codes), c_size_t)))
  end function zarr_sub_byte_to_int8

  !> The int2, int4, uint2 or uint4 codes (`data_type`) of int8 `values`, as an array of that
  !> type takes them in zarr_write: `values` and `codes` are integer(c_int8_t) arrays of any
  !> rank with the same number of elements (ZARR_ERROR_BUFFER_SIZE_MISMATCH otherwise); a
  !> value out of the type's range is ZARR_ERROR_INVALID_ARGUMENT naming the first such
  !> (0-based, element order) index, "values[i]"; statuses of zarr_int8_to_sub_byte in
  !> zarr.h. `codes` is written
  !> only on success.
  function zarr_int8_to_sub_byte(data_type, values, codes) result(status)
    integer(c_int32_t), intent(in) :: data_type
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: values
    integer(c_int8_t), dimension(..), intent(inout), target, contiguous :: codes
    integer(c_int32_t) :: status
    type(c_ptr) :: pc, pv
    if (size(codes) /= size(values)) then
      status = fail(ZARR_ERROR_BUFFER_SIZE_MISMATCH, 'zarr_int8_to_sub_byte: values has ' &
                    // itoa(int(size(values), c_int64_t)) // ' elements but codes has ' &
                    // itoa(int(size(codes), c_int64_t)))
      return
    end if
    pc = c_null_ptr
    pv = c_null_ptr
    if (size(codes) > 0) then
      pc = c_loc(codes)
      pv = c_loc(values)
    end if
    status = track(c_zarr_int8_to_sub_byte(data_type, pv, pc, int(size(codes), c_size_t)))
  end function zarr_int8_to_sub_byte

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
      compatible = any(data_type == [ZARR_DATA_TYPE_INT8, ZARR_DATA_TYPE_UINT8, ZARR_DATA_TYPE_RAW, &
                                     ZARR_DATA_TYPE_NULL_TERMINATED_BYTES, ZARR_DATA_TYPE_RAW_BYTES, &
                                     ZARR_DATA_TYPE_STRUCT]) &
                   .or. (data_type >= ZARR_DATA_TYPE_FLOAT8_E4M3 &
                         .and. data_type <= ZARR_DATA_TYPE_FLOAT8_E8M0FNU) &
                   ! int2 .. float6_e3m2fn: one byte per element, the code in the low bits
                   .or. (data_type >= ZARR_DATA_TYPE_INT2 &
                         .and. data_type <= ZARR_DATA_TYPE_FLOAT6_E3M2FN) &
                   ! complex float4/float6/float8: two bytes per element (re, im), so a
                   ! buffer values(2, ...) with an explicit count
                   .or. (data_type >= ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN &
                         .and. data_type <= ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU)
    case (FK_I2)
      ! complex_bfloat16 and complex_float16 as the bits of their parts: values(2, ...)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT16, ZARR_DATA_TYPE_UINT16, &
                                     ZARR_DATA_TYPE_FLOAT16, ZARR_DATA_TYPE_BFLOAT16, &
                                     ZARR_DATA_TYPE_COMPLEX_BFLOAT16, &
                                     ZARR_DATA_TYPE_COMPLEX_FLOAT16])
    case (FK_I4)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT32, ZARR_DATA_TYPE_UINT32, &
                                     ZARR_DATA_TYPE_FIXED_LENGTH_UTF32])
    case (FK_I8)
      compatible = any(data_type == [ZARR_DATA_TYPE_INT64, ZARR_DATA_TYPE_UINT64, &
                                     ZARR_DATA_TYPE_DATETIME64, ZARR_DATA_TYPE_TIMEDELTA64])
    case (FK_R4); compatible = data_type == ZARR_DATA_TYPE_FLOAT32
    case (FK_R8); compatible = data_type == ZARR_DATA_TYPE_FLOAT64
    case (FK_C4)
      compatible = any(data_type == [ZARR_DATA_TYPE_COMPLEX64, ZARR_DATA_TYPE_COMPLEX_FLOAT32])
    case (FK_C8)
      compatible = any(data_type == [ZARR_DATA_TYPE_COMPLEX128, ZARR_DATA_TYPE_COMPLEX_FLOAT64])
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
    case (OP_READ_SECTION); name = 'zarr_read_section'
    case (OP_WRITE_SECTION); name = 'zarr_write_section'
    case (OP_READ_COLLECTIVE); name = 'zarr_read_collective'
    case (OP_WRITE_COLLECTIVE); name = 'zarr_write_collective'
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
    ! Allocated before the call: gfortran reads the bounds of an intent(out) allocatable's
    ! descriptor even when it is unallocated, and UBSan reports the arithmetic on them.
    allocate (cstart(0), ccount(0))
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

  ! Strided transfer for zarr_read_section / zarr_write_section: `base` is the address of the
  ! first element of `values`, `steps` its byte strides (Fortran order, one per dimension of
  ! `values`), `esize` the element size. The selection's extents other than 1 must be those
  ! of `values` other than 1, in order; the elements go straight to (come straight from)
  ! their places in the caller's array.
  function section_io(op, array, fk, base, esize, vshape, steps, start, count) result(status)
    integer, intent(in) :: op, fk
    type(zarr_array), intent(in) :: array
    type(c_ptr), intent(in) :: base
    integer(c_int64_t), intent(in) :: esize, vshape(:), steps(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cstart(:), ccount(:), fcount(:), fstrides(:)
    integer(c_int64_t) :: span
    integer :: n, d, j
    allocate (cstart(0), ccount(0)) ! see region_io
    if (size(vshape) > MAX_SECTION_RANK) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, op_name(op) // ': values has rank ' &
                    // itoa(int(size(vshape), c_int64_t)) // '; at most ' &
                    // itoa(int(MAX_SECTION_RANK, c_int64_t)) // ' are supported')
      return
    end if
    status = check_buffer_type(op_name(op), array, fk)
    if (status /= ZARR_OK) return
    status = c_selection(op_name(op), vshape, start, count, cstart, ccount)
    if (status /= ZARR_OK) return
    n = size(ccount)
    allocate (fcount(n), fstrides(n))
    fcount = ccount(n:1:-1)
    fstrides = esize ! the stride along an extent of 1 is never used; the C API wants >= 1
    span = 0
    if (product(fcount) /= product(vshape)) then
      status = mismatch()
      return
    end if
    if (product(fcount) > 0) then
      ! Match the selection's dimensions of extent above 1 with those of values, in order.
      j = 0
      do d = 1, n
        if (fcount(d) == 1) cycle
        j = next_dim(j)
        if (j > size(vshape)) then
          status = mismatch()
          return
        end if
        if (vshape(j) /= fcount(d)) then
          status = mismatch()
          return
        end if
        if (steps(j) < 1) then
          status = fail(ZARR_ERROR_INVALID_ARGUMENT, op_name(op) // ': values is a reversed ' &
                        // 'section (negative stride along dimension ' &
                        // itoa(int(j, c_int64_t)) // '); use ' &
                        // op_name(merge(OP_READ, OP_WRITE, op == OP_READ_SECTION)) // ' instead')
          return
        end if
        fstrides(d) = steps(j)
      end do
      span = esize + sum((fcount - 1) * fstrides)
    end if
    if (op == OP_READ_SECTION) then
      status = track(c_zarr_array_read_strided(array%ptr, int(n, c_size_t), cstart, ccount, &
                                               fstrides(n:1:-1), base, int(span, c_size_t)))
    else
      status = track(c_zarr_array_write_strided(array%ptr, int(n, c_size_t), cstart, ccount, &
                                                fstrides(n:1:-1), base, int(span, c_size_t)))
    end if
  contains
    ! The next dimension of values after `k` whose extent is not 1 (size(vshape) + 1 if none).
    integer function next_dim(k)
      integer, intent(in) :: k
      next_dim = k + 1
      do while (next_dim <= size(vshape))
        if (vshape(next_dim) /= 1) exit
        next_dim = next_dim + 1
      end do
    end function next_dim

    integer(c_int32_t) function mismatch()
      mismatch = fail(ZARR_ERROR_BUFFER_SIZE_MISMATCH, op_name(op) // ': the selection''s ' &
                      // 'extents ' // json_int_list(fcount) // ' do not match the shape ' &
                      // json_int_list(vshape) // ' of values (extents of 1 aside)')
    end function mismatch
  end function section_io

  ! zarr_array_append: grow Fortran dimension `dim` by count(dim) (count defaults to
  ! `vshape`) and write the dense buffer `buf` of `nbytes` bytes into the new part.
  function append_io(array, fk, buf, nbytes, vshape, dim, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: fk
    type(c_ptr), intent(in) :: buf
    integer(c_size_t), intent(in) :: nbytes
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in) :: dim
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: fcount(:)
    integer :: n
    character(len=*), parameter :: procname = 'zarr_array_append'
    status = check_buffer_type(procname, array, fk)
    if (status /= ZARR_OK) return
    if (present(count)) then
      n = size(count)
      allocate (fcount(n))
      fcount = int(count, c_int64_t)
    else
      n = size(vshape)
      allocate (fcount(n))
      fcount = vshape
    end if
    if (dim < 1 .or. dim > n) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': dimension ' &
                    // itoa(int(dim, c_int64_t)) // ' of ' // itoa(int(n, c_int64_t)))
      return
    end if
    if (any(fcount < 0)) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': negative count: ' &
                    // json_int_list(fcount))
      return
    end if
    status = track(c_zarr_array_append(array%ptr, int(n, c_size_t), fcount(n:1:-1), &
                                       int(n - dim, c_size_t), buf, nbytes))
  end function append_io

  ! Fixed-length strings: read the selection's elements (`n` of them, each `esize` stored
  ! bytes) as code units (4 bytes for fixed_length_utf32, 1 for byte strings) into `units`,
  ! one row of `nunits` per element.
  function read_string_units(array, vshape, start, count, units, nunits) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t), allocatable, intent(out) :: units(:, :)
    integer, intent(out) :: nunits
    integer(c_int32_t) :: status, data_type
    integer(c_size_t) :: esize
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    integer(c_int64_t) :: n
    integer(c_int8_t), allocatable, target :: bytes(:)
    integer(c_int32_t), allocatable, target :: words(:)
    character(len=*), parameter :: procname = 'zarr_read_strings'
    nunits = 0
    if (.not. c_associated(array%ptr)) then
      status = fail(ZARR_ERROR_NULL_ARGUMENT, procname // ': the array handle is not open')
      return
    end if
    status = track(c_zarr_array_data_type(array%ptr, data_type))
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_element_size(array%ptr, esize))
    if (status /= ZARR_OK) return
    allocate (cstart(0), ccount(0)) ! see region_io
    status = c_selection(procname, vshape, start, count, cstart, ccount)
    if (status /= ZARR_OK) return
    n = product(ccount)
    if (n /= product(vshape)) then
      status = fail(ZARR_ERROR_BUFFER_SIZE_MISMATCH, procname // ': the selection has ' &
                    // itoa(n) // ' elements but values has ' // itoa(product(vshape)))
      return
    end if
    select case (data_type)
    case (ZARR_DATA_TYPE_FIXED_LENGTH_UTF32)
      nunits = int(esize / 4)
      allocate (words(max(1_c_int64_t, n * nunits)))
      status = track(c_zarr_array_read(array%ptr, size(ccount, kind=c_size_t), cstart, ccount, &
                                       c_loc(words), int(n, c_size_t) * esize))
      if (status /= ZARR_OK) return
      units = reshape(words(1:n * nunits), [nunits, int(n)])
    case (ZARR_DATA_TYPE_NULL_TERMINATED_BYTES)
      nunits = int(esize)
      allocate (bytes(max(1_c_int64_t, n * nunits)))
      status = track(c_zarr_array_read(array%ptr, size(ccount, kind=c_size_t), cstart, ccount, &
                                       c_loc(bytes), int(n, c_size_t) * esize))
      if (status /= ZARR_OK) return
      ! Bytes are unsigned: 200 is the character 200, not -56.
      units = reshape(iand(int(bytes(1:n * nunits), c_int32_t), 255_c_int32_t), [nunits, int(n)])
    case default
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': the array''s data type ' &
                    // zarr_data_type_name(data_type) &
                    // ' is not fixed_length_utf32 or null_terminated_bytes')
    end select
  end function read_string_units

  ! One element's code units as a blank-padded Fortran string of `length`; fails (returns
  ! .false.) when its text is longer.
  logical function units_to_string(units, text) result(ok)
    integer(c_int32_t), intent(in) :: units(:)
    character(len=*), intent(out) :: text
    integer :: k, last
    last = 0
    do k = 1, size(units)
      if (units(k) /= 0) last = k
    end do
    ok = last <= len(text)
    text = ''
    if (.not. ok) return
    do k = 1, last
      if (units(k) >= 0 .and. units(k) < 256) then
        text(k:k) = achar(units(k))
      else
        text(k:k) = '?'
      end if
    end do
  end function units_to_string

  function zarr_read_strings_1d(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(inout) :: values(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int32_t), allocatable :: units(:, :)
    character(len=len(values)), allocatable :: out(:)
    integer :: nunits, i
    status = read_string_units(array, shape(values, kind=c_int64_t), start, count, units, nunits)
    if (status /= ZARR_OK) return
    allocate (out(size(values)))
    do i = 1, size(values)
      if (.not. units_to_string(units(:, i), out(i))) then
        status = fail(ZARR_ERROR_BUFFER_TOO_SMALL, 'zarr_read_strings: element ' // itoa(int(i, &
                      c_int64_t)) // ' is longer than len(values) = ' // itoa(int(len(values), c_int64_t)))
        return
      end if
    end do
    values = out
  end function zarr_read_strings_1d

  function zarr_read_strings_2d(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(inout) :: values(:, :)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int32_t), allocatable :: units(:, :)
    character(len=len(values)), allocatable :: out(:)
    integer :: nunits, i
    status = read_string_units(array, shape(values, kind=c_int64_t), start, count, units, nunits)
    if (status /= ZARR_OK) return
    allocate (out(size(values)))
    do i = 1, size(values)
      if (.not. units_to_string(units(:, i), out(i))) then
        status = fail(ZARR_ERROR_BUFFER_TOO_SMALL, 'zarr_read_strings: element ' // itoa(int(i, &
                      c_int64_t)) // ' is longer than len(values) = ' // itoa(int(len(values), c_int64_t)))
        return
      end if
    end do
    ! Fortran's column-major order is the reversed C order of the stored array.
    values = reshape(out, shape(values))
  end function zarr_read_strings_2d

  !> Read the variable-length elements (`string`: UTF-8 text; `bytes`) of the selection
  !> `start` (1-based, default all 1), `count` (default: from start to the array's end), in
  !> Fortran order, into `values`: one element per selected element in Fortran (column-major)
  !> order, so reshape(values, count) has the selection's shape; `len(values)` is the longest
  !> element's length in bytes and shorter elements are padded with blanks (trailing blanks
  !> of an element are thus indistinguishable from the padding: `offsets` and `data` keep
  !> them). A UTF-8 character of several bytes takes several Fortran characters.
  !> Optionally `offsets` (n + 1 values from 0) and `data` (all elements' bytes one after
  !> the other): element k is data(offsets(k) + 1 : offsets(k + 1)).
  !> Statuses as zarr_array_read_vlen in zarr.h: ZARR_ERROR_UNSUPPORTED for an array of
  !> fixed-size elements (read those with zarr_read or zarr_read_strings).
  function zarr_read_vlen(array, values, start, count, offsets, data) result(status)
    type(zarr_array), intent(in) :: array
    character(len=:), allocatable, intent(inout) :: values(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int64_t), allocatable, intent(inout), optional :: offsets(:)
    character(len=:), allocatable, intent(inout), optional :: data
    integer(c_int32_t) :: status
    character(len=*), parameter :: procname = 'zarr_read_vlen'
    integer(c_int64_t), allocatable :: shp(:), cstart(:), ccount(:), offs(:)
    integer(c_int64_t) :: n, k, longest
    integer(c_size_t) :: nbytes
    character(kind=c_char, len=:), allocatable, target :: bytes
    integer :: attempt
    if (.not. c_associated(array%ptr)) then
      status = fail(ZARR_ERROR_NULL_ARGUMENT, procname // ': the array handle is not open')
      return
    end if
    allocate (cstart(0), ccount(0)) ! see region_io
    if (present(count)) then
      status = c_selection(procname, [integer(c_int64_t) ::], start, count, cstart, ccount)
    else
      ! Default count: from start to the end of the array.
      status = extents(array, 1, shp)
      if (status /= ZARR_OK) return
      if (present(start)) then
        if (size(start) == size(shp)) shp = max(0_c_int64_t, shp - int(start, c_int64_t) + 1)
      end if
      status = c_selection(procname, shp, start, cstart=cstart, ccount=ccount)
    end if
    if (status /= ZARR_OK) return
    n = product(ccount)
    allocate (offs(n + 1))
    ! First the size, then the elements; the array may change in between, so retry.
    status = track(c_zarr_array_read_vlen(array%ptr, size(ccount, kind=c_size_t), cstart, &
                                          ccount, offs, int(n + 1, c_size_t), c_null_ptr, &
                                          0_c_size_t, nbytes))
    if (status /= ZARR_OK) return
    do attempt = 1, 3
      if (allocated(bytes)) deallocate (bytes)
      allocate (character(kind=c_char, len=max(1_c_size_t, nbytes)) :: bytes)
      status = track(c_zarr_array_read_vlen(array%ptr, size(ccount, kind=c_size_t), cstart, &
                                            ccount, offs, int(n + 1, c_size_t), c_loc(bytes), &
                                            int(len(bytes), c_size_t), nbytes))
      if (status /= ZARR_ERROR_BUFFER_TOO_SMALL) exit
    end do
    if (status /= ZARR_OK) return
    longest = 0
    if (n > 0) longest = maxval(offs(2:n + 1) - offs(1:n))
    if (allocated(values)) deallocate (values)
    allocate (character(len=longest) :: values(n))
    do k = 1, n
      values(k) = bytes(offs(k) + 1:offs(k + 1))
    end do
    if (present(offsets)) offsets = offs
    if (present(data)) data = bytes(1:nbytes)
  end function zarr_read_vlen

  ! zarr_write_vlen's common part: element k is data(offsets(k) + 1 : offsets(k + 1)).
  function write_vlen(array, offsets, data, vshape, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), intent(in) :: offsets(:)
    character(kind=c_char, len=*), intent(in), target :: data
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    character(len=*), parameter :: procname = 'zarr_write_vlen'
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    type(c_ptr) :: p
    if (.not. c_associated(array%ptr)) then
      status = fail(ZARR_ERROR_NULL_ARGUMENT, procname // ': the array handle is not open')
      return
    end if
    allocate (cstart(0), ccount(0)) ! see region_io
    status = c_selection(procname, vshape, start, count, cstart, ccount)
    if (status /= ZARR_OK) return
    if (product(ccount) + 1 /= size(offsets, kind=c_int64_t)) then
      status = fail(ZARR_ERROR_BUFFER_SIZE_MISMATCH, procname // ': the selection has ' &
                    // itoa(product(ccount)) // ' elements but values has ' &
                    // itoa(size(offsets, kind=c_int64_t) - 1))
      return
    end if
    p = c_null_ptr
    if (len(data) > 0) p = c_loc(data)
    status = track(c_zarr_array_write_vlen(array%ptr, size(ccount, kind=c_size_t), cstart, &
                                           ccount, offsets, size(offsets, kind=c_size_t), p, &
                                           len(data, kind=c_size_t)))
  end function write_vlen

  ! Offsets and bytes of `values` with their trailing blanks removed.
  subroutine pack_vlen(values, offsets, data)
    character(len=*), intent(in) :: values(:)
    integer(c_int64_t), allocatable, intent(inout) :: offsets(:)
    character(kind=c_char, len=:), allocatable, intent(inout) :: data
    integer :: k
    if (allocated(offsets)) deallocate (offsets)
    allocate (offsets(size(values) + 1))
    offsets(1) = 0
    do k = 1, size(values)
      offsets(k + 1) = offsets(k) + len_trim(values(k))
    end do
    if (allocated(data)) deallocate (data)
    allocate (character(kind=c_char, len=offsets(size(values) + 1)) :: data)
    do k = 1, size(values)
      data(offsets(k) + 1:offsets(k + 1)) = values(k)(1:len_trim(values(k)))
    end do
  end subroutine pack_vlen

  function write_vlen_1d(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: values(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: offsets(:)
    character(kind=c_char, len=:), allocatable :: data
    call pack_vlen(values, offsets, data)
    status = write_vlen(array, offsets, data, shape(values, kind=c_int64_t), start, count)
  end function write_vlen_1d

  function write_vlen_2d(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: values(:, :)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: offsets(:)
    character(kind=c_char, len=:), allocatable :: data
    ! Fortran's column-major order is the reversed C order of the stored array.
    call pack_vlen(reshape(values, [size(values)]), offsets, data)
    status = write_vlen(array, offsets, data, shape(values, kind=c_int64_t), start, count)
  end function write_vlen_2d

  function write_vlen_raw(array, offsets, data, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), intent(in) :: offsets(:)
    character(len=*), intent(in) :: data
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    status = write_vlen(array, offsets, data, [size(offsets, kind=c_int64_t) - 1], start, count)
  end function write_vlen_raw

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

  !> Deprecated name of zarr_thread_pool_set_size (kept for one release).
  function zarr_set_num_threads(num_threads) result(status)
    integer, intent(in) :: num_threads
    integer(c_int32_t) :: status
    if (num_threads < 0) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_set_num_threads: negative count')
      return
    end if
    status = track(c_zarr_thread_pool_set_size(int(num_threads, c_size_t)))
  end function zarr_set_num_threads

  !> Deprecated name of zarr_thread_pool_size (kept for one release).
  function zarr_num_threads(num_threads) result(status)
    integer, intent(inout) :: num_threads
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_thread_pool_size(n))
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
  !> timeout_ms, max_retries, read_only, create...). A local directory or S3 bucket must
  !> exist (ZARR_ERROR_NOT_FOUND) unless options_json says "create": true.
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

  !> Deprecated: zarr_group_create_with_format(store, path, 2, group, attributes_json).
  function zarr_group_create_v2(store, path, group, attributes_json) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_group), intent(out) :: group
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    if (present(attributes_json)) then
      status = track(c_zarr_group_create_with_format(store%ptr, c_str(path), &
                                                     c_str(attributes_json), 2_c_int32_t, group%ptr))
    else
      status = track(c_zarr_group_create_with_format(store%ptr, c_str(path), c_str("{}"), &
                                                     2_c_int32_t, group%ptr))
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

  !> Deprecated name of zarr_group_format (kept for one release).
  function zarr_group_zarr_format(group, format) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(inout) :: format
    integer(c_int32_t) :: status, f
    status = track(c_zarr_group_format(group%ptr, f))
    if (status == ZARR_OK) format = int(f)
  end function zarr_group_zarr_format

  !> Deprecated name of zarr_array_format (kept for one release).
  function zarr_array_zarr_format(array, format) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(inout) :: format
    integer(c_int32_t) :: status, f
    status = track(c_zarr_array_format(array%ptr, f))
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
    character(len=:), allocatable :: json
    status = array_metadata('zarr_array_create', shape, chunk_shape, data_type, json, codec, &
                            level, fill_value, dimension_names, attributes_json)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_create(store%ptr, c_str(path), c_str(json), array%ptr))
  end function zarr_array_create_i8

  ! The v3 metadata document of zarr_array_create's Fortran form, into `json`; fails (with
  ! `procname` in the message) for an unknown data type or codec.
  function array_metadata(procname, shape, chunk_shape, data_type, json, codec, level, &
                          fill_value, dimension_names, attributes_json) result(status)
    character(len=*), intent(in) :: procname
    integer(c_int64_t), intent(in) :: shape(:), chunk_shape(:)
    integer(c_int32_t), intent(in) :: data_type
    character(len=:), allocatable, intent(inout) :: json
    character(len=*), intent(in), optional :: codec
    integer, intent(in), optional :: level
    character(len=*), intent(in), optional :: fill_value
    character(len=*), intent(in), optional :: dimension_names(:)
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    character(len=:), allocatable :: type_name, codecs, fill, name
    integer :: k, lvl

    type_name = zarr_data_type_name(data_type)
    if (len(type_name) == 0 .or. data_type == ZARR_DATA_TYPE_RAW) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': unsupported data type ' &
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
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': unknown codec "' &
                    // trim(codec) // '" (expected "none", "zstd" or "gzip")')
      return
    end select

    if (present(fill_value)) then
      fill = trim(adjustl(fill_value))
      if (.not. json_literal(fill)) fill = json_quote(fill)
    else if (data_type == ZARR_DATA_TYPE_BOOL) then
      fill = 'false'
    else if (data_type == ZARR_DATA_TYPE_COMPLEX64 .or. data_type == ZARR_DATA_TYPE_COMPLEX128 &
             .or. (data_type >= ZARR_DATA_TYPE_COMPLEX_BFLOAT16 &
                   .and. data_type <= ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU)) then
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
    status = ZARR_OK
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
  end function array_metadata

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
    allocate (cstart(0), ccount(0)) ! see region_io
    status = c_selection('zarr_array_selection_nbytes', [integer(c_int64_t) ::], start, &
                         count, cstart, ccount)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_selection_nbytes(array%ptr, size(ccount, kind=c_size_t), &
                                                 cstart, ccount, n))
    if (status == ZARR_OK) nbytes = n
  end function zarr_array_selection_nbytes

  !> Change the array's shape to `shape` (Fortran order, same rank; grow or shrink any
  !> dimension). Elements between the old edge and a grown one read as the fill value.
  !> Statuses as zarr_array_resize in zarr.h (ZARR_ERROR_INVALID_ARGUMENT for the wrong rank
  !> or, checked here, a negative extent).
  function zarr_array_resize_i8(array, shape) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), intent(in) :: shape(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    if (any(shape < 0)) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_resize: negative extent: ' &
                    // json_int_list(shape))
      return
    end if
    allocate (c(size(shape)))
    c = shape(size(shape):1:-1)
    status = track(c_zarr_array_resize(array%ptr, size(c, kind=c_size_t), c))
  end function zarr_array_resize_i8

  function zarr_array_resize_i4(array, shape) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), intent(in) :: shape(:)
    integer(c_int32_t) :: status
    status = zarr_array_resize_i8(array, int(shape, c_int64_t))
  end function zarr_array_resize_i4

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

  !> status = zarr_read_double(array, values [, start, count]): as zarr_read, into a
  !> real(c_double) array of any rank, converting the elements of any real number type
  !> (bool, integers, float16, bfloat16, float8, float32, float64; see
  !> zarr_array_read_double in zarr.h). No attribute is applied: CF packing
  !> (scale_factor, add_offset, _FillValue) is the caller's. The selection (count, default
  !> shape(values)) must have size(values) elements, otherwise
  !> ZARR_ERROR_BUFFER_SIZE_MISMATCH; other types are ZARR_ERROR_TYPE_MISMATCH.
  function zarr_read_double(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    type(c_ptr) :: p
    allocate (cstart(0), ccount(0)) ! see region_io
    if (.not. c_associated(array%ptr)) then
      status = fail(ZARR_ERROR_NULL_ARGUMENT, 'zarr_read_double: the array handle is not open')
      return
    end if
    status = c_selection('zarr_read_double', shape(values, kind=c_int64_t), start, count, &
                         cstart, ccount)
    if (status /= ZARR_OK) return
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = track(c_zarr_array_read_double(array%ptr, size(ccount, kind=c_size_t), cstart, &
                                            ccount, p, size(values, kind=c_size_t)))
  end function zarr_read_double

  !> status = zarr_array_fill_value_double(array, value): the fill value converted to
  !> real(c_double) as zarr_read_double converts (xarray keeps a Zarr v2 variable's
  !> _FillValue there). ZARR_ERROR_NOT_FOUND for a Zarr v2 fill_value of null.
  function zarr_array_fill_value_double(array, value) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), intent(inout) :: value
    integer(c_int32_t) :: status
    status = track(c_zarr_array_fill_value_double(array%ptr, value))
  end function zarr_array_fill_value_double

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

  ! ---------------------------------------------------------------------------------------
  ! Array sections (strided transfers) and appending, one per Fortran element type (all alike).
  ! ---------------------------------------------------------------------------------------

  ! section_layout_*: the address of the first element of `values` (an array section or a
  ! whole array) and the byte distance from it to the next element along each dimension,
  ! taken from the addresses of neighbouring elements (0 along extents of 1; negative
  ! along a reversed section). Ranks 0 to MAX_SECTION_RANK.
  subroutine section_layout_i1(values, base, steps)
    integer(c_int8_t), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_i1

  subroutine section_layout_i2(values, base, steps)
    integer(c_int16_t), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_i2

  subroutine section_layout_i4(values, base, steps)
    integer(c_int32_t), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_i4

  subroutine section_layout_i8(values, base, steps)
    integer(c_int64_t), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_i8

  subroutine section_layout_r4(values, base, steps)
    real(c_float), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_r4

  subroutine section_layout_r8(values, base, steps)
    real(c_double), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_r8

  subroutine section_layout_c4(values, base, steps)
    complex(c_float_complex), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_c4

  subroutine section_layout_c8(values, base, steps)
    complex(c_double_complex), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_c8

  subroutine section_layout_l1(values, base, steps)
    logical(c_bool), dimension(..), intent(in), target :: values
    type(c_ptr), intent(out) :: base
    integer(c_int64_t), intent(out) :: steps(:)
    integer :: i(MAX_SECTION_RANK)
    base = c_null_ptr
    steps = 0
    if (size(values) == 0 .or. rank(values) > MAX_SECTION_RANK) return
    i = 1
    i(1:rank(values)) = min(2, shape(values))
    select rank (v => values)
    rank (0)
      base = c_loc(v)
    rank (1)
      base = c_loc(v(1))
      steps = [address(c_loc(v(i(1))))] - address(base)
    rank (2)
      base = c_loc(v(1, 1))
      steps = [address(c_loc(v(i(1), 1))), address(c_loc(v(1, i(2))))] - address(base)
    rank (3)
      base = c_loc(v(1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1))), &
               address(c_loc(v(1, i(2), 1))), &
               address(c_loc(v(1, 1, i(3))))] - address(base)
    rank (4)
      base = c_loc(v(1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1))), &
               address(c_loc(v(1, 1, 1, i(4))))] - address(base)
    rank (5)
      base = c_loc(v(1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5))))] - address(base)
    rank (6)
      base = c_loc(v(1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6))))] - address(base)
    rank (7)
      base = c_loc(v(1, 1, 1, 1, 1, 1, 1))
      steps = [address(c_loc(v(i(1), 1, 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, i(2), 1, 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, i(3), 1, 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, i(4), 1, 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, i(5), 1, 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, i(6), 1))), &
               address(c_loc(v(1, 1, 1, 1, 1, 1, i(7))))] - address(base)
    end select
  end subroutine section_layout_l1

  function zarr_read_section_i1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i1(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_I1, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_i1

  function zarr_read_section_i2(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i2(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_I2, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_i2

  function zarr_read_section_i4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i4(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_I4, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_i4

  function zarr_read_section_i8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i8(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_I8, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_i8

  function zarr_read_section_r4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_float), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_r4(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_R4, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_r4

  function zarr_read_section_r8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_r8(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_R8, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_r8

  function zarr_read_section_c4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_float_complex), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_c4(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_C4, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_c4

  function zarr_read_section_c8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_double_complex), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_c8(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_C8, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_c8

  function zarr_read_section_l1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    logical(c_bool), dimension(..), intent(inout), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_l1(values, base, steps)
    status = section_io(OP_READ_SECTION, array, FK_L1, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_read_section_l1

  function zarr_write_section_i1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i1(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_I1, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_i1

  function zarr_write_section_i2(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i2(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_I2, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_i2

  function zarr_write_section_i4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i4(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_I4, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_i4

  function zarr_write_section_i8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_i8(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_I8, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_i8

  function zarr_write_section_r4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_float), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_r4(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_R4, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_r4

  function zarr_write_section_r8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_r8(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_R8, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_r8

  function zarr_write_section_c4(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_float_complex), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_c4(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_C4, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_c4

  function zarr_write_section_c8(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    complex(c_double_complex), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_c8(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_C8, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_c8

  function zarr_write_section_l1(array, values, start, count) result(status)
    type(zarr_array), intent(in) :: array
    logical(c_bool), dimension(..), intent(in), target :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: base
    integer(c_int64_t) :: steps(rank(values))
    call section_layout_l1(values, base, steps)
    status = section_io(OP_WRITE_SECTION, array, FK_L1, base, storage_size(values, c_int64_t) / 8, &
                        shape(values, kind=c_int64_t), steps, start, count)
  end function zarr_write_section_l1

  function zarr_array_append_i1(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_I1, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_i1

  function zarr_array_append_i2(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int16_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_I2, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_i2

  function zarr_array_append_i4(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int32_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_I4, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_i4

  function zarr_array_append_i8(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int64_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_I8, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_i8

  function zarr_array_append_r4(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    real(c_float), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_R4, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_r4

  function zarr_array_append_r8(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    real(c_double), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_R8, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_r8

  function zarr_array_append_c4(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    complex(c_float_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_C4, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_c4

  function zarr_array_append_c8(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    complex(c_double_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_C8, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_c8

  function zarr_array_append_l1(array, dim, values, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    logical(c_bool), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = append_io(array, FK_L1, p, c_sizeof(values), shape(values, kind=c_int64_t), &
                       dim, count)
  end function zarr_array_append_l1

  ! ---------------------------------------------------------------------------------------
  ! New names (zarr_<noun>_<verb>); the old ones above stay for one release
  ! ---------------------------------------------------------------------------------------

  !> The Zarr format (2 or 3) the array is stored in.
  function zarr_array_format(array, format) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(inout) :: format
    integer(c_int32_t) :: status, f
    status = track(c_zarr_array_format(array%ptr, f))
    if (status == ZARR_OK) format = int(f)
  end function zarr_array_format

  !> The Zarr format (2 or 3) the group is stored in.
  function zarr_group_format(group, format) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(inout) :: format
    integer(c_int32_t) :: status, f
    status = track(c_zarr_group_format(group%ptr, f))
    if (status == ZARR_OK) format = int(f)
  end function zarr_group_format

  !> Create a group at `path` in Zarr format `zarr_format` (2 or 3), with optional attributes.
  function zarr_group_create_with_format(store, path, zarr_format, group, attributes_json) &
      result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    integer, intent(in) :: zarr_format
    type(zarr_group), intent(out) :: group
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    if (present(attributes_json)) then
      status = track(c_zarr_group_create_with_format(store%ptr, c_str(path), &
                     c_str(attributes_json), int(zarr_format, c_int32_t), group%ptr))
    else
      status = track(c_zarr_group_create_with_format(store%ptr, c_str(path), &
                     zarr_format=int(zarr_format, c_int32_t), out=group%ptr))
    end if
  end function zarr_group_create_with_format

  !> Set the number of worker threads (0: the default).
  function zarr_thread_pool_set_size(size) result(status)
    integer, intent(in) :: size
    integer(c_int32_t) :: status
    if (size < 0) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_thread_pool_set_size: negative size')
      return
    end if
    status = track(c_zarr_thread_pool_set_size(int(size, c_size_t)))
  end function zarr_thread_pool_set_size

  !> The number of worker threads libzarr uses.
  function zarr_thread_pool_size(size) result(status)
    integer, intent(inout) :: size
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_thread_pool_size(n))
    if (status == ZARR_OK) size = int(n)
  end function zarr_thread_pool_size

  ! ---------------------------------------------------------------------------------------
  ! Metadata without JSON: dimension names, fill value, codecs, children
  ! ---------------------------------------------------------------------------------------

  ! The array's rank, or a negative status.
  function rank_of(array, ndim) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_size_t), intent(out) :: ndim
    integer(c_int32_t) :: status
    status = track(c_zarr_array_ndim(array%ptr, ndim))
  end function rank_of

  !> The name of dimension `dim` in Fortran order (1-based; dimension 1 varies fastest),
  !> '' with `named` false when the dimension has no name (v3 dimension_names, v2
  !> _ARRAY_DIMENSIONS).
  function zarr_array_dimension_name(array, dim, name, named) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    character(len=:), allocatable, intent(inout) :: name
    logical, intent(out), optional :: named
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    type(c_ptr) :: p
    status = rank_of(array, n)
    if (status /= ZARR_OK) return
    if (dim < 1 .or. dim > n) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_array_dimension_name: dimension ' // &
                    itoa(int(dim, c_int64_t)) // ' of ' // itoa(int(n, c_int64_t)))
      return
    end if
    status = track(c_zarr_array_dimension_name(array%ptr, n - int(dim, c_size_t), p))
    if (status /= ZARR_OK) return
    if (present(named)) named = c_associated(p)
    if (c_associated(p)) then
      call take_c_string(p, name)
    else
      name = ''
    end if
  end function zarr_array_dimension_name

  ! The fill value into a buffer of `nbytes` at `p` holding a Fortran value of kind `fk`.
  function fill_value_io(array, fk, p, nbytes) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: fk
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: nbytes
    integer(c_int32_t) :: status
    status = check_buffer_type('zarr_array_fill_value', array, fk)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_fill_value(array%ptr, p, nbytes))
  end function fill_value_io

  function fill_value_i1(array, value) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), target, intent(inout) :: value
    integer(c_int32_t) :: status
    status = fill_value_io(array, FK_I1, c_loc(value), c_sizeof(value))
  end function fill_value_i1

  ! The fill value of an element wider than one integer: value(2) for the complex types
  ! whose parts are held as bits (real part, imaginary part), or the bytes of a struct.
  function fill_value_i1_parts(array, value) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), target, contiguous, intent(inout) :: value(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(value) > 0) p = c_loc(value)
    status = fill_value_io(array, FK_I1, p, &
                           int(size(value), c_size_t) * int(storage_size(value) / 8, c_size_t))
  end function fill_value_i1_parts

  function fill_value_i2_parts(array, value) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), target, contiguous, intent(inout) :: value(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(value) > 0) p = c_loc(value)
    status = fill_value_io(array, FK_I2, p, &
                           int(size(value), c_size_t) * int(storage_size(value) / 8, c_size_t))
  end function fill_value_i2_parts

  function fill_value_i2(array, value) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), target, intent(inout) :: value
    integer(c_int32_t) :: status
    status = fill_value_io(array, FK_I2, c_loc(value), c_sizeof(value))
  end function fill_value_i2

  function fill_value_i4(array, value) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), target, intent(inout) :: value
    integer(c_int32_t) :: status
    status = fill_value_io(array, FK_I4, c_loc(value), c_sizeof(value))
  end function fill_value_i4

  function fill_value_i8(array, value) result(status)
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), target, intent(inout) :: value
    integer(c_int32_t) :: status
    status = fill_value_io(array, FK_I8, c_loc(value), c_sizeof(value))
  end function fill_value_i8

  function fill_value_r4(array, value) result(status)
    type(zarr_array), intent(in) :: array
    real(c_float), target, intent(inout) :: value
    integer(c_int32_t) :: status
    status = fill_value_io(array, FK_R4, c_loc(value), c_sizeof(value))
  end function fill_value_r4

  function fill_value_r8(array, value) result(status)
    type(zarr_array), intent(in) :: array
    real(c_double), target, intent(inout) :: value
    integer(c_int32_t) :: status
    status = fill_value_io(array, FK_R8, c_loc(value), c_sizeof(value))
  end function fill_value_r8

  !> The number of codecs of the array.
  function zarr_array_codec_count(array, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(inout) :: count
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_array_codec_count(array%ptr, n))
    if (status == ZARR_OK) count = int(n)
  end function zarr_array_codec_count

  !> The Zarr v3 name of codec number `index` (1-based, encoding order).
  function zarr_array_codec_name(array, index, name) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: index
    character(len=:), allocatable, intent(inout) :: name
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    if (index < 1) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_array_codec_name: index below 1')
      return
    end if
    status = track(c_zarr_array_codec_name(array%ptr, int(index - 1, c_size_t), p))
    if (status == ZARR_OK) call take_c_string(p, name)
  end function zarr_array_codec_name

  !> List the group's children now and give their number (see zarr_group_child_count).
  function zarr_group_child_count(group, count) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(inout) :: count
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_group_child_count(group%ptr, n))
    if (status == ZARR_OK) count = int(n)
  end function zarr_group_child_count

  !> The name of child number `index` (1-based, sorted by name).
  function zarr_group_child_name(group, index, name) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(in) :: index
    character(len=:), allocatable, intent(inout) :: name
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    if (index < 1) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_group_child_name: index below 1')
      return
    end if
    status = track(c_zarr_group_child_name(group%ptr, int(index - 1, c_size_t), p))
    if (status == ZARR_OK) call take_c_string(p, name)
  end function zarr_group_child_name

  !> The node type (ZARR_NODE_TYPE_ARRAY or ZARR_NODE_TYPE_GROUP) of child number `index`.
  function zarr_group_child_node_type(group, index, node_type) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(in) :: index
    integer(c_int32_t), intent(inout) :: node_type
    integer(c_int32_t) :: status, t
    if (index < 1) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_group_child_node_type: index below 1')
      return
    end if
    status = track(c_zarr_group_child_node_type(group%ptr, int(index - 1, c_size_t), t))
    if (status == ZARR_OK) node_type = t
  end function zarr_group_child_node_type

  ! ---------------------------------------------------------------------------------------
  ! Typed attributes (netCDF's nf90_get_att / nf90_put_att / nf90_del_att)
  ! ---------------------------------------------------------------------------------------

  function get_att_str(kind, node, key, value) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    character(len=:), allocatable, intent(inout) :: value
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_string(node, c_str(key), p))
    else
      status = track(c_zarr_group_attribute_string(node, c_str(key), p))
    end if
    if (status == ZARR_OK) call take_c_string(p, value)
  end function get_att_str

  function get_att_r8(kind, node, key, value) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    real(c_double), intent(inout) :: value
    integer(c_int32_t) :: status
    real(c_double) :: v
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_double(node, c_str(key), v))
    else
      status = track(c_zarr_group_attribute_double(node, c_str(key), v))
    end if
    if (status == ZARR_OK) value = v
  end function get_att_r8

  function get_att_i8(kind, node, key, value) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(inout) :: value
    integer(c_int32_t) :: status
    integer(c_int64_t) :: v
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_int64(node, c_str(key), v))
    else
      status = track(c_zarr_group_attribute_int64(node, c_str(key), v))
    end if
    if (status == ZARR_OK) value = v
  end function get_att_i8

  function get_att_r8v(kind, node, key, values) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    real(c_double), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    real(c_double), allocatable, target :: v(:)
    integer(c_size_t) :: n, capacity
    n = 0
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_double_array(node, c_str(key), c_null_ptr, 0_c_size_t, n))
    else
      status = track(c_zarr_group_attribute_double_array(node, c_str(key), c_null_ptr, 0_c_size_t, n))
    end if
    if (status /= ZARR_OK) return
    capacity = n
    allocate (v(max(capacity, 1_c_size_t)))
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_double_array(node, c_str(key), c_loc(v), capacity, n))
    else
      status = track(c_zarr_group_attribute_double_array(node, c_str(key), c_loc(v), capacity, n))
    end if
    if (status == ZARR_OK) values = v(1:n)
  end function get_att_r8v

  function get_att_i8v(kind, node, key, values) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    integer(c_int64_t), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable, target :: v(:)
    integer(c_size_t) :: n, capacity
    n = 0
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_int64_array(node, c_str(key), c_null_ptr, 0_c_size_t, n))
    else
      status = track(c_zarr_group_attribute_int64_array(node, c_str(key), c_null_ptr, 0_c_size_t, n))
    end if
    if (status /= ZARR_OK) return
    capacity = n
    allocate (v(max(capacity, 1_c_size_t)))
    if (kind == NODE_ARRAY) then
      status = track(c_zarr_array_attribute_int64_array(node, c_str(key), c_loc(v), capacity, n))
    else
      status = track(c_zarr_group_attribute_int64_array(node, c_str(key), c_loc(v), capacity, n))
    end if
    if (status == ZARR_OK) values = v(1:n)
  end function get_att_i8v

  function get_att_array_str(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    character(len=:), allocatable, intent(inout) :: value
    integer(c_int32_t) :: status
    status = get_att_str(NODE_ARRAY, array%ptr, key, value)
  end function get_att_array_str

  function get_att_group_str(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    character(len=:), allocatable, intent(inout) :: value
    integer(c_int32_t) :: status
    status = get_att_str(NODE_GROUP, group%ptr, key, value)
  end function get_att_group_str

  function get_att_array_r8(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    real(c_double), intent(inout) :: value
    integer(c_int32_t) :: status
    status = get_att_r8(NODE_ARRAY, array%ptr, key, value)
  end function get_att_array_r8

  function get_att_group_r8(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    real(c_double), intent(inout) :: value
    integer(c_int32_t) :: status
    status = get_att_r8(NODE_GROUP, group%ptr, key, value)
  end function get_att_group_r8

  function get_att_array_i8(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(inout) :: value
    integer(c_int32_t) :: status
    status = get_att_i8(NODE_ARRAY, array%ptr, key, value)
  end function get_att_array_i8

  function get_att_group_i8(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(inout) :: value
    integer(c_int32_t) :: status
    status = get_att_i8(NODE_GROUP, group%ptr, key, value)
  end function get_att_group_i8

  function get_att_array_r8v(array, key, values) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    real(c_double), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    status = get_att_r8v(NODE_ARRAY, array%ptr, key, values)
  end function get_att_array_r8v

  function get_att_group_r8v(group, key, values) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    real(c_double), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    status = get_att_r8v(NODE_GROUP, group%ptr, key, values)
  end function get_att_group_r8v

  function get_att_array_i8v(array, key, values) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    integer(c_int64_t), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    status = get_att_i8v(NODE_ARRAY, array%ptr, key, values)
  end function get_att_array_i8v

  function get_att_group_i8v(group, key, values) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    integer(c_int64_t), allocatable, intent(inout) :: values(:)
    integer(c_int32_t) :: status
    status = get_att_i8v(NODE_GROUP, group%ptr, key, values)
  end function get_att_group_i8v

  ! Setters: kind NODE_ARRAY, NODE_GROUP or NODE_BUILDER.
  function put_att_str(kind, node, key, value) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key, value
    integer(c_int32_t) :: status
    select case (kind)
    case (NODE_ARRAY)
      status = track(c_zarr_array_set_attribute_string(node, c_str(key), c_str(value)))
    case (NODE_GROUP)
      status = track(c_zarr_group_set_attribute_string(node, c_str(key), c_str(value)))
    case default
      status = track(c_zarr_array_builder_set_attribute_string(node, c_str(key), c_str(value)))
    end select
  end function put_att_str

  function put_att_r8(kind, node, key, value) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer(c_int32_t) :: status
    select case (kind)
    case (NODE_ARRAY)
      status = track(c_zarr_array_set_attribute_double(node, c_str(key), value))
    case (NODE_GROUP)
      status = track(c_zarr_group_set_attribute_double(node, c_str(key), value))
    case default
      status = track(c_zarr_array_builder_set_attribute_double(node, c_str(key), value))
    end select
  end function put_att_r8

  function put_att_i8(kind, node, key, value) result(status)
    integer, intent(in) :: kind
    type(c_ptr), intent(in) :: node
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer(c_int32_t) :: status
    select case (kind)
    case (NODE_ARRAY)
      status = track(c_zarr_array_set_attribute_int64(node, c_str(key), value))
    case (NODE_GROUP)
      status = track(c_zarr_group_set_attribute_int64(node, c_str(key), value))
    case default
      status = track(c_zarr_array_builder_set_attribute_int64(node, c_str(key), value))
    end select
  end function put_att_i8

  function put_att_array_str(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key, value
    integer(c_int32_t) :: status
    status = put_att_str(NODE_ARRAY, array%ptr, key, value)
  end function put_att_array_str

  function put_att_group_str(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key, value
    integer(c_int32_t) :: status
    status = put_att_str(NODE_GROUP, group%ptr, key, value)
  end function put_att_group_str

  function put_att_builder_str(builder, key, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    character(len=*), intent(in) :: key, value
    integer(c_int32_t) :: status
    status = put_att_str(NODE_BUILDER, builder%ptr, key, value)
  end function put_att_builder_str

  function put_att_array_r8(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_r8(NODE_ARRAY, array%ptr, key, value)
  end function put_att_array_r8

  function put_att_group_r8(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_r8(NODE_GROUP, group%ptr, key, value)
  end function put_att_group_r8

  function put_att_builder_r8(builder, key, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_r8(NODE_BUILDER, builder%ptr, key, value)
  end function put_att_builder_r8

  function put_att_array_i8(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_i8(NODE_ARRAY, array%ptr, key, value)
  end function put_att_array_i8

  function put_att_group_i8(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_i8(NODE_GROUP, group%ptr, key, value)
  end function put_att_group_i8

  function put_att_builder_i8(builder, key, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_i8(NODE_BUILDER, builder%ptr, key, value)
  end function put_att_builder_i8

  function put_att_array_i4(array, key, value) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    integer(c_int32_t), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_i8(NODE_ARRAY, array%ptr, key, int(value, c_int64_t))
  end function put_att_array_i4

  function put_att_group_i4(group, key, value) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    integer(c_int32_t), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_i8(NODE_GROUP, group%ptr, key, int(value, c_int64_t))
  end function put_att_group_i4

  function put_att_builder_i4(builder, key, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    character(len=*), intent(in) :: key
    integer(c_int32_t), intent(in) :: value
    integer(c_int32_t) :: status
    status = put_att_i8(NODE_BUILDER, builder%ptr, key, int(value, c_int64_t))
  end function put_att_builder_i4

  function put_att_array_r8v(array, key, values) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: values(:)
    integer(c_int32_t) :: status
    status = track(c_zarr_array_set_attribute_double_array(array%ptr, c_str(key), values, &
                                                           size(values, kind=c_size_t)))
  end function put_att_array_r8v

  function put_att_group_r8v(group, key, values) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: values(:)
    integer(c_int32_t) :: status
    status = track(c_zarr_group_set_attribute_double_array(group%ptr, c_str(key), values, &
                                                           size(values, kind=c_size_t)))
  end function put_att_group_r8v

  function put_att_array_i8v(array, key, values) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: values(:)
    integer(c_int32_t) :: status
    status = track(c_zarr_array_set_attribute_int64_array(array%ptr, c_str(key), values, &
                                                          size(values, kind=c_size_t)))
  end function put_att_array_i8v

  function put_att_group_i8v(group, key, values) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: values(:)
    integer(c_int32_t) :: status
    status = track(c_zarr_group_set_attribute_int64_array(group%ptr, c_str(key), values, &
                                                          size(values, kind=c_size_t)))
  end function put_att_group_i8v

  function del_att_array(array, key) result(status)
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: key
    integer(c_int32_t) :: status
    status = track(c_zarr_array_delete_attribute(array%ptr, c_str(key)))
  end function del_att_array

  function del_att_group(group, key) result(status)
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: key
    integer(c_int32_t) :: status
    status = track(c_zarr_group_delete_attribute(group%ptr, c_str(key)))
  end function del_att_group

  function att_count_array(array, count) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(inout) :: count
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_array_attribute_count(array%ptr, n))
    if (status == ZARR_OK) count = int(n)
  end function att_count_array

  function att_count_group(group, count) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(inout) :: count
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_group_attribute_count(group%ptr, n))
    if (status == ZARR_OK) count = int(n)
  end function att_count_group

  function att_name_array(array, index, name) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: index
    character(len=:), allocatable, intent(inout) :: name
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    if (index < 1) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_att_name: index below 1')
      return
    end if
    status = track(c_zarr_array_attribute_name(array%ptr, int(index - 1, c_size_t), p))
    if (status == ZARR_OK) call take_c_string(p, name)
  end function att_name_array

  function att_name_group(group, index, name) result(status)
    type(zarr_group), intent(in) :: group
    integer, intent(in) :: index
    character(len=:), allocatable, intent(inout) :: name
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    if (index < 1) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_att_name: index below 1')
      return
    end if
    status = track(c_zarr_group_attribute_name(group%ptr, int(index - 1, c_size_t), p))
    if (status == ZARR_OK) call take_c_string(p, name)
  end function att_name_group

  ! ---------------------------------------------------------------------------------------
  ! Deleting nodes and chunks
  ! ---------------------------------------------------------------------------------------

  !> Delete the array or group (with everything below it) at `path` (not the root).
  function zarr_store_delete_node(store, path) result(status)
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    integer(c_int32_t) :: status
    status = track(c_zarr_store_delete_node(store%ptr, c_str(path)))
  end function zarr_store_delete_node

  ! 1-based Fortran-order chunk coordinates -> 0-based C order (OUT_OF_BOUNDS below 1).
  function c_chunk_index(procname, index, cindex) result(status)
    character(len=*), intent(in) :: procname
    integer, intent(in) :: index(:)
    integer(c_int64_t), allocatable, intent(out) :: cindex(:)
    integer(c_int32_t) :: status
    if (any(index < 1)) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, procname // ': chunk indices are 1-based')
      return
    end if
    allocate (cindex(size(index)))
    cindex = int(index(size(index):1:-1) - 1, c_int64_t)
    status = ZARR_OK
  end function c_chunk_index

  !> Erase the chunk (a whole shard when sharded) at 1-based Fortran-order grid `index`.
  function zarr_array_erase_chunk(array, index) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: index(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    status = c_chunk_index('zarr_array_erase_chunk', index, c)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_erase_chunk(array%ptr, size(c, kind=c_size_t), c))
  end function zarr_array_erase_chunk

  !> Whether the chunk at 1-based Fortran-order grid `index` is stored, and its size.
  function zarr_array_chunk_stored_nbytes(array, index, stored, nbytes) result(status)
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: index(:)
    logical, intent(inout) :: stored
    integer(c_int64_t), intent(inout) :: nbytes
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    integer(c_int64_t) :: n
    logical(c_bool) :: s
    status = c_chunk_index('zarr_array_chunk_stored_nbytes', index, c)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_chunk_stored_nbytes(array%ptr, size(c, kind=c_size_t), c, s, n))
    if (status /= ZARR_OK) return
    stored = logical(s)
    nbytes = n
  end function zarr_array_chunk_stored_nbytes

  ! ---------------------------------------------------------------------------------------
  ! The array builder (shapes and dimension numbers in Fortran order)
  ! ---------------------------------------------------------------------------------------

  !> Start the settings of a new array of `data_type` and Fortran-order `shape`.
  function zarr_array_builder_new(data_type, shape, builder) result(status)
    integer(c_int32_t), intent(in) :: data_type
    integer, intent(in) :: shape(:)
    type(zarr_array_builder), intent(out) :: builder
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    allocate (c(size(shape)))
    c = int(shape(size(shape):1:-1), c_int64_t)
    builder%ndim = size(shape)
    status = track(c_zarr_array_builder_new(data_type, size(c, kind=c_size_t), c, builder%ptr))
  end function zarr_array_builder_new

  !> Free a builder (no-op if not open); the handle is reset.
  subroutine zarr_array_builder_free(builder)
    type(zarr_array_builder), intent(inout) :: builder
    call c_zarr_array_builder_free(builder%ptr)
    builder%ptr = c_null_ptr
  end subroutine zarr_array_builder_free

  !> The chunk shape (inner chunks when sharded), Fortran order.
  function zarr_array_builder_set_chunk_shape(builder, chunk_shape) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer, intent(in) :: chunk_shape(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    allocate (c(size(chunk_shape)))
    c = int(chunk_shape(size(chunk_shape):1:-1), c_int64_t)
    status = track(c_zarr_array_builder_set_chunk_shape(builder%ptr, size(c, kind=c_size_t), c))
  end function zarr_array_builder_set_chunk_shape

  !> Store the chunks in shards of `shard_shape` (Fortran order; multiples of the chunks).
  function zarr_array_builder_set_shard_shape(builder, shard_shape) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer, intent(in) :: shard_shape(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    allocate (c(size(shard_shape)))
    c = int(shard_shape(size(shard_shape):1:-1), c_int64_t)
    status = track(c_zarr_array_builder_set_shard_shape(builder%ptr, size(c, kind=c_size_t), c))
  end function zarr_array_builder_set_shard_shape

  function builder_fill_i4(builder, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer(c_int32_t), target, intent(in) :: value
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_set_fill_value(builder%ptr, c_loc(value), c_sizeof(value)))
  end function builder_fill_i4

  function builder_fill_i8(builder, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer(c_int64_t), target, intent(in) :: value
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_set_fill_value(builder%ptr, c_loc(value), c_sizeof(value)))
  end function builder_fill_i8

  function builder_fill_r4(builder, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    real(c_float), target, intent(in) :: value
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_set_fill_value(builder%ptr, c_loc(value), c_sizeof(value)))
  end function builder_fill_r4

  function builder_fill_r8(builder, value) result(status)
    type(zarr_array_builder), intent(in) :: builder
    real(c_double), target, intent(in) :: value
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_set_fill_value(builder%ptr, c_loc(value), c_sizeof(value)))
  end function builder_fill_r8

  !> Append a codec by Zarr v3 name and optional JSON configuration.
  function zarr_array_builder_add_codec(builder, name, configuration_json) result(status)
    type(zarr_array_builder), intent(in) :: builder
    character(len=*), intent(in) :: name
    character(len=*), intent(in), optional :: configuration_json
    integer(c_int32_t) :: status
    if (present(configuration_json)) then
      status = track(c_zarr_array_builder_add_codec(builder%ptr, c_str(name), &
                                                    c_str(configuration_json)))
    else
      status = track(c_zarr_array_builder_add_codec(builder%ptr, c_str(name)))
    end if
  end function zarr_array_builder_add_codec

  !> Append the gzip codec at `level` (0 to 9).
  function zarr_array_builder_add_gzip(builder, level) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer, intent(in) :: level
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_add_gzip(builder%ptr, int(level, c_int32_t)))
  end function zarr_array_builder_add_gzip

  !> Append the zstd codec at `level`.
  function zarr_array_builder_add_zstd(builder, level) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer, intent(in) :: level
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_add_zstd(builder%ptr, int(level, c_int32_t)))
  end function zarr_array_builder_add_zstd

  !> Name Fortran dimension `dim` (1-based), or unname it when `name` is absent.
  function zarr_array_builder_set_dimension_name(builder, dim, name) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer, intent(in) :: dim
    character(len=*), intent(in), optional :: name
    integer(c_int32_t) :: status
    integer(c_size_t) :: cdim
    if (dim < 1 .or. dim > builder%ndim) then
      status = fail(ZARR_ERROR_OUT_OF_BOUNDS, 'zarr_array_builder_set_dimension_name: ' // &
                    'dimension ' // itoa(int(dim, c_int64_t)) // ' of ' // &
                    itoa(int(builder%ndim, c_int64_t)))
      return
    end if
    cdim = int(builder%ndim - dim, c_size_t)
    if (present(name)) then
      status = track(c_zarr_array_builder_set_dimension_name(builder%ptr, cdim, c_str(name)))
    else
      status = track(c_zarr_array_builder_set_dimension_name(builder%ptr, cdim))
    end if
  end function zarr_array_builder_set_dimension_name

  !> Replace the builder's attributes with the JSON object `json`.
  function zarr_array_builder_set_attributes_json(builder, json) result(status)
    type(zarr_array_builder), intent(in) :: builder
    character(len=*), intent(in) :: json
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_set_attributes_json(builder%ptr, c_str(json)))
  end function zarr_array_builder_set_attributes_json

  !> Store as Zarr 2 or 3 (the default).
  function zarr_array_builder_set_format(builder, zarr_format) result(status)
    type(zarr_array_builder), intent(in) :: builder
    integer, intent(in) :: zarr_format
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_set_format(builder%ptr, int(zarr_format, c_int32_t)))
  end function zarr_array_builder_set_format

  !> Create the array at `path` from the builder's settings.
  function zarr_array_builder_create(builder, store, path, array) result(status)
    type(zarr_array_builder), intent(in) :: builder
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_array), intent(out) :: array
    integer(c_int32_t) :: status
    status = track(c_zarr_array_builder_create(builder%ptr, store%ptr, c_str(path), array%ptr))
  end function zarr_array_builder_create

  ! ---------------------------------------------------------------------------------------
  ! Communicators and collective calls
  ! ---------------------------------------------------------------------------------------

  !> Create a communicator whose collective operations are the procedures of `ops` (copied;
  !> see zarr_comm_ops_t), this being rank `rank` (0-based, as in MPI) of `size`. Not
  !> collective. MPI programs call zarr_comm_create_mpi (module zarr_mpi) instead. The
  !> communicator calls ops%free_user_data when freed; after a failure it does not.
  !> Statuses as zarr_comm_create in zarr.h (ZARR_ERROR_INVALID_ARGUMENT for an unknown
  !> version, a missing operation, size < 1 or rank outside 0 .. size - 1).
  function zarr_comm_create(ops, rank, size, comm) result(status)
    type(zarr_comm_ops_t), intent(in) :: ops
    integer, intent(in) :: rank, size
    type(zarr_comm), intent(out) :: comm
    integer(c_int32_t) :: status
    if (rank < 0 .or. size < 1) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_comm_create: rank ' &
                    // itoa(int(rank, c_int64_t)) // ' of ' // itoa(int(size, c_int64_t)) &
                    // ' ranks: need 0 <= rank < size')
      return
    end if
    status = track(c_zarr_comm_create(ops, int(rank, c_size_t), int(size, c_size_t), comm%ptr))
  end function zarr_comm_create

  !> Take over a communicator made by a C function (zarr_comm_create_mpi_f, which module
  !> zarr_mpi calls, or one of your own): `status` is what that function returned and `ptr`
  !> the zarr_comm * it gave. `comm` owns `ptr` on success and is not open otherwise.
  !> Returns `status`; after a failure zarr_last_error_message() gives libzarr's message.
  function zarr_comm_adopt(status, ptr, comm) result(st)
    integer(c_int32_t), intent(in) :: status
    type(c_ptr), intent(in) :: ptr
    type(zarr_comm), intent(out) :: comm
    integer(c_int32_t) :: st
    if (status == ZARR_OK) comm%ptr = ptr
    st = track(status)
  end function zarr_comm_adopt

  !> Free a communicator (no-op if not open); the handle is reset. Free it on every rank
  !> (for an MPI communicator: before MPI_Finalize, from the thread that makes MPI calls).
  subroutine zarr_comm_free(comm)
    type(zarr_comm), intent(inout) :: comm
    call c_zarr_comm_free(comm%ptr)
    comm%ptr = c_null_ptr
  end subroutine zarr_comm_free

  !> This rank's number in the communicator, 0 to size - 1 (as MPI_Comm_rank). Not
  !> collective.
  function zarr_comm_rank(comm, rank) result(status)
    type(zarr_comm), intent(in) :: comm
    integer, intent(inout) :: rank
    integer(c_int32_t) :: status
    integer(c_size_t) :: r
    status = track(c_zarr_comm_rank(comm%ptr, r))
    if (status == ZARR_OK) rank = int(r)
  end function zarr_comm_rank

  !> The number of ranks of the communicator. Not collective.
  function zarr_comm_size(comm, size) result(status)
    type(zarr_comm), intent(in) :: comm
    integer, intent(inout) :: size
    integer(c_int32_t) :: status
    integer(c_size_t) :: n
    status = track(c_zarr_comm_size(comm%ptr, n))
    if (status == ZARR_OK) size = int(n)
  end function zarr_comm_size

  !> Agree on an outcome, collectively: every rank passes its own `status` (ZARR_OK or the
  !> error it found) and `message` (its explanation; default zarr_last_error_message()), and
  !> gets ZARR_OK when every rank passed ZARR_OK, otherwise the status of the lowest failing
  !> rank N, zarr_last_error_message() then giving "rank N: <its message>" on every rank.
  !> For checks of your own before a collective call (a file missing on one node): either
  !> every rank makes the call or none does. Also ZARR_ERROR_NULL_ARGUMENT (comm not open:
  !> this rank alone) and ZARR_ERROR_COMMUNICATION.
  function zarr_comm_agree(comm, status, message) result(agreed)
    type(zarr_comm), intent(in) :: comm
    integer(c_int32_t), intent(in) :: status
    character(len=*), intent(in), optional :: message
    integer(c_int32_t) :: agreed
    character(kind=c_char, len=:), allocatable, target :: text
    if (status == ZARR_OK) then
      agreed = track(c_zarr_comm_agree(comm%ptr, ZARR_OK, c_null_ptr))
      return
    end if
    if (present(message)) then
      text = c_str(message)
    else
      text = c_str(zarr_last_error_message())
    end if
    agreed = track(c_zarr_comm_agree(comm%ptr, status, c_loc(text)))
  end function zarr_comm_agree

  !> What the last zarr_write_collective or zarr_append_collective through `comm` did on
  !> this rank, as JSON object text (ranks, rounds, units, units_written, units_merged,
  !> bytes_sent, bytes_received; see zarr_comm_last_write_json in zarr.h), "null" before the
  !> first one. Not collective.
  function zarr_comm_last_write_json(comm, json) result(status)
    type(zarr_comm), intent(in) :: comm
    character(len=:), allocatable, intent(inout) :: json
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    status = track(c_zarr_comm_last_write_json(comm%ptr, p))
    if (status == ZARR_OK) call take_c_string(p, json)
  end function zarr_comm_last_write_json

  ! THE RULE of collective calls: a check this module makes on one rank before a collective
  ! C call must not make that rank return while the others wait inside the call. So the
  ! outcome `status` of this rank's checks (with this module's message) is agreed with the
  ! other ranks first: ZARR_OK on every rank when every rank's checks passed, otherwise
  ! every rank gets the status of the lowest failing rank and makes no C call.
  function agree_checks(comm, status) result(st)
    type(zarr_comm), intent(in) :: comm
    integer(c_int32_t), intent(in) :: status
    integer(c_int32_t) :: st
    st = zarr_comm_agree(comm, status)
  end function agree_checks

  !> Create an array at `path` from a complete Zarr v3 metadata document, collectively:
  !> every rank passes the same arguments; rank 0 writes the metadata, then every rank opens
  !> the array. Statuses (the same on every rank) as zarr_array_create_collective in zarr.h.
  function zarr_array_create_collective_json(comm, store, path, metadata_json, array) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path, metadata_json
    type(zarr_array), intent(out) :: array
    integer(c_int32_t) :: status
    status = track(c_zarr_array_create_collective(comm%ptr, store%ptr, c_str(path), &
                                                  c_str(metadata_json), array%ptr))
  end function zarr_array_create_collective_json

  !> Create an array from Fortran values, collectively; see zarr_array_create_collective_i8.
  function zarr_array_create_collective_i4(comm, store, path, shape, chunk_shape, data_type, &
                                           array, codec, level, fill_value, dimension_names, &
                                           attributes_json) result(status)
    type(zarr_comm), intent(in) :: comm
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
    status = zarr_array_create_collective_i8(comm, store, path, int(shape, c_int64_t), &
                                             int(chunk_shape, c_int64_t), data_type, array, &
                                             codec, level, fill_value, dimension_names, &
                                             attributes_json)
  end function zarr_array_create_collective_i4

  !> Create an array from Fortran values (the arguments of zarr_array_create: shape and
  !> chunk_shape in Fortran order, data type, codec, level, fill value, dimension names,
  !> attributes), collectively: every rank passes the same arguments; rank 0 writes the
  !> metadata, then every rank opens the array. An unknown data type or codec on any rank
  !> is ZARR_ERROR_INVALID_ARGUMENT on every rank; other statuses (the same on every rank)
  !> as zarr_array_create_collective in zarr.h.
  function zarr_array_create_collective_i8(comm, store, path, shape, chunk_shape, data_type, &
                                           array, codec, level, fill_value, dimension_names, &
                                           attributes_json) result(status)
    type(zarr_comm), intent(in) :: comm
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
    character(len=:), allocatable :: json
    status = array_metadata('zarr_array_create_collective', shape, chunk_shape, data_type, &
                            json, codec, level, fill_value, dimension_names, attributes_json)
    status = agree_checks(comm, status)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_create_collective(comm%ptr, store%ptr, c_str(path), &
                                                  c_str(json), array%ptr))
  end function zarr_array_create_collective_i8

  ! zarr_read_collective / zarr_write_collective: this rank's checks (buffer type, selection)
  ! are agreed with the other ranks, then every rank calls the C function with its box.
  function collective_io(op, comm, array, fk, buf, nbytes, vshape, start, count) result(status)
    integer, intent(in) :: op, fk
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    type(c_ptr), intent(in) :: buf
    integer(c_size_t), intent(in) :: nbytes
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    allocate (cstart(0), ccount(0)) ! see region_io
    status = check_buffer_type(op_name(op), array, fk)
    if (status == ZARR_OK) status = c_selection(op_name(op), vshape, start, count, cstart, ccount)
    status = agree_checks(comm, status)
    if (status /= ZARR_OK) return
    if (op == OP_READ_COLLECTIVE) then
      status = track(c_zarr_array_read_collective(comm%ptr, array%ptr, &
                                                  size(ccount, kind=c_size_t), cstart, ccount, &
                                                  buf, nbytes))
    else
      status = track(c_zarr_array_write_collective(comm%ptr, array%ptr, &
                                                   size(ccount, kind=c_size_t), cstart, ccount, &
                                                   buf, nbytes))
    end if
  end function collective_io

  ! zarr_append_collective: grow Fortran dimension `dim` by `length` (default: where this
  ! rank's box ends along `dim`, start(dim) + count(dim) - 1), every rank writing its box
  ! (1-based `start` within the appended block, Fortran order) from the dense buffer `buf`.
  ! This rank's checks are agreed with the other ranks first.
  function collective_append(comm, array, fk, buf, nbytes, vshape, dim, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: fk
    type(c_ptr), intent(in) :: buf
    integer(c_size_t), intent(in) :: nbytes
    integer(c_int64_t), intent(in) :: vshape(:)
    integer, intent(in) :: dim
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    integer(c_int64_t) :: block
    integer :: n
    character(len=*), parameter :: procname = 'zarr_append_collective'
    allocate (cstart(0), ccount(0)) ! see region_io
    n = 0
    block = 0
    status = check_buffer_type(procname, array, fk)
    if (status == ZARR_OK) status = c_selection(procname, vshape, start, count, cstart, ccount)
    if (status == ZARR_OK) then
      n = size(ccount)
      if (dim < 1 .or. dim > n) then
        status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // ': dimension ' &
                      // itoa(int(dim, c_int64_t)) // ' of ' // itoa(int(n, c_int64_t)))
      else if (present(length)) then
        block = int(length, c_int64_t)
        if (length < 0) status = fail(ZARR_ERROR_INVALID_ARGUMENT, procname // &
                                      ': negative length ' // itoa(block))
      else
        ! Fortran dimension `dim` is C dimension n - dim, element n - dim + 1 here.
        block = cstart(n - dim + 1) + ccount(n - dim + 1)
      end if
    end if
    status = agree_checks(comm, status)
    if (status /= ZARR_OK) return
    status = track(c_zarr_array_append_collective(comm%ptr, array%ptr, int(n - dim, c_size_t), &
                                                  block, int(n, c_size_t), cstart, ccount, buf, &
                                                  nbytes))
  end function collective_append

  !> Change the array's shape to `shape` (Fortran order), collectively: every rank passes
  !> the same shape; rank 0 rewrites the metadata, then every rank's handle has the new
  !> shape. A negative extent on any rank is ZARR_ERROR_INVALID_ARGUMENT on every rank;
  !> other statuses (the same on every rank) as zarr_array_resize_collective in zarr.h.
  function zarr_array_resize_collective_i8(comm, array, shape) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), intent(in) :: shape(:)
    integer(c_int32_t) :: status
    integer(c_int64_t), allocatable :: c(:)
    status = ZARR_OK
    if (any(shape < 0)) then
      status = fail(ZARR_ERROR_INVALID_ARGUMENT, 'zarr_array_resize_collective: negative ' &
                    // 'extent: ' // json_int_list(shape))
    end if
    status = agree_checks(comm, status)
    if (status /= ZARR_OK) return
    allocate (c(size(shape)))
    c = shape(size(shape):1:-1)
    status = track(c_zarr_array_resize_collective(comm%ptr, array%ptr, size(c, kind=c_size_t), c))
  end function zarr_array_resize_collective_i8

  function zarr_array_resize_collective_i4(comm, array, shape) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), intent(in) :: shape(:)
    integer(c_int32_t) :: status
    status = zarr_array_resize_collective_i8(comm, array, int(shape, c_int64_t))
  end function zarr_array_resize_collective_i4

  !> Replace the array's attributes with the JSON object `json`, collectively (every rank
  !> passes the same text; rank 0 writes). Statuses as in zarr.h.
  function zarr_array_set_attributes_json_collective(comm, array, json) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    character(len=*), intent(in) :: json
    integer(c_int32_t) :: status
    status = track(c_zarr_array_set_attributes_json_collective(comm%ptr, array%ptr, c_str(json)))
  end function zarr_array_set_attributes_json_collective

  !> Create a Zarr v3 group at `path` ("/" for the root), with optional attributes (a JSON
  !> object), collectively: every rank passes the same arguments; rank 0 writes it, then
  !> every rank opens it. Statuses (the same on every rank) as in zarr.h.
  function zarr_group_create_collective(comm, store, path, group, attributes_json) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_store), intent(in) :: store
    character(len=*), intent(in) :: path
    type(zarr_group), intent(out) :: group
    character(len=*), intent(in), optional :: attributes_json
    integer(c_int32_t) :: status
    if (present(attributes_json)) then
      status = track(c_zarr_group_create_collective(comm%ptr, store%ptr, c_str(path), &
                                                    c_str(attributes_json), group%ptr))
    else
      status = track(c_zarr_group_create_collective(comm%ptr, store%ptr, c_str(path), &
                                                    out=group%ptr))
    end if
  end function zarr_group_create_collective

  !> Replace the group's attributes with the JSON object `json`, collectively (every rank
  !> passes the same text). Statuses as in zarr.h.
  function zarr_group_set_attributes_json_collective(comm, group, json) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_group), intent(in) :: group
    character(len=*), intent(in) :: json
    integer(c_int32_t) :: status
    status = track(c_zarr_group_set_attributes_json_collective(comm%ptr, group%ptr, c_str(json)))
  end function zarr_group_set_attributes_json_collective

  !> Write consolidated metadata for every node below the group, collectively (rank 0
  !> writes): call it after the last collective write and node creation. Statuses as in
  !> zarr.h.
  function zarr_group_consolidate_collective(comm, group) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_group), intent(in) :: group
    integer(c_int32_t) :: status
    status = track(c_zarr_group_consolidate_collective(comm%ptr, group%ptr))
  end function zarr_group_consolidate_collective

  ! Collective data procedures, one per Fortran element type (all alike).

  function zarr_write_collective_i1(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_I1, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_i1

  function zarr_write_collective_i2(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_I2, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_i2

  function zarr_write_collective_i4(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_I4, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_i4

  function zarr_write_collective_i8(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_I8, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_i8

  function zarr_write_collective_r4(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    real(c_float), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_R4, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_r4

  function zarr_write_collective_r8(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_R8, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_r8

  function zarr_write_collective_c4(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    complex(c_float_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_C4, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_c4

  function zarr_write_collective_c8(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    complex(c_double_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_C8, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_c8

  function zarr_write_collective_l1(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    logical(c_bool), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_WRITE_COLLECTIVE, comm, array, FK_L1, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_write_collective_l1

  function zarr_read_collective_i1(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int8_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_I1, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_i1

  function zarr_read_collective_i2(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int16_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_I2, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_i2

  function zarr_read_collective_i4(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int32_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_I4, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_i4

  function zarr_read_collective_i8(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer(c_int64_t), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_I8, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_i8

  function zarr_read_collective_r4(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    real(c_float), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_R4, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_r4

  function zarr_read_collective_r8(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    real(c_double), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_R8, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_r8

  function zarr_read_collective_c4(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    complex(c_float_complex), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_C4, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_c4

  function zarr_read_collective_c8(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    complex(c_double_complex), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_C8, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_c8

  function zarr_read_collective_l1(comm, array, values, start, count) result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    logical(c_bool), dimension(..), intent(inout), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_io(OP_READ_COLLECTIVE, comm, array, FK_L1, p, c_sizeof(values), &
                           shape(values, kind=c_int64_t), start, count)
  end function zarr_read_collective_l1

  function zarr_append_collective_i1(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int8_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_I1, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_i1

  function zarr_append_collective_i2(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int16_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_I2, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_i2

  function zarr_append_collective_i4(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int32_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_I4, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_i4

  function zarr_append_collective_i8(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int64_t), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_I8, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_i8

  function zarr_append_collective_r4(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    real(c_float), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_R4, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_r4

  function zarr_append_collective_r8(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    real(c_double), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_R8, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_r8

  function zarr_append_collective_c4(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    complex(c_float_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_C4, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_c4

  function zarr_append_collective_c8(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    complex(c_double_complex), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_C8, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_c8

  function zarr_append_collective_l1(comm, array, dim, values, start, count, length) &
      result(status)
    type(zarr_comm), intent(in) :: comm
    type(zarr_array), intent(in) :: array
    integer, intent(in) :: dim
    logical(c_bool), dimension(..), intent(in), target, contiguous :: values
    integer, intent(in), optional :: start(:), count(:), length
    integer(c_int32_t) :: status
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(values) > 0) p = c_loc(values)
    status = collective_append(comm, array, FK_L1, p, c_sizeof(values), &
                               shape(values, kind=c_int64_t), dim, start, count, length)
  end function zarr_append_collective_l1

end module zarr
