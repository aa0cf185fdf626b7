//! The client against a mock protected server and authorization server of
//! the test's own: the four failures users meet in other SDKs cannot
//! happen here (a restart refreshes without signing in again, every
//! refresh carries `resource`, a rejected refresh signs in again once, 20
//! concurrent calls with an expired token cause one refresh).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::*;
use crate::client::{Client, Era};

#[derive(Default)]
struct Mock {
    base: Mutex<String>,
    authorizations: AtomicUsize,
    registrations: AtomicUsize,
    refreshes: AtomicUsize,
    refresh_resources: Mutex<Vec<Option<String>>>,
    issued: AtomicUsize,
    valid: Mutex<HashSet<String>>,
    /// Every bearer token the MCP endpoint received.
    presented: Mutex<Vec<String>>,
    reject_refresh: bool,
    expires_in: u64,
}

impl Mock {
    fn base(&self) -> String {
        self.base.lock().unwrap().clone()
    }
    fn issue(&self) -> Value {
        let n = self.issued.fetch_add(1, Ordering::SeqCst);
        let access = format!("access-{n}");
        self.valid.lock().unwrap().insert(access.clone());
        json!({"access_token": access, "token_type": "Bearer", "refresh_token": format!("refresh-{n}"), "expires_in": self.expires_in})
    }
}

fn pairs(query: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://x/?{query}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn find(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn json_response(status: StatusCode, body: Value) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

async fn start(mock: Mock) -> (Arc<Mock>, String) {
    let mock = Arc::new(mock);
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(|State(m): State<Arc<Mock>>| async move {
                let base = m.base();
                json_response(StatusCode::OK, json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}))
            }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(|State(m): State<Arc<Mock>>| async move {
                let base = m.base();
                json_response(StatusCode::OK, json!({
                    "issuer": base,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "registration_endpoint": format!("{base}/register"),
                    "token_endpoint_auth_methods_supported": ["none"],
                    "code_challenge_methods_supported": ["S256"],
                    "authorization_response_iss_parameter_supported": true,
                }))
            }),
        )
        .route(
            "/register",
            post(|State(m): State<Arc<Mock>>| async move {
                m.registrations.fetch_add(1, Ordering::SeqCst);
                json_response(StatusCode::CREATED, json!({"client_id": "client-1"}))
            }),
        )
        .route(
            "/authorize",
            get(|State(m): State<Arc<Mock>>, uri: Uri| async move {
                m.authorizations.fetch_add(1, Ordering::SeqCst);
                let q = pairs(uri.query().unwrap_or_default());
                let mut to = reqwest::Url::parse(&find(&q, "redirect_uri").unwrap()).unwrap();
                to.query_pairs_mut()
                    .append_pair("code", "code-1")
                    .append_pair("state", &find(&q, "state").unwrap_or_default())
                    .append_pair("iss", &m.base());
                Response::builder()
                    .status(StatusCode::FOUND)
                    .header("location", to.to_string())
                    .body(Body::empty())
                    .unwrap()
            }),
        )
        .route(
            "/token",
            post(|State(m): State<Arc<Mock>>, body: String| async move {
                let form = pairs(&body);
                if find(&form, "grant_type").as_deref() == Some("refresh_token") {
                    m.refreshes.fetch_add(1, Ordering::SeqCst);
                    m.refresh_resources.lock().unwrap().push(find(&form, "resource"));
                    // Slow enough for the concurrent callers to pile up.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    if m.reject_refresh {
                        return json_response(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"}));
                    }
                }
                json_response(StatusCode::OK, m.issue())
            }),
        )
        .route(
            "/mcp",
            post(|State(m): State<Arc<Mock>>, headers: axum::http::HeaderMap, body: String| async move {
                let token = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.strip_prefix("Bearer "))
                    .map(str::to_owned);
                m.presented.lock().unwrap().extend(token.clone());
                if !token.is_some_and(|t| m.valid.lock().unwrap().contains(&t)) {
                    return Response::builder()
                        .status(StatusCode::UNAUTHORIZED)
                        .header(
                            "www-authenticate",
                            format!("Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"", m.base()),
                        )
                        .body(Body::empty())
                        .unwrap();
                }
                let message: Value = serde_json::from_str(&body).unwrap();
                let id = message.get("id").cloned();
                let result = match message["method"].as_str() {
                    Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mock", "version": "1"}}),
                    Some("tools/list") => json!({"tools": []}),
                    _ => json!({}),
                };
                match id {
                    Some(id) => json_response(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result})),
                    None => Response::builder().status(StatusCode::ACCEPTED).body(Body::empty()).unwrap(),
                }
            }),
        )
        .with_state(Arc::clone(&mock));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    *mock.base.lock().unwrap() = base.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (mock, base)
}

