//! `JwtVerifier` against keys this test generates and serves as a JWKS
//! (with the authorization server's metadata) over 127.0.0.1: a good token,
//! then every way a token must be refused (audience, issuer, expiry,
//! not-before, `alg: none`, HS256 keyed with the public key, a forged
//! signature, an unknown key fetched again once), and the verifier in
//! front of a protected endpoint (a missing scope, a state replayed with
//! another user's token, a token for another resource).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

#[path = "../../tests/auth/jwks_server.rs"]
mod jwks_server;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use jwks_server::{JwksServer, Key, now};
use mcp_runtime::auth::{JwtAlgorithm, JwtVerifier, ProtectedResource, TokenError, TokenVerifier};
use mcp_runtime::prelude::*;
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::http::HttpTransport;
use serde_json::{Value, json};
use support::auth_handlers::{confirm, deploy};
use support::http::meta;

const RESOURCE: &str = "http://127.0.0.1:8080/mcp";

/// Claims of a good token from `issuer` for the resource.
fn claims(issuer: &str) -> Value {
    jwks_server::claims(issuer, RESOURCE, "ada", "mcp:tools files:read")
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

async fn verifier_for(server: &JwksServer) -> JwtVerifier {
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
    let server = JwksServer::start(vec![key.jwk.clone()]).await;
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
async fn the_algorithm_allow_list_is_the_one_set() {
    let key = Key::generate("k1");
    let server = JwksServer::start(vec![key.jwk.clone()]).await;
    let token = key.sign(&claims(&server.issuer));
    let only_rsa = verifier_for(&server)
        .await
        .algorithms([JwtAlgorithm::RS256, JwtAlgorithm::PS256]);
    refused(only_rsa.verify(&token).await, "ES256 outside the list");
    let only_ec = verifier_for(&server)
        .await
        .algorithms([JwtAlgorithm::ES256]);
    only_ec.verify(&token).await.unwrap();
}

#[tokio::test]
async fn tokens_are_refused_for_every_reason_they_should_be() {
    let key = Key::generate("k1");
    let server = JwksServer::start(vec![key.jwk.clone()]).await;
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
    let server = JwksServer::start(vec![first.jwk.clone()]).await;
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

/// Posts a tools/call with `token`: the status, the challenge and the body.
async fn call(url: &str, token: &str, params: Value) -> (u16, Option<String>, Value) {
    let mut params = params;
    params["_meta"] = meta(json!({"elicitation": {"form": {}}}), json!({}));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", params["name"].as_str().unwrap())
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    (status, challenge, serde_json::from_str(&text).unwrap())
}

#[tokio::test]
async fn in_front_of_an_endpoint_scopes_and_states_follow_the_signed_token() {
    let key = Key::generate("k1");
    let authorization = JwksServer::start(vec![key.jwk.clone()]).await;
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let resource = ProtectedResource::new(&url, &authorization.issuer)
        .unwrap()
        .required_scopes(["mcp:tools"]);
    let verifier = JwtVerifier::discover(&resource).await.unwrap();
    let server = Server::builder("protected", "1")
        .handler::<confirm>()
        .handler::<deploy>()
        .request_state_signer(RequestStateSigner::generate().unwrap())
        .build()
        .unwrap();
    let bound = HttpTransport::new(server)
        .protect(resource, verifier)
        .bind(("127.0.0.1", port))
        .await
        .unwrap();
    tokio::spawn(bound.serve());
    let token = |subject: &str, scope: &str| {
        key.sign(&jwks_server::claims(
            &authorization.issuer,
            &url,
            subject,
            scope,
        ))
    };
    let (ada, bob) = (token("ada", "mcp:tools"), token("bob", "mcp:tools"));
    let metadata = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");

    // A scope the token lacks: 403, one challenge naming every scope needed.
    let (status, challenge, body) = call(&url, &ada, json!({"name": "deploy"})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        challenge.unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp:tools deploy:write", resource_metadata="{metadata}""#
        )
    );
    assert_eq!(
        body["error"]["data"]["requiredScopes"],
        json!(["mcp:tools", "deploy:write"])
    );
    let deployer = token("ada", "mcp:tools deploy:write");
    let (status, _, body) = call(&url, &deployer, json!({"name": "deploy"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "deployed by ada");

    // Ada's state, replayed with Bob's (valid) token: the fixed -32602.
    let (_, _, asked) = call(&url, &ada, json!({"name": "confirm"})).await;
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState: {asked}"))
        .to_owned();
    let retry = json!({"name": "confirm", "requestState": state,
        "inputResponses": {"ok": {"action": "accept", "content": {"ok": true}}}});
    let (status, _, stolen) = call(&url, &bob, retry.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert_eq!(
        stolen["error"]["message"],
        r#"Invalid or expired "requestState""#
    );
    let (_, _, done) = call(&url, &ada, retry).await;
    assert_eq!(done["result"]["content"][0]["text"], "ok = true", "{done}");

    // A token for another resource never gets as far as a handler.
    let elsewhere = key.sign(&jwks_server::claims(
        &authorization.issuer,
        "http://127.0.0.1:1/mcp",
        "ada",
        "mcp:tools deploy:write",
    ));
    let (status, challenge, _) = call(&url, &elsewhere, json!({"name": "deploy"})).await;
    assert_eq!(status, 401);
    assert!(
        challenge
            .unwrap()
            .starts_with(r#"Bearer error="invalid_token""#)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_key_fetch_holds_up_only_the_tokens_that_need_it() {
    let key = Key::generate("k1");
    let server = JwksServer::start(vec![key.jwk.clone()]).await;
    let verifier = Arc::new(verifier_for(&server).await);
    verifier
        .verify(&key.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    tokio::time::sleep(REFETCH).await;
    let before = server.fetches();

    // A token naming an unknown key starts a fetch that hangs (until the
    // verifier's fetch timeout).
    server.slow_down(Duration::from_secs(30));
    let unknown = {
        let verifier = Arc::clone(&verifier);
        let token = Key::generate("k9").sign(&claims(&server.issuer));
        tokio::spawn(async move { verifier.verify(&token).await })
    };
    for _ in 0..1000 {
        if server.fetches() > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        server.fetches(),
        before + 1,
        "the unknown key was not fetched"
    );
    // Meanwhile a token whose key is cached is checked at once.
    verifier
        .verify(&key.sign(&claims(&server.issuer)))
        .await
        .unwrap();
    assert!(
        !unknown.is_finished(),
        "the known key was checked only after the fetch ended"
    );
    refused(unknown.await.unwrap(), "unknown kid, keys unreachable");
}

#[tokio::test]
async fn an_oversized_key_set_is_not_taken() {
    let key = Key::generate("k1");
    let server = JwksServer::start(vec![key.jwk.clone()]).await;
    server.pad(300 * 1024);
    let verifier = verifier_for(&server).await;
    match verifier.verify(&key.sign(&claims(&server.issuer))).await {
        Err(TokenError::Unavailable(reason)) => {
            assert!(reason.contains("larger than"), "{reason}");
        }
        other => panic!("expected the keys to be refused as too large, got {other:?}"),
    }
}
