//! A store in an S3-compatible object store (AWS S3, MinIO, Ceph, moto, s3s...): keys
//! are objects under `bucket/prefix/`. Requests are signed with SigV4 query parameters
//! (presigned URLs, by rusty-s3) and sent by the shared [`Client`].

use super::conditional::{self, ConditionalStore};
use super::credentials::CredentialSource;
use super::error::{RemoteError, RemoteErrorKind};
use super::http::{
    header, io_failure, status_failure, transport_failure, Client, Failure, Method, ObjectUrls,
    Reader,
};
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, Merge, ReadableStorage,
    StorageError, UpdateError, UpdateProtection, WritableStorage,
};
use instant_xml::FromXml;
use percent_encoding::percent_decode_str;
use rusty_s3::actions::{
    AbortMultipartUpload, CompleteMultipartUpload, CreateBucket, CreateMultipartUpload,
    DeleteObject, GetObject, HeadBucket, HeadObject, ListObjectsV2, PutObject, S3Action,
    UploadPart,
};
use rusty_s3::{Bucket, Credentials};
use std::collections::BTreeSet;
use std::io::Read;
use std::time::Duration;

/// Lifetime of each presigned request URL (each attempt signs anew).
const SIGNATURE_EXPIRY: Duration = Duration::from_secs(3600);
/// Values larger than this are written with a multipart upload.
pub const MULTIPART_THRESHOLD: usize = 16 << 20;
/// Size of each part of a multipart upload (the last may be smaller; larger values use
/// larger parts so that no upload needs more than S3's 10,000 parts).
pub const PART_SIZE: usize = 8 << 20;
const MAX_PARTS: usize = 10_000;
/// The largest listing page or multipart response read.
const MAX_XML_RESPONSE: u64 = 64 << 20;

const S3_XML_NS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

/// A ListObjectsV2 page, as far as listing needs it. rusty-s3 builds and signs the
/// request, but its response type insists on fields (ETag, LastModified, Size) that some
/// S3-compatible servers leave out of listings, so the page is read with these lenient
/// types (instant-xml, rusty-s3's XML parser) instead.
#[derive(FromXml)]
#[xml(rename = "ListBucketResult", ns(S3_XML_NS))]
struct ListPage {
    contents: Vec<ListedObject>,
    common_prefixes: Vec<ListedPrefix>,
    #[xml(rename = "NextContinuationToken")]
    next_continuation_token: Option<String>,
    #[xml(rename = "EncodingType")]
    encoding_type: Option<String>,
}

#[derive(FromXml)]
#[xml(rename = "Contents", ns(S3_XML_NS))]
struct ListedObject {
    #[xml(rename = "Key")]
    key: String,
}

#[derive(FromXml)]
#[xml(rename = "CommonPrefixes", ns(S3_XML_NS))]
struct ListedPrefix {
    #[xml(rename = "Prefix")]
    prefix: String,
}

impl ListPage {
    /// Parse a page; keys are percent-decoded when the server encoded them (the request
    /// asks for `encoding-type=url`).
    fn parse(text: &str) -> Result<ListPage, instant_xml::Error> {
        let mut page: ListPage = instant_xml::from_str(text)?;
        if page.encoding_type.as_deref() == Some("url") {
            let decode = |s: &mut String| {
                *s = percent_decode_str(s).decode_utf8_lossy().into_owned();
            };
            page.contents.iter_mut().for_each(|c| decode(&mut c.key));
            page.common_prefixes
                .iter_mut()
                .for_each(|p| decode(&mut p.prefix));
        }
        Ok(page)
    }
}

pub use super::conditional::DEFAULT_UPDATE_ATTEMPTS;

/// The condition of a conditional write: the object is still the version read (its
/// entity tag), or there is still no object.
#[derive(Debug)]
enum Precondition {
    Matches(String),
    Absent,
}

