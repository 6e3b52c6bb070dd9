//! Array -> array codecs: they change the layout of a chunk's elements, not their bytes.

pub mod transpose;

use super::CodecError;
use serde_json::{Map, Value};
use std::fmt::Debug;

/// A codec that maps a C-order array of one shape to a C-order array of another shape with
/// the same elements.
pub trait ArrayToArrayCodec: Debug + Send + Sync {
    fn name(&self) -> &'static str;
    fn configuration(&self) -> Option<Map<String, Value>>;
    /// The shape of the encoded array for a decoded array of `decoded_shape`.
    fn encoded_shape(&self, decoded_shape: &[u64]) -> Vec<u64>;
    /// Encode a C-order array of `decoded_shape` whose elements are `element_size` bytes.
    fn encode(
        &self,
        input: Vec<u8>,
        decoded_shape: &[u64],
        element_size: usize,
    ) -> Result<Vec<u8>, CodecError>;
    /// Decode back to a C-order array of `decoded_shape`.
    fn decode(
        &self,
        input: Vec<u8>,
        decoded_shape: &[u64],
        element_size: usize,
    ) -> Result<Vec<u8>, CodecError>;
}

/// Build an array->array codec, or `Ok(None)` when `name` is not one.
pub fn from_metadata(
    name: &str,
    configuration: Option<&Map<String, Value>>,
    ndim: usize,
) -> Result<Option<Box<dyn ArrayToArrayCodec>>, CodecError> {
    Ok(match name {
        "transpose" => Some(Box::new(transpose::TransposeCodec::from_configuration(
            configuration,
            ndim,
        )?)),
        _ => None,
    })
}
