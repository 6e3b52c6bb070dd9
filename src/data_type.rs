//! Zarr data types, their sizes, their byte order, and fill values.
//!
//! Elements are held in memory in host byte order (the C API's contract), laid out as numpy
//! lays them out: numbers as themselves, `numpy.datetime64`/`timedelta64` as int64,
//! `fixed_length_utf32` as UTF-32 code units zero-padded to the length, byte strings as
//! their bytes, `struct` as its packed fields in order (each in host byte order). The
//! `bytes` codec converts to the stored byte order ([`DataType::swap_stored`]). A fill value
//! is kept as the host-order bytes of one element, so filling a chunk is a byte-pattern copy
//! whatever the type.
//!
//! The registry's sub-byte types (`int2`, `int4`, `uint2`, `uint4`, `float4_e2m1fn`,
//! `float6_*`) are one byte per element holding the code in its low bits, upper bits zero
//! (ml_dtypes' layout); `complex_<float type>` is the real component then the imaginary.
//!
//! Names and fill-value spellings follow the Zarr v3 core specification, the
//! zarr-extensions registry (`bfloat16`, `float8_*`, the sub-byte and `complex_*` types,
//! `fixed_length_utf32`, `numpy.datetime64`, `numpy.timedelta64`, `struct`) and what
//! zarr-python 3 writes (`null_terminated_bytes`, `raw_bytes`, the legacy `structured`).

mod complex;
mod minifloat;
pub mod real;
mod structure;
mod sub_byte;
mod time;

pub use complex::ComplexPart;
pub use minifloat::Float8Format;
pub use structure::{StructField, StructForm, StructType};
pub use sub_byte::{SubByteFloat, SubByteInt};
pub use time::{TimeUnit, TimeUnitName};

use crate::metadata_error::MetadataError;
use half::f16;
use serde_json::{Map, Number, Value};
use std::sync::Arc;

/// The largest element this library accepts, in bytes. A single element larger than
/// 2^24 bytes is surely a mistake, and bounding it keeps every later size computation small.
pub const MAX_ELEMENT_SIZE: usize = 1 << 24;

/// A Zarr data type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    /// `bfloat16`: the top half of a float32.
    BFloat16,
    /// One of the `float8_*` formats.
    Float8(Float8Format),
    /// `fixed_length_utf32`: the value is `length_bytes` (4 per code point); elements are
    /// UTF-32 code units in host order, zero-padded (numpy's `U<n>`).
    FixedLengthUtf32(usize),
    /// zarr-python's `null_terminated_bytes` (numpy `S<n>`): `n` bytes, zero-padded.
    NullTerminatedBytes(usize),
    /// zarr-python's `raw_bytes` (numpy `V<n>` without fields): `n` opaque bytes.
    RawBytes(usize),
    /// `numpy.datetime64`: an int64 count of `unit`s since 1970-01-01; i64::MIN is NaT.
    DateTime64(TimeUnit),
    /// `numpy.timedelta64`: an int64 count of `unit`s; i64::MIN is NaT.
    TimeDelta64(TimeUnit),
    /// `struct` (and its legacy and Zarr v2 spellings): packed fields in order.
    Struct(Arc<StructType>),
    /// `string`: variable-length UTF-8 text (codec `vlen-utf8`; Zarr v2 `|O`).
    String,
    /// `bytes` (zarr-python 3.1 also spells it `variable_length_bytes`): variable-length
    /// byte strings (codec `vlen-bytes`; Zarr v2 `|O`).
    Bytes,
    /// `int2`, `int4`, `uint2`, `uint4`: one byte per element holding the 2- or 4-bit two's
    /// complement (or unsigned) code in its low bits, upper bits zero (ml_dtypes' layout).
    SubByteInt(SubByteInt),
    /// `float4_e2m1fn`, `float6_e2m3fn`, `float6_e3m2fn`: one byte per element holding the
    /// 4- or 6-bit code in its low bits, upper bits zero.
    SubByteFloat(SubByteFloat),
    /// `complex_<float type>`: the real component, then the imaginary one.
    Complex(ComplexPart),
}

/// Build the error for a data type document.
fn invalid(message: String) -> MetadataError {
    MetadataError::Invalid(message)
}

