//! Credentials of the Google Cloud Storage store: where the bearer token comes from, as
//! Google's own clients look for it.
//!
//! Order: the options (`anonymous`, `token`, `service_account_path`); then, with
//! `STORAGE_EMULATOR_HOST` set and nothing given, no credential (an emulator takes
//! anonymous requests); then `GOOGLE_APPLICATION_CREDENTIALS`, the application default
//! credentials file that `gcloud auth application-default login` writes, and the metadata
//! server of a Google Cloud machine (probed with a short timeout). Nothing found: requests
//! go without a credential, which public buckets accept.
//!
//! A service-account key signs a JWT (RS256, by `jsonwebtoken`) that the key's
//! `token_uri` exchanges for an access token; a user's refresh token and the metadata
//! server give one directly. Tokens are kept until a minute before they expire.

use super::http::{header, io_failure, status_failure, transport_failure, Client, Failure, Method};
use super::options::UrlOptions;
use super::RemoteErrorKind;
use crate::storage::remote::RemoteError;
use crate::storage::StorageError;
use serde::Deserialize;
use std::io::Read;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// What a service account asks for: reading and writing objects.
const SCOPE: &str = "https://www.googleapis.com/auth/devstorage.read_write";
/// Where a user's refresh token is exchanged when the file names no `token_uri`.
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// The metadata server of a Google Cloud machine (`GCE_METADATA_HOST` overrides it).
const DEFAULT_METADATA_HOST: &str = "metadata.google.internal";
/// How long opening a store waits for the metadata server, which is not there off Google
/// Cloud (Google's clients wait about as long).
const METADATA_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long a metadata server that did not answer is not asked again.
const METADATA_NEGATIVE_TTL: Duration = Duration::from_secs(300);
/// A token is renewed this long before it expires.
const REFRESH_MARGIN: Duration = Duration::from_secs(60);
/// The most bytes of a token response read.
const MAX_TOKEN_RESPONSE: u64 = 64 * 1024;

/// Reads an environment variable (the process's, or a test's table).
pub(crate) type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A service-account key file, as far as signing needs it.
#[derive(Clone, Deserialize)]
struct ServiceAccountKey {
    client_email: String,
    private_key: String,
    #[serde(default)]
    private_key_id: Option<String>,
    #[serde(default)]
    token_uri: Option<String>,
}

/// Where fresh tokens come from.
enum TokenSource {
    ServiceAccount(ServiceAccountKey),
    AuthorizedUser {
        client_id: String,
        client_secret: String,
        refresh_token: String,
        token_uri: String,
    },
    MetadataServer {
        url: String,
    },
}

/// The credential of a store.
enum Credential {
    Anonymous,
    Static(String),
    Refreshing(TokenSource),
}

/// A GCS store's credential and the token it holds. Safe to share between threads: one
/// thread renews an expiring token while the others wait for it.
pub(crate) struct GcsAuth {
    credential: Credential,
    /// "service account 'a@b' from option 'service_account_path' (/path/key.json)": what
    /// an access-denied message names.
    origin: String,
    token: Mutex<Option<(String, Instant)>>,
}

impl std::fmt::Debug for GcsAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GcsAuth")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// The token response of Google's OAuth2 endpoint and of the metadata server.
#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// The claims of a service account's token request (RFC 7523).
#[derive(serde::Serialize, Deserialize, Debug)]
struct Claims {
    iss: String,
    scope: String,
    aud: String,
    iat: u64,
    exp: u64,
}

impl GcsAuth {
    fn new(credential: Credential, origin: String) -> GcsAuth {
        GcsAuth {
            credential,
            origin,
            token: Mutex::new(None),
        }
    }

    /// What the store authenticates with, for messages.
    pub(crate) fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether requests go without a credential.
    pub(crate) fn is_anonymous(&self) -> bool {
        matches!(self.credential, Credential::Anonymous)
    }

    /// The `Authorization` header's value, fetching or renewing the token when needed;
    /// `None` for anonymous requests.
    pub(crate) fn authorization(&self, client: &Client) -> Result<Option<String>, StorageError> {
        let source = match &self.credential {
            Credential::Anonymous => return Ok(None),
            Credential::Static(token) => return Ok(Some(format!("Bearer {token}"))),
            Credential::Refreshing(source) => source,
        };
        let mut held = self.token.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((token, expires)) = held.as_ref() {
            if Instant::now() + REFRESH_MARGIN < *expires {
                return Ok(Some(format!("Bearer {token}")));
            }
        }
        let (token, lifetime) = source.fetch(client).map_err(|e| self.explain(e))?;
        *held = Some((token.clone(), Instant::now() + lifetime));
        Ok(Some(format!("Bearer {token}")))
    }

