//! Google Cloud Storage (`gs://bucket/prefix`) through its JSON API, on the same HTTP
//! client as the S3 store (ureq: pooled connections, retries with backoff on 5xx, 429 and
//! resets, concurrent range reads with coalescing).
//!
//! Why the JSON API by hand rather than `object_store`'s GCS client: that client speaks
//! the XML API (listing with `list-type=2`, `HEAD`, XML multipart uploads), which the
//! emulators users test against (gcp-storage-emulator) do not serve, and which has no
//! conditional delete; the JSON API is what Google's own libraries, gcsfs and tensorstore
//! use, and it carries every precondition a safe update needs (`ifGenerationMatch` on
//! uploads, resumable uploads and deletes). Credentials are in [`super::gcs_auth`].
//!
//! Requests:
//! - read: `GET /storage/v1/b/B/o/O?alt=media` (with `Range`), the object's generation in
//!   `x-goog-generation`;
//! - metadata: `GET /storage/v1/b/B/o/O` (size, generation), and of the bucket at open;
//! - write: `POST /upload/storage/v1/b/B/o?uploadType=media&name=O`, or above 16 MiB a
//!   resumable upload in 8 MiB pieces; `ifGenerationMatch` (0: absent) for updates;
//! - delete: `DELETE /storage/v1/b/B/o/O` (with `ifGenerationMatch` for updates);
//! - list: `GET /storage/v1/b/B/o?prefix=P&delimiter=/`, page after page.

use super::conditional::{self, ConditionalStore, DEFAULT_UPDATE_ATTEMPTS};
use super::gcs_auth::{self, GcsAuth};
use super::http::{
    header, io_failure, status_failure, transport_failure, Client, ClientConfig, Failure, Method,
    ObjectUrls, Reader,
};
use super::options::UrlOptions;
use super::OpenError;
use super::{RemoteError, RemoteErrorKind};
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, Merge, RangesRead,
    ReadableStorage, Storage, StorageError, UpdateError, UpdateProtection, WritableStorage,
};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::io::Read;
use std::sync::Arc;

/// Google's endpoint when neither the option `endpoint` nor `STORAGE_EMULATOR_HOST` says
/// another.
pub const DEFAULT_ENDPOINT: &str = "https://storage.googleapis.com";
/// Values above this size are written with a resumable upload.
const RESUMABLE_THRESHOLD: usize = 16 * 1024 * 1024;
/// The size of each piece of a resumable upload (a multiple of 256 KiB, as GCS requires).
const RESUMABLE_PIECE: usize = 8 * 1024 * 1024;
/// The most bytes of a JSON answer (a listing page, object metadata) read.
const MAX_JSON_RESPONSE: u64 = 64 * 1024 * 1024;

/// Characters escaped in an object name within a URL path or query: everything but
/// RFC 3986's unreserved characters (a `/` inside the name must be `%2F`).
const OBJECT_NAME: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn encode(text: &str) -> String {
    utf8_percent_encode(text, OBJECT_NAME).to_string()
}

/// A GCS bucket (and key prefix) as a store.
pub struct GcsStore {
    client: Client,
    /// `https://storage.googleapis.com`, or an emulator's URL; no trailing `/`.
    endpoint: String,
    bucket: String,
    /// `""` or a prefix ending in `/`, prepended to every key.
    prefix: String,
    auth: GcsAuth,
    read_only: bool,
    /// Update parts of chunks with preconditions, at most this many attempts each; `None`:
    /// without them.
    conditional_updates: Option<u32>,
    /// Values above this size go in a resumable upload (fields so that tests can lower
    /// them).
    pub(crate) resumable_threshold: usize,
    pub(crate) resumable_piece: usize,
    /// Objects per listing page asked for (`None`: the service's default, 1,000).
    pub(crate) list_page_size: Option<usize>,
}

impl std::fmt::Debug for GcsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GcsStore")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .field("auth", &self.auth)
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

/// Object metadata, as far as the store needs it (GCS sends numbers as strings).
#[derive(Deserialize)]
struct ObjectMetadata {
    size: String,
    generation: String,
}

