//! Black-box tests of `conformance-server --stdio` (newline-delimited JSON).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use serde_json::{Value, json};
use support::*;

#[test]
fn fixtures_work_over_stdio() {
    let mut server = StdioServer::spawn();

    let resp = server.roundtrip(&request(json!(1), "server/discover", Value::Null));
    check_discover_result(&assert_result_response(
        &resp,
        &json!(1),
        "DiscoverResultResponse",
    ));

    let resp = server.roundtrip(&request(json!(2), "tools/list", Value::Null));
    check_tools_list_result(&assert_result_response(
        &resp,
        &json!(2),
        "ListToolsResultResponse",
    ));

    let resp = server.roundtrip(&request(
        json!(3),
        "tools/call",
        json!({"name": "test_simple_text"}),
    ));
    check_simple_text_result(&assert_result_response(
        &resp,
        &json!(3),
        "CallToolResultResponse",
    ));

    let resp = server.roundtrip(&request(
        json!("img"),
        "tools/call",
        json!({"name": "test_image_content", "arguments": {}}),
    ));
    check_image_result(&assert_result_response(
        &resp,
        &json!("img"),
        "CallToolResultResponse",
    ));

    let resp = server.roundtrip(&request(
        json!(5),
        "tools/call",
        json!({"name": "test_error_handling", "arguments": {}}),
    ));
    check_error_handling_result(&assert_result_response(
        &resp,
        &json!(5),
        "CallToolResultResponse",
    ));

    let resp = server.roundtrip(&request(
        json!(6),
        "prompts/get",
        json!({"name": "test_simple_prompt"}),
    ));
    check_simple_prompt_result(&assert_result_response(
        &resp,
        &json!(6),
        "GetPromptResultResponse",
    ));

    let resp = server.roundtrip(&request(
        json!(7),
        "resources/read",
        json!({"uri": "test://static-text"}),
    ));
    check_static_text_result(&assert_result_response(
        &resp,
        &json!(7),
        "ReadResourceResultResponse",
    ));

    server.assert_stdout_clean();
}

#[test]
fn no_headers_needed_and_client_info_optional_on_stdio() {
    let mut server = StdioServer::spawn();
    let meta = json!({META_VERSION: PROTOCOL_VERSION, META_CAPS: {}});
    let msg = request_with_meta(json!(105), "server/discover", Value::Null, meta);
    let resp = server.roundtrip(&msg);
    check_discover_result(&assert_result_response(
        &resp,
        &json!(105),
        "DiscoverResultResponse",
    ));
}

#[test]
fn malformed_json_is_parse_error_without_id_and_server_keeps_going() {
    let mut server = StdioServer::spawn();
    for line in [
        "{",
        "not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","#,
    ] {
        server.write_raw(&format!("{line}\n"));
        let resp = server.recv();
        eprintln!("line {line:?}");
        assert_error_response(&resp, -32700, None);
    }
    let resp = server.roundtrip(&request(json!(2), "tools/list", Value::Null));
    assert_result_response(&resp, &json!(2), "ListToolsResultResponse");
}

#[test]
fn non_object_json_is_invalid_request_without_id() {
    let mut server = StdioServer::spawn();
    for line in ["[]", "42", "\"x\"", "null"] {
        server.write_raw(&format!("{line}\n"));
        let resp = server.recv();
        eprintln!("line {line}");
        assert_error_response(&resp, -32600, None);
    }
    let missing_jsonrpc =
        json!({"id": 9, "method": "tools/list", "params": {"_meta": valid_meta()}});
    let resp = server.roundtrip(&missing_jsonrpc);
    assert_error_response(&resp, -32600, Some(&json!(9)));
}

#[test]
fn missing_meta_is_invalid_params() {
    let mut server = StdioServer::spawn();
    let cases = [
        json!({"jsonrpc": "2.0", "id": 101, "method": "server/discover", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 102, "method": "server/discover", "params": {"_meta": {META_CAPS: {}}}}),
        json!({"jsonrpc": "2.0", "id": 104, "method": "server/discover",
               "params": {"_meta": {META_VERSION: PROTOCOL_VERSION}}}),
    ];
    for msg in cases {
        let resp = server.roundtrip(&msg);
        assert_error_response(&resp, -32602, Some(&msg["id"]));
    }
}

#[test]
fn unsupported_version_is_reported_with_data() {
    let mut server = StdioServer::spawn();
    let meta = json!({META_VERSION: "1900-01-01", META_CAPS: {}});
    let resp = server.roundtrip(&request_with_meta(
        json!(301),
        "server/discover",
        Value::Null,
        meta,
    ));
    let error = assert_error_response(&resp, -32022, Some(&json!(301)));
    assert_eq!(
        error["data"]["requested"],
        json!("1900-01-01"),
        "data.requested: {error}"
    );
    let supported = error["data"]["supported"]
        .as_array()
        .unwrap_or_else(|| panic!("data.supported: {error}"));
    assert!(
        supported.contains(&json!(PROTOCOL_VERSION)),
        "data.supported: {error}"
    );
}

