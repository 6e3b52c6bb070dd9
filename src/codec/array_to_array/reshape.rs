//! `reshape` (zarr-extensions `codecs/reshape`): give a chunk another shape with the same
//! elements in the same C order, so the bytes do not move; only the shape the next codec
//! sees changes.
//!
//! `shape` lists the encoded dimensions, each a positive size, a list of decoded
//! dimensions whose sizes multiply into it (strictly increasing over the whole list, and
//! lined up so that the merged dimensions really are the raveled index), or `-1` (at most
//! once: whatever makes the element counts equal). The spec writes the alignment rule as
//! `prod(B_shape[:i]) == prod(A_shape[input_dims[0]])`; it can only mean the dimensions
//! *before* `input_dims[0]`, `prod(A_shape[:input_dims[0]])`, which is what is checked.

use super::ArrayToArrayCodec;
use crate::codec::{ChunkRepresentation, CodecError};
use serde_json::{Map, Value};

const NAME: &str = "reshape";

/// One encoded dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Dim {
    Size(u64),
    Merge(Vec<usize>),
    Auto,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReshapeCodec {
    shape: Vec<Dim>,
}

fn product(sizes: &[u64]) -> Option<u64> {
    sizes.iter().try_fold(1u64, |acc, &n| acc.checked_mul(n))
}

impl ReshapeCodec {
    /// `{"shape": [...]}`: the rules that do not depend on the chunk's shape are checked
    /// here (the others by [`ArrayToArrayCodec::encoded_representation`]).
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
    ) -> Result<ReshapeCodec, CodecError> {
        let configuration =
            configuration.ok_or_else(|| CodecError::config(NAME, "missing configuration"))?;
        if let Some(key) = configuration.keys().find(|k| k.as_str() != "shape") {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key \"{key}\""),
            ));
        }
        let items = match configuration.get("shape") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(CodecError::config(
                    NAME,
                    format!("\"shape\" must be a list, got {other}"),
                ))
            }
            None => return Err(CodecError::config(NAME, "missing \"shape\"")),
        };
        let mut shape = Vec::with_capacity(items.len());
        let mut last_input: Option<usize> = None;
        for (i, item) in items.iter().enumerate() {
            let dim = match item {
                Value::Number(_) => match item.as_i64() {
                    Some(-1) => {
                        if shape.contains(&Dim::Auto) {
                            return Err(CodecError::config(
                                NAME,
                                "\"shape\" has -1 more than once",
                            ));
                        }
                        Dim::Auto
                    }
                    Some(n) if n > 0 => Dim::Size(n as u64),
                    _ => {
                        return Err(CodecError::config(
                            NAME,
                            format!(
                                "\"shape\"[{i}] is {item}: a size must be a positive integer or -1"
                            ),
                        ))
                    }
                },
                Value::Array(dims) => {
                    let mut merged = Vec::with_capacity(dims.len());
                    for d in dims {
                        let Some(d) = d.as_u64().and_then(|d| usize::try_from(d).ok()) else {
                            return Err(CodecError::config(
                                NAME,
                                format!(
                                    "\"shape\"[{i}] lists {d}: input dimensions are integers >= 0"
                                ),
                            ));
                        };
                        if last_input.is_some_and(|last| d <= last) {
                            return Err(CodecError::config(
                                NAME,
                                format!(
                                    "\"shape\"[{i}] lists input dimension {d} after {}: input \
                                     dimensions must be strictly increasing over the whole \
                                     shape (reshape never transposes)",
                                    last_input.unwrap_or_default()
                                ),
                            ));
                        }
                        last_input = Some(d);
                        merged.push(d);
                    }
                    Dim::Merge(merged)
                }
                other => {
                    return Err(CodecError::config(
                        NAME,
                        format!("\"shape\"[{i}] is {other}: expected an integer or a list of input dimensions"),
                    ))
                }
            };
            shape.push(dim);
        }
        if shape.is_empty() {
            return Err(CodecError::config(NAME, "\"shape\" is empty"));
        }
        Ok(ReshapeCodec { shape })
    }

    /// The encoded shape for a decoded chunk of `input`, or the rule it breaks.
    pub fn encoded_shape(&self, input: &[u64]) -> Result<Vec<u64>, CodecError> {
        let total = product(input)
            .ok_or_else(|| CodecError::config(NAME, "the chunk's element count overflows"))?;
        let mut out = Vec::with_capacity(self.shape.len());
        let mut auto = None;
        for (i, dim) in self.shape.iter().enumerate() {
            out.push(match dim {
                Dim::Size(n) => *n,
                Dim::Auto => {
                    auto = Some(i);
                    1
                }
                Dim::Merge(dims) => {
                    if let Some(&bad) = dims.iter().find(|&&d| d >= input.len()) {
                        return Err(CodecError::config(
                            NAME,
                            format!(
                                "\"shape\"[{i}] names input dimension {bad} of a {}-dimensional chunk",
                                input.len()
                            ),
                        ));
                    }
                    let sizes: Vec<u64> = dims.iter().map(|&d| input[d]).collect();
                    product(&sizes).ok_or_else(|| {
                        CodecError::config(NAME, format!("\"shape\"[{i}] overflows"))
                    })?
                }
            });
        }
        let known = product(&out)
            .ok_or_else(|| CodecError::config(NAME, "the encoded element count overflows"))?;
        if let Some(i) = auto {
            if known == 0 || total % known != 0 {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "no size for the -1 at \"shape\"[{i}] makes {known} * n equal the chunk's \
                         {total} elements (chunk shape {input:?})"
                    ),
                ));
            }
            out[i] = total / known;
        } else if known != total {
            return Err(CodecError::config(
                NAME,
                format!("shape {out:?} has {known} elements but the chunk {input:?} has {total}"),
            ));
        }
        // Merged dimensions must be the raveled index: everything before them in the output
        // spans what comes before them in the input, and likewise after.
        for (i, dim) in self.shape.iter().enumerate() {
            let Dim::Merge(dims) = dim else { continue };
            let (Some(&first), Some(&last)) = (dims.first(), dims.last()) else {
                continue;
            };
            let before_out = product(&out[..i]);
            let before_in = product(&input[..first]);
            let after_out = product(&out[i + 1..]);
            let after_in = product(&input[last + 1..]);
            if before_out != before_in || after_out != after_in {
                return Err(CodecError::config(
                    NAME,
                    format!(
                        "\"shape\"[{i}] merges input dimensions {dims:?}, but the encoded \
                         dimensions before it hold {} elements where the input dimensions before \
                         {first} hold {}, and those after it {} where the input dimensions after \
                         {last} hold {} (encoded shape {out:?}, chunk shape {input:?})",
                        before_out.unwrap_or(u64::MAX),
                        before_in.unwrap_or(u64::MAX),
                        after_out.unwrap_or(u64::MAX),
                        after_in.unwrap_or(u64::MAX)
                    ),
                ));
            }
        }
        Ok(out)
    }
}