/// The `length_bytes` of a configuration, validated (positive, a multiple of `multiple`,
/// at most [`MAX_ELEMENT_SIZE`]).
fn length_bytes(
    name: &str,
    configuration: Option<&Map<String, Value>>,
    multiple: usize,
) -> Result<usize, MetadataError> {
    let configuration = configuration
        .ok_or_else(|| invalid(format!("data type '{name}' needs a configuration")))?;
    if let Some(key) = configuration.keys().find(|k| k.as_str() != "length_bytes") {
        return Err(invalid(format!(
            "data type '{name}': unknown configuration key \"{key}\""
        )));
    }
    let n = configuration
        .get("length_bytes")
        .and_then(Value::as_u64)
        .ok_or_else(|| {
            invalid(format!(
                "data type '{name}': \"length_bytes\" must be a non-negative integer"
            ))
        })?;
    if n == 0 || n % multiple as u64 != 0 {
        return Err(invalid(format!(
            "data type '{name}': length_bytes {n} must be a positive multiple of {multiple}"
        )));
    }
    if n > MAX_ELEMENT_SIZE as u64 {
        return Err(invalid(format!(
            "data type '{name}': length_bytes {n} is too large"
        )));
    }
    Ok(n as usize)
}

impl DataType {
    /// Parse a v3 data type name without configuration (`"float32"`, `"r24"`, ...).
    pub fn from_name(name: &str) -> Result<DataType, MetadataError> {
        DataType::from_name_and_configuration(name, None)
    }