    /// An access-denied error with the credential it was denied to.
    pub(crate) fn explain(&self, error: StorageError) -> StorageError {
        match error {
            StorageError::Remote(mut e) if e.kind == RemoteErrorKind::AccessDenied => {
                e.detail = format!("{}; credential: {}", e.detail, self.origin);
                StorageError::Remote(e)
            }
            other => other,
        }
    }
}

impl TokenSource {
    /// A fresh token and how long it lives.
    fn fetch(&self, client: &Client) -> Result<(String, Duration), StorageError> {
        let (method, url, headers, body) = match self {
            TokenSource::ServiceAccount(key) => {
                let token_uri = key.token_uri.as_deref().unwrap_or(DEFAULT_TOKEN_URI);
                let assertion = sign_token_request(key, token_uri, SystemTime::now())
                    .map_err(|reason| token_error(token_uri, reason))?;
                let body = form(&[
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                    ("assertion", &assertion),
                ]);
                (Method::Post, token_uri.to_string(), form_headers(), body)
            }
            TokenSource::AuthorizedUser {
                client_id,
                client_secret,
                refresh_token,
                token_uri,
            } => {
                let body = form(&[
                    ("grant_type", "refresh_token"),
                    ("client_id", client_id),
                    ("client_secret", client_secret),
                    ("refresh_token", refresh_token),
                ]);
                (Method::Post, token_uri.clone(), form_headers(), body)
            }
            TokenSource::MetadataServer { url } => (
                Method::Get,
                url.clone(),
                vec![("Metadata-Flavor", "Google".to_string())],
                String::new(),
            ),
        };
        let body = (method == Method::Post).then_some(body.as_bytes());
        client.retrying(|| {
            let response = client
                .send(method, &url, &headers, body)
                .map_err(|e| transport_failure(method, &url, e))?;
            if !response.status().is_success() {
                // A token endpoint refusing the request (a revoked key, a bad assertion:
                // 400 invalid_grant) is a credential problem, not a service failure.
                return Err(match status_failure(method, &url, response) {
                    Failure::Fatal(StorageError::Remote(mut e))
                        if matches!(e.status, Some(400 | 401 | 403)) =>
                    {
                        e.kind = RemoteErrorKind::AccessDenied;
                        e.detail = format!("the token request was refused: {}", e.detail);
                        Failure::Fatal(StorageError::Remote(e))
                    }
                    other => other,
                });
            }
            let declared_json = header(&response, "content-type")
                .is_none_or(|t| t.contains("json") || t.contains("text"));
            let mut text = String::new();
            response
                .into_body()
                .into_with_config()
                .limit(MAX_TOKEN_RESPONSE)
                .reader()
                .take(MAX_TOKEN_RESPONSE)
                .read_to_string(&mut text)
                .map_err(|e| io_failure(method, &url, e))?;
            let parsed: TokenResponse = serde_json::from_str(&text)
                .ok()
                .filter(|_| declared_json)
                .ok_or_else(|| {
                    Failure::Fatal(token_error(
                        &url,
                        "the answer is not a token response (JSON with access_token)".into(),
                    ))
                })?;
            let lifetime = Duration::from_secs(parsed.expires_in.unwrap_or(3600));
            Ok((parsed.access_token, lifetime))
        })
    }
}

fn token_error(url: &str, reason: String) -> StorageError {
    StorageError::Remote(RemoteError::new(
        RemoteErrorKind::AccessDenied,
        "POST",
        url,
        format!("cannot get an access token: {reason}"),
    ))
}

fn form_headers() -> Vec<(&'static str, String)> {
    vec![(
        "Content-Type",
        "application/x-www-form-urlencoded".to_string(),
    )]
}

/// `application/x-www-form-urlencoded` text of `pairs`.
fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The JWT a service account sends to `token_uri` to get an access token, valid an hour
/// from `now`.
fn sign_token_request(
    key: &ServiceAccountKey,
    token_uri: &str,
    now: SystemTime,
) -> Result<String, String> {
    let iat = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_err(|_| "the clock is before 1970".to_string())?
        .as_secs();
    let claims = Claims {
        iss: key.client_email.clone(),
        scope: SCOPE.to_string(),
        aud: token_uri.to_string(),
        iat,
        exp: iat + 3600,
    };
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = key.private_key_id.clone();
    let signing_key = jsonwebtoken::EncodingKey::from_rsa_pem(key.private_key.as_bytes())
        .map_err(|e| format!("the key's private_key is not an RSA key in PEM: {e}"))?;
    jsonwebtoken::encode(&header, &claims, &signing_key)
        .map_err(|e| format!("cannot sign the token request: {e}"))
}

