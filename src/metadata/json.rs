//! JSON parsing shared by every metadata reader.

use super::MetadataError;
use serde_json::Value;

/// Parse JSON, tolerating the bare `NaN`, `Infinity` and `-Infinity` tokens that Python's
/// `json` module writes (zarr-python emits them inside attributes). Such tokens are read as
/// the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, the spellings Zarr uses for those
/// values in fill values. Strict JSON is parsed as is.
pub fn parse_lenient(text: &[u8]) -> Result<Value, MetadataError> {
    match serde_json::from_slice(text) {
        Ok(value) => Ok(value),
        Err(strict_error) => {
            let Some(rewritten) = quote_non_finite_tokens(text) else {
                return Err(MetadataError::Json(strict_error.to_string()));
            };
            serde_json::from_slice(&rewritten)
                .map_err(|_| MetadataError::Json(strict_error.to_string()))
        }
    }
}

/// Rewrite bare `NaN` / `Infinity` / `-Infinity` tokens (outside strings) as JSON strings.
/// Returns None when there is nothing to rewrite.
fn quote_non_finite_tokens(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    let mut changed = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_string = true;
            out.push(c);
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let token: Option<&[u8]> = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        match token {
            Some(t) => {
                out.push(b'"');
                out.extend_from_slice(t);
                out.push(b'"');
                i += t.len();
                changed = true;
            }
            None => {
                out.push(c);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// Parse a caller-supplied JSON object (attributes); anything but an object is refused.
pub fn parse_object(
    text: &[u8],
    what: &str,
) -> Result<serde_json::Map<String, Value>, MetadataError> {
    match parse_lenient(text)? {
        Value::Object(map) => Ok(map),
        other => Err(MetadataError::Invalid(format!(
            "{what} must be a JSON object, not {}",
            kind_of(&other)
        ))),
    }
}

pub use crate::metadata_error::kind_of;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_json_unchanged() {
        assert_eq!(
            parse_lenient(br#"{"a": "NaN"}"#).unwrap(),
            json!({"a": "NaN"})
        );
    }

    #[test]
    fn bare_non_finite_tokens_become_strings() {
        let v = parse_lenient(br#"{"a": NaN, "b": [Infinity, -Infinity], "c": "x NaN \" NaN"}"#)
            .unwrap();
        assert_eq!(
            v,
            json!({"a": "NaN", "b": ["Infinity", "-Infinity"], "c": "x NaN \" NaN"})
        );
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_lenient(b"{\"a\": ").is_err());
        assert!(parse_lenient(b"{'a': 1}").is_err());
        assert!(parse_lenient(b"NaNa").is_err());
        assert!(parse_object(b"[1]", "attributes").is_err());
    }
}
