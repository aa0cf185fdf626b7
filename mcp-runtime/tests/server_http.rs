//! The server over real HTTP on 127.0.0.1: caller identity, SSE streaming
//! of notifications, panics and misbehaving handlers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::BoxFuture;
use mcp_runtime::schema::{
    CallToolResult, ElicitRequestParams, ElicitRequestUrlParams, GetPromptResult, InputRequest,
    JsonObject, LoggingLevel, McpError, Prompt, PromptMessage, Tool, UrlMode,
};
use mcp_runtime::server::handler::{
    Ask, Ctx, MethodHandler, Outcome, PromptHandler, ToolArguments, ToolHandler,
};
use mcp_runtime::server::{Caller, Server};
use mcp_runtime::transport::http::HttpTransport;
use serde_json::{Value, json};

mod support;

use support::http::{meta, post, sse_data, start};

/// A tool whose behaviour is chosen by its name.
struct Probe(&'static str);

/// Lets `progress_then_waits` finish.
static RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();
/// Set when `progress_then_hangs` is dropped.
static STREAM_HANDLER_DROPPED: AtomicBool = AtomicBool::new(false);
/// Set when `hangs` is dropped.
static SILENT_HANDLER_DROPPED: AtomicBool = AtomicBool::new(false);

/// Sets its flag when dropped (when the handler holding it is cancelled).
struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Waits up to 10 s for `flag` to be set.
async fn wait_for(flag: &AtomicBool) -> bool {
    for _ in 0..200 {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

impl ToolHandler for Probe {
    fn descriptor(&self) -> Tool {
        Tool::new(self.0, "A probe tool for tests.")
    }

    fn call(
        &self,
        _arguments: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            match self.0 {
                "whoami" => {
                    let caller = ctx.receive().caller.clone().unwrap();
                    Ok(Outcome::Complete(CallToolResult::text(format!(
                        "{}|{}",
                        caller.subject,
                        caller.client_id.as_deref().unwrap_or("-")
                    ))))
                }
                "progress" => {
                    for step in [0.0, 50.0, 100.0] {
                        ctx.progress(step, Some(100.0), None).await;
                    }
                    Ok(Outcome::Complete(CallToolResult::text("done")))
                }
                "logs" => {
                    ctx.log(LoggingLevel::Debug, None, json!("debug detail"))
                        .await;
                    ctx.log(LoggingLevel::Warning, Some("probe"), json!("careful"))
                        .await;
                    Ok(Outcome::Complete(CallToolResult::text("logged")))
                }
                "panics" => panic!("boom"),
                "progress_then_waits" => {
                    ctx.progress(1.0, Some(2.0), None).await;
                    RELEASE.notified().await;
                    ctx.progress(2.0, Some(2.0), None).await;
                    Ok(Outcome::Complete(CallToolResult::text("released")))
                }
                "progress_then_hangs" => {
                    let _dropped = SetOnDrop(&STREAM_HANDLER_DROPPED);
                    ctx.progress(1.0, None, None).await;
                    std::future::pending::<()>().await;
                    unreachable!("a pending future never completes")
                }
                "hangs" => {
                    let _dropped = SetOnDrop(&SILENT_HANDLER_DROPPED);
                    std::future::pending::<()>().await;
                    unreachable!("a pending future never completes")
                }
                "asks_url" => Ok(Outcome::InputRequired(Ask::new(
                    "pay",
                    InputRequest::Elicitation(ElicitRequestParams::Url(ElicitRequestUrlParams {
                        mode: UrlMode::Url,
                        message: "Pay first.".into(),
                        url: "https://pay.example/s/1".into(),
                    })),
                ))),
                "asks_nothing" => Ok(Outcome::InputRequired(Ask::retry())),
                other => unreachable!("no probe {other}"),
            }
        })
    }
}

/// An extension method that wrongly asks for input.
struct Extension;

impl MethodHandler for Extension {
    fn method(&self) -> &str {
        "io.example/ask"
    }

    fn handle(&self, _: JsonObject, _: Ctx) -> BoxFuture<'_, Result<Outcome<Value>, McpError>> {
        Box::pin(async { Ok(Outcome::InputRequired(Ask::retry().with_state("s"))) })
    }
}

struct NeedsArgs;

