//! A store in Azure Blob Storage (`az://container/prefix`, `abfs://container/prefix`):
//! keys are block blobs under `container/prefix/`. Requests are made by the
//! `object_store` crate's Azure client (Shared Key or SAS signing, retries, block
//! uploads); each store owns a small tokio runtime that drives it, and every method
//! blocks on it. The runtime is never exposed: the traits stay synchronous.
//!
//! Credentials come from the options first, then from the environment
//! ([`resolve`], which reads it through a lookup function so that tests need not touch
//! the process environment), and without any the store is anonymous.

use super::conditional::{self, ConditionalStore, DEFAULT_UPDATE_ATTEMPTS};
use super::credentials::{process_env, EnvLookup};
use super::error::{RemoteError, RemoteErrorKind};
use super::http::{status_failure, transport_failure, Client, ClientConfig, Method as HttpMethod};
use super::OpenError;
use super::UrlOptions;
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, Merge, RangesRead,
    ReadableStorage, Storage, StorageError, UpdateError, UpdateProtection, WritableStorage,
};
use futures_util::StreamExt;
use object_store::azure::{MicrosoftAzure, MicrosoftAzureBuilder};
use object_store::client::{HttpError, HttpErrorKind};
use object_store::path::Path;
use object_store::signer::Signer;
use object_store::{
    BackoffConfig, ClientOptions, GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutMode,
    PutOptions, PutPayload, RetryConfig, UpdateVersion, WriteMultipart,
};
use std::sync::Arc;
use std::time::Duration;

/// Values larger than this are written as blocks (Put Block, then Put Block List).
pub const MULTIPART_THRESHOLD: usize = 16 << 20;
/// Size of each block of such an upload.
pub const PART_SIZE: usize = 8 << 20;
/// The first wait after a lost race of an update; it doubles with each, up to
/// [`MAX_CONFLICT_BACKOFF`], and a random part of it is waited (as the S3 store does).
/// Azurite's well-known development account and key (public, documented by Microsoft).
pub const DEVELOPMENT_ACCOUNT: &str = "devstoreaccount1";
pub const DEVELOPMENT_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const DEVELOPMENT_ENDPOINT: &str = "http://127.0.0.1:10000/devstoreaccount1";

/// The credential a store signs its requests with.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// Shared Key: the account's base64 key.
    SharedKey(String),
    /// A shared access signature: its query pairs.
    Sas(Vec<(String, String)>),
    /// No signature.
    Anonymous,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret itself.
        f.write_str(match self {
            Credential::SharedKey(_) => "SharedKey(..)",
            Credential::Sas(_) => "Sas(..)",
            Credential::Anonymous => "Anonymous",
        })
    }
}

/// Where an Azure store is and how it signs: what [`resolve`] finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub account: String,
    /// The blob service's URL, without a trailing `/` (with Azurite it ends in the
    /// account: `http://127.0.0.1:10000/devstoreaccount1`).
    pub endpoint: String,
    pub credential: Credential,
    /// What the credential is and where it came from, for messages: "Shared Key of
    /// account 'x' from option 'account_key'".
    pub origin: String,
}

/// The fields of an Azure Storage connection string (`Key=Value;...`) that matter here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnectionString {
    pub account_name: Option<String>,
    pub account_key: Option<String>,
    pub blob_endpoint: Option<String>,
    pub sas: Option<String>,
    pub protocol: Option<String>,
    pub endpoint_suffix: Option<String>,
    pub development: bool,
}

impl ConnectionString {
    /// Parse `text`: `;`-separated `Key=Value` pairs (keys case-insensitive; a value may
    /// hold `=`, as base64 keys and SAS tokens do). Unknown keys are ignored; a part
    /// without `=` is an error.
    pub fn parse(text: &str) -> Result<ConnectionString, String> {
        let mut parsed = ConnectionString::default();
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!(
                    "AZURE_STORAGE_CONNECTION_STRING: '{}' is not Key=Value",
                    part.split('=').next().unwrap_or(part)
                ));
            };
            let value = Some(value.trim().to_string());
            match key.trim().to_ascii_lowercase().as_str() {
                "accountname" => parsed.account_name = value,
                "accountkey" => parsed.account_key = value,
                "blobendpoint" => parsed.blob_endpoint = value,
                "sharedaccesssignature" => parsed.sas = value,
                "defaultendpointsprotocol" => parsed.protocol = value,
                "endpointsuffix" => parsed.endpoint_suffix = value,
                "usedevelopmentstorage" => {
                    parsed.development =
                        value.as_deref().map(str::to_ascii_lowercase) == Some("true".to_string())
                }
                _ => {}
            }
        }
        if parsed.development {
            parsed
                .account_name
                .get_or_insert_with(|| DEVELOPMENT_ACCOUNT.to_string());
            parsed
                .blob_endpoint
                .get_or_insert_with(|| DEVELOPMENT_ENDPOINT.to_string());
            if parsed.sas.is_none() {
                parsed
                    .account_key
                    .get_or_insert_with(|| DEVELOPMENT_KEY.to_string());
            }
        }
        Ok(parsed)
    }

    /// The blob endpoint it names: `BlobEndpoint`, else one made of the protocol, the
    /// account and the endpoint suffix.
    fn endpoint(&self) -> Option<String> {
        if let Some(endpoint) = &self.blob_endpoint {
            return Some(endpoint.clone());
        }
        let account = self.account_name.as_ref()?;
        let protocol = self.protocol.as_deref().unwrap_or("https");
        let suffix = self
            .endpoint_suffix
            .as_deref()
            .unwrap_or("core.windows.net");
        Some(format!("{protocol}://{account}.blob.{suffix}"))
    }
}

