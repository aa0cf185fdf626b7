//! The client of `mcp_runtime::client`: against the real server of this
//! crate over HTTP on 127.0.0.1, against scripted HTTP endpoints that
//! record what the client sends, and against a tiny stdio server in
//! Python.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use mcp_runtime::client::{Client, ClientError, ClientLimits, Retry, Step, form_answer};
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{CompletionArgument, CompletionContext, CompletionReference};
use mcp_runtime::state::RequestStateSigner;
use serde_json::{Value, json};

mod support;

use support::client::{python_script, text_of};
use support::handlers::{self, NameForm, ask_name};
use support::http::serve;

// --- The real server ----------------------------------------------------------

support::handlers::greeting_handlers!(Red, Green);

/// Never satisfied: asks for a name on every round.
#[tool]
async fn insatiable(_step: Resume<handlers::Step>) -> Reply<handlers::Step> {
    ask_name()
}

/// Says hello without asking anything.
#[tool]
async fn hello() -> String {
    "Hello!".into()
}

fn server() -> Server {
    Server::builder("client-tests", "1.0.0")
        .tool(greet {})
        .tool(insatiable {})
        .tool(hello {})
        .prompt(greeting {})
        .resource(greeting_card {})
        .request_state_signer(
            RequestStateSigner::new(*b"client-tests-secret-32-bytes-ok!").unwrap(),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn discovers_and_lists_tools() {
    let running = serve(server()).await;
    let client = Client::http(&running.url).connect().await.unwrap();
    let discovered = client.discover().await.unwrap();
    assert!(discovered.supported_versions.contains(&"2026-07-28".into()));
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["greet", "hello", "insatiable"]);
    let hello = client.call_tool("hello", None).await.unwrap();
    assert_eq!(text_of(&hello), "Hello!");
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["greeting"]
    );
    let resources = client.list_resources().await.unwrap();
    assert_eq!(
        resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(),
        ["test://greeting-card"]
    );
    assert!(client.list_resource_templates().await.unwrap().is_empty());
}

#[tokio::test]
async fn multi_round_tool_prompt_and_resource_complete_through_the_loop() {
    let running = serve(server()).await;
    let client = Client::http(&running.url)
        .on_elicit_form(answer_ada_green)
        .connect()
        .await
        .unwrap();
    assert!(client.capabilities().supports_elicitation_form());

    let result = client.call_tool("greet", None).await.unwrap();
    assert_eq!(text_of(&result), "Hello Ada, lover of Green!");

    let prompt = client.get_prompt("greeting", None).await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"],
        "Hello Ada, lover of Green!"
    );

    let card = client.read_resource("test://greeting-card").await.unwrap();
    assert_eq!(
        serde_json::to_value(&card.contents[0]).unwrap()["text"],
        "Hello Ada, lover of Green!"
    );
}