/// A credentials file (`service_account` or `authorized_user`) at `path`, read because
/// `from` names it.
fn load_file(path: &str, from: &str) -> Result<(Credential, String), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the credentials file '{path}' ({from}): {e}"))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("the credentials file '{path}' ({from}) is not valid JSON: {e}"))?;
    let kind = value.get("type").and_then(|t| t.as_str()).unwrap_or("");
    match kind {
        "service_account" => {
            let key: ServiceAccountKey = serde_json::from_value(value).map_err(|e| {
                format!("the service-account key file '{path}' ({from}) lacks a field: {e}")
            })?;
            // Parse the key now: a broken file fails at open, not at the first read.
            jsonwebtoken::EncodingKey::from_rsa_pem(key.private_key.as_bytes()).map_err(|e| {
                format!(
                    "the service-account key file '{path}' ({from}): private_key is not an \
                     RSA key in PEM: {e}"
                )
            })?;
            let origin = format!(
                "service account '{}' from {from} ({path})",
                key.client_email
            );
            Ok((
                Credential::Refreshing(TokenSource::ServiceAccount(key)),
                origin,
            ))
        }
        "authorized_user" => {
            let field = |name: &str| {
                value
                    .get(name)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
                    .ok_or_else(|| {
                        format!("the credentials file '{path}' ({from}) has no '{name}'")
                    })
            };
            let source = TokenSource::AuthorizedUser {
                client_id: field("client_id")?,
                client_secret: field("client_secret")?,
                refresh_token: field("refresh_token")?,
                token_uri: field("token_uri").unwrap_or_else(|_| DEFAULT_TOKEN_URI.to_string()),
            };
            Ok((
                Credential::Refreshing(source),
                format!("the user credentials from {from} ({path})"),
            ))
        }
        other => Err(format!(
            "the credentials file '{path}' ({from}) is of type '{other}'; this library reads \
             'service_account' and 'authorized_user' files"
        )),
    }
}

/// The application default credentials file `gcloud auth application-default login`
/// writes, when it exists.
fn well_known_file(env: EnvLookup) -> Option<String> {
    let directory = match env("CLOUDSDK_CONFIG") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::PathBuf::from(env("HOME")?).join(".config/gcloud"),
    };
    let path = directory.join("application_default_credentials.json");
    path.is_file().then(|| path.display().to_string())
}

/// Metadata servers that did not answer, and when.
fn failed_probes() -> &'static Mutex<std::collections::HashMap<String, Instant>> {
    static FAILED: OnceLock<Mutex<std::collections::HashMap<String, Instant>>> = OnceLock::new();
    FAILED.get_or_init(Default::default)
}

/// The metadata server's token URL if it answers within [`METADATA_TIMEOUT`].
fn probe_metadata_server(env: EnvLookup) -> Option<String> {
    if env("NO_GCE_CHECK").is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1") {
        return None;
    }
    let host = env("GCE_METADATA_HOST").unwrap_or_else(|| DEFAULT_METADATA_HOST.to_string());
    let url = format!("http://{host}/computeMetadata/v1/instance/service-accounts/default/token");
    {
        let failed = failed_probes().lock().unwrap_or_else(|e| e.into_inner());
        if failed
            .get(&url)
            .is_some_and(|at| at.elapsed() < METADATA_NEGATIVE_TTL)
        {
            return None;
        }
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(METADATA_TIMEOUT))
        .build()
        .into();
    let answered = agent
        .get(&url)
        .header("Metadata-Flavor", "Google")
        .call()
        .is_ok_and(|r| r.status().is_success());
    if answered {
        Some(url)
    } else {
        failed_probes()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(url, Instant::now());
        None
    }
}

