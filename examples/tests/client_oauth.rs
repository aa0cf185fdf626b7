//! Our client signs in, with real parts on 127.0.0.1:
//!
//! - to the official MCP TypeScript SDK v1's demo authorization server
//!   (`setupAuthServer`, run by `tests/interop/typescript-v1/auth-server.mjs`:
//!   dynamic client registration, an authorization endpoint that approves at
//!   once, PKCE, strict about the RFC 8707 `resource`, opaque tokens checked
//!   by introspection), with the authorization code grant and
//!   [`HeadlessSignIn`] following the authorization URL, and calls
//!   `conformance-server --protect ISSUER` through it, in both eras;
//! - to `examples/protected.rs` (the `JwtVerifier`), against the
//!   authorization server of the test's own (`tests/auth/jwks_server.rs`,
//!   whose token endpoint answers the client credentials grant), stepping up
//!   when `deploy` needs `deploy:write`.
//!
//! `tests/interop/typescript-v1/setup.sh` runs first (once per test
//! process; see `interop_oauth_typescript.rs`). Every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::auth::{AuthError, HeadlessSignIn, MemoryStore, OAuth, TokenStore};
use mcp_runtime::client::{Client, ClientError, Era};
use mcp_runtime::schema::{CallToolResult, ContentBlock};
use support::interop::Harness;
use support::jwks::{JwksServer, Key};
use support::peer::{Listening, free_port};
use support::process::example;

/// `tests/interop/typescript-v1/`: Node 22 and the SDK, with a copy of
/// `auth-server.mjs` next to its `node_modules`.
static TYPESCRIPT_V1: Harness = Harness::npm(
    "typescript-v1",
    "MCP_INTEROP_TYPESCRIPT_V1_DIR",
    &["auth-server.mjs"],
);

/// Bound for one connect or call, sign-in included.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The text items of a tool result.
fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect()
}

/// A [`TokenStore`] shared between clients (the test keeps a handle to
/// look inside).
#[derive(Clone, Default)]
struct Shared(Arc<MemoryStore>);

impl TokenStore for Shared {
    fn load(
        &self,
    ) -> futures_util::future::BoxFuture<'_, Result<mcp_runtime::client::auth::StoredAuth, AuthError>>
    {
        self.0.load()
    }
    fn save<'a>(
        &'a self,
        state: &'a mcp_runtime::client::auth::StoredAuth,
    ) -> futures_util::future::BoxFuture<'a, Result<(), AuthError>> {
        self.0.save(state)
    }
}