impl Precondition {
    /// The request headers that state `condition` (none without one).
    fn headers(condition: Option<&Precondition>) -> Vec<(&'static str, String)> {
        match condition {
            None => Vec::new(),
            Some(Precondition::Matches(etag)) => vec![("If-Match", etag.clone())],
            Some(Precondition::Absent) => vec![("If-None-Match", "*".to_string())],
        }
    }
}

/// Whether a conditional write failed because another writer came first: 412
/// Precondition Failed, or 409 ConditionalRequestConflict (AWS: another conditional write
/// of the object was in flight).
fn lost_race(error: &StorageError) -> bool {
    matches!(error, StorageError::Remote(e) if matches!(e.status, Some(412 | 409)))
}

/// What a `HEAD` of the bucket found out ([`S3Store::check_bucket`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BucketCheck {
    Exists,
    /// HTTP 404: there is no such bucket (S3's `NoSuchBucket`).
    Missing,
    /// HTTP 401 or 403: these credentials may not look at the bucket itself, which says
    /// nothing of its objects (reading an object needs `s3:GetObject`, a `HEAD` of the
    /// bucket `s3:ListBucket`), so the store is used and any refusal shows there.
    NotAllowed,
}

/// An S3 bucket (and key prefix) as a store.
pub struct S3Store {
    bucket: Bucket,
    /// `""` or a prefix ending in `/`, prepended to every key.
    prefix: String,
    credentials: CredentialSource,
    client: Client,
    read_only: bool,
    /// Update parts of chunks with conditional writes (see [`S3Store::update`]), at most
    /// this many attempts each; `None`: without conditions.
    conditional_updates: Option<u32>,
    /// Values above this size use multipart uploads (a field so that tests can lower it).
    pub(crate) multipart_threshold: usize,
    pub(crate) part_size: usize,
    /// Keys per listing page asked for (`None`: the service's default, 1,000 on S3).
    pub(crate) list_page_size: Option<usize>,
}

impl std::fmt::Debug for S3Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Store")
            .field("bucket", &self.bucket.name())
            .field("prefix", &self.prefix)
            .field("endpoint", &self.bucket.base_url().as_str())
            .field("credentials", &self.credentials)
            .field("read_only", &self.read_only)
            .field("conditional_updates", &self.conditional_updates)
            .finish_non_exhaustive()
    }
}

impl S3Store {
    /// A store over `bucket` (which carries the endpoint, URL style and region), keys
    /// under `prefix` (`""` or ending in `/`).
    pub(crate) fn new(
        bucket: Bucket,
        prefix: String,
        credentials: CredentialSource,
        client: Client,
        read_only: bool,
        conditional_updates: Option<u32>,
    ) -> S3Store {
        S3Store {
            bucket,
            prefix,
            credentials,
            client,
            read_only,
            conditional_updates,
            multipart_threshold: MULTIPART_THRESHOLD,
            part_size: PART_SIZE,
            list_page_size: None,
        }
    }

