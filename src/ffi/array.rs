//! `zarr_array`: creating, opening, inspecting, reading and writing arrays.

use super::args::{clear_out, handle, out_ptr, slice, slice_mut, str_arg, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::{zarr_array, zarr_store};
use super::status::zarr_status;
use super::strings::owned_c_string;
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::Error;
use crate::metadata::json::parse_object;
use std::ffi::{c_char, c_void};

/// A data type code (one of the `ZARR_DATA_TYPE_*` values).
#[allow(non_camel_case_types)]
pub type zarr_data_type = i32;

/// `bool`: one byte, 0 or 1.
pub const ZARR_DATA_TYPE_BOOL: zarr_data_type = 1;
/// `int8`.
pub const ZARR_DATA_TYPE_INT8: zarr_data_type = 2;
/// `int16`.
pub const ZARR_DATA_TYPE_INT16: zarr_data_type = 3;
/// `int32`.
pub const ZARR_DATA_TYPE_INT32: zarr_data_type = 4;
/// `int64`.
pub const ZARR_DATA_TYPE_INT64: zarr_data_type = 5;
/// `uint8`.
pub const ZARR_DATA_TYPE_UINT8: zarr_data_type = 6;
/// `uint16`.
pub const ZARR_DATA_TYPE_UINT16: zarr_data_type = 7;
/// `uint32`.
pub const ZARR_DATA_TYPE_UINT32: zarr_data_type = 8;
/// `uint64`.
pub const ZARR_DATA_TYPE_UINT64: zarr_data_type = 9;
/// `float16`: the IEEE 754 binary16 bits in a 2-byte unit.
pub const ZARR_DATA_TYPE_FLOAT16: zarr_data_type = 10;
/// `float32`.
pub const ZARR_DATA_TYPE_FLOAT32: zarr_data_type = 11;
/// `float64`.
pub const ZARR_DATA_TYPE_FLOAT64: zarr_data_type = 12;
/// `complex64`: a (real, imaginary) pair of float32.
pub const ZARR_DATA_TYPE_COMPLEX64: zarr_data_type = 13;
/// `complex128`: a (real, imaginary) pair of float64.
pub const ZARR_DATA_TYPE_COMPLEX128: zarr_data_type = 14;
/// `r<N>`: N/8 opaque bytes (`zarr_array_element_size` gives N/8).
pub const ZARR_DATA_TYPE_RAW: zarr_data_type = 15;

/// `bfloat16`: the top 16 bits of an IEEE 754 binary32, in a 2-byte unit.
pub const ZARR_DATA_TYPE_BFLOAT16: zarr_data_type = 16;
/// `float8_e4m3`: 1 byte, sign, 4 exponent bits (bias 7), 3 mantissa bits, IEEE-like with
/// infinities (0x78) and NaN (canonical 0x7c).
pub const ZARR_DATA_TYPE_FLOAT8_E4M3: zarr_data_type = 17;
/// `float8_e4m3fn`: as e4m3 without infinities; only 0x7f/0xff are NaN (tensorstore's name).
pub const ZARR_DATA_TYPE_FLOAT8_E4M3FN: zarr_data_type = 18;
/// `float8_e4m3fnuz`: bias 8, no infinities, no negative zero, 0x80 is NaN.
pub const ZARR_DATA_TYPE_FLOAT8_E4M3FNUZ: zarr_data_type = 19;
/// `float8_e4m3b11fnuz`: bias 11, no infinities, no negative zero, 0x80 is NaN.
pub const ZARR_DATA_TYPE_FLOAT8_E4M3B11FNUZ: zarr_data_type = 20;
/// `float8_e5m2`: 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like.
pub const ZARR_DATA_TYPE_FLOAT8_E5M2: zarr_data_type = 21;
/// `float8_e5m2fnuz`: bias 16, no infinities, no negative zero, 0x80 is NaN.
pub const ZARR_DATA_TYPE_FLOAT8_E5M2FNUZ: zarr_data_type = 22;
/// `float8_e3m4`: 3 exponent bits (bias 3), 4 mantissa bits, IEEE-like.
pub const ZARR_DATA_TYPE_FLOAT8_E3M4: zarr_data_type = 23;
/// `float8_e8m0fnu`: unsigned powers of two 2^(e-127); 0xff is NaN.
pub const ZARR_DATA_TYPE_FLOAT8_E8M0FNU: zarr_data_type = 24;
/// `fixed_length_utf32` (Zarr v2 `<U<n>`/`>U<n>`): `length_bytes / 4` UTF-32 code units in
/// host byte order, zero-padded (numpy's `U<n>` layout). The length is in
/// `zarr_array_metadata_json`; `zarr_array_element_size` gives `length_bytes`.
pub const ZARR_DATA_TYPE_FIXED_LENGTH_UTF32: zarr_data_type = 25;
/// zarr-python's `null_terminated_bytes` (Zarr v2 `|S<n>`): n bytes, zero-padded.
pub const ZARR_DATA_TYPE_NULL_TERMINATED_BYTES: zarr_data_type = 26;
/// zarr-python's `raw_bytes`: n opaque bytes (Zarr v2 `|V<n>` reports `ZARR_DATA_TYPE_RAW`).
pub const ZARR_DATA_TYPE_RAW_BYTES: zarr_data_type = 27;
/// `numpy.datetime64` (Zarr v2 `<M8[...]`): int64 in host byte order counting `unit` x
/// `scale_factor` (see `zarr_array_metadata_json`) since 1970-01-01; INT64_MIN is NaT.
pub const ZARR_DATA_TYPE_DATETIME64: zarr_data_type = 28;
/// `numpy.timedelta64` (Zarr v2 `<m8[...]`): int64 in host byte order; INT64_MIN is NaT.
pub const ZARR_DATA_TYPE_TIMEDELTA64: zarr_data_type = 29;
/// `struct` (also zarr-python's legacy `structured` and Zarr v2 structured dtypes): the
/// fields packed without padding in declaration order, each in host byte order (Zarr v2
/// sub-array fields element by element, C order). The fields are in
/// `zarr_array_metadata_json`.
pub const ZARR_DATA_TYPE_STRUCT: zarr_data_type = 30;
/// `string` (Zarr v2 `|O` with the `vlen-utf8` or `json2` object codec): variable-length
/// UTF-8 text, read and written with `zarr_array_read_vlen` / `zarr_array_write_vlen`;
/// `zarr_array_element_size` gives 0.
pub const ZARR_DATA_TYPE_STRING: zarr_data_type = 31;
/// `bytes` (zarr-python 3.1's `variable_length_bytes`; Zarr v2 `|O` with `vlen-bytes`):
/// variable-length byte strings, as `ZARR_DATA_TYPE_STRING` without the UTF-8 rule.
pub const ZARR_DATA_TYPE_BYTES: zarr_data_type = 32;
/// `int2`: a signed integer from -2 to 1. One byte per element holding the 2-bit two's
/// complement code in its low bits, upper bits zero (numpy/ml_dtypes' layout: -2 is 0x02,
/// -1 is 0x03). Writing a byte with bits set above the code is
/// `ZARR_ERROR_INVALID_ARGUMENT`; `zarr_sub_byte_to_int8` and `zarr_int8_to_sub_byte`
/// convert to and from sign-extended `int8_t`.
pub const ZARR_DATA_TYPE_INT2: zarr_data_type = 33;
/// `int4`: a signed integer from -8 to 7, one byte per element holding the 4-bit code in
/// its low bits (-1 is 0x0f); otherwise as `ZARR_DATA_TYPE_INT2`.
pub const ZARR_DATA_TYPE_INT4: zarr_data_type = 34;
/// `uint2`: an unsigned integer from 0 to 3, one byte per element, upper 6 bits zero.
pub const ZARR_DATA_TYPE_UINT2: zarr_data_type = 35;
/// `uint4`: an unsigned integer from 0 to 15, one byte per element, upper 4 bits zero.
pub const ZARR_DATA_TYPE_UINT4: zarr_data_type = 36;
/// `float4_e2m1fn`: sign, 2 exponent bits (bias 1), 1 mantissa bit; no infinities, no NaN
/// (largest 6.0). One byte per element holding the 4-bit code in its low bits, upper bits
/// zero; writing a byte with bits set above the code is `ZARR_ERROR_INVALID_ARGUMENT`.
pub const ZARR_DATA_TYPE_FLOAT4_E2M1FN: zarr_data_type = 37;
/// `float6_e2m3fn`: sign, 2 exponent bits (bias 1), 3 mantissa bits; no infinities, no NaN
/// (largest 7.5). One byte per element holding the 6-bit code in its low bits, upper bits
/// zero.
pub const ZARR_DATA_TYPE_FLOAT6_E2M3FN: zarr_data_type = 38;
/// `float6_e3m2fn`: sign, 3 exponent bits (bias 3), 2 mantissa bits; no infinities, no NaN
/// (largest 28.0). One byte per element holding the 6-bit code in its low bits, upper bits
/// zero.
pub const ZARR_DATA_TYPE_FLOAT6_E3M2FN: zarr_data_type = 39;
/// `complex_bfloat16`: a (real, imaginary) pair of bfloat16, 4 bytes.
pub const ZARR_DATA_TYPE_COMPLEX_BFLOAT16: zarr_data_type = 40;
/// `complex_float16`: a (real, imaginary) pair of float16, 4 bytes.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT16: zarr_data_type = 41;
/// `complex_float32`: a (real, imaginary) pair of float32, 8 bytes (laid out as complex64).
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT32: zarr_data_type = 42;
/// `complex_float64`: a (real, imaginary) pair of float64, 16 bytes (laid out as
/// complex128).
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT64: zarr_data_type = 43;
/// `complex_float4_e2m1fn`: two bytes, real then imaginary, each a float4_e2m1fn code in
/// its low 4 bits (upper bits zero, as `ZARR_DATA_TYPE_FLOAT4_E2M1FN`).
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN: zarr_data_type = 44;
/// `complex_float6_e2m3fn`: two bytes, each a float6_e2m3fn code in its low 6 bits.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT6_E2M3FN: zarr_data_type = 45;
/// `complex_float6_e3m2fn`: two bytes, each a float6_e3m2fn code in its low 6 bits.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT6_E3M2FN: zarr_data_type = 46;
/// `complex_float8_e3m4`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E3M4: zarr_data_type = 47;
/// `complex_float8_e4m3`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3: zarr_data_type = 48;
/// `complex_float8_e4m3b11fnuz`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3B11FNUZ: zarr_data_type = 49;
/// `complex_float8_e4m3fnuz`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3FNUZ: zarr_data_type = 50;
/// `complex_float8_e5m2`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2: zarr_data_type = 51;
/// `complex_float8_e5m2fnuz`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2FNUZ: zarr_data_type = 52;
/// `complex_float8_e8m0fnu`: two bytes, real then imaginary.
pub const ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU: zarr_data_type = 53;

/// The codes of the registry's sub-byte and complex types with their names, which are
/// also the names `DataType::name` gives (so `data_type_code` finds a code by name).
const SUB_BYTE_AND_COMPLEX: [(zarr_data_type, &std::ffi::CStr); 21] = [
    (ZARR_DATA_TYPE_INT2, c"int2"),
    (ZARR_DATA_TYPE_INT4, c"int4"),
    (ZARR_DATA_TYPE_UINT2, c"uint2"),
    (ZARR_DATA_TYPE_UINT4, c"uint4"),
    (ZARR_DATA_TYPE_FLOAT4_E2M1FN, c"float4_e2m1fn"),
    (ZARR_DATA_TYPE_FLOAT6_E2M3FN, c"float6_e2m3fn"),
    (ZARR_DATA_TYPE_FLOAT6_E3M2FN, c"float6_e3m2fn"),
    (ZARR_DATA_TYPE_COMPLEX_BFLOAT16, c"complex_bfloat16"),
    (ZARR_DATA_TYPE_COMPLEX_FLOAT16, c"complex_float16"),
    (ZARR_DATA_TYPE_COMPLEX_FLOAT32, c"complex_float32"),
    (ZARR_DATA_TYPE_COMPLEX_FLOAT64, c"complex_float64"),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN,
        c"complex_float4_e2m1fn",
    ),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT6_E2M3FN,
        c"complex_float6_e2m3fn",
    ),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT6_E3M2FN,
        c"complex_float6_e3m2fn",
    ),
    (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E3M4, c"complex_float8_e3m4"),
    (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3, c"complex_float8_e4m3"),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3B11FNUZ,
        c"complex_float8_e4m3b11fnuz",
    ),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3FNUZ,
        c"complex_float8_e4m3fnuz",
    ),
    (ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2, c"complex_float8_e5m2"),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2FNUZ,
        c"complex_float8_e5m2fnuz",
    ),
    (
        ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU,
        c"complex_float8_e8m0fnu",
    ),
];

