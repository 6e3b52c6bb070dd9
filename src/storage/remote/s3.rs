//! A store in an S3-compatible object store (AWS S3, MinIO, Ceph, moto, s3s...): keys
//! are objects under `bucket/prefix/`. Requests are signed with SigV4 query parameters
//! (presigned URLs, by rusty-s3) and sent by the shared [`Client`].

use super::credentials::CredentialSource;
use super::error::{RemoteError, RemoteErrorKind};
use super::http::{
    header, io_failure, status_failure, transport_failure, Client, Failure, Method, ObjectUrls,
    Reader,
};
use crate::storage::{
    validate_key, validate_prefix, ByteRange, DirListing, ListableStorage, ReadableStorage,
    StorageError, WritableStorage,
};
use instant_xml::FromXml;
use percent_encoding::percent_decode_str;
use rusty_s3::actions::{
    AbortMultipartUpload, CompleteMultipartUpload, CreateMultipartUpload, DeleteObject, GetObject,
    HeadObject, ListObjectsV2, PutObject, S3Action, UploadPart,
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

/// An S3 bucket (and key prefix) as a store.
pub struct S3Store {
    bucket: Bucket,
    /// `""` or a prefix ending in `/`, prepended to every key.
    prefix: String,
    credentials: CredentialSource,
    client: Client,
    read_only: bool,
    /// Values above this size use multipart uploads (a field so that tests can lower it).
    pub(crate) multipart_threshold: usize,
    pub(crate) part_size: usize,
}

impl std::fmt::Debug for S3Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Store")
            .field("bucket", &self.bucket.name())
            .field("prefix", &self.prefix)
            .field("endpoint", &self.bucket.base_url().as_str())
            .field("credentials", &self.credentials)
            .field("read_only", &self.read_only)
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
    ) -> S3Store {
        S3Store {
            bucket,
            prefix,
            credentials,
            client,
            read_only,
            multipart_threshold: MULTIPART_THRESHOLD,
            part_size: PART_SIZE,
        }
    }

    fn object(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
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
        self.client.retrying(|| {
            let credentials = self.credentials.current();
            let url = sign(credentials.as_deref());
            let response = self
                .client
                .send(method, &url, &[], body)
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

    fn put_single(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
        let object = self.object(key);
        let display = self.display(key);
        self.request(
            Method::Put,
            &display,
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
    /// object and no stray parts remain.
    fn put_multipart(&self, key: &str, value: &[u8]) -> Result<(), StorageError> {
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
        let result = self.upload_parts(&object, &display, &upload_id, value);
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
        object: &str,
        display: &str,
        upload_id: &str,
        value: &[u8],
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
        self.request(
            Method::Post,
            display,
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
        )
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
    ) -> Result<Option<(u64, Vec<u8>)>, StorageError> {
        validate_key(key)?;
        self.reader()
            .read_ranges(key, ranges)
            .map_err(|e| self.explain_error(e))
    }

    fn max_concurrency(&self) -> Option<usize> {
        Some(self.client.max_concurrency())
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
            self.put_multipart(key, value)
        } else {
            self.put_single(key, value)
        }
    }

    fn erase(&self, key: &str) -> Result<(), StorageError> {
        if self.read_only {
            return Err(StorageError::ReadOnly);
        }
        validate_key(key)?;
        let object = self.object(key);
        let display = self.display(key);
        let result = self.request(
            Method::Delete,
            &display,
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
            Err(StorageError::Remote(e)) if e.detail.starts_with("HTTP 404") => Ok(()),
            other => other,
        }
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
}
