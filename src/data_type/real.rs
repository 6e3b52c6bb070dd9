//! Elements of the real number types as `f64`: the conversion behind a typed read
//! (`Array::read_region_f64`, `zarr_array_read_double`).
//!
//! Every data type whose elements are one real number converts: `bool` (0 or 1), the
//! integers (exactly up to 2^53 in magnitude, rounded to the nearest double beyond; int2,
//! int4, uint2 and uint4 from their codes), and the floating-point types (exactly: float16,
//! bfloat16, the float8, float6 and float4 formats and float32 are subsets of float64; NaN
//! and infinities stay what they are). The others do not: complex
//! numbers, raw bits and bytes, strings, structs, and datetimes and timedeltas (counts of a
//! unit with NaT, whose meaning a plain number would lose: read them as int64).

use super::DataType;
use half::f16;

/// Why a data type does not convert to `f64`: its name and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotReal {
    pub name: String,
    pub reason: &'static str,
}

/// The converter of one element's host-order bytes (exactly `size()` of them) to `f64`.
type Convert = fn(&[u8]) -> f64;

/// `N` bytes of an element (the caller passes exactly the element's bytes).
fn bytes<const N: usize>(element: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(element);
    out
}

/// The converter for `data_type`, or why there is none.
fn converter(data_type: &DataType) -> Result<Convert, NotReal> {
    use super::Float8Format as F8;
    use super::{SubByteFloat, SubByteInt};
    let not_real = |reason| NotReal {
        name: data_type.name(),
        reason,
    };
    Ok(match data_type {
        DataType::Bool => |e| if e[0] != 0 { 1.0 } else { 0.0 },
        DataType::Int8 => |e| i8::from_ne_bytes(bytes(e)) as f64,
        DataType::Int16 => |e| i16::from_ne_bytes(bytes(e)) as f64,
        DataType::Int32 => |e| i32::from_ne_bytes(bytes(e)) as f64,
        DataType::Int64 => |e| i64::from_ne_bytes(bytes(e)) as f64,
        DataType::UInt8 => |e| e[0] as f64,
        DataType::UInt16 => |e| u16::from_ne_bytes(bytes(e)) as f64,
        DataType::UInt32 => |e| u32::from_ne_bytes(bytes(e)) as f64,
        DataType::UInt64 => |e| u64::from_ne_bytes(bytes(e)) as f64,
        DataType::Float16 => |e| f16::from_bits(u16::from_ne_bytes(bytes(e))).to_f64(),
        DataType::BFloat16 => |e| super::minifloat::bf16_to_f64(u16::from_ne_bytes(bytes(e))),
        DataType::Float32 => |e| f32::from_ne_bytes(bytes(e)) as f64,
        DataType::Float64 => |e| f64::from_ne_bytes(bytes(e)),
        DataType::Float8(F8::E4M3) => |e| F8::E4M3.to_f64(e[0]),
        DataType::Float8(F8::E4M3FN) => |e| F8::E4M3FN.to_f64(e[0]),
        DataType::Float8(F8::E4M3FNUZ) => |e| F8::E4M3FNUZ.to_f64(e[0]),
        DataType::Float8(F8::E4M3B11FNUZ) => |e| F8::E4M3B11FNUZ.to_f64(e[0]),
        DataType::Float8(F8::E5M2) => |e| F8::E5M2.to_f64(e[0]),
        DataType::Float8(F8::E5M2FNUZ) => |e| F8::E5M2FNUZ.to_f64(e[0]),
        DataType::Float8(F8::E3M4) => |e| F8::E3M4.to_f64(e[0]),
        DataType::Float8(F8::E8M0FNU) => |e| F8::E8M0FNU.to_f64(e[0]),
        DataType::SubByteInt(SubByteInt::Int2) => |e| SubByteInt::Int2.to_i8(e[0]) as f64,
        DataType::SubByteInt(SubByteInt::Int4) => |e| SubByteInt::Int4.to_i8(e[0]) as f64,
        DataType::SubByteInt(SubByteInt::UInt2) => |e| SubByteInt::UInt2.to_i8(e[0]) as f64,
        DataType::SubByteInt(SubByteInt::UInt4) => |e| SubByteInt::UInt4.to_i8(e[0]) as f64,
        DataType::SubByteFloat(SubByteFloat::E2M1FN) => |e| SubByteFloat::E2M1FN.to_f64(e[0]),
        DataType::SubByteFloat(SubByteFloat::E2M3FN) => |e| SubByteFloat::E2M3FN.to_f64(e[0]),
        DataType::SubByteFloat(SubByteFloat::E3M2FN) => |e| SubByteFloat::E3M2FN.to_f64(e[0]),
        DataType::Complex64 | DataType::Complex128 | DataType::Complex(_) => {
            return Err(not_real("its elements are complex numbers, two reals each"))
        }
        DataType::RawBits(_) | DataType::RawBytes(_) => {
            return Err(not_real("its elements are opaque bytes"))
        }
        DataType::FixedLengthUtf32(_) | DataType::String => {
            return Err(not_real("its elements are text"))
        }
        DataType::NullTerminatedBytes(_) | DataType::Bytes => {
            return Err(not_real("its elements are byte strings"))
        }
        DataType::Struct(_) => return Err(not_real("its elements are records of fields")),
        DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
            return Err(not_real(
                "its elements are int64 counts of a time unit with NaT; read them as int64",
            ))
        }
    })
}