/// One page of a listing.
#[derive(Deserialize)]
struct ListPage {
    #[serde(default)]
    items: Vec<ListedObject>,
    #[serde(default)]
    prefixes: Vec<String>,
    #[serde(rename = "nextPageToken", default)]
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
struct ListedObject {
    name: String,
}

/// The state an update saw: the object's generation, or no object (`ifGenerationMatch=0`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Generation(u64);

/// The endpoint a store opened with `options` talks to.
fn endpoint_of(options: &UrlOptions, env: gcs_auth::EnvLookup) -> Result<String, String> {
    let (text, from) = match (&options.endpoint, env("STORAGE_EMULATOR_HOST")) {
        (Some(endpoint), _) => (endpoint.clone(), "option 'endpoint'"),
        (None, Some(host)) if !host.is_empty() => {
            // Google's clients accept the emulator's address with or without a scheme.
            let url = if host.contains("://") {
                host
            } else {
                format!("http://{host}")
            };
            (url, "STORAGE_EMULATOR_HOST")
        }
        _ => (DEFAULT_ENDPOINT.to_string(), "endpoint"),
    };
    let parsed = url::Url::parse(&text)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .filter(|u| u.query().is_none() && u.fragment().is_none())
        .ok_or_else(|| format!("{from} '{text}' is not an http:// or https:// URL"))?;
    Ok(parsed.as_str().trim_end_matches('/').to_string())
}

/// Whether `endpoint` is Google's own service (`*.googleapis.com`, including private
/// endpoints such as `storage-xyz.p.googleapis.com`), where a Google Cloud machine's
/// metadata server may hold the credential; an emulator or another service is not.
fn is_google(endpoint: &str) -> bool {
    url::Url::parse(endpoint)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .is_some_and(|host| host == "googleapis.com" || host.ends_with(".googleapis.com"))
}

/// Open `gs://bucket/prefix` (`prefix` is `""` or ends in `/`): resolve the credential,
/// then one `GET` of the bucket's metadata, so that a missing bucket or a credential the
/// service rejects fails here.
pub fn open(
    bucket: &str,
    prefix: &str,
    options: &UrlOptions,
    url: &str,
) -> Result<Arc<dyn Storage>, OpenError> {
    let store = GcsStore::new(bucket, prefix, options, &super::credentials::process_env)?;
    store.check_bucket(url)?;
    Ok(Arc::new(store))
}

impl GcsStore {
    /// A store over `bucket` with keys under `prefix`, its endpoint and credential found
    /// from `options` and then `env`; no request is sent.
    fn new(
        bucket: &str,
        prefix: &str,
        options: &UrlOptions,
        env: gcs_auth::EnvLookup,
    ) -> Result<GcsStore, OpenError> {
        let endpoint = endpoint_of(options, env).map_err(OpenError::InvalidArgument)?;
        let auth = gcs_auth::resolve(options, env, is_google(&endpoint))
            .map_err(OpenError::InvalidArgument)?;
        let config = ClientConfig {
            max_concurrency: options.max_concurrency(),
            timeout: options.timeout(),
            max_retries: options.max_retries(),
            // Token endpoints are https even when an emulator is not.
            tls: endpoint.starts_with("https:") || !auth.is_anonymous(),
            max_redirects: 0,
        };
        let client = Client::new(&config).map_err(|message| {
            OpenError::Storage(StorageError::Remote(RemoteError::new(
                RemoteErrorKind::Network,
                "open",
                &endpoint,
                message,
            )))
        })?;
        Ok(GcsStore {
            client,
            endpoint,
            bucket: bucket.to_string(),
            prefix: prefix.to_string(),
            auth,
            read_only: options.read_only == Some(true),
            conditional_updates: options
                .conditional_writes
                .unwrap_or(true)
                .then(|| options.update_attempts.unwrap_or(DEFAULT_UPDATE_ATTEMPTS)),
            resumable_threshold: RESUMABLE_THRESHOLD,
            resumable_piece: RESUMABLE_PIECE,
            list_page_size: None,
        })
    }
}

impl GcsStore {
    fn object(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// `{endpoint}/storage/v1/b/{bucket}`
    fn bucket_url(&self) -> String {
        format!("{}/storage/v1/b/{}", self.endpoint, encode(&self.bucket))
    }

    /// The object's metadata URL, which messages show as its location.
    fn object_url(&self, key: &str) -> String {
        format!("{}/o/{}", self.bucket_url(), encode(&self.object(key)))
    }

    fn upload_url(&self, key: &str, kind: &str, condition: Option<Generation>) -> String {
        let mut url = format!(
            "{}/upload/storage/v1/b/{}/o?uploadType={kind}&name={}",
            self.endpoint,
            encode(&self.bucket),
            encode(&self.object(key))
        );
        if let Some(Generation(g)) = condition {
            url.push_str(&format!("&ifGenerationMatch={g}"));
        }
        url
    }

    fn reader(&self) -> Reader<'_> {
        Reader {
            client: &self.client,
            urls: self,
        }
    }

