//! `struct`: records of named fields, packed without padding in declaration order.
//!
//! Three spellings describe the same layout:
//! * the registry's `struct` (`{"fields": [{"name": "a", "data_type": "int32"}, ...]}`),
//!   which libzarr writes;
//! * zarr-python 3.1's legacy `structured` (`{"fields": [["a", "int32"], ...]}`), read and
//!   kept as written when an existing array is rewritten;
//! * Zarr v2 structured dtypes (`[["a", "<i4"], ["b", ">f8", [2, 2]], ["c", [...]]]`),
//!   where every field carries its own byte order and may be a sub-array.

use super::MAX_ELEMENT_SIZE;
use super::{numpy_dtype_str, parse_numpy_dtype, swap_units, ByteOrder, DataType, FillValue};
use crate::metadata_error::MetadataError;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// Struct types nest; this bounds the recursion over hostile documents.
const MAX_DEPTH: usize = 32;

/// Which document form a struct type was read from (and is written back in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StructForm {
    /// The registry's `struct`.
    Struct,
    /// zarr-python 3.1's legacy `structured`.
    Structured,
    /// A Zarr v2 structured dtype (a list of fields).
    NumpyV2,
}

/// One field of a struct.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructField {
    pub name: String,
    pub data_type: DataType,
    /// Zarr v2 sub-array shape (`["z", "<f4", [2, 2]]`); empty for a scalar field.
    pub shape: Vec<u64>,
    /// Zarr v2 only: the byte order the field is stored in, whatever the `bytes` codec says
    /// (`None` for fields of single-byte units and nested structs, and outside v2).
    pub byte_order: Option<ByteOrder>,
    /// Byte offset of the field in the element.
    pub offset: usize,
}

impl StructField {
    /// Number of values of the field's data type (the product of `shape`).
    pub fn count(&self) -> usize {
        self.shape.iter().product::<u64>() as usize
    }

    /// Size of the field in bytes.
    pub fn size(&self) -> usize {
        self.count() * self.data_type.size()
    }
}

/// A struct data type: its fields in order, and the form it was written in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructType {
    pub fields: Vec<StructField>,
    pub form: StructForm,
    size: usize,
}

fn invalid(message: String) -> MetadataError {
    MetadataError::Invalid(message)
}

impl StructType {
    /// Build from (name, data type, sub-array shape, byte order) in order, checking that
    /// there is at least one field, that names are unique and non-empty, and that the
    /// element stays within [`MAX_ELEMENT_SIZE`].
    pub fn new(
        fields: Vec<(String, DataType, Vec<u64>, Option<ByteOrder>)>,
        form: StructForm,
    ) -> Result<StructType, MetadataError> {
        if fields.is_empty() {
            return Err(invalid(
                "a struct data type needs at least one field".into(),
            ));
        }
        let mut names = HashSet::new();
        let mut offset = 0usize;
        let mut out = Vec::with_capacity(fields.len());
        for (name, data_type, shape, byte_order) in fields {
            if name.is_empty() {
                return Err(invalid("a struct field name is empty".into()));
            }
            if !names.insert(name.clone()) {
                return Err(invalid(format!(
                    "the struct field name \"{name}\" is used twice"
                )));
            }
            if data_type.is_variable_length() {
                return Err(MetadataError::Unsupported(format!(
                    "struct field \"{name}\" of variable-length type {}: struct fields have a \
                     fixed size",
                    data_type.name()
                )));
            }
            let count = shape
                .iter()
                .try_fold(1u64, |acc, n| acc.checked_mul(*n))
                .filter(|n| *n > 0);
            let size = count
                .and_then(|n| usize::try_from(n).ok())
                .and_then(|n| n.checked_mul(data_type.size()))
                .filter(|n| *n <= MAX_ELEMENT_SIZE)
                .ok_or_else(|| {
                    invalid(format!(
                        "struct field \"{name}\": sub-array shape {shape:?} is empty or too large"
                    ))
                })?;
            out.push(StructField {
                name,
                data_type,
                shape,
                byte_order,
                offset,
            });
            offset = offset
                .checked_add(size)
                .filter(|n| *n <= MAX_ELEMENT_SIZE)
                .ok_or_else(|| {
                    invalid("the struct's fields add up to more than 2^24 bytes".into())
                })?;
        }
        Ok(StructType {
            fields: out,
            form,
            size: offset,
        })
    }

    /// Parse the configuration of `struct` or `structured` (either field spelling is
    /// accepted under either name, as zarr-python does).
    pub fn from_v3(
        name: &str,
        configuration: Option<&Map<String, Value>>,
    ) -> Result<StructType, MetadataError> {
        StructType::from_v3_depth(name, configuration, 0)
    }

