//! `examples/protected.rs` does what its doc comment promises, against an
//! authorization server of the test's own (metadata and a JWKS of keys the
//! test generates, on 127.0.0.1): its metadata document, a 401 without a
//! token, a 403 naming every scope `deploy` needs, the tool for a token
//! with them, and a 401 for a token issued for another resource or signed
//! by a key the authorization server never published.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::Command;

use serde_json::{Value, json};
use support::jwks::{JwksServer, Key, claims};
use support::peer::{Listening, free_port};
use support::process::example;
use support::{headers_for, request};

/// Posts `deploy` with `token`: the status, the challenge and the body.
async fn deploy(url: &str, token: Option<&str>) -> (u16, String, Value) {
    let message = request(json!(1), "tools/call", json!({"name": "deploy"}));
    let mut post = reqwest::Client::new().post(url);
    for (name, value) in headers_for(&message) {
        post = post.header(name, value);
    }
    if let Some(token) = token {
        post = post.bearer_auth(token);
    }
    let response = post.body(message.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    (
        status,
        challenge,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protected_example_serves_only_tokens_for_it_with_the_scopes_it_needs() {
    let key = Key::generate("k1");
    let authorization = JwksServer::start(vec![key.jwk.clone()]).await;
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
    let metadata_url = format!("http://{listen}/.well-known/oauth-protected-resource/mcp");

    let metadata: Value = reqwest::get(&metadata_url)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], url);
    assert_eq!(
        metadata["authorization_servers"],
        json!([authorization.issuer])
    );
    assert_eq!(
        metadata["scopes_supported"],
        json!(["mcp:tools", "deploy:write"])
    );

    let (status, challenge, _) = deploy(&url, None).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!(r#"Bearer scope="mcp:tools", resource_metadata="{metadata_url}""#)
    );

    let narrow = key.sign(&claims(&authorization.issuer, &url, "ada", "mcp:tools"));
    let (status, challenge, body) = deploy(&url, Some(&narrow)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        challenge,
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp:tools deploy:write", resource_metadata="{metadata_url}""#
        )
    );

    let enough = key.sign(&claims(
        &authorization.issuer,
        &url,
        "ada",
        "mcp:tools deploy:write",
    ));
    let (status, _, body) = deploy(&url, Some(&enough)).await;
    assert_eq!(status, 200, "{body}\n{}", server.logs());
    assert_eq!(body["result"]["content"][0]["text"], "Deployed, as ada.");

    let elsewhere = key.sign(&claims(
        &authorization.issuer,
        "http://127.0.0.1:1/mcp",
        "ada",
        "mcp:tools deploy:write",
    ));
    let stranger = Key::generate("k1").sign(&claims(
        &authorization.issuer,
        &url,
        "ada",
        "mcp:tools deploy:write",
    ));
    for (what, token) in [
        ("another resource", &elsewhere),
        ("a stranger's key", &stranger),
    ] {
        let (status, challenge, _) = deploy(&url, Some(token)).await;
        assert_eq!(status, 401, "{what}");
        assert!(
            challenge.starts_with(r#"Bearer error="invalid_token""#),
            "{what}: {challenge}"
        );
    }
    for token in [&narrow, &enough, &elsewhere, &stranger] {
        assert!(
            !server.logs().contains(token.as_str()),
            "a token was logged"
        );
    }
}
