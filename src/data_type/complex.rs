//! The registry's `complex_<float type>` data types: a real and an imaginary component of
//! one floating-point type, one after the other (each laid out as an element of that type),
//! so `complex_float32` is laid out as `complex64` and `complex_float4_e2m1fn` is two
//! bytes, each holding a 4-bit code in its low bits.

use super::{DataType, Float8Format, SubByteFloat};

/// The component type of a `complex_*` data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComplexPart {
    BFloat16,
    Float16,
    Float32,
    Float64,
    SubByte(SubByteFloat),
    /// Every float8 format but `float8_e4m3fn`, which the registry has no complex type of.
    Float8(Float8Format),
}

impl ComplexPart {
    /// The component's data type.
    pub fn data_type(self) -> DataType {
        match self {
            ComplexPart::BFloat16 => DataType::BFloat16,
            ComplexPart::Float16 => DataType::Float16,
            ComplexPart::Float32 => DataType::Float32,
            ComplexPart::Float64 => DataType::Float64,
            ComplexPart::SubByte(format) => DataType::SubByteFloat(format),
            ComplexPart::Float8(format) => DataType::Float8(format),
        }
    }

    /// The component of `complex_<name>`, given `<name>`.
    pub fn from_component_name(name: &str) -> Option<ComplexPart> {
        Some(match name {
            "bfloat16" => ComplexPart::BFloat16,
            "float16" => ComplexPart::Float16,
            "float32" => ComplexPart::Float32,
            "float64" => ComplexPart::Float64,
            _ => {
                if let Some(format) = SubByteFloat::from_name(name) {
                    ComplexPart::SubByte(format)
                } else {
                    match Float8Format::from_name(name)? {
                        Float8Format::E4M3FN => return None,
                        format => ComplexPart::Float8(format),
                    }
                }
            }
        })
    }

    /// The data type's name: `complex_` and the component's.
    pub fn complex_name(self) -> String {
        format!("complex_{}", self.data_type().name())
    }

    /// The size of one component in bytes (an element holds two).
    pub fn size(self) -> usize {
        self.data_type().size()
    }
}
