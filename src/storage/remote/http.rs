//! The HTTP side of the remote stores: one pooled blocking client (ureq over rustls),
//! retries with exponential backoff and jitter, and the reads every remote store shares:
//! whole values, byte ranges (coping with servers that ignore `Range`) and several ranges
//! of one value fetched concurrently.

use super::error::{RemoteError, RemoteErrorKind};
use crate::storage::{value_buffer, ByteRange, StorageError};
use instant_xml::FromXml;
use std::io::Read;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use ureq::http::Response;
use ureq::Body;

/// First retry delay; each further retry doubles it, up to [`MAX_BACKOFF`].
const BASE_BACKOFF: Duration = Duration::from_millis(50);
/// Longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The most bytes read from a response whose length is not declared, when the whole
/// body is needed to cut a range from it (a server that ignores `Range` and streams).
const MAX_UNDECLARED_BODY: u64 = 1 << 30;
/// The most bytes of an error response read to explain the failure.
const MAX_ERROR_BODY: u64 = 16 * 1024;
/// Ranges of one value closer than this are fetched with one request.
pub(crate) const MERGE_GAP: u64 = 256 * 1024;

/// HTTP methods the stores use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Head,
    Put,
    Post,
    Delete,
}

impl Method {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// How a store turns keys into request URLs.
pub(crate) trait ObjectUrls: Send + Sync {
    /// The URL to send `method` for `key` to (signed, for S3).
    fn url(&self, method: Method, key: &str) -> Result<String, StorageError>;
    /// The URL of `key` as error messages show it: no query string, so no signature.
    fn display(&self, key: &str) -> String;
    /// Headers every request carries (GCS's `Authorization: Bearer`); none by default
    /// (S3 signs its URLs, HTTP stores are anonymous).
    fn auth_headers(&self) -> Result<Vec<(&'static str, String)>, StorageError> {
        Ok(Vec::new())
    }
    /// The response header naming the version of a value that a conditional write must
    /// repeat (`ETag`; GCS's object generation).
    fn version_header(&self) -> &'static str {
        "etag"
    }
}

/// Settings of a [`Client`].
#[derive(Clone, Debug)]
pub(crate) struct ClientConfig {
    pub max_concurrency: usize,
    pub timeout: Duration,
    pub max_retries: u32,
    /// Load trusted certificates (only needed for https).
    pub tls: bool,
    /// Redirects followed for GET and HEAD (S3 answers none that should be followed).
    pub max_redirects: u32,
}

/// A pooled HTTP client with a retry policy. Safe to share between threads.
pub(crate) struct Client {
    agent: ureq::Agent,
    max_retries: u32,
    max_concurrency: usize,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("max_retries", &self.max_retries)
            .field("max_concurrency", &self.max_concurrency)
            .finish_non_exhaustive()
    }
}

/// The certificates trusted for https: the system's store, or the file named by
/// `SSL_CERT_FILE` (or the directory `SSL_CERT_DIR`) when set, as OpenSSL does.
fn trusted_roots() -> Result<ureq::tls::RootCerts, String> {
    let found = rustls_native_certs::load_native_certs();
    if found.certs.is_empty() {
        let why = found
            .errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        return Err(format!(
            "no trusted TLS certificates found in the system store or SSL_CERT_FILE/SSL_CERT_DIR{}{why}",
            if why.is_empty() { "" } else { ": " }
        ));
    }
    let certs: Vec<ureq::tls::Certificate<'static>> = found
        .certs
        .iter()
        .map(|der| ureq::tls::Certificate::from_der(der.as_ref()).to_owned())
        .collect();
    Ok(ureq::tls::RootCerts::new_with_certs(&certs))
}

