//! An authorization server's public face for the tests, on 127.0.0.1: its
//! RFC 8414 metadata and a JWKS of signing keys the test generates (ES256),
//! with the published keys changeable, their fetches counted, and the keys'
//! answer slowed or padded on demand. Tokens are
//! signed with [`Key::sign`]; once [`JwksServer::issue_tokens`] names a
//! client, its token endpoint also answers the `client_credentials` grant
//! for that client (`client_secret_basic` or `client_secret_post`) with
//! such a token, for the `resource` and `scope` asked. The crates' tests
//! include this file with `#[path]` (`mcp-runtime/tests/auth_jwt.rs`,
//! `examples/tests/`, `mcp-cli/tests/`), so the JWT tests share one
//! generator.

#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};

/// A signing key of the test's own, and its public half as a JWK.
#[derive(Clone)]
pub struct Key {
    pub encoding: EncodingKey,
    pub jwk: Jwk,
    pub kid: String,
}

impl Key {
    /// A fresh P-256 key named `kid`.
    pub fn generate(kid: &str) -> Self {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).unwrap();
        let secret = p256::SecretKey::from_slice(&bytes).unwrap();
        let der = secret.to_pkcs8_der().unwrap();
        let encoding = EncodingKey::from_ec_der(der.as_bytes());
        let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).unwrap();
        jwk.common.key_id = Some(kid.to_owned());
        Self {
            encoding,
            jwk,
            kid: kid.to_owned(),
        }
    }

    /// `claims` as an ES256 JWT naming this key.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        encode(&header, claims, &self.encoding).unwrap()
    }
}

/// The authorization server's metadata and keys, served on 127.0.0.1.
pub struct JwksServer {
    /// `http://127.0.0.1:PORT/`.
    pub issuer: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    fetches: Arc<AtomicUsize>,
    /// How long the keys' answer waits before it is sent.
    delay: Arc<Mutex<Duration>>,
    /// Bytes of filler added to the keys' answer.
    padding: Arc<AtomicUsize>,
    /// The client the token endpoint serves, once there is one.
    issuing: Arc<Mutex<Option<Issuing>>>,
    /// The token requests' forms, in order (the client secret left out).
    token_requests: Arc<Mutex<Vec<Form>>>,
}

/// A form's name-value pairs.
pub type Form = Vec<(String, String)>;

/// The one client the token endpoint knows, and the key it signs with.
struct Issuing {
    key: Key,
    client_id: String,
    client_secret: String,
}

/// `application/x-www-form-urlencoded` pairs.
fn form_pairs(text: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://form/?{text}"))
        .map(|url| {
            url.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn form_value<'a>(form: &'a [(String, String)], name: &str) -> Option<&'a str> {
    form.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The token endpoint: `client_credentials` for the known client, a JWT
/// for the `resource` asked (which it needs) with the `scope` asked.
fn answer_token(
    issuer: &str,
    issuing: Option<&Issuing>,
    headers: &axum::http::HeaderMap,
    form: &[(String, String)],
) -> (axum::http::StatusCode, Value) {
    use axum::http::StatusCode;
    use base64::Engine as _;
    let error = |status, code: &str| (status, json!({"error": code}));
    let Some(issuing) = issuing else {
        return error(StatusCode::BAD_REQUEST, "unsupported_grant_type");
    };
    // client_secret_basic: the form-encoded id and secret, base64.
    let basic = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|v| base64::engine::general_purpose::STANDARD.decode(v).ok())
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|v| {
            let (id, secret) = v.split_once(':')?;
            let decoded = form_pairs(&format!("id={id}&secret={secret}"));
            Some((
                form_value(&decoded, "id")?.to_owned(),
                form_value(&decoded, "secret")?.to_owned(),
            ))
        });
    let post = form_value(form, "client_id")
        .zip(form_value(form, "client_secret"))
        .map(|(id, secret)| (id.to_owned(), secret.to_owned()));
    match basic.or(post) {
        Some((id, secret)) if id == issuing.client_id && secret == issuing.client_secret => {}
        _ => return error(StatusCode::UNAUTHORIZED, "invalid_client"),
    }
    if form_value(form, "grant_type") != Some("client_credentials") {
        return error(StatusCode::BAD_REQUEST, "unsupported_grant_type");
    }
    let Some(resource) = form_value(form, "resource") else {
        return error(StatusCode::BAD_REQUEST, "invalid_target");
    };
    let scope = form_value(form, "scope").unwrap_or_default();
    let token = issuing.key.sign(&json!({
        "iss": issuer, "aud": resource, "sub": issuing.client_id,
        "client_id": issuing.client_id, "scope": scope,
        "exp": now() + 300, "iat": now(),
    }));
    (
        StatusCode::OK,
        json!({"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": scope}),
    )
}