    fn object(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// The bucket's name and where it is, for messages: "bucket 'b' at http://host/".
    pub(crate) fn bucket_description(&self) -> String {
        format!("bucket '{}' at {}", self.bucket.name(), self.endpoint())
    }

    /// The service's URL, for messages: the bucket's base URL without the bucket in its
    /// path (path style: `http://host/bucket/`); a virtual-host URL names the bucket in
    /// its host and stays whole.
    fn endpoint(&self) -> String {
        let base = self.bucket.base_url().as_str();
        base.strip_suffix(&format!("{}/", self.bucket.name()))
            .unwrap_or(base)
            .to_string()
    }

    /// Whether the bucket exists: one `HEAD` of it (with retries). Any other failure
    /// (the endpoint cannot be reached, a 5xx on every attempt) is returned.
    pub(crate) fn check_bucket(&self) -> Result<BucketCheck, StorageError> {
        let display = self.bucket.base_url().to_string();
        let outcome = self.request(
            Method::Head,
            &display,
            None,
            |c| {
                HeadBucket::new(&self.bucket, c)
                    .sign(SIGNATURE_EXPIRY)
                    .into()
            },
            |_| Ok(()),
        );
        match outcome {
            Ok(()) => Ok(BucketCheck::Exists),
            Err(StorageError::Remote(e)) if e.status == Some(404) => Ok(BucketCheck::Missing),
            Err(StorageError::Remote(e)) if e.kind == RemoteErrorKind::AccessDenied => {
                Ok(BucketCheck::NotAllowed)
            }
            Err(other) => Err(other),
        }
    }

    /// Create the bucket (`PUT` of the bucket, in the store's region). A bucket that
    /// this account already owns is not an error: another process may have created it
    /// between the check and now.
    pub(crate) fn create_bucket(&self) -> Result<(), StorageError> {
        let display = self.bucket.base_url().to_string();
        let Some(credentials) = self.credentials.current() else {
            return Err(StorageError::Remote(RemoteError::new(
                RemoteErrorKind::AccessDenied,
                Method::Put.name(),
                &display,
                "creating a bucket needs credentials; this store is anonymous",
            )));
        };
        // Outside us-east-1, S3 wants the region in the body (and refuses it inside).
        let region = self.bucket.region();
        let body = (region != "us-east-1").then(|| {
            format!(
                "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\
                 <LocationConstraint>{region}</LocationConstraint></CreateBucketConfiguration>"
            )
        });
        let outcome = self.request(
            Method::Put,
            &display,
            body.as_deref().map(str::as_bytes),
            |_| {
                CreateBucket::new(&self.bucket, &credentials)
                    .sign(SIGNATURE_EXPIRY)
                    .into()
            },
            |_| Ok(()),
        );
        match outcome {
            Err(StorageError::Remote(e))
                if e.status == Some(409) && e.detail.contains("BucketAlreadyOwnedByYou") =>
            {
                Ok(())
            }
            other => other.map_err(|e| self.explain_error(e)),
        }
    }

    fn reader(&self) -> Reader<'_> {
        Reader {
            client: &self.client,
            urls: self,
        }
    }

    /// Run one request built by `sign` (given the current credentials) with retries;
    /// `accept` turns a 2xx response into the result.
    fn request<T>(
        &self,
        method: Method,
        display: &str,
        body: Option<&[u8]>,
        sign: impl Fn(Option<&Credentials>) -> String,
        accept: impl Fn(ureq::http::Response<ureq::Body>) -> Result<T, Failure>,
    ) -> Result<T, StorageError> {
        self.request_with_headers(method, display, &[], body, sign, accept)
    }

    /// [`S3Store::request`] with extra (unsigned) request headers.
    fn request_with_headers<T>(
        &self,
        method: Method,
        display: &str,
        headers: &[(&str, String)],
        body: Option<&[u8]>,
        sign: impl Fn(Option<&Credentials>) -> String,
        accept: impl Fn(ureq::http::Response<ureq::Body>) -> Result<T, Failure>,
    ) -> Result<T, StorageError> {
        self.client.retrying(|| {
            let credentials = self.credentials.current();
            let url = sign(credentials.as_deref());
            let response = self
                .client
                .send(method, &url, headers, body)
                .map_err(|e| transport_failure(method, display, e))?;
            if response.status().is_success() {
                accept(response)
            } else {
                Err(self.explain(status_failure(method, display, response)))
            }
        })
    }

    /// Add where the credentials came from to an access-denied failure.
    fn explain(&self, failure: Failure) -> Failure {
        match failure {
            Failure::Fatal(StorageError::Remote(mut e))
                if e.kind == RemoteErrorKind::AccessDenied =>
            {
                e.detail = format!(
                    "{}; credentials from {}",
                    e.detail,
                    self.credentials.origin()
                );
                Failure::Fatal(StorageError::Remote(e))
            }
            other => other,
        }
    }

    /// Read a small XML response body as text.
    fn xml_text(
        method: Method,
        display: &str,
        response: ureq::http::Response<ureq::Body>,
    ) -> Result<String, Failure> {
        let mut text = String::new();
        response
            .into_body()
            .into_with_config()
            .limit(MAX_XML_RESPONSE)
            .reader()
            .take(MAX_XML_RESPONSE)
            .read_to_string(&mut text)
            .map_err(|e| io_failure(method, display, e))?;
        Ok(text)
    }