/// Whether elements of `data_type` convert to `f64` (`Err` says why not).
pub fn check_real(data_type: &DataType) -> Result<(), NotReal> {
    converter(data_type).map(|_| ())
}

/// Convert the dense host-order elements `src` of `data_type` into `out`, one `f64` per
/// element. `src` holds exactly `out.len()` elements (`src.len() == out.len() * size`).
pub fn to_f64(data_type: &DataType, src: &[u8], out: &mut [f64]) -> Result<(), NotReal> {
    let convert = converter(data_type)?;
    let size = data_type.size();
    debug_assert_eq!(src.len(), out.len() * size);
    for (value, element) in out.iter_mut().zip(src.chunks_exact(size)) {
        *value = convert(element);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::Float8Format;

    fn convert(data_type: DataType, src: &[u8]) -> Vec<f64> {
        let mut out = vec![f64::NAN; src.len() / data_type.size()];
        to_f64(&data_type, src, &mut out).unwrap();
        out
    }

    fn ne<const N: usize, T>(values: &[T], f: fn(&T) -> [u8; N]) -> Vec<u8> {
        values.iter().flat_map(f).collect()
    }

    #[test]
    fn integers_and_bool() {
        assert_eq!(convert(DataType::Bool, &[0, 1, 0]), [0.0, 1.0, 0.0]);
        assert_eq!(convert(DataType::Int8, &[0x80, 0x7f]), [-128.0, 127.0]);
        let i16s = ne(&[-32768i16, -1, 32767], |v| v.to_ne_bytes());
        assert_eq!(convert(DataType::Int16, &i16s), [-32768.0, -1.0, 32767.0]);
        let i32s = ne(&[i32::MIN, 7], |v| v.to_ne_bytes());
        assert_eq!(convert(DataType::Int32, &i32s), [i32::MIN as f64, 7.0]);
        let i64s = ne(&[i64::MIN, -3, 1 << 53], |v| v.to_ne_bytes());
        assert_eq!(
            convert(DataType::Int64, &i64s),
            [-(2f64.powi(63)), -3.0, 9007199254740992.0]
        );
        assert_eq!(convert(DataType::UInt8, &[255, 0]), [255.0, 0.0]);
        let u16s = ne(&[65535u16], |v| v.to_ne_bytes());
        assert_eq!(convert(DataType::UInt16, &u16s), [65535.0]);
        let u32s = ne(&[u32::MAX], |v| v.to_ne_bytes());
        assert_eq!(convert(DataType::UInt32, &u32s), [4294967295.0]);
        // Beyond 2^53: the nearest double.
        let u64s = ne(&[u64::MAX, (1u64 << 53) + 1], |v| v.to_ne_bytes());
        assert_eq!(
            convert(DataType::UInt64, &u64s),
            [18446744073709551616.0, 9007199254740992.0]
        );
    }

    #[test]
    fn floats() {
        let f16s = ne(&[0x3c00u16, 0xc000, 0x7c00, 0x0001], |v| v.to_ne_bytes());
        assert_eq!(
            convert(DataType::Float16, &f16s),
            [1.0, -2.0, f64::INFINITY, 2f64.powi(-24)]
        );
        let bf16s = ne(&[0x3f80u16, 0xc040], |v| v.to_ne_bytes());
        assert_eq!(convert(DataType::BFloat16, &bf16s), [1.0, -3.0]);
        let f32s = ne(&[0.1f32, -0.0], |v| v.to_ne_bytes());
        let got = convert(DataType::Float32, &f32s);
        assert_eq!(got[0], 0.1f32 as f64);
        assert!(got[1] == 0.0 && got[1].is_sign_negative());
        let f64s = ne(&[f64::NAN, 1e300], |v| v.to_ne_bytes());
        let got = convert(DataType::Float64, &f64s);
        assert!(got[0].is_nan());
        assert_eq!(got[1], 1e300);
        assert_eq!(
            convert(DataType::Float8(Float8Format::E4M3), &[0x38]),
            [1.0]
        );
        assert!(convert(DataType::Float8(Float8Format::E5M2FNUZ), &[0x80])[0].is_nan());
    }

    #[test]
    fn others_are_refused_by_name() {
        for (data_type, name) in [
            (DataType::Complex64, "complex64"),
            (DataType::Complex128, "complex128"),
            (DataType::RawBits(2), "r16"),
            (DataType::String, "string"),
            (DataType::Bytes, "bytes"),
            (DataType::NullTerminatedBytes(3), "null_terminated_bytes"),
            (DataType::FixedLengthUtf32(8), "fixed_length_utf32"),
            (DataType::RawBytes(3), "raw_bytes"),
        ] {
            let error = check_real(&data_type).unwrap_err();
            assert_eq!(error.name, name);
            let mut out = [0.0; 1];
            assert!(to_f64(&data_type, &vec![0; data_type.size()], &mut out).is_err());
            assert_eq!(out, [0.0], "nothing written for {name}");
        }
    }
}
