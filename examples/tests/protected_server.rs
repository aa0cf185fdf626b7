//! `conformance-server --protect` over HTTP on 127.0.0.1, its opaque tokens
//! checked at an introspection endpoint of the test's own: the metadata
//! document, the 401 challenge, a token for this server, and one for
//! another.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::Command;

use serde_json::{Value, json};
use support::peer::{Listening, free_port};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ISSUER: &str = "http://127.0.0.1:9/";

/// An RFC 7662 endpoint: `good` is active for `audience`, `elsewhere` for
/// another resource, anything else inactive. Returns its URL.
async fn introspection(audience: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let audience = audience.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                // Read the head and the (small) form body.
                loop {
                    let n = socket.read(&mut buffer).await.unwrap_or(0);
                    request.extend_from_slice(&buffer[..n]);
                    let text = String::from_utf8_lossy(&request);
                    if n == 0 || (text.contains("\r\n\r\n") && text.contains("token=")) {
                        break;
                    }
                }
                let text = String::from_utf8_lossy(&request);
                let token = text
                    .split("token=")
                    .nth(1)
                    .and_then(|rest| rest.split('&').next())
                    .unwrap_or_default();
                let answer = match token {
                    "good" => json!({"active": true, "client_id": "app",
                        "scope": "mcp:tools", "aud": audience}),
                    "elsewhere" => json!({"active": true, "client_id": "app",
                        "scope": "mcp:tools", "aud": "http://127.0.0.1:1/mcp"}),
                    _ => json!({"active": false}),
                }
                .to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                    answer.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    url
}

async fn list_tools(url: &str, token: Option<&str>) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.body(body.to_string()).send().await.unwrap()
}

#[tokio::test]
async fn a_protected_conformance_server_checks_its_tokens() {
    let port = free_port();
    let public = format!("http://127.0.0.1:{port}/mcp");
    let endpoint = introspection(public.clone()).await;
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-server"));
    command
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--protect", ISSUER, "--introspection-url", &endpoint])
        .args(["--required-scope", "mcp:tools"]);
    let server = Listening::spawn(command);
    let origin = format!("http://127.0.0.1:{port}");

    let metadata: Value =
        reqwest::get(format!("{origin}/.well-known/oauth-protected-resource/mcp"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(metadata["resource"], public.as_str());
    assert_eq!(metadata["authorization_servers"], json!([ISSUER]));

    let anonymous = list_tools(&server.url, None).await;
    assert_eq!(anonymous.status(), 401);
    assert_eq!(
        anonymous.headers()["www-authenticate"],
        format!(
            r#"Bearer scope="mcp:tools", resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp""#
        )
        .as_str()
    );
    assert_eq!(list_tools(&server.url, Some("good")).await.status(), 200);
    // Active, but issued for another resource: refused.
    let elsewhere = list_tools(&server.url, Some("elsewhere")).await;
    assert_eq!(elsewhere.status(), 401);
    assert!(
        elsewhere.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains(r#"error="invalid_token""#)
    );
    assert_eq!(list_tools(&server.url, Some("revoked")).await.status(), 401);
}
