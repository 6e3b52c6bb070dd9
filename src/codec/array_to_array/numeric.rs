//! Element arithmetic shared by the numcodecs filters: reading host-order elements as
//! numbers, numpy's casts between numeric types, and numpy dtype strings in configurations.

use crate::codec::{try_vec_with_capacity, ChunkRepresentation, CodecError};
use crate::data_type::{numpy_dtype_str, parse_numpy_dtype, ByteOrder, DataType, FillValue};
use half::f16;
use serde_json::{Map, Value};

/// One element's value: integers (and booleans, as 0/1) exactly, floats as f64 (which holds
/// every float16, float32 and float64 exactly).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    Int(i128),
    Float(f64),
}

impl Scalar {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Scalar::Int(v) => v as f64,
            Scalar::Float(f) => f,
        }
    }
}

/// Whether numcodecs' filters can take this data type (booleans, integers, floats).
pub(crate) fn is_numeric(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Bool
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Float16
            | DataType::Float32
            | DataType::Float64
    )
}

pub(crate) fn is_float(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    )
}

/// Read one host-order element of a numeric type (`b.len() == dt.size()`).
pub(crate) fn read(dt: &DataType, b: &[u8]) -> Scalar {
    match dt {
        DataType::Bool => Scalar::Int(i128::from(b[0] != 0)),
        DataType::Int8 => Scalar::Int(i128::from(b[0] as i8)),
        DataType::UInt8 => Scalar::Int(i128::from(b[0])),
        DataType::Int16 => Scalar::Int(i128::from(i16::from_ne_bytes([b[0], b[1]]))),
        DataType::UInt16 => Scalar::Int(i128::from(u16::from_ne_bytes([b[0], b[1]]))),
        DataType::Int32 => Scalar::Int(i128::from(i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))),
        DataType::UInt32 => Scalar::Int(i128::from(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))),
        DataType::Int64 => Scalar::Int(i128::from(i64::from_ne_bytes(arr8(b)))),
        DataType::UInt64 => Scalar::Int(i128::from(u64::from_ne_bytes(arr8(b)))),
        DataType::Float16 => {
            Scalar::Float(f16::from_bits(u16::from_ne_bytes([b[0], b[1]])).to_f64())
        }
        DataType::Float32 => Scalar::Float(f64::from(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))),
        DataType::Float64 => Scalar::Float(f64::from_ne_bytes(arr8(b))),
        // Never called for the others (callers check `is_numeric`).
        _ => Scalar::Int(0),
    }
}

