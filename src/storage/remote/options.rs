//! The options of `zarr_store_open_url`: a JSON object whose keys are checked by name,
//! by JSON type and by whether they apply to the URL's scheme.

use crate::metadata::json::kind_of;
use serde_json::{Map, Value};

/// Requests in flight per call (and connections kept per store) when `max_concurrency`
/// is not given: enough to hide a round trip of tens of milliseconds behind the transfer
/// of typical chunks, few enough for a small server.
pub const DEFAULT_MAX_CONCURRENCY: usize = 32;
/// Per-request inactivity timeout when `timeout_ms` is not given: connecting, and each
/// wait for bytes to send or receive, may take this long before the attempt fails.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Retries of one request when `max_retries` is not given.
pub const DEFAULT_MAX_RETRIES: u32 = 8;

const MAX_CONCURRENCY_LIMIT: u64 = 1024;
const TIMEOUT_LIMIT_MS: u64 = 3_600_000;
const RETRIES_LIMIT: u64 = 100;
const UPDATE_ATTEMPTS_LIMIT: u64 = 1000;

/// The kind of store a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `s3://bucket/prefix`
    S3,
    /// `http://` or `https://`
    Http,
    /// A local path or `file://`
    File,
    /// `gs://bucket/prefix` (Google Cloud Storage)
    Gcs,
    /// `az://container/prefix` or `abfs://container/prefix` (Azure Blob Storage)
    Azure,
    /// `icechunk+file:///abs/path`: an Icechunk repository in a local directory
    IcechunkFile,
    /// `icechunk+s3://bucket/prefix`
    IcechunkS3,
    /// `icechunk+gs://bucket/prefix`
    IcechunkGcs,
    /// `icechunk+az://container/prefix`
    IcechunkAzure,
    /// `reference+file:///abs/refs.json`: a Kerchunk reference set in a local file or
    /// directory (read-only)
    ReferenceFile,
    /// `reference+s3://bucket/refs.json`: a Kerchunk reference set on S3 (its options
    /// also apply to the S3 targets of its references)
    ReferenceS3,
    /// `reference+http(s)://host/refs.json`: a Kerchunk reference set on an HTTP server
    /// (its options also apply to the HTTP targets of its references)
    ReferenceHttp,
}

/// The remote object stores: what most remote options apply to.
const OBJECT_STORES: &[Scheme] = &[Scheme::S3, Scheme::Gcs, Scheme::Azure];
/// Every Icechunk repository, wherever it is.
const ICECHUNK: &[Scheme] = &[
    Scheme::IcechunkFile,
    Scheme::IcechunkS3,
    Scheme::IcechunkGcs,
    Scheme::IcechunkAzure,
];
/// Where an object store's endpoint and anonymous access apply: the object stores, the
/// reference sets on S3 (their S3 targets too) and the Icechunk repositories on them.
const OBJECT_STORES_EVERYWHERE: &[Scheme] = &[
    Scheme::S3,
    Scheme::Gcs,
    Scheme::Azure,
    Scheme::ReferenceS3,
    Scheme::IcechunkS3,
    Scheme::IcechunkGcs,
    Scheme::IcechunkAzure,
];
/// Where the S3 options apply: S3, the reference sets on S3 (and their S3 targets), the
/// Icechunk repositories on S3.
const S3_EVERYWHERE: &[Scheme] = &[Scheme::S3, Scheme::ReferenceS3, Scheme::IcechunkS3];
/// Where the GCS options apply.
const GCS_EVERYWHERE: &[Scheme] = &[Scheme::Gcs, Scheme::IcechunkGcs];
/// Where the Azure options apply.
const AZURE_EVERYWHERE: &[Scheme] = &[Scheme::Azure, Scheme::IcechunkAzure];
/// Every remote store, HTTP included, and the reference sets on remote stores: a local
/// reference set's remote targets get the default options.
const REMOTE_AND_REFERENCES: &[Scheme] = &[
    Scheme::S3,
    Scheme::Gcs,
    Scheme::Azure,
    Scheme::Http,
    Scheme::ReferenceS3,
    Scheme::ReferenceHttp,
];