fn data_type_code(data_type: &DataType) -> zarr_data_type {
    use crate::data_type::Float8Format as F8;
    match data_type {
        DataType::Bool => ZARR_DATA_TYPE_BOOL,
        DataType::Int8 => ZARR_DATA_TYPE_INT8,
        DataType::Int16 => ZARR_DATA_TYPE_INT16,
        DataType::Int32 => ZARR_DATA_TYPE_INT32,
        DataType::Int64 => ZARR_DATA_TYPE_INT64,
        DataType::UInt8 => ZARR_DATA_TYPE_UINT8,
        DataType::UInt16 => ZARR_DATA_TYPE_UINT16,
        DataType::UInt32 => ZARR_DATA_TYPE_UINT32,
        DataType::UInt64 => ZARR_DATA_TYPE_UINT64,
        DataType::Float16 => ZARR_DATA_TYPE_FLOAT16,
        DataType::Float32 => ZARR_DATA_TYPE_FLOAT32,
        DataType::Float64 => ZARR_DATA_TYPE_FLOAT64,
        DataType::Complex64 => ZARR_DATA_TYPE_COMPLEX64,
        DataType::Complex128 => ZARR_DATA_TYPE_COMPLEX128,
        DataType::RawBits(_) => ZARR_DATA_TYPE_RAW,
        DataType::BFloat16 => ZARR_DATA_TYPE_BFLOAT16,
        DataType::Float8(F8::E4M3) => ZARR_DATA_TYPE_FLOAT8_E4M3,
        DataType::Float8(F8::E4M3FN) => ZARR_DATA_TYPE_FLOAT8_E4M3FN,
        DataType::Float8(F8::E4M3FNUZ) => ZARR_DATA_TYPE_FLOAT8_E4M3FNUZ,
        DataType::Float8(F8::E4M3B11FNUZ) => ZARR_DATA_TYPE_FLOAT8_E4M3B11FNUZ,
        DataType::Float8(F8::E5M2) => ZARR_DATA_TYPE_FLOAT8_E5M2,
        DataType::Float8(F8::E5M2FNUZ) => ZARR_DATA_TYPE_FLOAT8_E5M2FNUZ,
        DataType::Float8(F8::E3M4) => ZARR_DATA_TYPE_FLOAT8_E3M4,
        DataType::Float8(F8::E8M0FNU) => ZARR_DATA_TYPE_FLOAT8_E8M0FNU,
        DataType::FixedLengthUtf32(_) => ZARR_DATA_TYPE_FIXED_LENGTH_UTF32,
        DataType::NullTerminatedBytes(_) => ZARR_DATA_TYPE_NULL_TERMINATED_BYTES,
        DataType::RawBytes(_) => ZARR_DATA_TYPE_RAW_BYTES,
        DataType::DateTime64(_) => ZARR_DATA_TYPE_DATETIME64,
        DataType::TimeDelta64(_) => ZARR_DATA_TYPE_TIMEDELTA64,
        DataType::Struct(_) => ZARR_DATA_TYPE_STRUCT,
        DataType::String => ZARR_DATA_TYPE_STRING,
        DataType::Bytes => ZARR_DATA_TYPE_BYTES,
        // The registry's names are unique, so the table of names gives the code.
        DataType::SubByteInt(_) | DataType::SubByteFloat(_) | DataType::Complex(_) => {
            let name = data_type.name();
            SUB_BYTE_AND_COMPLEX
                .iter()
                .find(|(_, n)| n.to_bytes() == name.as_bytes())
                .map(|(code, _)| *code)
                .expect("every sub-byte and complex type has a code")
        }
    }
}

