//! Authorization with the official MCP TypeScript SDK v1
//! (`@modelcontextprotocol/sdk`, pinned in
//! `tests/interop/typescript-v1/package.json`) on both sides: its demo
//! authorization server (`setupAuthServer`: dynamic client registration,
//! authorization code with PKCE, token and RFC 7662 introspection endpoints,
//! strict about the RFC 8707 `resource`) and its 2025-era client with an
//! OAuth client provider, against `conformance-server --protect`.
//!
//! `tests/interop/typescript-v1/oauth.mjs` starts the authorization server,
//! connects without a token, follows our 401 challenge to our metadata and
//! from there to the authorization server, registers, authorizes (the demo
//! server approves at once; the script reads the code from the redirect),
//! exchanges the code, and with the token completes the two-round
//! `test_input_required_result_multi_round` tool, bridged to two
//! `elicitation/create` requests. See the script's header comment. The
//! server checks the opaque token at the demo server's introspection
//! endpoint, for its own URL as audience and the `mcp:tools` scope.
//!
//! `tests/interop/typescript-v1/setup.sh` runs first (once per test
//! process): it installs Node 22 and the pinned package under `.cache/` when
//! they are missing (network access on the first run only). Every wait is
//! bounded; both servers listen on 127.0.0.1 only.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::Command;

use serde_json::{Value, json};
use support::interop::{Harness, run_client};
use support::peer::{Listening, free_port};

/// `tests/interop/typescript-v1/`: Node 22 and the SDK, with a copy of
/// `oauth.mjs` next to its `node_modules`.
static TYPESCRIPT_V1: Harness = Harness::npm(
    "typescript-v1",
    "MCP_INTEROP_TYPESCRIPT_V1_DIR",
    &["oauth.mjs"],
);

/// The exchanges of `http` (the SDK's own requests) as `METHOD origin path
/// status`, in order.
fn trace(summary: &Value) -> Vec<String> {
    summary["http"]
        .as_array()
        .map(|exchanges| {
            exchanges
                .iter()
                .map(|e| {
                    format!(
                        "{} {} {} {}",
                        e["method"].as_str().unwrap_or("?"),
                        e["origin"].as_str().unwrap_or("?"),
                        e["path"].as_str().unwrap_or("?"),
                        e["status"]
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn typescript_v1_client_authorizes_at_the_sdks_demo_server_and_completes_a_two_round_tool() {
    let issuer = format!("http://127.0.0.1:{}/", free_port());
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-server"));
    command
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--protect", &issuer])
        .args(["--introspection-url", &format!("{issuer}introspect")])
        .args(["--required-scope", "mcp:tools"]);
    let server = Listening::spawn(command);
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(server.url, url);
    let metadata_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");

    let mut client = TYPESCRIPT_V1.command("oauth.mjs");
    client.args(["--url", &url, "--issuer", &issuer]);
    let (summary, context) = run_client("oauth.mjs", client, Some(&server));
    assert_eq!(summary["problems"], json!([]), "{context}");

    // The SDK started without a token and was challenged.
    let unauthenticated = &summary["unauthenticated"];
    assert_eq!(unauthenticated["firstStatus"], 401, "{context}");
    assert_eq!(
        unauthenticated["challenge"],
        format!(r#"Bearer scope="mcp:tools", resource_metadata="{metadata_url}""#),
        "{context}"
    );
    assert_eq!(
        unauthenticated["refusal"], "Error: Unauthorized",
        "{context}"
    );

    // It found the authorization server through our metadata, and asked for
    // a code for this server (RFC 8707), the challenged scope, with PKCE.
    assert_eq!(summary["resourceMetadata"]["resource"], url, "{context}");
    assert_eq!(
        summary["resourceMetadata"]["authorization_servers"],
        json!([issuer]),
        "{context}"
    );
    let asked = &summary["authorizationRequest"];
    assert_eq!(asked["resource"], url, "{context}");
    assert_eq!(asked["scope"], "mcp:tools", "{context}");
    assert_eq!(asked["codeChallengeMethod"], "S256", "{context}");
    let steps = trace(&summary);
    let at = |step: &str| {
        steps
            .iter()
            .position(|s| s == step)
            .unwrap_or_else(|| panic!("no `{step}` in the SDK's exchanges {steps:#?}:\n{context}"))
    };
    let order = [
        "POST server /mcp 401",
        "GET server /.well-known/oauth-protected-resource/mcp 200",
        "GET authorization-server /.well-known/oauth-authorization-server 200",
        "POST authorization-server /register 201",
        "GET authorization-server /authorize 302",
        "POST authorization-server /token 200",
        "POST server /mcp 200",
    ]
    .map(at);
    assert!(
        order.is_sorted(),
        "the flow ran out of order {steps:#?}:\n{context}"
    );

    // The token is opaque: the server checked it by introspection.
    let token = &summary["token"];
    assert_eq!(token["tokenType"], "bearer", "{context}");
    assert_eq!(token["scope"], "mcp:tools", "{context}");
    assert_eq!(token["opaque"], true, "{context}");

    // Every request the SDK made to the MCP endpoint after the token came
    // carried it.
    let exchanges = summary["http"].as_array().unwrap();
    let to_endpoint: Vec<&Value> = exchanges
        .iter()
        .filter(|e| e["origin"] == "server" && e["path"] == "/mcp")
        .collect();
    assert!(to_endpoint.len() >= 4, "{context}");
    assert!(
        to_endpoint[1..]
            .iter()
            .all(|e| e["authorization"] == "Bearer" && e["status"].as_u64() < Some(300)),
        "after the token, every request must carry it and be accepted: {to_endpoint:#?}\n{context}"
    );

    // The two-round tool, bridged to two elicitations of a 2025-era session.
    assert!(
        ["2025-11-25", "2025-06-18", "2025-03-26"]
            .contains(&summary["protocolVersion"].as_str().unwrap_or_default()),
        "{context}"
    );
    assert_eq!(summary["sessionOpened"], true, "{context}");
    let tool = &summary["tool"];
    assert_eq!(
        tool["texts"],
        json!(["Hello Ada, whose favorite color is teal!"]),
        "{context}"
    );
    assert_eq!(tool["isError"], false, "{context}");
    assert_eq!(
        tool["asked"],
        json!([
            {"message": "Step 1: What is your name?", "fields": ["name"]},
            {"message": "Step 2: What is your favorite color?", "fields": ["color"]},
        ]),
        "{context}"
    );

    // No token, and a token the authorization server never issued.
    assert_eq!(summary["own"]["noToken"]["status"], 401, "{context}");
    assert_eq!(summary["own"]["forged"]["status"], 401, "{context}");
    assert_eq!(
        summary["own"]["forged"]["challenge"],
        format!(
            r#"Bearer error="invalid_token", scope="mcp:tools", resource_metadata="{metadata_url}""#
        ),
        "{context}"
    );
    assert!(
        server.logged("refused a bearer token"),
        "the refusal of the forged token must be logged:\n{context}"
    );

    // The server never writes a token to its log.
    let secret = token["accessToken"].as_str().unwrap_or_default();
    assert!(secret.len() >= 16, "{context}");
    assert!(
        !server.logs().contains(secret),
        "the server logged the access token:\n{context}"
    );
}