impl Scheme {
    fn describe(self) -> &'static str {
        match self {
            Scheme::S3 => "s3:// URLs",
            Scheme::Http => "http(s):// URLs",
            Scheme::File => "local paths and file:// URLs",
            Scheme::Gcs => "gs:// URLs",
            Scheme::Azure => "az:// and abfs:// URLs",
            Scheme::IcechunkFile => "icechunk+file:// URLs",
            Scheme::IcechunkS3 => "icechunk+s3:// URLs",
            Scheme::IcechunkGcs => "icechunk+gs:// URLs",
            Scheme::IcechunkAzure => "icechunk+az:// URLs",
            Scheme::ReferenceFile => "reference+file:// URLs",
            Scheme::ReferenceS3 => "reference+s3:// URLs",
            Scheme::ReferenceHttp => "reference+http(s):// URLs",
        }
    }
}

/// The options given to `zarr_store_open_url`; `None` is "not given".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlOptions {
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub anonymous: Option<bool>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub session_token: Option<String>,
    /// GCS: a service-account JSON key file.
    pub service_account_path: Option<String>,
    /// GCS: an OAuth2 bearer token the caller already has.
    pub token: Option<String>,
    /// Azure: the storage account.
    pub account_name: Option<String>,
    /// Azure: the account's Shared Key (base64).
    pub account_key: Option<String>,
    /// Azure: a shared access signature (a query string, with or without its `?`).
    pub sas_token: Option<String>,
    pub profile: Option<String>,
    pub force_path_style: Option<bool>,
    pub max_concurrency: Option<usize>,
    pub timeout_ms: Option<u64>,
    pub max_retries: Option<u32>,
    pub read_only: Option<bool>,
    /// Local paths and S3: create the directory or bucket when it does not exist (opening
    /// one that does not exist fails otherwise).
    pub create: Option<bool>,
    /// File system stores: fsync every write and its directory before returning.
    pub fsync: Option<bool>,
    /// File system stores: follow symbolic links below the root wherever they lead.
    pub follow_symlinks: Option<bool>,
    /// File system stores: lock a key across processes while part of its chunk is updated.
    pub locking: Option<bool>,
    /// S3 stores: update part of a chunk with conditional writes (`If-Match`).
    pub conditional_writes: Option<bool>,
    /// S3 stores: how many times such an update tries before giving up on a conflict.
    pub update_attempts: Option<u32>,
    /// Icechunk: the branch to open (writable; `main` when no version is given).
    pub branch: Option<String>,
    /// Icechunk: the tag to open (read-only).
    pub tag: Option<String>,
    /// Icechunk: the snapshot to open, by id (read-only).
    pub snapshot: Option<String>,
    /// Icechunk: URL prefixes whose virtual chunks may be read.
    pub virtual_chunk_prefixes: Option<Vec<String>>,
}

#[derive(Clone, Copy)]
enum Kind {
    String,
    /// An array of strings.
    Strings,
    Bool,
    /// An integer in `min..=max`.
    Integer(u64, u64),
}