/// A SAS token's query pairs (a leading `?` stripped, each name and value
/// percent-decoded).
pub fn parse_sas(token: &str) -> Result<Vec<(String, String)>, String> {
    let token = token.trim().trim_start_matches('?');
    if token.is_empty() {
        return Err("the SAS token is empty".to_string());
    }
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(token.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if !pairs.iter().any(|(k, _)| k == "sig") {
        return Err("the SAS token has no 'sig' parameter".to_string());
    }
    Ok(pairs)
}

/// The endpoint's first path segment (Azurite's account: `http://host:10000/acct`).
fn account_in_path(endpoint: &str) -> Option<String> {
    let url = url::Url::parse(endpoint).ok()?;
    url.path_segments()?
        .find(|s| !s.is_empty())
        .map(str::to_string)
}

/// Where the store is and which credential it uses: the options first, then the
/// environment (`env`: AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT_NAME,
/// AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN), then anonymous. `url_account`
/// is the account a URL of the form `az://container@account.blob.core.windows.net/`
/// names.
///
/// The account: option `account_name`, the URL's, the first path segment of the option
/// `endpoint` (Azurite), the connection string's, AZURE_STORAGE_ACCOUNT_NAME, the first
/// path segment of the connection string's endpoint. The endpoint: option `endpoint`,
/// the connection string's, `https://<account>.blob.core.windows.net`. The credential:
/// option `anonymous`, `account_key` or `sas_token`; the connection string's key or SAS;
/// AZURE_STORAGE_ACCOUNT_KEY; AZURE_STORAGE_SAS_TOKEN; anonymous.
pub fn resolve(
    options: &UrlOptions,
    url_account: Option<&str>,
    env: EnvLookup<'_>,
) -> Result<Settings, String> {
    let connection = match env("AZURE_STORAGE_CONNECTION_STRING") {
        Some(text) => Some(ConnectionString::parse(&text)?),
        None => None,
    };
    let connection_endpoint = connection.as_ref().and_then(ConnectionString::endpoint);
    let account = options
        .account_name
        .clone()
        .map(|a| (a, "option 'account_name'"))
        .or_else(|| url_account.map(|a| (a.to_string(), "the URL")))
        .or_else(|| {
            options
                .endpoint
                .as_deref()
                .and_then(account_in_path)
                .map(|a| (a, "option 'endpoint'"))
        })
        .or_else(|| {
            connection
                .as_ref()
                .and_then(|c| c.account_name.clone())
                .map(|a| (a, "AZURE_STORAGE_CONNECTION_STRING"))
        })
        .or_else(|| env("AZURE_STORAGE_ACCOUNT_NAME").map(|a| (a, "AZURE_STORAGE_ACCOUNT_NAME")))
        .or_else(|| {
            connection_endpoint
                .as_deref()
                .and_then(account_in_path)
                .map(|a| (a, "AZURE_STORAGE_CONNECTION_STRING"))
        });
    let Some((account, _)) = account else {
        return Err(
            "no storage account: give the option 'account_name', a URL of the form \
             az://container@account.blob.core.windows.net/, or set \
             AZURE_STORAGE_ACCOUNT_NAME or AZURE_STORAGE_CONNECTION_STRING"
                .to_string(),
        );
    };
    let (endpoint, endpoint_from) = match (&options.endpoint, &connection_endpoint) {
        (Some(e), _) => (e.clone(), "option 'endpoint'"),
        (None, Some(e)) => (e.clone(), "AZURE_STORAGE_CONNECTION_STRING"),
        (None, None) => (
            format!("https://{account}.blob.core.windows.net"),
            "the account",
        ),
    };
    let parsed = url::Url::parse(&endpoint)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .filter(|u| u.query().is_none() && u.fragment().is_none())
        .ok_or_else(|| format!("{endpoint_from} '{endpoint}' is not an http:// or https:// URL"))?;
    let endpoint = parsed.as_str().trim_end_matches('/').to_string();

    let shared_key = |key: &str, from: &str| {
        (
            Credential::SharedKey(key.to_string()),
            format!("Shared Key of account '{account}' from {from}"),
        )
    };
    let sas = |token: &str, from: &str| -> Result<(Credential, String), String> {
        let pairs = parse_sas(token).map_err(|e| format!("{from}: {e}"))?;
        Ok((Credential::Sas(pairs), format!("SAS token from {from}")))
    };
    let (credential, origin) = if options.anonymous == Some(true) {
        (
            Credential::Anonymous,
            "anonymous (option 'anonymous')".to_string(),
        )
    } else if let Some(key) = &options.account_key {
        shared_key(key, "option 'account_key'")
    } else if let Some(token) = &options.sas_token {
        sas(token, "option 'sas_token'")?
    } else if let Some(key) = connection.as_ref().and_then(|c| c.account_key.as_deref()) {
        shared_key(key, "AZURE_STORAGE_CONNECTION_STRING")
    } else if let Some(token) = connection.as_ref().and_then(|c| c.sas.as_deref()) {
        sas(token, "AZURE_STORAGE_CONNECTION_STRING")?
    } else if let Some(key) = env("AZURE_STORAGE_ACCOUNT_KEY") {
        shared_key(&key, "AZURE_STORAGE_ACCOUNT_KEY")
    } else if let Some(token) = env("AZURE_STORAGE_SAS_TOKEN") {
        sas(&token, "AZURE_STORAGE_SAS_TOKEN")?
    } else {
        (
            Credential::Anonymous,
            "anonymous (no credential given)".to_string(),
        )
    };
    Ok(Settings {
        account,
        endpoint,
        credential,
        origin,
    })
}

/// A value and its ETag, when the service sent one.
type Versioned = (Vec<u8>, Option<String>);

/// An Azure Blob Storage container (and blob name prefix) as a store.
pub struct AzureStore {
    store: MicrosoftAzure,
    runtime: tokio::runtime::Runtime,
    container: String,
    /// `""` or a prefix ending in `/`, prepended to every key.
    prefix: String,
    settings: Settings,
    max_concurrency: usize,
    /// Retries of a request that failed halfway (see [`AzureStore::run`]).
    max_retries: u32,
    read_only: bool,
    /// Update parts of chunks with conditional writes, at most this many attempts each;
    /// `None`: without conditions.
    conditional_updates: Option<u32>,
    pub(crate) multipart_threshold: usize,
    pub(crate) part_size: usize,
    /// The client of the one request `object_store` cannot make: a conditional DELETE
    /// (see [`AzureStore::delete_if_match`]).
    delete_client: Client,
}

impl std::fmt::Debug for AzureStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AzureStore")
            .field("container", &self.container)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.settings.endpoint)
            .field("credential", &self.settings.origin)
            .field("read_only", &self.read_only)
            .field("conditional_updates", &self.conditional_updates)
            .finish_non_exhaustive()
    }
}

/// Open the store at `container` (of `account`, when the URL names it), blob names under
/// `prefix` (`""` or ending in `/`). One listing request checks the container and the
/// credentials: a wrong key or a missing container fails here.
pub fn open(
    container: &str,
    account: Option<&str>,
    prefix: &str,
    options: &UrlOptions,
    url: &str,
) -> Result<Arc<dyn Storage>, OpenError> {
    let settings = resolve(options, account, &process_env)
        .map_err(|m| OpenError::InvalidArgument(format!("cannot open '{url}': {m}")))?;
    let store = AzureStore::new(container, prefix, settings, options)?;
    store.check_container()?;
    Ok(Arc::new(store))
}

