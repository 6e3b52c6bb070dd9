//! `transpose`: permute the dimensions of a chunk (`order` is a permutation of 0..n).

use super::ArrayToArrayCodec;
use crate::codec::{try_vec_with_capacity, ChunkRepresentation, CodecError};
use serde_json::{Map, Value};

const NAME: &str = "transpose";

/// Encoded dimension `i` is decoded dimension `order[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransposeCodec {
    order: Vec<usize>,
    inverse: Vec<usize>,
}

impl TransposeCodec {
    pub fn new(order: Vec<usize>) -> Result<TransposeCodec, CodecError> {
        let mut inverse = vec![usize::MAX; order.len()];
        for (i, &axis) in order.iter().enumerate() {
            if axis >= order.len() || inverse[axis] != usize::MAX {
                return Err(CodecError::config(
                    NAME,
                    format!("order {order:?} is not a permutation of 0..{}", order.len()),
                ));
            }
            inverse[axis] = i;
        }
        Ok(TransposeCodec { order, inverse })
    }

    /// `{"order": [permutation]}`. The legacy strings `"C"` (identity) and `"F"` (reversed
    /// axes) that early writers used are accepted on read.
    pub fn from_configuration(
        configuration: Option<&Map<String, Value>>,
        ndim: usize,
    ) -> Result<TransposeCodec, CodecError> {
        let configuration =
            configuration.ok_or_else(|| CodecError::config(NAME, "missing configuration"))?;
        if let Some(key) = configuration.keys().find(|k| k.as_str() != "order") {
            return Err(CodecError::config(NAME, format!("unknown key \"{key}\"")));
        }
        let order: Vec<usize> = match configuration.get("order") {
            Some(Value::String(s)) if s == "C" => (0..ndim).collect(),
            Some(Value::String(s)) if s == "F" => (0..ndim).rev().collect(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_u64()
                        .and_then(|u| usize::try_from(u).ok())
                        .ok_or_else(|| CodecError::config(NAME, format!("bad axis {v}")))
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(CodecError::config(NAME, "\"order\" must be a list of axes")),
        };
        if order.len() != ndim {
            return Err(CodecError::config(
                NAME,
                format!(
                    "order {order:?} has {} axes but the array has {ndim}",
                    order.len()
                ),
            ));
        }
        TransposeCodec::new(order)
    }
}

/// Copy a C-order array of `shape` into a new C-order array whose dimension `i` is input
/// dimension `perm[i]`.
fn permute(
    input: &[u8],
    shape: &[u64],
    perm: &[usize],
    element_size: usize,
) -> Result<Vec<u8>, CodecError> {
    let ndim = shape.len();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(input.to_vec());
    }
    // Strides of the input in elements, then reordered to follow the output's dimensions.
    let mut in_strides = vec![1usize; ndim];
    for d in (0..ndim.saturating_sub(1)).rev() {
        in_strides[d] = in_strides[d + 1] * shape[d + 1] as usize;
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p] as usize).collect();
    let out_strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let mut output = try_vec_with_capacity(input.len())?;
    if input.is_empty() {
        return Ok(output);
    }
    let last = ndim - 1;
    let inner_len = out_shape[last];
    let inner_stride = out_strides[last] * element_size;
    let mut index = vec![0usize; ndim];
    loop {
        let base: usize = index
            .iter()
            .zip(&out_strides)
            .map(|(i, s)| i * s)
            .sum::<usize>()
            * element_size;
        for k in 0..inner_len {
            let at = base + k * inner_stride;
            output.extend_from_slice(&input[at..at + element_size]);
        }
        // Advance the odometer over all but the innermost output dimension.
        let mut d = last;
        loop {
            if d == 0 {
                return Ok(output);
            }
            d -= 1;
            index[d] += 1;
            if index[d] < out_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

impl TransposeCodec {
    /// The shape of the encoded array for a decoded array of `decoded_shape`.
    pub fn encoded_shape(&self, decoded_shape: &[u64]) -> Vec<u64> {
        self.order.iter().map(|&axis| decoded_shape[axis]).collect()
    }
}

/// Check that `input` holds a whole array of `repr` before indexing into it.
fn check_len(input: &[u8], shape: &[u64], element_size: usize) -> Result<(), CodecError> {
    let expected = shape
        .iter()
        .try_fold(element_size as u64, |acc, &n| acc.checked_mul(n))
        .and_then(|n| usize::try_from(n).ok());
    if expected != Some(input.len()) {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "{} bytes is not an array of shape {shape:?} with {element_size}-byte elements",
                input.len()
            ),
        ));
    }
    Ok(())
}