    /// Send one request (with retries and a current token); `respond` turns the response
    /// into the result or a failure.
    fn request<T>(
        &self,
        method: Method,
        url: &str,
        display: &str,
        headers: &[(&'static str, String)],
        body: Option<&[u8]>,
        respond: impl Fn(ureq::http::Response<ureq::Body>) -> Result<T, Failure>,
    ) -> Result<T, StorageError> {
        let result = self.client.retrying(|| {
            let mut all = self.auth_headers()?;
            all.extend(headers.iter().cloned());
            let response = self
                .client
                .send(method, url, &all, body)
                .map_err(|e| transport_failure(method, display, e))?;
            respond(response)
        });
        result.map_err(|e| self.auth.explain(e))
    }

    /// The store's bucket, for messages: "bucket 'b' at https://storage.googleapis.com".
    fn bucket_description(&self) -> String {
        format!("bucket '{}' at {}", self.bucket, self.endpoint)
    }

    /// Whether the bucket is there: a 404 fails the open, as does a 401 (the credential
    /// itself was refused). A 403 lets the open go on: a credential may read objects in
    /// a bucket whose metadata it may not see (public data, narrow roles).
    fn check_bucket(&self, url: &str) -> Result<(), OpenError> {
        let display = self.bucket_url();
        let outcome =
            self.request(
                Method::Get,
                &display,
                &display,
                &[],
                None,
                |response| match response.status().as_u16() {
                    200..=299 => Ok(()),
                    _ => Err(status_failure(Method::Get, &display, response)),
                },
            );
        match outcome {
            Ok(()) => Ok(()),
            Err(StorageError::Remote(e)) if e.status == Some(404) => {
                Err(OpenError::NotFound(format!(
                    "cannot open '{url}': no {} (GET of the bucket answered HTTP 404)",
                    self.bucket_description()
                )))
            }
            Err(StorageError::Remote(e)) if e.status == Some(403) => Ok(()),
            Err(other) => Err(OpenError::Storage(other)),
        }
    }

    /// The size and generation of the object at `key`, or `None` when it does not exist.
    fn metadata(&self, key: &str) -> Result<Option<ObjectMetadata>, StorageError> {
        let url = self.object_url(key);
        let text = self.request(
            Method::Get,
            &url,
            &url,
            &[],
            None,
            |response| match response.status().as_u16() {
                200 => read_json_text(Method::Get, &url, response).map(Some),
                404 => Ok(None),
                _ => Err(status_failure(Method::Get, &url, response)),
            },
        )?;
        let Some(text) = text else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| malformed(Method::Get, &url, format!("object metadata: {e}")))
    }

    /// The value at `key` and its generation (`Generation(0)`: absent), for an update.
    /// GCS sends the generation with the bytes; a server that does not (an emulator) is
    /// asked for the metadata first, so that the generation is never newer than the
    /// bytes and a conditional write on it can only fail, never lose an update.
    fn get_with_generation(
        &self,
        key: &str,
    ) -> Result<(Option<Vec<u8>>, Generation), StorageError> {
        match self.reader().get_versioned(key)? {
            None => Ok((None, Generation(0))),
            Some((value, Some(generation))) => {
                let generation = generation.trim().parse().map_err(|_| {
                    malformed(
                        Method::Get,
                        &self.object_url(key),
                        format!("x-goog-generation '{generation}' is not a number"),
                    )
                })?;
                Ok((Some(value), Generation(generation)))
            }
            Some((_, None)) => {
                let Some(meta) = self.metadata(key)? else {
                    return Ok((None, Generation(0)));
                };
                let generation = meta.generation.parse().map_err(|_| {
                    malformed(
                        Method::Get,
                        &self.object_url(key),
                        format!("generation '{}' is not a number", meta.generation),
                    )
                })?;
                let value = self.reader().get(key)?;
                Ok((value, Generation(generation)))
            }
        }
    }

    /// Write `value` at `key` in one upload (or a resumable one above the threshold), only
    /// if the object is at `condition` when given.
    fn put(
        &self,
        key: &str,
        value: &[u8],
        condition: Option<Generation>,
    ) -> Result<(), StorageError> {
        if value.len() > self.resumable_threshold {
            return self.put_resumable(key, value, condition);
        }
        let url = self.upload_url(key, "media", condition);
        let display = self.object_url(key);
        let headers = [("Content-Type", "application/octet-stream".to_string())];
        self.request(
            Method::Post,
            &url,
            &display,
            &headers,
            Some(value),
            |response| match response.status().as_u16() {
                200..=299 => Ok(()),
                _ => Err(status_failure(Method::Post, &display, response)),
            },
        )
    }

    /// A resumable upload: open a session (carrying the precondition), then send the
    /// value in pieces, each retried on its own; GCS answers 308 to every piece but the
    /// last.
    fn put_resumable(
        &self,
        key: &str,
        value: &[u8],
        condition: Option<Generation>,
    ) -> Result<(), StorageError> {
        let url = self.upload_url(key, "resumable", condition);
        let display = self.object_url(key);
        let total = value.len();
        let headers = [
            (
                "X-Upload-Content-Type",
                "application/octet-stream".to_string(),
            ),
            ("X-Upload-Content-Length", total.to_string()),
            ("Content-Type", "application/json".to_string()),
        ];
        let session = self.request(
            Method::Post,
            &url,
            &display,
            &headers,
            Some(b"{}"),
            |response| match response.status().as_u16() {
                200..=299 => header(&response, "location")
                    .map(str::to_string)
                    .ok_or_else(|| {
                        malformed(
                            Method::Post,
                            &display,
                            "a resumable upload without a Location".to_string(),
                        )
                        .into()
                    }),
                _ => Err(status_failure(Method::Post, &display, response)),
            },
        )?;
        let mut start = 0;
        while start < total {
            let end = (start + self.resumable_piece).min(total);
            let last = end == total;
            let range = format!("bytes {start}-{}/{total}", end - 1);
            let piece = &value[start..end];
            self.request(
                Method::Put,
                &session,
                &display,
                &[("Content-Range", range.clone())],
                Some(piece),
                |response| match response.status().as_u16() {
                    200 | 201 if last => Ok(()),
                    308 if !last => Ok(()),
                    200 | 201 | 308 => Err(malformed(
                        Method::Put,
                        &display,
                        format!(
                            "HTTP {} to the piece {range} of a resumable upload",
                            response.status().as_u16()
                        ),
                    )
                    .into()),
                    _ => Err(status_failure(Method::Put, &display, response)),
                },
            )?;
            start = end;
        }
        Ok(())
    }

    /// DELETE the object at `key`, only if it is at `condition` when given; a missing
    /// object is no error.
    fn delete(&self, key: &str, condition: Option<Generation>) -> Result<(), StorageError> {
        let display = self.object_url(key);
        let url = match condition {
            Some(Generation(g)) => format!("{display}?ifGenerationMatch={g}"),
            None => display.clone(),
        };
        self.request(
            Method::Delete,
            &url,
            &display,
            &[],
            None,
            |response| match response.status().as_u16() {
                200..=299 => Ok(()),
                404 if condition.is_none() => Ok(()),
                _ => Err(status_failure(Method::Delete, &display, response)),
            },
        )
    }

    fn list_page(&self, full_prefix: &str, token: Option<&str>) -> Result<ListPage, StorageError> {
        let mut url = format!(
            "{}/o?delimiter=%2F&prefix={}",
            self.bucket_url(),
            encode(full_prefix)
        );
        if let Some(n) = self.list_page_size {
            url.push_str(&format!("&maxResults={n}"));
        }
        if let Some(token) = token {
            url.push_str(&format!("&pageToken={}", encode(token)));
        }
        let display = format!("{} (listing '{full_prefix}')", self.bucket_url());
        let text = self.request(
            Method::Get,
            &url,
            &display,
            &[],
            None,
            |response| match response.status().as_u16() {
                200 => read_json_text(Method::Get, &display, response),
                _ => Err(status_failure(Method::Get, &display, response)),
            },
        )?;
        serde_json::from_str(&text)
            .map_err(|e| malformed(Method::Get, &display, format!("listing: {e}")))
    }
}

/// Whether `range` asks for no bytes.
fn is_empty(range: ByteRange) -> bool {
    matches!(
        range,
        ByteRange::FromStart { length: 0, .. } | ByteRange::Suffix { length: 0 }
    )
}

impl GcsStore {
    /// Ranges of no bytes: whether the value exists and holds them, from its metadata.
    fn empty_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        let Some(size) = self.value_size(key)? else {
            return Ok(None);
        };
        for range in ranges {
            range.resolve_in(key, size)?;
        }
        Ok(Some((Some(size), Vec::new())))
    }
}

/// Whether a conditional request failed because another writer came first.
fn lost_race(error: &StorageError) -> bool {
    matches!(error, StorageError::Remote(e) if e.status == Some(412))
}

fn malformed(method: Method, display: &str, what: String) -> StorageError {
    StorageError::Remote(RemoteError::new(
        RemoteErrorKind::Service,
        method.name(),
        display,
        format!("malformed response: {what}"),
    ))
}

/// A JSON answer's text, at most [`MAX_JSON_RESPONSE`] bytes.
fn read_json_text(
    method: Method,
    display: &str,
    response: ureq::http::Response<ureq::Body>,
) -> Result<String, Failure> {
    let mut text = String::new();
    response
        .into_body()
        .into_with_config()
        .limit(MAX_JSON_RESPONSE)
        .reader()
        .take(MAX_JSON_RESPONSE)
        .read_to_string(&mut text)
        .map_err(|e| io_failure(method, display, e))?;
    Ok(text)
}

impl ObjectUrls for GcsStore {
    fn url(&self, _method: Method, key: &str) -> Result<String, StorageError> {
        Ok(format!("{}?alt=media", self.object_url(key)))
    }