/// The Zarr name of a data type code: "int16", "float32", "numpy.datetime64", "struct"
/// ...; "r<N>" for `ZARR_DATA_TYPE_RAW` (the size is the array's). For printing what
/// `zarr_array_data_type` returned.
///
/// Accepts any integer: unknown values give "unknown data type". Never NULL; the string
/// is static and must not be freed. Thread safety: may be called from any thread.
#[no_mangle]
pub extern "C" fn zarr_data_type_str(data_type: zarr_data_type) -> *const c_char {
    let name = match data_type {
        ZARR_DATA_TYPE_BOOL => c"bool",
        ZARR_DATA_TYPE_INT8 => c"int8",
        ZARR_DATA_TYPE_INT16 => c"int16",
        ZARR_DATA_TYPE_INT32 => c"int32",
        ZARR_DATA_TYPE_INT64 => c"int64",
        ZARR_DATA_TYPE_UINT8 => c"uint8",
        ZARR_DATA_TYPE_UINT16 => c"uint16",
        ZARR_DATA_TYPE_UINT32 => c"uint32",
        ZARR_DATA_TYPE_UINT64 => c"uint64",
        ZARR_DATA_TYPE_FLOAT16 => c"float16",
        ZARR_DATA_TYPE_FLOAT32 => c"float32",
        ZARR_DATA_TYPE_FLOAT64 => c"float64",
        ZARR_DATA_TYPE_COMPLEX64 => c"complex64",
        ZARR_DATA_TYPE_COMPLEX128 => c"complex128",
        ZARR_DATA_TYPE_RAW => c"r<N>",
        ZARR_DATA_TYPE_BFLOAT16 => c"bfloat16",
        ZARR_DATA_TYPE_FLOAT8_E4M3 => c"float8_e4m3",
        ZARR_DATA_TYPE_FLOAT8_E4M3FN => c"float8_e4m3fn",
        ZARR_DATA_TYPE_FLOAT8_E4M3FNUZ => c"float8_e4m3fnuz",
        ZARR_DATA_TYPE_FLOAT8_E4M3B11FNUZ => c"float8_e4m3b11fnuz",
        ZARR_DATA_TYPE_FLOAT8_E5M2 => c"float8_e5m2",
        ZARR_DATA_TYPE_FLOAT8_E5M2FNUZ => c"float8_e5m2fnuz",
        ZARR_DATA_TYPE_FLOAT8_E3M4 => c"float8_e3m4",
        ZARR_DATA_TYPE_FLOAT8_E8M0FNU => c"float8_e8m0fnu",
        ZARR_DATA_TYPE_FIXED_LENGTH_UTF32 => c"fixed_length_utf32",
        ZARR_DATA_TYPE_NULL_TERMINATED_BYTES => c"null_terminated_bytes",
        ZARR_DATA_TYPE_RAW_BYTES => c"raw_bytes",
        ZARR_DATA_TYPE_DATETIME64 => c"numpy.datetime64",
        ZARR_DATA_TYPE_TIMEDELTA64 => c"numpy.timedelta64",
        ZARR_DATA_TYPE_STRUCT => c"struct",
        ZARR_DATA_TYPE_STRING => c"string",
        ZARR_DATA_TYPE_BYTES => c"bytes",
        code => SUB_BYTE_AND_COMPLEX
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(c"unknown data type", |(_, name)| name),
    };
    name.as_ptr()
}

/// Check that a caller's rank matches the array's.
pub(super) fn check_rank(array: &Array, ndim: usize) -> Result<(), FfiError> {
    let actual = array.ndim();
    if ndim != actual {
        return Err(FfiError::Core(Error::InvalidArgument(format!(
            "ndim is {ndim} but the array has {actual} dimensions"
        ))));
    }
    Ok(())
}

/// The `start` and `count` of a selection of `array`, after checking that `ndim` is the
/// array's rank (the errors come in that order: rank, `start`, `count`).
///
/// # Safety
/// `start` and `count` are NULL or point to `ndim` readable values that outlive `'a`.
pub(super) unsafe fn selection<'a>(
    array: &Array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
) -> Result<(&'a [u64], &'a [u64]), FfiError> {
    check_rank(array, ndim)?;
    // SAFETY: per this function's contract.
    let start = unsafe { slice(start, ndim, "start") }?;
    // SAFETY: per this function's contract.
    let count = unsafe { slice(count, ndim, "count") }?;
    Ok((start, count))
}

/// Create an array at `path` from a complete Zarr v3 or v2 array metadata document.
///
/// `metadata_json` is either the text of a v3 `zarr.json` array document (`zarr_format`
/// 3, `node_type` "array", `shape`, `data_type`, `chunk_grid`, `chunk_key_encoding`,
/// `fill_value`, `codecs`, optional `attributes` and `dimension_names`), stored in
/// canonical form (codecs as objects with every configuration key); or a Zarr v2
/// `.zarray` document (`zarr_format` 2, `shape`, `chunks`, `dtype` such as "<f4",
/// `compressor` and `filters` as numcodecs objects or null, `fill_value`, `order` "C" or
/// "F", optional `dimension_separator` "." or "/"), stored as `.zarray` with every key
/// spelled out (set attributes with `zarr_array_set_attributes_json`, which writes
/// `.zattrs`). A v2 object array (`dtype` "|O" with a `vlen-utf8`, `vlen-bytes` filter)
/// whose `fill_value` is the old-style `0` is stored with `""` (zarr-python 3 would read
/// `0` as the text "0"); `null` is kept, as zarr-python writes it (read as the empty
/// element). Missing ancestor groups are created in the same
/// format. No data is written: every chunk reads as the fill value.
///
/// - `store`: the store to create in.
/// - `path`: absolute node path, e.g. "/" or "/a/b".
/// - `metadata_json`: NUL-terminated UTF-8 JSON text.
/// - `out`: receives the new array, or NULL on failure. Free with `zarr_array_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH` (malformed
/// path); `ZARR_ERROR_ALREADY_EXISTS` (a node exists at `path`);
/// `ZARR_ERROR_NODE_TYPE_MISMATCH` (an ancestor is an array); `ZARR_ERROR_INVALID_METADATA`
/// (malformed JSON or document); `ZARR_ERROR_UNSUPPORTED` (unknown codec, data type, chunk
/// grid, or extension field without `"must_understand": false`); `ZARR_ERROR_IO`.
///
/// Thread safety: do not create the same path from two threads at once.
///
/// # Safety
/// Pointers are NULL or valid: `store` a live store, strings NUL-terminated, `out` writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_create(
    store: *mut zarr_store,
    path: *const c_char,
    metadata_json: *const c_char,
    out: *mut *mut zarr_array,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_array_create", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        // SAFETY: per this function's contract.
        let metadata_json = unsafe { str_arg(metadata_json, "metadata_json") }?;
        let out = out_ptr(out, "out")?;
        let array = Array::create(store.storage.clone(), path, metadata_json)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, Box::into_raw(Box::new(zarr_array { array }))) };
        Ok(())
    })
}

