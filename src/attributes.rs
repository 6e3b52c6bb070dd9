//! Typed access to a node's attributes (its JSON object), for callers that do not parse
//! JSON: a string, a number as `f64` or `i64`, a list of numbers, as netCDF's
//! `nc_get_att_*` / `nc_put_att_*` offer them.
//!
//! Conversions when reading:
//! - `f64` from any JSON number (an integer beyond 2^53 is rounded to the nearest `f64`),
//!   and from the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, which is how Zarr
//!   writes non-finite floats (and how bare `NaN` tokens of other writers are read).
//! - `i64` from a JSON integer in range, or from a number with no fractional part in range
//!   (`3.0` gives 3). A fractional number (`3.5`) or a non-number is a type mismatch; an
//!   integral number outside the `i64` range (`2^70`, `2^63`) is out of range.
//! - Lists: a JSON array whose every element converts as above; a single number is read
//!   as a list of one (netCDF attributes are always arrays).
//!
//! When writing, a non-finite `f64` becomes the string `"NaN"`, `"Infinity"` or
//! `"-Infinity"` (JSON has no such numbers).

use serde_json::{Map, Number, Value};
use thiserror::Error;

/// A failure to read an attribute as the type asked for.
#[derive(Debug, Error, PartialEq)]
pub enum AttributeError {
    /// There is no attribute with this key.
    #[error("no attribute '{0}'")]
    Missing(String),
    /// The attribute's value is of another JSON type (or a fractional number where an
    /// integer was asked for).
    #[error("attribute '{key}' is {found}, not {expected}")]
    TypeMismatch {
        key: String,
        expected: &'static str,
        found: String,
    },
    /// An integral number outside the range of the type asked for.
    #[error("attribute '{key}': {value} is outside the range of {expected}")]
    OutOfRange {
        key: String,
        expected: &'static str,
        value: String,
    },
}

/// A short description of a JSON value for messages ("a string", "the number 3.5").
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.len() <= 40 => format!("the string \"{s}\""),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn lookup<'a>(attributes: &'a Map<String, Value>, key: &str) -> Result<&'a Value, AttributeError> {
    attributes
        .get(key)
        .ok_or_else(|| AttributeError::Missing(key.to_string()))
}

fn mismatch(key: &str, expected: &'static str, value: &Value) -> AttributeError {
    AttributeError::TypeMismatch {
        key: key.to_string(),
        expected,
        found: describe(value),
    }
}

/// The string attribute `key`.
pub fn get_string(attributes: &Map<String, Value>, key: &str) -> Result<String, AttributeError> {
    match lookup(attributes, key)? {
        Value::String(s) => Ok(s.clone()),
        other => Err(mismatch(key, "a string", other)),
    }
}

/// One value as `f64` (see the module comment); `what` names it in messages.
fn value_f64(value: &Value, what: &str) -> Result<f64, AttributeError> {
    match value {
        Value::Number(n) => Ok(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) if s == "NaN" => Ok(f64::NAN),
        Value::String(s) if s == "Infinity" => Ok(f64::INFINITY),
        Value::String(s) if s == "-Infinity" => Ok(f64::NEG_INFINITY),
        other => Err(mismatch(what, "a number", other)),
    }
}

/// One value as `i64` (see the module comment); `what` names it in messages.
fn value_i64(value: &Value, what: &str) -> Result<i64, AttributeError> {
    let Value::Number(n) = value else {
        return Err(mismatch(what, "an integer", value));
    };
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    let out_of_range = || AttributeError::OutOfRange {
        key: what.to_string(),
        expected: "a 64-bit signed integer",
        value: n.to_string(),
    };
    if n.is_u64() {
        return Err(out_of_range());
    }
    let x = n.as_f64().unwrap_or(f64::NAN);
    if !x.is_finite() || x.fract() != 0.0 {
        return Err(mismatch(what, "an integer", value));
    }
    // -2^63 is exactly representable and in range; 2^63 is the first value above it.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if (-LIMIT..LIMIT).contains(&x) {
        Ok(x as i64)
    } else {
        Err(out_of_range())
    }
}

/// The number attribute `key` as `f64`.
pub fn get_f64(attributes: &Map<String, Value>, key: &str) -> Result<f64, AttributeError> {
    value_f64(lookup(attributes, key)?, key)
}

/// The number attribute `key` as `i64`.
pub fn get_i64(attributes: &Map<String, Value>, key: &str) -> Result<i64, AttributeError> {
    value_i64(lookup(attributes, key)?, key)
}

/// Every element of the list attribute `key` converted by `convert` (a single number is a
/// list of one).
fn get_list<T>(
    attributes: &Map<String, Value>,
    key: &str,
    convert: fn(&Value, &str) -> Result<T, AttributeError>,
) -> Result<Vec<T>, AttributeError> {
    match lookup(attributes, key)? {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| convert(item, &format!("{key}[{i}]")))
            .collect(),
        Value::Number(_) | Value::String(_) => {
            let value = lookup(attributes, key)?;
            Ok(vec![convert(value, key)?])
        }
        other => Err(mismatch(key, "an array of numbers", other)),
    }
}

