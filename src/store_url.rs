//! Opening a store from a URL: S3-compatible object stores (`s3://bucket/prefix`), GCS
//! (`gs://`), Azure (`az://`, `abfs://`), plain HTTP(S) servers (read-only), local paths
//! (`file:///abs/path` or a plain path), Icechunk repositories on any of those
//! (`icechunk+<url>`) and Kerchunk reference sets (`reference+<url>`, in `reference.rs`).
//! Above the storage layer: it picks a store and reports a bad URL as the library's own
//! error.

use crate::error::Error;
use crate::storage::icechunk;
use crate::storage::remote::s3::BucketCheck;
use crate::storage::remote::{
    azure, credentials, gcs, http, HttpStore, OpenError, RemoteError, RemoteErrorKind, S3Store,
    Scheme, UrlOptions,
};
use crate::storage::{FilesystemOptions, FilesystemStore, ReadOnlyStore, Storage, StorageError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod reference;
use reference::{open_reference, strip_reference_prefix};

/// What a URL names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    S3 {
        bucket: String,
        prefix: String,
    },
    Gcs {
        bucket: String,
        prefix: String,
    },
    /// `account` from the `container@account.blob.core.windows.net` form, if given.
    Azure {
        container: String,
        account: Option<String>,
        prefix: String,
    },
    Http(String),
    File(PathBuf),
    /// `icechunk+<url>`: an Icechunk repository where `<url>` points.
    Icechunk(icechunk::Location),
}

