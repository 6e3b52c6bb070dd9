//! Opening a Kerchunk reference set from a `reference+<location>` URL: reading the set
//! (a JSON file, or a Parquet reference directory) from a local file, S3 or HTTP, and
//! the opener of the stores its references point into.

use super::{invalid, open_error, open_target, parse_target, unsupported, Target};
use crate::error::Error;
use crate::storage::reference::ReferenceStore;
use crate::storage::remote::{RemoteError, RemoteErrorKind, Scheme, UrlOptions};
use crate::storage::{Storage, StorageError};
use std::sync::Arc;

/// The location of a reference set when `url` is `reference+<location>`.
pub(super) fn strip_reference_prefix(url: &str) -> Option<&str> {
    let prefix = "reference+";
    (url.len() >= prefix.len() && url[..prefix.len()].eq_ignore_ascii_case(prefix))
        .then(|| &url[prefix.len()..])
}

/// Open the Kerchunk reference set at `set` (`url` without its `reference+`): JSON, or a
/// Parquet reference directory. The options apply to reading the set and to the targets
/// on the same kind of store; other targets get default options.
pub(super) fn open_reference(
    url: &str,
    set: &str,
    options_json: Option<&str>,
) -> Result<Arc<dyn Storage>, Error> {
    let target = parse_target(set)?;
    let scheme = match &target {
        Target::File(_) => Scheme::ReferenceFile,
        Target::S3 { .. } => Scheme::ReferenceS3,
        Target::Http(_) => Scheme::ReferenceHttp,
        Target::Gcs { .. } | Target::Azure { .. } | Target::Icechunk(_) => {
            return Err(unsupported(
                url,
                "Kerchunk reference sets are read from reference+file://, reference+s3://, \
                 reference+http:// and reference+https:// URLs",
            ))
        }
    };
    if !set.contains("://") && !set.starts_with('/') {
        return Err(invalid(format!(
            "malformed URL '{url}': a reference set is named by a URL \
             (reference+file:///absolute/path/refs.json)"
        )));
    }
    let mut options = match options_json {
        Some(json) => UrlOptions::parse(json, scheme).map_err(invalid)?,
        None => UrlOptions::default(),
    };
    if options.read_only == Some(false) {
        return Err(invalid(
            "option 'read_only': false cannot apply: Kerchunk reference sets are read-only",
        ));
    }
    options.read_only = Some(true);
    let concurrency = options.max_concurrency();
    let remote = !matches!(target, Target::File(_));
    // Targets on the set's kind of store get its options, the others the defaults.
    let same_kind = options.clone();
    let open_target_store = Box::new(move |name: &str| -> Result<_, StorageError> {
        let target = parse_target(name).map_err(|e| StorageError::Unsupported {
            key: name.to_string(),
            reason: e.to_string(),
        })?;
        let options = if target.scheme() == same_kind_scheme(scheme) {
            same_kind.clone()
        } else {
            UrlOptions {
                read_only: Some(true),
                ..UrlOptions::default()
            }
        };
        let store: Arc<dyn crate::storage::ReadableStorage> = open_target(target, &options, name)
            .map_err(|e| match e {
            Error::Storage(e) => e,
            other => StorageError::Remote(RemoteError::new(
                RemoteErrorKind::NotFound,
                "open",
                name,
                other.to_string(),
            )),
        })?;
        Ok(store)
    });
    // A local directory, or a remote location not ending in .json that holds a
    // `.zmetadata`, is a Parquet reference directory.
    let directory: Option<Arc<dyn Storage>> = match &target {
        Target::File(path) if path.is_dir() => Some(open_target(
            Target::File(path.clone()),
            &UrlOptions {
                read_only: Some(true),
                ..UrlOptions::default()
            },
            set,
        )?),
        Target::File(_) => None,
        _ if set.to_ascii_lowercase().ends_with(".json") => None,
        other => {
            let store = open_target(other.clone(), &options, set)?;
            store.get(".zmetadata")?.map(|_| store)
        }
    };
    let store = match directory {
        Some(store) => {
            ReferenceStore::from_parquet(set, store, open_target_store, remote, concurrency)
                .map_err(open_error)?
        }
        None => {
            let text = read_reference_file(&target, &options, set)?;
            ReferenceStore::from_json(set, &text, open_target_store, concurrency)
                .map_err(open_error)?
        }
    };
    Ok(Arc::new(store))
}

/// The scheme of the stores that a reference set on `scheme` shares its options with.
fn same_kind_scheme(scheme: Scheme) -> Scheme {
    match scheme {
        Scheme::ReferenceS3 => Scheme::S3,
        Scheme::ReferenceHttp => Scheme::Http,
        _ => Scheme::File,
    }
}

/// The bytes of a JSON reference set: a local file, or an object of the store that holds
/// it (opened with the set's options).
fn read_reference_file(target: &Target, options: &UrlOptions, set: &str) -> Result<Vec<u8>, Error> {
    let missing =
        |reason: String| Error::NotFound(format!("no Kerchunk reference set at {set} ({reason})"));
    match target {
        Target::File(path) => std::fs::read(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                missing(format!("'{}' does not exist", path.display()))
            } else {
                Error::Storage(StorageError::Io {
                    key: path.display().to_string(),
                    source: e,
                })
            }
        }),
        Target::S3 { bucket, prefix } => {
            let key = prefix.trim_end_matches('/');
            if key.is_empty() {
                return Err(invalid(format!(
                    "malformed URL 'reference+{set}': expected s3://bucket/key of the references"
                )));
            }
            let (dir, name) = key.rsplit_once('/').unwrap_or(("", key));
            let dir = if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            };
            let store = open_target(
                Target::S3 {
                    bucket: bucket.clone(),
                    prefix: dir,
                },
                options,
                set,
            )?;
            store
                .get(name)?
                .ok_or_else(|| missing(format!("no object '{key}' in bucket '{bucket}'")))
        }
        Target::Http(url) => {
            let (dir, name) = url.rsplit_once('/').unwrap_or((url, ""));
            if name.is_empty() {
                return Err(invalid(format!(
                    "malformed URL 'reference+{set}': it names a directory, not a reference file"
                )));
            }
            let name = percent_encoding::percent_decode_str(name)
                .decode_utf8_lossy()
                .into_owned();
            let store = open_target(Target::Http(format!("{dir}/")), options, set)?;
            store
                .get(&name)?
                .ok_or_else(|| missing(format!("GET {url} found nothing")))
        }
        Target::Gcs { .. } | Target::Azure { .. } | Target::Icechunk(_) => Err(unsupported(
            set,
            "Kerchunk reference sets are read from local files, S3 and HTTP",
        )),
    }
}