/// The bytes pass through unchanged; check that they are a whole chunk.
fn check_len(input: &[u8], decoded: &ChunkRepresentation) -> Result<(), CodecError> {
    if decoded.size_bytes() != Some(input.len()) {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "{} bytes is not a chunk of shape {:?} with {}-byte elements",
                input.len(),
                decoded.shape,
                decoded.data_type.size()
            ),
        ));
    }
    Ok(())
}

impl ArrayToArrayCodec for ReshapeCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let shape: Vec<Value> = self
            .shape
            .iter()
            .map(|d| match d {
                Dim::Size(n) => Value::from(*n),
                Dim::Auto => Value::from(-1),
                Dim::Merge(dims) => Value::from(dims.clone()),
            })
            .collect();
        let mut map = Map::new();
        map.insert("shape".into(), Value::Array(shape));
        Some(map)
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        Ok(ChunkRepresentation {
            shape: self.encoded_shape(&decoded.shape)?,
            ..decoded.clone()
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        check_len(&input, decoded)?;
        Ok(input)
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        check_len(&input, decoded)?;
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::chain::CodecChain;
    use crate::data_type::DataType;
    use crate::extension::NamedConfig;
    use serde_json::json;

    fn codec(shape: Value) -> Result<ReshapeCodec, CodecError> {
        ReshapeCodec::from_configuration(Some(json!({ "shape": shape }).as_object().unwrap()))
    }

    fn shape_of(shape: Value, input: &[u64]) -> Result<Vec<u64>, CodecError> {
        codec(shape)?.encoded_shape(input)
    }

    fn is_config(r: Result<Vec<u64>, CodecError>, needle: &str) -> bool {
        match r {
            Err(CodecError::InvalidConfiguration { message, .. }) => message.contains(needle),
            _ => false,
        }
    }

    #[test]
    fn registry_example_and_spellings() {
        // The README's example: chunk [100, 50, 64, 3] -> [5000, 64, 3].
        assert_eq!(
            shape_of(json!([[0, 1], [2], 3]), &[100, 50, 64, 3]).unwrap(),
            vec![5000, 64, 3]
        );
        assert_eq!(shape_of(json!([-1]), &[4, 5, 6]).unwrap(), vec![120]);
        assert_eq!(shape_of(json!([2, -1, 3]), &[4, 6]).unwrap(), vec![2, 4, 3]);
        assert_eq!(
            shape_of(json!([[0, 1], 10, [3, 4]]), &[2, 3, 10, 4, 5]).unwrap(),
            vec![6, 10, 20]
        );
        // An empty list is a dimension of size 1.
        assert_eq!(shape_of(json!([[], [0]]), &[7]).unwrap(), vec![1, 7]);
        // Splitting one dimension into several.
        assert_eq!(
            shape_of(json!([2, 3, [1]]), &[6, 4]).unwrap(),
            vec![2, 3, 4]
        );
        let c = codec(json!([[0, 1], -1, 3])).unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"shape": [[0, 1], -1, 3]})
        );
    }

    #[test]
    fn malformed_configurations() {
        let bad = |v: Value, needle: &str| {
            let cfg = v.as_object().unwrap().clone();
            match ReshapeCodec::from_configuration(Some(&cfg)) {
                Err(CodecError::InvalidConfiguration { message, .. }) => {
                    assert!(message.contains(needle), "{v}: {message}")
                }
                other => panic!("{v}: {other:?}"),
            }
        };
        bad(json!({}), "missing \"shape\"");
        bad(json!({"shape": 3}), "must be a list");
        bad(json!({"shape": []}), "empty");
        bad(json!({"shape": [0]}), "positive integer or -1");
        bad(json!({"shape": [-2]}), "positive integer or -1");
        bad(json!({"shape": [1.5]}), "positive integer or -1");
        bad(json!({"shape": ["4"]}), "expected an integer or a list");
        bad(json!({"shape": [-1, -1]}), "more than once");
        bad(json!({"shape": [[1], [0]]}), "strictly increasing");
        bad(
            json!({"shape": [[1, 0], 10, [3, 4]]}),
            "strictly increasing",
        );
        bad(
            json!({"shape": [[3, 4], 10, [0, 1]]}),
            "strictly increasing",
        );
        bad(json!({"shape": [[0, 0]]}), "strictly increasing");
        bad(json!({"shape": [[-1]]}), "integers >= 0");
        bad(
            json!({"shape": [4], "order": 1}),
            "unknown configuration key",
        );
        assert!(ReshapeCodec::from_configuration(None).is_err());
    }

    #[test]
    fn shape_rules_against_the_chunk() {
        assert!(is_config(shape_of(json!([5]), &[2, 3]), "has 5 elements"));
        assert!(is_config(shape_of(json!([4, -1]), &[2, 3]), "-1"));
        assert!(is_config(
            shape_of(json!([[0, 2]]), &[2, 3]),
            "input dimension 2"
        ));
        // [0] then [2] leaves input dimension 1 unaccounted: counts cannot line up.
        assert!(is_config(
            shape_of(json!([[0], [2]]), &[2, 3, 4]),
            "elements"
        ));
        // The count matches but the merged dimension is not the raveled index.
        assert!(is_config(shape_of(json!([4, [0]]), &[3, 4]), "merges"));
        assert!(is_config(shape_of(json!([[1], 3]), &[3, 4]), "merges"));
        assert!(is_config(
            shape_of(json!([-1]), &[u64::MAX, 2]),
            "overflows"
        ));
    }

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    #[test]
    fn chain_round_trip_keeps_c_order() {
        let codecs: Vec<NamedConfig> = json!([
            {"name": "reshape", "configuration": {"shape": [[0, 1], -1]}},
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "zstd", "configuration": {"level": 1, "checksum": false}}
        ])
        .as_array()
        .unwrap()
        .iter()
        .map(|c| NamedConfig::parse(c, "codec").unwrap())
        .collect();
        let r = repr(&[2, 3, 4], DataType::UInt16);
        let chain = CodecChain::from_metadata(&codecs, &r).unwrap();
        let data: Vec<u8> = (0..24u16).flat_map(|v| v.to_le_bytes()).collect();
        let encoded = chain.encode(data.clone()).unwrap();
        assert_eq!(chain.decode(encoded).unwrap(), data);
        // Without a compressor the bytes show the reshape then transpose: [6, 4] -> [4, 6],
        // so the stored order is element 0, 4, 8, ...
        let plain: Vec<NamedConfig> = codecs[..3].to_vec();
        let chain = CodecChain::from_metadata(&plain, &r).unwrap();
        let encoded = chain.encode(data.clone()).unwrap();
        let first: Vec<u16> = encoded[..6]
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(first, vec![0, 4, 8]);
        assert_eq!(
            chain.to_metadata()[0].to_json(),
            json!({"name": "reshape", "configuration": {"shape": [[0, 1], -1]}})
        );
        // A stored chunk of the wrong size is corrupt, never reshaped.
        assert!(matches!(
            chain.decode(encoded[..46].to_vec()),
            Err(CodecError::Corrupt { .. })
        ));
        let c = codec(json!([-1])).unwrap();
        assert!(matches!(
            c.decode(vec![0; 3], &r),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(matches!(
            c.encode(vec![0; 3], &r),
            Err(CodecError::Corrupt { .. })
        ));
    }
}