#[test]
fn unknown_and_removed_methods_are_method_not_found() {
    let mut server = StdioServer::spawn();
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
        let id = json!(500 + i);
        let resp = server.roundtrip(&request(id.clone(), method, Value::Null));
        eprintln!("method {method}");
        assert_error_response(&resp, -32601, Some(&id));
    }
}

#[test]
fn notification_gets_no_response() {
    let mut server = StdioServer::spawn();
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 12345, "reason": "test"}}),
    );
    // The next line on stdout must be the answer to this request, not anything about the notification.
    let resp = server.roundtrip(&request(json!(1), "tools/list", Value::Null));
    assert_result_response(&resp, &json!(1), "ListToolsResultResponse");
}

#[test]
fn pipelined_requests_are_all_answered() {
    let mut server = StdioServer::spawn();
    let mut batch = String::new();
    let mut expected = Vec::new();
    for i in 0..10 {
        let (method, extra, def) = match i % 4 {
            0 => ("tools/list", Value::Null, "ListToolsResultResponse"),
            1 => (
                "tools/call",
                json!({"name": "test_simple_text"}),
                "CallToolResultResponse",
            ),
            2 => (
                "resources/read",
                json!({"uri": "test://static-text"}),
                "ReadResourceResultResponse",
            ),
            _ => ("server/discover", Value::Null, "DiscoverResultResponse"),
        };
        let id = json!(format!("p{i}"));
        batch.push_str(&serde_json::to_string(&request(id.clone(), method, extra)).unwrap());
        batch.push('\n');
        expected.push((id, def));
    }
    server.write_raw(&batch); // one write: all ten messages at once
    let responses: Vec<Value> = (0..expected.len()).map(|_| server.recv()).collect();
    let map = by_id(&responses);
    for (id, def) in &expected {
        let resp = map
            .get(&id.to_string())
            .unwrap_or_else(|| panic!("no response for id {id}; got {responses:?}"));
        assert_result_response(resp, id, def);
    }
    server.assert_stdout_clean();
}

#[test]
fn exits_zero_on_stdin_eof_after_answering_in_flight_requests() {
    let mut server = StdioServer::spawn();
    let mut batch = String::new();
    for i in 0..5 {
        batch.push_str(
            &serde_json::to_string(&request(
                json!(i),
                "tools/call",
                json!({"name": "test_simple_text"}),
            ))
            .unwrap(),
        );
        batch.push('\n');
    }
    server.write_raw(&batch);
    server.close_stdin();
    let responses = server.read_to_eof();
    assert_eq!(
        responses.len(),
        5,
        "every request written before EOF must be answered: {responses:?}"
    );
    let map = by_id(&responses);
    for i in 0..5 {
        let resp = map
            .get(&json!(i).to_string())
            .unwrap_or_else(|| panic!("no response for id {i}"));
        check_simple_text_result(&assert_result_response(
            resp,
            &json!(i),
            "CallToolResultResponse",
        ));
    }
    let status = server.wait_exit();
    assert_eq!(
        status.code(),
        Some(0),
        "server must exit 0 on stdin EOF; got {status}; stderr:\n{}",
        server.logs()
    );
}

#[test]
fn exits_zero_on_immediate_eof() {
    let mut server = StdioServer::spawn();
    server.close_stdin();
    let lines = server.read_to_eof();
    assert!(
        lines.is_empty(),
        "nothing may be written to stdout without input: {lines:?}"
    );
    let status = server.wait_exit();
    assert_eq!(
        status.code(),
        Some(0),
        "server must exit 0 on stdin EOF; got {status}; stderr:\n{}",
        server.logs()
    );
}

#[test]
fn a_tool_runs_as_a_task_over_stdio() {
    let mut server = StdioServer::spawn();
    let mut meta = valid_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let created = server.roundtrip(&request_with_meta(
        json!(1),
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "stdio.txt"}}),
        meta.clone(),
    ));
    assert_eq!(created["result"]["resultType"], "task", "{created:#}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let get = |server: &mut StdioServer, n: i64| {
        server.roundtrip(&request_with_meta(
            json!(n),
            "tasks/get",
            json!({"taskId": id}),
            meta.clone(),
        ))["result"]
            .clone()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut n = 2;
    while get(&mut server, n)["status"] != "input_required" {
        assert!(std::time::Instant::now() < deadline, "never asked");
        std::thread::sleep(std::time::Duration::from_millis(10));
        n += 1;
    }
    let ack = server.roundtrip(&request_with_meta(
        json!("update"),
        "tasks/update",
        json!({"taskId": id, "inputResponses":
            {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
        meta.clone(),
    ));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack:#}");
    loop {
        n += 1;
        let task = get(&mut server, n);
        if task["status"] == "completed" {
            assert_eq!(task["result"]["content"][0]["text"], "deleted 'stdio.txt'");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never completed: {task:#}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