impl AzureStore {
    pub(crate) fn new(
        container: &str,
        prefix: &str,
        settings: Settings,
        options: &UrlOptions,
    ) -> Result<AzureStore, OpenError> {
        let timeout = options.timeout();
        let retries = options.max_retries();
        let client_options = ClientOptions::new()
            .with_timeout(timeout)
            .with_connect_timeout(timeout)
            .with_allow_http(settings.endpoint.starts_with("http:"))
            .with_pool_max_idle_per_host(options.max_concurrency());
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(15),
                base: 2.0,
            },
            max_retries: retries as usize,
            // Each attempt is bounded by the timeout; this bounds the whole (attempts plus
            // the waits between them).
            retry_timeout: timeout
                .saturating_mul(retries.saturating_add(1))
                .saturating_add(Duration::from_secs(15u64.saturating_mul(retries as u64))),
        };
        let mut builder = MicrosoftAzureBuilder::new()
            .with_account(&settings.account)
            .with_container_name(container)
            .with_endpoint(settings.endpoint.clone())
            .with_client_options(client_options)
            .with_retry(retry);
        builder = match &settings.credential {
            Credential::SharedKey(key) => builder.with_access_key(key),
            Credential::Sas(pairs) => builder.with_sas_authorization(pairs.clone()),
            Credential::Anonymous => builder.with_skip_signature(true),
        };
        let store = builder.build().map_err(|e| {
            OpenError::InvalidArgument(format!(
                "cannot open az://{container}/{prefix} at {}: {e}",
                settings.endpoint
            ))
        })?;
        let delete_client = Client::new(&ClientConfig {
            max_concurrency: 1,
            timeout,
            max_retries: retries,
            tls: settings.endpoint.starts_with("https:"),
            max_redirects: 0,
        })
        .map_err(|message| {
            OpenError::Storage(StorageError::Remote(RemoteError::new(
                RemoteErrorKind::Network,
                "open",
                &settings.endpoint,
                message,
            )))
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("zarr-azure")
            .enable_all()
            .build()
            .map_err(|e| {
                OpenError::Storage(StorageError::Io {
                    key: format!("az://{container}/{prefix}"),
                    source: e,
                })
            })?;
        Ok(AzureStore {
            store,
            runtime,
            container: container.to_string(),
            prefix: prefix.to_string(),
            settings,
            max_concurrency: options.max_concurrency(),
            max_retries: retries,
            read_only: options.read_only == Some(true),
            conditional_updates: options
                .conditional_writes
                .unwrap_or(true)
                .then(|| options.update_attempts.unwrap_or(DEFAULT_UPDATE_ATTEMPTS)),
            multipart_threshold: MULTIPART_THRESHOLD,
            part_size: PART_SIZE,
            delete_client,
        })
    }

    /// The container's name and where it is: "container 'c' at http://host/acct".
    fn container_description(&self) -> String {
        format!(
            "container '{}' at {}",
            self.container, self.settings.endpoint
        )
    }

    /// Run the request `make` builds to completion on the store's runtime. `object_store`
    /// retries failed connections, 5xx and 429 answers itself; a response cut off while
    /// its body was read (a connection reset halfway, with no ETag to resume from, or the
    /// body of an error answer) is not always retried there, so it is here, as many
    /// times as `max_retries` allows, with a random backoff.
    fn run<T, F, Fut>(&self, make: F) -> object_store::Result<T>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>>,
    {
        let mut wait = Duration::from_millis(50);
        let mut attempt = 0;
        loop {
            match self.runtime.block_on(make()) {
                Err(e) if attempt < self.max_retries && cut_off(&e) => {
                    attempt += 1;
                    std::thread::sleep(wait.mul_f64(super::http::random_unit()));
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
                other => return other,
            }
        }
    }

    fn path(&self, key: &str) -> Path {
        Path::from(format!("{}{key}", self.prefix))
    }

    /// The container's URL (for messages).
    fn container_url(&self) -> String {
        format!("{}/{}", self.settings.endpoint, self.container)
    }

    /// A blob's URL (for messages).
    fn blob_url(&self, key: &str) -> String {
        format!("{}/{}{key}", self.container_url(), self.prefix)
    }

    /// One listing page of the prefix: the container exists and the credential may
    /// list it, or the error says which is not so.
    fn check_container(&self) -> Result<(), OpenError> {
        let prefix = self.prefix.trim_end_matches('/');
        let path = (!prefix.is_empty()).then(|| Path::from(prefix));
        let first = self.run(|| async {
            let mut listing = self.store.list(path.as_ref());
            listing.next().await.transpose()
        });
        match first {
            Ok(_) => Ok(()),
            Err(e) => {
                let display = format!("{} (listing '{}')", self.container_url(), self.prefix);
                Err(OpenError::Storage(StorageError::Remote(
                    self.remote_error("GET", &display, &e),
                )))
            }
        }
    }

    /// What `error` (from a request `method` to `display`) means, as a [`RemoteError`]:
    /// the kind, the status and, for a refusal, which credential was refused.
    fn remote_error(
        &self,
        method: &'static str,
        display: &str,
        error: &object_store::Error,
    ) -> RemoteError {
        let (status, body, http_kind) = error_details(error);
        let text = error.to_string();
        // "HTTP 403: AuthorizationFailure (This request is not authorized ...)".
        let answered = |code: u16| {
            let mut d = format!("HTTP {code}");
            match body.as_deref().and_then(error_code) {
                Some(service_code) => {
                    d.push_str(&format!(": {service_code}"));
                    if let Some(message) = body.as_deref().and_then(error_message) {
                        d.push_str(&format!(" ({message})"));
                    }
                }
                None => d.push_str(&format!(" ({})", squeeze(&text))),
            }
            d
        };
        let (kind, detail) = match (status, error) {
            (Some(401 | 403), _)
            | (_, object_store::Error::PermissionDenied { .. })
            | (_, object_store::Error::Unauthenticated { .. }) => (
                RemoteErrorKind::AccessDenied,
                format!(
                    "{}; access denied to the credential: {}",
                    answered(status.unwrap_or(403)),
                    self.settings.origin
                ),
            ),
            (Some(404), _)
                if body
                    .as_deref()
                    .is_some_and(|b| b.contains("ContainerNotFound")) =>
            {
                (
                    RemoteErrorKind::NotFound,
                    format!(
                        "HTTP 404: ContainerNotFound: no {}",
                        self.container_description()
                    ),
                )
            }
            (Some(code), _) => {
                let mut d = answered(code);
                if code == 404 && self.settings.credential == Credential::Anonymous {
                    d.push_str(&format!(
                        "; the {} may not exist or may not be public (credential: {})",
                        self.container_description(),
                        self.settings.origin
                    ));
                }
                (RemoteErrorKind::Service, d)
            }
            (None, _) => {
                let kind = match http_kind {
                    Some(HttpErrorKind::Timeout) => RemoteErrorKind::Timeout,
                    // A connection reset by the server is `Unknown` to object_store.
                    Some(
                        HttpErrorKind::Connect
                        | HttpErrorKind::Request
                        | HttpErrorKind::Interrupted
                        | HttpErrorKind::Unknown,
                    ) => RemoteErrorKind::Network,
                    _ => RemoteErrorKind::Service,
                };
                (kind, squeeze(&text))
            }
        };
        RemoteError {
            kind,
            method,
            url: display.to_string(),
            detail,
            status,
        }
    }

    /// A failed request as a [`StorageError`]; `None` for a missing blob (a 404 that
    /// is not about the container).
    fn failure(
        &self,
        method: &'static str,
        key: &str,
        error: object_store::Error,
    ) -> Option<StorageError> {
        let remote = self.remote_error(method, &self.blob_url(key), &error);
        if matches!(error, object_store::Error::NotFound { .. })
            && remote.kind != RemoteErrorKind::NotFound
        {
            return None;
        }
        Some(StorageError::Remote(remote))
    }

    /// A read's result: absent blobs as `None`.
    fn read<T>(
        &self,
        method: &'static str,
        key: &str,
        result: object_store::Result<T>,
    ) -> Result<Option<T>, StorageError> {
        match result {
            Ok(value) => Ok(Some(value)),
            Err(e) => match self.failure(method, key, e) {
                None => Ok(None),
                Some(e) => Err(e),
            },
        }
    }

    /// A write's result (a 404 here is the container's).
    fn written<T>(
        &self,
        method: &'static str,
        key: &str,
        result: object_store::Result<T>,
    ) -> Result<T, StorageError> {
        result.map_err(|e| StorageError::Remote(self.remote_error(method, &self.blob_url(key), &e)))
    }

    /// The value and its ETag, `None` when absent.
    fn get_versioned(&self, key: &str) -> Result<Option<Versioned>, StorageError> {
        let path = self.path(key);
        let result = self.run(|| async {
            let got = self.store.get_opts(&path, GetOptions::default()).await?;
            let etag = got.meta.e_tag.clone();
            let bytes = got.bytes().await?;
            Ok::<_, object_store::Error>((bytes.to_vec(), etag))
        });
        self.read("GET", key, result)
    }

    /// Write `value` at `key` with `mode` (a single Put Blob, or blocks when large and
    /// unconditional).
    fn put(&self, key: &str, value: &[u8], mode: PutMode) -> Result<(), StorageError> {
        let path = self.path(key);
        if value.len() > self.multipart_threshold && matches!(mode, PutMode::Overwrite) {
            let part_size = self.part_size;
            let result = self.run(|| async {
                let upload = self.store.put_multipart(&path).await?;
                let mut writer = WriteMultipart::new_with_chunk_size(upload, part_size);
                for part in value.chunks(part_size) {
                    writer.wait_for_capacity(self.max_concurrency).await?;
                    writer.write(part);
                }
                writer.finish().await
            });
            return self.written("PUT", key, result).map(drop);
        }
        let payload = PutPayload::from(value.to_vec());
        let result = self.run(|| {
            let options = PutOptions {
                mode: mode.clone(),
                ..PutOptions::default()
            };
            self.store.put_opts(&path, payload.clone(), options)
        });
        self.written("PUT", key, result).map(drop)
    }

    /// DELETE `key`; a missing blob is no error.
    fn delete(&self, key: &str) -> Result<(), StorageError> {
        let path = self.path(key);
        let result = self.run(|| self.store.delete(&path));
        match self.read("DELETE", key, result)? {
            Some(()) | None => Ok(()),
        }
    }

    /// [`ReadableStorage::read_ranges`] of non-empty bounded ranges, with no HEAD: the
    /// value's size stays unknown (`None`) unless a range turns out to be past the end.
    fn read_bounded_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        if let [range] = ranges {
            return Ok(self.get_range(key, *range)?.map(|bytes| (None, bytes)));
        }
        let mut wanted = Vec::with_capacity(ranges.len());
        for &range in ranges {
            let ByteRange::FromStart { offset, length } = range else {
                return Err(StorageError::Corrupt {
                    key: key.to_string(),
                    reason: "internal error: a suffix range among bounded ones".to_string(),
                });
            };
            let end = offset
                .checked_add(length)
                .ok_or(StorageError::RangeOutOfBounds {
                    key: key.to_string(),
                    range,
                    size: 0,
                })?;
            wanted.push(offset..end);
        }
        match self.fetch_spans(key, &wanted)? {
            Spans::Absent => Ok(None),
            Spans::Fetched(parts) => Ok(Some((None, parts.concat()))),
            Spans::Short => {
                // A range reaches past the end: the size, for the message (or the value
                // is gone).
                let Some(size) = self.value_size(key)? else {
                    return Ok(None);
                };
                for range in ranges {
                    range.resolve_in(key, size)?;
                }
                Err(changed_while_read(&self.blob_url(key)))
            }
        }
    }

    /// The bytes of each of `wanted` (non-empty spans) of the blob at `key`. Close spans
    /// share a request (as the other remote stores merge them), all sent at once; every
    /// answer is checked for length before it is cut, since a span may reach past the
    /// end (object_store's own `get_ranges` would panic slicing a short answer).
    fn fetch_spans(
        &self,
        key: &str,
        wanted: &[std::ops::Range<u64>],
    ) -> Result<Spans, StorageError> {
        let mut merged: Vec<std::ops::Range<u64>> = Vec::new();
        let mut sorted = wanted.to_vec();
        sorted.sort_by_key(|r| r.start);
        for span in sorted {
            match merged.last_mut() {
                Some(last) if span.start <= last.end.saturating_add(super::http::MERGE_GAP) => {
                    last.end = last.end.max(span.end)
                }
                _ => merged.push(span),
            }
        }
        let path = self.path(key);
        let result = self.run(|| {
            let requests = merged.iter().map(|span| {
                let options = GetOptions {
                    range: Some(GetRange::Bounded(span.clone())),
                    ..GetOptions::default()
                };
                let path = &path;
                async move { self.store.get_opts(path, options).await?.bytes().await }
            });
            futures_util::future::try_join_all(requests)
        });
        let fetched = match result {
            Ok(fetched) => fetched,
            Err(e) => {
                let (status, ..) = error_details(&e);
                let past_end = status == Some(416)
                    || (status.is_none()
                        && matches!(e, object_store::Error::Generic { .. })
                        && e.to_string().contains("Range"));
                if past_end {
                    return Ok(Spans::Short);
                }
                return match self.failure("GET", key, e) {
                    None => Ok(Spans::Absent),
                    Some(e) => Err(e),
                };
            }
        };
        // Each wanted span cut from the merged span that holds it, when that came whole.
        let parts: Option<Vec<Vec<u8>>> = wanted
            .iter()
            .map(|span| {
                let (merged_span, bytes) = merged
                    .iter()
                    .zip(&fetched)
                    .find(|(m, _)| m.start <= span.start && span.end <= m.end)?;
                let from = usize::try_from(span.start - merged_span.start).ok()?;
                let to = usize::try_from(span.end - merged_span.start).ok()?;
                bytes.get(from..to).map(<[u8]>::to_vec)
            })
            .collect();
        Ok(parts.map_or(Spans::Short, Spans::Fetched))
    }

    /// DELETE the blob at `key` only if its ETag is still `etag`. `object_store` has no
    /// conditional delete, so this one request goes out on the HTTP client the other
    /// remote stores use, authorized by `object_store` itself: a URL it signs (a service
    /// SAS made from the Shared Key, allowing DELETE of this blob for five minutes), or
    /// the caller's SAS, or nothing for an anonymous store. A blob that changed (HTTP
    /// 412) or is gone (404) since it was read is a lost race: the update merges again.
    fn delete_if_match(&self, key: &str, etag: &str) -> Result<(), StorageError> {
        let display = self.blob_url(key);
        let path = self.path(key);
        let url = match &self.settings.credential {
            Credential::SharedKey(_) => self
                .runtime
                .block_on(self.store.signed_url(
                    object_store::signer::Method::DELETE,
                    &path,
                    Duration::from_secs(300),
                ))
                .map_err(|e| {
                    StorageError::Remote(RemoteError::new(
                        RemoteErrorKind::Service,
                        "DELETE",
                        &display,
                        format!("cannot sign the conditional delete: {e}"),
                    ))
                })?
                .to_string(),
            Credential::Sas(pairs) => {
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs)
                    .finish();
                format!("{}?{query}", self.path_url(&path))
            }
            Credential::Anonymous => self.path_url(&path),
        };
        let headers = [("If-Match", etag.to_string())];
        let client = &self.delete_client;
        let result = client.retrying(|| {
            let response = client
                .send(HttpMethod::Delete, &url, &headers, None)
                .map_err(|e| transport_failure(HttpMethod::Delete, &display, e))?;
            match response.status().as_u16() {
                200..=299 => Ok(()),
                _ => Err(status_failure(HttpMethod::Delete, &display, response)),
            }
        });
        match result {
            Err(StorageError::Remote(mut e)) if e.status == Some(404) => {
                e.status = Some(412);
                Err(StorageError::Remote(e))
            }
            Err(StorageError::Remote(mut e)) if e.kind == RemoteErrorKind::AccessDenied => {
                e.detail = format!("{}; credential: {}", e.detail, self.settings.origin);
                Err(StorageError::Remote(e))
            }
            other => other,
        }
    }

    /// The blob's URL for a request, built as `object_store` builds it: the endpoint's
    /// path, then the container, then the blob path's parts.
    fn path_url(&self, path: &Path) -> String {
        match url::Url::parse(&self.settings.endpoint) {
            Ok(mut url) => {
                if let Ok(mut segments) = url.path_segments_mut() {
                    segments
                        .pop_if_empty()
                        .push(&self.container)
                        .extend(path.parts());
                }
                url.to_string()
            }
            // The endpoint was checked when the store was made.
            Err(_) => format!("{}/{}/{}", self.settings.endpoint, self.container, path),
        }
    }
}

