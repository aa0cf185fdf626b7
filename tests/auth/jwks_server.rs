//! An authorization server's public face for the tests, on 127.0.0.1: its
//! RFC 8414 metadata and a JWKS of signing keys the test generates (ES256),
//! with the published keys changeable, their fetches counted, and the keys'
//! answer slowed or padded on demand. Tokens are
//! signed with [`Key::sign`]. Both crates' tests include this file with
//! `#[path]` (`mcp-runtime/tests/auth_jwt.rs`, `examples/tests/`), so the
//! JWT tests of the runtime and of the example share one generator.

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
        let metadata = json!({
            "issuer": issuer,
            "jwks_uri": format!("http://{addr}/jwks"),
            "authorization_endpoint": format!("http://{addr}/authorize"),
            "token_endpoint": format!("http://{addr}/token"),
        });
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
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            issuer,
            keys,
            fetches,
            delay,
            padding,
        }
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
