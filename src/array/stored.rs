//! What an array stores, asked without JSON: whether a chunk is stored and its size,
//! erasing one chunk, dimension names in every layout, the codec list, and attribute
//! updates made under the metadata lock.

use super::{Array, StoredAs};
use crate::error::Error;
use crate::metadata::{v2, MetadataError, NamedConfig};
use serde_json::{Map, Value};

/// The attribute in which xarray (and every Zarr v2 reader that follows it: netCDF-C,
/// GDAL) stores the dimension names of a v2 array.
pub const ARRAY_DIMENSIONS: &str = "_ARRAY_DIMENSIONS";

/// Dimension names from a JSON array of strings or nulls with one entry per dimension;
/// `what` names the source in messages.
fn names_from_json(value: &Value, ndim: usize, what: &str) -> Result<Vec<Option<String>>, String> {
    let Value::Array(items) = value else {
        return Err(format!("{what} must be an array of strings"));
    };
    if items.len() != ndim {
        return Err(format!(
            "{what} has {} entries but the array has {ndim} dimensions",
            items.len()
        ));
    }
    items
        .iter()
        .map(|item| match item {
            Value::String(s) => Ok(Some(s.clone())),
            Value::Null => Ok(None),
            other => Err(format!("{what} entries must be strings, found {other}")),
        })
        .collect()
}

impl Array {
    /// The name of each dimension (`None` for an unnamed one).
    ///
    /// Zarr v3 arrays: `dimension_names` of `zarr.json`. Zarr v2 arrays: the
    /// `_ARRAY_DIMENSIONS` attribute (xarray's convention, which netCDF-C and GDAL follow
    /// too). The 2022 draft layout: the document's `dimension_names` if it has one, else
    /// `_ARRAY_DIMENSIONS`. No names stored: every entry is `None`. A malformed
    /// `_ARRAY_DIMENSIONS` (not a list of strings, one per dimension) is a metadata error.
    pub fn dimension_names(&self) -> Result<Vec<Option<String>>, Error> {
        let state = self.state();
        let meta = &state.metadata;
        let ndim = meta.shape.len();
        if let Some(names) = &meta.dimension_names {
            return Ok(names.clone());
        }
        let (draft_names, attributes_key) = match &state.stored_as {
            StoredAs::V3 => return Ok(vec![None; ndim]),
            StoredAs::V2(_) => (None, self.path.key(v2::ZATTRS)),
            StoredAs::V3Draft2022 { document, key } => {
                (document.get("dimension_names").cloned(), key.clone())
            }
        };
        let invalid = |message: String| {
            Error::metadata(attributes_key.clone(), MetadataError::Invalid(message))
        };
        if let Some(names) = draft_names.filter(|v| !v.is_null()) {
            return names_from_json(&names, ndim, "dimension_names").map_err(invalid);
        }
        match meta.attributes.get(ARRAY_DIMENSIONS) {
            None => Ok(vec![None; ndim]),
            Some(names) => names_from_json(names, ndim, ARRAY_DIMENSIONS).map_err(invalid),
        }
    }

    /// The array's codecs as its metadata lists them, in encoding order: the v3 `codecs`,
    /// or for a v2 array the equivalent v3 chain (`transpose` for order F, the numcodecs
    /// filters as `numcodecs.<id>`, `bytes`, the compressor as `numcodecs.<id>`).
    pub fn codecs(&self) -> Vec<NamedConfig> {
        self.state().metadata.codecs.clone()
    }

    /// The size in bytes of the stored chunk (for a sharded array, the shard) at
    /// `chunk_indices`, or `None` when it is not stored (it reads as the fill value).
    pub fn chunk_stored_nbytes(&self, chunk_indices: &[u64]) -> Result<Option<u64>, Error> {
        Ok(self.storage.value_size(&self.chunk_key(chunk_indices)?)?)
    }

    /// Erase the stored chunk (for a sharded array, the whole shard) at `chunk_indices`:
    /// it then reads as the fill value. Erasing a chunk that is not stored is not an error.
    pub fn erase_chunk(&self, chunk_indices: &[u64]) -> Result<(), Error> {
        Ok(self.storage.erase(&self.chunk_key(chunk_indices)?)?)
    }