/// The list attribute `key` as `f64` values.
pub fn get_f64_list(
    attributes: &Map<String, Value>,
    key: &str,
) -> Result<Vec<f64>, AttributeError> {
    get_list(attributes, key, value_f64)
}

/// The list attribute `key` as `i64` values.
pub fn get_i64_list(
    attributes: &Map<String, Value>,
    key: &str,
) -> Result<Vec<i64>, AttributeError> {
    get_list(attributes, key, value_i64)
}

/// The JSON value of an `f64` (non-finite values as Zarr's strings).
pub fn f64_value(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => Value::from("NaN"),
        None if x > 0.0 => Value::from("Infinity"),
        None => Value::from("-Infinity"),
    }
}

/// The JSON array of `f64` values.
pub fn f64_list_value(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&x| f64_value(x)).collect())
}

/// The JSON array of `i64` values.
pub fn i64_list_value(values: &[i64]) -> Value {
    Value::Array(values.iter().map(|&x| Value::from(x)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn attrs() -> Map<String, Value> {
        json!({
            "units": "K", "three": 3, "three_f": 3.0, "half": 3.5, "big": 1.0e21,
            "u": 18446744073709551615u64, "neg": -9223372036854775808i64,
            "nan": "NaN", "inf": "-Infinity", "flag": true, "list": [1, 2.5, "NaN"],
            "ints": [1, -2, 3.0], "bad_ints": [1, 2.5], "empty": [], "nested": {"a": 1},
            "two63": 9223372036854775808.0
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn strings() {
        let a = attrs();
        assert_eq!(get_string(&a, "units").unwrap(), "K");
        assert_eq!(
            get_string(&a, "zz"),
            Err(AttributeError::Missing("zz".into()))
        );
        assert!(matches!(
            get_string(&a, "three"),
            Err(AttributeError::TypeMismatch { .. })
        ));
    }

    #[test]
    fn doubles() {
        let a = attrs();
        assert_eq!(get_f64(&a, "three").unwrap(), 3.0);
        assert_eq!(get_f64(&a, "half").unwrap(), 3.5);
        assert_eq!(get_f64(&a, "u").unwrap(), 18446744073709551615.0);
        assert!(get_f64(&a, "nan").unwrap().is_nan());
        assert_eq!(get_f64(&a, "inf").unwrap(), f64::NEG_INFINITY);
        assert!(matches!(
            get_f64(&a, "units"),
            Err(AttributeError::TypeMismatch { .. })
        ));
        assert!(matches!(
            get_f64(&a, "flag"),
            Err(AttributeError::TypeMismatch { .. })
        ));
        let list = get_f64_list(&a, "list").unwrap();
        assert_eq!(&list[..2], &[1.0, 2.5]);
        assert!(list[2].is_nan());
        assert_eq!(get_f64_list(&a, "three").unwrap(), vec![3.0]);
        assert_eq!(get_f64_list(&a, "empty").unwrap(), Vec::<f64>::new());
        assert!(matches!(
            get_f64_list(&a, "nested"),
            Err(AttributeError::TypeMismatch { .. })
        ));
    }

    #[test]
    fn integers() {
        let a = attrs();
        assert_eq!(get_i64(&a, "three").unwrap(), 3);
        assert_eq!(get_i64(&a, "three_f").unwrap(), 3);
        assert_eq!(get_i64(&a, "neg").unwrap(), i64::MIN);
        assert!(matches!(
            get_i64(&a, "half"),
            Err(AttributeError::TypeMismatch { .. })
        ));
        assert!(matches!(
            get_i64(&a, "big"),
            Err(AttributeError::OutOfRange { .. })
        ));
        assert!(matches!(
            get_i64(&a, "two63"),
            Err(AttributeError::OutOfRange { .. })
        ));
        assert!(matches!(
            get_i64(&a, "u"),
            Err(AttributeError::OutOfRange { .. })
        ));
        assert!(matches!(
            get_i64(&a, "nan"),
            Err(AttributeError::TypeMismatch { .. })
        ));
        assert_eq!(get_i64_list(&a, "ints").unwrap(), vec![1, -2, 3]);
        let e = get_i64_list(&a, "bad_ints").unwrap_err();
        assert!(e.to_string().contains("bad_ints[1]"), "{e}");
    }

    #[test]
    fn writing_non_finite() {
        assert_eq!(f64_value(1.5), json!(1.5));
        assert_eq!(f64_value(f64::NAN), json!("NaN"));
        assert_eq!(f64_value(f64::INFINITY), json!("Infinity"));
        assert_eq!(f64_list_value(&[f64::NEG_INFINITY]), json!(["-Infinity"]));
        assert_eq!(i64_list_value(&[i64::MIN]), json!([i64::MIN]));
    }
}