/// Open the array at `path`: Zarr v3 (`zarr.json`), Zarr v2 (`.zarray`, with its `.zattrs`)
/// or the 2022 draft layout of v3.
///
/// - `store`: the store to read from.
/// - `path`: absolute node path, e.g. "/" or "/a/b".
/// - `out`: receives the array, or NULL on failure. Free with `zarr_array_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_PATH`;
/// `ZARR_ERROR_NOT_FOUND` (no node at `path`); `ZARR_ERROR_NODE_TYPE_MISMATCH` (a group is
/// there); `ZARR_ERROR_INVALID_METADATA` (malformed metadata); `ZARR_ERROR_UNSUPPORTED`
/// (a codec or data type this build does not have, extension fields that must be
/// understood); `ZARR_ERROR_IO`.
///
/// # Safety
/// Pointers are NULL or valid: `store` a live store, `path` NUL-terminated, `out` writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_open(
    store: *const zarr_store,
    path: *const c_char,
    out: *mut *mut zarr_array,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_array_open", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(out, "out")?;
        let array = Array::open(store.storage.clone(), path)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, Box::into_raw(Box::new(zarr_array { array }))) };
        Ok(())
    })
}

/// Free an array handle. Accepts NULL.
///
/// # Safety
/// `array` is NULL or a handle from `zarr_array_open` / `zarr_array_create`, not yet freed,
/// and not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn zarr_array_free(array: *mut zarr_array) {
    if !array.is_null() {
        // SAFETY: the handle came from Box::into_raw and is freed once, per the contract.
        drop(unsafe { Box::from_raw(array) });
    }
}

/// Deprecated name of `zarr_array_format` (same arguments and statuses), kept for one
/// release.
///
/// # Safety
/// `array` is NULL or a live handle; `format_out` is NULL or writable.
#[must_use]
#[no_mangle]
#[deprecated(note = "use zarr_array_format")]
pub unsafe extern "C" fn zarr_array_zarr_format(
    array: *const zarr_array,
    format_out: *mut u32,
) -> zarr_status {
    // SAFETY: per this function's contract, which is format_body's.
    unsafe { format_body("zarr_array_zarr_format", array, format_out) }
}

/// The body of `zarr_array_format` and its deprecated alias, reporting as `function`.
///
/// # Safety
/// `array` is NULL or a live handle; `format_out` is NULL or writable.
unsafe fn format_body(
    function: &str,
    array: *const zarr_array,
    format_out: *mut u32,
) -> zarr_status {
    run(function, || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(format_out, "format_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, array.array.format().number()) };
        Ok(())
    })
}

/// The number of dimensions of the array (0 for a scalar array).
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `array` is NULL or a live handle; `ndim_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_ndim(
    array: *const zarr_array,
    ndim_out: *mut usize,
) -> zarr_status {
    run("zarr_array_ndim", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(ndim_out, "ndim_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, array.array.ndim()) };
        Ok(())
    })
}

/// Copy `values` into a caller array of `ndim` elements after checking the rank.
///
/// # Safety
/// `out` is NULL or points to `ndim` writable `uint64_t`.
unsafe fn copy_dims(
    array: &Array,
    ndim: usize,
    values: &[u64],
    out: *mut u64,
    name: &'static str,
) -> Result<(), FfiError> {
    check_rank(array, ndim)?;
    // SAFETY: per the caller's contract.
    let out = unsafe { slice_mut(out, ndim, name) }?;
    out.copy_from_slice(values);
    Ok(())
}

/// The array's shape: `ndim` extents written to `shape_out`.
///
/// `ndim` must equal the array's rank (`zarr_array_ndim`); for a 0-d array pass 0 and
/// `shape_out` may be NULL.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`).
///
/// # Safety
/// `array` is NULL or live; `shape_out` is NULL or holds `ndim` writable values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_shape(
    array: *const zarr_array,
    ndim: usize,
    shape_out: *mut u64,
) -> zarr_status {
    run("zarr_array_shape", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        unsafe { copy_dims(array, ndim, &array.shape(), shape_out, "shape_out") }
    })
}

/// The array's chunk shape: `ndim` values written to `chunk_shape_out`. For a regular
/// grid, the shape of every chunk. For a `rectilinear` grid, whose chunks differ, the
/// longest chunk along each dimension (among those covering the array): every chunk fits
/// in it, and `zarr_array_chunk_nbytes` is its size; each chunk's own place and shape come
/// from `zarr_array_chunk_region`, the number of chunks from `zarr_array_chunk_grid_shape`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`).
///
/// # Safety
/// `array` is NULL or live; `chunk_shape_out` is NULL or holds `ndim` writable values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_shape(
    array: *const zarr_array,
    ndim: usize,
    chunk_shape_out: *mut u64,
) -> zarr_status {
    run("zarr_array_chunk_shape", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        unsafe {
            copy_dims(
                array,
                ndim,
                &array.chunk_shape(),
                chunk_shape_out,
                "chunk_shape_out",
            )
        }
    })
}

/// The array's data type as a `ZARR_DATA_TYPE_*` code.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `array` is NULL or live; `data_type_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_data_type(
    array: *const zarr_array,
    data_type_out: *mut zarr_data_type,
) -> zarr_status {
    run("zarr_array_data_type", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(data_type_out, "data_type_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, data_type_code(&array.array.data_type())) };
        Ok(())
    })
}

/// The size in bytes of one element in the caller's buffers (1 for bool, 8 for
/// complex64, N/8 for `r<N>`, `length_bytes` for fixed-length strings and byte strings,
/// 8 for datetimes, the sum of the fields for a struct; 0 for the variable-length
/// `string` and `bytes`, which `zarr_array_read_vlen` reads instead).
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `array` is NULL or live; `size_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_element_size(
    array: *const zarr_array,
    size_out: *mut usize,
) -> zarr_status {
    run("zarr_array_element_size", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(size_out, "size_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, array.array.data_type().size()) };
        Ok(())
    })
}

/// The size in bytes of one whole chunk in the caller's buffers (what
/// `zarr_array_read_chunk` and `zarr_array_write_chunk` transfer): of the largest chunk
/// (see `zarr_array_chunk_shape`) for a rectilinear grid, so a buffer of this size holds
/// any chunk; 0 for an array of variable-length elements, whose chunks those functions
/// refuse.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `array` is NULL or live; `nbytes_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_nbytes(
    array: *const zarr_array,
    nbytes_out: *mut usize,
) -> zarr_status {
    run("zarr_array_chunk_nbytes", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(nbytes_out, "nbytes_out")?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, array.array.chunk_nbytes()) };
        Ok(())
    })
}

/// The size in bytes of the dense buffer holding the selection `start`, `count` (the
/// product of `count` times the element size).
///
/// - `ndim`: the array's rank; `start` and `count` hold `ndim` values each (may be NULL
///   when `ndim` is 0).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (the selection leaves the array);
/// `ZARR_ERROR_OUT_OF_MEMORY` (the size does not fit in `size_t`); `ZARR_ERROR_UNSUPPORTED`
/// (variable-length elements: their size depends on the values, see
/// `zarr_array_read_vlen`).
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `nbytes_out`
/// is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_selection_nbytes(
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    nbytes_out: *mut usize,
) -> zarr_status {
    run("zarr_array_selection_nbytes", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let start = unsafe { slice(start, ndim, "start") }?;
        // SAFETY: per this function's contract.
        let count = unsafe { slice(count, ndim, "count") }?;
        let out = out_ptr(nbytes_out, "nbytes_out")?;
        let nbytes = array.selection_nbytes(start, count)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, nbytes) };
        Ok(())
    })
}

