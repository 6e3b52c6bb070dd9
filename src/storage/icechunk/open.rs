//! Opening an Icechunk repository: its storage (a local directory or an object store
//! bucket), the repository itself (created when asked), and the version the handle reads.

use super::store::IcechunkStore;
use crate::storage::remote::{credentials, OpenError, UrlOptions};
use crate::storage::StorageError;
use icechunk::config::Credentials;
use icechunk::format::format_constants::SpecVersionBin;
use icechunk::format::SnapshotId;
use icechunk::refs::RefErrorKind;
use icechunk::repository::{RepositoryErrorKind, VersionInfo};
use icechunk::storage::{
    AzureCredentials, AzureStaticCredentials, GcsBearerCredential, GcsCredentials,
    GcsStaticCredentials, ICError, S3Credentials, S3Options, S3StaticCredentials,
};
use icechunk::{Repository, Storage};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Where the repository's objects are (the URL without its `icechunk+`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A local directory.
    File(PathBuf),
    /// An S3 (or S3-compatible) bucket and the key prefix ("" or ending in `/`).
    S3 { bucket: String, prefix: String },
    /// A Google Cloud Storage bucket and prefix.
    Gcs { bucket: String, prefix: String },
    /// An Azure Blob container, its account when the URL names it, and the prefix.
    Azure {
        container: String,
        account: Option<String>,
        prefix: String,
    },
}

/// The version a handle opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenedVersion {
    /// The tip of a branch; writable unless the store was opened read-only.
    Branch(String),
    /// A tag (read-only).
    Tag(String),
    /// A snapshot by its id (read-only).
    Snapshot(String),
}

impl OpenedVersion {
    /// "branch main", "tag v1", "snapshot ID": for messages.
    pub fn describe(&self) -> String {
        match self {
            OpenedVersion::Branch(name) => format!("branch {name}"),
            OpenedVersion::Tag(name) => format!("tag {name}"),
            OpenedVersion::Snapshot(id) => format!("snapshot {id}"),
        }
    }
}

/// The message of an Icechunk error, without the span trace its `Display` appends.
pub(crate) fn message<E: std::fmt::Display>(error: &ICError<E>) -> String {
    error.kind().to_string()
}