    /// Parse a v3 `data_type` value: a name, or an object with `name` and `configuration`.
    pub fn from_json(value: &Value) -> Result<DataType, MetadataError> {
        match value {
            Value::String(name) => DataType::from_name(name),
            Value::Object(object) => {
                if let Some(key) = object
                    .keys()
                    .find(|k| !matches!(k.as_str(), "name" | "configuration" | "must_understand"))
                {
                    return Err(invalid(format!("data_type has an unknown key \"{key}\"")));
                }
                let name = object
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("data_type object without a string \"name\"".into()))?;
                let configuration = match object.get("configuration") {
                    None => None,
                    Some(Value::Object(c)) => Some(c),
                    Some(_) => {
                        return Err(invalid(format!(
                            "data type '{name}': configuration must be an object"
                        )))
                    }
                };
                DataType::from_name_and_configuration(name, configuration)
            }
            other => Err(invalid(format!(
                "data_type must be a string or an object, not {other}"
            ))),
        }
    }

    fn from_name_and_configuration(
        name: &str,
        configuration: Option<&Map<String, Value>>,
    ) -> Result<DataType, MetadataError> {
        let simple = match name {
            "bool" => Some(DataType::Bool),
            "int8" => Some(DataType::Int8),
            "int16" => Some(DataType::Int16),
            "int32" => Some(DataType::Int32),
            "int64" => Some(DataType::Int64),
            "uint8" => Some(DataType::UInt8),
            "uint16" => Some(DataType::UInt16),
            "uint32" => Some(DataType::UInt32),
            "uint64" => Some(DataType::UInt64),
            "float16" => Some(DataType::Float16),
            "float32" => Some(DataType::Float32),
            "float64" => Some(DataType::Float64),
            "complex64" => Some(DataType::Complex64),
            "complex128" => Some(DataType::Complex128),
            "bfloat16" => Some(DataType::BFloat16),
            "string" => Some(DataType::String),
            // The registry's name, zarr-python 3.1's, and zarrs' alias.
            "bytes" | "variable_length_bytes" | "binary" => Some(DataType::Bytes),
            _ => Float8Format::from_name(name)
                .map(DataType::Float8)
                .or_else(|| SubByteInt::from_name(name).map(DataType::SubByteInt))
                .or_else(|| SubByteFloat::from_name(name).map(DataType::SubByteFloat))
                .or_else(|| {
                    name.strip_prefix("complex_")
                        .and_then(ComplexPart::from_component_name)
                        .map(DataType::Complex)
                }),
        };
        let simple = match simple {
            Some(data_type) => Some(data_type),
            None => raw_bits(name)?,
        };
        if let Some(data_type) = simple {
            if configuration.is_some_and(|c| !c.is_empty()) {
                return Err(MetadataError::Unsupported(format!(
                    "data type '{name}' with a configuration"
                )));
            }
            return Ok(data_type);
        }
        Ok(match name {
            "fixed_length_utf32" => {
                DataType::FixedLengthUtf32(length_bytes(name, configuration, 4)?)
            }
            "null_terminated_bytes" => {
                DataType::NullTerminatedBytes(length_bytes(name, configuration, 1)?)
            }
            "raw_bytes" => DataType::RawBytes(length_bytes(name, configuration, 1)?),
            "numpy.datetime64" => {
                DataType::DateTime64(TimeUnit::from_configuration(name, configuration)?)
            }
            "numpy.timedelta64" => {
                DataType::TimeDelta64(TimeUnit::from_configuration(name, configuration)?)
            }
            "struct" | "structured" => {
                DataType::Struct(Arc::new(StructType::from_v3(name, configuration)?))
            }
            _ => return Err(MetadataError::Unsupported(format!("data type '{name}'"))),
        })
    }

    /// The v3 name of the data type (`"float32"`, `"numpy.datetime64"`, `"struct"`).
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
            DataType::BFloat16 => "bfloat16".into(),
            DataType::Float8(format) => format.name().into(),
            DataType::FixedLengthUtf32(_) => "fixed_length_utf32".into(),
            DataType::NullTerminatedBytes(_) => "null_terminated_bytes".into(),
            DataType::RawBytes(_) => "raw_bytes".into(),
            DataType::DateTime64(_) => "numpy.datetime64".into(),
            DataType::TimeDelta64(_) => "numpy.timedelta64".into(),
            DataType::Struct(s) => match s.form {
                StructForm::Structured => "structured".into(),
                _ => "struct".into(),
            },
            DataType::String => "string".into(),
            DataType::Bytes => "bytes".into(),
            DataType::SubByteInt(t) => t.name().into(),
            DataType::SubByteFloat(t) => t.name().into(),
            DataType::Complex(part) => part.complex_name(),
        }
    }

    /// Whether elements have a size of their own (`string`, `bytes`): such arrays are
    /// read and written element by element (`Array::read_vlen`), not as buffers of
    /// fixed-size elements.
    pub fn is_variable_length(&self) -> bool {
        matches!(self, DataType::String | DataType::Bytes)
    }

    /// The v3 `data_type` value: the name, or `{"name", "configuration"}` for the types
    /// that have one.
    pub fn to_json(&self) -> Value {
        let named = |configuration: Map<String, Value>| {
            let mut object = Map::new();
            object.insert("name".into(), Value::from(self.name()));
            object.insert("configuration".into(), Value::Object(configuration));
            Value::Object(object)
        };
        let length = |n: usize| {
            let mut configuration = Map::new();
            configuration.insert("length_bytes".into(), Value::from(n));
            configuration
        };
        match self {
            DataType::FixedLengthUtf32(n)
            | DataType::NullTerminatedBytes(n)
            | DataType::RawBytes(n) => named(length(*n)),
            DataType::DateTime64(unit) | DataType::TimeDelta64(unit) => {
                named(unit.to_configuration())
            }
            DataType::Struct(s) => named(s.to_v3_configuration()),
            _ => Value::from(self.name()),
        }
    }

    /// Size of one element in bytes (0 for the variable-length types).
    pub fn size(&self) -> usize {
        match self {
            DataType::String | DataType::Bytes => 0,
            DataType::Bool
            | DataType::Int8
            | DataType::UInt8
            | DataType::Float8(_)
            | DataType::SubByteInt(_)
            | DataType::SubByteFloat(_) => 1,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 | DataType::BFloat16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
            DataType::Int64
            | DataType::UInt64
            | DataType::Float64
            | DataType::Complex64
            | DataType::DateTime64(_)
            | DataType::TimeDelta64(_) => 8,
            DataType::Complex128 => 16,
            DataType::RawBits(bytes)
            | DataType::FixedLengthUtf32(bytes)
            | DataType::NullTerminatedBytes(bytes)
            | DataType::RawBytes(bytes) => *bytes,
            DataType::Struct(s) => s.size(),
            DataType::Complex(part) => 2 * part.size(),
        }
    }

    /// The size of the unit whose byte order the `bytes` codec swaps: the whole element
    /// for numbers, each component for complex numbers, each code unit (4) for UTF-32,
    /// nothing (1) for bytes and raw bits, and for a struct the largest unit of its fields
    /// (so greater than 1 exactly when the `bytes` codec needs an `endian`).
    pub fn endian_unit(&self) -> usize {
        match self {
            DataType::Complex64 => 4,
            DataType::Complex128 => 8,
            DataType::Complex(part) => part.size(),
            DataType::FixedLengthUtf32(_) => 4,
            DataType::RawBits(_)
            | DataType::NullTerminatedBytes(_)
            | DataType::RawBytes(_)
            | DataType::Float8(_)
            | DataType::String
            | DataType::Bytes => 1,
            DataType::Struct(s) => s.max_endian_unit(),
            other => other.size(),
        }
    }

    /// Convert whole elements in `data` between host byte order and `stored` order (the
    /// conversion is its own inverse). Each unit ([`DataType::endian_unit`]) is reversed
    /// when its stored order differs from the host's; struct fields swap field by field,
    /// each in its own stored order when the type carries one (Zarr v2 structured dtypes,
    /// where every field has its own), otherwise in `stored`.
    pub fn swap_stored(&self, data: &mut [u8], stored: ByteOrder) {
        match self {
            DataType::Struct(s) => s.swap_stored(data, stored),
            _ => {
                let unit = self.endian_unit();
                if unit > 1 && stored != ByteOrder::native() {
                    swap_units(data, unit);
                }
            }
        }
    }

    /// The width in bits of the codes of a type whose elements (or components) are bytes
    /// holding a code in their low bits: 2 for int2/uint2, 4 for int4/uint4/float4, 6 for
    /// float6, and their complex types' components. `None` for every other type.
    pub fn code_bits(&self) -> Option<u32> {
        match self {
            DataType::SubByteInt(t) => Some(t.bits()),
            DataType::SubByteFloat(t) => Some(t.bits()),
            DataType::Complex(ComplexPart::SubByte(t)) => Some(t.bits()),
            _ => None,
        }
    }

    /// Clear the bits above the code of every byte of `data` (whole elements) for the types
    /// of [`DataType::code_bits`]: the registry says the upper bits of a stored byte are
    /// ignored, and host buffers hold them zero. Nothing to do for other types.
    pub fn clear_upper_bits(&self, data: &mut [u8]) {
        if let Some(bits) = self.code_bits() {
            let mask = sub_byte::mask(bits);
            data.iter_mut().for_each(|b| *b &= mask);
        }
    }

    /// For the types of [`DataType::code_bits`], the first byte of `data` with a bit set
    /// above the code (its offset in `data`, and the byte); `None` when there is none or the
    /// type has no such rule. Host buffers must hold such bytes zero above the code, so a
    /// write with one is refused rather than truncated.
    pub fn first_byte_above_code(&self, data: &[u8]) -> Option<(usize, u8)> {
        let mask = !sub_byte::mask(self.code_bits()?);
        data.iter()
            .position(|b| b & mask != 0)
            .map(|i| (i, data[i]))
    }

    /// Whether elements of this type need [`DataType::swap_stored`] for `stored` order.
    pub fn needs_swap(&self, stored: ByteOrder) -> bool {
        match self {
            DataType::Struct(s) => s.needs_swap(stored),
            _ => self.endian_unit() > 1 && stored != ByteOrder::native(),
        }
    }

    /// Parse a fill value in any spelling the v3 specification, the registry and
    /// zarr-python allow for this type, returning the host-order bytes of one element.
    /// Base64 spellings of struct fill values hold the element in little-endian order.
    pub fn parse_fill_value(&self, value: &Value) -> Result<FillValue, MetadataError> {
        self.parse_fill_value_stored(value, ByteOrder::Little)
    }

    /// [`DataType::parse_fill_value`], where base64 spellings of struct values hold the
    /// element in `stored` order (zarr-python's legacy `structured` writes the bytes in the
    /// order of the `bytes` codec).
    pub fn parse_fill_value_stored(
        &self,
        value: &Value,
        stored: ByteOrder,
    ) -> Result<FillValue, MetadataError> {
        let bad = |why: &str| {
            MetadataError::Invalid(format!(
                "fill_value {value} is not valid for data type {}: {why}",
                self.name()
            ))
        };
        let int = |min: i128, max: i128| {
            int_in_range(value, min, max).ok_or_else(|| bad("expected an integer in range"))
        };
        let bytes = match self {
            DataType::Bool => match value {
                Value::Bool(b) => vec![*b as u8],
                _ => return Err(bad("expected true or false")),
            },
            DataType::Int8 => (int(i8::MIN.into(), i8::MAX.into())? as i8).to_ne_bytes().to_vec(),
            DataType::Int16 => (int(i16::MIN.into(), i16::MAX.into())? as i16)
                .to_ne_bytes()
                .to_vec(),
            DataType::Int32 => (int(i32::MIN.into(), i32::MAX.into())? as i32)
                .to_ne_bytes()
                .to_vec(),
            DataType::Int64 => (int(i64::MIN.into(), i64::MAX.into())? as i64)
                .to_ne_bytes()
                .to_vec(),
            DataType::UInt8 => (int(0, u8::MAX.into())? as u8).to_ne_bytes().to_vec(),
            DataType::UInt16 => (int(0, u16::MAX.into())? as u16).to_ne_bytes().to_vec(),
            DataType::UInt32 => (int(0, u32::MAX.into())? as u32).to_ne_bytes().to_vec(),
            DataType::UInt64 => (int(0, u64::MAX.into())? as u64).to_ne_bytes().to_vec(),
            DataType::Float16 => parse_float(value, FloatWidth::F16)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 4 hex digits"))?,
            DataType::Float32 => parse_float(value, FloatWidth::F32)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 8 hex digits"))?,
            DataType::Float64 => parse_float(value, FloatWidth::F64)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 16 hex digits"))?,
            DataType::BFloat16 => parse_float(value, FloatWidth::BF16)
                .ok_or_else(|| bad("expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" + 4 hex digits"))?,
            DataType::Float8(format) => vec![parse_float8(value, *format).ok_or_else(|| {
                bad("expected a number, \"NaN\", an infinity the format has, or \"0x\" + 2 hex digits")
            })?],
            DataType::SubByteInt(t) => {
                let (min, max) = t.range();
                let v = int_in_range(value, min.into(), max.into()).ok_or_else(|| {
                    bad(&format!("expected an integer from {min} to {max}"))
                })?;
                vec![t.from_i8(v as i8).expect("checked range")]
            }
            DataType::SubByteFloat(t) => vec![parse_sub_byte_float(value, *t).map_err(|why| bad(&why))?],
            DataType::Complex(part) => match value {
                Value::Array(parts) if parts.len() == 2 => {
                    let component = part.data_type();
                    let mut bytes = Vec::with_capacity(self.size());
                    for (which, v) in ["real", "imaginary"].iter().zip(parts) {
                        let one = component.parse_fill_value(v).map_err(|e| {
                            bad(&format!("invalid {which} part ({})", component_reason(&e)))
                        })?;
                        bytes.extend_from_slice(one.as_bytes());
                    }
                    bytes
                }
                _ => return Err(bad("expected [real, imaginary]")),
            },
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
                Value::Array(items) if items.len() == *size => byte_list(items)
                    .ok_or_else(|| bad("expected integers 0..255"))?,
                // tensorstore writes raw fill values as base64 text; accept it on read.
                Value::String(text) => match decode_base64(text) {
                    Some(bytes) if bytes.len() == *size => bytes,
                    _ => return Err(bad(&format!("expected {size} bytes in base64"))),
                },
                _ => return Err(bad(&format!("expected an array of {size} byte values"))),
            },
            DataType::NullTerminatedBytes(size) | DataType::RawBytes(size) => {
                let mut bytes = match value {
                    Value::String(text) => decode_base64(text)
                        .ok_or_else(|| bad("expected base64 text"))?,
                    Value::Array(items) => {
                        byte_list(items).ok_or_else(|| bad("expected integers 0..255"))?
                    }
                    // zarr-python 2 wrote 0 for "no fill value" of byte strings.
                    Value::Number(n) if n.as_u64() == Some(0) => Vec::new(),
                    _ => return Err(bad("expected base64 text")),
                };
                if bytes.len() > *size {
                    return Err(bad(&format!(
                        "{} bytes do not fit in {size}",
                        bytes.len()
                    )));
                }
                bytes.resize(*size, 0);
                bytes
            }
            DataType::FixedLengthUtf32(size) => {
                let text = match value {
                    Value::String(text) => text.as_str(),
                    // zarr-python 2 wrote 0 for "no fill value" of strings.
                    Value::Number(n) if n.as_u64() == Some(0) => "",
                    _ => return Err(bad("expected a string")),
                };
                encode_utf32(text, *size).ok_or_else(|| {
                    bad(&format!("more than {} code points", size / 4))
                })?
            }
            DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
                let v = match value {
                    Value::String(s) if s == "NaT" => i64::MIN,
                    _ => int_in_range(value, i64::MIN.into(), i64::MAX.into())
                        .ok_or_else(|| bad("expected an integer in the int64 range or \"NaT\""))?
                        as i64,
                };
                v.to_ne_bytes().to_vec()
            }
            DataType::Struct(s) => match value {
                Value::Object(fields) => s.parse_fill_value_fields(fields, &self.name())?,
                Value::String(text) => {
                    let mut bytes = decode_base64(text)
                        .filter(|b| b.len() == s.size())
                        .ok_or_else(|| bad(&format!("expected {} bytes in base64", s.size())))?;
                    self.swap_stored(&mut bytes, stored);
                    bytes
                }
                // zarr-python reads 0 as the all-zero record.
                Value::Number(n) if n.as_u64() == Some(0) => vec![0; s.size()],
                _ => return Err(bad("expected an object with one fill value per field")),
            },
            // The fill value of a variable-length type is one element's bytes. Zarr v2 `|O`
            // arrays of zarr-python 2 carry 0 (or null) for "no fill value": the empty one.
            DataType::String => match value {
                Value::String(text) => text.as_bytes().to_vec(),
                Value::Null => Vec::new(),
                Value::Number(n) if n.as_u64() == Some(0) => Vec::new(),
                _ => return Err(bad("expected a string")),
            },
            DataType::Bytes => match value {
                Value::String(text) => decode_base64(text).ok_or_else(|| bad("expected base64 text"))?,
                Value::Array(items) => {
                    byte_list(items).ok_or_else(|| bad("expected integers 0..255"))?
                }
                Value::Null => Vec::new(),
                Value::Number(n) if n.as_u64() == Some(0) => Vec::new(),
                _ => return Err(bad("expected base64 text")),
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
            DataType::BFloat16 => float_to_json(b, FloatWidth::BF16),
            DataType::Float8(format) => float8_to_json(b[0], *format),
            DataType::SubByteInt(t) => Value::from(t.to_i8(b[0])),
            // Every code is a finite number (no NaN, no infinity): from_f64 cannot fail.
            DataType::SubByteFloat(t) => {
                Number::from_f64(t.to_f64(b[0])).map_or(Value::Null, Value::Number)
            }
            DataType::Complex(part) => {
                let component = part.data_type();
                let n = part.size();
                Value::Array(vec![
                    component.fill_value_to_json(&FillValue(b[..n].to_vec())),
                    component.fill_value_to_json(&FillValue(b[n..2 * n].to_vec())),
                ])
            }
            DataType::Complex64 => Value::Array(vec![
                float_to_json(&b[..4], FloatWidth::F32),
                float_to_json(&b[4..8], FloatWidth::F32),
            ]),
            DataType::Complex128 => Value::Array(vec![
                float_to_json(&b[..8], FloatWidth::F64),
                float_to_json(&b[8..16], FloatWidth::F64),
            ]),
            DataType::RawBits(_) => Value::Array(b.iter().map(|x| Value::from(*x)).collect()),
            DataType::NullTerminatedBytes(_) | DataType::RawBytes(_) => {
                Value::from(encode_base64(b))
            }
            DataType::FixedLengthUtf32(_) => Value::from(decode_utf32(b)),
            DataType::String => Value::from(String::from_utf8_lossy(b).into_owned()),
            DataType::Bytes => Value::from(encode_base64(b)),
            // zarr-python writes NaT as its integer value; every reader takes integers.
            DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
                Value::from(i64::from_ne_bytes(b[..8].try_into().unwrap()))
            }
            DataType::Struct(s) => match s.form {
                // The legacy form is written as zarr-python 3.1 writes it: base64 of the
                // little-endian element.
                StructForm::Structured => {
                    let mut bytes = b.to_vec();
                    self.swap_stored(&mut bytes, ByteOrder::Little);
                    Value::from(encode_base64(&bytes))
                }
                _ => Value::Object(s.fill_value_fields_to_json(b)),
            },
        }
    }

    /// The default fill value (all zero bits: false, 0, +0.0, "", the 1970 epoch).
    pub fn zero_fill_value(&self) -> FillValue {
        FillValue(vec![0; self.size()])
    }
}