/// What [`AzureStore::fetch_spans`] got.
enum Spans {
    /// The bytes of each span asked for.
    Fetched(Vec<Vec<u8>>),
    /// A span reaches past the end of the blob.
    Short,
    /// There is no blob.
    Absent,
}

fn changed_while_read(url: &str) -> StorageError {
    StorageError::Remote(RemoteError::new(
        RemoteErrorKind::Service,
        "GET",
        url,
        "the ranges came back short although they fit the blob (it changed while being read?)",
    ))
}

/// The status, response body and transport failure kind inside an `object_store` error.
/// Its retry error type is private, so the status and the body are read from the
/// messages of the error chain ("Server returned non-2xx status code: 404 Not Found:
/// <body>"), and else taken from the error's variant.
fn error_details(
    error: &object_store::Error,
) -> (Option<u16>, Option<String>, Option<HttpErrorKind>) {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut text = String::new();
    let mut kind = None;
    while let Some(e) = source {
        if let Some(http) = e.downcast_ref::<HttpError>() {
            kind = kind.or(Some(http.kind()));
        }
        text.push_str(&e.to_string());
        text.push('\n');
        source = e.source();
    }
    const MARK: &str = "status code: ";
    let status = text
        .find(MARK)
        .and_then(|at| text.get(at + MARK.len()..at + MARK.len() + 3))
        .and_then(|digits| digits.parse::<u16>().ok())
        .or(match error {
            object_store::Error::NotFound { .. } => Some(404),
            object_store::Error::Precondition { .. } => Some(412),
            object_store::Error::AlreadyExists { .. } => Some(409),
            object_store::Error::PermissionDenied { .. } => Some(403),
            object_store::Error::Unauthenticated { .. } => Some(401),
            object_store::Error::NotModified { .. } => Some(304),
            _ => None,
        });
    let body = text.contains("<Code>").then_some(text);
    (status, body, kind)
}