/// The credential a store opened with `options` uses, looking at the environment through
/// `env`. The metadata server is asked only when `google_endpoint` (the store talks to
/// Google's service, not to an emulator, which would get anonymous requests anyway).
pub(crate) fn resolve(
    options: &UrlOptions,
    env: EnvLookup,
    google_endpoint: bool,
) -> Result<GcsAuth, String> {
    if options.anonymous == Some(true) {
        return Ok(GcsAuth::new(
            Credential::Anonymous,
            "none (option 'anonymous')".to_string(),
        ));
    }
    if let Some(token) = &options.token {
        if token.is_empty() || token.contains(['\r', '\n']) {
            return Err("option 'token' must be a non-empty token on one line".to_string());
        }
        return Ok(GcsAuth::new(
            Credential::Static(token.clone()),
            "the bearer token of option 'token'".to_string(),
        ));
    }
    if let Some(path) = &options.service_account_path {
        let (credential, origin) = load_file(path, "option 'service_account_path'")?;
        return Ok(GcsAuth::new(credential, origin));
    }
    if env("STORAGE_EMULATOR_HOST").is_some_and(|h| !h.is_empty()) {
        return Ok(GcsAuth::new(
            Credential::Anonymous,
            "none (STORAGE_EMULATOR_HOST is set and no credential was given)".to_string(),
        ));
    }
    if let Some(path) = env("GOOGLE_APPLICATION_CREDENTIALS").filter(|p| !p.is_empty()) {
        let (credential, origin) = load_file(&path, "GOOGLE_APPLICATION_CREDENTIALS")?;
        return Ok(GcsAuth::new(credential, origin));
    }
    if let Some(path) = well_known_file(env) {
        let (credential, origin) = load_file(&path, "the application default credentials")?;
        return Ok(GcsAuth::new(credential, origin));
    }
    if google_endpoint && options.anonymous != Some(false) {
        if let Some(url) = probe_metadata_server(env) {
            return Ok(GcsAuth::new(
                Credential::Refreshing(TokenSource::MetadataServer { url }),
                "the metadata server's service account".to_string(),
            ));
        }
    }
    let looked = if google_endpoint {
        "no option, no GOOGLE_APPLICATION_CREDENTIALS, no application default credentials \
         file, no metadata server"
    } else {
        "no option, no GOOGLE_APPLICATION_CREDENTIALS, no application default credentials \
         file; the metadata server is not asked for an endpoint other than Google's"
    };
    Ok(GcsAuth::new(
        Credential::Anonymous,
        format!("none found ({looked}): anonymous requests"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const KEY_FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gcs/test-service-account.json"
    );
    const PUBLIC_KEY: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gcs/test-key-public.pem"
    );

    fn resolve_for_google(options: &UrlOptions, env: EnvLookup) -> Result<GcsAuth, String> {
        resolve(options, env, true)
    }

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    /// The token request a service account signs verifies against its public key and
    /// carries the claims Google's token endpoint checks (no network).
    #[test]
    fn service_account_token_request_is_signed_with_the_key() {
        let text = std::fs::read_to_string(KEY_FILE).unwrap();
        let key: ServiceAccountKey = serde_json::from_str(&text).unwrap();
        let now = SystemTime::now();
        let uri = "https://oauth2.googleapis.com/token";
        let jwt = sign_token_request(&key, uri, now).unwrap();

        let public = std::fs::read(PUBLIC_KEY).unwrap();
        let decoding = jsonwebtoken::DecodingKey::from_rsa_pem(&public).unwrap();
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
        validation.set_audience(&[uri]);
        validation.set_issuer(&["tester@libzarr-test.iam.gserviceaccount.com"]);
        let decoded = jsonwebtoken::decode::<Claims>(&jwt, &decoding, &validation).unwrap();
        assert_eq!(decoded.header.kid.as_deref(), Some("0123456789abcdef"));
        assert_eq!(decoded.claims.scope, SCOPE);
        assert_eq!(decoded.claims.exp - decoded.claims.iat, 3600);

        // A changed signature no longer verifies: the check above can fail.
        let mut forged = jwt.clone();
        let last = forged.pop().unwrap();
        forged.push(if last == 'A' { 'B' } else { 'A' });
        assert!(jsonwebtoken::decode::<Claims>(&forged, &decoding, &validation).is_err());
        // Nor does it verify for another audience.
        let mut other = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
        other.set_audience(&["https://elsewhere/token"]);
        assert!(jsonwebtoken::decode::<Claims>(&jwt, &decoding, &other).is_err());
    }

    #[test]
    fn credentials_are_found_in_order() {
        let none = env_of(&[("NO_GCE_CHECK", "true")]);
        let options = |json: &str| UrlOptions::parse(json, super::super::Scheme::Gcs).unwrap();

        let auth = resolve_for_google(&options(r#"{"anonymous": true}"#), &none).unwrap();
        assert!(auth.is_anonymous());
        let auth = resolve_for_google(&options(r#"{"token": "abc"}"#), &none).unwrap();
        assert!(matches!(auth.credential, Credential::Static(ref t) if t == "abc"));
        assert!(auth.origin().contains("option 'token'"));

        let with_file = format!(r#"{{"service_account_path": "{KEY_FILE}"}}"#);
        let auth = resolve_for_google(&options(&with_file), &none).unwrap();
        assert!(
            auth.origin().contains("tester@libzarr-test"),
            "{}",
            auth.origin()
        );
        assert!(auth.origin().contains("option 'service_account_path'"));

        // The emulator variable: anonymous, unless a credential is given.
        let emulator = env_of(&[
            ("STORAGE_EMULATOR_HOST", "http://127.0.0.1:9023"),
            ("GOOGLE_APPLICATION_CREDENTIALS", KEY_FILE),
        ]);
        let auth = resolve_for_google(&options("{}"), &emulator).unwrap();
        assert!(auth.is_anonymous());
        assert!(auth.origin().contains("STORAGE_EMULATOR_HOST"));
        let auth = resolve_for_google(&options(r#"{"token": "t"}"#), &emulator).unwrap();
        assert!(!auth.is_anonymous());

        let adc = env_of(&[
            ("GOOGLE_APPLICATION_CREDENTIALS", KEY_FILE),
            ("NO_GCE_CHECK", "true"),
        ]);
        let auth = resolve_for_google(&options("{}"), &adc).unwrap();
        assert!(auth.origin().contains("GOOGLE_APPLICATION_CREDENTIALS"));

        let dir = std::env::temp_dir().join(format!("zarr-gcs-adc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("application_default_credentials.json"),
            r#"{"type": "authorized_user", "client_id": "c", "client_secret": "s",
                "refresh_token": "r"}"#,
        )
        .unwrap();
        let gcloud = env_of(&[
            ("CLOUDSDK_CONFIG", dir.to_str().unwrap()),
            ("NO_GCE_CHECK", "true"),
        ]);
        let auth = resolve_for_google(&options("{}"), &gcloud).unwrap();
        assert!(
            auth.origin().contains("application default"),
            "{}",
            auth.origin()
        );
        assert!(matches!(
            auth.credential,
            Credential::Refreshing(TokenSource::AuthorizedUser { ref token_uri, .. })
                if token_uri == DEFAULT_TOKEN_URI
        ));
        std::fs::remove_dir_all(&dir).unwrap();

        let auth = resolve_for_google(&options("{}"), &none).unwrap();
        assert!(auth.is_anonymous());
        assert!(auth.origin().contains("none found"));
        // An emulator's endpoint: no metadata server is asked, even where it would answer
        // (GCE_METADATA_HOST names a refused port here, and NO_GCE_CHECK is not set).
        let refused = env_of(&[("GCE_METADATA_HOST", "127.0.0.1:9")]);
        let auth = resolve(&options("{}"), &refused, false).unwrap();
        assert!(auth.is_anonymous());
        assert!(auth.origin().contains("not asked"), "{}", auth.origin());
    }

    #[test]
    fn bad_credential_files_are_refused_at_open() {
        let none = env_of(&[("NO_GCE_CHECK", "true")]);
        let dir = std::env::temp_dir().join(format!("zarr-gcs-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            ("missing.json", None, "cannot read the credentials file"),
            ("notjson.json", Some("{"), "not valid JSON"),
            (
                "kind.json",
                Some(r#"{"type": "external_account"}"#),
                "'external_account'",
            ),
            (
                "nokey.json",
                Some(r#"{"type": "service_account", "client_email": "a@b"}"#),
                "lacks a field",
            ),
            (
                "badkey.json",
                Some(r#"{"type": "service_account", "client_email": "a@b", "private_key": "x"}"#),
                "not an RSA key",
            ),
        ];
        for (name, content, expected) in cases {
            let path = dir.join(name);
            if let Some(content) = content {
                std::fs::write(&path, content).unwrap();
            }
            let json = format!(r#"{{"service_account_path": "{}"}}"#, path.display());
            let options = UrlOptions::parse(&json, super::super::Scheme::Gcs).unwrap();
            let message = resolve_for_google(&options, &none).unwrap_err();
            assert!(message.contains(expected), "{name}: {message}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