impl ArrayToArrayCodec for TransposeCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("order".into(), Value::from(self.order.clone()));
        Some(map)
    }

    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError> {
        if decoded.shape.len() != self.order.len() {
            return Err(CodecError::config(
                NAME,
                format!(
                    "order {:?} has {} axes but the array has {}",
                    self.order,
                    self.order.len(),
                    decoded.shape.len()
                ),
            ));
        }
        Ok(ChunkRepresentation {
            shape: self.encoded_shape(&decoded.shape),
            ..decoded.clone()
        })
    }

    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let element_size = decoded.data_type.size();
        check_len(&input, &decoded.shape, element_size)?;
        permute(&input, &decoded.shape, &self.order, element_size)
    }

    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError> {
        let element_size = decoded.data_type.size();
        let encoded_shape = self.encoded_shape(&decoded.shape);
        check_len(&input, &encoded_shape, element_size)?;
        permute(&input, &encoded_shape, &self.inverse, element_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::DataType;
    use serde_json::json;

    fn repr(shape: &[u64], data_type: DataType) -> ChunkRepresentation {
        ChunkRepresentation {
            shape: shape.to_vec(),
            fill_value: data_type.zero_fill_value(),
            data_type,
        }
    }

    #[test]
    fn transposes_2d_and_back() {
        let codec = TransposeCodec::new(vec![1, 0]).unwrap();
        let input: Vec<u8> = (0..6).collect(); // 2x3
        let r = repr(&[2, 3], DataType::UInt8);
        let encoded = codec.encode(input.clone(), &r).unwrap();
        assert_eq!(encoded, vec![0, 3, 1, 4, 2, 5]); // 3x2
        assert_eq!(codec.decode(encoded.clone(), &r).unwrap(), input);
        assert!(codec.decode(encoded[1..].to_vec(), &r).is_err());
        assert!(codec.encode(vec![0; 7], &r).is_err());
    }

    #[test]
    fn transposes_3d_multibyte() {
        let codec = TransposeCodec::new(vec![2, 0, 1]).unwrap();
        let shape = [2u64, 3, 4];
        let input: Vec<u8> = (0..24u16).flat_map(|v| v.to_ne_bytes()).collect();
        let r = repr(&shape, DataType::UInt16);
        let encoded = codec.encode(input.clone(), &r).unwrap();
        assert_eq!(
            codec.encoded_representation(&r).unwrap().shape,
            vec![4, 2, 3]
        );
        // Encoded element (k, i, j) is decoded element (i, j, k) = i*12 + j*4 + k.
        let at = |k: usize, i: usize, j: usize| {
            let o = (k * 6 + i * 3 + j) * 2;
            u16::from_ne_bytes([encoded[o], encoded[o + 1]])
        };
        assert_eq!(at(3, 1, 2), 12 + 8 + 3);
        assert_eq!(codec.decode(encoded, &r).unwrap(), input);
    }

    #[test]
    fn configuration_rules() {
        let cfg = |v: Value| v.as_object().unwrap().clone();
        assert!(
            TransposeCodec::from_configuration(Some(&cfg(json!({"order": [0, 0]}))), 2).is_err()
        );
        assert!(TransposeCodec::from_configuration(Some(&cfg(json!({"order": [0]}))), 2).is_err());
        assert!(TransposeCodec::from_configuration(None, 2).is_err());
        let f = TransposeCodec::from_configuration(Some(&cfg(json!({"order": "F"}))), 3).unwrap();
        assert_eq!(f.order, vec![2, 1, 0]);
    }
}