/// Every key: its JSON kind and the schemes it applies to.
const KEYS: &[(&str, Kind, &[Scheme])] = &[
    ("endpoint", Kind::String, OBJECT_STORES_EVERYWHERE),
    ("region", Kind::String, S3_EVERYWHERE),
    ("anonymous", Kind::Bool, OBJECT_STORES_EVERYWHERE),
    ("access_key_id", Kind::String, S3_EVERYWHERE),
    ("secret_access_key", Kind::String, S3_EVERYWHERE),
    ("session_token", Kind::String, S3_EVERYWHERE),
    ("profile", Kind::String, S3_EVERYWHERE),
    ("force_path_style", Kind::Bool, S3_EVERYWHERE),
    ("service_account_path", Kind::String, GCS_EVERYWHERE),
    ("token", Kind::String, GCS_EVERYWHERE),
    ("account_name", Kind::String, AZURE_EVERYWHERE),
    ("account_key", Kind::String, AZURE_EVERYWHERE),
    ("sas_token", Kind::String, AZURE_EVERYWHERE),
    (
        "max_concurrency",
        Kind::Integer(1, MAX_CONCURRENCY_LIMIT),
        REMOTE_AND_REFERENCES,
    ),
    (
        "timeout_ms",
        Kind::Integer(1, TIMEOUT_LIMIT_MS),
        &[
            Scheme::S3,
            Scheme::Gcs,
            Scheme::Azure,
            Scheme::Http,
            Scheme::ReferenceS3,
            Scheme::ReferenceHttp,
            Scheme::IcechunkS3,
        ],
    ),
    (
        "max_retries",
        Kind::Integer(0, RETRIES_LIMIT),
        REMOTE_AND_REFERENCES,
    ),
    (
        "read_only",
        Kind::Bool,
        &[
            Scheme::S3,
            Scheme::Gcs,
            Scheme::Azure,
            Scheme::Http,
            Scheme::File,
            Scheme::ReferenceFile,
            Scheme::ReferenceS3,
            Scheme::ReferenceHttp,
            Scheme::IcechunkFile,
            Scheme::IcechunkS3,
            Scheme::IcechunkGcs,
            Scheme::IcechunkAzure,
        ],
    ),
    (
        "create",
        Kind::Bool,
        &[
            Scheme::S3,
            Scheme::File,
            Scheme::IcechunkFile,
            Scheme::IcechunkS3,
            Scheme::IcechunkGcs,
            Scheme::IcechunkAzure,
        ],
    ),
    ("fsync", Kind::Bool, &[Scheme::File]),
    ("follow_symlinks", Kind::Bool, &[Scheme::File]),
    ("locking", Kind::Bool, &[Scheme::File]),
    ("conditional_writes", Kind::Bool, OBJECT_STORES),
    (
        "update_attempts",
        Kind::Integer(1, UPDATE_ATTEMPTS_LIMIT),
        OBJECT_STORES,
    ),
    ("branch", Kind::String, ICECHUNK),
    ("tag", Kind::String, ICECHUNK),
    ("snapshot", Kind::String, ICECHUNK),
    ("virtual_chunk_prefixes", Kind::Strings, ICECHUNK),
];

impl UrlOptions {
    /// Parse `json` (an object) for a URL of `scheme`. The message of an error names the
    /// offending key.
    pub fn parse(json: &str, scheme: Scheme) -> Result<UrlOptions, String> {
        let value: Value = serde_json::from_str(json)
            .map_err(|e| format!("options_json is not valid JSON: {e}"))?;
        let Value::Object(object) = value else {
            return Err("options_json must be a JSON object".to_string());
        };
        UrlOptions::from_object(&object, scheme)
    }

    fn from_object(object: &Map<String, Value>, scheme: Scheme) -> Result<UrlOptions, String> {
        let mut options = UrlOptions::default();
        for (key, value) in object {
            let Some(&(name, kind, schemes)) = KEYS.iter().find(|(name, ..)| name == key) else {
                let known: Vec<&str> = KEYS.iter().map(|(name, ..)| *name).collect();
                return Err(format!(
                    "unknown option '{key}' (known options: {})",
                    known.join(", ")
                ));
            };
            if !schemes.contains(&scheme) {
                return Err(format!(
                    "option '{name}' does not apply to {}",
                    scheme.describe()
                ));
            }
            let wrong_type = |expected: &str| {
                format!("option '{name}' must be {expected}, not {}", kind_of(value))
            };
            match kind {
                Kind::String => {
                    let text = value.as_str().ok_or_else(|| wrong_type("a string"))?;
                    let text = Some(text.to_string());
                    match name {
                        "endpoint" => options.endpoint = text,
                        "region" => options.region = text,
                        "access_key_id" => options.access_key_id = text,
                        "secret_access_key" => options.secret_access_key = text,
                        "session_token" => options.session_token = text,
                        "profile" => options.profile = text,
                        "service_account_path" => options.service_account_path = text,
                        "token" => options.token = text,
                        "account_name" => options.account_name = text,
                        "account_key" => options.account_key = text,
                        "sas_token" => options.sas_token = text,
                        "branch" => options.branch = text,
                        "tag" => options.tag = text,
                        "snapshot" => options.snapshot = text,
                        _ => unreachable!("every string option is listed"),
                    }
                }
                Kind::Strings => {
                    let items = value
                        .as_array()
                        .ok_or_else(|| wrong_type("an array of strings"))?;
                    let mut texts = Vec::with_capacity(items.len());
                    for item in items {
                        let text = item.as_str().ok_or_else(|| {
                            format!(
                                "option '{name}' must be an array of strings, not an array \
                                 holding {}",
                                kind_of(item)
                            )
                        })?;
                        texts.push(text.to_string());
                    }
                    match name {
                        "virtual_chunk_prefixes" => options.virtual_chunk_prefixes = Some(texts),
                        _ => unreachable!("every string-array option is listed"),
                    }
                }
                Kind::Bool => {
                    let flag = Some(value.as_bool().ok_or_else(|| wrong_type("true or false"))?);
                    match name {
                        "anonymous" => options.anonymous = flag,
                        "force_path_style" => options.force_path_style = flag,
                        "read_only" => options.read_only = flag,
                        "create" => options.create = flag,
                        "fsync" => options.fsync = flag,
                        "follow_symlinks" => options.follow_symlinks = flag,
                        "locking" => options.locking = flag,
                        "conditional_writes" => options.conditional_writes = flag,
                        _ => unreachable!("every boolean option is listed"),
                    }
                }
                Kind::Integer(min, max) => {
                    let expected = format!("an integer from {min} to {max}");
                    let number = value
                        .as_u64()
                        .filter(|n| (min..=max).contains(n))
                        .ok_or_else(|| match value {
                            Value::Number(n) => {
                                format!("option '{name}' must be {expected}, not {n}")
                            }
                            _ => wrong_type(&expected),
                        })?;
                    match name {
                        // Fits: the limits are far below u32::MAX.
                        "max_concurrency" => options.max_concurrency = Some(number as usize),
                        "timeout_ms" => options.timeout_ms = Some(number),
                        "max_retries" => options.max_retries = Some(number as u32),
                        "update_attempts" => options.update_attempts = Some(number as u32),
                        _ => unreachable!("every integer option is listed"),
                    }
                }
            }
        }
        options.check_combinations()?;
        Ok(options)
    }