impl PromptHandler for NeedsArgs {
    fn descriptor(&self) -> Prompt {
        Prompt::new("needs_args", "Needs arg1.").with_argument(
            mcp_runtime::schema::PromptArgument::required("arg1", "First."),
        )
    }

    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, McpError>> {
        Box::pin(async move {
            Ok(Outcome::Complete(GetPromptResult::new(vec![
                PromptMessage::user(arguments["arg1"].clone()),
            ])))
        })
    }
}

fn server() -> Server {
    let mut builder = Server::builder("probe", "1.0.0");
    for name in [
        "whoami",
        "progress",
        "logs",
        "panics",
        "progress_then_waits",
        "progress_then_hangs",
        "hangs",
        "asks_url",
        "asks_nothing",
    ] {
        builder = builder.tool(Probe(name));
    }
    builder.prompt(NeedsArgs).method(Extension).build().unwrap()
}

fn call(id: i64, tool: &str, meta_extra: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
           "params":{"_meta": meta(json!({}), meta_extra), "name": tool}})
}

#[tokio::test]
async fn the_authenticated_caller_reaches_the_handler() {
    let transport = HttpTransport::new(server()).authenticate(|token: &str| {
        (token == "secret-token").then(|| Caller::new("alice").with_client_id("cli"))
    });
    let running = start(transport).await;

    let (status, _, body) = post(&running.url, call(1, "whoami", json!({})), None).await;
    assert_eq!(status, 401, "{body}");
    let (status, _, _) = post(&running.url, call(2, "whoami", json!({})), Some("wrong")).await;
    assert_eq!(status, 401);
    let (status, _, body) = post(
        &running.url,
        call(3, "whoami", json!({})),
        Some("secret-token"),
    )
    .await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "alice|cli");
}