/// A store already holding a registration and an expired token.
fn expired_store(base: &str) -> MemoryStore {
    let mut state = StoredAuth::default();
    state.set_registration(Registration::new(base, "client-1"));
    state.tokens = Some(Tokens {
        access_token: Secret::new("expired"),
        refresh_token: Some(Secret::new("refresh-old")),
        expires_at: Some(1),
        scopes: vec![],
        resource: format!("{base}/mcp"),
        issuer: base.to_owned(),
    });
    MemoryStore::with_state(state)
}

async fn connect(base: &str, oauth: OAuth) -> Client {
    Client::http(format!("{base}/mcp"))
        .pin_era(Era::Legacy)
        .oauth(oauth)
        .connect()
        .await
        .unwrap()
}

#[tokio::test]
async fn twenty_concurrent_calls_with_an_expired_token_refresh_once() {
    let (mock, base) = start(Mock {
        expires_in: 3600,
        ..Mock::default()
    })
    .await;
    let oauth = OAuth::authorization_code(HeadlessSignIn::new()).store(expired_store(&base));
    let client = Arc::new(connect(&base, oauth).await);
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let client = Arc::clone(&client);
            tokio::spawn(async move { client.list_tools().await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    assert_eq!(mock.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(mock.authorizations.load(Ordering::SeqCst), 0);
    let resources = mock.refresh_resources.lock().unwrap().clone();
    assert_eq!(resources, [Some(format!("{base}/mcp"))]);
}

#[tokio::test]
async fn a_rejected_refresh_signs_in_again_once() {
    let (mock, base) = start(Mock {
        expires_in: 3600,
        reject_refresh: true,
        ..Mock::default()
    })
    .await;
    let oauth = OAuth::authorization_code(HeadlessSignIn::new()).store(expired_store(&base));
    let client = connect(&base, oauth).await;
    client.list_tools().await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(mock.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(mock.authorizations.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_restart_with_the_file_store_refreshes_without_signing_in() {
    // Tokens that expire within the refresh margin: the next use refreshes.
    let (mock, base) = start(Mock {
        expires_in: 30,
        ..Mock::default()
    })
    .await;
    let dir = std::env::temp_dir().join(format!("mcp-oauth-{}", pkce::random_token().unwrap()));
    let path = dir.join("tokens.json");
    let first = connect(
        &base,
        OAuth::authorization_code(HeadlessSignIn::new()).store(FileStore::new(&path)),
    )
    .await;
    drop(first);
    assert_eq!(mock.authorizations.load(Ordering::SeqCst), 1);
    assert_eq!(mock.registrations.load(Ordering::SeqCst), 1);
    let second = connect(
        &base,
        OAuth::authorization_code(HeadlessSignIn::new()).store(FileStore::new(&path)),
    )
    .await;
    second.list_tools().await.unwrap();
    assert_eq!(
        mock.authorizations.load(Ordering::SeqCst),
        1,
        "signed in again after a restart"
    );
    assert_eq!(
        mock.registrations.load(Ordering::SeqCst),
        1,
        "registered again after a restart"
    );
    assert!(mock.refreshes.load(Ordering::SeqCst) >= 1);
    assert!(
        mock.refresh_resources
            .lock()
            .unwrap()
            .iter()
            .all(|r| r.as_deref() == Some(&format!("{base}/mcp")[..]))
    );
    let kept = std::fs::read_to_string(&path).unwrap();
    assert!(kept.contains("refresh-"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn tokens_stored_for_another_server_are_never_sent() {
    let (mock, base) = start(Mock {
        expires_in: 3600,
        ..Mock::default()
    })
    .await;
    let state = StoredAuth {
        tokens: Some(Tokens {
            access_token: Secret::new("for-another-server"),
            refresh_token: Some(Secret::new("refresh-elsewhere")),
            expires_at: None,
            scopes: vec![],
            resource: "http://127.0.0.1:1/mcp".into(),
            issuer: "http://127.0.0.1:1".into(),
        }),
        ..StoredAuth::default()
    };
    let oauth =
        OAuth::authorization_code(HeadlessSignIn::new()).store(MemoryStore::with_state(state));
    let client = connect(&base, oauth).await;
    client.list_tools().await.unwrap();
    let presented = mock.presented.lock().unwrap().clone();
    assert!(!presented.is_empty());
    assert!(
        !presented.iter().any(|t| t == "for-another-server"),
        "{presented:?}"
    );
    assert_eq!(mock.refreshes.load(Ordering::SeqCst), 0);
    assert_eq!(mock.authorizations.load(Ordering::SeqCst), 1);
}
