//! Where S3 settings and credentials come from, in order: the options, the environment
//! (`AWS_*`), the shared profile files (`~/.aws/credentials`, `~/.aws/config`), and last
//! the EC2 instance metadata service (IMDS), probed only when nothing else gave
//! credentials and `anonymous` is not set.

use super::options::UrlOptions;
use rusty_s3::Credentials;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// The default IMDS address (link-local, only reachable on EC2).
pub const DEFAULT_IMDS_ENDPOINT: &str = "http://169.254.169.254";
/// Time allowed to each IMDS request (connect and response); no retries. A machine that
/// is not an EC2 instance costs at most this much once (the outcome is remembered).
pub const IMDS_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long a failed IMDS probe is remembered, so that opening many stores probes once.
const IMDS_NEGATIVE_TTL: Duration = Duration::from_secs(300);
/// Instance credentials are fetched again this long before they expire.
const IMDS_REFRESH_MARGIN: Duration = Duration::from_secs(300);

/// Looks up an environment variable (a function, so that tests need not change the
/// process environment). Empty values count as unset.
pub(crate) type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment.
pub(crate) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// One section of an INI-style AWS profile file: lower-case keys, nested keys of a
/// sub-section (`s3 =` followed by indented lines) as `s3.key`.
type Section = HashMap<String, String>;

/// Parse an AWS shared config or credentials file.
fn parse_profile_file(text: &str) -> HashMap<String, Section> {
    let mut sections: HashMap<String, Section> = HashMap::new();
    let mut current: Option<String> = None;
    let mut nested: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
            sections.entry(name.clone()).or_default();
            current = Some(name);
            nested = None;
            continue;
        }
        let Some(section) = current.as_ref() else {
            continue;
        };
        let Some((key, value)) = trimmed.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim().to_string();
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let entry = sections.entry(section.clone()).or_default();
        if indented {
            if let Some(parent) = &nested {
                entry.insert(format!("{parent}.{key}"), value);
            }
        } else if value.is_empty() {
            nested = Some(key);
        } else {
            nested = None;
            entry.insert(key, value);
        }
    }
    sections
}

/// The two profile files, as read for one profile.
struct Profile {
    name: String,
    /// Values from the credentials file, then the config file (the credentials file wins).
    values: Section,
    found: bool,
    files: String,
}

impl Profile {
    fn load(name: &str, env: EnvLookup) -> Profile {
        let home = env("HOME").map(PathBuf::from);
        let path = |variable: &str, default: &str| {
            env(variable)
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
        };
        let credentials_path = path("AWS_SHARED_CREDENTIALS_FILE", "credentials");
        let config_path = path("AWS_CONFIG_FILE", "config");
        let read = |p: &Option<PathBuf>| {
            p.as_ref()
                .and_then(|p| std::fs::read_to_string(p).ok())
                .map(|t| parse_profile_file(&t))
                .unwrap_or_default()
        };
        let credentials = read(&credentials_path);
        let config = read(&config_path);
        let mut values = Section::new();
        let mut found = false;
        let config_names = if name == "default" {
            vec!["default".to_string(), "profile default".to_string()]
        } else {
            vec![format!("profile {name}")]
        };
        for config_name in &config_names {
            if let Some(section) = config.get(config_name) {
                found = true;
                values.extend(section.clone());
            }
        }
        if let Some(section) = credentials.get(name) {
            found = true;
            values.extend(section.clone());
        }
        let files = [credentials_path, config_path]
            .iter()
            .flatten()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" and ");
        Profile {
            name: name.to_string(),
            values,
            found,
            files,
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    fn credentials(&self) -> Option<Credentials> {
        let key = self.get("aws_access_key_id")?;
        let secret = self.get("aws_secret_access_key")?;
        Some(match self.get("aws_session_token") {
            Some(token) => Credentials::new_with_token(key, secret, token),
            None => Credentials::new(key, secret),
        })
    }
}

/// Where a store's credentials come from.
#[derive(Clone)]
pub(crate) enum CredentialSource {
    /// Unsigned requests.
    Anonymous,
    /// Fixed keys (options, environment or profile).
    Static(Arc<Credentials>, &'static str),
    /// Instance credentials, refreshed before they expire.
    Instance(Arc<InstanceCredentials>),
}

impl std::fmt::Debug for CredentialSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print keys.
        match self {
            CredentialSource::Anonymous => write!(f, "Anonymous"),
            CredentialSource::Static(_, from) => write!(f, "Static(from {from})"),
            CredentialSource::Instance(_) => write!(f, "Instance"),
        }
    }
}