/// Open (or with `create`, create) the repository at `location` and the version the
/// options pick. `url` is the URL as given, for messages.
pub fn open(
    location: Location,
    url: &str,
    options: &UrlOptions,
) -> Result<IcechunkStore, OpenError> {
    let version = match (&options.branch, &options.tag, &options.snapshot) {
        (None, None, None) => OpenedVersion::Branch("main".to_string()),
        (Some(branch), None, None) => OpenedVersion::Branch(branch.clone()),
        (None, Some(tag), None) => OpenedVersion::Tag(tag.clone()),
        (None, None, Some(id)) => OpenedVersion::Snapshot(id.clone()),
        _ => {
            return Err(OpenError::InvalidArgument(
                "options 'branch', 'tag' and 'snapshot' contradict each other (give at most \
                 one: the version to open)"
                    .to_string(),
            ))
        }
    };
    let snapshot_id = match &version {
        OpenedVersion::Snapshot(id) => Some(SnapshotId::try_from(id.as_str()).map_err(|e| {
            OpenError::InvalidArgument(format!(
                "option 'snapshot': '{id}' is not an Icechunk snapshot id ({e})"
            ))
        })?),
        _ => None,
    };
    let create = options.create == Some(true);
    if create && !matches!(version, OpenedVersion::Branch(_)) {
        return Err(OpenError::InvalidArgument(
            "option 'create': true cannot apply to a tag or snapshot (a new repository has \
             only the branch main)"
                .to_string(),
        ));
    }
    let writable = options.read_only != Some(true) && matches!(version, OpenedVersion::Branch(_));
    let authorized = virtual_chunk_access(options)?;
    let io_error = |e: std::io::Error| {
        OpenError::Storage(StorageError::Io {
            key: url.to_string(),
            source: e,
        })
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("zarr-icechunk")
        .enable_all()
        .build()
        .map_err(io_error)?;
    let repo_error = |e: String| {
        OpenError::Storage(StorageError::Repository {
            location: format!("the Icechunk repository at {url}"),
            message: e,
        })
    };

    if let Location::File(path) = &location {
        if !path.is_dir() {
            if path.exists() {
                return Err(OpenError::InvalidArgument(format!(
                    "cannot open '{url}': '{}' is not a directory",
                    path.display()
                )));
            }
            if !create {
                return Err(OpenError::NotFound(format!(
                    "no Icechunk repository at '{url}': the directory '{}' does not exist ({})",
                    path.display(),
                    create_hint(options)
                )));
            }
            std::fs::create_dir_all(path).map_err(io_error)?;
        }
    }
    // Creating a repository draws its first snapshot's id (see reseed_ids_after_fork).
    super::store::reseed_ids_after_fork();
    let storage = storage_for(&location, url, options, &runtime)?;

    let repository = runtime.block_on(async {
        let exists = Repository::exists(Arc::clone(&storage), None)
            .await
            .map_err(|e| repo_error(message(&e)))?;
        if !exists {
            if !create {
                return Err(OpenError::NotFound(format!(
                    "no Icechunk repository at '{url}' ({})",
                    create_hint(options)
                )));
            }
            // A new repository is spec version 2 (what Icechunk 2.x writes); both
            // versions open below.
            Repository::create(Arc::clone(&storage))
                .spec_version(SpecVersionBin::V2)
                .authorize_virtual_chunk_access(authorized.clone())
                .execute()
                .await
                .map_err(|e| repo_error(message(&e)))
        } else {
            Repository::open(Arc::clone(&storage))
                .authorize_virtual_chunk_access(authorized.clone())
                .execute()
                .await
                .map_err(|e| repo_error(message(&e)))
        }
    })?;

    let not_found = |what: String| {
        OpenError::NotFound(format!(
            "{what} does not exist in the Icechunk repository at '{url}'"
        ))
    };
    let session = runtime.block_on(async {
        let result = match &version {
            OpenedVersion::Branch(branch) if writable => repository.writable_session(branch).await,
            OpenedVersion::Branch(branch) => {
                repository
                    .readonly_session(&VersionInfo::BranchTipRef(branch.clone()))
                    .await
            }
            OpenedVersion::Tag(tag) => {
                repository
                    .readonly_session(&VersionInfo::TagRef(tag.clone()))
                    .await
            }
            OpenedVersion::Snapshot(_) => {
                let id = snapshot_id.clone().expect("parsed above");
                repository
                    .readonly_session(&VersionInfo::SnapshotId(id))
                    .await
            }
        };
        result.map_err(|e| match e.kind() {
            RepositoryErrorKind::Ref(RefErrorKind::RefNotFound(_))
            | RepositoryErrorKind::SnapshotNotFound { .. } => not_found(version.describe()),
            // A snapshot id that names no snapshot comes as a format or storage error
            // ("snapshot id not found", a missing object), depending on the spec version.
            _ if is_missing_object(&message(&e)) => not_found(version.describe()),
            _ => repo_error(format!(
                "cannot open {}: {}",
                version.describe(),
                message(&e)
            )),
        })
    })?;
    Ok(IcechunkStore::new(
        runtime,
        repository,
        session,
        url.to_string(),
        version,
        match &location {
            Location::File(path) => Some(path.clone()),
            _ => None,
        },
    ))
}

/// Whether an Icechunk error says the object is not there (a snapshot that does not
/// exist).
fn is_missing_object(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("not found") || lower.contains("no such file")
}

fn create_hint(options: &UrlOptions) -> &'static str {
    if options.read_only == Some(true) {
        "a read-only store cannot create one"
    } else {
        "the option \"create\": true creates one"
    }
}

/// The virtual chunk containers the handle may read from (option
/// `virtual_chunk_prefixes`), each with the credential its kind of location takes.
fn virtual_chunk_access(
    options: &UrlOptions,
) -> Result<HashMap<String, Option<Credentials>>, OpenError> {
    let mut authorized = HashMap::new();
    for prefix in options.virtual_chunk_prefixes.iter().flatten() {
        let scheme = prefix
            .split_once("://")
            .map(|(s, _)| s.to_ascii_lowercase());
        let credential = match scheme.as_deref() {
            Some("file") => Credentials::LocalFileSystemAccess,
            Some("http" | "https") => Credentials::HttpAccess,
            Some("s3") => Credentials::S3(S3Credentials::FromEnv),
            Some("gs" | "gcs") => Credentials::Gcs(GcsCredentials::FromEnv),
            Some("az" | "azure" | "abfs") => Credentials::Azure(AzureCredentials::FromEnv),
            _ => {
                return Err(OpenError::InvalidArgument(format!(
                    "option 'virtual_chunk_prefixes': '{prefix}' is not a URL prefix of \
                     file://, s3://, gs://, az://, http:// or https://"
                )))
            }
        };
        authorized.insert(prefix.clone(), Some(credential));
    }
    Ok(authorized)
}