/// `r<bits>`: `Ok(Some)` for a valid raw type name, `Ok(None)` for a name that is not `r`
/// followed by digits, `Err` for an invalid bit count.
fn raw_bits(name: &str) -> Result<Option<DataType>, MetadataError> {
    let Some(bits) = name.strip_prefix('r') else {
        return Ok(None);
    };
    if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let count: usize = bits
        .parse()
        .ok()
        .filter(|b: &usize| *b > 0 && (*b).is_multiple_of(8) && !bits.starts_with('0'))
        .ok_or_else(|| {
            invalid(format!(
                "raw data type '{name}': the bit count must be a positive multiple of 8"
            ))
        })?;
    if count / 8 > MAX_ELEMENT_SIZE {
        return Err(invalid(format!("raw data type '{name}' is too large")));
    }
    Ok(Some(DataType::RawBits(count / 8)))
}

fn byte_list(items: &[Value]) -> Option<Vec<u8>> {
    items
        .iter()
        .map(|item| item.as_u64().filter(|b| *b <= 255).map(|b| b as u8))
        .collect()
}

/// Reverse the bytes of every `unit`-byte group in place.
pub fn swap_units(data: &mut [u8], unit: usize) {
    match unit {
        0 | 1 => {}
        2 => data.chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
        4 => data.chunks_exact_mut(4).for_each(|c| {
            let v = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]).swap_bytes();
            c.copy_from_slice(&v.to_ne_bytes());
        }),
        8 => data.chunks_exact_mut(8).for_each(|c| {
            let v = u64::from_ne_bytes(c.try_into().unwrap()).swap_bytes();
            c.copy_from_slice(&v.to_ne_bytes());
        }),
        _ => data.chunks_exact_mut(unit).for_each(|c| c.reverse()),
    }
}