    fn malformed(method: Method, display: &str, what: impl std::fmt::Display) -> Failure {
        Failure::Fatal(StorageError::Remote(RemoteError::new(
            RemoteErrorKind::Service,
            method.name(),
            display,
            format!("malformed response: {what}"),
        )))
    }

    /// PUT `value` at `key`, only if `condition` holds when given.
    fn put_single(
        &self,
        key: &str,
        value: &[u8],
        condition: Option<&Precondition>,
    ) -> Result<(), StorageError> {
        let object = self.object(key);
        let display = self.display(key);
        let headers = Precondition::headers(condition);
        self.request_with_headers(
            Method::Put,
            &display,
            &headers,
            Some(value),
            |c| {
                PutObject::new(&self.bucket, c, &object)
                    .sign(SIGNATURE_EXPIRY)
                    .into()
            },
            |_| Ok(()),
        )
    }

    /// Write `value` in parts, concurrently; on any failure the upload is aborted, so no
    /// object and no stray parts remain. With a `condition`, the completion of the upload
    /// is conditional (S3 checks `If-Match` and `If-None-Match` there).
    fn put_multipart(
        &self,
        key: &str,
        value: &[u8],
        condition: Option<&Precondition>,
    ) -> Result<(), StorageError> {
        let object = self.object(key);
        let display = self.display(key);
        let upload_id = self.request(
            Method::Post,
            &display,
            Some(&[]),
            |c| {
                CreateMultipartUpload::new(&self.bucket, c, &object)
                    .sign(SIGNATURE_EXPIRY)
                    .into()
            },
            |response| {
                let text = Self::xml_text(Method::Post, &display, response)?;
                let parsed = CreateMultipartUpload::parse_response(&text)
                    .map_err(|e| Self::malformed(Method::Post, &display, e))?;
                Ok(parsed.upload_id().to_string())
            },
        )?;
        let result = self.upload_parts(key, &object, &display, &upload_id, value, condition);
        if result.is_err() {
            // Best effort: the original error is what the caller needs to see.
            let _ = self.request(
                Method::Delete,
                &display,
                None,
                |c| {
                    AbortMultipartUpload::new(&self.bucket, c, &object, &upload_id)
                        .sign(SIGNATURE_EXPIRY)
                        .into()
                },
                |_| Ok(()),
            );
        }
        result
    }

    fn upload_parts(
        &self,
        key: &str,
        object: &str,
        display: &str,
        upload_id: &str,
        value: &[u8],
        condition: Option<&Precondition>,
    ) -> Result<(), StorageError> {
        let part_size = self.part_size.max(value.len().div_ceil(MAX_PARTS));
        let parts: Vec<&[u8]> = value.chunks(part_size).collect();
        let etags = self.client.concurrently(parts.len(), |i| {
            // At most MAX_PARTS parts, so the number fits.
            let number = (i + 1) as u16;
            self.request(
                Method::Put,
                display,
                Some(parts[i]),
                |c| {
                    UploadPart::new(&self.bucket, c, object, number, upload_id)
                        .sign(SIGNATURE_EXPIRY)
                        .into()
                },
                |response| {
                    header(&response, "etag")
                        .map(str::to_string)
                        .ok_or_else(|| Self::malformed(Method::Put, display, "part without ETag"))
                },
            )
        })?;
        let headers = Precondition::headers(condition);
        let completed = self.request_with_headers(
            Method::Post,
            display,
            &headers,
            Some(
                CompleteMultipartUpload::new(
                    &self.bucket,
                    None,
                    object,
                    upload_id,
                    etags.iter().map(String::as_str),
                )
                .body()
                .as_bytes(),
            ),
            |c| {
                CompleteMultipartUpload::new(
                    &self.bucket,
                    c,
                    object,
                    upload_id,
                    etags.iter().map(String::as_str),
                )
                .sign(SIGNATURE_EXPIRY)
                .into()
            },
            |response| {
                // S3 may answer 200 and still fail, with an <Error> document.
                let text = Self::xml_text(Method::Post, display, response)?;
                if text.contains("<Error>") {
                    return Err(Failure::Retry(RemoteError::new(
                        RemoteErrorKind::Service,
                        "POST",
                        display,
                        format!("completing the multipart upload failed: {}", text.trim()),
                    )));
                }
                Ok(())
            },
        );
        match completed {
            // A retried completion whose first attempt succeeded (and whose answer was
            // lost) finds the upload gone: then the object is there, whole.
            Err(StorageError::Remote(e))
                if e.status == Some(404) && e.detail.contains("NoSuchUpload") =>
            {
                match self.reader().size(key)? {
                    Some(size) if size == value.len() as u64 => Ok(()),
                    _ => Err(StorageError::Remote(e)),
                }
            }
            other => other,
        }
    }