impl Target {
    fn scheme(&self) -> Scheme {
        match self {
            Target::S3 { .. } => Scheme::S3,
            Target::Gcs { .. } => Scheme::Gcs,
            Target::Azure { .. } => Scheme::Azure,
            Target::Http(_) => Scheme::Http,
            Target::File(_) => Scheme::File,
            Target::Icechunk(icechunk::Location::File(_)) => Scheme::IcechunkFile,
            Target::Icechunk(icechunk::Location::S3 { .. }) => Scheme::IcechunkS3,
            Target::Icechunk(icechunk::Location::Gcs { .. }) => Scheme::IcechunkGcs,
            Target::Icechunk(icechunk::Location::Azure { .. }) => Scheme::IcechunkAzure,
        }
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidArgument(message.into())
}

fn unsupported(url: &str, reason: &str) -> Error {
    Error::Storage(StorageError::Unsupported {
        key: url.to_string(),
        reason: reason.to_string(),
    })
}

/// `scheme` and the rest when `url` starts with `scheme://`.
fn split_scheme(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some((scheme, rest))
}

fn parse_target(url: &str) -> Result<Target, Error> {
    if url.is_empty() {
        return Err(invalid("argument 'url' is empty"));
    }
    let Some((scheme, rest)) = split_scheme(url) else {
        if url.contains("://") {
            return Err(invalid(format!("malformed URL '{url}': invalid scheme")));
        }
        return Ok(Target::File(PathBuf::from(url)));
    };
    let lower = scheme.to_ascii_lowercase();
    if let Some(inner) = lower.strip_prefix("icechunk+") {
        // The rest is parsed as the underlying URL is on its own.
        let underlying = &url[scheme.len() - inner.len()..];
        let location = match parse_target(underlying)? {
            Target::File(path) => icechunk::Location::File(path),
            Target::S3 { bucket, prefix } => icechunk::Location::S3 { bucket, prefix },
            Target::Gcs { bucket, prefix } => icechunk::Location::Gcs { bucket, prefix },
            Target::Azure {
                container,
                account,
                prefix,
            } => icechunk::Location::Azure {
                container,
                account,
                prefix,
            },
            Target::Http(_) | Target::Icechunk(_) => {
                return Err(unsupported(
                    url,
                    &format!(
                        "Icechunk repositories are opened from icechunk+file://, \
                         icechunk+s3://, icechunk+gs:// or icechunk+az:// URLs, not \
                         '{scheme}://'"
                    ),
                ))
            }
        };
        return Ok(Target::Icechunk(location));
    }
    match lower.as_str() {
        "s3" => {
            let (bucket, prefix) = bucket_and_prefix(url, rest, "s3://bucket[/prefix]")?;
            Ok(Target::S3 { bucket, prefix })
        }
        "gs" | "gcs" => {
            let (bucket, prefix) = bucket_and_prefix(url, rest, "gs://bucket[/prefix]")?;
            Ok(Target::Gcs { bucket, prefix })
        }
        "az" | "abfs" | "abfss" => {
            // adlfs and fsspec also spell the account into the URL:
            // abfs://container@account.dfs.core.windows.net/prefix.
            let (head, tail) = rest.split_once('/').unwrap_or((rest, ""));
            let (container, account) = match head.split_once('@') {
                Some((container, host)) => {
                    let account = host.split('.').next().unwrap_or("");
                    if account.is_empty() || !account.chars().all(|c| c.is_ascii_alphanumeric()) {
                        return Err(invalid(format!(
                            "malformed URL '{url}': expected container@account.<domain> with an \
                             account name of letters and digits"
                        )));
                    }
                    (container, Some(account.to_string()))
                }
                None => (head, None),
            };
            let (container, prefix) = bucket_and_prefix(
                url,
                &format!("{container}/{tail}"),
                "az://container[/prefix]",
            )?;
            Ok(Target::Azure {
                container,
                account,
                prefix,
            })
        }
        "http" | "https" => {
            let parsed =
                url::Url::parse(url).map_err(|e| invalid(format!("malformed URL '{url}': {e}")))?;
            if parsed.host_str().is_none_or(str::is_empty) {
                return Err(invalid(format!("malformed URL '{url}': no host")));
            }
            if parsed.query().is_some() || parsed.fragment().is_some() {
                return Err(invalid(format!(
                    "malformed URL '{url}': a store URL takes no query or fragment"
                )));
            }
            Ok(Target::Http(parsed.to_string()))
        }
        "file" => {
            let parsed =
                url::Url::parse(url).map_err(|e| invalid(format!("malformed URL '{url}': {e}")))?;
            let path = parsed.to_file_path().map_err(|()| {
                invalid(format!(
                    "malformed URL '{url}': expected file:///absolute/path (no host but localhost)"
                ))
            })?;
            Ok(Target::File(path))
        }
        other => Err(unsupported(
            url,
            &format!(
                "URL scheme '{other}' is not supported (s3://, gs://, az://, abfs://, http://, \
                 https://, file://, icechunk+file://, icechunk+s3://, icechunk+gs://, \
                 icechunk+az:// or a local path)"
            ),
        )),
    }
}

/// The bucket (or container) and the key prefix (`""` or ending in `/`) of an object store
/// URL's `rest` (what follows `scheme://`); `form` is what the message of a malformed one
/// shows.
fn bucket_and_prefix(url: &str, rest: &str, form: &str) -> Result<(String, String), Error> {
    if rest.contains(['?', '#']) {
        return Err(invalid(format!(
            "malformed URL '{url}': object store URLs take no query or fragment"
        )));
    }
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let valid_bucket = !bucket.is_empty()
        && bucket.len() <= 255
        && bucket
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if !valid_bucket {
        return Err(invalid(format!(
            "malformed URL '{url}': expected {form} with a name of letters, digits, '.', '-' \
             and '_'"
        )));
    }
    let prefix = prefix.trim_matches('/');
    if !prefix.is_empty() {
        crate::storage::validate_key(prefix)
            .map_err(|e| invalid(format!("malformed URL '{url}': bad key prefix: {e}")))?;
    }
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    Ok((bucket.to_string(), prefix))
}

/// Open the store a URL names, with options given as a JSON object (or `None`).
///
/// A local directory and an S3 bucket must exist, unless the option `create` is true
/// (then they are created). Opening an S3 store makes one request, a `HEAD` of the
/// bucket (and the short instance-metadata probe of a store that found no credentials
/// anywhere else); opening an HTTP store makes none: a wrong path there shows up, with
/// the URL and HTTP status, on first use.
pub fn open_url(url: &str, options_json: Option<&str>) -> Result<Arc<dyn Storage>, Error> {
    if let Some(set) = strip_reference_prefix(url) {
        return open_reference(url, set, options_json);
    }
    let target = parse_target(url)?;
    let options = match options_json {
        Some(json) => UrlOptions::parse(json, target.scheme()).map_err(invalid)?,
        None => UrlOptions::default(),
    };
    open_target(target, &options, url)
}

/// Open the store `target` names with `options`; `url` is what messages name.
fn open_target(target: Target, options: &UrlOptions, url: &str) -> Result<Arc<dyn Storage>, Error> {
    let client_config = |tls: bool, max_redirects: u32| http::ClientConfig {
        max_concurrency: options.max_concurrency(),
        timeout: options.timeout(),
        max_retries: options.max_retries(),
        tls,
        max_redirects,
    };
    let tls_failure = |endpoint: &str, message: String| {
        Error::Storage(StorageError::Remote(RemoteError::new(
            RemoteErrorKind::Network,
            "open",
            endpoint,
            message,
        )))
    };
    match target {
        Target::File(path) => {
            let root = std::path::absolute(&path)
                .map_err(|e| invalid(format!("cannot resolve path '{}': {e}", path.display())))?;
            ensure_directory(
                &root,
                options.create == Some(true),
                options.read_only == Some(true),
            )?;
            let settings = FilesystemOptions {
                fsync: options.fsync.unwrap_or(false),
                follow_external_symlinks: options.follow_symlinks.unwrap_or(false),
                locking: options.locking.unwrap_or(true),
            };
            let store: Arc<dyn Storage> = Arc::new(FilesystemStore::with_options(root, settings)?);
            Ok(if options.read_only == Some(true) {
                Arc::new(ReadOnlyStore::new(store))
            } else {
                store
            })
        }
        Target::Http(base) => {
            if options.read_only == Some(false) {
                return Err(invalid(
                    "option 'read_only': false cannot apply: HTTP stores are read-only",
                ));
            }
            let tls = base.starts_with("https:");
            let client =
                http::Client::new(&client_config(tls, 5)).map_err(|m| tls_failure(&base, m))?;
            Ok(Arc::new(HttpStore::new(&base, client)))
        }
        Target::Gcs { bucket, prefix } => {
            gcs::open(&bucket, &prefix, options, url).map_err(open_error)
        }
        Target::Azure {
            container,
            account,
            prefix,
        } => azure::open(&container, account.as_deref(), &prefix, options, url).map_err(open_error),
        Target::Icechunk(location) => {
            let read_only = options.read_only == Some(true);
            let store = icechunk::open(location, url, options).map_err(open_error)?;
            let store: Arc<dyn Storage> = Arc::new(store);
            // A branch opened read-only is a read-only session already; the wrapper
            // makes the refusal come before any request.
            Ok(if read_only {
                Arc::new(ReadOnlyStore::new(store))
            } else {
                store
            })
        }
        Target::S3 { bucket, prefix } => {
            let settings =
                credentials::resolve(options, &credentials::process_env).map_err(invalid)?;
            let endpoint_text = settings
                .endpoint
                .clone()
                .unwrap_or_else(|| format!("https://s3.{}.amazonaws.com", settings.region));
            let from = if options.endpoint.is_some() {
                "option 'endpoint'"
            } else {
                "endpoint"
            };
            let endpoint = url::Url::parse(&endpoint_text)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
                .filter(|u| u.query().is_none() && u.fragment().is_none())
                .ok_or_else(|| {
                    invalid(format!(
                        "{from} '{endpoint_text}' is not an http:// or https:// URL"
                    ))
                })?;
            // Custom endpoints (MinIO, Ceph, moto, a loopback address) rarely resolve
            // bucket subdomains: path style unless told otherwise.
            let path_style = options
                .force_path_style
                .unwrap_or(settings.endpoint.is_some() || bucket.contains('.'));
            let style = if path_style {
                rusty_s3::UrlStyle::Path
            } else {
                rusty_s3::UrlStyle::VirtualHost
            };
            let bucket_handle = rusty_s3::Bucket::new(
                endpoint.clone(),
                style,
                bucket.clone(),
                settings.region.clone(),
            )
            .map_err(|e| {
                invalid(format!(
                    "cannot address bucket '{bucket}' at {endpoint}: {e}"
                ))
            })?;
            let tls = endpoint.scheme() == "https";
            let client = http::Client::new(&client_config(tls, 0))
                .map_err(|m| tls_failure(endpoint.as_str(), m))?;
            let store = S3Store::new(
                bucket_handle,
                prefix,
                settings.credentials,
                client,
                options.read_only == Some(true),
                options.conditional_writes.unwrap_or(true).then(|| {
                    options
                        .update_attempts
                        .unwrap_or(crate::storage::remote::s3::DEFAULT_UPDATE_ATTEMPTS)
                }),
            );
            ensure_bucket(
                &store,
                url,
                options.create == Some(true),
                options.read_only == Some(true),
            )?;
            Ok(Arc::new(store))
        }
    }
}

/// The library's error for a GCS or Azure store that could not be opened.
fn open_error(error: OpenError) -> Error {
    match error {
        OpenError::InvalidArgument(message) => Error::InvalidArgument(message),
        OpenError::NotFound(message) => Error::NotFound(message),
        OpenError::Storage(error) => Error::Storage(error),
    }
}

/// A local store's root must exist (and be a directory) unless `create` says to make
/// it: a mistyped path then fails here, naming the path, instead of reading as an
/// empty store or writing a new tree somewhere unexpected.
fn ensure_directory(root: &Path, create: bool, read_only: bool) -> Result<(), Error> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => Ok(()),
        // FilesystemStore refuses it, naming the path.
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
            std::fs::create_dir_all(root).map_err(|e| {
                Error::Storage(StorageError::Io {
                    key: root.display().to_string(),
                    source: e,
                })
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut message = format!("the directory '{}' does not exist (", root.display());
            if let Some(missing) = first_missing_ancestor(root).filter(|&m| m != root) {
                message.push_str(&format!("nor does '{}'; ", missing.display()));
            }
            message.push_str(create_hint(read_only));
            message.push(')');
            Err(Error::NotFound(message))
        }
        Err(e) => Err(Error::Storage(StorageError::Io {
            key: root.display().to_string(),
            source: e,
        })),
    }
}