impl Client {
    /// A client; fails only when https is needed and no trusted certificate is found.
    pub(crate) fn new(config: &ClientConfig) -> Result<Client, String> {
        let t = Some(config.timeout);
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(config.max_redirects)
            .timeout_resolve(t)
            .timeout_connect(t)
            .timeout_per_read(t)
            .timeout_per_write(t)
            .max_idle_connections(config.max_concurrency)
            .max_idle_connections_per_host(config.max_concurrency)
            .user_agent(concat!("libzarr/", env!("CARGO_PKG_VERSION")));
        if config.tls {
            let tls = ureq::tls::TlsConfig::builder()
                .root_certs(trusted_roots()?)
                .build();
            builder = builder.tls_config(tls);
        }
        Ok(Client {
            agent: builder.build().into(),
            max_retries: config.max_retries,
            max_concurrency: config.max_concurrency,
        })
    }

    pub(crate) fn max_concurrency(&self) -> usize {
        self.max_concurrency
    }

    /// Send one request (no retry).
    pub(crate) fn send(
        &self,
        method: Method,
        url: &str,
        headers: &[(&str, String)],
        body: Option<&[u8]>,
    ) -> Result<Response<Body>, ureq::Error> {
        macro_rules! with_headers {
            ($request:expr) => {{
                let mut request = $request;
                for (name, value) in headers {
                    request = request.header(*name, value.as_str());
                }
                request
            }};
        }
        match method {
            Method::Get => with_headers!(self.agent.get(url)).call(),
            Method::Head => with_headers!(self.agent.head(url)).call(),
            Method::Delete => with_headers!(self.agent.delete(url)).call(),
            Method::Put => with_headers!(self.agent.put(url)).send(body.unwrap_or_default()),
            Method::Post => with_headers!(self.agent.post(url)).send(body.unwrap_or_default()),
        }
    }

    /// Run `attempt` until it succeeds, fails for good, or has been retried
    /// `max_retries` times, sleeping with exponential backoff and jitter in between.
    pub(crate) fn retrying<T>(
        &self,
        mut attempt: impl FnMut() -> Result<T, Failure>,
    ) -> Result<T, StorageError> {
        let mut retry = 0;
        loop {
            match attempt() {
                Ok(value) => return Ok(value),
                Err(Failure::Fatal(error)) => return Err(error),
                Err(Failure::Retry(mut error)) => {
                    if retry >= self.max_retries {
                        if retry > 0 {
                            error.detail =
                                format!("{} (after {} attempts)", error.detail, retry + 1);
                        }
                        return Err(StorageError::Remote(error));
                    }
                    std::thread::sleep(backoff(retry));
                    retry += 1;
                }
            }
        }
    }

    /// Run `attempt` once per item of `0..count`, at most `max_concurrency` at a time,
    /// on scoped threads; the results in order, or the first error.
    pub(crate) fn concurrently<T: Send>(
        &self,
        count: usize,
        attempt: impl Fn(usize) -> Result<T, StorageError> + Sync,
    ) -> Result<Vec<T>, StorageError> {
        let workers = self.max_concurrency.min(count);
        if workers <= 1 {
            return (0..count).map(attempt).collect();
        }
        let next = AtomicUsize::new(0);
        let failed = std::sync::atomic::AtomicBool::new(false);
        let mut slots: Vec<Option<Result<T, StorageError>>> = (0..count).map(|_| None).collect();
        let results = std::sync::Mutex::new(&mut slots);
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = attempt(i);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                });
            }
        });
        let mut out = Vec::with_capacity(count);
        for result in slots.into_iter().flatten() {
            out.push(result?);
        }
        // An item is skipped only after another one failed, and that error was returned
        // above, so every item is here.
        Ok(out)
    }
}

/// The wait before retry number `retry` (0-based): `BASE_BACKOFF * 2^retry`, capped at
/// `MAX_BACKOFF`, of which a random half is kept ("equal jitter"), so that many clients
/// failing at once do not retry in lockstep.
fn backoff(retry: u32) -> Duration {
    let full = BASE_BACKOFF
        .saturating_mul(1u32 << retry.min(16))
        .min(MAX_BACKOFF);
    let half = full / 2;
    half + half.mul_f64(random_unit())
}