    fn list_page(&self, full_prefix: &str, token: Option<&str>) -> Result<ListPage, StorageError> {
        let display = format!("{} (listing '{full_prefix}')", self.bucket.base_url());
        self.request(
            Method::Get,
            &display,
            None,
            |c| {
                let mut action = ListObjectsV2::new(&self.bucket, c);
                if !full_prefix.is_empty() {
                    action.with_prefix(full_prefix);
                }
                action.with_delimiter("/");
                if let Some(n) = self.list_page_size {
                    action.with_max_keys(n);
                }
                if let Some(token) = token {
                    action.with_continuation_token(token);
                }
                action.sign(SIGNATURE_EXPIRY).into()
            },
            |response| {
                let text = Self::xml_text(Method::Get, &display, response)?;
                ListPage::parse(&text).map_err(|e| Self::malformed(Method::Get, &display, e))
            },
        )
    }
}

impl ObjectUrls for S3Store {
    fn url(&self, method: Method, key: &str) -> Result<String, StorageError> {
        let object = self.object(key);
        let credentials = self.credentials.current();
        let c = credentials.as_deref();
        let url = match method {
            Method::Get => GetObject::new(&self.bucket, c, &object).sign(SIGNATURE_EXPIRY),
            Method::Head => HeadObject::new(&self.bucket, c, &object).sign(SIGNATURE_EXPIRY),
            Method::Put => PutObject::new(&self.bucket, c, &object).sign(SIGNATURE_EXPIRY),
            Method::Delete => DeleteObject::new(&self.bucket, c, &object).sign(SIGNATURE_EXPIRY),
            Method::Post => unreachable!("no POST on a plain object"),
        };
        Ok(url.into())
    }

    fn display(&self, key: &str) -> String {
        let object = self.object(key);
        self.bucket
            .object_url(&object)
            .map(String::from)
            .unwrap_or_else(|_| format!("{}{object}", self.bucket.base_url()))
    }
}

impl ReadableStorage for S3Store {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        self.reader().get(key).map_err(|e| self.explain_error(e))
    }

    fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>, StorageError> {
        validate_key(key)?;
        Ok(self
            .reader()
            .get_range(key, range)
            .map_err(|e| self.explain_error(e))?
            .map(|f| f.bytes))
    }

    fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        validate_key(key)?;
        self.reader()
            .read_ranges(key, ranges)
            .map_err(|e| self.explain_error(e))
    }

    fn max_concurrency(&self) -> Option<usize> {
        Some(self.client.max_concurrency())
    }

    fn location(&self) -> String {
        format!(
            "s3://{}/{} at {}",
            self.bucket.name(),
            self.prefix,
            self.endpoint()
        )
    }

    fn key_location(&self, key: &str) -> String {
        self.display(key)
    }
}

impl S3Store {
    fn explain_error(&self, error: StorageError) -> StorageError {
        match self.explain(Failure::Fatal(error)) {
            Failure::Fatal(e) => e,
            Failure::Retry(e) => StorageError::Remote(e),
        }
    }
}

