//! `JwtVerifier` against keys this test generates and serves as a JWKS
//! (with the authorization server's metadata) over 127.0.0.1: a good token,
//! then every way a token must be refused (audience, issuer, expiry,
//! not-before, `alg: none`, HS256 keyed with the public key, a forged
//! signature, an unknown key fetched again once), and the verifier in
//! front of a protected endpoint.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{EncodingKey, Header, encode};
use mcp_runtime::auth::{Algorithm, JwtVerifier, ProtectedResource, TokenError, TokenVerifier};
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};

/// A signing key of the test's own, and its public half as a JWK.
struct Key {
    encoding: EncodingKey,
    jwk: Jwk,
    kid: String,
}

impl Key {
    fn generate(kid: &str) -> Self {
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

    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        encode(&header, claims, &self.encoding).unwrap()
    }
}

/// The authorization server's metadata and keys, served on 127.0.0.1;
/// the published keys can change, and fetches of them are counted.
struct AuthServer {
    issuer: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    fetches: Arc<AtomicUsize>,
}

impl AuthServer {
    async fn start(published: Vec<Jwk>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let issuer = format!("http://{addr}/");
        let keys = Arc::new(Mutex::new(published));
        let fetches = Arc::new(AtomicUsize::new(0));
        let metadata = json!({
            "issuer": issuer,
            "jwks_uri": format!("http://{addr}/jwks"),
            "authorization_endpoint": format!("http://{addr}/authorize"),
            "token_endpoint": format!("http://{addr}/token"),
        });
        let (served_keys, counted) = (Arc::clone(&keys), Arc::clone(&fetches));
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
                    async move { axum::Json(serde_json::to_value(set).unwrap()) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            issuer,
            keys,
            fetches,
        }
    }