/// A served connection's messages are `POST`s to the endpoint's own path
/// (a query string aside): another path is not found, another method on
/// the path is not allowed, as the embedded router answers them.
#[tokio::test]
async fn only_a_post_to_the_endpoints_path_is_a_message() {
    let running = start(HttpTransport::new(server())).await;
    let (status, _, body) = post(
        &format!("{}?trace=1", running.url),
        call(1, "whoami", json!({})),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for elsewhere in [format!("{}/", running.url), format!("{}x", running.url)] {
        let (status, _, body) = post(&elsewhere, call(2, "whoami", json!({})), None).await;
        assert_eq!(status, 404, "{elsewhere}: {body}");
    }
    let put = reqwest::Client::new()
        .put(&running.url)
        .header("content-type", "application/json")
        .body(call(3, "whoami", json!({})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 405);
}

#[tokio::test]
async fn progress_streams_as_sse_before_the_result() {
    let running = start(HttpTransport::new(server())).await;
    let (status, content_type, body) = post(
        &running.url,
        call(7, "progress", json!({"progressToken": "tok-1"})),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "text/event-stream");
    let frames = sse_data(&body);
    assert_eq!(frames.len(), 4, "{body}");
    for (frame, expected) in frames.iter().zip([0.0, 50.0, 100.0]) {
        assert_eq!(frame["method"], "notifications/progress");
        assert_eq!(frame["params"]["progressToken"], "tok-1");
        assert_eq!(frame["params"]["progress"], expected);
    }
    assert_eq!(frames[3]["id"], 7);
    assert_eq!(frames[3]["result"]["content"][0]["text"], "done");

    // Without a progress token the same tool answers plain JSON.
    let (_, content_type, body) = post(&running.url, call(8, "progress", json!({})), None).await;
    assert_eq!(content_type, "application/json");
    assert!(!body.contains("notifications/progress"));
}

/// A request with the MCP headers and the streaming `Accept`, not yet sent.
fn streaming_request(url: &str, body: &Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", body["params"]["name"].as_str().unwrap())
        .body(body.to_string())
}

/// Reads `response` until its first whole SSE frame, and returns its JSON.
async fn first_frame(response: &mut reqwest::Response) -> Value {
    let mut buffer = String::new();
    loop {
        if let Some(end) = buffer.find("\n\n") {
            return sse_data(&buffer[..end + 2]).remove(0);
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk())
            .await
            .expect("no frame within 10 s")
            .unwrap()
            .expect("the stream ended before a frame");
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[tokio::test]
async fn a_notification_streams_while_the_handler_still_runs() {
    let running = start(HttpTransport::new(server())).await;
    let body = call(11, "progress_then_waits", json!({"progressToken": "tok-2"}));
    let mut response = streaming_request(&running.url, &body).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    // The handler waits for RELEASE: this frame came before it finished.
    let frame = first_frame(&mut response).await;
    assert_eq!(frame["method"], "notifications/progress");
    assert_eq!(frame["params"]["progress"], 1.0);

    RELEASE.notify_one();
    let rest = tokio::time::timeout(Duration::from_secs(10), response.text())
        .await
        .expect("the stream ended within 10 s")
        .unwrap();
    let frames = sse_data(&rest);
    assert_eq!(frames.len(), 2, "{rest}");
    assert_eq!(frames[0]["params"]["progress"], 2.0);
    assert_eq!(frames[1]["id"], 11);
    assert_eq!(frames[1]["result"]["content"][0]["text"], "released");
}

#[tokio::test]
async fn a_client_leaving_a_stream_cancels_its_handler() {
    let running = start(HttpTransport::new(server())).await;
    let body = call(12, "progress_then_hangs", json!({"progressToken": 1}));
    let mut response = streaming_request(&running.url, &body).send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    first_frame(&mut response).await;
    assert!(!STREAM_HANDLER_DROPPED.load(Ordering::SeqCst));
    drop(response);
    assert!(
        wait_for(&STREAM_HANDLER_DROPPED).await,
        "the handler outlived its client"
    );
}

#[tokio::test]
async fn a_client_leaving_before_any_answer_cancels_its_handler() {
    let running = start(HttpTransport::new(server())).await;
    let body = call(13, "hangs", json!({}));
    let sent = streaming_request(&running.url, &body)
        .timeout(Duration::from_millis(300))
        .send()
        .await;
    assert!(sent.is_err(), "the handler never answers");
    assert!(
        wait_for(&SILENT_HANDLER_DROPPED).await,
        "the handler outlived its client"
    );
}

#[tokio::test]
async fn log_messages_only_at_the_requested_level() {
    let running = start(HttpTransport::new(server())).await;
    let (_, content_type, body) = post(&running.url, call(1, "logs", json!({})), None).await;
    assert_eq!(
        content_type, "application/json",
        "no logLevel, no log frames: {body}"
    );

    let with_level = json!({"io.modelcontextprotocol/logLevel": "info"});
    let (_, content_type, body) = post(&running.url, call(2, "logs", with_level), None).await;
    assert_eq!(content_type, "text/event-stream");
    let frames = sse_data(&body);
    assert_eq!(frames.len(), 2, "only the warning passes `info`: {body}");
    assert_eq!(frames[0]["method"], "notifications/message");
    assert_eq!(frames[0]["params"]["level"], "warning");
    assert_eq!(frames[0]["params"]["logger"], "probe");

    let bad_level = json!({"io.modelcontextprotocol/logLevel": "loud"});
    let (status, _, body) = post(&running.url, call(3, "logs", bad_level), None).await;
    assert_eq!(status, 400);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32602);
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error() {
    let running = start(HttpTransport::new(server())).await;
    let (status, _, body) = post(&running.url, call(5, "panics", json!({})), None).await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["id"], 5);
    assert_eq!(body["error"]["code"], -32603);
    assert!(
        !body.to_string().contains("boom"),
        "details stay in the log"
    );
}

#[tokio::test]
async fn input_required_from_another_method_is_an_internal_error() {
    let running = start(HttpTransport::new(server())).await;
    let body = json!({"jsonrpc":"2.0","id":9,"method":"io.example/ask","params":{"_meta": meta(json!({}), json!({}))}});
    let (_, _, body) = post(&running.url, body, None).await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32603);
}

#[tokio::test]
async fn an_empty_input_required_result_is_an_internal_error() {
    let running = start(HttpTransport::new(server())).await;
    let (_, _, body) = post(&running.url, call(4, "asks_nothing", json!({})), None).await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32603);
}

#[tokio::test]
async fn asking_for_an_undeclared_capability_is_refused() {
    let running = start(HttpTransport::new(server())).await;
    // `elicitation: {}` means form only, so a URL ask needs `elicitation.url`.
    let form_only = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let (status, _, body) = post(&running.url, call(1, "asks_url", form_only), None).await;
    assert_eq!(status, 400);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32021);
    assert_eq!(
        body["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );

    let url_mode =
        json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}}});
    let (status, _, body) = post(&running.url, call(2, "asks_url", url_mode), None).await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["result"]["resultType"], "input_required");
    assert_eq!(
        body["result"]["inputRequests"]["pay"]["params"]["mode"],
        "url"
    );
}