impl WritableStorage for S3Store {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        if value.len() > self.multipart_threshold {
            self.put_multipart(key, value, None)
        } else {
            self.put_single(key, value, None)
        }
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        self.delete_if(key, None)
    }

    /// Read the object and its entity tag, merge, and write the result only if the object
    /// is still the one read (`If-Match`, or `If-None-Match: *` when there was none;
    /// erasing with a conditional DELETE). When another writer came first, wait a random
    /// while and start over, at most `update_attempts` times. Without the option
    /// `conditional_writes`, an unprotected read, merge and write.
    fn update(&self, key: &str, merge: &mut Merge<'_>) -> Result<(), UpdateError> {
        conditional::update(self, key, merge)
    }

    fn update_protection(&self) -> UpdateProtection {
        conditional::protection(self)
    }
}

impl S3Store {
    /// DELETE the object at `key`, only if `condition` holds when given; a missing object
    /// is no error.
    fn delete_if(&self, key: &str, condition: Option<&Precondition>) -> Result<(), StorageError> {
        let object = self.object(key);
        let display = self.display(key);
        let headers = Precondition::headers(condition);
        let result = self.request_with_headers(
            Method::Delete,
            &display,
            &headers,
            None,
            |c| {
                DeleteObject::new(&self.bucket, c, &object)
                    .sign(SIGNATURE_EXPIRY)
                    .into()
            },
            |_| Ok(()),
        );
        match result {
            // Removing a missing key is not an error (S3 itself answers 204 anyway).
            Err(StorageError::Remote(e)) if e.status == Some(404) => Ok(()),
            other => other,
        }
    }
}

/// S3's side of the protected update: the version is the entity tag; the write is
/// conditional with `If-Match` (`If-None-Match: *` when there was no object), an erase a
/// conditional DELETE; 412, or 409 ConditionalRequestConflict, is a lost race.
impl ConditionalStore for S3Store {
    type Version = String;

    fn read_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, String)>, StorageError> {
        match self.reader().get_versioned(key) {
            Ok(Some((value, Some(etag)))) => Ok(Some((value, etag))),
            Ok(Some((_, None))) => Err(StorageError::Remote(RemoteError::new(
                RemoteErrorKind::Service,
                "GET",
                &self.display(key),
                "the service sent no ETag, so part of this object cannot be updated \
                 safely; open the store with the option \"conditional_writes\": false \
                 to update without protection (then write only whole chunks from \
                 several processes)",
            ))),
            Ok(None) => Ok(None),
            Err(e) => Err(self.explain_error(e)),
        }
    }

    fn write_if(
        &self,
        key: &str,
        value: Option<&[u8]>,
        etag: Option<&String>,
    ) -> Result<(), StorageError> {
        let condition = match etag {
            Some(etag) => Precondition::Matches(etag.clone()),
            None => Precondition::Absent,
        };
        let written = match value {
            Some(value) if value.len() > self.multipart_threshold => {
                self.put_multipart(key, value, Some(&condition))
            }
            Some(value) => self.put_single(key, value, Some(&condition)),
            None => self.delete_if(key, Some(&condition)),
        };
        written.map_err(|e| {
            if lost_race(&e) {
                e
            } else {
                self.explain_error(e)
            }
        })
    }

    fn lost_race(&self, error: &StorageError) -> bool {
        lost_race(error)
    }

    fn conflict_key(&self, key: &str) -> String {
        self.display(key)
    }

    fn update_attempts(&self) -> Option<u32> {
        self.conditional_updates
    }

    fn is_read_only(&self) -> bool {
        self.read_only
    }
}