/// Whether a request failed halfway through: a transport failure with no HTTP status
/// that is not a failure to connect or a timeout (which `object_store` retries itself).
/// A connection reset by the server shows as `Unknown` or `Interrupted`, which
/// `object_store` does not retry for every request.
fn cut_off(error: &object_store::Error) -> bool {
    let (status, _, kind) = error_details(error);
    status.is_none()
        && matches!(
            kind,
            Some(
                HttpErrorKind::Request
                    | HttpErrorKind::Interrupted
                    | HttpErrorKind::Decode
                    | HttpErrorKind::Unknown
            )
        )
}

/// The `<Code>` of an Azure error response body.
fn error_code(body: &str) -> Option<&str> {
    let start = body.find("<Code>")? + "<Code>".len();
    let end = start + body[start..].find("</Code>")?;
    Some(&body[start..end])
}

/// The first sentence of the `<Message>` of an Azure error response body.
fn error_message(body: &str) -> Option<String> {
    let start = body.find("<Message>")? + "<Message>".len();
    let end = start + body[start..].find("</Message>")?;
    let message = body[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let first = message.split(". ").next().unwrap_or(&message);
    Some(first.trim_end_matches('.').to_string())
}

/// A message on one line, without a query string that may hold a signature.
fn squeeze(text: &str) -> String {
    text.split_whitespace()
        .map(|word| match word.split_once('?') {
            // object_store redacts SAS requests' URLs itself; cut any other query string.
            Some((url, _)) if word.starts_with("http") => format!("{url}?…"),
            _ => word.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a conditional write failed because another writer came first (412, or 409
/// for a create of a blob that now exists).
fn lost_race(error: &StorageError) -> bool {
    matches!(error, StorageError::Remote(e) if matches!(e.status, Some(412 | 409)))
}

impl ReadableStorage for AzureStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        Ok(self.get_versioned(key)?.map(|(value, _)| value))
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        if let ByteRange::FromStart { length: 0, .. } = range {
            // No empty range can be asked for: check the offset against the size.
            return match self.value_size(key)? {
                None => Ok(None),
                Some(size) => {
                    range.resolve_in(key, size)?;
                    Ok(Some(Vec::new()))
                }
            };
        }
        let get_range = match range {
            ByteRange::FromStart { offset, length } => {
                let end = offset
                    .checked_add(length)
                    .ok_or(StorageError::RangeOutOfBounds {
                        key: key.to_string(),
                        range,
                        size: 0,
                    })?;
                GetRange::Bounded(offset..end)
            }
            // Azure has no suffix ranges (`bytes=-n`): the size first (a HEAD).
            ByteRange::Suffix { .. } => {
                let Some(size) = self.value_size(key)? else {
                    return Ok(None);
                };
                let span = range.resolve_in(key, size)?;
                if span.is_empty() {
                    return Ok(Some(Vec::new()));
                }
                GetRange::Bounded(span)
            }
        };
        let path = self.path(key);
        let result = self.run(|| async {
            let options = GetOptions {
                range: Some(get_range.clone()),
                ..GetOptions::default()
            };
            let got = self.store.get_opts(&path, options).await?;
            let size = got.meta.size;
            let bytes = got.bytes().await?;
            Ok::<_, object_store::Error>((size, bytes))
        });
        match result {
            Ok((size, bytes)) => {
                let span = range.resolve_in(key, size)?;
                if bytes.len() as u64 != span.end - span.start {
                    return Err(StorageError::RangeOutOfBounds {
                        key: key.to_string(),
                        range,
                        size,
                    });
                }
                Ok(Some(bytes.to_vec()))
            }
            Err(e) => {
                let (status, ..) = error_details(&e);
                let out_of_range = status == Some(416)
                    || matches!(
                        e,
                        object_store::Error::Generic { .. } if e.to_string().contains("Range")
                    ) && status.is_none();
                if out_of_range {
                    // Past the end: say how large the value is.
                    return match self.value_size(key)? {
                        None => Ok(None),
                        Some(size) => Err(StorageError::RangeOutOfBounds {
                            key: key.to_string(),
                            range,
                            size,
                        }),
                    };
                }
                match self.failure("GET", key, e) {
                    None => Ok(None),
                    Some(e) => Err(e),
                }
            }
        }
    }

    /// Bounded ranges go out as they are: one ranged GET for a single range, or the
    /// ranges with close ones merged ([`AzureStore::fetch_spans`]), fetched concurrently;
    /// a range past the end is found from the answer (then one HEAD says the size for the
    /// message). Azure has no suffix ranges, so a suffix among the
    /// ranges (or only empty ones) costs one HEAD first for the size, which resolves the
    /// suffixes and checks every range.
    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        validate_key(key)?;
        let needs_size = ranges.iter().any(|r| match r {
            ByteRange::Suffix { .. } => true,
            ByteRange::FromStart { length, .. } => *length == 0,
        });
        if !needs_size {
            return self.read_bounded_ranges(key, ranges);
        }
        let Some(size) = self.value_size(key)? else {
            return Ok(None);
        };
        let mut spans = Vec::with_capacity(ranges.len());
        for range in ranges {
            spans.push(range.resolve_in(key, size)?);
        }
        let wanted: Vec<std::ops::Range<u64>> =
            spans.iter().filter(|s| s.end > s.start).cloned().collect();
        let mut out = Vec::new();
        if !wanted.is_empty() {
            match self.fetch_spans(key, &wanted)? {
                Spans::Absent => return Ok(None),
                // They fit the size the HEAD gave: the blob changed in between.
                Spans::Short => return Err(changed_while_read(&self.blob_url(key))),
                Spans::Fetched(parts) => {
                    for part in parts {
                        out.extend_from_slice(&part);
                    }
                }
            }
        }
        Ok(Some((Some(size), out)))
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        validate_key(key)?;
        let path = self.path(key);
        let result = self.run(|| self.store.head(&path));
        Ok(self.read("HEAD", key, result)?.map(|meta| meta.size))
    }

    fn max_concurrency(&self) -> Option<usize> {
        Some(self.max_concurrency)
    }

    fn location(&self) -> String {
        format!(
            "az://{}/{} at {}",
            self.container, self.prefix, self.settings.endpoint
        )
    }

    fn key_location(&self, key: &str) -> String {
        self.blob_url(key)
    }
}

impl WritableStorage for AzureStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        self.put(key, value, PutMode::Overwrite)
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        self.delete(key)
    }

    /// Read the blob and its ETag, merge, and write the result only if the blob is
    /// still the one read (`If-Match`, or `If-None-Match: *` when there was none). When
    /// another writer came first, wait a random while and start over, at most
    /// `update_attempts` times. Without the option `conditional_writes`, an unprotected
    /// read, merge and write.
    ///
    /// Erasing (a merge that gives `None`) has no conditional DELETE in `object_store`:
    /// the DELETE goes out on its own, with `If-Match` (see
    /// [`AzureStore::delete_if_match`]), so that a blob another writer changed after the
    /// read is never deleted: the update merges again instead.
    fn update(&self, key: &str, merge: &mut Merge<'_>) -> Result<(), UpdateError> {
        conditional::update(self, key, merge)
    }

    fn update_protection(&self) -> UpdateProtection {
        conditional::protection(self)
    }
}