/// Read the hyper-rectangle `start .. start + count` into `buf`.
///
/// `buf` receives the selection dense, in C order, in host byte order (bool as one byte
/// 0/1, float16 as its IEEE bits, complex as (re, im) pairs). Chunks that were never
/// written read as the fill value. `buf_len` must be at least the selection's size
/// (`zarr_array_selection_nbytes`); only that many bytes are written. For other layouts
/// (Fortran order, a slice of a larger buffer) see `zarr_array_read_strided`.
///
/// The chunks are decoded in parallel, each straight into its place in `buf` (no copy of
/// the whole selection is held), except that chunks side by side whose rows in `buf` are
/// short (under 4 KiB) are decoded a few at a time into a buffer of the worker's and then
/// copied in row by row, which fills `buf`'s pages front to back. So on failure: argument
/// errors (NULL, rank, bounds, buffer too small) are found before anything is read and
/// leave `buf` unchanged; after a corrupt or unreadable chunk, the selection's bytes are
/// unspecified (parts may hold their data, the failing chunk's part may be partly
/// written), and no byte past the selection is ever written.
///
/// Memory besides `buf`: each worker thread holds at most one chunk's stored and decoded
/// bytes at a time (for a shard: one batch of neighbouring inner chunks of at most 2 MiB
/// from local stores and 32 MiB from remote ones, or one larger inner chunk, and one
/// decoded inner chunk; for chunks side by side with short rows, their decoded bytes, at
/// most 4 MiB, and one chunk's stored bytes). Workers reuse these buffers from chunk to
/// chunk and free them when the call is done (each as soon as it is idle).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_TOO_SMALL`;
/// `ZARR_ERROR_CORRUPT_DATA` (a stored chunk is truncated or corrupt: bad size, checksum or
/// compressed stream); `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_IO`;
/// `ZARR_ERROR_UNSUPPORTED` (variable-length elements: use `zarr_array_read_vlen`).
///
/// Thread safety: concurrent reads of one handle are safe.
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `buf` is NULL
/// or has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read(
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_read", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        array.read_region(start, count, buf)?;
        Ok(())
    })
}

/// Read the hyper-rectangle `start .. start + count` converted to double: one value per
/// element, dense, in C order.
///
/// Every data type of real numbers converts: bool (0 or 1), int8 to int64 and uint8 to
/// uint64 (exactly up to 2^53 in magnitude; larger magnitudes give the nearest double),
/// int2, int4, uint2 and uint4 (their values, int4 0x0f is -1), float16, bfloat16, the
/// float8, float6 and float4 formats, float32 and float64 (exactly; NaN and infinities
/// stay NaN and infinities). Chunks never written read as the fill value, converted.
///
/// No attribute is applied: the values are the stored numbers. A CF-packed variable
/// (`scale_factor`, `add_offset`, `_FillValue` or `missing_value` attributes, as xarray
/// writes packed int16) is unpacked by the caller: `raw * scale_factor + add_offset`, and
/// `raw == _FillValue` means missing (read the attributes with
/// `zarr_array_attribute_double`; see the quick start in README.md).
///
/// - `ndim`: the array's rank; `start` and `count` hold `ndim` values each (may be NULL
///   when `ndim` is 0).
/// - `values`, `values_len`: the caller's buffer of `values_len` doubles. `values_len` is
///   a count of doubles, not of bytes, and must equal the selection's element count (the
///   product of `count`) exactly: a byte count passed by mistake is then refused rather
///   than trusted (which is why this differs from `zarr_array_read`'s "at least"). `values`
///   may be NULL when `values_len` is 0.
///
/// The stored elements are first read into a buffer of the library's (the selection's
/// size in bytes, `zarr_array_selection_nbytes`), then converted, so `values` is written
/// only on success: after any failure it is unchanged.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`array`, `start`, `count`, or `values`
/// with `values_len` > 0); `ZARR_ERROR_INVALID_ARGUMENT` (wrong `ndim`, absurd
/// `values_len`); `ZARR_ERROR_TYPE_MISMATCH` (the data type is not one of real numbers:
/// complex (complex64, complex128, every complex_*), raw bits, strings, byte strings, structs, datetimes and timedeltas (read those
/// as int64 with `zarr_array_read`); the message names the data type; found before
/// anything is read); `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_SIZE_MISMATCH`
/// (`values_len` is not the selection's element count; the message gives both);
/// `ZARR_ERROR_OUT_OF_MEMORY` (the stored elements do not fit in memory);
/// `ZARR_ERROR_CORRUPT_DATA`; `ZARR_ERROR_IO`.
///
/// Thread safety: concurrent reads of one handle are safe.
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `values` is
/// NULL or has `values_len` writable doubles.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read_double(
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    values: *mut f64,
    values_len: usize,
) -> zarr_status {
    run("zarr_array_read_double", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let values = unsafe { slice_mut(values, values_len, "values") }?;
        array.read_region_f64(start, count, values)?;
        Ok(())
    })
}

/// Write `buf` into the hyper-rectangle `start .. start + count`.
///
/// `buf` holds the selection dense, in C order, in host byte order; `buf_len` must equal
/// the selection's size exactly (for other layouts see `zarr_array_write_strided`).
/// Chunks the selection covers are encoded straight from `buf`; partly covered chunks are
/// read, merged and rewritten. Chunks that end up entirely equal to the fill value are not
/// stored (an existing one is erased). Each chunk is replaced atomically. If a chunk fails
/// (the store fails, or an existing chunk to merge with is corrupt), the chunks already
/// written hold the new data and the others the old.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`; or, for int2, int4, uint2, uint4, float4, float6 and their complex types, a
/// byte with bits set above the type's code, such as int4 0x1f: the message gives the
/// element's coordinates, and nothing is stored); `ZARR_ERROR_OUT_OF_BOUNDS`;
/// `ZARR_ERROR_BUFFER_SIZE_MISMATCH`;
/// `ZARR_ERROR_CORRUPT_DATA` (an existing chunk to merge with is corrupt);
/// `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_IO`; `ZARR_ERROR_UNSUPPORTED` (variable-length
/// elements: use `zarr_array_write_vlen`); `ZARR_ERROR_CONFLICT` (see below).
///
/// Thread and process safety: concurrent writes of disjoint selections are safe, through
/// one handle or several, even when they share chunks: within the process, the
/// read-merge-write of a chunk holds a lock for that chunk (of that store's directory, for
/// file system stores). Across processes it is protected as the store can
/// (`zarr_store_write_protection`): a local directory locks the chunk across processes, an
/// S3 store writes it back conditionally and merges again when another writer came first
/// (`ZARR_ERROR_CONFLICT` if other writers won every attempt). With a store that gives no
/// protection (memory, callbacks, or `locking`/`conditional_writes` turned off), writes
/// from several processes are safe only when each writes whole chunks (shards) that no
/// other process writes; see `zarr_array_chunk_aligned`.
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `buf` is NULL
/// or has `buf_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_write(
    array: *mut zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_write", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        array.write_region(start, count, buf)?;
        Ok(())
    })
}

