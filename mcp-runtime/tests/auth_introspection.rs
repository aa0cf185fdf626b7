//! `IntrospectionVerifier` against an introspection endpoint of the
//! test's own on 127.0.0.1 (RFC 7662): what an active token yields, and
//! every answer that must refuse it (inactive, 4xx, another audience or
//! issuer, expired) or leave it undecided (5xx, no answer); the cache of
//! answers by the token's digest, and the bound on calls at once and on
//! their time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

/// An introspection endpoint that counts its calls and answers each after
/// `delay`: active for "good" and "short" (which expires in 2 s), inactive
/// for anything else.
async fn counting_endpoint(delay: Duration) -> (String, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let app = axum::Router::new().route(
        "/introspect",
        axum::routing::post(move |body: String| {
            let counted = Arc::clone(&counted);
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                let token = body
                    .split('&')
                    .find_map(|pair| pair.strip_prefix("token="))
                    .unwrap_or_default();
                let exp = match token {
                    "good" => now() + 300,
                    "short" => now() + 2,
                    _ => return axum::Json(json!({"active": false})),
                };
                axum::Json(json!({"active": true, "sub": "ada", "aud": RESOURCE,
                    "iss": ISSUER, "exp": exp}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, calls)
}

#[tokio::test]
async fn without_a_cache_every_verification_asks() {
    let (url, calls) = counting_endpoint(Duration::ZERO).await;
    let verifier = verifier(&url);
    for _ in 0..3 {
        assert_eq!(verifier.verify("good").await.unwrap().subject, "ada");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_good_token_is_asked_about_once_within_the_cache_ttl() {
    let (url, calls) = counting_endpoint(Duration::ZERO).await;
    let verifier = verifier(&url).cache_ttl(Duration::from_millis(800));
    for _ in 0..20 {
        assert_eq!(verifier.verify("good").await.unwrap().subject, "ada");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1, "one call within the TTL");
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(verifier.verify("good").await.unwrap().subject, "ada");
    assert_eq!(calls.load(Ordering::SeqCst), 2, "asked again past the TTL");
}

#[tokio::test]
async fn an_inactive_answer_is_reused_within_its_ttl_and_not_past_it() {
    let (url, calls) = counting_endpoint(Duration::ZERO).await;
    let verifier = verifier(&url).cache_ttl(Duration::from_millis(600));
    for _ in 0..10 {
        assert!(matches!(
            verifier.verify("junk").await,
            Err(TokenError::Invalid(_))
        ));
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(matches!(
        verifier.verify("junk").await,
        Err(TokenError::Invalid(_))
    ));
    assert_eq!(calls.load(Ordering::SeqCst), 2, "not reused past its TTL");
}

#[tokio::test]
async fn an_active_answer_is_not_kept_past_the_tokens_exp() {
    let (url, calls) = counting_endpoint(Duration::ZERO).await;
    // The TTL is long; "short" expires within 2 s (1 to 2 s from now, as
    // `exp` is in whole seconds).
    let verifier = verifier(&url).cache_ttl(Duration::from_secs(60));
    assert!(verifier.verify("short").await.is_ok());
    assert!(verifier.verify("short").await.is_ok());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let _ = verifier.verify("short").await;
    assert_eq!(calls.load(Ordering::SeqCst), 2, "asked again after its exp");
}

#[tokio::test]
async fn a_slow_authorization_server_holds_no_verification_past_the_timeout() {
    let (url, calls) = counting_endpoint(Duration::from_secs(5)).await;
    let verifier = Arc::new(
        verifier(&url)
            .max_concurrent_calls(2)
            .fetch_timeout(Duration::from_millis(400)),
    );
    let started = Instant::now();
    let verifications: Vec<_> = (0..6)
        .map(|i| {
            let verifier = Arc::clone(&verifier);
            tokio::spawn(async move { verifier.verify(&format!("t{i}")).await })
        })
        .collect();
    // While they wait, two calls have reached the authorization server and
    // the other four wait for one of them to finish.
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 2, "at most two calls at once");
    for verification in verifications {
        match verification.await.unwrap() {
            Err(TokenError::Unavailable(why)) => {
                assert!(why.contains("no answer within"), "{why}");
            }
            other => panic!("expected Unavailable, got {other:?}"),
        }
    }
    let took = started.elapsed();
    assert!(took < Duration::from_millis(1500), "took {took:?}");
}