fn arr8(b: &[u8]) -> [u8; 8] {
    [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// numpy's float -> integer cast: truncation toward zero, then two's-complement wrapping to
/// the target width. numpy leaves values out of range undefined; this is what it does on
/// x86-64 for values within ±2^63, and NaN, infinities and larger values give the x86
/// "integer indefinite" 0x8000_0000_0000_0000 (so 0 in types narrower than 64 bits).
fn float_to_int(f: f64) -> i128 {
    if f.is_finite() && f.abs() < 2f64.powi(63) {
        f.trunc() as i128
    } else {
        i128::from(i64::MIN)
    }
}

/// Round a float to the precision of float type `dt` (as storing it in `dt` would).
pub(crate) fn round_to(dt: &DataType, f: f64) -> f64 {
    match dt {
        DataType::Float16 => f16::from_f64(f).to_f64(),
        DataType::Float32 => f64::from(f as f32),
        _ => f,
    }
}

/// Write `value` cast to `dt` as numpy's `astype` would (integers wrap, floats round to
/// nearest, floats to integers truncate toward zero then wrap, anything to bool is `!= 0`).
pub(crate) fn write(dt: &DataType, value: Scalar, out: &mut Vec<u8>) {
    let int = |v: Scalar| match v {
        Scalar::Int(i) => i,
        Scalar::Float(f) => float_to_int(f),
    };
    match dt {
        DataType::Bool => out.push(u8::from(match value {
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        })),
        DataType::Int8 => out.push(int(value) as i8 as u8),
        DataType::UInt8 => out.push(int(value) as u8),
        DataType::Int16 => out.extend_from_slice(&(int(value) as i16).to_ne_bytes()),
        DataType::UInt16 => out.extend_from_slice(&(int(value) as u16).to_ne_bytes()),
        DataType::Int32 => out.extend_from_slice(&(int(value) as i32).to_ne_bytes()),
        DataType::UInt32 => out.extend_from_slice(&(int(value) as u32).to_ne_bytes()),
        DataType::Int64 => out.extend_from_slice(&(int(value) as i64).to_ne_bytes()),
        DataType::UInt64 => out.extend_from_slice(&(int(value) as u64).to_ne_bytes()),
        DataType::Float16 => {
            let h = match value {
                Scalar::Int(i) => f16::from_f64(i as f64),
                Scalar::Float(f) => f16::from_f64(f),
            };
            out.extend_from_slice(&h.to_bits().to_ne_bytes())
        }
        DataType::Float32 => {
            let v = match value {
                Scalar::Int(i) => i as f32,
                Scalar::Float(f) => f as f32,
            };
            out.extend_from_slice(&v.to_ne_bytes())
        }
        DataType::Float64 => out.extend_from_slice(&value.as_f64().to_ne_bytes()),
        _ => out.extend(std::iter::repeat_n(0, dt.size())),
    }
}

/// Wrap an integer to the range of integer type `dt` (two's complement).
pub(crate) fn wrap(dt: &DataType, v: i128) -> i128 {
    let mut b = Vec::with_capacity(8);
    write(dt, Scalar::Int(v), &mut b);
    match read(dt, &b) {
        Scalar::Int(i) => i,
        Scalar::Float(_) => v,
    }
}

/// Map each element of `input` (elements of `from`) through `f` into elements of `to`.
/// `input` must be a whole number of elements (else `Corrupt` naming `codec`).
pub(crate) fn map_elements(
    codec: &str,
    input: &[u8],
    from: &DataType,
    to: &DataType,
    mut f: impl FnMut(Scalar) -> Scalar,
) -> Result<Vec<u8>, CodecError> {
    let (m, n) = (from.size(), to.size());
    if !input.len().is_multiple_of(m) {
        return Err(CodecError::corrupt(
            codec,
            format!(
                "{} bytes is not a whole number of {m}-byte elements",
                input.len()
            ),
        ));
    }
    let count = input.len() / m;
    let mut out = try_vec_with_capacity(
        count
            .checked_mul(n)
            .ok_or(CodecError::OutOfMemory(usize::MAX))?,
    )?;
    for element in input.chunks_exact(m) {
        write(to, f(read(from, element)), &mut out);
    }
    Ok(out)
}

/// Check that `input` holds exactly the elements of `repr` with elements of `dt`.
pub(crate) fn check_len(
    codec: &str,
    input: &[u8],
    repr: &ChunkRepresentation,
    dt: &DataType,
) -> Result<(), CodecError> {
    let expected = repr
        .num_elements()
        .and_then(|n| usize::try_from(n).ok())
        .and_then(|n| n.checked_mul(dt.size()));
    if expected != Some(input.len()) {
        return Err(CodecError::corrupt(
            codec,
            format!(
                "{} bytes is not a chunk of shape {:?} of {}",
                input.len(),
                repr.shape,
                dt.name()
            ),
        ));
    }
    Ok(())
}

/// Encode a fill value with an element-wise function.
pub(crate) fn map_fill(
    codec: &str,
    fill: &FillValue,
    from: &DataType,
    to: &DataType,
    f: impl FnMut(Scalar) -> Scalar,
) -> Result<FillValue, CodecError> {
    Ok(FillValue::new(map_elements(
        codec,
        fill.as_bytes(),
        from,
        to,
        f,
    )?))
}

/// A numpy dtype string from a configuration, as (data type, byte order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NumpyDtype {
    pub data_type: DataType,
    /// `None` for single-byte units.
    pub order: Option<ByteOrder>,
}

impl NumpyDtype {
    /// `dt` in host byte order: the default when a configuration leaves its dtype out.
    pub(crate) fn native(dt: &DataType) -> NumpyDtype {
        NumpyDtype {
            data_type: dt.clone(),
            order: (dt.endian_unit() > 1).then(ByteOrder::native),
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        Value::from(numpy_dtype_str(&self.data_type, self.order).unwrap_or_default())
    }
}

/// Read dtype key `key` (`None` when absent or null), which must be a numeric numpy dtype.
pub(crate) fn get_dtype(
    config: &Map<String, Value>,
    key: &str,
    codec: &str,
) -> Result<Option<NumpyDtype>, CodecError> {
    let value = match config.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    // zarr-python 3 writes v3 data type names (`"int32"`) into the configurations of
    // `numcodecs.*` codecs of v3 arrays; those mean little-endian.
    let v3_name = |s: &str| {
        DataType::from_name(s).ok().map(|t| {
            let order = (t.endian_unit() > 1).then_some(ByteOrder::Little);
            (t, order)
        })
    };
    let parsed = value
        .as_str()
        .and_then(|s| parse_numpy_dtype(s).or_else(|| v3_name(s)))
        .filter(|(dt, _)| is_numeric(dt))
        .ok_or_else(|| {
            CodecError::config(
                codec,
                format!(
                    "'{key}' must be a numeric numpy dtype string (or v3 data type name), got {value}"
                ),
            )
        })?;
    Ok(Some(NumpyDtype {
        data_type: parsed.0,
        order: parsed.1,
    }))
}

/// Check that a configured decoded dtype is the chain's data type (byte order aside).
pub(crate) fn check_matches(
    codec: &str,
    key: &str,
    dtype: &NumpyDtype,
    actual: &DataType,
) -> Result<(), CodecError> {
    if dtype.data_type != *actual {
        return Err(CodecError::config(
            codec,
            format!(
                "'{key}' is {} but the data entering the codec is {}",
                numpy_dtype_str(&dtype.data_type, dtype.order).unwrap_or_default(),
                actual.name()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A 1-d representation.
    pub fn repr(n: u64, data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: vec![n],
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    /// Host-order bytes of values (given as f64/i128 scalars) of `dt`.
    pub fn elements(dt: DataType, values: &[Scalar]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            write(&dt, *v, &mut out);
        }
        out
    }

    /// Convert little-endian bytes (as numpy printed them) of `dt` to host order.
    pub fn from_le(dt: DataType, le: &[u8]) -> Vec<u8> {
        let mut b = le.to_vec();
        if cfg!(target_endian = "big") {
            b.chunks_exact_mut(dt.size()).for_each(|c| c.reverse());
        }
        b
    }
}
