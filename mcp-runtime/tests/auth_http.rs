//! A protected endpoint over real HTTP on 127.0.0.1 (`HttpTransport::protect`):
//! the metadata document at its well-known paths, the 401 and 403
//! challenges, 503 when tokens cannot be checked, the token's caller
//! reaching the handler, and a state minted for one caller refused to
//! another.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::net::TcpListener;

use mcp_runtime::auth::{ProtectedResource, TokenError};
use mcp_runtime::prelude::*;
use mcp_runtime::server::Caller;
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::http::HttpTransport;
use serde_json::{Value, json};
use support::auth_handlers::{confirm, deploy};
use support::http::meta;

const ISSUER: &str = "http://127.0.0.1:9/";

/// Says who called, with which client and scopes.
#[tool]
async fn whoami(ctx: Ctx) -> String {
    let caller = ctx.receive().caller.clone().unwrap_or_default();
    format!(
        "{} via {} with {}",
        caller.subject,
        caller.client_id.as_deref().unwrap_or("-"),
        caller.scopes.join(" ")
    )
}

/// Tokens of this test: `alice`, `bob`, `narrow` (no scopes), `down` (the
/// verifier cannot decide); anything else is invalid.
fn verify(token: &str) -> Result<Caller, TokenError> {
    match token {
        "alice" => Ok(Caller::new("alice")
            .with_client_id("app")
            .with_scopes(["mcp:tools", "extra"])),
        "bob" => Ok(Caller::new("bob").with_scopes(["mcp:tools"])),
        "deployer" => Ok(Caller::new("dora").with_scopes(["deploy:write", "mcp:tools"])),
        // `admin` implies both (see the resource's hierarchy).
        "admin" => Ok(Caller::new("root").with_scopes(["admin"])),
        "narrow" => Ok(Caller::new("carol")),
        "down" => Err(TokenError::Unavailable(
            "the introspection endpoint is down".into(),
        )),
        _ => Err(TokenError::Invalid("unknown token".into())),
    }
}

/// A protected server on a free port, and its URL.
async fn protected() -> (support::http::Running, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let resource = ProtectedResource::new(&format!("http://127.0.0.1:{port}/mcp"), ISSUER)
        .unwrap()
        .scopes_supported(["mcp:tools"])
        .required_scopes(["mcp:tools"])
        .scope_implies("admin", ["mcp:tools", "deploy"])
        .scope_implies("deploy", ["deploy:write"]);
    let server = Server::builder("protected", "1")
        .handler::<whoami>()
        .handler::<confirm>()
        .handler::<deploy>()
        .request_state_signer(RequestStateSigner::new([7u8; 32]).unwrap())
        .build()
        .unwrap();
    let transport = HttpTransport::new(server).protect(resource, verify);
    let bound = transport.bind(("127.0.0.1", port)).await.unwrap();
    let url = bound.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(bound.serve_until(async {
        let _ = stopped.await;
    }));
    (support::http::Running::new(url.clone(), stop), url)
}

/// Posts a tools/call of `tool` with `token`; the status, the challenge
/// and the body.
async fn call(url: &str, token: Option<&str>, params: Value) -> (u16, Option<String>, Value) {
    let mut params = params;
    params["_meta"] = meta(json!({"elicitation": {"form": {}}}), json!({}));
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", params["name"].as_str().unwrap());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = request.body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    (status, challenge, serde_json::from_str(&text).unwrap())
}

fn origin(url: &str) -> &str {
    url.strip_suffix("/mcp").unwrap()
}

