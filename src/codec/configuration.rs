//! Reading codec configurations the way numcodecs does: unknown keys are errors, integers
//! are checked, out-of-range values are named. Shared by every codec that takes a
//! numcodecs-style configuration (the compressors in `bytes_to_bytes` and the filters in
//! `array_to_array`), so that none of them imports another codec's module for it.

use super::CodecError;
use serde_json::{Map, Value};

/// Reject keys other than `allowed` (numcodecs itself fails on unexpected arguments).
pub(crate) fn check_keys(
    config: &Map<String, Value>,
    allowed: &[&str],
    codec: &str,
) -> Result<(), CodecError> {
    match config.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(CodecError::config(
            codec,
            format!("unknown configuration key '{key}'"),
        )),
        None => Ok(()),
    }
}

/// An integer key: `None` when absent or null, an error when not an integer.
pub(crate) fn get_int(
    config: &Map<String, Value>,
    key: &str,
    codec: &str,
) -> Result<Option<i64>, CodecError> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| {
            CodecError::config(codec, format!("'{key}' must be an integer, got {v}"))
        }),
    }
}

/// The error for an integer `got` outside `range`.
pub(crate) fn range_error(codec: &str, key: &str, range: &str, got: i64) -> CodecError {
    CodecError::config(codec, format!("'{key}' must be {range}, got {got}"))
}
