//! The peer SDKs' servers that our client is tested against start and
//! answer: each one (`support::peer_servers`) is started over streamable
//! HTTP on 127.0.0.1 and sent a raw 2025-era `initialize` POST, which the
//! 2025-era servers answer with a `protocolVersion` they support. rmcp in the
//! 2026 era supports 2026-07-28 only: it refuses `initialize` with
//! "Unsupported protocol version" (-32022) naming 2026-07-28, and answers
//! `server/discover` with that version.
//!
//! The first run installs the peers (network access) through their
//! `setup.sh`; every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use serde_json::{Value, json};
use support::peer_servers::{PeerServer, RunningPeer};
use support::{IO_TIMEOUT, META_CAPS, META_CLIENT_INFO, META_VERSION};

/// The versions a 2025-era server may answer `initialize` with.
const LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// POSTs `message` to the server with `headers` and returns the JSON-RPC
/// message answering it (from a JSON body or an event stream) and the
/// status.
async fn post(server: &RunningPeer, message: &Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(IO_TIMEOUT)
        .build()
        .unwrap();
    let mut request = client
        .post(server.url())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(message.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let name = server.peer().name();
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("{name}: POST failed: {e}\n{}", server.logs()));
    let status = response.status().as_u16();
    let body = response
        .text()
        .await
        .unwrap_or_else(|e| panic!("{name}: reading the body failed: {e}\n{}", server.logs()));
    let answer = std::iter::once(body.as_str())
        .chain(body.lines().filter_map(|line| line.strip_prefix("data:")))
        .filter_map(|text| serde_json::from_str::<Value>(text.trim()).ok())
        .find(|value| value.get("id") == message.get("id"))
        .unwrap_or_else(|| {
            panic!(
                "{name}: no answer to {message} (HTTP {status}):\n{body}\n{}",
                server.logs()
            )
        });
    (status, answer)
}

/// A 2025-era `initialize` request.
fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcp-examples-interop-peer-servers", "version": "0.0.1"}
        }
    })
}

async fn answers_initialize(peer: PeerServer) {
    let server = peer.start_http();
    let (status, answer) = post(&server, &initialize(), &[]).await;
    let version = answer
        .pointer("/result/protocolVersion")
        .and_then(Value::as_str);
    assert!(
        status == 200 && version.is_some_and(|v| LEGACY_VERSIONS.contains(&v)),
        "{}: initialize answered HTTP {status} {answer}; want a 2025-era protocolVersion\n{}",
        peer.name(),
        server.logs()
    );
}

#[tokio::test]
async fn typescript_v1_server_answers_initialize() {
    answers_initialize(PeerServer::TypeScriptV1).await;
}

#[tokio::test]
async fn python_v1_server_answers_initialize() {
    answers_initialize(PeerServer::PythonV1).await;
}

#[tokio::test]
async fn rmcp_2025_server_answers_initialize() {
    answers_initialize(PeerServer::Rmcp2025).await;
}

#[tokio::test]
async fn rmcp_2026_server_refuses_initialize_and_answers_discover() {
    let server = PeerServer::Rmcp2026.start_http();
    let (_, answer) = post(&server, &initialize(), &[]).await;
    assert_eq!(
        answer.pointer("/error/code"),
        Some(&json!(-32022)),
        "initialize: {answer}\n{}",
        server.logs()
    );
    assert_eq!(
        answer.pointer("/error/data/supported"),
        Some(&json!(["2026-07-28"])),
        "initialize: {answer}"
    );
    let discover = json!({
        "jsonrpc": "2.0",
        "id": 2,
        "method": "server/discover",
        "params": {"_meta": {
            META_VERSION: "2026-07-28",
            META_CAPS: {},
            META_CLIENT_INFO: {"name": "mcp-examples-interop-peer-servers", "version": "0.0.1"},
        }}
    });
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "server/discover"),
    ];
    let (status, answer) = post(&server, &discover, &headers).await;
    assert_eq!(status, 200, "server/discover: {answer}\n{}", server.logs());
    assert_eq!(
        answer.pointer("/result/supportedVersions"),
        Some(&json!(["2026-07-28"])),
        "server/discover: {answer}"
    );
}