async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(CALL_TIMEOUT, future)
        .await
        .unwrap_or_else(|_| panic!("{what} took longer than {CALL_TIMEOUT:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_signs_in_at_the_typescript_sdks_demo_server_and_calls_the_protected_server() {
    let issuer = format!("http://127.0.0.1:{}/", free_port());
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (authorization, server) = tokio::task::block_in_place(|| {
        let mut script = TYPESCRIPT_V1.command("auth-server.mjs");
        script.args(["--issuer", &issuer, "--resource", &url]);
        let authorization = Listening::spawn(script);
        let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-server"));
        command
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(["--protect", &issuer])
            .args(["--introspection-url", &format!("{issuer}introspect")])
            .args(["--required-scope", "mcp:tools"]);
        (authorization, Listening::spawn(command))
    });
    assert_eq!(server.url, url);
    let context = || {
        format!(
            "authorization server stderr:\n{}\nserver stderr:\n{}",
            authorization.logs(),
            server.logs()
        )
    };

    // Without signing in, the server refuses.
    let refused = bounded("connecting without OAuth", Client::http(&url).connect()).await;
    assert!(
        refused.is_err(),
        "the protected server let a client without a token in:\n{}",
        context()
    );

    // The authorization code grant: registration, the authorization URL
    // followed without a user, the code exchanged with PKCE for this
    // server (the demo server refuses another resource).
    let store = Shared::default();
    let oauth = OAuth::authorization_code(HeadlessSignIn::new()).store(store.clone());
    let client = bounded("connecting", Client::http(&url).oauth(oauth).connect())
        .await
        .unwrap_or_else(|e| panic!("sign-in failed: {e}\n{}", context()));
    assert_eq!(client.era(), Era::Modern);
    let result = bounded(
        "test_simple_text",
        client.call_tool("test_simple_text", None),
    )
    .await
    .unwrap_or_else(|e| panic!("the call failed: {e}\n{}", context()));
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(!texts(&result).is_empty(), "{result:?}");
    client.close().await;

    let stored = store.load().await.unwrap();
    let tokens = stored.tokens.clone().expect("no tokens were stored");
    assert_eq!(tokens.resource, url);
    assert_eq!(tokens.issuer, issuer);
    assert_eq!(tokens.scopes, ["mcp:tools"]);
    let registration = stored
        .registration(&tokens.issuer)
        .expect("no registration was stored");
    assert_eq!(
        registration.redirect_uri.as_deref(),
        Some("http://localhost:3000/callback")
    );
    let token = tokens.access_token.expose().to_owned();
    assert!(token.len() >= 16);

    // The same sign-in serves a 2025-era session: the stored token, no
    // second authorization.
    let oauth = OAuth::authorization_code(HeadlessSignIn::new()).store(store.clone());
    let legacy = bounded(
        "connecting in the 2025 era",
        Client::http(&url)
            .pin_era(Era::Legacy)
            .oauth(oauth)
            .connect(),
    )
    .await
    .unwrap_or_else(|e| panic!("the 2025-era connect failed: {e}\n{}", context()));
    assert_eq!(legacy.era(), Era::Legacy);
    let result = bounded(
        "test_simple_text (2025 era)",
        legacy.call_tool("test_simple_text", None),
    )
    .await
    .unwrap_or_else(|e| panic!("the 2025-era call failed: {e}\n{}", context()));
    assert_ne!(result.is_error, Some(true), "{result:?}");
    legacy.close().await;
    assert_eq!(
        store
            .load()
            .await
            .unwrap()
            .tokens
            .map(|t| t.access_token.expose().to_owned()),
        Some(token.clone()),
        "the 2025-era client signed in again instead of using the stored token"
    );

    // The server never logs the token.
    assert!(!server.logs().contains(&token), "{}", context());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_signs_in_with_client_credentials_to_the_jwt_protected_example_and_steps_up() {
    let key = Key::generate("k1");
    let authorization = JwksServer::start(vec![key.jwk.clone()]).await;
    authorization.issue_tokens(key, "machine", "machine-secret");
    let listen = format!("127.0.0.1:{}", free_port());
    let url = format!("http://{listen}/mcp");
    let server = tokio::task::block_in_place(|| {
        let mut command = Command::new(example("protected"));
        command
            .env("MCP_ISSUER", &authorization.issuer)
            .env("MCP_LISTEN", &listen);
        Listening::spawn(command)
    });
    assert_eq!(server.url, url);

    // A wrong secret: the token endpoint's refusal, and no secret in it.
    let wrong = OAuth::client_credentials("machine", "not-the-secret");
    let refused = bounded(
        "connecting with a wrong secret",
        Client::http(&url).oauth(wrong).connect(),
    )
    .await;
    match refused {
        Err(ClientError::Authorization(AuthError::TokenRejected { error, .. })) => {
            assert_eq!(error, "invalid_client");
        }
        Err(other) => panic!("expected invalid_client, got {other}"),
        Ok(_) => panic!("a wrong client secret got in"),
    }
    let before = authorization.token_requests().len();

    // The right one: signed in for the challenged scope, then stepped up
    // to the union when `deploy` needs `deploy:write`.
    let oauth = OAuth::client_credentials("machine", "machine-secret");
    let client = bounded("connecting", Client::http(&url).oauth(oauth).connect())
        .await
        .unwrap_or_else(|e| panic!("sign-in failed: {e}\n{}", server.logs()));
    let result = bounded("deploy", client.call_tool("deploy", None))
        .await
        .unwrap_or_else(|e| panic!("deploy failed: {e}\n{}", server.logs()));
    assert_eq!(texts(&result), ["Deployed, as machine."], "{result:?}");
    client.close().await;

    let asked: Vec<(Option<String>, Option<String>, Option<String>)> = authorization
        .token_requests()[before..]
        .iter()
        .map(|form| {
            let get = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            (get("grant_type"), get("resource"), get("scope"))
        })
        .collect();
    let grant = Some("client_credentials".to_owned());
    assert_eq!(
        asked,
        [
            (
                grant.clone(),
                Some(url.clone()),
                Some("mcp:tools".to_owned())
            ),
            (
                grant,
                Some(url.clone()),
                Some("mcp:tools deploy:write".to_owned())
            ),
        ],
        "one sign-in for the challenge's scope, one step-up to the union"
    );
}