#[tokio::test]
async fn missing_required_prompt_arguments_are_invalid_params() {
    let running = start(HttpTransport::new(server())).await;
    let body = json!({"jsonrpc":"2.0","id":3,"method":"prompts/get",
        "params":{"_meta": meta(json!({}), json!({})), "name": "needs_args", "arguments": {}}});
    let (_, _, text) = post(&running.url, body, None).await;
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["error"]["code"], -32602);
    assert!(
        parsed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("arg1")
    );
}

/// An extension whose method name is chosen by the test.
struct Named(&'static str);

impl MethodHandler for Named {
    fn method(&self) -> &str {
        self.0
    }

    fn handle(&self, _: JsonObject, _: Ctx) -> BoxFuture<'_, Result<Outcome<Value>, McpError>> {
        Box::pin(async { Ok(Outcome::Complete(json!({}))) })
    }
}

/// An extension that answers with the params it was given.
struct EchoParams;

impl MethodHandler for EchoParams {
    fn method(&self) -> &str {
        "io.example/echo"
    }

    fn handle(
        &self,
        params: JsonObject,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<Value>, McpError>> {
        Box::pin(async move { Ok(Outcome::Complete(json!({"params": params}))) })
    }
}

#[tokio::test]
async fn an_extension_gets_its_params_whole() {
    use mcp_runtime::transport::{
        Incoming, Notifier, ReceiveContext, TransportKind, parse_message,
    };
    let server = Server::builder("ext", "1")
        .method(EchoParams)
        .build()
        .unwrap();
    // The members the reader keeps apart for tools/call, prompts/get and
    // resources/read reach an extension as they were sent.
    let params = json!({
        "_meta": meta(json!({}), json!({})),
        "inputResponses": {"a": {"action": "accept"}, "b": 1},
        "requestState": ["not", "a", "string"],
        "other": {"x": null}
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "io.example/echo", "params": params});
    let Ok(Incoming::Request(request)) = parse_message(body.to_string().as_bytes()) else {
        panic!("not a request")
    };
    let response = server
        .handle_request(
            request,
            ReceiveContext::new(TransportKind::InProcess),
            Notifier::disabled(),
        )
        .await;
    let response: Value = serde_json::from_str(&response.to_json()).unwrap();
    assert_eq!(response["result"]["params"], params, "{response}");
}

#[test]
fn an_extension_cannot_take_a_method_of_either_era() {
    // `tools/call` is served; `ping` and `initialize` are 2025-era methods
    // that 2026-07-28 removed: all three are the protocol's.
    let error = Server::builder("ext", "1")
        .method(Named("tools/call"))
        .method(Named("ping"))
        .method(Named("initialize"))
        .method(Named("io.example/fine"))
        .build()
        .unwrap_err();
    let problems = error.problems();
    assert_eq!(problems.len(), 3, "{problems:?}");
    for method in ["tools/call", "ping", "initialize"] {
        assert!(
            problems
                .iter()
                .any(|p| p
                    == &format!("{method:?} is a method of the protocol and cannot be replaced")),
            "{problems:?}"
        );
    }
}

#[test]
fn the_builder_reports_every_problem() {
    let error = Server::builder("dup", "1")
        .tool(Probe("whoami"))
        .tool(Probe("whoami"))
        .tool(Probe("bad name!"))
        .method(Extension)
        .method(Extension)
        .build()
        .unwrap_err();
    let problems = error.problems().join("\n");
    assert!(
        problems.contains("two tools are named \"whoami\""),
        "{problems}"
    );
    assert!(problems.contains("\"bad name!\""), "{problems}");
    assert!(
        problems.contains("two handlers serve the method"),
        "{problems}"
    );
}