    fn display(&self, key: &str) -> String {
        self.object_url(key)
    }

    fn auth_headers(&self) -> Result<Vec<(&'static str, String)>, StorageError> {
        Ok(self
            .auth
            .authorization(&self.client)?
            .map(|value| ("Authorization", value))
            .into_iter()
            .collect())
    }

    fn version_header(&self) -> &'static str {
        "x-goog-generation"
    }
}

impl ReadableStorage for GcsStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        self.reader().get(key).map_err(|e| self.auth.explain(e))
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        if is_empty(range) {
            // No bytes to ask for: the size from the metadata checks the range (the JSON
            // API's media URL answers no HEAD).
            return self
                .empty_ranges(key, &[range])
                .map(|r| r.map(|_| Vec::new()));
        }
        Ok(self
            .reader()
            .get_range(key, range)
            .map_err(|e| self.auth.explain(e))?
            .map(|fetched| fetched.bytes))
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<RangesRead>, StorageError> {
        validate_key(key)?;
        if ranges.iter().all(|&r| is_empty(r)) {
            return self.empty_ranges(key, ranges);
        }
        self.reader()
            .read_ranges(key, ranges)
            .map_err(|e| self.auth.explain(e))
    }

    fn value_size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        validate_key(key)?;
        let Some(meta) = self.metadata(key)? else {
            return Ok(None);
        };
        meta.size.parse().map(Some).map_err(|_| {
            malformed(
                Method::Get,
                &self.object_url(key),
                format!("size '{}' is not a number", meta.size),
            )
        })
    }

    fn max_concurrency(&self) -> Option<usize> {
        Some(self.client.max_concurrency())
    }

    fn location(&self) -> String {
        format!("gs://{}/{} at {}", self.bucket, self.prefix, self.endpoint)
    }

    fn key_location(&self, key: &str) -> String {
        self.object_url(key)
    }

    fn absence_reason(&self, _key: &str) -> Option<String> {
        Some(format!(
            "the service answered HTTP 404 Not Found; credential: {}",
            self.auth.origin()
        ))
    }
}