/// `text` as UTF-32 code units in host order, zero-padded to `size` bytes; `None` when it
/// has more than `size / 4` code points.
pub fn encode_utf32(text: &str, size: usize) -> Option<Vec<u8>> {
    if text.chars().count() > size / 4 {
        return None;
    }
    let mut bytes = Vec::with_capacity(size);
    for c in text.chars() {
        bytes.extend_from_slice(&(c as u32).to_ne_bytes());
    }
    bytes.resize(size, 0);
    Some(bytes)
}

/// The text of host-order UTF-32 code units, without the trailing zero padding; a unit
/// that is not a Unicode scalar value becomes U+FFFD.
pub fn decode_utf32(bytes: &[u8]) -> String {
    let mut text: String = bytes
        .chunks_exact(4)
        .map(|u| {
            char::from_u32(u32::from_ne_bytes([u[0], u[1], u[2], u[3]]))
                .unwrap_or(char::REPLACEMENT_CHARACTER)
        })
        .collect();
    let trimmed = text.trim_end_matches('\0').len();
    text.truncate(trimmed);
    text
}

/// The order of the bytes of multi-byte units: the `bytes` codec's `"endian"`, a numpy
/// dtype's prefix (`<`, `>`). Where byte order does not apply (single-byte units: `b1`,
/// `i1`, `u1`, `V<n>`, `S<n>`, or a `bytes` codec without `"endian"`), an
/// `Option<ByteOrder>` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    Little,
    Big,
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
/// `u1 u2 u4 u8`, `f2 f4 f8`, `c8 c16`, `V<n>` (raw bytes, [`DataType::RawBits`]),
/// `S<n>` ([`DataType::NullTerminatedBytes`]), `U<n>` (n code points,
/// [`DataType::FixedLengthUtf32`]), `M8[<k><unit>]` and `m8[<k><unit>]` (datetime64 and
/// timedelta64; `M8` alone is the generic unit).
///
/// Returns the data type and the byte order its multi-byte units are stored in: native
/// order (`=`, `|` or no prefix) is resolved to the host's order, and types whose units are
/// single bytes always give no byte order (numpy itself normalises `<u1` to `|u1`).
/// Anything else (objects, structured types, a stray character) is `None`.
pub fn parse_numpy_dtype(s: &str) -> Option<(DataType, Option<ByteOrder>)> {
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
            if let Some(unit) = rest.strip_prefix("M8") {
                DataType::DateTime64(TimeUnit::from_numpy(unit)?)
            } else if let Some(unit) = rest.strip_prefix("m8") {
                DataType::TimeDelta64(TimeUnit::from_numpy(unit)?)
            } else {
                let kind = rest.chars().next()?;
                let n = &rest[kind.len_utf8()..];
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
                    return None;
                }
                let count: usize = n.parse().ok()?;
                match kind {
                    'V' if count <= MAX_ELEMENT_SIZE => DataType::RawBits(count),
                    'S' if count <= MAX_ELEMENT_SIZE => DataType::NullTerminatedBytes(count),
                    'U' if count <= MAX_ELEMENT_SIZE / 4 => DataType::FixedLengthUtf32(count * 4),
                    _ => return None,
                }
            }
        }
    };
    let order = (data_type.endian_unit() > 1).then(|| order.unwrap_or_else(ByteOrder::native));
    Some((data_type, order))
}