#[tokio::test]
async fn a_server_that_never_stops_asking_hits_the_round_bound() {
    let running = serve(server()).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let client = Client::http(&running.url)
        .max_rounds(3)
        .on_elicit_form(move |params| {
            counter.fetch_add(1, Ordering::SeqCst);
            answer_ada_green(params)
        })
        .connect()
        .await
        .unwrap();
    let error = client.call_tool("insatiable", None).await.unwrap_err();
    assert_eq!(error, ClientError::RoundsExceeded { max_rounds: 3 });
    assert_eq!(asked.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn the_total_time_is_bounded() {
    let running = serve(server()).await;
    let client = Client::http(&running.url)
        .max_duration(Duration::from_millis(200))
        .on_elicit_form(|params| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            answer_ada_green(params).await
        })
        .connect()
        .await
        .unwrap();
    let error = client.call_tool("greet", None).await.unwrap_err();
    assert!(matches!(error, ClientError::Timeout(_)), "{error:?}");
}

#[tokio::test]
async fn manual_mode_returns_the_input_required_result() {
    let running = serve(server()).await;
    let client = Client::http(&running.url)
        .on_elicit_form(answer_ada_green)
        .connect()
        .await
        .unwrap();
    let Step::InputRequired(first) = client
        .call_tool_once("greet", None, &Retry::none())
        .await
        .unwrap()
    else {
        panic!("expected input_required");
    };
    let requests = first.input_requests.as_ref().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"]);
    assert!(first.request_state.is_some());

    let answers = client.fulfil(&first).await.unwrap();
    let Step::InputRequired(second) = client
        .call_tool_once("greet", None, &Retry::answering(&first, answers))
        .await
        .unwrap()
    else {
        panic!("expected a second input_required");
    };
    assert_eq!(
        second.input_requests.unwrap().keys().collect::<Vec<_>>(),
        ["colour"]
    );
}

#[tokio::test]
async fn a_client_without_capabilities_gets_the_server_error() {
    let running = serve(server()).await;
    let client = Client::http(&running.url).connect().await.unwrap();
    let error = client.call_tool("greet", None).await.unwrap_err();
    assert!(matches!(error, ClientError::Protocol(_)), "{error:?}");
}

// --- Scripted HTTP endpoints ----------------------------------------------------

/// What a scripted endpoint answers: a result, as JSON or as SSE.
enum Scripted {
    Json(Value),
    Sse(Value),
}

#[derive(Clone, Default)]
struct Script {
    replies: Arc<Mutex<VecDeque<Scripted>>>,
    seen: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

async fn scripted_handler(
    State(script): State<Script>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    let request: Value = serde_json::from_str(&body).unwrap();
    let id = request["id"].clone();
    if request["method"] == "server/discover" {
        // `connect` finds the era first; the script is for what follows.
        return axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
            "ttlMs": 0, "cacheScope": "private"}}))
        .into_response();
    }
    script.seen.lock().unwrap().push((headers, request));
    let reply = script.replies.lock().unwrap().pop_front();
    match reply {
        Some(Scripted::Json(result)) => {
            axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
        }
        Some(Scripted::Sse(result)) => {
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1}});
            let other = json!({"jsonrpc": "2.0", "id": "someone-else", "result": {"resultType": "complete"}});
            let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
            let body = format!(
                "event: message\ndata: {progress}\n\ndata: {other}\n\ndata: {response}\n\n"
            );
            ([("content-type", "text/event-stream")], body).into_response()
        }
        None => axum::Json(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32603, "message": "script exhausted"}}))
        .into_response(),
    }
}

/// Serves `replies` in order on 127.0.0.1; returns the URL and the script.
async fn scripted(replies: Vec<Scripted>) -> (String, Script) {
    let script = Script::default();
    script.replies.lock().unwrap().extend(replies);
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(scripted_handler))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, script)
}

const TRICKY_STATE: &str = "st\u{e9}te/+== \"quoted\" \\ \u{1F600}";