impl CredentialSource {
    /// The credentials to sign the next request with (`None`: unsigned).
    pub(crate) fn current(&self) -> Option<Arc<Credentials>> {
        match self {
            CredentialSource::Anonymous => None,
            CredentialSource::Static(credentials, _) => Some(credentials.clone()),
            CredentialSource::Instance(instance) => instance.current(),
        }
    }

    /// Where the credentials came from, for messages.
    pub(crate) fn origin(&self) -> &'static str {
        match self {
            CredentialSource::Anonymous => "none (unsigned requests)",
            CredentialSource::Static(_, from) => from,
            CredentialSource::Instance(_) => "the instance metadata service",
        }
    }
}

/// S3 settings resolved from the options, the environment and the profile files.
#[derive(Debug)]
pub(crate) struct S3Settings {
    /// The service URL; `None` is AWS's regional endpoint.
    pub endpoint: Option<String>,
    pub region: String,
    pub credentials: CredentialSource,
}

/// Resolve the settings of an S3 store. Errors are messages for INVALID_ARGUMENT.
pub(crate) fn resolve(options: &UrlOptions, env: EnvLookup) -> Result<S3Settings, String> {
    let profile_name = options
        .profile
        .clone()
        .or_else(|| env("AWS_PROFILE"))
        .unwrap_or_else(|| "default".to_string());
    let profile_chosen = options.profile.is_some() || env("AWS_PROFILE").is_some();
    let profile = Profile::load(&profile_name, env);
    if profile_chosen && !profile.found {
        let from = if options.profile.is_some() {
            "option 'profile'"
        } else {
            "AWS_PROFILE"
        };
        return Err(format!(
            "profile '{}' ({from}) is not in {}",
            profile.name,
            if profile.files.is_empty() {
                "any profile file (HOME is not set)"
            } else {
                &profile.files
            }
        ));
    }
    let region = options
        .region
        .clone()
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .or_else(|| profile.get("region").map(str::to_string))
        .unwrap_or_else(|| "us-east-1".to_string());
    let endpoint = options
        .endpoint
        .clone()
        .or_else(|| env("AWS_ENDPOINT_URL_S3"))
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .or_else(|| profile.get("s3.endpoint_url").map(str::to_string))
        .or_else(|| profile.get("endpoint_url").map(str::to_string));

    let credentials = if options.anonymous == Some(true) {
        CredentialSource::Anonymous
    } else if let (Some(key), Some(secret)) = (&options.access_key_id, &options.secret_access_key) {
        let credentials = match &options.session_token {
            Some(token) => Credentials::new_with_token(key, secret, token),
            None => Credentials::new(key, secret),
        };
        CredentialSource::Static(Arc::new(credentials), "the options")
    } else if options.profile.is_some() {
        // A profile named in the options is what the caller wants, whatever the
        // environment holds.
        let credentials = profile.credentials().ok_or_else(|| {
            format!(
                "profile '{}' has no aws_access_key_id and aws_secret_access_key (profiles \
                 with role_arn, SSO or credential_process are not supported)",
                profile.name
            )
        })?;
        CredentialSource::Static(Arc::new(credentials), "the profile files")
    } else if let (Some(key), Some(secret)) =
        (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"))
    {
        let credentials = match env("AWS_SESSION_TOKEN") {
            Some(token) => Credentials::new_with_token(key, secret, token),
            None => Credentials::new(key, secret),
        };
        CredentialSource::Static(Arc::new(credentials), "the environment")
    } else if let Some(credentials) = profile.credentials() {
        CredentialSource::Static(Arc::new(credentials), "the profile files")
    } else if !imds_disabled(env) {
        match InstanceCredentials::probe(&imds_endpoint(env)) {
            Some(instance) => CredentialSource::Instance(Arc::new(instance)),
            None => CredentialSource::Anonymous,
        }
    } else {
        CredentialSource::Anonymous
    };
    Ok(S3Settings {
        endpoint,
        region,
        credentials,
    })
}

fn imds_disabled(env: EnvLookup) -> bool {
    env("AWS_EC2_METADATA_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

fn imds_endpoint(env: EnvLookup) -> String {
    env("AWS_EC2_METADATA_SERVICE_ENDPOINT")
        .unwrap_or_else(|| DEFAULT_IMDS_ENDPOINT.to_string())
        .trim_end_matches('/')
        .to_string()
}

/// Credentials of the instance's IAM role, from IMDS (v2 with a session token, falling
/// back to v1 when the token request is refused).
pub(crate) struct InstanceCredentials {
    endpoint: String,
    state: Mutex<(Arc<Credentials>, SystemTime)>,
}

/// Endpoints whose last probe failed, and when.
fn failed_probes() -> &'static Mutex<HashMap<String, Instant>> {
    static FAILED: OnceLock<Mutex<HashMap<String, Instant>>> = OnceLock::new();
    FAILED.get_or_init(Default::default)
}

impl InstanceCredentials {
    /// Fetch credentials from `endpoint`, or `None` if it does not answer in time (the
    /// failure is remembered for a while, so the next store does not wait again).
    fn probe(endpoint: &str) -> Option<InstanceCredentials> {
        {
            let failed = failed_probes().lock().unwrap_or_else(|e| e.into_inner());
            if failed
                .get(endpoint)
                .is_some_and(|at| at.elapsed() < IMDS_NEGATIVE_TTL)
            {
                return None;
            }
        }
        match fetch_instance_credentials(endpoint) {
            Ok(state) => Some(InstanceCredentials {
                endpoint: endpoint.to_string(),
                state: Mutex::new(state),
            }),
            Err(_) => {
                failed_probes()
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(endpoint.to_string(), Instant::now());
                None
            }
        }
    }

    fn current(&self) -> Option<Arc<Credentials>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let expiring = state
            .1
            .duration_since(SystemTime::now())
            .map_or(true, |left| left < IMDS_REFRESH_MARGIN);
        if expiring {
            // Keep the old credentials if the refresh fails: they may still be valid, and
            // the service's answer (403) will say so otherwise.
            if let Ok(fresh) = fetch_instance_credentials(&self.endpoint) {
                *state = fresh;
            }
        }
        Some(state.0.clone())
    }
}

fn fetch_instance_credentials(endpoint: &str) -> Result<(Arc<Credentials>, SystemTime), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(IMDS_TIMEOUT))
        .timeout_connect(Some(IMDS_TIMEOUT))
        .max_redirects(0)
        .proxy(None) // the metadata service is never behind a proxy
        .build()
        .into();
    let text = |response: Result<ureq::http::Response<ureq::Body>, ureq::Error>| {
        let response = response.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let text = body
            .with_config()
            .limit(64 * 1024)
            .read_to_string()
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((status, text))
    };
    let token = match text(
        agent
            .put(format!("{endpoint}/latest/api/token"))
            .header("X-aws-ec2-metadata-token-ttl-seconds", "21600")
            .send(&[][..]),
    )? {
        (200, token) => Some(token.trim().to_string()),
        // IMDSv1 only (v2 refused): go on without a token.
        (403..=405, _) => None,
        (status, _) => return Err(format!("IMDS token request: HTTP {status}")),
    };
    let get = |path: &str| {
        let mut request = agent.get(format!(
            "{endpoint}/latest/meta-data/iam/security-credentials/{path}"
        ));
        if let Some(token) = &token {
            request = request.header("X-aws-ec2-metadata-token", token.as_str());
        }
        match text(request.call())? {
            (200, body) => Ok(body),
            (status, _) => Err(format!("IMDS credentials request: HTTP {status}")),
        }
    };
    let roles = get("")?;
    let role = roles
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .ok_or("IMDS: the instance has no IAM role")?;
    let document = get(role)?;
    let response =
        rusty_s3::credentials::Ec2SecurityCredentialsMetadataResponse::deserialize(&document)
            .map_err(|e| format!("IMDS credentials: {e}"))?;
    let seconds = response.expiration().as_second();
    let expires = SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(seconds).unwrap_or(0));
    Ok((Arc::new(response.into_credentials()), expires))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_files_parse() {
        let text = "# comment\n[default]\nregion = eu-west-1\n\n[profile dev]\n\
                    aws_access_key_id=AKDEV\n  ; indented comment\nS3 =\n  endpoint_url = http://127.0.0.1:9\n\
                    \n  addressing_style = path\nregion=us-west-2\n[profile   spaced  name]\nx = 1\n";
        let sections = parse_profile_file(text);
        assert_eq!(sections["default"]["region"], "eu-west-1");
        let dev = &sections["profile dev"];
        assert_eq!(dev["aws_access_key_id"], "AKDEV");
        assert_eq!(dev["s3.endpoint_url"], "http://127.0.0.1:9");
        assert_eq!(dev["s3.addressing_style"], "path");
        assert_eq!(dev["region"], "us-west-2");
        assert_eq!(sections["profile spaced name"]["x"], "1");
    }

    fn env_of(pairs: &[(&str, String)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        move |name| map.get(name).cloned().filter(|v| !v.is_empty())
    }

    fn key_of(settings: &S3Settings) -> Option<String> {
        settings.credentials.current().map(|c| c.key().to_string())
    }

    #[test]
    fn precedence_options_env_profile() {
        let dir = std::env::temp_dir().join(format!("zarr-cred-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let credentials = dir.join("credentials");
        let config = dir.join("config");
        std::fs::write(
            &credentials,
            "[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = s\n\
             [other]\naws_access_key_id = AKOTHER\naws_secret_access_key = s\naws_session_token = tok\n",
        )
        .unwrap();
        std::fs::write(
            &config,
            "[default]\nregion = ap-south-1\n[profile other]\nregion = eu-north-1\n\
             s3 =\n  endpoint_url = http://127.0.0.1:1234\n[profile nokeys]\nregion = x\n",
        )
        .unwrap();
        let files = vec![
            (
                "AWS_SHARED_CREDENTIALS_FILE",
                credentials.display().to_string(),
            ),
            ("AWS_CONFIG_FILE", config.display().to_string()),
            ("AWS_EC2_METADATA_DISABLED", "true".to_string()),
        ];
        let with = |extra: &[(&str, &str)]| {
            let mut pairs = files.clone();
            pairs.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
            env_of(&pairs)
        };

        // The default profile.
        let s = resolve(&UrlOptions::default(), &with(&[])).unwrap();
        assert_eq!(key_of(&s).as_deref(), Some("AKDEFAULT"));
        assert_eq!(s.region, "ap-south-1");
        assert_eq!(s.endpoint, None);
        // The environment beats the default profile; AWS_REGION beats the profile.
        let env = with(&[
            ("AWS_ACCESS_KEY_ID", "AKENV"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("AWS_DEFAULT_REGION", "r2"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:1"),
        ]);
        let s = resolve(&UrlOptions::default(), &env).unwrap();
        assert_eq!(key_of(&s).as_deref(), Some("AKENV"));
        assert_eq!(s.region, "r2");
        assert_eq!(s.endpoint.as_deref(), Some("http://127.0.0.1:1"));
        // Options beat everything.
        let options = UrlOptions {
            access_key_id: Some("AKOPT".into()),
            secret_access_key: Some("s".into()),
            region: Some("r1".into()),
            endpoint: Some("http://127.0.0.1:2".into()),
            ..Default::default()
        };
        let s = resolve(&options, &env).unwrap();
        assert_eq!(key_of(&s).as_deref(), Some("AKOPT"));
        assert_eq!(
            (s.region.as_str(), s.endpoint.as_deref()),
            ("r1", Some("http://127.0.0.1:2"))
        );
        // A profile named by AWS_PROFILE, with its s3 endpoint and session token.
        let s = resolve(&UrlOptions::default(), &with(&[("AWS_PROFILE", "other")])).unwrap();
        let c = s.credentials.current().unwrap();
        assert_eq!((c.key(), c.token()), ("AKOTHER", Some("tok")));
        assert_eq!(s.region, "eu-north-1");
        assert_eq!(s.endpoint.as_deref(), Some("http://127.0.0.1:1234"));
        // A profile named in the options beats the environment's keys.
        let options = UrlOptions {
            profile: Some("other".into()),
            ..Default::default()
        };
        assert_eq!(
            key_of(&resolve(&options, &env).unwrap()).as_deref(),
            Some("AKOTHER")
        );
        // Missing profiles and profiles without keys.
        let options = UrlOptions {
            profile: Some("missing".into()),
            ..Default::default()
        };
        let message = resolve(&options, &with(&[])).unwrap_err();
        assert!(message.contains("profile 'missing'"), "{message}");
        let message =
            resolve(&UrlOptions::default(), &with(&[("AWS_PROFILE", "gone")])).unwrap_err();
        assert!(message.contains("AWS_PROFILE"), "{message}");
        let options = UrlOptions {
            profile: Some("nokeys".into()),
            ..Default::default()
        };
        assert!(resolve(&options, &with(&[]))
            .unwrap_err()
            .contains("no aws_access_key_id"));
        // Anonymous ignores every key.
        let options = UrlOptions {
            anonymous: Some(true),
            ..Default::default()
        };
        assert!(key_of(&resolve(&options, &env).unwrap()).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn instance_credentials_from_a_fake_metadata_service() {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for stream in listener.incoming().take(3) {
                let mut stream = stream.unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let mut has_token = false;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if line.trim().is_empty() {
                        break;
                    }
                    has_token |= line.eq_ignore_ascii_case("x-aws-ec2-metadata-token: tok\r\n");
                }
                let path = request_line.split_whitespace().nth(1).unwrap().to_string();
                let body = match path.as_str() {
                    "/latest/api/token" => "tok",
                    "/latest/meta-data/iam/security-credentials/" => "role\n",
                    "/latest/meta-data/iam/security-credentials/role" => {
                        r#"{"Code": "Success", "AccessKeyId": "AKIMDS", "SecretAccessKey": "s",
                            "Token": "t", "Expiration": "2099-01-01T00:00:00Z"}"#
                    }
                    _ => "",
                };
                write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .unwrap();
                seen.push((path, has_token));
            }
            seen
        });
        let env = env_of(&[
            (
                "AWS_EC2_METADATA_SERVICE_ENDPOINT",
                format!("http://127.0.0.1:{port}/"),
            ),
            (
                "AWS_SHARED_CREDENTIALS_FILE",
                "/nonexistent/credentials".into(),
            ),
            ("AWS_CONFIG_FILE", "/nonexistent/config".into()),
        ]);
        let settings = resolve(&UrlOptions::default(), &env).unwrap();
        let c = settings.credentials.current().unwrap();
        assert_eq!((c.key(), c.token()), ("AKIMDS", Some("t")));
        assert_eq!(
            settings.credentials.origin(),
            "the instance metadata service"
        );
        let seen = server.join().unwrap();
        assert_eq!(seen[0].0, "/latest/api/token");
        assert!(seen[1].1 && seen[2].1, "{seen:?}");
    }
}
