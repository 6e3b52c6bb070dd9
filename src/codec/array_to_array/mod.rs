//! Array -> array codecs: they change the layout of a chunk's elements (transpose), its
//! shape (reshape), or the elements themselves (the numcodecs filters: delta,
//! fixedscaleoffset, quantize, bitround, astype, packbits), possibly into another data type.

pub mod astype;
pub mod bitround;
pub mod bitround_registry;
pub mod cast_value;
pub mod delta;
pub mod fixedscaleoffset;
pub mod numcodecs_packbits;
mod numeric;
pub mod quantize;
pub mod reshape;
pub mod scale_offset;
pub mod transpose;

use super::{ChunkRepresentation, CodecError};
use serde_json::{Map, Value};
use std::fmt::Debug;

/// A codec that maps a C-order, host-order array to another C-order, host-order array, whose
/// shape, data type and fill value [`ArrayToArrayCodec::encoded_representation`] gives.
pub trait ArrayToArrayCodec: Debug + Send + Sync {
    fn name(&self) -> &'static str;
    fn configuration(&self) -> Option<Map<String, Value>>;
    /// The representation of the encoded array (shape, data type and fill value) for a
    /// decoded array of `decoded`. Fails when the codec cannot take that data type.
    fn encoded_representation(
        &self,
        decoded: &ChunkRepresentation,
    ) -> Result<ChunkRepresentation, CodecError>;
    /// Encode a C-order array of representation `decoded` (`input.len()` is its size).
    fn encode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError>;
    /// Decode an encoded array (of `encoded_representation(decoded)`) back to `decoded`.
    /// An input of the wrong size is [`CodecError::Corrupt`].
    fn decode(&self, input: Vec<u8>, decoded: &ChunkRepresentation) -> Result<Vec<u8>, CodecError>;
}

/// Build an array->array codec for arrays of `decoded`, or `Ok(None)` when `name` is not one.
pub fn from_metadata(
    name: &str,
    configuration: Option<&Map<String, Value>>,
    decoded: &ChunkRepresentation,
) -> Result<Option<Box<dyn ArrayToArrayCodec>>, CodecError> {
    Ok(match name {
        "transpose" => Some(Box::new(transpose::TransposeCodec::from_configuration(
            configuration,
            decoded.shape.len(),
        )?)),
        "reshape" => Some(Box::new(reshape::ReshapeCodec::from_configuration(
            configuration,
        )?)),
        _ => {
            let empty = Map::new();
            let config = configuration.unwrap_or(&empty);
            let dt = &decoded.data_type;
            let codec: Box<dyn ArrayToArrayCodec> = match name {
                "numcodecs.delta" => Box::new(delta::DeltaCodec::from_configuration(config, dt)?),
                "numcodecs.fixedscaleoffset" => Box::new(
                    fixedscaleoffset::FixedScaleOffsetCodec::from_configuration(config, dt)?,
                ),
                "numcodecs.quantize" => {
                    Box::new(quantize::QuantizeCodec::from_configuration(config, dt)?)
                }
                "numcodecs.bitround" => {
                    Box::new(bitround::BitRoundCodec::from_configuration(config, dt)?)
                }
                "cast_value" => {
                    Box::new(cast_value::CastValueCodec::from_configuration(config, dt)?)
                }
                "scale_offset" => Box::new(scale_offset::ScaleOffsetCodec::from_configuration(
                    config, dt,
                )?),
                "bitround" => Box::new(bitround_registry::BitroundCodec::from_configuration(
                    config, dt,
                )?),
                "numcodecs.packbits" => Box::new(
                    numcodecs_packbits::PackBitsCodec::from_configuration(config, dt)?,
                ),
                "numcodecs.astype" => {
                    Box::new(astype::AsTypeCodec::from_configuration(config, dt)?)
                }
                _ => return Ok(None),
            };
            Some(codec)
        }
    })
}