/// A number in `[0, 1)` from a SplitMix64 sequence seeded by the clock; good enough
/// for jitter, and no dependency.
pub(crate) fn random_unit() -> f64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut z = STATE
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(seed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// How one attempt failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Worth another attempt (5xx, 429, timeouts, reset connections).
    Retry(RemoteError),
    /// Final (other 4xx, access denied, malformed responses, local errors).
    Fatal(StorageError),
}

impl From<StorageError> for Failure {
    fn from(error: StorageError) -> Failure {
        Failure::Fatal(error)
    }
}

impl Failure {
    fn fatal(kind: RemoteErrorKind, method: Method, url: &str, detail: impl Into<String>) -> Self {
        Failure::Fatal(StorageError::Remote(RemoteError::new(
            kind,
            method.name(),
            url,
            detail,
        )))
    }

    fn retry(kind: RemoteErrorKind, method: Method, url: &str, detail: impl Into<String>) -> Self {
        Failure::Retry(RemoteError::new(kind, method.name(), url, detail))
    }
}

/// Classify a transport error (no HTTP status was received).
pub(crate) fn transport_failure(method: Method, url: &str, error: ureq::Error) -> Failure {
    use RemoteErrorKind::{Network, Service, Timeout};
    match error {
        ureq::Error::Timeout(what) => {
            Failure::retry(Timeout, method, url, format!("timed out ({what})"))
        }
        ureq::Error::Io(e) => io_failure(method, url, e),
        ureq::Error::ConnectionFailed => Failure::retry(Network, method, url, "connection failed"),
        ureq::Error::Protocol(e) => {
            Failure::retry(Network, method, url, format!("HTTP protocol error: {e}"))
        }
        ureq::Error::HostNotFound => Failure::fatal(Network, method, url, "host not found"),
        ureq::Error::Tls(e) => Failure::fatal(Network, method, url, format!("TLS error: {e}")),
        ureq::Error::Rustls(e) => Failure::fatal(Network, method, url, format!("TLS error: {e}")),
        ureq::Error::BodyExceedsLimit(n) => Failure::fatal(
            Service,
            method,
            url,
            format!("response body exceeds {n} bytes"),
        ),
        other => Failure::fatal(Network, method, url, other.to_string()),
    }
}

/// Classify an I/O error while sending or receiving.
pub(crate) fn io_failure(method: Method, url: &str, error: std::io::Error) -> Failure {
    use std::io::ErrorKind as K;
    use RemoteErrorKind::{Network, Timeout};
    match error.kind() {
        K::TimedOut | K::WouldBlock => {
            Failure::retry(Timeout, method, url, format!("timed out: {error}"))
        }
        // A refused connection fails at once: the address is wrong or nothing listens.
        K::ConnectionRefused => {
            Failure::fatal(Network, method, url, format!("connection refused: {error}"))
        }
        // Reset or closed connections, bodies cut short, and the rest of the transport
        // failures are worth another attempt.
        _ => Failure::retry(Network, method, url, format!("connection failed: {error}")),
    }
}

/// The failure for a response with an error status (not 404, which callers treat as
/// "absent"). Reads a little of the body: S3 explains itself in an XML `<Error>`.
pub(crate) fn status_failure(method: Method, url: &str, response: Response<Body>) -> Failure {
    use RemoteErrorKind::{AccessDenied, Service};
    let status = response.status();
    let code = status.as_u16();
    let mut detail = format!(
        "HTTP {code}{}{}",
        if status.canonical_reason().is_some() {
            " "
        } else {
            ""
        },
        status.canonical_reason().unwrap_or("")
    );
    if code == 401 || code == 403 {
        detail.push_str(": access denied");
    }
    let explained = error_body_text(response);
    let no_bucket = code == 404 && explained.as_deref().is_some_and(says_no_bucket);
    if let Some(explained) = explained {
        detail.push_str(" (");
        detail.push_str(&explained);
        detail.push(')');
    }
    let kind = if code == 401 || code == 403 {
        AccessDenied
    } else if no_bucket {
        RemoteErrorKind::NotFound
    } else {
        Service
    };
    let error = RemoteError::new(kind, method.name(), url, detail).with_status(code);
    match code {
        408 | 429 | 500..=599 => Failure::Retry(error),
        _ => Failure::Fatal(StorageError::Remote(error)),
    }
}