/// Azure's side of the protected update: the version is the blob's ETag; Put Blob with
/// `If-Match` (`If-None-Match: *` when there was no blob), an erase a Delete Blob with
/// `If-Match` ([`AzureStore::delete_if_match`]); 412, or 409 for a blob created
/// meanwhile, is a lost race.
impl ConditionalStore for AzureStore {
    type Version = String;

    fn read_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, String)>, StorageError> {
        match self.get_versioned(key)? {
            Some((value, Some(etag))) => Ok(Some((value, etag))),
            Some((_, None)) => Err(StorageError::Remote(RemoteError::new(
                RemoteErrorKind::Service,
                "GET",
                &self.blob_url(key),
                "the service sent no ETag, so part of this blob cannot be updated \
                 safely; open the store with the option \"conditional_writes\": false \
                 to update without protection (then write only whole chunks from \
                 several processes)",
            ))),
            None => Ok(None),
        }
    }

    fn write_if(
        &self,
        key: &str,
        value: Option<&[u8]>,
        etag: Option<&String>,
    ) -> Result<(), StorageError> {
        match (value, etag) {
            (Some(value), Some(etag)) => self.put(
                key,
                value,
                PutMode::Update(UpdateVersion {
                    e_tag: Some(etag.clone()),
                    version: None,
                }),
            ),
            (Some(value), None) => self.put(key, value, PutMode::Create),
            (None, Some(etag)) => self.delete_if_match(key, etag),
            // The shared loop writes nothing for an absent value that stays absent.
            (None, None) => Ok(()),
        }
    }

    fn lost_race(&self, error: &StorageError) -> bool {
        lost_race(error)
    }

    fn conflict_key(&self, key: &str) -> String {
        self.blob_url(key)
    }

    fn update_attempts(&self) -> Option<u32> {
        self.conditional_updates
    }

    fn is_read_only(&self) -> bool {
        self.read_only
    }
}