/// Read the variable-length elements (`string`, `bytes`) of the hyper-rectangle
/// `start .. start + count`, Arrow-style: element `i` (C order) is
/// `data[offsets[i] .. offsets[i + 1])`; `offsets` gets `n + 1` entries from 0, where `n`
/// is the product of `count`. Strings are UTF-8, not NUL-terminated. Elements of chunks
/// never written are the fill value (usually empty). In a sharded array (`sharding_indexed`
/// with `vlen-utf8` / `vlen-bytes` inside) only each shard's index and the inner chunks the
/// selection touches are read.
///
/// Call with `data` NULL to learn `*data_size` (`data_capacity` is then ignored): the
/// offsets are filled too. Then call again with a buffer of at least that many bytes (the
/// array may have changed in between: check `*data_size` again). Each call reads and
/// decodes the chunks anew.
///
/// - `offsets_len`: at least `n + 1`.
/// - `data_size`: receives the bytes the elements take (also on BUFFER_TOO_SMALL).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`array`, `start`, `count`, `offsets`,
/// `data_size`); `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_UNSUPPORTED` (an array of fixed-size elements: use
/// `zarr_array_read`); `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_TOO_SMALL` (`offsets_len`
/// below `n + 1`, or `data_capacity` below the elements' size: `*data_size` says how much,
/// nothing else is written); `ZARR_ERROR_CORRUPT_DATA` (a chunk whose count or lengths
/// lie, text that is not UTF-8, a shard whose index is truncated, fails its checksum or
/// points outside the shard); `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_IO`. After any
/// other error `offsets` and `data` are unchanged.
///
/// Thread safety: concurrent reads of one handle are safe.
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `offsets` is
/// NULL or has `offsets_len` writable values; `data` is NULL or has `data_capacity`
/// writable bytes; `data_size` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read_vlen(
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    offsets: *mut u64,
    offsets_len: usize,
    data: *mut c_void,
    data_capacity: usize,
    data_size: *mut usize,
) -> zarr_status {
    run("zarr_array_read_vlen", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        if offsets.is_null() {
            return Err(FfiError::Null("offsets"));
        }
        let size_out = out_ptr(data_size, "data_size")?;
        // A NULL `data` asks for the size only, whatever `data_capacity` says.
        let size_query = data.is_null();
        let data_capacity = if size_query { 0 } else { data_capacity };
        // SAFETY: per this function's contract.
        let offsets = unsafe { slice_mut(offsets, offsets_len, "offsets") }?;
        // SAFETY: per this function's contract (non-NULL here unless the capacity is 0).
        let data = unsafe { slice_mut(data.cast::<u8>(), data_capacity, "data") }?;
        let elements = array.read_vlen(start, count)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(size_out, elements.data.len()) };
        if offsets.len() < elements.offsets.len() {
            return Err(Error::BufferTooSmall {
                needed: elements.offsets.len() * 8,
                given: offsets.len() * 8,
            }
            .into());
        }
        if !size_query && data.len() < elements.data.len() {
            return Err(Error::BufferTooSmall {
                needed: elements.data.len(),
                given: data.len(),
            }
            .into());
        }
        offsets[..elements.offsets.len()].copy_from_slice(&elements.offsets);
        if !size_query {
            data[..elements.data.len()].copy_from_slice(&elements.data);
        }
        Ok(())
    })
}

/// Write the variable-length elements (`string`, `bytes`) of the hyper-rectangle
/// `start .. start + count`, given Arrow-style: element `i` (C order) is
/// `data[offsets[i] .. offsets[i + 1])`; `offsets` holds `n + 1` non-decreasing values
/// (the first need not be 0), the last at most `data_size`. Text must be valid UTF-8.
/// Everything is checked before anything is written; then as `zarr_array_write`: chunks
/// covered whole are encoded from the elements, others read, merged and rewritten (one
/// update of a chunk at a time, within the process and, as the store protects it, across
/// processes), each replaced atomically; a chunk left all fill
/// value is erased. In a sharded array a shard is the chunk: the inner chunks the write
/// touches are re-encoded, the others kept as stored, inner chunks left all fill value are
/// left out, and a shard left with none is erased.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` (`array`, `start`, `count`, `offsets`, or
/// `data` with a non-zero size); `ZARR_ERROR_INVALID_ARGUMENT` (wrong `ndim`, `offsets_len`
/// not `n + 1`, offsets decreasing or past `data_size`, text that is not UTF-8);
/// `ZARR_ERROR_UNSUPPORTED` (fixed-size elements: use `zarr_array_write`; or the read-only
/// `json2` codec); `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_CORRUPT_DATA` (an existing chunk
/// or shard to merge with is corrupt); `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_READ_ONLY`;
/// `ZARR_ERROR_IO`.
///
/// Thread safety: as `zarr_array_write`.
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `offsets` is
/// NULL or holds `offsets_len` values; `data` is NULL or has `data_size` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_write_vlen(
    array: *mut zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    offsets: *const u64,
    offsets_len: usize,
    data: *const c_void,
    data_size: usize,
) -> zarr_status {
    run("zarr_array_write_vlen", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        if offsets.is_null() {
            return Err(FfiError::Null("offsets"));
        }
        // SAFETY: per this function's contract.
        let offsets = unsafe { slice(offsets, offsets_len, "offsets") }?;
        // SAFETY: per this function's contract.
        let data = unsafe { slice(data.cast::<u8>(), data_size, "data") }?;
        array.write_vlen(start, count, offsets, data)?;
        Ok(())
    })
}

/// Read the hyper-rectangle `start .. start + count` into a buffer of any strided layout:
/// element `i` (an index into the selection) goes to byte
/// `sum(i[d] * byte_strides[d])` of `buf`. Fortran order, a slice of a larger array and
/// padded rows are such layouts; dense C order is the case
/// `byte_strides[ndim - 1] = element size`, each earlier stride the next one times the next
/// extent. Strides are in bytes, each at least 1, and must not make two elements overlap:
/// taken from the smallest stride to the largest (over dimensions whose count is above 1),
/// each stride is at least the span of the dimensions before it. Chunks decode straight
/// into their places in `buf` (no temporary copy of the selection); bytes of `buf` between
/// the elements are never written.
///
/// - `buf_len`: at least the layout's span, element size + sum((count[d] - 1) *
///   byte_strides[d]) (0 when the selection is empty).
///
/// On failure, as `zarr_array_read`: argument errors leave `buf` unchanged; after a corrupt
/// or unreadable chunk the selection's elements are unspecified.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`, a stride below 1, overlapping elements, a span that does not fit in memory);
/// `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_TOO_SMALL` (`buf_len` below the span);
/// `ZARR_ERROR_CORRUPT_DATA`; `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_IO`;
/// `ZARR_ERROR_UNSUPPORTED` (variable-length elements).
///
/// Thread safety: as `zarr_array_read`.
///
/// # Safety
/// `array` is NULL or live; `start`, `count` and `byte_strides` are NULL or hold `ndim`
/// values; `buf` is NULL or has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read_strided(
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    byte_strides: *const i64,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_read_strided", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let strides = unsafe { slice(byte_strides, ndim, "byte_strides") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        array.read_region_strided(start, count, Some(strides), buf)?;
        Ok(())
    })
}