impl JwksServer {
    /// Serves its metadata and `published` keys until the runtime ends.
    pub async fn start(published: Vec<Jwk>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let issuer = format!("http://{addr}/");
        let keys = Arc::new(Mutex::new(published));
        let fetches = Arc::new(AtomicUsize::new(0));
        let delay = Arc::new(Mutex::new(Duration::ZERO));
        let padding = Arc::new(AtomicUsize::new(0));
        let issuing = Arc::new(Mutex::new(None::<Issuing>));
        let token_requests = Arc::new(Mutex::new(Vec::new()));
        let metadata = json!({
            "issuer": issuer,
            "jwks_uri": format!("http://{addr}/jwks"),
            "authorization_endpoint": format!("http://{addr}/authorize"),
            "token_endpoint": format!("http://{addr}/token"),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        });
        let (known, seen, named) = (
            Arc::clone(&issuing),
            Arc::clone(&token_requests),
            issuer.clone(),
        );
        let (served_keys, counted) = (Arc::clone(&keys), Arc::clone(&fetches));
        let (slowed, padded) = (Arc::clone(&delay), Arc::clone(&padding));
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || {
                    let metadata = metadata.clone();
                    async move { axum::Json(metadata) }
                }),
            )
            .route(
                "/jwks",
                axum::routing::get(move || {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let set = JwkSet {
                        keys: served_keys.lock().unwrap().clone(),
                    };
                    let mut answer = serde_json::to_value(set).unwrap();
                    let filler = padded.load(Ordering::SeqCst);
                    if filler > 0 {
                        answer["padding"] = json!("x".repeat(filler));
                    }
                    let delay = *slowed.lock().unwrap();
                    async move {
                        tokio::time::sleep(delay).await;
                        axum::Json(answer)
                    }
                }),
            )
            .route(
                "/token",
                axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
                    let form = form_pairs(&body);
                    seen.lock().unwrap().push(
                        form.iter()
                            .filter(|(k, _)| k != "client_secret")
                            .cloned()
                            .collect(),
                    );
                    let (status, answer) =
                        answer_token(&named, known.lock().unwrap().as_ref(), &headers, &form);
                    async move { (status, axum::Json(answer)) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            issuer,
            keys,
            fetches,
            delay,
            padding,
            issuing,
            token_requests,
        }
    }

    /// Answers the `client_credentials` grant at `/token` for `client_id`
    /// with `client_secret`: an ES256 JWT signed by `key` (publish its JWK
    /// too) for the `resource` asked, with the `scope` asked, valid five
    /// minutes, its subject the client. A wrong client or secret gets
    /// `invalid_client`; a request without `resource`, `invalid_target`.
    pub fn issue_tokens(&self, key: Key, client_id: &str, client_secret: &str) {
        *self.issuing.lock().unwrap() = Some(Issuing {
            key,
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
        });
    }

    /// The forms of the token requests so far, in order, without any
    /// `client_secret`.
    pub fn token_requests(&self) -> Vec<Form> {
        self.token_requests.lock().unwrap().clone()
    }

    /// Makes every later answer with the keys wait `delay` first.
    pub fn slow_down(&self, delay: Duration) {
        *self.delay.lock().unwrap() = delay;
    }

    /// Adds `bytes` of filler to every later answer with the keys.
    pub fn pad(&self, bytes: usize) {
        self.padding.store(bytes, Ordering::SeqCst);
    }

    /// Publishes one more key.
    pub fn publish(&self, jwk: Jwk) {
        self.keys.lock().unwrap().push(jwk);
    }

    /// How many times the JWKS was fetched.
    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The claims of a good token from `issuer` for `audience`: subject
/// `subject`, client `app`, valid for five minutes, with `scope`.
pub fn claims(issuer: &str, audience: &str, subject: &str, scope: &str) -> Value {
    json!({"iss": issuer, "aud": audience, "sub": subject, "client_id": "app",
           "scope": scope, "exp": now() + 300, "iat": now()})
}