impl WritableStorage for GcsStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        self.put(key, value, None)
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        self.delete(key, None)
    }

    /// Read the object and its generation, merge, and write the result only if the
    /// object is still at that generation (`ifGenerationMatch`, 0 when there was none;
    /// erasing with a conditional DELETE). When another writer came first (HTTP 412),
    /// wait a random while and start over, at most `update_attempts` times. Without the
    /// option `conditional_writes`, an unprotected read, merge and write.
    fn update(&self, key: &str, merge: &mut Merge<'_>) -> Result<(), UpdateError> {
        conditional::update(self, key, merge)
    }

    fn update_protection(&self) -> UpdateProtection {
        conditional::protection(self)
    }
}

fn is_status(error: &StorageError, status: u16) -> bool {
    matches!(error, StorageError::Remote(e) if e.status == Some(status))
}

/// GCS's side of the protected update: the version is the object's generation; the
/// write is an upload (or a DELETE) with `ifGenerationMatch` (0: still no object).
impl ConditionalStore for GcsStore {
    type Version = Generation;

    fn read_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Generation)>, StorageError> {
        let (value, generation) = self
            .get_with_generation(key)
            .map_err(|e| self.auth.explain(e))?;
        Ok(value.map(|value| (value, generation)))
    }

    fn write_if(
        &self,
        key: &str,
        value: Option<&[u8]>,
        generation: Option<&Generation>,
    ) -> Result<(), StorageError> {
        let condition = generation.copied().unwrap_or(Generation(0));
        match value {
            Some(value) => self.put(key, value, Some(condition)),
            None => self.delete(key, Some(condition)),
        }
    }

    /// HTTP 412; and a 404 to a conditional delete: the object the merge saw is gone, so
    /// the merge must run again.
    fn lost_race(&self, error: &StorageError) -> bool {
        lost_race(error) || is_status(error, 404)
    }

    fn conflict_key(&self, key: &str) -> String {
        format!("gs://{}/{}", self.bucket, self.object(key))
    }

    fn update_attempts(&self) -> Option<u32> {
        self.conditional_updates
    }

    fn is_read_only(&self) -> bool {
        self.read_only
    }
}