/// Write the hyper-rectangle `start .. start + count` from a buffer of any strided layout
/// (see `zarr_array_read_strided` for `byte_strides`; here elements may even share bytes,
/// since they are only read). Chunks are encoded straight from `buf`; otherwise as
/// `zarr_array_write`.
///
/// - `buf_len`: at least the layout's span (extra bytes are ignored).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`, a stride below 1, a span that does not fit in memory, a sub-byte code with
/// bits set above its width as in `zarr_array_write`);
/// `ZARR_ERROR_OUT_OF_BOUNDS`; `ZARR_ERROR_BUFFER_TOO_SMALL` (`buf_len` below the span);
/// `ZARR_ERROR_CORRUPT_DATA` (an existing chunk to merge with is corrupt);
/// `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_IO`; `ZARR_ERROR_UNSUPPORTED` (variable-length
/// elements).
///
/// Thread safety: as `zarr_array_write`.
///
/// # Safety
/// `array` is NULL or live; `start`, `count` and `byte_strides` are NULL or hold `ndim`
/// values; `buf` is NULL or has `buf_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_write_strided(
    array: *mut zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    byte_strides: *const i64,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_write_strided", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        // SAFETY: per this function's contract.
        let strides = unsafe { slice(byte_strides, ndim, "byte_strides") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        array.write_region_strided(start, count, Some(strides), buf)?;
        Ok(())
    })
}

/// Change the array's shape (grow or shrink any dimension; the rank and chunk shape stay).
///
/// The metadata document is rewritten with the new shape. Chunks wholly outside the new
/// shape are deleted. When a dimension grows, the elements between the old edge and the
/// new one read as the fill value, even inside chunks that held data there (written before
/// an earlier shrink): those chunks are rewritten first. Consolidated metadata is not
/// updated: call `zarr_group_consolidate` again if the hierarchy has it.
///
/// - `shape`: `ndim` new extents.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`, a shape of more than 2^64 elements); `ZARR_ERROR_UNSUPPORTED` (an array in the
/// 2022 draft layout); `ZARR_ERROR_CORRUPT_DATA` (an edge chunk to rewrite is corrupt);
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`. If the store fails midway, the array stays
/// readable: with the old shape (and some edge elements already reset to the fill value)
/// or the new one (and some chunks outside it left behind, never read).
///
/// Thread safety: do not read or write through this handle while it resizes. Another
/// handle on the same array keeps the shape it was opened with until reopened; reading
/// through it during or after a shrink gives the fill value for deleted chunks, never
/// corrupt data.
///
/// # Safety
/// `array` is NULL or live; `shape` is NULL or holds `ndim` values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_resize(
    array: *mut zarr_array,
    ndim: usize,
    shape: *const u64,
) -> zarr_status {
    run("zarr_array_resize", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let shape = unsafe { slice(shape, ndim, "shape") }?;
        array.resize(shape)?;
        Ok(())
    })
}

/// Grow dimension `dim` by `count[dim]` and write `buf` (dense, C order, host byte order)
/// into the new part, as a model run appends time steps. `count` must equal the array's
/// shape on every other dimension; `buf_len` must equal the block's size. The arguments
/// are checked before the shape changes; the resize then happens as `zarr_array_resize`
/// does, and the write as `zarr_array_write` does (if the write fails, the array keeps its
/// new shape, and the appended part reads as the fill value where it was not written).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`, `dim` not below `ndim`, `count` not matching the shape elsewhere);
/// `ZARR_ERROR_OUT_OF_BOUNDS` (the new extent passes 2^64 - 1);
/// `ZARR_ERROR_BUFFER_SIZE_MISMATCH`; `ZARR_ERROR_UNSUPPORTED`; `ZARR_ERROR_OUT_OF_MEMORY`;
/// `ZARR_ERROR_READ_ONLY`; `ZARR_ERROR_IO`.
///
/// Thread safety: as `zarr_array_resize`.
///
/// # Safety
/// `array` is NULL or live; `count` is NULL or holds `ndim` values; `buf` is NULL or has
/// `buf_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_append(
    array: *mut zarr_array,
    ndim: usize,
    count: *const u64,
    dim: usize,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_append", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let count = unsafe { slice(count, ndim, "count") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        array.append(count, dim, buf)?;
        Ok(())
    })
}

/// Whether the region `start .. start + count` is chunk-aligned: each of its bounds is a
/// multiple of the chunk (shard) shape or the array's edge, so that writing it touches
/// only chunks it covers whole. Processes that write disjoint chunk-aligned regions of one
/// array never lose each other's data on any store (each chunk is replaced whole,
/// atomically, with no read before); regions that share a chunk need the store's
/// protection across processes (see `zarr_array_write` and `zarr_store_write_protection`).
///
/// - `aligned_out`: receives 1 when aligned, 0 otherwise.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS`.
///
/// # Safety
/// `array` is NULL or live; `start`/`count` are NULL or hold `ndim` values; `aligned_out`
/// is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_aligned(
    array: *const zarr_array,
    ndim: usize,
    start: *const u64,
    count: *const u64,
    aligned_out: *mut i32,
) -> zarr_status {
    run("zarr_array_chunk_aligned", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let (start, count) = unsafe { selection(array, ndim, start, count) }?;
        let out = out_ptr(aligned_out, "aligned_out")?;
        let aligned = array.is_chunk_aligned(start, count)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, i32::from(aligned)) };
        Ok(())
    })
}

/// The store key of the chunk at `chunk_indices` (for `zarr_store_get` and
/// `zarr_store_set`): the array's path, then the chunk key encoding's spelling of the
/// indices (`"a/b/c/0/1"` in v3, `"a/b/0.1"` in v2). For a sharded array, the chunk is the
/// shard.
///
/// - `key_out`: receives the key (free with `zarr_string_free`), NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (no such chunk).
///
/// # Safety
/// `array` is NULL or live; `chunk_indices` is NULL or holds `ndim` values; `key_out` is
/// NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_chunk_key(
    array: *const zarr_array,
    ndim: usize,
    chunk_indices: *const u64,
    key_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(key_out) };
    run("zarr_array_chunk_key", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(chunk_indices, ndim, "chunk_indices") }?;
        let out = out_ptr(key_out, "key_out")?;
        let key = array.chunk_key(indices)?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, owned_c_string(key)?) };
        Ok(())
    })
}

/// Decode the stored bytes of one chunk (as `zarr_store_get` returns them for the key of
/// `zarr_array_chunk_key`) into `buf`, at the full chunk shape, dense, C order, host byte
/// order: for bytes fetched or cached by other means. The codecs are the array's.
///
/// - `buf_len`: at least `zarr_array_chunk_nbytes`; the first that many bytes are written
///   (partly, if the data turns out to be corrupt).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_BUFFER_TOO_SMALL`;
/// `ZARR_ERROR_CORRUPT_DATA`; `ZARR_ERROR_OUT_OF_MEMORY`; `ZARR_ERROR_UNSUPPORTED`
/// (variable-length elements; a rectilinear grid, whose chunks differ in shape: read them
/// with `zarr_array_read_chunk`).
///
/// Thread safety: safe from several threads on one handle.
///
/// # Safety
/// `array` is NULL or live; `encoded` is NULL or has `encoded_len` readable bytes; `buf`
/// is NULL or has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_decode_chunk(
    array: *const zarr_array,
    encoded: *const c_void,
    encoded_len: usize,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_decode_chunk", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        let encoded = unsafe { slice(encoded.cast::<u8>(), encoded_len, "encoded") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        array.decode_chunk(encoded, buf)?;
        Ok(())
    })
}

/// Read one whole chunk, identified by its grid coordinates, into `buf`.
///
/// The chunk is transferred at its full chunk shape, including any part past the array's
/// edge, dense, C order, host byte order; a chunk never written reads as the fill value.
/// `buf_len` must be at least the chunk's size: `zarr_array_chunk_nbytes` always is (in
/// a rectilinear grid a chunk's own shape, from `zarr_array_chunk_region`, may be
/// smaller, and only its bytes are written). The chunk is decoded straight into `buf`:
/// argument errors leave `buf` unchanged, but a corrupt chunk may leave its bytes partly
/// written (never any byte past them).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (no such chunk); `ZARR_ERROR_BUFFER_TOO_SMALL`;
/// `ZARR_ERROR_CORRUPT_DATA`; `ZARR_ERROR_IO`; `ZARR_ERROR_UNSUPPORTED` (variable-length
/// elements).
///
/// # Safety
/// `array` is NULL or live; `chunk_indices` is NULL or holds `ndim` values; `buf` is NULL
/// or has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read_chunk(
    array: *const zarr_array,
    ndim: usize,
    chunk_indices: *const u64,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_read_chunk", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(chunk_indices, ndim, "chunk_indices") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        array.read_chunk(indices, buf)?;
        Ok(())
    })
}