/// `prefix` without its trailing `/`, or `None` for the bucket's root.
fn object_prefix(prefix: &str) -> Option<String> {
    let trimmed = prefix.trim_end_matches('/');
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// The Icechunk storage of `location` (`url`, for messages), configured from the options.
fn storage_for(
    location: &Location,
    url: &str,
    options: &UrlOptions,
    runtime: &tokio::runtime::Runtime,
) -> Result<Arc<dyn Storage + Send + Sync>, OpenError> {
    let failed = |e: icechunk::storage::StorageError| {
        OpenError::Storage(StorageError::Repository {
            location: format!("the Icechunk repository at {url}"),
            message: message(&e),
        })
    };
    match location {
        Location::File(path) => runtime
            .block_on(icechunk::storage::new_local_filesystem_storage(path))
            .map_err(failed),
        Location::S3 { bucket, prefix } => {
            let settings = credentials::resolve(options, &credentials::process_env)
                .map_err(OpenError::InvalidArgument)?;
            let credential = if options.anonymous == Some(true) {
                S3Credentials::Anonymous
            } else {
                match settings.credentials {
                    credentials::CredentialSource::Anonymous => S3Credentials::Anonymous,
                    credentials::CredentialSource::Static(keys, _) => {
                        S3Credentials::Static(S3StaticCredentials {
                            access_key_id: keys.key().to_string(),
                            secret_access_key: keys.secret().to_string(),
                            session_token: keys.token().map(str::to_string),
                            expires_after: None,
                        })
                    }
                    credentials::CredentialSource::Instance(_) => S3Credentials::FromEnv,
                }
            };
            let endpoint = settings.endpoint.clone();
            // Non-exhaustive: set field by field on the defaults.
            let mut config = S3Options::default();
            config.region = Some(settings.region.clone());
            config.allow_http = endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://"));
            config.force_path_style = options.force_path_style.unwrap_or(endpoint.is_some());
            config.endpoint_url = endpoint;
            config.anonymous = matches!(credential, S3Credentials::Anonymous);
            config.network_stream_timeout_seconds = options
                .timeout_ms
                .map(|ms| u32::try_from(ms.div_ceil(1000)).unwrap_or(u32::MAX));
            runtime
                .block_on(icechunk::storage::new_s3_object_store_storage(
                    config,
                    bucket.clone(),
                    object_prefix(prefix),
                    Some(credential),
                    Vec::new(),
                    Vec::new(),
                ))
                .map_err(failed)
        }
        Location::Gcs { bucket, prefix } => {
            let credential = if options.anonymous == Some(true) {
                GcsCredentials::Anonymous
            } else if let Some(path) = &options.service_account_path {
                GcsCredentials::Static(GcsStaticCredentials::ServiceAccount(PathBuf::from(path)))
            } else if let Some(token) = &options.token {
                GcsCredentials::Static(GcsStaticCredentials::BearerToken(GcsBearerCredential {
                    bearer: token.clone(),
                    expires_after: None,
                }))
            } else {
                GcsCredentials::FromEnv
            };
            let mut config = HashMap::new();
            if let Some(endpoint) = &options.endpoint {
                config.insert("google_base_url".to_string(), endpoint.clone());
                if endpoint.starts_with("http://") {
                    config.insert("allow_http".to_string(), "true".to_string());
                }
            }
            let _guard = runtime.enter();
            icechunk::storage::new_gcs_storage(
                bucket.clone(),
                object_prefix(prefix),
                Some(credential),
                Some(config),
                Vec::new(),
                Vec::new(),
            )
            .map_err(failed)
        }
        Location::Azure {
            container,
            account,
            prefix,
        } => {
            let account = options
                .account_name
                .clone()
                .or_else(|| account.clone())
                .ok_or_else(|| {
                    OpenError::InvalidArgument(
                        "icechunk+az:// needs the storage account: the option 'account_name' \
                         or a URL of the form container@account.blob.core.windows.net"
                            .to_string(),
                    )
                })?;
            let credential = if options.anonymous == Some(true) {
                AzureCredentials::Anonymous
            } else if let Some(key) = &options.account_key {
                AzureCredentials::Static(AzureStaticCredentials::AccessKey(key.clone()))
            } else if let Some(sas) = &options.sas_token {
                AzureCredentials::Static(AzureStaticCredentials::SASToken(
                    sas.trim_start_matches('?').to_string(),
                ))
            } else {
                AzureCredentials::FromEnv
            };
            let mut config = HashMap::new();
            if let Some(endpoint) = &options.endpoint {
                config.insert("azure_endpoint".to_string(), endpoint.clone());
                if endpoint.starts_with("http://") {
                    config.insert("azure_allow_http".to_string(), "true".to_string());
                }
            }
            runtime
                .block_on(icechunk::storage::new_azure_blob_storage(
                    account,
                    container.clone(),
                    object_prefix(prefix),
                    Some(credential),
                    Some(config),
                ))
                .map_err(failed)
        }
    }
}
