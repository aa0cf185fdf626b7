//! `IntrospectionVerifier` against an introspection endpoint of the
//! test's own on 127.0.0.1 (RFC 7662): what an active token yields, and
//! every answer that must refuse it (inactive, 4xx, another audience or
//! issuer, expired) or leave it undecided (5xx, no answer).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, StatusCode};
use mcp_runtime::auth::{IntrospectionVerifier, ProtectedResource, TokenError, TokenVerifier};
use serde_json::{Value, json};

const RESOURCE: &str = "http://127.0.0.1:8080/mcp";
const ISSUER: &str = "http://127.0.0.1:9000/";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The answer for each token the endpoint knows.
fn answer(token: &str) -> (StatusCode, Value) {
    let active = json!({"active": true, "sub": "ada", "client_id": "app",
        "scope": "mcp:tools files:read", "aud": RESOURCE, "iss": ISSUER, "exp": now() + 300});
    let with = |key: &str, value: Value| {
        let mut a = active.clone();
        a[key] = value;
        (StatusCode::OK, a)
    };
    match token {
        "good" => (StatusCode::OK, active.clone()),
        "listed" => with("aud", json!(["https://other.example.com", RESOURCE])),
        "other-aud" => with("aud", json!("http://127.0.0.1:8080/other")),
        "no-aud" => with("aud", Value::Null),
        "other-iss" => with("iss", json!("http://127.0.0.1:1/")),
        "expired" => with("exp", json!(now() - 120)),
        "early" => with("nbf", json!(now() + 300)),
        "no-sub" => with("sub", Value::Null),
        "inactive" => (StatusCode::OK, json!({"active": false})),
        "server-error" => (StatusCode::INTERNAL_SERVER_ERROR, json!({})),
        // What the TypeScript SDK's demo server answers for a token it
        // does not know.
        _ => (StatusCode::UNAUTHORIZED, json!({"error": "invalid_token"})),
    }
}

/// An introspection endpoint; the bodies and `Authorization` headers it
/// received.
async fn endpoint() -> (String, Arc<Mutex<Vec<(String, Option<String>)>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&seen);
    let app = axum::Router::new().route(
        "/introspect",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let recorded = Arc::clone(&recorded);
            async move {
                let auth = headers
                    .get("authorization")
                    .map(|v| v.to_str().unwrap().to_owned());
                recorded.lock().unwrap().push((body.clone(), auth));
                let token = body
                    .split('&')
                    .find_map(|pair| pair.strip_prefix("token="))
                    .unwrap_or_default()
                    .to_owned();
                let (status, answer) = answer(&token);
                (status, axum::Json(answer))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

fn verifier(url: &str) -> IntrospectionVerifier {
    let resource = ProtectedResource::new(RESOURCE, ISSUER).unwrap();
    IntrospectionVerifier::new(&resource, url).client_credentials("mcp-server", "s3cret")
}

#[tokio::test]
async fn an_active_token_names_its_subject_client_and_scopes() {
    let (url, seen) = endpoint().await;
    let verifier = verifier(&url);
    let token = verifier.verify("good").await.unwrap();
    assert_eq!(token.subject, "ada");
    assert_eq!(token.client_id.as_deref(), Some("app"));
    assert_eq!(token.scopes, ["mcp:tools", "files:read"]);
    assert_eq!(verifier.verify("listed").await.unwrap().subject, "ada");
    // A client acting for itself.
    assert_eq!(
        verifier.verify("no-sub").await.unwrap().subject,
        "client:app"
    );
    // The endpoint got the token form-encoded, with our credentials.
    let (body, auth) = seen.lock().unwrap()[0].clone();
    assert_eq!(body, "token=good&token_type_hint=access_token");
    assert_eq!(auth.as_deref(), Some("Basic bWNwLXNlcnZlcjpzM2NyZXQ="));
}

#[tokio::test]
async fn tokens_are_refused_or_left_undecided_as_the_answer_says() {
    let (url, _) = endpoint().await;
    let verifier = verifier(&url);
    for refused in [
        "inactive",
        "unknown",
        "other-aud",
        "no-aud",
        "other-iss",
        "expired",
        "early",
    ] {
        match verifier.verify(refused).await {
            Err(TokenError::Invalid(_)) => {}
            other => panic!("{refused}: expected a refusal, got {other:?}"),
        }
    }
    assert!(matches!(
        verifier.verify("server-error").await,
        Err(TokenError::Unavailable(_))
    ));
    // Nobody listening.
    let gone = self::verifier("http://127.0.0.1:9/introspect");
    assert!(matches!(
        gone.verify("good").await,
        Err(TokenError::Unavailable(_))
    ));
    // With the audience check turned off (loudly), another audience passes.
    let lax = self::verifier(&url).accept_tokens_for_any_audience_insecure();
    assert_eq!(lax.verify("other-aud").await.unwrap().subject, "ada");
}