/// The answer to a 404: the value is absent, unless an S3 service said that the bucket
/// itself does not exist (`NoSuchBucket`; it was deleted after the store was opened, which
/// checks it), an error rather than a store whose every key reads as missing. (A `HEAD`
/// has no body to say so: its 404 stays "absent".)
fn absent<T>(method: Method, url: &str, response: Response<Body>) -> Result<Option<T>, Failure> {
    match error_body_text(response) {
        Some(text) if says_no_bucket(&text) => Err(Failure::Fatal(StorageError::Remote(
            RemoteError::new(
                RemoteErrorKind::NotFound,
                method.name(),
                url,
                format!("HTTP 404 Not Found ({text}): the bucket does not exist"),
            )
            .with_status(404),
        ))),
        _ => Ok(None),
    }
}

/// Whether an error body says the bucket itself is missing: S3's `NoSuchBucket`, GCS's
/// "The specified bucket does not exist."
fn says_no_bucket(text: &str) -> bool {
    text.starts_with("NoSuchBucket") || text.contains("bucket does not exist")
}

/// An S3 error document, as far as messages need it.
#[derive(FromXml)]
#[xml(rename = "Error")]
struct S3ErrorDocument {
    #[xml(rename = "Code")]
    code: Option<String>,
    #[xml(rename = "Message")]
    message: Option<String>,
}

/// "Code: Message" from an S3 error body, or the start of any other text body.
fn error_body_text(response: Response<Body>) -> Option<String> {
    let mut text = String::new();
    response
        .into_body()
        .into_with_config()
        .limit(MAX_ERROR_BODY)
        .reader()
        .take(MAX_ERROR_BODY)
        .read_to_string(&mut text)
        .ok()?;
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    // GCS (and other JSON APIs): {"error": {"code": 404, "message": "..."}}.
    if let Ok(document) = serde_json::from_str::<serde_json::Value>(text) {
        if let Some(message) = document
            .pointer("/error/message")
            .and_then(serde_json::Value::as_str)
        {
            return Some(message.chars().take(300).collect());
        }
    }
    if let Ok(document) = instant_xml::from_str::<S3ErrorDocument>(text) {
        let parts: Vec<String> = [document.code, document.message]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect();
        if !parts.is_empty() {
            return Some(parts.join(": "));
        }
    }
    // Something else (an HTML page): its first line, shortened.
    let line = text.lines().next().unwrap_or("");
    Some(line.chars().take(200).collect())
}

/// A header's value as text.
pub(crate) fn header<'a>(response: &'a Response<Body>, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

/// The declared `Content-Length`, if any.
fn content_length(response: &Response<Body>) -> Option<u64> {
    header(response, "content-length").and_then(|v| v.trim().parse().ok())
}

/// `Content-Range: bytes first-last/total` (`total` may be `*`), or for a 416
/// `bytes */total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ContentRange {
    span: Option<(u64, u64)>,
    total: Option<u64>,
}

fn parse_content_range(value: &str) -> Option<ContentRange> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (span, total) = rest.split_once('/')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    let span = match span.trim() {
        "*" => None,
        s => {
            let (first, last) = s.split_once('-')?;
            let (first, last): (u64, u64) = (first.parse().ok()?, last.parse().ok()?);
            if last < first || total.is_some_and(|t| last >= t) {
                return None;
            }
            Some((first, last))
        }
    };
    Some(ContentRange { span, total })
}