impl ListableStorage for AzureStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let full = format!("{}{prefix}", self.prefix);
        let trimmed = full.trim_end_matches('/');
        let path = (!trimmed.is_empty()).then(|| Path::from(trimmed));
        let result = self.run(|| self.store.list_with_delimiter(path.as_ref()));
        let listing = result.map_err(|e| {
            let display = format!("{} (listing '{full}')", self.container_url());
            StorageError::Remote(self.remote_error("GET", &display, &e))
        })?;
        let relative = |p: &Path| -> Option<String> {
            let name = p.as_ref().strip_prefix(full.as_str())?;
            (!name.is_empty() && !name.contains('/')).then(|| name.to_string())
        };
        let mut keys: Vec<String> = listing
            .objects
            .iter()
            .filter_map(|o| relative(&o.location))
            .collect();
        let mut prefixes: Vec<String> = listing
            .common_prefixes
            .iter()
            .filter_map(relative)
            .collect();
        keys.sort();
        keys.dedup();
        prefixes.sort();
        prefixes.dedup();
        Ok(DirListing { keys, prefixes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn connection_strings_parse() {
        let c = ConnectionString::parse(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5PQ==;\
             EndpointSuffix=core.example.net",
        )
        .unwrap();
        assert_eq!(c.account_name.as_deref(), Some("acct"));
        assert_eq!(c.account_key.as_deref(), Some("a2V5PQ=="));
        assert_eq!(
            c.endpoint().as_deref(),
            Some("https://acct.blob.core.example.net")
        );
        let c = ConnectionString::parse(
            " BlobEndpoint=http://127.0.0.1:1/dev ; SharedAccessSignature=sv=1&sig=a%3D ;",
        )
        .unwrap();
        assert_eq!(c.endpoint().as_deref(), Some("http://127.0.0.1:1/dev"));
        assert_eq!(c.sas.as_deref(), Some("sv=1&sig=a%3D"));
        let dev = ConnectionString::parse("UseDevelopmentStorage=true").unwrap();
        assert_eq!(dev.account_name.as_deref(), Some(DEVELOPMENT_ACCOUNT));
        assert_eq!(dev.account_key.as_deref(), Some(DEVELOPMENT_KEY));
        assert_eq!(dev.endpoint().as_deref(), Some(DEVELOPMENT_ENDPOINT));
        assert!(ConnectionString::parse("AccountName").is_err());
        assert_eq!(
            ConnectionString::parse("").unwrap(),
            ConnectionString::default()
        );
    }

    #[test]
    fn sas_tokens_parse() {
        let pairs = parse_sas("?sv=2021&sp=rl&sig=ab%2Bc%3D").unwrap();
        assert_eq!(pairs[2], ("sig".to_string(), "ab+c=".to_string()));
        assert_eq!(parse_sas("sv=2021&sig=x").unwrap().len(), 2);
        assert!(parse_sas("?").is_err());
        assert!(parse_sas("sv=1").is_err());
    }

    #[test]
    fn credentials_resolve_options_first() {
        let env = env_of(&[
            (
                "AZURE_STORAGE_CONNECTION_STRING",
                "AccountName=envacct;AccountKey=ZW52;BlobEndpoint=http://127.0.0.1:9/envacct",
            ),
            ("AZURE_STORAGE_SAS_TOKEN", "sv=1&sig=s"),
        ]);
        // Options win over the environment.
        let options = UrlOptions {
            account_name: Some("opt".into()),
            account_key: Some("b3B0".into()),
            ..UrlOptions::default()
        };
        let s = resolve(&options, None, &env).unwrap();
        assert_eq!(s.account, "opt");
        assert_eq!(s.credential, Credential::SharedKey("b3B0".into()));
        assert_eq!(
            s.origin,
            "Shared Key of account 'opt' from option 'account_key'"
        );
        // The connection string's endpoint, no option endpoint.
        assert_eq!(s.endpoint, "http://127.0.0.1:9/envacct");
        // The SAS option, with its '?'.
        let options = UrlOptions {
            sas_token: Some("?sv=1&sig=o".into()),
            ..UrlOptions::default()
        };
        let s = resolve(&options, None, &env).unwrap();
        assert_eq!(s.account, "envacct");
        assert_eq!(s.origin, "SAS token from option 'sas_token'");
        // Anonymous by option even with credentials in the environment.
        let options = UrlOptions {
            anonymous: Some(true),
            ..UrlOptions::default()
        };
        assert_eq!(
            resolve(&options, Some("u"), &env).unwrap().credential,
            Credential::Anonymous
        );
        // The environment: the connection string's key before AZURE_STORAGE_SAS_TOKEN.
        let s = resolve(&UrlOptions::default(), None, &env).unwrap();
        assert_eq!(
            s.origin,
            "Shared Key of account 'envacct' from AZURE_STORAGE_CONNECTION_STRING"
        );
        // The URL's account and the default endpoint.
        let env = env_of(&[("AZURE_STORAGE_SAS_TOKEN", "sv=1&sig=s")]);
        let s = resolve(&UrlOptions::default(), Some("urlacct"), &env).unwrap();
        assert_eq!(s.account, "urlacct");
        assert_eq!(s.endpoint, "https://urlacct.blob.core.windows.net");
        assert_eq!(s.origin, "SAS token from AZURE_STORAGE_SAS_TOKEN");
        // Azurite: the account is the endpoint's first path segment; a trailing '/' goes.
        let options = UrlOptions {
            endpoint: Some("http://127.0.0.1:10000/devstoreaccount1/".into()),
            ..UrlOptions::default()
        };
        let env = env_of(&[
            ("AZURE_STORAGE_ACCOUNT_NAME", "other"),
            ("AZURE_STORAGE_ACCOUNT_KEY", "a2V5"),
        ]);
        let s = resolve(&options, None, &env).unwrap();
        assert_eq!(s.account, "devstoreaccount1");
        assert_eq!(s.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
        assert_eq!(
            s.origin,
            "Shared Key of account 'devstoreaccount1' from AZURE_STORAGE_ACCOUNT_KEY"
        );
        // Nothing given: anonymous; no account anywhere: an error naming the ways.
        let s = resolve(&UrlOptions::default(), Some("a"), &env_of(&[])).unwrap();
        assert_eq!(s.credential, Credential::Anonymous);
        assert_eq!(s.origin, "anonymous (no credential given)");
        let e = resolve(&UrlOptions::default(), None, &env_of(&[])).unwrap_err();
        assert!(e.contains("no storage account"), "{e}");
        // Bad inputs name where they came from.
        let options = UrlOptions {
            account_name: Some("a".into()),
            endpoint: Some("ftp://x".into()),
            ..UrlOptions::default()
        };
        let e = resolve(&options, None, &env_of(&[])).unwrap_err();
        assert!(e.contains("option 'endpoint' 'ftp://x'"), "{e}");
        let e = resolve(
            &UrlOptions::default(),
            Some("a"),
            &env_of(&[("AZURE_STORAGE_SAS_TOKEN", "sv=1")]),
        )
        .unwrap_err();
        assert!(e.contains("AZURE_STORAGE_SAS_TOKEN"), "{e}");
    }

    #[test]
    fn error_codes_and_squeezing() {
        assert_eq!(
            error_code("<?xml?><Error><Code>AuthenticationFailed</Code></Error>"),
            Some("AuthenticationFailed")
        );
        assert_eq!(error_code("nothing"), None);
        assert_eq!(
            error_message("<Message>The specified resource does not exist.\nRequestId:1</Message>")
                .as_deref(),
            Some("The specified resource does not exist")
        );
        assert_eq!(
            squeeze("GET http://h/c?sig=secret  failed\nnow <?xml"),
            "GET http://h/c?… failed now <?xml"
        );
    }

    // Against Azurite (tests/servers; ctest runs these as url.rust_azure, with
    // ZARR_TEST_SERVERS_ENV set): what the C API cannot reach.

    fn servers() -> HashMap<String, String> {
        let file = std::env::var("ZARR_TEST_SERVERS_ENV")
            .expect("ZARR_TEST_SERVERS_ENV: run through ctest (url.rust_azure)");
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn azurite_store(container: &str, name: &str) -> AzureStore {
        let env = servers();
        let options = UrlOptions {
            endpoint: Some(env["ZARR_TEST_AZURE"].clone()),
            account_key: Some(env["ZARR_TEST_AZURE_KEY"].clone()),
            max_retries: Some(2),
            ..UrlOptions::default()
        };
        let settings = resolve(&options, None, &env_of(&[])).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let prefix = format!("rust-{name}-{}-{now}/", std::process::id());
        AzureStore::new(container, &prefix, settings, &options).unwrap()
    }

    /// The conditional DELETE of an erase goes out beside object_store, authorized by a
    /// SAS: one signed from the Shared Key (above), or the caller's own. With the caller's
    /// container SAS, an erase whose blob changed meanwhile keeps the other writer's value,
    /// and one whose blob did not change deletes it.
    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_azure"]
    fn azure_server_conditional_erase_with_a_sas_token() {
        let env = servers();
        let options = UrlOptions {
            endpoint: Some(env["ZARR_TEST_AZURE"].clone()),
            sas_token: Some(env["ZARR_TEST_AZURE_SAS"].clone()),
            max_retries: Some(2),
            ..UrlOptions::default()
        };
        let settings = resolve(&options, None, &env_of(&[])).unwrap();
        let prefix = format!("rust-sas-erase-{}/", std::process::id());
        let store = AzureStore::new("zarr-test", &prefix, settings, &options).unwrap();
        store.set("k", b"first").unwrap();
        let mut calls = 0;
        store
            .update("k", &mut |current| {
                calls += 1;
                if calls == 1 {
                    store.set("k", b"second").unwrap();
                    return Ok(None);
                }
                Ok(current)
            })
            .unwrap();
        assert_eq!(
            calls, 2,
            "the first DELETE must have been refused (If-Match)"
        );
        assert_eq!(store.get("k").unwrap().unwrap(), b"second");
        store.update("k", &mut |_| Ok(None)).unwrap();
        assert_eq!(store.get("k").unwrap(), None);
    }

    /// Another writer changes the blob while a merge runs (the merge itself writes it):
    /// the conditional write or erase loses the race and the update merges again with
    /// the value now there, so nothing is lost.
    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_azure"]
    fn azure_server_updates_merge_again_after_a_lost_race() {
        let store = azurite_store("zarr-test", "race");
        assert_eq!(
            store.update_protection(),
            UpdateProtection::ConditionalWrites
        );
        // Created meanwhile (If-None-Match: * fails).
        let mut calls = Vec::new();
        store
            .update("k", &mut |current| {
                calls.push(current.clone());
                if current.is_none() {
                    store.set("k", b"other").unwrap();
                }
                Ok(Some(
                    [current.unwrap_or_default(), b"+mine".to_vec()].concat(),
                ))
            })
            .unwrap();
        assert_eq!(calls, [None, Some(b"other".to_vec())]);
        assert_eq!(store.get("k").unwrap().unwrap(), b"other+mine");
        // Changed meanwhile (If-Match fails).
        let mut first = true;
        store
            .update("k", &mut |current| {
                let current = current.unwrap();
                if first {
                    first = false;
                    store.set("k", b"changed").unwrap();
                }
                Ok(Some([current, b"!".to_vec()].concat()))
            })
            .unwrap();
        assert_eq!(store.get("k").unwrap().unwrap(), b"changed!");
        // An erase whose blob changed meanwhile merges again instead of deleting.
        let mut seen = Vec::new();
        store
            .update("k", &mut |current| {
                let current = current.unwrap();
                seen.push(current.clone());
                if seen.len() == 1 {
                    store.set("k", b"keep me").unwrap();
                    return Ok(None);
                }
                Ok(Some(current))
            })
            .unwrap();
        assert_eq!(seen, [b"changed!".to_vec(), b"keep me".to_vec()]);
        assert_eq!(store.get("k").unwrap().unwrap(), b"keep me");
        // An erase of an unchanged blob deletes it; of an absent one writes nothing.
        store.update("k", &mut |_| Ok(None)).unwrap();
        assert_eq!(store.get("k").unwrap(), None);
        store.update("k", &mut |_| Ok(None)).unwrap();
        assert_eq!(store.get("k").unwrap(), None);
        // Writers that always win: a conflict after update_attempts tries, nothing written.
        let mut limited = azurite_store("zarr-test", "conflict");
        limited.conditional_updates = Some(3);
        limited.set("k", b"0").unwrap();
        let mut n = 0u8;
        let result = limited.update("k", &mut |_| {
            n += 1;
            limited.set("k", &[b'0' + n]).unwrap();
            Ok(Some(b"never".to_vec()))
        });
        assert!(
            matches!(
                result,
                Err(UpdateError::Store(StorageError::Conflict {
                    attempts: 3,
                    ..
                }))
            ),
            "{result:?}"
        );
        assert_eq!(limited.get("k").unwrap().unwrap(), b"3");
    }

    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_azure"]
    fn azure_server_reads_ranges_and_lists() {
        let mut store = azurite_store("zarr-test", "ranges");
        let value: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        store.set("v", &value).unwrap();
        assert_eq!(store.value_size("v").unwrap(), Some(100_000));
        assert_eq!(store.value_size("none").unwrap(), None);
        let range = |offset, length| ByteRange::FromStart { offset, length };
        assert_eq!(
            store.get_range("v", range(10, 5)).unwrap().unwrap(),
            &value[10..15]
        );
        assert_eq!(
            store
                .get_range("v", ByteRange::Suffix { length: 3 })
                .unwrap()
                .unwrap(),
            &value[99_997..]
        );
        assert_eq!(store.get_range("v", range(5, 0)).unwrap().unwrap(), b"");
        for bad in [
            range(99_999, 2),
            range(200_000, 1),
            range(100_001, 0),
            ByteRange::Suffix { length: 100_001 },
        ] {
            assert!(
                matches!(
                    store.get_range("v", bad),
                    Err(StorageError::RangeOutOfBounds { size: 100_000, .. })
                ),
                "{bad:?}"
            );
        }
        assert_eq!(store.get_range("none", range(0, 1)).unwrap(), None);
        let ranges = [
            range(20, 10),
            range(0, 10),
            ByteRange::Suffix { length: 100 },
            range(60_000, 1000),
            range(7, 0),
        ];
        let (size, bytes) = crate::storage::ranges_of("v", &value, &ranges).unwrap();
        assert_eq!(
            store.read_ranges("v", &ranges).unwrap().unwrap(),
            (Some(size), bytes)
        );
        assert!(store.read_ranges("v", &[range(99_999, 2)]).is_err());
        assert_eq!(store.read_ranges("none", &ranges).unwrap(), None);
        // Bounded ranges only: no HEAD, so no size; past the end is still an error.
        let bounded = [range(20, 10), range(0, 10), range(60_000, 1000)];
        let (_, bytes) = crate::storage::ranges_of("v", &value, &bounded).unwrap();
        assert_eq!(
            store.read_ranges("v", &bounded).unwrap().unwrap(),
            (None, bytes)
        );
        assert_eq!(
            store.read_ranges("v", &[range(5, 3)]).unwrap().unwrap(),
            (None, value[5..8].to_vec())
        );
        for bad in [
            vec![range(0, 10), range(99_990, 20)],
            vec![range(0, 10), range(150_000, 20)],
        ] {
            assert!(
                matches!(
                    store.read_ranges("v", &bad),
                    Err(StorageError::RangeOutOfBounds { size: 100_000, .. })
                ),
                "{bad:?}"
            );
        }
        assert_eq!(store.read_ranges("none", &bounded).unwrap(), None);
        // Listing: names relative to the prefix, sorted, prefixes without '/'.
        for key in ["k1", "k0", "d2/x", "d1/y", "d1/z/w"] {
            store.set(key, b"x").unwrap();
        }
        let listing = store.list_dir("").unwrap();
        assert_eq!(listing.keys, ["k0", "k1", "v"]);
        assert_eq!(listing.prefixes, ["d1", "d2"]);
        let d1 = store.list_dir("d1/").unwrap();
        assert_eq!(
            (d1.keys, d1.prefixes),
            (vec!["y".to_string()], vec!["z".to_string()])
        );
        assert_eq!(store.list_dir("nothing/").unwrap(), DirListing::default());
        store.erase("k0").unwrap();
        store.erase("k0").unwrap(); // a missing blob is no error
        assert!(store.key_location("k1").contains("/zarr-test/rust-ranges-"));
        assert!(store.key_location("k1").ends_with("/k1"));
        // Large values go up in blocks.
        store.multipart_threshold = 1 << 20;
        store.part_size = 1 << 20;
        let big: Vec<u8> = (0..(3u32 << 20) + 5).map(|i| (i % 253) as u8).collect();
        store.set("big", &big).unwrap();
        assert_eq!(store.get("big").unwrap().unwrap(), big);
        // A container that is gone (here: never was) is an error naming it, not absence.
        let gone = azurite_store("no-such-container", "gone");
        match gone.get("zarr.json") {
            Err(StorageError::Remote(e)) => {
                assert_eq!(e.kind, RemoteErrorKind::NotFound, "{e}");
                assert!(e.detail.contains("no container 'no-such-container'"), "{e}");
            }
            other => panic!("expected ContainerNotFound, got {other:?}"),
        }
        assert!(gone.set("zarr.json", b"{}").is_err());
        assert!(gone.list_dir("").is_err());
    }
}