#[tokio::test]
async fn the_metadata_is_served_without_a_token() {
    let (_running, url) = protected().await;
    let expected = json!({
        "resource": url,
        "authorization_servers": [ISSUER],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp:tools"]
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = reqwest::get(format!("{}{path}", origin(&url)))
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let document: Value = response.json().await.unwrap();
        assert_eq!(document, expected, "{path}");
    }
}

#[tokio::test]
async fn requests_without_a_good_token_are_challenged() {
    let (_running, url) = protected().await;
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", origin(&url));
    let params = json!({"name": "whoami", "arguments": {}});

    let (status, challenge, _) = call(&url, None, params.clone()).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge.unwrap(),
        format!(r#"Bearer scope="mcp:tools", resource_metadata="{metadata}""#)
    );

    let (status, challenge, _) = call(&url, Some("forged"), params.clone()).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge.unwrap(),
        format!(
            r#"Bearer error="invalid_token", scope="mcp:tools", resource_metadata="{metadata}""#
        )
    );

    let (status, challenge, _) = call(&url, Some("narrow"), params.clone()).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge.unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="{metadata}""#
        )
    );

    let (status, challenge, body) = call(&url, Some("down"), params).await;
    assert_eq!(status, 503);
    assert!(challenge.is_none(), "the client need not sign in again");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("retry later")
    );
}

#[tokio::test]
async fn the_token_names_the_caller_and_binds_its_states() {
    let (_running, url) = protected().await;
    let (status, _, body) = call(
        &url,
        Some("alice"),
        json!({"name": "whoami", "arguments": {}}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["result"]["content"][0]["text"],
        "alice via app with mcp:tools extra"
    );

    // A state minted for alice completes for alice, and never for bob.
    let confirm = json!({"name": "confirm", "arguments": {}});
    let (_, _, asked) = call(&url, Some("alice"), confirm.clone()).await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let mut retry = confirm.clone();
    retry["inputResponses"] = json!({"ok": {"action": "accept", "content": {"ok": true}}});
    retry["requestState"] = json!(state);
    let (_, _, stolen) = call(&url, Some("bob"), retry.clone()).await;
    assert_eq!(stolen["error"]["code"], -32602);
    assert_eq!(
        stolen["error"]["message"],
        r#"Invalid or expired "requestState""#
    );
    let (_, _, done) = call(&url, Some("alice"), retry).await;
    assert_eq!(done["result"]["content"][0]["text"], "ok = true");
}

#[tokio::test]
async fn a_handler_needing_more_scopes_challenges_with_every_one_of_them() {
    let (_running, url) = protected().await;
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", origin(&url));
    let deploy = json!({"name": "deploy", "arguments": {}});
    let (status, challenge, body) = call(&url, Some("bob"), deploy.clone()).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge.unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp:tools deploy:write", resource_metadata="{metadata}""#
        )
    );
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(
        body["error"]["data"]["requiredScopes"],
        json!(["mcp:tools", "deploy:write"])
    );
    let (status, _, body) = call(&url, Some("deployer"), deploy.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["content"][0]["text"], "deployed by dora");
    // A broader scope grants the narrower ones its hierarchy implies.
    let (status, _, body) = call(&url, Some("admin"), deploy).await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["result"]["content"][0]["text"], "deployed by root");
}

#[tokio::test]
async fn without_protection_a_handler_needing_scopes_is_closed() {
    let server = Server::builder("open", "1")
        .handler::<deploy>()
        .build()
        .unwrap();
    let running = support::http::serve(server).await;
    let (status, challenge, body) = call(&running.url, None, json!({"name": "deploy"})).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge.unwrap(),
        r#"Bearer error="insufficient_scope", scope="deploy:write""#
    );
    assert_eq!(body["error"]["code"], -32600);
}

#[tokio::test]
async fn a_2025_era_session_belongs_to_the_subject_that_opened_it() {
    let (_running, url) = protected().await;
    let post = |token: &'static str, session: Option<String>, body: Value| {
        let mut request = reqwest::Client::new()
            .post(&url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(body.to_string()).send()
    };
    let opened = post(
        "alice",
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"}}}),
    )
    .await
    .unwrap();
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let own = post("alice", Some(session.clone()), list.clone())
        .await
        .unwrap();
    assert_eq!(own.status(), 200);
    // Bob's valid token does not make alice's session his.
    let foreign = post("bob", Some(session), list).await.unwrap();
    assert_eq!(foreign.status(), 404);
}