/// The bytes of a range, and the size of the whole value when the server said it.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub bytes: Vec<u8>,
    pub size: Option<u64>,
}

/// A whole value and its entity tag (the `ETag` header, if the server sent one).
pub(crate) type Versioned = (Vec<u8>, Option<String>);

/// Reads shared by the remote stores.
pub(crate) struct Reader<'a> {
    pub client: &'a Client,
    pub urls: &'a dyn ObjectUrls,
}

impl Reader<'_> {
    /// The whole value at `key`, or `None` on 404.
    pub(crate) fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        Ok(self.get_versioned(key)?.map(|(value, _)| value))
    }

    /// The whole value at `key` with its entity tag (the `ETag` header, quotes kept, as a
    /// later `If-Match` must repeat it), or `None` on 404.
    pub(crate) fn get_versioned(&self, key: &str) -> Result<Option<Versioned>, StorageError> {
        let display = self.urls.display(key);
        self.client.retrying(|| {
            let url = self.urls.url(Method::Get, key)?;
            let headers = self.urls.auth_headers()?;
            let response = self
                .client
                .send(Method::Get, &url, &headers, None)
                .map_err(|e| transport_failure(Method::Get, &display, e))?;
            match response.status().as_u16() {
                200 => {
                    let declared = content_length(&response);
                    let etag = header(&response, self.urls.version_header()).map(str::to_string);
                    let mut reader = body_reader(response);
                    let value = read_body(&mut reader, key, &display, declared)?;
                    Ok(Some((value, etag)))
                }
                404 => absent(Method::Get, &display, response),
                _ => Err(status_failure(Method::Get, &display, response)),
            }
        })
    }

    /// The size of the value at `key` (HEAD), or `None` on 404.
    pub(crate) fn size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        let display = self.urls.display(key);
        self.client.retrying(|| {
            let url = self.urls.url(Method::Head, key)?;
            let headers = self.urls.auth_headers()?;
            let response = self
                .client
                .send(Method::Head, &url, &headers, None)
                .map_err(|e| transport_failure(Method::Head, &display, e))?;
            match response.status().as_u16() {
                200 => content_length(&response).map(Some).ok_or_else(|| {
                    Failure::fatal(
                        RemoteErrorKind::Service,
                        Method::Head,
                        &display,
                        "HTTP 200 without a Content-Length",
                    )
                }),
                404 => Ok(None),
                _ => Err(status_failure(Method::Head, &display, response)),
            }
        })
    }

    /// One byte range of the value at `key` (one request), or `None` on 404. A range
    /// that does not fit inside the value is [`StorageError::RangeOutOfBounds`].
    pub(crate) fn get_range(
        &self,
        key: &str,
        range: ByteRange,
    ) -> Result<Option<Fetched>, StorageError> {
        let length = match range {
            ByteRange::FromStart { length, .. } | ByteRange::Suffix { length } => length,
        };
        if length == 0 {
            // No bytes to fetch: HTTP cannot ask for an empty range, so check that the
            // value exists and is long enough.
            let Some(size) = self.size(key)? else {
                return Ok(None);
            };
            range.resolve_in(key, size)?;
            return Ok(Some(Fetched {
                bytes: Vec::new(),
                size: Some(size),
            }));
        }
        let display = self.urls.display(key);
        let range_header = match range {
            ByteRange::FromStart { offset, length } => {
                let last = offset.checked_add(length - 1).ok_or_else(|| {
                    StorageError::RangeOutOfBounds {
                        key: key.to_string(),
                        range,
                        size: u64::MAX,
                    }
                })?;
                format!("bytes={offset}-{last}")
            }
            ByteRange::Suffix { length } => format!("bytes=-{length}"),
        };
        let out_of_bounds = |size: u64| StorageError::RangeOutOfBounds {
            key: key.to_string(),
            range,
            size,
        };
        self.client.retrying(|| {
            let url = self.urls.url(Method::Get, key)?;
            let mut headers = self.urls.auth_headers()?;
            headers.push(("Range", range_header.clone()));
            let response = self
                .client
                .send(Method::Get, &url, &headers, None)
                .map_err(|e| transport_failure(Method::Get, &display, e))?;
            let bad = |detail: String| {
                Failure::fatal(RemoteErrorKind::Service, Method::Get, &display, detail)
            };
            match response.status().as_u16() {
                206 => {
                    let header_value = header(&response, "content-range").unwrap_or("");
                    let Some(ContentRange {
                        span: Some((first, last)),
                        total,
                    }) = parse_content_range(header_value)
                    else {
                        return Err(bad(format!(
                            "HTTP 206 with a missing or malformed Content-Range '{header_value}'"
                        )));
                    };
                    let start = match range {
                        ByteRange::FromStart { offset, .. } => offset,
                        ByteRange::Suffix { length } => match total {
                            Some(total) if total < length => {
                                return Err(out_of_bounds(total).into())
                            }
                            Some(total) => total - length,
                            None => {
                                return Err(bad(
                                    "HTTP 206 for a suffix range without the total size".into(),
                                ))
                            }
                        },
                    };
                    let got = last - first + 1;
                    if first != start || got > length {
                        return Err(bad(format!(
                            "asked for {range_header}, got bytes {first}-{last}"
                        )));
                    }
                    if got < length {
                        // The value ends inside the range.
                        return Err(out_of_bounds(total.unwrap_or(last + 1)).into());
                    }
                    let mut reader = body_reader(response);
                    let bytes = read_body(&mut reader, key, &display, Some(length))?;
                    Ok(Some(Fetched { bytes, size: total }))
                }
                200 => {
                    // The server ignored `Range` and sends the whole value: skip to the
                    // range and keep only its bytes.
                    let declared = content_length(&response);
                    let mut reader = body_reader(response);
                    let (start, size) = match (range, declared) {
                        (_, Some(size)) => (range.resolve_in(key, size)?.start, Some(size)),
                        (ByteRange::FromStart { offset, .. }, None) => (offset, None),
                        (ByteRange::Suffix { length }, None) => {
                            let whole = read_body(&mut reader, key, &display, None)?;
                            let size = whole.len() as u64;
                            if size < length {
                                return Err(out_of_bounds(size).into());
                            }
                            let bytes = whole[(size - length) as usize..].to_vec();
                            return Ok(Some(Fetched {
                                bytes,
                                size: Some(size),
                            }));
                        }
                    };
                    let skipped =
                        std::io::copy(&mut (&mut reader).take(start), &mut std::io::sink())
                            .map_err(|e| io_failure(Method::Get, &display, e))?;
                    if skipped < start {
                        return Err(match size {
                            Some(_) => truncated(&display, start, skipped),
                            None => out_of_bounds(skipped).into(),
                        });
                    }
                    let mut bytes = value_buffer(key, length)?;
                    let got = (&mut reader)
                        .take(length)
                        .read_to_end(&mut bytes)
                        .map_err(|e| io_failure(Method::Get, &display, e))?;
                    if (got as u64) < length {
                        return Err(match size {
                            Some(_) => truncated(&display, length, got as u64),
                            None => out_of_bounds(start + got as u64).into(),
                        });
                    }
                    Ok(Some(Fetched { bytes, size }))
                }
                416 => {
                    let size = header(&response, "content-range")
                        .and_then(parse_content_range)
                        .and_then(|c| c.total)
                        .unwrap_or(0);
                    Err(out_of_bounds(size).into())
                }
                404 => absent(Method::Get, &display, response),
                _ => Err(status_failure(Method::Get, &display, response)),
            }
        })
    }

    /// Several ranges of the value at `key`, one after another, with the value's size when
    /// a response told it (a 206's `Content-Range` does); `None` on 404. Ranges closer than [`MERGE_GAP`] share a request, and the requests
    /// run concurrently (up to the client's `max_concurrency`). A suffix range is fetched
    /// first, alone, to learn the size; a single range costs one request.
    pub(crate) fn read_ranges(
        &self,
        key: &str,
        ranges: &[ByteRange],
    ) -> Result<Option<crate::storage::RangesRead>, StorageError> {
        let mut size: Option<u64> = None;
        // Fetched spans: (start, bytes).
        let mut spans: Vec<(u64, Vec<u8>)> = Vec::new();
        if let Some(&suffix) = ranges
            .iter()
            .find(|r| matches!(r, ByteRange::Suffix { length } if *length > 0))
        {
            let Some(fetched) = self.get_range(key, suffix)? else {
                return Ok(None);
            };
            // A suffix read always learns the size (206 needs it, 200 declares or counts it).
            let Some(total) = fetched.size else {
                return Err(internal(
                    key,
                    "a suffix range came back without the value's size",
                ));
            };
            size = Some(total);
            spans.push((total - fetched.bytes.len() as u64, fetched.bytes));
        }
        // Absolute ranges still to fetch.
        let mut wanted: Vec<(u64, u64)> = Vec::new();
        for &range in ranges {
            let (start, end) = match (range, size) {
                (_, Some(size)) => {
                    let span = range.resolve_in(key, size)?;
                    (span.start, span.end)
                }
                (ByteRange::FromStart { offset, length }, None) => {
                    let end = offset.checked_add(length).ok_or_else(|| {
                        StorageError::RangeOutOfBounds {
                            key: key.to_string(),
                            range,
                            size: u64::MAX,
                        }
                    })?;
                    (offset, end)
                }
                (ByteRange::Suffix { .. }, None) => continue, // empty suffix, checked below
            };
            let covered = spans
                .iter()
                .any(|(s, b)| *s <= start && end <= *s + b.len() as u64);
            if start < end && !covered {
                wanted.push((start, end));
            }
        }
        wanted.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (start, end) in wanted {
            match merged.last_mut() {
                Some(last) if start <= last.1.saturating_add(MERGE_GAP) => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        let fetched = self.client.concurrently(merged.len(), |i| {
            let (start, end) = merged[i];
            self.get_range(
                key,
                ByteRange::FromStart {
                    offset: start,
                    length: end - start,
                },
            )
        })?;
        for ((start, _), result) in merged.iter().zip(fetched) {
            // A value deleted between two requests reads as absent.
            let Some(f) = result else {
                return Ok(None);
            };
            if let (Some(known), Some(new)) = (size, f.size) {
                if known != new {
                    return Err(StorageError::Remote(RemoteError::new(
                        RemoteErrorKind::Service,
                        "GET",
                        &self.urls.display(key),
                        format!(
                            "the value changed size ({known} then {new} bytes) while being read"
                        ),
                    )));
                }
            }
            size = size.or(f.size);
            spans.push((*start, f.bytes));
        }
        if size.is_none() && merged.is_empty() {
            // Only empty ranges: ask whether the value exists (and its size) at all.
            match self.size(key)? {
                Some(total) => size = Some(total),
                None => return Ok(None),
            }
        }
        let mut out = Vec::new();
        let total: u64 = ranges
            .iter()
            .map(|r| match *r {
                ByteRange::FromStart { length, .. } | ByteRange::Suffix { length } => length,
            })
            .sum();
        out.try_reserve_exact(usize::try_from(total).unwrap_or(usize::MAX))
            .map_err(|_| StorageError::OutOfMemory {
                key: key.to_string(),
                size: total,
            })?;
        for &range in ranges {
            let span = match (size, range) {
                (Some(size), _) => range.resolve_in(key, size)?,
                // Without the size (a server that does not say it), absolute ranges were
                // fetched as they are and a suffix range is empty (a non-empty one would
                // have told the size).
                (None, ByteRange::FromStart { offset, length }) => offset..offset + length,
                (None, ByteRange::Suffix { .. }) => 0..0,
            };
            if span.is_empty() {
                continue;
            }
            // Every non-empty range was fetched, whole, above.
            let (start, bytes) = spans
                .iter()
                .find(|(s, b)| *s <= span.start && span.end <= *s + b.len() as u64)
                .ok_or_else(|| internal(key, "a range was not fetched"))?;
            out.extend_from_slice(
                &bytes[(span.start - start) as usize..(span.end - start) as usize],
            );
        }
        Ok(Some((size, out)))
    }
}

/// An inconsistency of this module's own bookkeeping, reported rather than panicking.
fn internal(key: &str, what: &str) -> StorageError {
    StorageError::Corrupt {
        key: key.to_string(),
        reason: format!("internal error in the remote range reader: {what}"),
    }
}

fn truncated(display: &str, expected: u64, got: u64) -> Failure {
    Failure::retry(
        RemoteErrorKind::Network,
        Method::Get,
        display,
        format!("response body ended after {got} of {expected} bytes"),
    )
}

fn body_reader(response: Response<Body>) -> ureq::BodyReader<'static> {
    response
        .into_body()
        .into_with_config()
        .limit(u64::MAX)
        .reader()
}