impl ListableStorage for GcsStore {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let full_prefix = format!("{}{prefix}", self.prefix);
        let mut keys = BTreeSet::new();
        let mut prefixes = BTreeSet::new();
        let mut token: Option<String> = None;
        loop {
            let page = self.list_page(&full_prefix, token.as_deref())?;
            for item in &page.items {
                if let Some(name) = item.name.strip_prefix(&full_prefix) {
                    if !name.is_empty() && !name.contains('/') {
                        keys.insert(name.to_string());
                    }
                }
            }
            for common in &page.prefixes {
                if let Some(name) = common.strip_prefix(&full_prefix) {
                    let name = name.trim_end_matches('/');
                    if !name.is_empty() && !name.contains('/') {
                        prefixes.insert(name.to_string());
                    }
                }
            }
            match page.next_page_token {
                Some(next) if !next.is_empty() && token.as_deref() != Some(next.as_str()) => {
                    token = Some(next)
                }
                _ => break,
            }
        }
        Ok(DirListing {
            keys: keys.into_iter().collect(),
            prefixes: prefixes.into_iter().collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn endpoints_come_from_the_option_then_the_emulator_variable() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            let map: HashMap<&str, &str> = pairs.iter().copied().collect();
            move |name: &str| map.get(name).map(|v| v.to_string())
        };
        let options = |json: &str| UrlOptions::parse(json, super::super::Scheme::Gcs).unwrap();
        let none = env(&[]);
        assert_eq!(
            endpoint_of(&options("{}"), &none).unwrap(),
            DEFAULT_ENDPOINT
        );
        let emulator = env(&[("STORAGE_EMULATOR_HOST", "127.0.0.1:9023")]);
        assert_eq!(
            endpoint_of(&options("{}"), &emulator).unwrap(),
            "http://127.0.0.1:9023"
        );
        let emulator_url = env(&[("STORAGE_EMULATOR_HOST", "http://localhost:9023/")]);
        assert_eq!(
            endpoint_of(&options("{}"), &emulator_url).unwrap(),
            "http://localhost:9023"
        );
        assert_eq!(
            endpoint_of(&options(r#"{"endpoint": "http://h:1"}"#), &emulator).unwrap(),
            "http://h:1"
        );
        let message = endpoint_of(&options(r#"{"endpoint": "ftp://h"}"#), &none).unwrap_err();
        assert!(message.contains("option 'endpoint' 'ftp://h'"), "{message}");
    }

    #[test]
    fn only_google_endpoints_ask_the_metadata_server() {
        assert!(is_google(DEFAULT_ENDPOINT));
        assert!(is_google("https://storage-abc.p.googleapis.com"));
        assert!(!is_google("http://127.0.0.1:9023"));
        assert!(!is_google("https://googleapis.com.example.org"));
    }

    #[test]
    fn object_names_are_escaped_whole() {
        assert_eq!(encode("a/b c/zarr.json"), "a%2Fb%20c%2Fzarr.json");
        assert_eq!(encode("x-1_2.~"), "x-1_2.~");
    }

    #[test]
    fn listing_pages_parse() {
        let page: ListPage = serde_json::from_str(
            r#"{"kind": "storage#objects", "items": [{"name": "p/a", "size": "3"}],
                "prefixes": ["p/c/"], "nextPageToken": "t"}"#,
        )
        .unwrap();
        assert_eq!(page.items[0].name, "p/a");
        assert_eq!(page.prefixes, vec!["p/c/"]);
        assert_eq!(page.next_page_token.as_deref(), Some("t"));
        let empty: ListPage = serde_json::from_str(r#"{"kind": "storage#objects"}"#).unwrap();
        assert!(empty.items.is_empty() && empty.next_page_token.is_none());
    }

    // Against the loopback GCS emulator of tests/servers (tests/servers/gcs_emulator.py;
    // ctest runs these as url.rust_remote with ZARR_TEST_SERVERS_ENV set): what the C API
    // cannot reach.

    fn servers() -> HashMap<String, String> {
        let file = std::env::var("ZARR_TEST_SERVERS_ENV")
            .expect("ZARR_TEST_SERVERS_ENV: run through ctest (url.rust_remote)");
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// A store under a fresh prefix of the bucket zarr-test on the emulator.
    fn emulator_store(name: &str) -> GcsStore {
        let endpoint = servers()["GCS_URL"].clone();
        let json = format!(r#"{{"endpoint": "{endpoint}", "anonymous": true}}"#);
        let options = UrlOptions::parse(&json, super::super::Scheme::Gcs).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let prefix = format!("rust-{name}-{}-{now}/", std::process::id());
        let no_env = |_: &str| None;
        let store = GcsStore::new("zarr-test", &prefix, &options, &no_env).unwrap();
        store.check_bucket("gs://zarr-test").unwrap();
        store
    }

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    #[ignore = "needs the loopback servers (ctest url.rust_remote)"]
    fn remote_server_gcs_resumable_uploads_in_pieces() {
        let mut store = emulator_store("resumable");
        store.resumable_threshold = 300 * 1024;
        store.resumable_piece = 256 * 1024;
        // Three pieces, the last one short; then the same through a conditional update.
        let value = pattern(600 * 1024 + 17, 1);
        store.set("c/0", &value).unwrap();
        assert_eq!(store.get("c/0").unwrap().unwrap(), value);
        let newer = pattern(700 * 1024, 2);
        crate::storage::update_value(&store, "c/0", |current| {
            assert_eq!(current.as_deref(), Some(value.as_slice()));
            Ok::<_, StorageError>(Some(newer.clone()))
        })
        .unwrap();
        assert_eq!(store.get("c/0").unwrap().unwrap(), newer);
        assert_eq!(store.value_size("c/0").unwrap(), Some(newer.len() as u64));
        // A piece of exactly the piece size ends the upload too.
        let exact = pattern(512 * 1024, 3);
        store.set("c/1", &exact).unwrap();
        assert_eq!(store.get("c/1").unwrap().unwrap(), exact);
    }

    #[test]
    #[ignore = "needs the loopback servers (ctest url.rust_remote)"]
    fn remote_server_gcs_listing_follows_pages() {
        let mut store = emulator_store("pages");
        store.list_page_size = Some(2);
        for key in ["a", "b", "c", "d/x", "e/y", "f"] {
            store.set(key, b"1").unwrap();
        }
        let listing = store.list_dir("").unwrap();
        assert_eq!(listing.keys, vec!["a", "b", "c", "f"]);
        assert_eq!(listing.prefixes, vec!["d", "e"]);
        assert_eq!(store.list_dir("d/").unwrap().keys, vec!["x"]);
        store.erase_prefix("").unwrap();
        assert_eq!(store.list_dir("").unwrap(), DirListing::default());
    }

    /// An update whose conditional write loses a race (another writer changes the object
    /// between its read and its write) reads and merges again, so both changes survive;
    /// an erase that loses one does not delete the other writer's value.
    #[test]
    #[ignore = "needs the loopback servers (ctest url.rust_remote)"]
    fn remote_server_gcs_updates_that_lose_a_race_merge_again() {
        let store = emulator_store("race");
        let other = GcsStore::new(
            "zarr-test",
            &store.prefix,
            &UrlOptions::parse(
                &format!(r#"{{"endpoint": "{}", "anonymous": true}}"#, store.endpoint),
                super::super::Scheme::Gcs,
            )
            .unwrap(),
            &|_: &str| None,
        )
        .unwrap();
        store.set("k", b"A").unwrap();
        let mut calls = 0;
        crate::storage::update_value(&store, "k", |current| {
            calls += 1;
            if calls == 1 {
                // Another writer comes first.
                other.set("k", b"AB").unwrap();
            }
            let mut value = current.unwrap();
            value.push(b'C');
            Ok::<_, StorageError>(Some(value))
        })
        .unwrap();
        assert_eq!(
            calls, 2,
            "the first write must have been refused (HTTP 412)"
        );
        assert_eq!(store.get("k").unwrap().unwrap(), b"ABC");

        let mut calls = 0;
        crate::storage::update_value(&store, "k", |current| {
            calls += 1;
            if calls == 1 {
                other.set("k", b"D").unwrap();
                return Ok::<_, StorageError>(None);
            }
            Ok(current)
        })
        .unwrap();
        assert_eq!(calls, 2, "the first delete must have been refused");
        assert_eq!(store.get("k").unwrap().unwrap(), b"D");

        // Created meanwhile by another writer: the update that saw nothing merges again.
        let mut calls = 0;
        crate::storage::update_value(&store, "new", |current| {
            calls += 1;
            if calls == 1 {
                assert!(current.is_none());
                other.set("new", b"X").unwrap();
            }
            let mut value = current.unwrap_or_default();
            value.push(b'Y');
            Ok::<_, StorageError>(Some(value))
        })
        .unwrap();
        assert_eq!(store.get("new").unwrap().unwrap(), b"XY");
    }

    #[test]
    #[ignore = "needs the loopback servers (ctest url.rust_remote)"]
    fn remote_server_gcs_ranges_and_absent_keys() {
        let store = emulator_store("ranges");
        let value = pattern(1000, 4);
        store.set("v", &value).unwrap();
        let ranges = [
            ByteRange::FromStart {
                offset: 10,
                length: 5,
            },
            ByteRange::Suffix { length: 3 },
            ByteRange::FromStart {
                offset: 900,
                length: 100,
            },
        ];
        let (size, bytes) = store.read_ranges("v", &ranges).unwrap().unwrap();
        let (expected_size, expected) = crate::storage::ranges_of("v", &value, &ranges).unwrap();
        assert_eq!(size, Some(expected_size));
        assert_eq!(bytes, expected);
        let past = ByteRange::FromStart {
            offset: 990,
            length: 20,
        };
        assert!(matches!(
            store.get_range("v", past),
            Err(StorageError::RangeOutOfBounds { .. })
        ));
        // Empty ranges ask the metadata, not the media URL (which answers no HEAD).
        let empty = ByteRange::FromStart {
            offset: 1000,
            length: 0,
        };
        assert_eq!(store.get_range("v", empty).unwrap().unwrap(), b"");
        assert_eq!(
            store.read_ranges("v", &[empty]).unwrap().unwrap(),
            (Some(1000), Vec::new())
        );
        let past = ByteRange::FromStart {
            offset: 1001,
            length: 0,
        };
        assert!(matches!(
            store.get_range("v", past),
            Err(StorageError::RangeOutOfBounds { size: 1000, .. })
        ));
        assert_eq!(store.get_range("missing", empty).unwrap(), None);
        assert_eq!(store.get("missing").unwrap(), None);
        assert_eq!(store.value_size("missing").unwrap(), None);
        store.erase("missing").unwrap();
    }
}