/// The numpy dtype string (`"<f8"`, `"|u1"`, `"|V3"`, `"<U4"`, `"<M8[10ms]"`) of a data
/// type stored in `order` (`|` for single-byte units, whatever `order` says), as numpy's
/// `dtype.str` spells it; the inverse of [`parse_numpy_dtype`]. `None` for types numpy
/// spells otherwise (structs are lists) or does not have (bfloat16, float8).
pub fn numpy_dtype_str(data_type: &DataType, order: Option<ByteOrder>) -> Option<String> {
    let prefix = match (data_type.endian_unit(), order) {
        (1, _) | (_, None) => '|',
        (_, Some(ByteOrder::Little)) => '<',
        (_, Some(ByteOrder::Big)) => '>',
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
        DataType::RawBits(n) | DataType::RawBytes(n) => format!("V{n}"),
        DataType::NullTerminatedBytes(n) => format!("S{n}"),
        DataType::FixedLengthUtf32(n) => format!("U{}", n / 4),
        DataType::DateTime64(unit) => format!("M8{}", unit.numpy_suffix()),
        DataType::TimeDelta64(unit) => format!("m8{}", unit.numpy_suffix()),
        DataType::String | DataType::Bytes => "O".into(),
        DataType::BFloat16
        | DataType::Float8(_)
        | DataType::Struct(_)
        | DataType::SubByteInt(_)
        | DataType::SubByteFloat(_)
        | DataType::Complex(_) => return None,
    };
    Some(format!("{prefix}{code}"))
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

const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Decode standard base64 (RFC 4648, `=` padding optional); `None` on any other character.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        BASE64_ALPHABET
            .iter()
            .position(|a| *a == c)
            .map(|p| p as u32)
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

/// Encode standard base64 with `=` padding (as Python's `base64.b64encode`).
pub fn encode_base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let mut bits = 0u32;
        for (i, b) in group.iter().enumerate() {
            bits |= (*b as u32) << (16 - 8 * i);
        }
        for i in 0..4 {
            if i <= group.len() {
                out.push(BASE64_ALPHABET[((bits >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FloatWidth {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatWidth {
    fn bytes(self) -> usize {
        match self {
            FloatWidth::F16 | FloatWidth::BF16 => 2,
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
            FloatWidth::BF16 => minifloat::bf16_from_f64(f).to_ne_bytes().to_vec(),
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
                FloatWidth::BF16 => 0x7fc0u16.to_ne_bytes().to_vec(),
                FloatWidth::F32 => 0x7fc0_0000u32.to_ne_bytes().to_vec(),
                FloatWidth::F64 => 0x7ff8_0000_0000_0000u64.to_ne_bytes().to_vec(),
            }),
            "Infinity" => Some(from_f64(f64::INFINITY)),
            "-Infinity" => Some(from_f64(f64::NEG_INFINITY)),
            hex if hex.starts_with("0x") || hex.starts_with("0X") => {
                let bits = parse_hex(&hex[2..], width.bytes())?;
                Some(match width {
                    FloatWidth::F16 | FloatWidth::BF16 => (bits as u16).to_ne_bytes().to_vec(),
                    FloatWidth::F32 => (bits as u32).to_ne_bytes().to_vec(),
                    FloatWidth::F64 => bits.to_ne_bytes().to_vec(),
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// Hex digits of a bit pattern of `bytes` bytes: full width is canonical; fewer digits
/// are accepted (tensorstore accepts them), more are not.
fn parse_hex(digits: &str, bytes: usize) -> Option<u64> {
    if digits.is_empty()
        || digits.len() > bytes * 2
        || !digits.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

fn parse_float8(value: &Value, format: Float8Format) -> Option<u8> {
    match value {
        Value::Number(n) => n.as_f64().map(|f| format.from_f64(f)),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(format.nan()),
            "Infinity" if format.has_infinity() => Some(format.from_f64(f64::INFINITY)),
            "-Infinity" if format.has_infinity() => Some(format.from_f64(f64::NEG_INFINITY)),
            hex if hex.starts_with("0x") || hex.starts_with("0X") => {
                parse_hex(&hex[2..], 1).map(|b| b as u8)
            }
            _ => None,
        },
        _ => None,
    }
}

/// A sub-byte float fill value: a number (rounded to the nearest code, ties to even,
/// saturating beyond the largest magnitude as ml_dtypes does) or `"0x"` and at most two hex
/// digits of a code that fits the width. The formats have neither NaN nor infinities, so
/// `"NaN"`, `"Infinity"` and `"-Infinity"` are refused (the registry says so) rather than
/// saturated.
fn parse_sub_byte_float(value: &Value, format: SubByteFloat) -> Result<u8, String> {
    let expected = || {
        format!(
            "expected a number or \"0x\" + hex digits of a code below 0x{:02x}",
            1u16 << format.bits()
        )
    };
    match value {
        Value::Number(n) => n
            .as_f64()
            .and_then(|f| format.from_f64(f))
            .ok_or_else(expected),
        Value::String(s) => match s.as_str() {
            "NaN" | "Infinity" | "-Infinity" | "+Infinity" => {
                Err(format!("{} has no NaN and no infinities", format.name()))
            }
            hex if hex.starts_with("0x") || hex.starts_with("0X") => parse_hex(&hex[2..], 1)
                .filter(|code| *code >> format.bits() == 0)
                .map(|code| code as u8)
                .ok_or_else(expected),
            _ => Err(expected()),
        },
        _ => Err(expected()),
    }
}

/// The cause of a component's fill-value error, without the component's own preamble
/// ("fill_value ... is not valid for data type ...: ") which would repeat the value.
fn component_reason(error: &MetadataError) -> String {
    let text = match error {
        MetadataError::Invalid(text) | MetadataError::Unsupported(text) => text.clone(),
        other => other.to_string(),
    };
    match text.split_once(": ") {
        Some((_, why)) => why.to_string(),
        None => text,
    }
}

fn float8_to_json(bits: u8, format: Float8Format) -> Value {
    let value = format.to_f64(bits);
    if value.is_nan() {
        if bits == format.nan() {
            Value::from("NaN")
        } else {
            Value::from(format!("0x{bits:02x}"))
        }
    } else if value == f64::INFINITY {
        Value::from("Infinity")
    } else if value == f64::NEG_INFINITY {
        Value::from("-Infinity")
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
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
        FloatWidth::BF16 => {
            let bits = u16::from_ne_bytes([bytes[0], bytes[1]]);
            (minifloat::bf16_to_f64(bits), bits as u64, 0x7fc0)
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
mod tests;