impl ListableStorage for S3Store {
    fn list_dir(&self, prefix: &str) -> Result<DirListing, StorageError> {
        validate_prefix(prefix)?;
        let full_prefix = format!("{}{prefix}", self.prefix);
        let mut keys = BTreeSet::new();
        let mut prefixes = BTreeSet::new();
        let mut token: Option<String> = None;
        loop {
            let page = self.list_page(&full_prefix, token.as_deref())?;
            for content in &page.contents {
                if let Some(name) = content.key.strip_prefix(&full_prefix) {
                    if !name.is_empty() && !name.contains('/') {
                        keys.insert(name.to_string());
                    }
                }
            }
            for common in &page.common_prefixes {
                if let Some(name) = common.prefix.strip_prefix(&full_prefix) {
                    let name = name.trim_end_matches('/');
                    if !name.is_empty() && !name.contains('/') {
                        prefixes.insert(name.to_string());
                    }
                }
            }
            match page.next_continuation_token {
                Some(next) if !next.is_empty() && Some(&next) != token.as_ref() => {
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

    #[test]
    fn listing_pages_parse_leniently() {
        // No ETag, LastModified or Size (as s3s-fs lists), keys percent-encoded.
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount>
              <EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
              <Contents><Key>p/zarr.json</Key></Contents>
              <Contents><Key>p/a%20b</Key><Size>3</Size><ETag>"x"</ETag></Contents>
              <CommonPrefixes><Prefix>p/c%2Fd/</Prefix></CommonPrefixes>
              <NextContinuationToken>tok</NextContinuationToken>
            </ListBucketResult>"#;
        let page = ListPage::parse(text).unwrap();
        let keys: Vec<&str> = page.contents.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["p/zarr.json", "p/a b"]);
        assert_eq!(page.common_prefixes[0].prefix, "p/c/d/");
        assert_eq!(page.next_continuation_token.as_deref(), Some("tok"));
        assert!(ListPage::parse("<Error><Code>x</Code></Error>").is_err());
    }

    // Against the loopback servers of tests/servers (ctest runs these as url.rust_remote,
    // with ZARR_TEST_SERVERS_ENV set): what the C API cannot reach.

    use super::super::credentials::CredentialSource;
    use super::super::http::ClientConfig;
    use crate::storage::ranges_of;
    use std::collections::HashMap;

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

    /// A store at `prefix` of bucket zarr-test, reached through the counting proxy.
    fn counted_store(prefix: &str) -> S3Store {
        store_in_bucket("zarr-test", prefix)
    }

    /// A store at `prefix` of `bucket`, reached through the counting proxy (made without
    /// the check of the bucket that `open_url` does).
    fn store_in_bucket(bucket: &str, prefix: &str) -> S3Store {
        let endpoint = &servers()["ZARR_TEST_COUNTING_S3"];
        let bucket = Bucket::new(
            endpoint.parse().unwrap(),
            rusty_s3::UrlStyle::Path,
            bucket.to_string(),
            "us-east-1",
        )
        .unwrap();
        let client = Client::new(&ClientConfig {
            max_concurrency: 4,
            timeout: Duration::from_secs(30),
            max_retries: 2,
            tls: false,
            max_redirects: 0,
        })
        .unwrap();
        let credentials = CredentialSource::Static(
            std::sync::Arc::new(Credentials::new("test", "test")),
            "the options",
        );
        S3Store::new(
            bucket,
            format!("{prefix}/"),
            credentials,
            client,
            false,
            Some(DEFAULT_UPDATE_ATTEMPTS),
        )
    }

    fn unique(name: &str) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        format!("rust-{name}-{}-{now}", std::process::id())
    }

    /// Requests through the counting proxy whose log line holds every needle.
    fn requests(needles: &[&str]) -> usize {
        let log = std::path::Path::new(&servers()["ZARR_TEST_LOGS"]).join("counting.log");
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|line| needles.iter().all(|n| line.contains(n)))
            .count()
    }

    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_remote"]
    fn remote_server_listing_follows_pages() {
        let prefix = unique("pages");
        let mut store = counted_store(&prefix);
        store.list_page_size = Some(2);
        for key in ["k0", "k1", "k2", "k3", "k4", "d1/x", "d2/y", "d3/z/w"] {
            store.set(key, b"x").unwrap();
        }
        let listing = store.list_dir("").unwrap();
        assert_eq!(listing.keys, ["k0", "k1", "k2", "k3", "k4"]);
        assert_eq!(listing.prefixes, ["d1", "d2", "d3"]);
        assert_eq!(store.list_dir("d3/").unwrap().prefixes, ["z"]);
        // 8 entries at 2 a page (1 for d3/).
        assert_eq!(requests(&["GET ", "list-type=2", &prefix]), 5);
    }

    /// A bucket that is not there (deleted after the store was opened) is an error
    /// naming it, not a store whose every key reads as absent; a missing key in a bucket
    /// that is there still reads as absent.
    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_remote"]
    fn remote_server_missing_bucket_is_an_error() {
        let gone = store_in_bucket(&unique("gone"), "p/");
        assert_eq!(gone.check_bucket().unwrap(), BucketCheck::Missing);
        let not_found = |result: Result<(), StorageError>| match result {
            Err(StorageError::Remote(e)) => {
                assert_eq!(e.kind, RemoteErrorKind::NotFound, "{e}");
                assert!(e.detail.contains("NoSuchBucket"), "{e}");
            }
            other => panic!("expected NoSuchBucket, got {other:?}"),
        };
        not_found(gone.get("zarr.json").map(drop));
        not_found(
            gone.get_range(
                "c/0",
                ByteRange::FromStart {
                    offset: 0,
                    length: 4,
                },
            )
            .map(drop),
        );
        not_found(gone.set("zarr.json", b"{}"));
        not_found(gone.list_dir("").map(drop));
        let there = counted_store(&unique("there"));
        assert_eq!(there.check_bucket().unwrap(), BucketCheck::Exists);
        assert_eq!(there.get("zarr.json").unwrap(), None);
    }

    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_remote"]
    fn remote_server_read_ranges_merge_close_ranges() {
        let prefix = unique("ranges");
        let store = counted_store(&prefix);
        let value: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        store.set("v", &value).unwrap();
        let ranges = [
            ByteRange::FromStart {
                offset: 20,
                length: 10,
            },
            ByteRange::FromStart {
                offset: 0,
                length: 10,
            },
            ByteRange::FromStart {
                offset: 600_000,
                length: 1000,
            },
            ByteRange::Suffix { length: 100 },
            ByteRange::FromStart {
                offset: 999_950,
                length: 20,
            },
            ByteRange::FromStart {
                offset: 5,
                length: 0,
            },
        ];
        let before = requests(&["GET ", &prefix]);
        let got = store.read_ranges("v", &ranges).unwrap().unwrap();
        let (size, bytes) = ranges_of("v", &value, &ranges).unwrap();
        assert_eq!(got, (Some(size), bytes));
        // The suffix (which also covers 999,950..999,970), then 0..30 and 600,000..601,000
        // concurrently.
        assert_eq!(requests(&["GET ", &prefix]) - before, 3);
        assert!(store
            .read_ranges(
                "v",
                &[ByteRange::FromStart {
                    offset: 999_999,
                    length: 2
                }]
            )
            .is_err());
        assert_eq!(store.read_ranges("missing", &ranges).unwrap(), None);
        assert_eq!(store.get_range("missing", ranges[0]).unwrap(), None);
    }

    #[test]
    #[ignore = "needs the loopback servers: ctest -R url.rust_remote"]
    fn remote_server_multipart_uploads_parts_concurrently() {
        let prefix = unique("parts");
        let mut store = counted_store(&prefix);
        store.multipart_threshold = 1 << 20;
        store.part_size = 5 << 20; // S3's smallest part
        let value: Vec<u8> = (0..(11u32 << 20)).map(|i| (i % 253) as u8).collect();
        store.set("big", &value).unwrap();
        assert_eq!(store.get("big").unwrap().unwrap(), value);
        assert_eq!(requests(&["PUT ", &prefix, "partNumber="]), 3);
        assert_eq!(requests(&["POST ", &prefix, "uploadId="]), 1);
        store.erase("big").unwrap();
        store.erase("big").unwrap(); // a missing key is not an error
        assert_eq!(store.get("big").unwrap(), None);
    }
}
