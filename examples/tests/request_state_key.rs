//! `conformance-server --state-key-hex` and `--state-ttl`: a configured key
//! lets a `requestState` outlive the process that minted it, a different key
//! refuses it, and a bad value stops the server before it starts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::*;

const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const OTHER_KEY: &str = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const TOOL: &str = "test_input_required_result_request_state";

fn call(id: i64, extra: Value) -> Value {
    let mut params = json!({"name": TOOL, "arguments": {}});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let meta = json!({META_VERSION: PROTOCOL_VERSION, META_CAPS: {"elicitation": {}}});
    request_with_meta(json!(id), "tools/call", params, meta)
}

/// The first round's `requestState`, minted by `server`.
async fn first_round_state(server: &HttpServer) -> String {
    let response = server.post(&call(1, json!({}))).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let result = response.json()["result"].clone();
    assert_schema(&result, "InputRequiredResult");
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    result["requestState"].as_str().unwrap().to_owned()
}

fn second_round(state: &str) -> Value {
    call(
        2,
        json!({"requestState": state,
               "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}}),
    )
}

#[tokio::test]
async fn a_state_survives_a_restart_with_the_same_key_only() {
    let state = {
        let minting = HttpServer::spawn_with(&["--state-key-hex", KEY, "--state-ttl", "60"]);
        first_round_state(&minting).await
    };

    let same_key = HttpServer::spawn_with(&["--state-key-hex", KEY]);
    let done = same_key
        .call_ok(&second_round(&state), "CallToolResultResponse")
        .await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert!(
        done["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("state-ok"),
        "{done}"
    );

    let other_key = HttpServer::spawn_with(&["--state-key-hex", OTHER_KEY]);
    let refused = other_key.post(&second_round(&state)).await;
    assert_eq!(refused.json()["error"]["code"], -32602, "{}", refused.body);

    // A random key (no flag) refuses it too.
    let random_key = HttpServer::spawn();
    let refused = random_key.post(&second_round(&state)).await;
    assert_eq!(refused.json()["error"]["code"], -32602, "{}", refused.body);
}

#[test]
fn bad_state_options_exit_2_naming_the_option() {
    for (args, needle) in [
        (vec!["--state-key-hex", "abc"], "--state-key-hex"),
        (vec!["--state-key-hex", &KEY[..62]], "at least 32 bytes"),
        (vec!["--state-key-hex", "zz"], "not a hex string"),
        (vec!["--state-key-hex"], "--state-key-hex"),
        (vec!["--state-ttl", "soon"], "--state-ttl"),
        (vec!["--state-ttl", "0"], "--state-ttl"),
    ] {
        let output = Command::new(server_bin())
            .args(["--listen", "127.0.0.1:0"])
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("listening on"), "{args:?}: {stderr}");
    }
}