/// Write one whole chunk, identified by its grid coordinates, from `buf`.
///
/// `buf` holds the full chunk shape (including any part past the array's edge, which is
/// stored as given), dense, C order, host byte order; `buf_len` must equal the chunk's
/// size: `zarr_array_chunk_nbytes` for a regular grid, the product of the chunk's own
/// shape (`zarr_array_chunk_region`) times the element size for a rectilinear one. A chunk
/// equal to the fill value everywhere is erased instead of stored. The chunk is replaced
/// atomically.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`, a sub-byte code with bits set above its width as in `zarr_array_write`);
/// `ZARR_ERROR_OUT_OF_BOUNDS` (no such chunk); `ZARR_ERROR_BUFFER_SIZE_MISMATCH`;
/// `ZARR_ERROR_IO`; `ZARR_ERROR_UNSUPPORTED` (variable-length elements).
///
/// # Safety
/// `array` is NULL or live; `chunk_indices` is NULL or holds `ndim` values; `buf` is NULL
/// or has `buf_len` readable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_write_chunk(
    array: *mut zarr_array,
    ndim: usize,
    chunk_indices: *const u64,
    buf: *const c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_write_chunk", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(chunk_indices, ndim, "chunk_indices") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice(buf.cast::<u8>(), buf_len, "buf") }?;
        array.write_chunk(indices, buf)?;
        Ok(())
    })
}

/// The array's `zarr.json` document as JSON text.
///
/// - `json_out`: receives a new NUL-terminated string owned by the caller (free it with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `array` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_metadata_json(
    array: *const zarr_array,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_array_metadata_json", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(json_out, "json_out")?;
        let text = owned_c_string(array.array.metadata_json().to_string())?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The array's attributes as a JSON object text (`{}` when there are none).
///
/// Non-finite numbers that other writers store as bare `NaN` / `Infinity` tokens are
/// returned as the strings "NaN", "Infinity", "-Infinity".
///
/// - `json_out`: receives a new string owned by the caller (free with
///   `zarr_string_free`), or NULL on failure.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// # Safety
/// `array` is NULL or live; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_attributes_json(
    array: *const zarr_array,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_array_attributes_json", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        let out = out_ptr(json_out, "json_out")?;
        let attributes = serde_json::Value::Object(array.array.attributes());
        let text = owned_c_string(attributes.to_string())?;
        // SAFETY: checked non-NULL, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// Replace the array's attributes with the JSON object `attributes_json` and rewrite its
/// `zarr.json` atomically.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (not JSON,
/// or not an object); `ZARR_ERROR_IO`.
///
/// Thread safety: attribute changes through one handle (this function and the typed
/// setters such as `zarr_array_set_attribute_string`) are serialised; other calls on the
/// handle see the attributes before or after each change.
///
/// # Safety
/// `array` is NULL or live; `attributes_json` is NULL or NUL-terminated.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_set_attributes_json(
    array: *mut zarr_array,
    attributes_json: *const c_char,
) -> zarr_status {
    run("zarr_array_set_attributes_json", || {
        // SAFETY: per this function's contract.
        let array = unsafe { handle(array, "array") }?;
        // SAFETY: per this function's contract.
        let text = unsafe { str_arg(attributes_json, "attributes_json") }?;
        let attributes = parse_object(text.as_bytes(), "attributes_json")
            .map_err(|e| FfiError::InvalidArgument(format!("attributes_json: {e}")))?;
        // Under the metadata lock, so that it cannot race with the typed setters.
        array.array.update_attributes(|current| {
            *current = attributes;
            Ok::<(), FfiError>(())
        })
    })
}

/// The array's inner chunk shape: for a sharded array (`sharding_indexed` codec) the shape
/// of the inner chunks inside each shard, otherwise the chunk shape. `ndim` values are
/// written to `inner_chunk_shape_out`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`).
///
/// # Safety
/// `array` is NULL or live; `inner_chunk_shape_out` is NULL or holds `ndim` writable values.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_inner_chunk_shape(
    array: *const zarr_array,
    ndim: usize,
    inner_chunk_shape_out: *mut u64,
) -> zarr_status {
    run("zarr_array_inner_chunk_shape", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        // SAFETY: per this function's contract.
        unsafe {
            copy_dims(
                array,
                ndim,
                &array.inner_chunk_shape(),
                inner_chunk_shape_out,
                "inner_chunk_shape_out",
            )
        }
    })
}

/// Read one whole inner chunk into `buf`, identified by its coordinates in the array-wide
/// grid of inner chunks (`zarr_array_inner_chunk_shape`).
///
/// The inner chunk is transferred at its full shape (including any part past the array's
/// edge), dense, C order, host byte order; `buf_len` must be at least the product of the
/// inner chunk shape times the element size. For a sharded array only the shard's index
/// and the inner chunk's own bytes are read. For an unsharded array this is
/// `zarr_array_read_chunk`. The inner chunk is decoded straight into `buf`: argument
/// errors leave `buf` unchanged, but a corrupt inner chunk may leave its bytes partly
/// written (never any byte past the inner chunk's size).
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_INVALID_ARGUMENT` (wrong
/// `ndim`); `ZARR_ERROR_OUT_OF_BOUNDS` (no such inner chunk); `ZARR_ERROR_BUFFER_TOO_SMALL`;
/// `ZARR_ERROR_CORRUPT_DATA` (bad index, bad checksum, truncated shard); `ZARR_ERROR_IO`;
/// `ZARR_ERROR_UNSUPPORTED` (variable-length elements).
///
/// Thread safety: concurrent reads of one handle are safe.
///
/// # Safety
/// `array` is NULL or live; `inner_chunk_indices` is NULL or holds `ndim` values; `buf` is
/// NULL or has `buf_len` writable bytes.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_read_inner_chunk(
    array: *const zarr_array,
    ndim: usize,
    inner_chunk_indices: *const u64,
    buf: *mut c_void,
    buf_len: usize,
) -> zarr_status {
    run("zarr_array_read_inner_chunk", || {
        // SAFETY: per this function's contract.
        let array = &unsafe { handle(array, "array") }?.array;
        check_rank(array, ndim)?;
        // SAFETY: per this function's contract.
        let indices = unsafe { slice(inner_chunk_indices, ndim, "inner_chunk_indices") }?;
        // SAFETY: per this function's contract.
        let buf = unsafe { slice_mut(buf.cast::<u8>(), buf_len, "buf") }?;
        array.read_inner_chunk(indices, buf)?;
        Ok(())
    })
}

/// The Zarr format the array is stored in: 3 (including the 2022 draft layout) or 2.
///
/// - `format_out`: receives 2 or 3.
///
/// Returns `ZARR_OK` or `ZARR_ERROR_NULL_ARGUMENT`.
///
/// Thread safety: may be called concurrently with any call on the handle.
///
/// # Safety
/// `array` is NULL or a live handle; `format_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_array_format(
    array: *const zarr_array,
    format_out: *mut u32,
) -> zarr_status {
    // SAFETY: per this function's contract, which is format_body's.
    unsafe { format_body("zarr_array_format", array, format_out) }
}
