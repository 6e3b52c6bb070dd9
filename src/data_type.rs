//! Zarr v3 core data types, their sizes, and fill values.
//!
//! Elements are held in memory in host byte order (the C API's contract); the `bytes`
//! codec converts to the stored byte order. A fill value is kept as the host-order bytes
//! of one element, so filling a chunk is a byte-pattern copy whatever the type.

use crate::metadata::MetadataError;
use half::f16;
use serde_json::{Number, Value};

/// A Zarr v3 core data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    /// Two float32 values, real then imaginary.
    Complex64,
    /// Two float64 values, real then imaginary.
    Complex128,
    /// `r<bits>`: opaque raw bits; the value is the size in bytes (bits / 8).
    RawBits(usize),
}

impl DataType {
    /// Parse a v3 data type name (`"float32"`, `"r24"`, ...).
    pub fn from_name(name: &str) -> Result<DataType, MetadataError> {
        Ok(match name {
            "bool" => DataType::Bool,
            "int8" => DataType::Int8,
            "int16" => DataType::Int16,
            "int32" => DataType::Int32,
            "int64" => DataType::Int64,
            "uint8" => DataType::UInt8,
            "uint16" => DataType::UInt16,
            "uint32" => DataType::UInt32,
            "uint64" => DataType::UInt64,
            "float16" => DataType::Float16,
            "float32" => DataType::Float32,
            "float64" => DataType::Float64,
            "complex64" => DataType::Complex64,
            "complex128" => DataType::Complex128,
            _ => {
                if let Some(bits) = name.strip_prefix('r') {
                    let bits: usize = bits
                        .parse()
                        .ok()
                        .filter(|b: &usize| *b > 0 && *b % 8 == 0 && !bits.starts_with('0'))
                        .ok_or_else(|| {
                            MetadataError::Invalid(format!(
                                "raw data type '{name}': the bit count must be a positive multiple of 8"
                            ))
                        })?;
                    // A single element larger than 2^24 bytes is surely a mistake, and
                    // bounding it keeps every later size computation small.
                    if bits / 8 > 1 << 24 {
                        return Err(MetadataError::Invalid(format!(
                            "raw data type '{name}' is too large"
                        )));
                    }
                    DataType::RawBits(bits / 8)
                } else {
                    return Err(MetadataError::Unsupported(format!("data type '{name}'")));
                }
            }
        })
    }

    /// The v3 name of the data type.
    pub fn name(&self) -> String {
        match self {
            DataType::Bool => "bool".into(),
            DataType::Int8 => "int8".into(),
            DataType::Int16 => "int16".into(),
            DataType::Int32 => "int32".into(),
            DataType::Int64 => "int64".into(),
            DataType::UInt8 => "uint8".into(),
            DataType::UInt16 => "uint16".into(),
            DataType::UInt32 => "uint32".into(),
            DataType::UInt64 => "uint64".into(),
            DataType::Float16 => "float16".into(),
            DataType::Float32 => "float32".into(),
            DataType::Float64 => "float64".into(),
            DataType::Complex64 => "complex64".into(),
            DataType::Complex128 => "complex128".into(),
            DataType::RawBits(bytes) => format!("r{}", bytes * 8),
        }
    }

    /// Size of one element in bytes.
    pub fn size(&self) -> usize {
        match self {
            DataType::Bool | DataType::Int8 | DataType::UInt8 => 1,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
            DataType::Int64 | DataType::UInt64 | DataType::Float64 | DataType::Complex64 => 8,
            DataType::Complex128 => 16,
            DataType::RawBits(bytes) => *bytes,
        }
    }

    /// The size of the unit whose byte order the `bytes` codec swaps: the whole element
    /// for numbers, each component for complex numbers, nothing (1) for bytes and raw bits.
    pub fn endian_unit(&self) -> usize {
        match self {
            DataType::Complex64 => 4,
            DataType::Complex128 => 8,
            DataType::RawBits(_) => 1,
            other => other.size(),
        }
    }