fn two_forms() -> Value {
    let form = |message: &str| {
        json!({"method": "elicitation/create", "params": {"message": message,
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
    };
    json!({"resultType": "input_required",
        "inputRequests": {"alpha": form("first"), "beta": form("second")},
        "requestState": TRICKY_STATE})
}

#[tokio::test]
async fn retries_carry_new_ids_exact_keys_and_the_exact_state() {
    let (url, script) = scripted(vec![
        Scripted::Sse(two_forms()),
        Scripted::Json(json!({"resultType": "input_required",
            "inputRequests": {"gamma": {"method": "elicitation/create", "params": {"message": "third",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}})),
        Scripted::Sse(json!({"resultType": "complete",
            "content": [{"type": "text", "text": "done"}]})),
    ])
    .await;
    let client = Client::http(&url)
        .on_elicit_form(|_| async { form_answer(&NameForm { name: "Ada".into() }).unwrap() })
        .connect()
        .await
        .unwrap();
    let result = client
        .call_tool("héllo", Some(json!({"x": 1}).as_object().unwrap().clone()))
        .await
        .unwrap();
    assert_eq!(text_of(&result), "done");

    let seen = script.seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let ids: Vec<_> = seen.iter().map(|(_, r)| r["id"].clone()).collect();
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{ids:?}"
    );
    for (headers, request) in seen.iter() {
        assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
        assert_eq!(headers["mcp-method"], "tools/call");
        assert!(
            headers["mcp-name"]
                .to_str()
                .unwrap()
                .starts_with("=?base64?")
        );
        let accept = headers["accept"].to_str().unwrap();
        assert!(accept.contains("application/json") && accept.contains("text/event-stream"));
        let meta = &request["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({"elicitation": {"form": {}}})
        );
        assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string());
        assert_eq!(request["params"]["arguments"], json!({"x": 1}));
    }
    // First round: no answers, no state.
    assert!(seen[0].1["params"].get("inputResponses").is_none());
    assert!(seen[0].1["params"].get("requestState").is_none());
    // Second: exactly the keys asked, the state byte for byte.
    let second = &seen[1].1["params"];
    assert_eq!(
        second["inputResponses"],
        json!({"alpha": {"action": "accept", "content": {"name": "Ada"}},
               "beta": {"action": "accept", "content": {"name": "Ada"}}})
    );
    assert_eq!(second["requestState"], TRICKY_STATE);
    // Third: only the newest round's answers, and no state (none was sent).
    let third = &seen[2].1["params"];
    assert_eq!(
        third["inputResponses"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["gamma"]
    );
    assert!(third.get("requestState").is_none());
}

/// A page of a list result, with the cache hints every list carries.
fn page(field: &str, items: Value, next: Option<&str>) -> Scripted {
    let mut result =
        json!({"resultType": "complete", field: items, "ttlMs": 0, "cacheScope": "private"});
    if let Some(next) = next {
        result["nextCursor"] = next.into();
    }
    Scripted::Json(result)
}

#[tokio::test]
async fn lists_follow_every_page() {
    let prompt = |name: &str| json!({"name": name});
    let (url, script) = scripted(vec![
        page("prompts", json!([prompt("one")]), Some("page-2")),
        page("prompts", json!([prompt("two")]), None),
        page(
            "resources",
            json!([{"name": "r", "uri": "test://r"}]),
            Some(""),
        ),
        page(
            "resourceTemplates",
            json!([{"name": "t", "uriTemplate": "test://{x}"}]),
            None,
        ),
    ])
    .await;
    let client = Client::http(&url).connect().await.unwrap();
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["one", "two"]
    );
    let resources = client.list_resources().await.unwrap();
    assert_eq!(
        resources[0].uri, "test://r",
        "an empty cursor ends the list"
    );
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "test://{x}");
    let seen = script.seen.lock().unwrap();
    let sent: Vec<(&str, Option<&str>)> = seen
        .iter()
        .map(|(_, r)| {
            (
                r["method"].as_str().unwrap(),
                r["params"]["cursor"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        sent,
        [
            ("prompts/list", None),
            ("prompts/list", Some("page-2")),
            ("resources/list", None),
            ("resources/templates/list", None)
        ]
    );
}

#[tokio::test]
async fn a_cursor_returned_twice_ends_the_list_with_an_error() {
    let tool = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    let (url, script) = scripted(vec![
        page("tools", tool.clone(), Some("again")),
        page("tools", tool.clone(), Some("again")),
        page("tools", tool, None),
    ])
    .await;
    let client = Client::http(&url).connect().await.unwrap();
    let error = client.list_tools().await.unwrap_err();
    assert!(
        matches!(&error, ClientError::MalformedResponse(m) if m.contains("\"again\" twice")),
        "{error}"
    );
    assert_eq!(
        script.seen.lock().unwrap().len(),
        2,
        "no third page asked for"
    );
}

#[tokio::test]
async fn a_list_follows_at_most_max_list_pages() {
    let tool = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    let (url, script) = scripted(vec![
        page("tools", tool.clone(), Some("page-2")),
        page("tools", tool.clone(), Some("page-3")),
        page("tools", tool, None),
    ])
    .await;
    let mut limits = ClientLimits::default();
    assert_eq!(limits.max_list_pages, 1000);
    limits.max_list_pages = 2;
    let client = Client::http(&url).limits(limits).connect().await.unwrap();
    let error = client.list_tools().await.unwrap_err();
    assert!(
        matches!(&error, ClientError::MalformedResponse(m) if m.contains("more than 2 pages")),
        "{error}"
    );
    assert_eq!(script.seen.lock().unwrap().len(), 2, "no third page");
}

#[tokio::test]
async fn completes_a_prompt_argument() {
    let (url, script) = scripted(vec![Scripted::Json(json!({"resultType": "complete",
        "completion": {"values": ["python", "pytorch"], "total": 2, "hasMore": false}}))])
    .await;
    let client = Client::http(&url).connect().await.unwrap();
    let completion = client
        .complete(
            CompletionReference::Prompt {
                name: "code_review".into(),
                title: None,
            },
            CompletionArgument {
                name: "language".into(),
                value: "py".into(),
            },
            Some(CompletionContext {
                arguments: Some([("style".to_owned(), "strict".to_owned())].into()),
            }),
        )
        .await
        .unwrap();
    assert_eq!(completion.values, ["python", "pytorch"]);
    assert_eq!(completion.total, Some(2));
    let seen = script.seen.lock().unwrap();
    let request = &seen[0].1;
    assert_eq!(request["method"], "completion/complete");
    assert_eq!(
        request["params"]["ref"],
        json!({"type": "ref/prompt", "name": "code_review"})
    );
    assert_eq!(
        request["params"]["argument"],
        json!({"name": "language", "value": "py"})
    );
    assert_eq!(
        request["params"]["context"],
        json!({"arguments": {"style": "strict"}})
    );
    assert_eq!(
        request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[tokio::test]
async fn an_unknown_result_type_is_an_error() {
    let (url, _script) = scripted(vec![Scripted::Json(
        json!({"resultType": "task", "taskId": "1"}),
    )])
    .await;
    let client = Client::http(&url).connect().await.unwrap();
    let error = client.call_tool("anything", None).await.unwrap_err();
    assert_eq!(error, ClientError::UnknownResultType("task".into()));
}

#[tokio::test]
async fn a_request_for_an_undeclared_kind_is_a_missing_handler_error() {
    let (url, script) = scripted(vec![Scripted::Json(json!({"resultType": "input_required",
        "inputRequests": {"where": {"method": "roots/list"}}}))])
    .await;
    let client = Client::http(&url)
        .on_elicit_form(answer_ada_green)
        .connect()
        .await
        .unwrap();
    let error = client.read_resource("file:///x").await.unwrap_err();
    assert_eq!(
        error,
        ClientError::MissingHandler {
            key: "where".into(),
            kind: "roots/list".into()
        }
    );
    assert_eq!(script.seen.lock().unwrap().len(), 1, "no retry was sent");
}

#[tokio::test]
async fn a_json_rpc_error_is_a_protocol_error() {
    let (url, _script) = scripted(vec![]).await;
    let client = Client::http(&url).connect().await.unwrap();
    let ClientError::Protocol(error) = client.call_tool("x", None).await.unwrap_err() else {
        panic!("expected a protocol error");
    };
    assert_eq!(error.code, -32603);
}

// --- stdio ------------------------------------------------------------------------

const PY_SERVER: &str = r#"
import json, sys
STATE = "st\u00e9te/+== \"q\" \\"
seen = set()
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    rid = req["id"]
    if rid in seen:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "reused id"}}); continue
    seen.add(rid)
    p = req["params"]
    if req["method"] == "server/discover":
        send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete",
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "private"}}); continue
    send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 0}})
    if p["_meta"].get("io.modelcontextprotocol/protocolVersion") != "2026-07-28":
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no _meta"}}); continue
    if "requestState" not in p:
        send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "input_required",
            "inputRequests": {"k1": {"method": "elicitation/create", "params": {"message": "name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}},
            "requestState": STATE}})
    elif p["requestState"] != STATE or sorted(p.get("inputResponses", {})) != ["k1"]:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "bad retry"}})
    else:
        name = p["inputResponses"]["k1"]["content"]["name"]
        send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete",
            "content": [{"type": "text", "text": "hi " + name}]}})
"#;

#[tokio::test]
async fn stdio_round_trip_through_a_python_server() {
    let script = python_script("mcp-client-test", PY_SERVER);
    let client = Client::stdio("python3", [script])
        .on_elicit_form(answer_ada_green)
        .connect()
        .await
        .unwrap();
    let result = client.call_tool("greet", None).await.unwrap();
    assert_eq!(text_of(&result), "hi Ada");
    // A second call on the same process works too (fresh ids).
    let again = client.call_tool("greet", None).await.unwrap();
    assert_eq!(text_of(&again), "hi Ada");
}