    /// Options that contradict each other.
    fn check_combinations(&self) -> Result<(), String> {
        let has_key = self.access_key_id.is_some();
        let has_secret = self.secret_access_key.is_some();
        if has_key != has_secret {
            return Err(
                "options 'access_key_id' and 'secret_access_key' must be given together"
                    .to_string(),
            );
        }
        if self.conditional_writes == Some(false) && self.update_attempts.is_some() {
            return Err(
                "option 'update_attempts' cannot apply: 'conditional_writes' is false".to_string(),
            );
        }
        if self.create == Some(true) && self.read_only == Some(true) {
            return Err(
                "options 'create': true and 'read_only': true contradict each other".to_string(),
            );
        }
        if self.session_token.is_some() && !has_key {
            return Err(
                "option 'session_token' needs 'access_key_id' and 'secret_access_key'".to_string(),
            );
        }
        if self.service_account_path.is_some() && self.token.is_some() {
            return Err(
                "options 'service_account_path' and 'token' contradict each other (give one \
                 credential)"
                    .to_string(),
            );
        }
        if self.account_key.is_some() && self.sas_token.is_some() {
            return Err(
                "options 'account_key' and 'sas_token' contradict each other (give one \
                 credential)"
                    .to_string(),
            );
        }
        if self.anonymous == Some(true) {
            for (given, name) in [
                (has_key, "access_key_id"),
                (self.profile.is_some(), "profile"),
                (self.service_account_path.is_some(), "service_account_path"),
                (self.token.is_some(), "token"),
                (self.account_key.is_some(), "account_key"),
                (self.sas_token.is_some(), "sas_token"),
            ] {
                if given {
                    return Err(format!(
                        "options 'anonymous': true and '{name}' contradict each other"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Requests in flight per call.
    pub fn max_concurrency(&self) -> usize {
        self.max_concurrency.unwrap_or(DEFAULT_MAX_CONCURRENCY)
    }

    /// Per-request inactivity timeout.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    /// Retries of one request.
    pub fn max_retries(&self) -> u32 {
        self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses() {
        let json = r#"{"endpoint": "http://127.0.0.1:9000", "region": "eu-west-1",
            "anonymous": false, "access_key_id": "AK", "secret_access_key": "SK",
            "session_token": "T", "profile": "p", "force_path_style": true,
            "max_concurrency": 4, "timeout_ms": 1500, "max_retries": 0, "read_only": true}"#;
        let o = UrlOptions::parse(json, Scheme::S3).unwrap();
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(o.region.as_deref(), Some("eu-west-1"));
        assert_eq!(o.anonymous, Some(false));
        assert_eq!(o.session_token.as_deref(), Some("T"));
        assert_eq!(o.force_path_style, Some(true));
        assert_eq!(o.max_concurrency(), 4);
        assert_eq!(o.timeout().as_millis(), 1500);
        assert_eq!(o.max_retries(), 0);
        assert_eq!(o.read_only, Some(true));
        let d = UrlOptions::parse("{}", Scheme::Http).unwrap();
        assert_eq!(d, UrlOptions::default());
        assert_eq!(d.max_concurrency(), DEFAULT_MAX_CONCURRENCY);
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            (r#"{"bogus": 1}"#, Scheme::S3, "unknown option 'bogus'"),
            (
                r#"{"region": 3}"#,
                Scheme::S3,
                "'region' must be a string, not a number",
            ),
            (
                r#"{"anonymous": "yes"}"#,
                Scheme::S3,
                "'anonymous' must be true or false",
            ),
            (
                r#"{"max_concurrency": 0}"#,
                Scheme::S3,
                "'max_concurrency' must be an integer from 1",
            ),
            (
                r#"{"max_concurrency": 2.5}"#,
                Scheme::S3,
                "'max_concurrency' must be",
            ),
            (r#"{"timeout_ms": -1}"#, Scheme::S3, "'timeout_ms' must be"),
            (
                r#"{"max_retries": "3"}"#,
                Scheme::Http,
                "'max_retries' must be an integer",
            ),
            (
                r#"{"region": "x"}"#,
                Scheme::Http,
                "'region' does not apply to http(s)://",
            ),
            (
                r#"{"timeout_ms": 5}"#,
                Scheme::File,
                "'timeout_ms' does not apply to local",
            ),
            (
                r#"{"access_key_id": "a"}"#,
                Scheme::S3,
                "must be given together",
            ),
            (
                r#"{"session_token": "a"}"#,
                Scheme::S3,
                "'session_token' needs",
            ),
            (
                r#"{"anonymous": true, "profile": "p"}"#,
                Scheme::S3,
                "contradict",
            ),
            (
                r#"{"create": true, "read_only": true}"#,
                Scheme::File,
                "'create': true and 'read_only': true contradict",
            ),
            (
                r#"{"create": true}"#,
                Scheme::Http,
                "'create' does not apply to http(s)://",
            ),
            ("[1]", Scheme::S3, "must be a JSON object"),
            ("{", Scheme::S3, "not valid JSON"),
        ];
        for (json, scheme, expected) in cases {
            let message = UrlOptions::parse(json, scheme).unwrap_err();
            assert!(message.contains(expected), "{json}: {message}");
        }
    }

    #[test]
    fn reference_schemes_take_their_stores_options() {
        let s3 = r#"{"endpoint": "http://127.0.0.1:9", "access_key_id": "a",
            "secret_access_key": "b", "region": "r", "max_concurrency": 3, "read_only": true}"#;
        let o = UrlOptions::parse(s3, Scheme::ReferenceS3).unwrap();
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(o.max_concurrency(), 3);
        let http = r#"{"timeout_ms": 10, "max_retries": 1, "read_only": true}"#;
        assert!(UrlOptions::parse(http, Scheme::ReferenceHttp).is_ok());
        assert!(UrlOptions::parse(r#"{"read_only": true}"#, Scheme::ReferenceFile).is_ok());
        for (json, scheme) in [
            (r#"{"endpoint": "x"}"#, Scheme::ReferenceHttp),
            (r#"{"timeout_ms": 10}"#, Scheme::ReferenceFile),
            (r#"{"create": true}"#, Scheme::ReferenceS3),
            (r#"{"conditional_writes": true}"#, Scheme::ReferenceS3),
            (r#"{"fsync": true}"#, Scheme::ReferenceFile),
            (r#"{"token": "t"}"#, Scheme::ReferenceS3),
        ] {
            let message = UrlOptions::parse(json, scheme).unwrap_err();
            assert!(
                message.contains("does not apply to reference+"),
                "{json}: {message}"
            );
        }
    }
}