    /// Change the attributes with `update` and rewrite the document holding them
    /// atomically, holding the metadata lock throughout: updates through one handle are
    /// serialised (none is lost), and readers of this handle see the attributes before or
    /// after the update. When `update` or the write fails, nothing changes.
    pub fn update_attributes<E: From<Error>>(
        &self,
        update: impl FnOnce(&mut Map<String, Value>) -> Result<(), E>,
    ) -> Result<(), E> {
        let _update = self.updates.lock().unwrap_or_else(|e| e.into_inner());
        let state = self.state();
        let mut metadata = state.metadata.clone();
        update(&mut metadata.attributes)?;
        self.write_metadata(&state.stored_as, &metadata)?;
        self.replace_metadata(&state, metadata);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{MemoryStore, Storage};
    use serde_json::json;
    use std::sync::Arc;

    fn v3(dimension_names: Value) -> String {
        json!({
            "zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "uint8",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 7,
            "codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}],
            "dimension_names": dimension_names
        })
        .to_string()
    }

    const V2: &str = r#"{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|u1",
        "compressor": {"id": "zlib", "level": 1}, "fill_value": 7, "filters": null,
        "order": "C"}"#;

    #[test]
    fn dimension_names_in_each_layout() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        let a = Array::create(s.clone(), "/a", &v3(json!(["y", null]))).unwrap();
        assert_eq!(a.dimension_names().unwrap(), vec![Some("y".into()), None]);
        let b = Array::create(s.clone(), "/b", &v3(Value::Null)).unwrap();
        assert_eq!(b.dimension_names().unwrap(), vec![None, None]);

        let c = Array::create(s.clone(), "/c", V2).unwrap();
        assert_eq!(c.dimension_names().unwrap(), vec![None, None]);
        c.set_attributes(
            json!({"_ARRAY_DIMENSIONS": ["lat", "lon"]})
                .as_object()
                .unwrap()
                .clone(),
        )
        .unwrap();
        let c = Array::open(s.clone(), "/c").unwrap();
        assert_eq!(
            c.dimension_names().unwrap(),
            vec![Some("lat".into()), Some("lon".into())]
        );
        for bad in [json!(["lat"]), json!("lat"), json!([1, 2])] {
            c.set_attributes(
                json!({"_ARRAY_DIMENSIONS": bad})
                    .as_object()
                    .unwrap()
                    .clone(),
            )
            .unwrap();
            assert!(
                matches!(c.dimension_names(), Err(Error::Metadata { .. })),
                "{bad}"
            );
        }
        assert_eq!(c.codecs()[0].name, "bytes");
        assert_eq!(c.codecs()[1].name, "numcodecs.zlib");
    }

    #[test]
    fn chunk_admin() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        let a = Array::create(s.clone(), "/a", &v3(Value::Null)).unwrap();
        assert_eq!(a.chunk_stored_nbytes(&[1, 1]).unwrap(), None);
        a.write_region(&[2, 3], &[2, 3], &[1; 6]).unwrap();
        let stored = s.get("a/c/1/1").unwrap().unwrap().len() as u64;
        assert_eq!(a.chunk_stored_nbytes(&[1, 1]).unwrap(), Some(stored));
        assert!(matches!(
            a.chunk_stored_nbytes(&[2, 0]),
            Err(Error::OutOfBounds(_))
        ));
        assert!(matches!(
            a.erase_chunk(&[0]),
            Err(Error::InvalidArgument(_))
        ));
        a.erase_chunk(&[1, 1]).unwrap();
        a.erase_chunk(&[1, 1]).unwrap();
        assert_eq!(a.chunk_stored_nbytes(&[1, 1]).unwrap(), None);
        let mut out = [0u8; 6];
        a.read_region(&[2, 3], &[2, 3], &mut out).unwrap();
        assert_eq!(out, [7; 6]);
    }

    #[test]
    fn attribute_updates_are_kept_or_dropped_whole() {
        let s: Arc<dyn Storage> = Arc::new(MemoryStore::new());
        let a = Array::create(s.clone(), "/a", &v3(Value::Null)).unwrap();
        a.update_attributes(|attrs| {
            attrs.insert("units".into(), json!("K"));
            Ok::<_, Error>(())
        })
        .unwrap();
        let failed = a.update_attributes(|attrs| {
            attrs.insert("lost".into(), json!(1));
            Err(Error::InvalidArgument("refused".into()))
        });
        assert!(failed.is_err());
        assert_eq!(a.attributes(), *json!({"units": "K"}).as_object().unwrap());
        let reopened = Array::open(s.clone(), "/a").unwrap();
        assert_eq!(reopened.attributes(), a.attributes());
        // Concurrent updates through one handle: none is lost.
        std::thread::scope(|scope| {
            for t in 0..8 {
                let a = &a;
                scope.spawn(move || {
                    for i in 0..20 {
                        a.update_attributes(|attrs| {
                            attrs.insert(format!("t{t}_{i}"), json!(i));
                            Ok::<_, Error>(())
                        })
                        .unwrap();
                    }
                });
            }
        });
        assert_eq!(Array::open(s, "/a").unwrap().attributes().len(), 1 + 8 * 20);
    }
}