/// Read a whole body: exactly `declared` bytes when the length is declared (a shorter
/// body is a broken transfer, retried), else up to [`MAX_UNDECLARED_BODY`], growing the
/// buffer with fallible allocations.
fn read_body(
    reader: &mut impl Read,
    key: &str,
    display: &str,
    declared: Option<u64>,
) -> Result<Vec<u8>, Failure> {
    if let Some(length) = declared {
        let mut bytes = value_buffer(key, length)?;
        let got = reader
            .take(length)
            .read_to_end(&mut bytes)
            .map_err(|e| io_failure(Method::Get, display, e))?;
        if (got as u64) < length {
            return Err(truncated(display, length, got as u64));
        }
        return Ok(bytes);
    }
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = reader
            .read(&mut chunk)
            .map_err(|e| io_failure(Method::Get, display, e))?;
        if n == 0 {
            return Ok(bytes);
        }
        if bytes.len() as u64 + n as u64 > MAX_UNDECLARED_BODY {
            return Err(Failure::fatal(
                RemoteErrorKind::Service,
                Method::Get,
                display,
                format!(
                    "response without Content-Length is larger than {MAX_UNDECLARED_BODY} bytes"
                ),
            ));
        }
        bytes
            .try_reserve(n)
            .map_err(|_| StorageError::OutOfMemory {
                key: key.to_string(),
                size: bytes.len() as u64 + n as u64,
            })?;
        bytes.extend_from_slice(&chunk[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range_parsing() {
        assert_eq!(
            parse_content_range("bytes 0-9/100"),
            Some(ContentRange {
                span: Some((0, 9)),
                total: Some(100)
            })
        );
        assert_eq!(
            parse_content_range("bytes 5-5/*"),
            Some(ContentRange {
                span: Some((5, 5)),
                total: None
            })
        );
        assert_eq!(
            parse_content_range("bytes */42"),
            Some(ContentRange {
                span: None,
                total: Some(42)
            })
        );
        for bad in [
            "bytes 9-0/100",
            "bytes 0-100/100",
            "items 0-1/2",
            "bytes 0-1",
            "bytes a-b/3",
        ] {
            assert_eq!(parse_content_range(bad), None, "{bad}");
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        for retry in 0..40 {
            let d = backoff(retry);
            let full = BASE_BACKOFF
                .saturating_mul(1u32 << retry.min(16))
                .min(MAX_BACKOFF);
            assert!(d >= full / 2 && d <= full, "{retry}: {d:?}");
        }
    }
}