    /// Parse a fill value in any spelling the v3 spec allows for this type, returning the
    /// host-order bytes of one element.
    pub fn parse_fill_value(&self, value: &Value) -> Result<FillValue, MetadataError> {
        let bad = |why: &str| {
            MetadataError::Invalid(format!(
                "fill_value {value} is not valid for data type {}: {why}",
                self.name()
            ))
        };
        let bytes = match self {
            DataType::Bool => match value {
                Value::Bool(b) => vec![*b as u8],
                _ => return Err(bad("expected true or false")),
            },
            DataType::Int8 => (int_in_range(value, i8::MIN as i128, i8::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as i8)
                .to_ne_bytes()
                .to_vec(),
            DataType::Int16 => (int_in_range(value, i16::MIN as i128, i16::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as i16)
                .to_ne_bytes()
                .to_vec(),
            DataType::Int32 => (int_in_range(value, i32::MIN as i128, i32::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as i32)
                .to_ne_bytes()
                .to_vec(),
            DataType::Int64 => (int_in_range(value, i64::MIN as i128, i64::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as i64)
                .to_ne_bytes()
                .to_vec(),
            DataType::UInt8 => (int_in_range(value, 0, u8::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as u8)
                .to_ne_bytes()
                .to_vec(),
            DataType::UInt16 => (int_in_range(value, 0, u16::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as u16)
                .to_ne_bytes()
                .to_vec(),
            DataType::UInt32 => (int_in_range(value, 0, u32::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as u32)
                .to_ne_bytes()
                .to_vec(),
            DataType::UInt64 => (int_in_range(value, 0, u64::MAX as i128)
                .ok_or_else(|| bad("expected an integer in range"))?
                as u64)
                .to_ne_bytes()
                .to_vec(),
            DataType::Float16 => parse_float(value, FloatWidth::F16)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 4 hex digits"))?,
            DataType::Float32 => parse_float(value, FloatWidth::F32)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 8 hex digits"))?,
            DataType::Float64 => parse_float(value, FloatWidth::F64)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 16 hex digits"))?,
            DataType::Complex64 | DataType::Complex128 => {
                let width = if *self == DataType::Complex64 {
                    FloatWidth::F32
                } else {
                    FloatWidth::F64
                };
                match value {
                    Value::Array(parts) if parts.len() == 2 => {
                        let mut bytes = parse_float(&parts[0], width)
                            .ok_or_else(|| bad("invalid real part"))?;
                        bytes.extend(
                            parse_float(&parts[1], width)
                                .ok_or_else(|| bad("invalid imaginary part"))?,
                        );
                        bytes
                    }
                    _ => return Err(bad("expected [real, imaginary]")),
                }
            }
            DataType::RawBits(size) => match value {
                Value::Array(items) if items.len() == *size => items
                    .iter()
                    .map(|item| {
                        item.as_u64()
                            .filter(|b| *b <= 255)
                            .map(|b| b as u8)
                            .ok_or_else(|| bad("expected integers 0..255"))
                    })
                    .collect::<Result<Vec<u8>, _>>()?,
                // tensorstore writes raw fill values as base64 text; accept it on read.
                Value::String(text) => match decode_base64(text) {
                    Some(bytes) if bytes.len() == *size => bytes,
                    _ => return Err(bad(&format!("expected {size} bytes in base64"))),
                },
                _ => return Err(bad(&format!("expected an array of {size} byte values"))),
            },
        };
        Ok(FillValue(bytes))
    }

    /// The canonical JSON spelling of a fill value of this type (what we write).
    pub fn fill_value_to_json(&self, fill: &FillValue) -> Value {
        let b = fill.as_bytes();
        match self {
            DataType::Bool => Value::Bool(b[0] != 0),
            DataType::Int8 => Value::from(b[0] as i8),
            DataType::Int16 => Value::from(i16::from_ne_bytes([b[0], b[1]])),
            DataType::Int32 => Value::from(i32::from_ne_bytes(b[..4].try_into().unwrap())),
            DataType::Int64 => Value::from(i64::from_ne_bytes(b[..8].try_into().unwrap())),
            DataType::UInt8 => Value::from(b[0]),
            DataType::UInt16 => Value::from(u16::from_ne_bytes([b[0], b[1]])),
            DataType::UInt32 => Value::from(u32::from_ne_bytes(b[..4].try_into().unwrap())),
            DataType::UInt64 => Value::from(u64::from_ne_bytes(b[..8].try_into().unwrap())),
            DataType::Float16 => float_to_json(b, FloatWidth::F16),
            DataType::Float32 => float_to_json(b, FloatWidth::F32),
            DataType::Float64 => float_to_json(b, FloatWidth::F64),
            DataType::Complex64 => Value::Array(vec![
                float_to_json(&b[..4], FloatWidth::F32),
                float_to_json(&b[4..8], FloatWidth::F32),
            ]),
            DataType::Complex128 => Value::Array(vec![
                float_to_json(&b[..8], FloatWidth::F64),
                float_to_json(&b[8..16], FloatWidth::F64),
            ]),
            DataType::RawBits(_) => Value::Array(b.iter().map(|x| Value::from(*x)).collect()),
        }
    }

    /// The default fill value (all zero bits: false, 0, +0.0).
    pub fn zero_fill_value(&self) -> FillValue {
        FillValue(vec![0; self.size()])
    }
}

/// The byte order a numpy dtype string gives its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    Little,
    Big,
    /// Single-byte units (`b1`, `i1`, `u1`, `V<n>`): byte order does not apply.
    NotApplicable,
}

impl ByteOrder {
    /// The host's byte order.
    pub fn native() -> ByteOrder {
        if cfg!(target_endian = "little") {
            ByteOrder::Little
        } else {
            ByteOrder::Big
        }
    }
}

/// Parse a numpy dtype string as found in Zarr v2 `.zarray` documents and numcodecs
/// configurations: an optional byte-order character (`<` little, `>` big, `|` not
/// applicable, `=` native, none = native) then a kind and size: `b1`, `i1 i2 i4 i8`,
/// `u1 u2 u4 u8`, `f2 f4 f8`, `c8 c16`, or `V<n>` (raw bytes, [`DataType::RawBits`]).
///
/// Returns the data type and the byte order its multi-byte units are stored in: native
/// order (`=`, `|` or no prefix) is resolved to the host's order, and types whose units are
/// single bytes always give [`ByteOrder::NotApplicable`] (numpy itself normalises `<u1` to
/// `|u1`). Anything else (datetimes, strings, objects, structured types, a stray
/// character) is `None`.
pub fn parse_numpy_dtype(s: &str) -> Option<(DataType, ByteOrder)> {
    let (order, rest) = match s.as_bytes().first()? {
        b'<' => (Some(ByteOrder::Little), &s[1..]),
        b'>' => (Some(ByteOrder::Big), &s[1..]),
        b'|' | b'=' => (None, &s[1..]),
        _ => (None, s),
    };
    let data_type = match rest {
        "b1" => DataType::Bool,
        "i1" => DataType::Int8,
        "i2" => DataType::Int16,
        "i4" => DataType::Int32,
        "i8" => DataType::Int64,
        "u1" => DataType::UInt8,
        "u2" => DataType::UInt16,
        "u4" => DataType::UInt32,
        "u8" => DataType::UInt64,
        "f2" => DataType::Float16,
        "f4" => DataType::Float32,
        "f8" => DataType::Float64,
        "c8" => DataType::Complex64,
        "c16" => DataType::Complex128,
        _ => {
            let n = rest.strip_prefix('V')?;
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
                return None;
            }
            let size: usize = n.parse().ok().filter(|&n: &usize| n <= 1 << 24)?;
            DataType::RawBits(size)
        }
    };
    let order = if data_type.endian_unit() == 1 {
        ByteOrder::NotApplicable
    } else {
        order.unwrap_or_else(ByteOrder::native)
    };
    Some((data_type, order))
}

/// The numpy dtype string (`"<f8"`, `"|u1"`, `"|V3"`) of a data type stored in `order`, as
/// numpy's `dtype.str` spells it; the inverse of [`parse_numpy_dtype`].
pub fn numpy_dtype_str(data_type: DataType, order: ByteOrder) -> String {
    let prefix = match (data_type.endian_unit(), order) {
        (1, _) | (_, ByteOrder::NotApplicable) => '|',
        (_, ByteOrder::Little) => '<',
        (_, ByteOrder::Big) => '>',
    };
    let code = match data_type {
        DataType::Bool => "b1".to_string(),
        DataType::Int8 => "i1".into(),
        DataType::Int16 => "i2".into(),
        DataType::Int32 => "i4".into(),
        DataType::Int64 => "i8".into(),
        DataType::UInt8 => "u1".into(),
        DataType::UInt16 => "u2".into(),
        DataType::UInt32 => "u4".into(),
        DataType::UInt64 => "u8".into(),
        DataType::Float16 => "f2".into(),
        DataType::Float32 => "f4".into(),
        DataType::Float64 => "f8".into(),
        DataType::Complex64 => "c8".into(),
        DataType::Complex128 => "c16".into(),
        DataType::RawBits(n) => format!("V{n}"),
    };
    format!("{prefix}{code}")
}

/// The host-order bytes of one element used for data that was never written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FillValue(Vec<u8>);

impl FillValue {
    pub fn new(bytes: Vec<u8>) -> FillValue {
        FillValue(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether every element of `data` (a whole number of elements) equals the fill value,
    /// bit for bit. Bitwise comparison is what makes a NaN fill value work.
    pub fn equals_all(&self, data: &[u8]) -> bool {
        let fill = &self.0;
        if fill.iter().all(|b| *b == fill[0]) {
            // Fast path for the common single-byte pattern (zero above all).
            let byte = fill[0];
            return data.iter().all(|b| *b == byte);
        }
        data.chunks_exact(fill.len()).all(|element| element == fill)
    }

    /// Fill `out` (a whole number of elements) with the fill value.
    pub fn fill(&self, out: &mut [u8]) {
        let fill = &self.0;
        if fill.iter().all(|b| *b == fill[0]) {
            out.fill(fill[0]);
        } else {
            for element in out.chunks_exact_mut(fill.len()) {
                element.copy_from_slice(fill);
            }
        }
    }
}

/// Decode standard base64 (RFC 4648, `=` padding optional); `None` on any other character.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let text = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for group in text.chunks(4) {
        if group.len() == 1 {
            return None;
        }
        let mut bits = 0u32;
        for (i, c) in group.iter().enumerate() {
            bits |= digit(*c)? << (18 - 6 * i);
        }
        out.extend_from_slice(&bits.to_be_bytes()[1..group.len()]);
    }
    Some(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FloatWidth {
    F16,
    F32,
    F64,
}

impl FloatWidth {
    fn bytes(self) -> usize {
        match self {
            FloatWidth::F16 => 2,
            FloatWidth::F32 => 4,
            FloatWidth::F64 => 8,
        }
    }
}

/// An integer fill value, also accepting the "intish" spellings other writers produce
/// (`3.0`, `"3"`), within `[min, max]`.
fn int_in_range(value: &Value, min: i128, max: i128) -> Option<i128> {
    let v: i128 = match value {
        Value::Number(n) => number_as_i128(n)?,
        Value::String(s) => s.trim().parse::<i128>().ok()?,
        _ => return None,
    };
    (min..=max).contains(&v).then_some(v)
}

fn number_as_i128(n: &Number) -> Option<i128> {
    if let Some(u) = n.as_u64() {
        return Some(u as i128);
    }
    if let Some(i) = n.as_i64() {
        return Some(i as i128);
    }
    // Integer text beyond the 64-bit ranges, and text with a fraction or an exponent,
    // arrive as the nearest f64: -9223372036854775809 reads as -2^63. Only up to 2^53,
    // where every integer is an f64, does the f64 still say which integer was written.
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0).then_some(f as i128)
}

/// Parse a float fill value into host-order bytes of the given width.
fn parse_float(value: &Value, width: FloatWidth) -> Option<Vec<u8>> {
    let from_f64 = |f: f64| -> Vec<u8> {
        match width {
            FloatWidth::F16 => f16::from_f64(f).to_bits().to_ne_bytes().to_vec(),
            FloatWidth::F32 => (f as f32).to_ne_bytes().to_vec(),
            FloatWidth::F64 => f.to_ne_bytes().to_vec(),
        }
    };
    match value {
        Value::Number(n) => n.as_f64().map(from_f64),
        Value::String(s) => match s.as_str() {
            // The spec's NaN is the quiet NaN with sign 0 and only the top mantissa bit set;
            // Rust's f64::NAN and its conversions produce exactly that pattern.
            "NaN" => Some(match width {
                FloatWidth::F16 => 0x7e00u16.to_ne_bytes().to_vec(),
                FloatWidth::F32 => 0x7fc0_0000u32.to_ne_bytes().to_vec(),
                FloatWidth::F64 => 0x7ff8_0000_0000_0000u64.to_ne_bytes().to_vec(),
            }),
            "Infinity" => Some(from_f64(f64::INFINITY)),
            "-Infinity" => Some(from_f64(f64::NEG_INFINITY)),
            hex if hex.starts_with("0x") || hex.starts_with("0X") => {
                let digits = &hex[2..];
                // Full-width hex is canonical; fewer digits are accepted (tensorstore
                // accepts them), more are not.
                if digits.is_empty() || digits.len() > width.bytes() * 2 {
                    return None;
                }
                let bits = u64::from_str_radix(digits, 16).ok()?;
                Some(match width {
                    FloatWidth::F16 => (bits as u16).to_ne_bytes().to_vec(),
                    FloatWidth::F32 => (bits as u32).to_ne_bytes().to_vec(),
                    FloatWidth::F64 => bits.to_ne_bytes().to_vec(),
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// The canonical JSON of a float fill value: a number when finite, the spec's names for
/// infinities and the canonical NaN, and a full-width hex bit pattern for any other NaN so
/// that its payload survives.
fn float_to_json(bytes: &[u8], width: FloatWidth) -> Value {
    let (value, bits, canonical_nan): (f64, u64, u64) = match width {
        FloatWidth::F16 => {
            let bits = u16::from_ne_bytes([bytes[0], bytes[1]]);
            (f16::from_bits(bits).to_f64(), bits as u64, 0x7e00)
        }
        FloatWidth::F32 => {
            let bits = u32::from_ne_bytes(bytes[..4].try_into().unwrap());
            (f32::from_bits(bits) as f64, bits as u64, 0x7fc0_0000)
        }
        FloatWidth::F64 => {
            let bits = u64::from_ne_bytes(bytes[..8].try_into().unwrap());
            (f64::from_bits(bits), bits, 0x7ff8_0000_0000_0000)
        }
    };
    if value.is_nan() {
        if bits == canonical_nan {
            Value::from("NaN")
        } else {
            Value::from(format!("0x{:0width$x}", bits, width = width.bytes() * 2))
        }
    } else if value == f64::INFINITY {
        Value::from("Infinity")
    } else if value == f64::NEG_INFINITY {
        Value::from("-Infinity")
    } else {
        // Finite, so from_f64 cannot fail; the value widened exactly from f16/f32.
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_round_trip() {
        for name in [
            "bool",
            "int8",
            "int16",
            "int32",
            "int64",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "float16",
            "float32",
            "float64",
            "complex64",
            "complex128",
            "r8",
            "r24",
        ] {
            assert_eq!(DataType::from_name(name).unwrap().name(), name);
        }
        assert_eq!(DataType::from_name("r24").unwrap().size(), 3);
        for bad in ["r0", "r7", "r", "r08", "int128", "Float32", ""] {
            assert!(DataType::from_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn float_fill_spellings() {
        let f32t = DataType::Float32;
        let nan = f32t.parse_fill_value(&json!("NaN")).unwrap();
        assert_eq!(nan.as_bytes(), 0x7fc0_0000u32.to_ne_bytes());
        let hex = f32t.parse_fill_value(&json!("0x7fc00001")).unwrap();
        assert_eq!(hex.as_bytes(), 0x7fc0_0001u32.to_ne_bytes());
        assert_eq!(f32t.fill_value_to_json(&hex), json!("0x7fc00001"));
        assert_eq!(f32t.fill_value_to_json(&nan), json!("NaN"));
        let inf = f32t.parse_fill_value(&json!("-Infinity")).unwrap();
        assert_eq!(f32t.fill_value_to_json(&inf), json!("-Infinity"));
        let v = f32t.parse_fill_value(&json!(1.5)).unwrap();
        assert_eq!(v.as_bytes(), 1.5f32.to_ne_bytes());
        assert!(f32t.parse_fill_value(&json!("0x123456789")).is_err());
        assert!(f32t.parse_fill_value(&json!("nan")).is_err());
        assert!(f32t.parse_fill_value(&json!(null)).is_err());
        let h = DataType::Float16.parse_fill_value(&json!("NaN")).unwrap();
        assert_eq!(h.as_bytes(), 0x7e00u16.to_ne_bytes());
        let d = DataType::Float64
            .parse_fill_value(&json!("0x7ff8000000000000"))
            .unwrap();
        assert_eq!(DataType::Float64.fill_value_to_json(&d), json!("NaN"));
    }

    #[test]
    fn integer_fill_values() {
        let u64t = DataType::UInt64;
        let max = u64t
            .parse_fill_value(&json!(18446744073709551615u64))
            .unwrap();
        assert_eq!(max.as_bytes(), u64::MAX.to_ne_bytes());
        assert_eq!(
            u64t.fill_value_to_json(&max),
            json!(18446744073709551615u64)
        );
        assert!(DataType::Int8.parse_fill_value(&json!(128)).is_err());
        assert!(DataType::UInt8.parse_fill_value(&json!(-1)).is_err());
        assert!(DataType::Int32.parse_fill_value(&json!(1.5)).is_err());
        // Beyond the type's range, even where the nearest f64 is in range (-2^63 - 1 and
        // 2^64 arrive as floats).
        let text = |t: &str| serde_json::from_str::<Value>(t).unwrap();
        for (data_type, out_of_range) in [
            (DataType::Int64, "-9223372036854775809"),
            (DataType::Int64, "9223372036854775808"),
            (DataType::Int64, "-9223372036854775808.0"),
            (DataType::UInt64, "18446744073709551616"),
            (DataType::UInt64, "1e19"),
        ] {
            let error = data_type.parse_fill_value(&text(out_of_range)).unwrap_err();
            assert!(error.to_string().contains("fill_value"), "{error}");
        }
        let min = DataType::Int64.parse_fill_value(&text("-9223372036854775808"));
        assert_eq!(min.unwrap().as_bytes(), i64::MIN.to_ne_bytes());
        let intish = DataType::Int32.parse_fill_value(&json!(7.0)).unwrap();
        assert_eq!(intish.as_bytes(), 7i32.to_ne_bytes());
        assert!(DataType::Bool.parse_fill_value(&json!(1)).is_err());
    }

    #[test]
    fn complex_and_raw_fill_values() {
        let c = DataType::Complex64
            .parse_fill_value(&json!(["-Infinity", "NaN"]))
            .unwrap();
        assert_eq!(
            DataType::Complex64.fill_value_to_json(&c),
            json!(["-Infinity", "NaN"])
        );
        let r = DataType::RawBits(3)
            .parse_fill_value(&json!([1, 2, 255]))
            .unwrap();
        assert_eq!(r.as_bytes(), &[1, 2, 255]);
        assert!(DataType::RawBits(3)
            .parse_fill_value(&json!([1, 2]))
            .is_err());
        assert!(DataType::RawBits(1)
            .parse_fill_value(&json!([256]))
            .is_err());
    }

    #[test]
    fn fill_pattern_and_comparison() {
        let fill = FillValue::new(1.0f32.to_ne_bytes().to_vec());
        let mut buf = vec![0u8; 16];
        fill.fill(&mut buf);
        assert!(fill.equals_all(&buf));
        buf[5] ^= 1;
        assert!(!fill.equals_all(&buf));
    }

    #[test]
    fn numpy_dtype_strings() {
        use super::{numpy_dtype_str, parse_numpy_dtype, ByteOrder as B};
        let native = B::native();
        for (text, dt, order) in [
            ("<f8", DataType::Float64, B::Little),
            (">i2", DataType::Int16, B::Big),
            ("|u1", DataType::UInt8, B::NotApplicable),
            ("<u1", DataType::UInt8, B::NotApplicable),
            ("b1", DataType::Bool, B::NotApplicable),
            ("|b1", DataType::Bool, B::NotApplicable),
            ("f4", DataType::Float32, native),
            ("=i8", DataType::Int64, native),
            ("|u4", DataType::UInt32, native),
            (">c8", DataType::Complex64, B::Big),
            ("<c16", DataType::Complex128, B::Little),
            ("<f2", DataType::Float16, B::Little),
            ("|V3", DataType::RawBits(3), B::NotApplicable),
            (">u8", DataType::UInt64, B::Big),
            ("i1", DataType::Int8, B::NotApplicable),
        ] {
            assert_eq!(parse_numpy_dtype(text), Some((dt, order)), "{text}");
        }
        for bad in [
            "", "<", "f", "<f3", "<i16", "<U8", "|S4", "<M8[ns]", "O", "<f8 ", "<<f8", "|V0", "|V",
            "|V03", "float64", "?",
        ] {
            assert_eq!(parse_numpy_dtype(bad), None, "{bad}");
        }
        assert_eq!(numpy_dtype_str(DataType::Float64, B::Little), "<f8");
        assert_eq!(numpy_dtype_str(DataType::Int16, B::Big), ">i2");
        assert_eq!(numpy_dtype_str(DataType::UInt8, B::Little), "|u1");
        assert_eq!(numpy_dtype_str(DataType::Complex128, B::Big), ">c16");
        assert_eq!(
            numpy_dtype_str(DataType::RawBits(5), B::NotApplicable),
            "|V5"
        );
    }
}