    fn publish(&self, jwk: Jwk) {
        self.keys.lock().unwrap().push(jwk);
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

const RESOURCE: &str = "http://127.0.0.1:8080/mcp";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims of a good token from `issuer` for the resource.
fn claims(issuer: &str) -> Value {
    json!({"iss": issuer, "aud": RESOURCE, "sub": "ada", "client_id": "app",
           "scope": "mcp:tools files:read", "exp": now() + 300, "iat": now()})
}

fn with(mut claims: Value, key: &str, value: Value) -> Value {
    claims[key] = value;
    claims
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Keys may be fetched again this often in these tests.
const REFETCH: std::time::Duration = std::time::Duration::from_millis(300);

async fn verifier_for(server: &AuthServer) -> JwtVerifier {
    let resource = ProtectedResource::new(RESOURCE, &server.issuer).unwrap();
    JwtVerifier::discover(&resource)
        .await
        .unwrap()
        .refetch_interval(REFETCH)
}

fn refused(outcome: Result<mcp_runtime::server::Caller, TokenError>, what: &str) {
    match outcome {
        Err(TokenError::Invalid(_)) => {}
        other => panic!("{what}: expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_good_token_names_its_subject_client_and_scopes() {
    let key = Key::generate("k1");
    let server = AuthServer::start(vec![key.jwk.clone()]).await;
    let verifier = verifier_for(&server).await;
    let token = verifier
        .verify(&key.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    assert_eq!(token.subject, "ada");
    assert_eq!(token.client_id.as_deref(), Some("app"));
    assert_eq!(token.scopes, ["mcp:tools", "files:read"]);
    // An audience list that contains the resource is fine; `scp` and `azp`
    // are read too.
    let listed = with(
        with(
            claims(&server.issuer),
            "aud",
            json!(["https://other.example.com", RESOURCE]),
        ),
        "scope",
        Value::Null,
    );
    let listed = with(
        with(listed, "scp", json!(["a", "b"])),
        "client_id",
        Value::Null,
    );
    let listed = with(listed, "azp", json!("other-app"));
    let token = verifier.verify(&key.sign(&listed)).await.unwrap();
    assert_eq!(token.scopes, ["a", "b"]);
    assert_eq!(token.client_id.as_deref(), Some("other-app"));
}

#[tokio::test]
async fn tokens_are_refused_for_every_reason_they_should_be() {
    let key = Key::generate("k1");
    let server = AuthServer::start(vec![key.jwk.clone()]).await;
    let verifier = verifier_for(&server).await;
    let good = claims(&server.issuer);
    let cases = [
        (
            "another audience",
            with(good.clone(), "aud", json!("http://127.0.0.1:8080/other")),
        ),
        ("no audience", {
            let mut c = good.clone();
            c.as_object_mut().unwrap().remove("aud");
            c
        }),
        (
            "another issuer",
            with(good.clone(), "iss", json!("http://127.0.0.1:1/")),
        ),
        (
            "expired past the leeway",
            with(good.clone(), "exp", json!(now() - 120)),
        ),
        (
            "not yet valid",
            with(good.clone(), "nbf", json!(now() + 300)),
        ),
        ("no expiry", {
            let mut c = good.clone();
            c.as_object_mut().unwrap().remove("exp");
            c
        }),
    ];
    for (what, claims) in cases {
        refused(verifier.verify(&key.sign(&claims)).await, what);
    }
    // Within the leeway, an expiry a few seconds ago still passes.
    verifier
        .verify(&key.sign(&with(good.clone(), "exp", json!(now() - 5))))
        .await
        .unwrap();

    // `alg: none`: no signature at all.
    let unsigned = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT","kid":"k1"}"#),
        b64(good.to_string().as_bytes())
    );
    refused(verifier.verify(&unsigned).await, "alg none");

    // HS256 keyed with the public key (the algorithm-confusion attack).
    let public = serde_json::to_vec(&key.jwk).unwrap();
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("k1".to_owned());
    let confused = encode(&header, &good, &EncodingKey::from_secret(&public).unwrap()).unwrap();
    refused(
        verifier.verify(&confused).await,
        "HS256 with the public key",
    );

    // A valid token whose payload was swapped.
    let token = key.sign(&good);
    let parts: Vec<&str> = token.split('.').collect();
    let forged_payload = b64(with(good.clone(), "sub", json!("admin"))
        .to_string()
        .as_bytes());
    let forged = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
    refused(verifier.verify(&forged).await, "forged payload");

    // Signed by a key the server never published.
    let stranger = Key::generate("k1");
    refused(
        verifier.verify(&stranger.sign(&good)).await,
        "unpublished key",
    );
    refused(verifier.verify("not.a.jwt").await, "garbage");
}

#[tokio::test]
async fn an_unknown_key_is_fetched_again_once_then_refused() {
    let first = Key::generate("k1");
    let server = AuthServer::start(vec![first.jwk.clone()]).await;
    let verifier = verifier_for(&server).await;
    verifier
        .verify(&first.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    assert_eq!(server.fetches(), 1, "the keys are fetched once and cached");
    verifier
        .verify(&first.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    assert_eq!(server.fetches(), 1);

    // A rotated-in key: the first token naming it fetches the keys again.
    let second = Key::generate("k2");
    server.publish(second.jwk.clone());
    // (Fetches are spaced by the refetch interval; wait it out.)
    tokio::time::sleep(REFETCH).await;
    verifier
        .verify(&second.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    assert_eq!(server.fetches(), 2);

    // A key nobody publishes: the token naming it fetches the keys once
    // more (the interval has passed), and is refused.
    tokio::time::sleep(REFETCH).await;
    let unknown = Key::generate("k3");
    refused(
        verifier
            .verify(&unknown.sign(&claims(&server.issuer)))
            .await,
        "unknown kid",
    );
    assert_eq!(server.fetches(), 3);

    // A flood of tokens naming unknown keys, within one interval (an hour
    // here), fetches nothing more.
    let patient = verifier_for(&server)
        .await
        .refetch_interval(std::time::Duration::from_secs(3600));
    patient
        .verify(&first.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    let before = server.fetches();
    for i in 0..20 {
        let stranger = Key::generate(&format!("flood-{i}"));
        refused(
            patient
                .verify(&stranger.sign(&claims(&server.issuer)))
                .await,
            "unknown kid",
        );
    }
    assert_eq!(
        server.fetches(),
        before,
        "unknown keys cannot make us fetch in a loop"
    );
}