/// The highest directory on the way to `path` that does not exist.
fn first_missing_ancestor(path: &Path) -> Option<&Path> {
    path.ancestors()
        .take_while(|p| !p.as_os_str().is_empty() && !p.exists())
        .last()
}

/// An S3 store's bucket must exist unless `create` says to make it (then a bucket
/// already owned by these credentials is fine). One `HEAD` of the bucket: a mistyped
/// bucket or endpoint fails here with what the service answered. Credentials that may
/// not `HEAD` the bucket pass: the objects may still be theirs to read.
fn ensure_bucket(store: &S3Store, url: &str, create: bool, read_only: bool) -> Result<(), Error> {
    match store.check_bucket()? {
        BucketCheck::Exists | BucketCheck::NotAllowed => Ok(()),
        BucketCheck::Missing if create => Ok(store.create_bucket()?),
        BucketCheck::Missing => Err(Error::NotFound(format!(
            "cannot open '{url}': no {} (HEAD of the bucket answered HTTP 404: NoSuchBucket; {})",
            store.bucket_description(),
            create_hint(read_only)
        ))),
    }
}

/// What a "does not exist" at open offers.
fn create_hint(read_only: bool) -> &'static str {
    if read_only {
        "a read-only store cannot create it"
    } else {
        "the option \"create\": true creates it"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse() {
        let s3 = |b: &str, p: &str| Target::S3 {
            bucket: b.into(),
            prefix: p.into(),
        };
        assert_eq!(parse_target("s3://bkt").unwrap(), s3("bkt", ""));
        assert_eq!(parse_target("s3://bkt/").unwrap(), s3("bkt", ""));
        assert_eq!(parse_target("S3://bkt/a/b/").unwrap(), s3("bkt", "a/b/"));
        assert_eq!(
            parse_target("http://127.0.0.1:8/x").unwrap(),
            Target::Http("http://127.0.0.1:8/x".into())
        );
        assert_eq!(
            parse_target("file:///tmp/a%20b").unwrap(),
            Target::File("/tmp/a b".into())
        );
        assert_eq!(
            parse_target("rel/dir").unwrap(),
            Target::File("rel/dir".into())
        );
        for bad in [
            "",
            "s3://",
            "s3:///x",
            "s3://b?x=1",
            "s3://b/a/../c",
            "s3://b@d/x",
            "http://",
            "http://[::1/x",
            "https://h/x?q=1",
            "file://otherhost/x",
            "://x",
            "1x://y",
        ] {
            let e = parse_target(bad).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{bad}: {e}");
        }
        assert_eq!(
            parse_target("gs://bkt/a/b").unwrap(),
            Target::Gcs {
                bucket: "bkt".into(),
                prefix: "a/b/".into()
            }
        );
        let azure = |c: &str, a: Option<&str>, p: &str| Target::Azure {
            container: c.into(),
            account: a.map(Into::into),
            prefix: p.into(),
        };
        assert_eq!(parse_target("az://ctr").unwrap(), azure("ctr", None, ""));
        assert_eq!(
            parse_target("abfs://ctr/x/y").unwrap(),
            azure("ctr", None, "x/y/")
        );
        assert_eq!(
            parse_target("abfs://ctr@acct.dfs.core.windows.net/x").unwrap(),
            azure("ctr", Some("acct"), "x/")
        );
        for bad in [
            "gs://",
            "gs://b/../x",
            "az://",
            "az://c?sig=1",
            "abfs://c@/x",
            "abfs://@acct.blob.core.windows.net/x",
        ] {
            let e = parse_target(bad).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{bad}: {e}");
        }
        for unsupported in ["adl://c/x", "ftp://h/x"] {
            let e = parse_target(unsupported).unwrap_err();
            assert!(
                matches!(e, Error::Storage(StorageError::Unsupported { .. })),
                "{unsupported}: {e}"
            );
        }
    }

    // The Kerchunk reference store, end to end (here, above the array layer, which the
    // storage layer's own tests may not use).
    use crate::storage::reference::targets::OpenTargetStore;
    use crate::storage::reference::ReferenceStore;
    use crate::storage::{ReadableStorage, WritableStorage};
    use std::sync::Arc;

    /// tests/data/reference: an HDF5 file (x: 4x6 `<i4` in 2x3 chunks, shuffle and zlib;
    /// y: 5 `>f8`, contiguous; s: a scalar `<i2`) and kerchunk 0.2.10's references to it,
    /// as JSON (`refs.json`) and as Parquet (`refs.parq`, record_size 2; `inline.parq`,
    /// record_size 3 with the chunks inline in `raw`). The targets say
    /// `s3://fixture/data.h5`; the opener below serves the file from memory.
    fn kerchunk_fixture() -> (
        std::path::PathBuf,
        Box<OpenTargetStore>,
        Arc<std::sync::Mutex<u32>>,
    ) {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference");
        let data = std::fs::read(dir.join("data.h5")).unwrap();
        let opens = Arc::new(std::sync::Mutex::new(0));
        let count = opens.clone();
        let open: Box<OpenTargetStore> = Box::new(move |name: &str| {
            assert_eq!(name, "s3://fixture");
            *count.lock().unwrap() += 1;
            let store = crate::storage::MemoryStore::new();
            store.set("data.h5", &data).unwrap();
            Ok(Arc::new(store) as Arc<dyn ReadableStorage>)
        });
        (dir, open, opens)
    }

    fn check_kerchunk_values(store: Arc<dyn crate::storage::Storage>) {
        use crate::array::Array;
        let x = Array::open(store.clone(), "/x").unwrap();
        let mut out = vec![0u8; 24 * 4];
        x.read_region(&[0, 0], &[4, 6], &mut out).unwrap();
        let values: Vec<i32> = out
            .chunks(4)
            .map(|b| i32::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(values, (0..24).collect::<Vec<i32>>());
        let y = Array::open(store.clone(), "/y").unwrap();
        let mut out = vec![0u8; 5 * 8];
        y.read_region(&[0], &[5], &mut out).unwrap();
        let values: Vec<f64> = out
            .chunks(8)
            .map(|b| f64::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(values, vec![0.0, 0.5, 1.0, 1.5, 2.0]);
        let s = Array::open(store.clone(), "/s").unwrap();
        let mut out = vec![0u8; 2];
        s.read_region(&[], &[], &mut out).unwrap();
        assert_eq!(i16::from_ne_bytes([out[0], out[1]]), 7);
        let root = crate::group::Group::open(store, "/").unwrap();
        let names: Vec<String> = root
            .children()
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, vec!["s", "x", "y"]);
    }

    #[test]
    fn kerchunk_made_json_and_parquet_read_the_same_values() {
        let (dir, open, opens) = kerchunk_fixture();
        let text = std::fs::read(dir.join("refs.json")).unwrap();
        let json = ReferenceStore::from_json("refs.json", &text, open, 4).unwrap();
        assert_eq!(json.max_concurrency(), Some(4));
        check_kerchunk_values(Arc::new(json));
        assert_eq!(
            *opens.lock().unwrap(),
            1,
            "one store for every reference into the bucket"
        );
        for name in ["refs.parq", "inline.parq"] {
            let (dir, open, _) = kerchunk_fixture();
            let source = Arc::new(crate::storage::FilesystemStore::new(dir.join(name)).unwrap());
            let parquet = ReferenceStore::from_parquet(name, source, open, false, 4).unwrap();
            // Its `.zmetadata` opens as consolidated metadata, which holds every node.
            let parquet: Arc<dyn crate::storage::Storage> = Arc::new(parquet);
            let view = crate::consolidated::ConsolidatedStore::open(parquet.clone()).unwrap();
            let zarray = view.get("x/.zarray").unwrap().unwrap();
            assert!(String::from_utf8(zarray).unwrap().contains("\"zlib\""));
            check_kerchunk_values(parquet);
        }
    }

    #[test]
    fn reference_urls_open_and_refuse() {
        assert_eq!(
            strip_reference_prefix("Reference+file:///x"),
            Some("file:///x")
        );
        assert_eq!(strip_reference_prefix("file:///x"), None);
        let dir = std::env::temp_dir().join(format!("libzarr-refurl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let refs = dir.join("r.json");
        std::fs::write(&refs, br#"{".zgroup": {"zarr_format": 2}, "k": "v"}"#).unwrap();
        let url = format!("reference+file://{}", refs.display());
        let store = open_url(&url, Some(r#"{"read_only": true}"#)).unwrap();
        assert_eq!(store.get("k").unwrap().unwrap(), b"v");
        assert!(matches!(store.set("k", b"w"), Err(StorageError::ReadOnly)));
        // A plain absolute path works too.
        let store = open_url(&format!("reference+{}", refs.display()), None).unwrap();
        assert_eq!(store.get("k").unwrap().unwrap(), b"v");
        let error = |url: &str, options: Option<&str>| open_url(url, options).unwrap_err();
        for (options, expected) in [
            (r#"{"read_only": false}"#, "reference sets are read-only"),
            (
                r#"{"create": true}"#,
                "'create' does not apply to reference+file://",
            ),
            (
                r#"{"timeout_ms": 5}"#,
                "'timeout_ms' does not apply to reference+file://",
            ),
        ] {
            match error(&url, Some(options)) {
                Error::InvalidArgument(m) => assert!(m.contains(expected), "{m}"),
                other => panic!("{options}: {other}"),
            }
        }
        let missing = format!("reference+file://{}", dir.join("none.json").display());
        assert!(matches!(error(&missing, None), Error::NotFound(m) if m.contains("none.json")));
        assert!(matches!(
            error("reference+gs://b/r.json", None),
            Error::Storage(StorageError::Unsupported { .. })
        ));
        assert!(matches!(
            error("reference+rel/r.json", None),
            Error::InvalidArgument(m) if m.contains("reference set is named by a URL")
        ));
        // A local directory is a Parquet reference set: kerchunk's, from the fixtures.
        let parq =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/refs.parq");
        let store = open_url(&format!("reference+file://{}", parq.display()), None).unwrap();
        let zarray = store.get("x/.zarray").unwrap().unwrap();
        assert!(String::from_utf8(zarray).unwrap().contains("\"shuffle\""));
        assert_eq!(
            store.list_dir("").unwrap().prefixes,
            vec!["s".to_string(), "x".to_string(), "y".to_string()]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
