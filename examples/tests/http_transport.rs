//! Black-box tests of `conformance-server --listen 127.0.0.1:0` over real HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use reqwest::Method;
use serde_json::{Value, json};
use support::*;

fn h(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

/// Headers for a `method` request whose body cannot supply them.
fn headers_for_method(method: &str) -> Vec<(String, String)> {
    headers_for(&json!({"method": method, "params": {}}))
}

// ---------------------------------------------------------------------------------------------
// Happy paths
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn discover_returns_complete_cacheable_result_with_server_info() {
    let server = HttpServer::spawn();
    let msg = request(json!(1), "server/discover", Value::Null);
    let resp = server.post(&msg).await;
    assert!(
        resp.headers.get("mcp-session-id").is_none(),
        "server must not mint session ids: {:?}",
        resp.headers
    );
    let result = resp.expect_result(&json!(1), "DiscoverResultResponse");
    check_discover_result(&result);
}

#[tokio::test]
async fn discover_without_client_info_is_accepted() {
    let server = HttpServer::spawn();
    let meta = json!({META_VERSION: PROTOCOL_VERSION, META_CAPS: {}});
    let msg = request_with_meta(json!(105), "server/discover", Value::Null, meta);
    let result = server.call_ok(&msg, "DiscoverResultResponse").await;
    check_discover_result(&result);
}

#[tokio::test]
async fn string_request_ids_are_echoed_verbatim() {
    let server = HttpServer::spawn();
    let msg = request(json!("discover-1"), "server/discover", Value::Null);
    server.call_ok(&msg, "DiscoverResultResponse").await;
}

#[tokio::test]
async fn tools_list_lists_the_fixtures() {
    let server = HttpServer::spawn();
    let msg = request(json!(2), "tools/list", Value::Null);
    let result = server.call_ok(&msg, "ListToolsResultResponse").await;
    check_tools_list_result(&result);
}

#[tokio::test]
async fn tools_call_simple_text_without_arguments_key() {
    let server = HttpServer::spawn();
    let msg = request(json!(3), "tools/call", json!({"name": "test_simple_text"}));
    let result = server.call_ok(&msg, "CallToolResultResponse").await;
    check_simple_text_result(&result);
}

#[tokio::test]
async fn tools_call_image_content() {
    let server = HttpServer::spawn();
    let msg = request(
        json!(4),
        "tools/call",
        json!({"name": "test_image_content", "arguments": {}}),
    );
    let result = server.call_ok(&msg, "CallToolResultResponse").await;
    check_image_result(&result);
}

#[tokio::test]
async fn tools_call_error_handling_is_a_result_not_a_jsonrpc_error() {
    let server = HttpServer::spawn();
    let msg = request(
        json!(5),
        "tools/call",
        json!({"name": "test_error_handling", "arguments": {}}),
    );
    let result = server.call_ok(&msg, "CallToolResultResponse").await;
    check_error_handling_result(&result);
}

#[tokio::test]
async fn prompts_get_simple_prompt() {
    let server = HttpServer::spawn();
    let msg = request(
        json!(6),
        "prompts/get",
        json!({"name": "test_simple_prompt"}),
    );
    let result = server.call_ok(&msg, "GetPromptResultResponse").await;
    check_simple_prompt_result(&result);
}

#[tokio::test]
async fn resources_read_static_text() {
    let server = HttpServer::spawn();
    let msg = request(
        json!(7),
        "resources/read",
        json!({"uri": "test://static-text"}),
    );
    let result = server.call_ok(&msg, "ReadResourceResultResponse").await;
    check_static_text_result(&result);
}

#[tokio::test]
async fn concurrent_requests_are_all_answered() {
    let server = HttpServer::spawn();
    let msgs: Vec<Value> = (1000..1008)
        .map(|i| request(json!(i), "tools/list", Value::Null))
        .collect();
    let futures = msgs.iter().map(|m| server.post(m));
    let resps = futures_join_all(futures).await;
    for (m, r) in msgs.iter().zip(resps) {
        let result = r.expect_result(&m["id"], "ListToolsResultResponse");
        check_tools_list_result(&result);
    }
}

/// Minimal join_all without an extra dependency: spawn-free, polls sequentially
/// after starting all requests concurrently via `tokio::join!`-like select.
async fn futures_join_all<F: std::future::Future<Output = HttpResponse>>(
    futs: impl Iterator<Item = F>,
) -> Vec<HttpResponse> {
    let mut pinned: Vec<std::pin::Pin<Box<F>>> = futs.map(Box::pin).collect();
    let mut out: Vec<Option<HttpResponse>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in pinned.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|o| o.unwrap()).collect()
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC framing errors
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn malformed_json_is_parse_error_400_without_id() {
    let server = HttpServer::spawn();
    for body in [
        "{",
        "not json at all",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"#,
        r#"{"jsonrpc":"2.0","id":1,}"#,
    ] {
        let resp = server
            .post_raw(&headers_for_method("tools/list"), body)
            .await;
        eprintln!("body {body:?}");
        resp.expect_error(400, -32700, None);
    }
}

#[tokio::test]
async fn json_that_is_not_an_object_is_invalid_request_400_without_id() {
    let server = HttpServer::spawn();
    for body in [
        "[]",
        "42",
        "\"x\"",
        "null",
        "true",
        r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
    ] {
        let resp = server
            .post_raw(&headers_for_method("tools/list"), body)
            .await;
        eprintln!("body {body}");
        resp.expect_error(400, -32600, None);
    }
}

#[tokio::test]
async fn object_without_jsonrpc_or_method_is_invalid_request_echoing_id() {
    let server = HttpServer::spawn();
    let params = json!({"_meta": valid_meta()});
    let cases = [
        (
            json!(7),
            json!({"id": 7, "method": "tools/list", "params": params}),
        ),
        (
            json!(8),
            json!({"jsonrpc": "1.0", "id": 8, "method": "tools/list", "params": params}),
        ),
        (
            json!("nine"),
            json!({"jsonrpc": "2.0", "id": "nine", "params": params}),
        ),
        (
            json!(10),
            json!({"jsonrpc": "2.0", "id": 10, "method": 5, "params": params}),
        ),
    ];
    for (id, body) in cases {
        let resp = server
            .post_with(&body, headers_for_method("tools/list"))
            .await;
        eprintln!("body {body}");
        // The rules fix the code (-32600) and the id echo, not the status: require a 4xx.
        assert!(
            (400..500).contains(&resp.status),
            "invalid JSON-RPC envelope must be a 4xx; got {} {:?}",
            resp.status,
            resp.body
        );
        let v = resp.json();
        assert_error_response(&v, -32600, Some(&id));
    }
}

// ---------------------------------------------------------------------------------------------
// _meta and version checks
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn missing_meta_or_required_meta_keys_is_invalid_params_400() {
    let server = HttpServer::spawn();
    let headers = headers_for_method("server/discover");
    let cases = [
        json!({"jsonrpc": "2.0", "id": 101, "method": "server/discover", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 100, "method": "server/discover"}),
        json!({"jsonrpc": "2.0", "id": 102, "method": "server/discover",
               "params": {"_meta": {META_CAPS: {}, META_CLIENT_INFO: {"name": "c", "version": "1"}}}}),
        json!({"jsonrpc": "2.0", "id": 104, "method": "server/discover",
               "params": {"_meta": {META_VERSION: PROTOCOL_VERSION}}}),
    ];
    for msg in cases {
        let resp = server.post_with(&msg, headers.clone()).await;
        eprintln!("request {msg}");
        resp.expect_error(400, -32602, Some(&msg["id"]));
    }
    // Same on a tools/call.
    let msg = json!({"jsonrpc": "2.0", "id": "tc", "method": "tools/call",
                     "params": {"name": "test_simple_text", "_meta": {META_VERSION: PROTOCOL_VERSION}}});
    server
        .post(&msg)
        .await
        .expect_error(400, -32602, Some(&json!("tc")));
}

#[tokio::test]
async fn meta_checks_come_before_header_checks() {
    let server = HttpServer::spawn();
    // No _meta at all AND no MCP-Protocol-Version header: the _meta error wins.
    let msg = json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": {}});
    let mut headers = headers_for_method("server/discover");
    remove_header(&mut headers, "MCP-Protocol-Version");
    server
        .post_with(&msg, headers)
        .await
        .expect_error(400, -32602, Some(&json!(11)));
}

#[tokio::test]
async fn protocol_version_header_missing_is_header_mismatch() {
    let server = HttpServer::spawn();
    let msg = request(json!(12), "server/discover", Value::Null);
    let mut headers = headers_for(&msg);
    remove_header(&mut headers, "MCP-Protocol-Version");
    server
        .post_with(&msg, headers)
        .await
        .expect_error(400, -32020, Some(&json!(12)));
}

#[tokio::test]
async fn protocol_version_header_different_from_meta_is_header_mismatch() {
    let server = HttpServer::spawn();
    let msg = request(json!(13), "server/discover", Value::Null);
    let mut headers = headers_for(&msg);
    set_header(&mut headers, "MCP-Protocol-Version", "2025-11-25");
    server
        .post_with(&msg, headers)
        .await
        .expect_error(400, -32020, Some(&json!(13)));

    // Conformance case 302: _meta v999.0.0, header 2026-07-28 → -32020 (not -32022).
    let meta = json!({META_VERSION: "v999.0.0", META_CAPS: {}});
    let msg = request_with_meta(json!(302), "server/discover", Value::Null, meta);
    let mut headers = headers_for(&msg);
    set_header(&mut headers, "MCP-Protocol-Version", PROTOCOL_VERSION);
    server
        .post_with(&msg, headers)
        .await
        .expect_error(400, -32020, Some(&json!(302)));
}

#[tokio::test]
async fn unsupported_version_lists_supported_versions() {
    let server = HttpServer::spawn();
    let discovered = server
        .call_ok(
            &request(json!(1), "server/discover", Value::Null),
            "DiscoverResultResponse",
        )
        .await;
    for (id, version) in [(json!(301), "1900-01-01"), (json!(303), "v999.0.0")] {
        let meta = json!({META_VERSION: version, META_CAPS: {}});
        let msg = request_with_meta(id.clone(), "server/discover", Value::Null, meta);
        // headers_for takes the header version from _meta: both equal `version`.
        let error = server.post(&msg).await.expect_error(400, -32022, Some(&id));
        assert_eq!(
            error["data"]["requested"],
            json!(version),
            "data.requested: {error}"
        );
        let supported = error["data"]["supported"]
            .as_array()
            .unwrap_or_else(|| panic!("data.supported must be an array: {error}"));
        assert!(
            !supported.is_empty(),
            "data.supported must be non-empty: {error}"
        );
        assert!(
            supported.contains(&json!(PROTOCOL_VERSION)),
            "data.supported must contain {PROTOCOL_VERSION}: {error}"
        );
        for v in supported {
            assert!(
                discovered["supportedVersions"]
                    .as_array()
                    .unwrap()
                    .contains(v),
                "data.supported {v} not in discover supportedVersions {}",
                discovered["supportedVersions"]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mcp-Method / Mcp-Name
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn mcp_method_header_must_match_body_method() {
    let server = HttpServer::spawn();
    let msg = request(json!(20), "tools/list", Value::Null);

    let mut headers = headers_for(&msg);
    remove_header(&mut headers, "Mcp-Method");
    server
        .post_with(&msg, headers)
        .await
        .expect_error(400, -32020, Some(&json!(20)));

    for wrong in ["prompts/list", "TOOLS/LIST", "tools/list/"] {
        let mut headers = headers_for(&msg);
        set_header(&mut headers, "Mcp-Method", wrong);
        eprintln!("Mcp-Method {wrong:?}");
        server
            .post_with(&msg, headers)
            .await
            .expect_error(400, -32020, Some(&json!(20)));
    }

    // Surrounding whitespace is trimmed; lowercase header name is the same header.
    let mut headers = headers_for(&msg);
    remove_header(&mut headers, "Mcp-Method");
    headers.push(("mcp-method".to_owned(), "  tools/list  ".to_owned()));
    let result = server
        .post_with(&msg, headers)
        .await
        .expect_result(&json!(20), "ListToolsResultResponse");
    check_tools_list_result(&result);
}

#[tokio::test]
async fn mcp_name_header_must_match_tool_name() {
    let server = HttpServer::spawn();
    let msg = request(
        json!(30),
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    );

    let mut headers = headers_for(&msg);
    remove_header(&mut headers, "Mcp-Name");
    server
        .post_with(&msg, headers)
        .await
        .expect_error(400, -32020, Some(&json!(30)));

    for wrong in ["wrong_tool_name", "TEST_SIMPLE_TEXT", "test_image_content"] {
        let mut headers = headers_for(&msg);
        set_header(&mut headers, "Mcp-Name", wrong);
        eprintln!("Mcp-Name {wrong:?}");
        server
            .post_with(&msg, headers)
            .await
            .expect_error(400, -32020, Some(&json!(30)));
    }

    let mut headers = headers_for(&msg);
    set_header(&mut headers, "Mcp-Name", "  test_simple_text  ");
    let result = server
        .post_with(&msg, headers)
        .await
        .expect_result(&json!(30), "CallToolResultResponse");
    check_simple_text_result(&result);
}

#[tokio::test]
async fn mcp_name_header_must_match_prompt_name_and_resource_uri() {
    let server = HttpServer::spawn();
    let prompt = request(
        json!(31),
        "prompts/get",
        json!({"name": "test_simple_prompt"}),
    );
    let resource = request(
        json!(32),
        "resources/read",
        json!({"uri": "test://static-text"}),
    );
    for msg in [&prompt, &resource] {
        let mut headers = headers_for(msg);
        remove_header(&mut headers, "Mcp-Name");
        eprintln!("missing Mcp-Name for {msg}");
        server
            .post_with(msg, headers)
            .await
            .expect_error(400, -32020, Some(&msg["id"]));

        let mut headers = headers_for(msg);
        set_header(&mut headers, "Mcp-Name", "something-else");
        eprintln!("wrong Mcp-Name for {msg}");
        server
            .post_with(msg, headers)
            .await
            .expect_error(400, -32020, Some(&msg["id"]));
    }
}

// ---------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn unknown_and_removed_methods_are_method_not_found_404() {
    let server = HttpServer::spawn();
    for (i, method) in [
        "unknown/method",
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ]
    .into_iter()
    .enumerate()
    {
        let extra = match method {
            "logging/setLevel" => json!({"level": "info"}),
            "resources/subscribe" | "resources/unsubscribe" => json!({"uri": "test://static-text"}),
            "initialize" => json!({"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                   "clientInfo": {"name": "c", "version": "1"}}),
            _ => Value::Null,
        };
        let id = json!(500 + i);
        let msg = request(id.clone(), method, extra);
        eprintln!("method {method}");
        server.post(&msg).await.expect_error(404, -32601, Some(&id));
    }
}

/// `GET` and `DELETE` exist only for 2025-era sessions: without a session
/// id, `GET` (a session's event stream) is not allowed and `DELETE` (ending
/// a session) is a bad request.
#[tokio::test]
async fn get_and_delete_without_a_session_are_refused() {
    let server = HttpServer::spawn();
    let headers = h(&[
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", PROTOCOL_VERSION),
    ]);
    for (method, status) in [(Method::GET, 405), (Method::DELETE, 400)] {
        let resp = server.send(method.clone(), &headers, Vec::new()).await;
        assert_eq!(
            resp.status, status,
            "{method} /mcp must be {status}; got {} {:?}",
            resp.status, resp.body
        );
    }
}

#[tokio::test]
async fn notification_is_accepted_with_202_and_empty_body() {
    let server = HttpServer::spawn();
    let msg = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 99, "reason": "test"}});
    let resp = server.post(&msg).await;
    assert_eq!(
        resp.status, 202,
        "notification must be 202; got {} {:?}",
        resp.status, resp.body
    );
    assert!(
        resp.body.is_empty(),
        "202 body must be empty; got {:?}",
        resp.body
    );
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let server = HttpServer::spawn();
    let msg = request(
        json!(40),
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    server
        .post(&msg)
        .await
        .expect_error(200, -32602, Some(&json!(40)));
}

#[tokio::test]
async fn unknown_resource_is_invalid_params_with_uri() {
    let server = HttpServer::spawn();
    let uri = "test://nonexistent-resource-for-conformance-testing";
    let msg = request(json!(41), "resources/read", json!({"uri": uri}));
    let error = server
        .post(&msg)
        .await
        .expect_error(200, -32602, Some(&json!(41)));
    assert_eq!(error["data"]["uri"], json!(uri), "error.data.uri: {error}");
}

#[tokio::test]
async fn malformed_input_responses_are_invalid_params() {
    let server = HttpServer::spawn();
    for (i, bad) in [
        json!(5),
        json!({"k": 1}),
        json!("x"),
        json!([{"action": "accept"}]),
        json!({"k": null}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = json!(600 + i);
        let msg = request(
            id.clone(),
            "tools/call",
            json!({"name": "test_simple_text", "arguments": {}, "inputResponses": bad}),
        );
        eprintln!("inputResponses {bad}");
        let resp = server.post(&msg).await;
        let v = resp.json();
        assert_error_response(&v, -32602, Some(&id));
    }
}

// ---------------------------------------------------------------------------------------------
// Transport limits and security
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn body_over_limit_is_413() {
    let server = HttpServer::spawn_with(&["--max-body-bytes", "1024"]);
    // A small request still works under the limit.
    let small = request(json!(1), "tools/list", Value::Null);
    server.call_ok(&small, "ListToolsResultResponse").await;

    let padding = "x".repeat(4096);
    let big = request(
        json!(2),
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {"pad": padding}}),
    );
    let body = serde_json::to_vec(&big).unwrap();
    assert!(body.len() > 4096);
    let resp = server.post_raw(&headers_for(&big), body).await;
    assert_eq!(
        resp.status, 413,
        "body over --max-body-bytes must be 413; got {} {:?}",
        resp.status, resp.body
    );
}

#[tokio::test]
async fn hostile_origin_is_forbidden() {
    let server = HttpServer::spawn();
    let msg = request(json!(50), "server/discover", Value::Null);

    let mut headers = headers_for(&msg);
    headers.push(("Origin".to_owned(), "http://evil.example.com".to_owned()));
    let resp = server.post_with(&msg, headers).await;
    assert_eq!(
        resp.status, 403,
        "hostile Origin must be 403; got {} {:?}",
        resp.status, resp.body
    );

    // The conformance dns-rebinding probe: hostile Host and Origin together.
    let mut headers = headers_for(&msg);
    headers.push(("Host".to_owned(), "evil.example.com".to_owned()));
    headers.push(("Origin".to_owned(), "http://evil.example.com".to_owned()));
    let resp = server.post_with(&msg, headers).await;
    assert_eq!(
        resp.status, 403,
        "hostile Host+Origin must be 403; got {} {:?}",
        resp.status, resp.body
    );
}

#[tokio::test]
async fn hostile_host_without_origin_is_forbidden() {
    let server = HttpServer::spawn();
    let msg = request(json!(51), "server/discover", Value::Null);
    let mut headers = headers_for(&msg);
    headers.push(("Host".to_owned(), "evil.example.com".to_owned()));
    let resp = server.post_with(&msg, headers).await;
    assert_eq!(
        resp.status, 403,
        "hostile Host must be 403; got {} {:?}",
        resp.status, resp.body
    );
}

#[tokio::test]
async fn loopback_origins_are_accepted() {
    let server = HttpServer::spawn();
    let port = server.port;
    for (host, origin) in [
        (
            format!("127.0.0.1:{port}"),
            format!("http://127.0.0.1:{port}"),
        ),
        (
            format!("localhost:{port}"),
            format!("http://localhost:{port}"),
        ),
        (
            format!("127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
        ),
    ] {
        let msg = request(json!(52), "server/discover", Value::Null);
        let mut headers = headers_for(&msg);
        headers.push(("Host".to_owned(), host.clone()));
        headers.push(("Origin".to_owned(), origin.clone()));
        eprintln!("Host {host} Origin {origin}");
        let result = server
            .post_with(&msg, headers)
            .await
            .expect_result(&json!(52), "DiscoverResultResponse");
        check_discover_result(&result);
    }
}

#[tokio::test]
async fn sigterm_shuts_down_gracefully() {
    let mut server = HttpServer::spawn();
    let msg = request(json!(1), "tools/list", json!({}));
    let resp = server.post(&msg).await;
    assert_eq!(resp.status, 200, "{}", resp.body);
    let status = server.terminate();
    // Killed by the signal's default action, the process would not exit 0.
    assert!(
        status.success(),
        "exit status after SIGTERM: {status:?}\n{}",
        server.logs()
    );
}

// ---------------------------------------------------------------------------------------------
// Completion declared per argument
// ---------------------------------------------------------------------------------------------

/// `completion/complete` of `argument` (typed `value`) of `reference`.
fn complete(id: i64, reference: Value, argument: &str, value: &str) -> Value {
    request(
        json!(id),
        "completion/complete",
        json!({"ref": reference, "argument": {"name": argument, "value": value}}),
    )
}

#[tokio::test]
async fn a_per_argument_completer_answers_and_unknown_names_are_invalid_params() {
    let server = HttpServer::spawn();
    let prompt = json!({"type": "ref/prompt", "name": "test_prompt_with_arguments"});
    let result = server
        .call_ok(
            &complete(1, prompt.clone(), "arg1", "test"),
            "CompleteResultResponse",
        )
        .await;
    assert_eq!(
        result["completion"]["values"],
        json!(["test", "testValue1", "test-one"]),
        "{result}"
    );
    let template = json!({"type": "ref/resource", "uri": "test://template/{id}/data"});
    let result = server
        .call_ok(&complete(2, template, "id", "4"), "CompleteResultResponse")
        .await;
    assert_eq!(result["completion"]["values"], json!(["456"]), "{result}");

    // A declared argument without a completer: no values.
    let embedded = json!({"type": "ref/prompt", "name": "test_prompt_with_embedded_resource"});
    let result = server
        .call_ok(
            &complete(3, embedded, "resourceUri", "test"),
            "CompleteResultResponse",
        )
        .await;
    assert_eq!(result["completion"]["values"], json!([]), "{result}");

    // An argument, or a prompt, the server does not have: -32602 naming it.
    for (id, msg, named) in [
        (4, complete(4, prompt, "arg3", "t"), "\"arg3\""),
        (
            5,
            complete(
                5,
                json!({"type": "ref/prompt", "name": "nope"}),
                "arg1",
                "t",
            ),
            "nope",
        ),
    ] {
        let response = server.post(&msg).await.json();
        assert_eq!(response["id"], json!(id), "{response}");
        assert_eq!(response["error"]["code"], json!(-32602), "{response}");
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(named), "{response}");
    }
}