    fn from_v3_depth(
        name: &str,
        configuration: Option<&Map<String, Value>>,
        depth: usize,
    ) -> Result<StructType, MetadataError> {
        if depth > MAX_DEPTH {
            return Err(invalid(format!(
                "struct data types nested more than {MAX_DEPTH} deep"
            )));
        }
        let configuration = configuration
            .ok_or_else(|| invalid(format!("data type '{name}' needs a configuration")))?;
        if let Some(key) = configuration.keys().find(|k| k.as_str() != "fields") {
            return Err(invalid(format!(
                "data type '{name}': unknown configuration key \"{key}\""
            )));
        }
        let items = configuration
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid(format!("data type '{name}': \"fields\" must be a list")))?;
        let mut fields = Vec::with_capacity(items.len());
        for item in items {
            let (field_name, data_type) = match item {
                Value::Object(field) => {
                    if let Some(key) = field
                        .keys()
                        .find(|k| !matches!(k.as_str(), "name" | "data_type"))
                    {
                        return Err(invalid(format!(
                            "data type '{name}': a field has an unknown key \"{key}\""
                        )));
                    }
                    (field.get("name"), field.get("data_type"))
                }
                Value::Array(pair) if pair.len() == 2 => (pair.first(), pair.get(1)),
                other => {
                    return Err(invalid(format!(
                        "data type '{name}': a field must be {{\"name\", \"data_type\"}} or \
                         [name, data type], not {other}"
                    )))
                }
            };
            let field_name = field_name.and_then(Value::as_str).ok_or_else(|| {
                invalid(format!("data type '{name}': a field has no string name"))
            })?;
            let data_type = data_type.ok_or_else(|| {
                invalid(format!(
                    "data type '{name}': field \"{field_name}\" has no data_type"
                ))
            })?;
            let data_type = match data_type {
                // Nested structs recurse with a depth bound.
                Value::Object(o)
                    if matches!(
                        o.get("name").and_then(Value::as_str),
                        Some("struct" | "structured")
                    ) =>
                {
                    let inner_name = o.get("name").and_then(Value::as_str).unwrap_or("struct");
                    let inner = o.get("configuration").and_then(Value::as_object);
                    let mut inner = StructType::from_v3_depth(inner_name, inner, depth + 1)?;
                    if inner_name == "structured" {
                        inner.form = StructForm::Structured;
                    }
                    DataType::Struct(Arc::new(inner))
                }
                other => DataType::from_json(other)?,
            };
            fields.push((field_name.to_string(), data_type, Vec::new(), None));
        }
        let form = if name == "structured" {
            StructForm::Structured
        } else {
            StructForm::Struct
        };
        StructType::new(fields, form)
    }

    /// Parse a Zarr v2 structured dtype: a list of `[name, dtype]` or
    /// `[name, dtype, shape]`, where `dtype` is a numpy dtype string or another list.
    pub fn from_numpy_v2(list: &[Value]) -> Result<StructType, MetadataError> {
        StructType::from_numpy_v2_depth(list, 0)
    }

    fn from_numpy_v2_depth(list: &[Value], depth: usize) -> Result<StructType, MetadataError> {
        if depth > MAX_DEPTH {
            return Err(invalid(format!(
                "structured dtypes nested more than {MAX_DEPTH} deep"
            )));
        }
        let mut fields = Vec::with_capacity(list.len());
        for item in list {
            let parts = item.as_array().filter(|p| p.len() == 2 || p.len() == 3);
            let Some(parts) = parts else {
                return Err(invalid(format!(
                    "structured dtype: a field must be [name, dtype] or [name, dtype, shape], \
                     not {item}"
                )));
            };
            let name = parts[0].as_str().ok_or_else(|| {
                invalid(format!(
                    "structured dtype: field name {} is not a string",
                    parts[0]
                ))
            })?;
            let shape = match parts.get(2) {
                None => Vec::new(),
                Some(Value::Array(dims)) => dims
                    .iter()
                    .map(Value::as_u64)
                    .collect::<Option<Vec<u64>>>()
                    .ok_or_else(|| {
                        invalid(format!(
                            "structured dtype: field \"{name}\" has an invalid shape {}",
                            parts[2]
                        ))
                    })?,
                Some(other) => {
                    return Err(invalid(format!(
                        "structured dtype: field \"{name}\" has an invalid shape {other}"
                    )))
                }
            };
            let (data_type, order) = match &parts[1] {
                Value::String(dtype) => {
                    let (data_type, order) = parse_numpy_dtype(dtype).ok_or_else(|| {
                        MetadataError::Unsupported(format!(
                            "structured dtype: field \"{name}\" has dtype '{dtype}'"
                        ))
                    })?;
                    (data_type, order)
                }
                Value::Array(inner) => (
                    DataType::Struct(Arc::new(StructType::from_numpy_v2_depth(inner, depth + 1)?)),
                    None,
                ),
                other => {
                    return Err(invalid(format!(
                        "structured dtype: field \"{name}\" has an invalid dtype {other}"
                    )))
                }
            };
            fields.push((name.to_string(), data_type, shape, order));
        }
        StructType::new(fields, StructForm::NumpyV2)
    }

    /// The Zarr v2 (numpy) list spelling of this type, fields in the byte order they carry
    /// (or `order` when they carry none). `None` if a field has no numpy spelling.
    pub fn to_numpy_v2(&self, order: ByteOrder) -> Option<Value> {
        let mut list = Vec::with_capacity(self.fields.len());
        for field in &self.fields {
            let field_order = field.byte_order.unwrap_or(order);
            let dtype = match &field.data_type {
                DataType::Struct(inner) => inner.to_numpy_v2(field_order)?,
                other => Value::from(numpy_dtype_str(other, Some(field_order))?),
            };
            let mut item = vec![Value::from(field.name.clone()), dtype];
            if !field.shape.is_empty() {
                item.push(Value::from(field.shape.clone()));
            }
            list.push(Value::Array(item));
        }
        Some(Value::Array(list))
    }

    /// The v3 configuration in this type's form (`struct` objects, or legacy pairs).
    pub fn to_v3_configuration(&self) -> Map<String, Value> {
        let fields = self
            .fields
            .iter()
            .map(|field| match self.form {
                StructForm::Structured => Value::Array(vec![
                    Value::from(field.name.clone()),
                    field.data_type.to_json(),
                ]),
                _ => {
                    let mut object = Map::new();
                    object.insert("name".into(), Value::from(field.name.clone()));
                    object.insert("data_type".into(), field.data_type.to_json());
                    Value::Object(object)
                }
            })
            .collect();
        let mut configuration = Map::new();
        configuration.insert("fields".into(), Value::Array(fields));
        configuration
    }

    /// Size of one element: the sum of the fields' sizes.
    pub fn size(&self) -> usize {
        self.size
    }

    pub fn max_endian_unit(&self) -> usize {
        self.fields
            .iter()
            .map(|f| f.data_type.endian_unit())
            .max()
            .unwrap_or(1)
    }

    /// The runs of units to reverse in one element: (offset, unit size, unit count).
    fn swap_plan(&self, base: usize, stored: ByteOrder, plan: &mut Vec<(usize, usize, usize)>) {
        for field in &self.fields {
            let order = field.byte_order.unwrap_or(stored);
            let start = base + field.offset;
            match &field.data_type {
                DataType::Struct(inner) => {
                    for k in 0..field.count() {
                        inner.swap_plan(start + k * inner.size, order, plan);
                    }
                }
                data_type => {
                    let unit = data_type.endian_unit();
                    if unit > 1 && order != ByteOrder::native() {
                        plan.push((start, unit, field.size() / unit));
                    }
                }
            }
        }
    }

    pub(super) fn needs_swap(&self, stored: ByteOrder) -> bool {
        let mut plan = Vec::new();
        self.swap_plan(0, stored, &mut plan);
        !plan.is_empty()
    }

    pub(super) fn swap_stored(&self, data: &mut [u8], stored: ByteOrder) {
        let mut plan = Vec::new();
        self.swap_plan(0, stored, &mut plan);
        if plan.is_empty() {
            return;
        }
        for element in data.chunks_exact_mut(self.size) {
            for &(offset, unit, count) in &plan {
                swap_units(&mut element[offset..offset + unit * count], unit);
            }
        }
    }

    /// A fill value given as `{field: value, ...}`: each field's value in its own type's
    /// spelling (a list of values for a sub-array field). A missing field is zero, as
    /// zarr-python reads it; an unknown field name is an error.
    pub(super) fn parse_fill_value_fields(
        &self,
        values: &Map<String, Value>,
        type_name: &str,
    ) -> Result<Vec<u8>, MetadataError> {
        if let Some(key) = values
            .keys()
            .find(|k| !self.fields.iter().any(|f| &f.name == *k))
        {
            return Err(invalid(format!(
                "fill_value for data type {type_name} has a field \"{key}\" the type does not have"
            )));
        }
        let mut bytes = Vec::with_capacity(self.size);
        for field in &self.fields {
            match values.get(&field.name) {
                None => bytes.resize(bytes.len() + field.size(), 0),
                Some(value) if field.shape.is_empty() => {
                    bytes.extend_from_slice(field.data_type.parse_fill_value(value)?.as_bytes())
                }
                Some(Value::Array(items)) if items.len() == field.count() => {
                    for item in items {
                        bytes.extend_from_slice(field.data_type.parse_fill_value(item)?.as_bytes());
                    }
                }
                Some(other) => {
                    return Err(invalid(format!(
                    "fill_value of struct field \"{}\" must be a list of {} values, not {other}",
                    field.name,
                    field.count()
                )))
                }
            }
        }
        Ok(bytes)
    }

    /// `{field: value, ...}` of a host-order element.
    pub(super) fn fill_value_fields_to_json(&self, bytes: &[u8]) -> Map<String, Value> {
        let mut object = Map::new();
        for field in &self.fields {
            let size = field.data_type.size();
            let slice = &bytes[field.offset..field.offset + field.size()];
            let value = |b: &[u8]| {
                field
                    .data_type
                    .fill_value_to_json(&FillValue::new(b.to_vec()))
            };
            let json = if field.shape.is_empty() {
                value(slice)
            } else {
                Value::Array(slice.chunks_exact(size).map(value).collect())
            };
            object.insert(field.name.clone(), json);
        }
        object
    }
}
