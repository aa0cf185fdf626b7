//! Black-box tests of `conformance-server` on request ids and the bridge's
//! round time: a request reusing the id of one still in flight is refused
//! without disturbing the first (stdio, and an HTTP 2025-era session);
//! integer ids up to `u64::MAX` come back exactly as sent, larger ones are
//! refused naming the range; an unanswered bridged question ends within
//! `--round-timeout-ms`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

/// A `tools/call` of `slow_compute` (2026-07-28) that works `seconds`.
fn slow(id: Value, seconds: u64) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": seconds}}),
    )
}

/// `notifications/cancelled` for request `id`.
fn cancel(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "_meta": valid_meta()}})
}

/// Asserts that `resp` refuses a reused id `id` (shown as `shown`).
fn assert_id_in_use(resp: &Value, id: &Value, shown: &str) {
    let error = assert_error_response(resp, -32600, Some(id));
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "the id {shown} is in use by a request still in flight"
        )),
        "{resp}"
    );
}

/// The text of a `tools/call` result.
fn result_text(resp: &Value) -> &str {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a text result: {resp}"))
}

#[test]
fn a_reused_id_in_flight_is_refused_over_stdio_and_the_first_answers() {
    let mut server = StdioServer::spawn();
    server.send(&slow(json!(1), 1));
    // The refusal comes at once, before the first's answer.
    let refused = server.roundtrip(&slow(json!(1), 1));
    assert_id_in_use(&refused, &json!(1), "1");
    let first = server.recv();
    assert_eq!(first["id"], json!(1), "{first}");
    assert_eq!(result_text(&first), "computed work in 1 s");
    // Nothing else was running under id 1.
    let list = server.roundtrip(&request(json!(2), "tools/list", Value::Null));
    assert!(list["result"]["tools"].is_array(), "{list}");

    // A string id, refused the same way.
    server.send(&slow(json!("job"), 1));
    let refused = server.roundtrip(&slow(json!("job"), 1));
    assert_id_in_use(&refused, &json!("job"), "\"job\"");
    let first = server.recv();
    assert_eq!(first["id"], json!("job"), "{first}");
    assert!(first.get("result").is_some(), "{first}");
}

#[test]
fn the_first_request_of_a_reused_id_can_still_be_cancelled_over_stdio() {
    let mut server = StdioServer::spawn();
    server.send(&slow(json!(7), 2));
    let refused = server.roundtrip(&slow(json!(7), 2));
    assert_id_in_use(&refused, &json!(7), "7");
    server.send(&cancel(json!(7)));
    // Past the time the first would have taken, nothing came for id 7:
    // the next line is the answer to a later request.
    std::thread::sleep(Duration::from_millis(2500));
    let list = server.roundtrip(&request(json!(8), "tools/list", Value::Null));
    assert!(list["result"]["tools"].is_array(), "{list}");
}

#[test]
fn integer_ids_up_to_u64_max_come_back_exactly_and_larger_ones_are_refused_with_the_range() {
    let mut server = StdioServer::spawn();
    for id in [
        "9223372036854775808",
        "18446744073709551615",
        "-9223372036854775808",
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{}}}}}"#,
            valid_meta()
        );
        server.write_raw(&format!("{line}\n"));
        let resp = server.recv();
        let sent: Value = serde_json::from_str(id).unwrap();
        assert_eq!(resp["id"], sent, "{resp}");
        assert!(resp["result"]["tools"].is_array(), "{resp}");
        // Written back digit for digit.
        let raw = serde_json::to_string(&resp["id"]).unwrap();
        assert_eq!(raw, id);
    }
    for id in [
        "18446744073709551616",
        "1e30",
        "100000000000000000000000000000",
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        server.write_raw(&format!("{line}\n"));
        let resp = server.recv();
        let error = assert_error_response(&resp, -32600, None);
        assert!(
            error["message"]
                .as_str()
                .unwrap_or_default()
                .contains("an integer from -9223372036854775808 to 18446744073709551615"),
            "{id}: {resp}"
        );
    }
}

#[test]
fn an_unanswered_bridged_question_ends_within_the_round_timeout() {
    let mut server = StdioServer::spawn_with(&["--round-timeout-ms", "500"]);
    let init = server.roundtrip(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "round-timeout-test", "version": "1"}}}));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let started = Instant::now();
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}}}));
    let question = server.recv();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    // Not answered. The question is withdrawn, and the call ends saying why.
    let mut withdrawn = false;
    let answer = loop {
        let message = server.recv();
        if message["method"] == "notifications/cancelled" {
            assert_eq!(message["params"]["requestId"], question["id"], "{message}");
            withdrawn = true;
            continue;
        }
        break message;
    };
    let took = started.elapsed();
    assert_eq!(answer["id"], json!(1), "{answer}");
    assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(
        result_text(&answer).contains("the client did not answer elicitation/create in time"),
        "{answer}"
    );
    assert!(withdrawn, "the question was withdrawn");
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_secs(5),
        "ended after {took:?}"
    );
}

#[test]
fn the_round_timeout_flag_needs_a_positive_number() {
    let output = std::process::Command::new(server_bin())
        .args(["--stdio", "--round-timeout-ms", "0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--round-timeout-ms: \"0\" is not a positive number"),
        "{stderr}"
    );
}

/// The message of a 2025-era HTTP answer: its JSON body, or the response
/// among the events of its stream.
fn message_of(content_type: &str, body: &str) -> Value {
    if !content_type.starts_with("text/event-stream") {
        return serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    }
    response_in_events(body).unwrap_or_else(|| panic!("no response in the event stream: {body:?}"))
}

/// POSTs `body` in `session` (if any): the session id the answer names,
/// and its message (`Null` for none).
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> (Option<String>, Value) {
    let mut request = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    let message = if text.is_empty() {
        Value::Null
    } else {
        message_of(&content_type, &text)
    };
    (session, message)
}

#[tokio::test]
async fn a_reused_id_in_flight_is_refused_in_an_http_session_and_the_first_answers() {
    let server = HttpServer::spawn();
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(IO_TIMEOUT)
        .build()
        .unwrap();
    let url = server.url.clone();
    let (session, init) = post(
        &http,
        &url,
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "ids-test", "version": "1"}}}),
    )
    .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    let session = session.expect("initialize opens a session");
    let _ = post(
        &http,
        &url,
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "slow_compute", "arguments": {"seconds": 1}}});
    let first = {
        let (http, url, session, call) = (http.clone(), url.clone(), session.clone(), call.clone());
        tokio::spawn(async move { post(&http, &url, Some(&session), &call).await.1 })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, refused) = post(&http, &url, Some(&session), &call).await;
    assert_id_in_use(&refused, &json!(5), "5");
    let first = first.await.unwrap();
    assert_eq!(first["id"], json!(5), "{first}");
    assert_eq!(result_text(&first), "computed work in 1 s");
}
