//! 2025-era clients over streamable HTTP on 127.0.0.1, beside 2026-07-28
//! ones on the same endpoint: `initialize` and sessions, the 2025-only
//! methods, results in their 2025 shape (checked against the 2025-11-25
//! schema), the bridge that asks the client for what input-required
//! handlers need, and the bounds and refusals around all of it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::BoxFuture;
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    CompleteResult, CompletionArgument, CompletionContext, CompletionReference,
    CreateMessageRequestParams, GetPromptResult, InputRequest, LoggingLevel, McpError,
    PromptMessage, ReadResourceResult, ResourceContents,
};
use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::server::Caller;
use mcp_runtime::server::handler::{CompletionHandler, Ctx};
use mcp_runtime::server::legacy::{Bridge, LegacyClients};
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::http::HttpTransport;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod support;

use support::http::{Running, form_client_meta, post_json, start};
use support::legacy::{LegacyClient, accept, event_data};
use support::schema::validate_2025;

// ---------------------------------------------------------------- fixtures

/// The name form.
#[derive(ElicitForm)]
struct NameForm {
    /// Your name.
    name: String,
}

/// The age form.
#[derive(ElicitForm)]
struct AgeForm {
    /// Your age.
    #[elicit(minimum = 0, maximum = 150)]
    age: i64,
}

/// Where `register` stands between rounds.
#[derive(Serialize, Deserialize)]
enum Step {
    AskedName,
    AskedAge { name: String },
}

/// Asks a name, then an age; the name crosses rounds in the signed state.
#[tool]
async fn register(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    match step.into_inner() {
        None => Reply::ask("name", NameForm::form("Who are you?")).resume(Step::AskedName),
        Some(Step::AskedName) => match ctx.answer::<NameForm>("name") {
            Answer::Accept(NameForm { name }) => {
                Reply::ask("age", AgeForm::form(format!("How old is {name}?")))
                    .resume(Step::AskedAge { name })
            }
            Answer::Decline | Answer::Cancel => Reply::text("Not registered."),
            Answer::Missing | Answer::Invalid(_) => {
                Reply::ask("name", NameForm::form("Who are you?")).resume(Step::AskedName)
            }
        },
        Some(Step::AskedAge { name }) => match ctx.answer::<AgeForm>("age") {
            Answer::Accept(AgeForm { age }) => Reply::text(format!("{name} is {age}.")),
            _ => Reply::text("Not registered."),
        },
    }
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct AddArgs {
    /// First.
    a: i64,
    /// Second.
    b: i64,
}

/// Adds two integers.
#[tool]
async fn add(args: AddArgs) -> String {
    (args.a + args.b).to_string()
}

/// Asks for a name for ever.
#[tool]
async fn endless() -> Reply<()> {
    Reply::ask("name", NameForm::form("Again?"))
}

/// Asks the client's model (deprecated sampling) and its roots.
#[tool]
#[allow(deprecated)]
async fn consult(ctx: Ctx) -> Reply<()> {
    let (Some(model), Some(roots)) = (ctx.input_response("model"), ctx.input_response("roots"))
    else {
        return Reply::ask(
            "model",
            InputRequest::sampling(CreateMessageRequestParams::user_text("Say hi", 10)),
        )
        .and_ask("roots", InputRequest::list_roots());
    };
    let said = model["content"]["text"].as_str().unwrap_or("?");
    let count = roots["roots"].as_array().map_or(0, Vec::len);
    Reply::text(format!("model said {said}; {count} roots"))
}

/// Sends a log message at each of four levels.
#[tool]
async fn chatty(ctx: Ctx) -> String {
    for level in [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Warning,
        LoggingLevel::Error,
    ] {
        ctx.log(level, Some("chatty"), json!(format!("{level:?}")))
            .await;
    }
    "logged".into()
}

/// Reports progress three times.
#[tool]
async fn steps(ctx: Ctx) -> String {
    for step in [1.0, 2.0, 3.0] {
        ctx.progress(step, Some(3.0), None).await;
    }
    "stepped".into()
}

/// Announces that the notes changed, and the tool list.
#[tool]
async fn touch(ctx: Ctx) -> String {
    ctx.changes().resource_updated("file:///notes.txt");
    ctx.changes().tools_list_changed();
    "touched".into()
}

/// Set when `hang` is dropped.
static HANG_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Never finishes.
#[tool]
async fn hang() -> String {
    let _flag = SetOnDrop(&HANG_DROPPED);
    std::future::pending::<()>().await;
    unreachable!()
}

/// Logs, closes its stream (the client is to come back in 200 ms), logs
/// again, then finishes.
#[tool]
async fn polled(ctx: Ctx) -> String {
    ctx.log(LoggingLevel::Info, None, json!("before")).await;
    assert!(ctx.close_stream(Duration::from_millis(200)));
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, None, json!("after")).await;
    "polled".into()
}

/// The notes.
#[resource(uri = "file:///notes.txt", mime_type = "text/plain")]
async fn notes() -> String {
    "remember the milk".into()
}

/// A page behind a sign-in, asked for in URL mode.
#[resource(uri = "secret://page", mime_type = "text/plain")]
async fn page(ctx: Ctx) -> Reply<(), ReadResourceResult> {
    match ctx.answer::<Visited>("login") {
        Answer::Accept(_) => Reply::done(ReadResourceResult::new(vec![ResourceContents::text(
            "secret://page",
            "text/plain",
            "the secret",
        )])),
        _ => Reply::ask(
            "login",
            InputRequest::elicit_url("Sign in first.", "https://example.com/login"),
        ),
    }
}

/// A URL step's answer: nothing but the action.
#[derive(ElicitForm)]
struct Visited {}

/// The topic form.
#[derive(ElicitForm)]
struct TopicForm {
    /// The topic.
    topic: String,
}

/// A prompt about a topic the user is asked for.
#[prompt]
async fn essay(ctx: Ctx) -> Reply<(), GetPromptResult> {
    match ctx.answer::<TopicForm>("topic") {
        Answer::Accept(TopicForm { topic }) => {
            Reply::done(GetPromptResult::new(vec![PromptMessage::user(format!(
                "Write about {topic}."
            ))]))
        }
        _ => Reply::ask("topic", TopicForm::form("What about?")),
    }
}

#[derive(Deserialize, JsonSchema)]
struct HaikuArgs {
    /// The season it is about.
    season: String,
}

/// A haiku about a season: a prompt that declares an argument to complete
/// (a completion of an argument the server does not know is `-32602`).
#[prompt]
async fn haiku(args: HaikuArgs) -> String {
    format!("Write a haiku about {}.", args.season)
}

/// Completes anything with two values.
struct Complete;

impl CompletionHandler for Complete {
    fn complete(
        &self,
        _reference: CompletionReference,
        argument: CompletionArgument,
        _context: Option<CompletionContext>,
        _ctx: Ctx,
    ) -> BoxFuture<'_, Result<CompleteResult, McpError>> {
        Box::pin(async move {
            Ok(CompleteResult::new(vec![
                format!("{}1", argument.value),
                format!("{}2", argument.value),
            ]))
        })
    }
}

fn server_with(legacy: LegacyClients, bridge: Bridge) -> Server {
    Server::builder("legacy-test", "1.0.0")
        .tool(register {})
        .tool(add {})
        .tool(endless {})
        .tool(consult {})
        .tool(chatty {})
        .tool(steps {})
        .tool(touch {})
        .tool(hang {})
        .tool(polled {})
        .resource(notes {})
        .resource(page {})
        .prompt(essay {})
        .prompt(haiku {})
        .completion(Complete)
        .request_state_signer(RequestStateSigner::generate().unwrap())
        .legacy_clients(legacy)
        .bridge(bridge.max_rounds(3))
        .build()
        .unwrap()
}

async fn serve() -> Running {
    start(HttpTransport::new(server_with(
        LegacyClients::Sessions,
        Bridge::default(),
    )))
    .await
}

/// A running server and a 2025-11-25 session of a client that can answer
/// forms.
async fn form_session() -> (Running, LegacyClient) {
    let running = serve().await;
    let (client, _) = LegacyClient::initialize(&running.url, "2025-11-25", form_client()).await;
    (running, client)
}

/// The answers a person gives `register`: a name, then an age.
fn ada(request: &Value) -> Option<Value> {
    let schema = &request["params"]["requestedSchema"]["properties"];
    Some(if schema.get("name").is_some() {
        accept(json!({"name": "Ada"}))
    } else {
        accept(json!({"age": 36}))
    })
}

const FORM: &str = r#"{"elicitation": {}}"#;

fn form_client() -> Value {
    serde_json::from_str(FORM).unwrap()
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

/// No key of 2026-07-28 left in a 2025-era result.
fn assert_2025_shape(result: &Value) {
    for key in ["resultType", "ttlMs", "cacheScope"] {
        assert!(result.get(key).is_none(), "{key} in {result}");
    }
    assert!(
        result["_meta"]
            .get("io.modelcontextprotocol/serverInfo")
            .is_none(),
        "serverInfo in {result}"
    );
}

// ------------------------------------------------------------------- tests

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_negotiates_each_2025_version_and_opens_a_session() {
    let running = serve().await;
    for (asked, settled) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),
    ] {
        let (client, answer) = LegacyClient::initialize(&running.url, asked, form_client()).await;
        validate_2025("InitializeResult", &answer["result"]);
        assert_eq!(answer["result"]["protocolVersion"], settled);
        assert_eq!(answer["result"]["serverInfo"]["name"], "legacy-test");
        let capabilities = &answer["result"]["capabilities"];
        assert_eq!(capabilities["tools"]["listChanged"], true);
        assert_eq!(capabilities["resources"]["subscribe"], true);
        assert!(capabilities["logging"].is_object(), "{capabilities}");
        assert!(capabilities["completions"].is_object(), "{capabilities}");
        let session = client.session.as_deref().unwrap();
        assert_eq!(session.len(), 64);
        assert!(session.bytes().all(|b| b.is_ascii_hexdigit()), "{session}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_have_their_2025_shape() {
    let (_running, client) = form_session().await;
    let cases = [
        ("tools/list", json!({}), "ListToolsResult"),
        ("prompts/list", json!({}), "ListPromptsResult"),
        ("resources/list", json!({}), "ListResourcesResult"),
        (
            "resources/templates/list",
            json!({}),
            "ListResourceTemplatesResult",
        ),
        (
            "resources/read",
            json!({"uri": "file:///notes.txt"}),
            "ReadResourceResult",
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
            "CallToolResult",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "haiku"}, "argument": {"name": "season", "value": "su"}}),
            "CompleteResult",
        ),
        ("ping", json!({}), "EmptyResult"),
    ];
    for (i, (method, params, def)) in cases.into_iter().enumerate() {
        let exchange = client.request(i as i64 + 1, method, params).await;
        assert_eq!(exchange.status, 200, "{method}: {:?}", exchange.response);
        let result = &exchange.response["result"];
        assert!(result.is_object(), "{method}: {}", exchange.response);
        validate_2025(def, result);
        assert_2025_shape(result);
    }
    let exchange = client
        .request(
            20,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(text_of(&exchange.response), "5");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_round_tool_is_bridged_through_the_signed_state() {
    let (_running, client) = form_session().await;
    let mut asked = Vec::new();
    let exchange = client
        .call(1, "tools/call", json!({"name": "register"}), |request| {
            assert_eq!(request["method"], "elicitation/create");
            validate_2025("ElicitRequest", request);
            asked.push(request["params"]["message"].as_str().unwrap().to_owned());
            ada(request)
        })
        .await;
    assert_eq!(text_of(&exchange.response), "Ada is 36.");
    validate_2025("CallToolResult", &exchange.response["result"]);
    assert_eq!(asked, ["Who are you?", "How old is Ada?"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_06_18_client_gets_forms_without_a_mode() {
    let running = serve().await;
    let (client, _) = LegacyClient::initialize(&running.url, "2025-06-18", form_client()).await;
    let exchange = client
        .call(1, "tools/call", json!({"name": "register"}), |request| {
            assert!(request["params"].get("mode").is_none(), "{request}");
            Some(json!({"action": "decline"}))
        })
        .await;
    assert_eq!(text_of(&exchange.response), "Not registered.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_answer_ends_the_call_cleanly() {
    let (_running, client) = form_session().await;
    let exchange = client
        .call(1, "tools/call", json!({"name": "register"}), |_| {
            Some(json!({"action": "decline"}))
        })
        .await;
    assert_eq!(text_of(&exchange.response), "Not registered.");
    assert_eq!(exchange.response["result"].get("isError"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_elicitation_gets_a_tool_error_saying_why() {
    let running = serve().await;
    let (client, _) = LegacyClient::initialize(&running.url, "2025-11-25", json!({})).await;
    let exchange = client
        .request(1, "tools/call", json!({"name": "register"}))
        .await;
    let result = &exchange.response["result"];
    assert_eq!(result["isError"], true, "{result}");
    let text = text_of(&exchange.response);
    assert!(
        text.contains("did not declare the elicitation capability"),
        "{text}"
    );
    validate_2025("CallToolResult", result);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_prompt_or_resource_read_is_an_error_saying_why() {
    let running = serve().await;
    // Forms only: the resource asks in URL mode.
    let (client, _) = LegacyClient::initialize(&running.url, "2025-11-25", form_client()).await;
    let exchange = client
        .request(1, "resources/read", json!({"uri": "secret://page"}))
        .await;
    assert_eq!(exchange.response["error"]["code"], -32603);
    let message = exchange.response["error"]["message"].as_str().unwrap();
    assert!(message.contains("elicitation (URL mode)"), "{message}");

    let (bare, _) = LegacyClient::initialize(&running.url, "2025-11-25", json!({})).await;
    let exchange = bare
        .request(2, "prompts/get", json!({"name": "essay"}))
        .await;
    assert_eq!(exchange.response["error"]["code"], -32603);

    // With the capabilities, both are bridged.
    let (client, _) = LegacyClient::initialize(
        &running.url,
        "2025-11-25",
        json!({"elicitation": {"form": {}, "url": {}}}),
    )
    .await;
    let exchange = client
        .call(
            3,
            "resources/read",
            json!({"uri": "secret://page"}),
            |request| {
                assert_eq!(request["params"]["mode"], "url");
                let id = request["params"]["elicitationId"].as_str().unwrap();
                assert!(id.len() >= 16, "an unguessable elicitation id: {id}");
                Some(json!({"action": "accept"}))
            },
        )
        .await;
    assert_eq!(
        exchange.response["result"]["contents"][0]["text"],
        "the secret"
    );
    validate_2025("ReadResourceResult", &exchange.response["result"]);
    let exchange = client
        .call(4, "prompts/get", json!({"name": "essay"}), |_| {
            Some(accept(json!({"topic": "rust"})))
        })
        .await;
    validate_2025("GetPromptResult", &exchange.response["result"]);
    assert_eq!(
        exchange.response["result"]["messages"][0]["content"]["text"],
        "Write about rust."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_and_roots_are_bridged_to_clients_that_declared_them() {
    let running = serve().await;
    let (client, _) = LegacyClient::initialize(
        &running.url,
        "2025-11-25",
        json!({"sampling": {}, "roots": {"listChanged": true}}),
    )
    .await;
    let exchange = client
        .call(
            1,
            "tools/call",
            json!({"name": "consult"}),
            |request| match request["method"].as_str().unwrap() {
                "sampling/createMessage" => {
                    validate_2025("CreateMessageRequest", request);
                    Some(json!({
                        "role": "assistant", "model": "test-model",
                        "content": {"type": "text", "text": "hi"}
                    }))
                }
                "roots/list" => {
                    validate_2025("ListRootsRequest", request);
                    Some(json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}))
                }
                other => panic!("unexpected {other}"),
            },
        )
        .await;
    assert_eq!(text_of(&exchange.response), "model said hi; 2 roots");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_stops_after_its_rounds() {
    let (_running, client) = form_session().await;
    let mut asked = 0;
    let exchange = client
        .call(1, "tools/call", json!({"name": "endless"}), |_| {
            asked += 1;
            Some(accept(json!({"name": "x"})))
        })
        .await;
    assert_eq!(asked, 3, "three rounds, then no more");
    assert_eq!(exchange.response["result"]["isError"], true);
    assert!(text_of(&exchange.response).contains("after 3 rounds"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_round_times_out_and_its_question_is_withdrawn() {
    let running = start(HttpTransport::new(server_with(
        LegacyClients::Sessions,
        Bridge::default().round_timeout(Duration::from_millis(300)),
    )))
    .await;
    let (client, _) = LegacyClient::initialize(&running.url, "2025-11-25", form_client()).await;
    let exchange = client
        .call(1, "tools/call", json!({"name": "register"}), |_| None)
        .await;
    assert_eq!(exchange.response["result"]["isError"], true);
    assert!(
        text_of(&exchange.response).contains("did not answer elicitation/create in time"),
        "{}",
        exchange.response
    );
    let question = &exchange.with_method("elicitation/create")[0]["id"];
    let cancelled = exchange.with_method("notifications/cancelled");
    assert_eq!(cancelled.len(), 1, "{:?}", exchange.messages);
    assert_eq!(&cancelled[0]["params"]["requestId"], question);
    // The late answer is taken, and matches nothing.
    let late = client
        .post(json!({"jsonrpc": "2.0", "id": question, "result": {"action": "decline"}}))
        .await;
    assert_eq!(late.status(), 202);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_leave_mid_bridge_leave_nothing_open() {
    let (_running, client) = form_session().await;
    // More abandoned rounds than a session may have questions open: were
    // the question of a dropped request kept, the session would fill up.
    for id in 0..80 {
        let mut response = client
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "register"}}))
            .await;
        let mut buffer = String::new();
        // The first message after the priming event.
        let question = 'read: loop {
            let chunk = response.chunk().await.unwrap().expect("a question first");
            buffer.push_str(std::str::from_utf8(&chunk).unwrap());
            while let Some(end) = buffer.find("\n\n") {
                let event: String = buffer.drain(..end + 2).collect();
                if let Some(message) = event_data(&event) {
                    break 'read message;
                }
            }
        };
        assert_eq!(question["method"], "elicitation/create");
        drop(response); // the client goes away mid-round
    }
    // Once the server has noticed them all, the session asks again.
    let mut finished = None;
    for attempt in 0..100 {
        let exchange = client
            .call(
                1000 + attempt,
                "tools/call",
                json!({"name": "register"}),
                ada,
            )
            .await;
        if exchange.response["result"]["isError"] != true {
            finished = Some(exchange);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let finished = finished.expect("the session's questions of dropped requests stayed open");
    assert_eq!(text_of(&finished.response), "Ada is 36.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_stops_the_handler() {
    let (_running, client) = form_session().await;
    let client = std::sync::Arc::new(client);
    let calling = {
        let client = std::sync::Arc::clone(&client);
        tokio::spawn(async move {
            client
                .request(7, "tools/call", json!({"name": "hang"}))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!HANG_DROPPED.load(Ordering::SeqCst));
    let status = client
        .post(json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "changed my mind"}
        }))
        .await
        .status();
    assert_eq!(status, 202);
    let exchange = tokio::time::timeout(Duration::from_secs(10), calling)
        .await
        .expect("the cancelled call ends")
        .unwrap();
    assert!(
        HANG_DROPPED.load(Ordering::SeqCst),
        "the handler was dropped"
    );
    assert_eq!(
        exchange.response,
        Value::Null,
        "no response to a cancelled request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_set_level_filters_log_messages() {
    let (_running, client) = form_session().await;
    // Before any setLevel, every message is sent.
    let exchange = client
        .request(1, "tools/call", json!({"name": "chatty"}))
        .await;
    assert_eq!(exchange.with_method("notifications/message").len(), 4);
    let set = client
        .request(2, "logging/setLevel", json!({"level": "warning"}))
        .await;
    validate_2025("EmptyResult", &set.response["result"]);
    let exchange = client
        .request(3, "tools/call", json!({"name": "chatty"}))
        .await;
    let levels: Vec<&str> = exchange
        .with_method("notifications/message")
        .iter()
        .map(|m| {
            validate_2025("LoggingMessageNotification", m);
            m["params"]["level"].as_str().unwrap()
        })
        .collect();
    assert_eq!(levels, ["warning", "error"]);
    let bad = client
        .request(4, "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(bad.response["error"]["code"], -32602);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_goes_to_the_request_stream() {
    let (_running, client) = form_session().await;
    let exchange = client
        .request(
            1,
            "tools/call",
            json!({"name": "steps", "_meta": {"progressToken": "p-1"}}),
        )
        .await;
    let progress = exchange.with_method("notifications/progress");
    assert_eq!(progress.len(), 3);
    for note in progress {
        validate_2025("ProgressNotification", note);
        assert_eq!(note["params"]["progressToken"], "p-1");
    }
    assert_eq!(text_of(&exchange.response), "stepped");
}

/// Reads the standalone stream until it has `count` messages (or 10 s pass).
async fn read_stream(response: &mut reqwest::Response, count: usize) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut buffer = String::new();
    while messages.len() < count {
        let Ok(chunk) = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await
        else {
            break;
        };
        let Some(chunk) = chunk.unwrap() else { break };
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            messages.extend(event_data(&event));
        }
    }
    messages
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_and_list_changes_reach_the_standalone_stream() {
    let (_running, client) = form_session().await;
    let mut stream = client
        .builder(reqwest::Method::GET)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let second = client
        .builder(reqwest::Method::GET)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 409, "one standalone stream per session");

    let subscribed = client
        .request(
            1,
            "resources/subscribe",
            json!({"uri": "file:///notes.txt"}),
        )
        .await;
    validate_2025("EmptyResult", &subscribed.response["result"]);
    client
        .request(2, "tools/call", json!({"name": "touch"}))
        .await;
    let messages = read_stream(&mut stream, 2).await;
    let methods: Vec<&str> = messages
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/resources/updated",
            "notifications/tools/list_changed"
        ]
    );
    validate_2025("ResourceUpdatedNotification", &messages[0]);
    assert_eq!(messages[0]["params"]["uri"], "file:///notes.txt");

    client
        .request(
            3,
            "resources/unsubscribe",
            json!({"uri": "file:///notes.txt"}),
        )
        .await;
    client
        .request(4, "tools/call", json!({"name": "touch"}))
        .await;
    let messages = read_stream(&mut stream, 1).await;
    assert_eq!(messages[0]["method"], "notifications/tools/list_changed");

    // DELETE ends the session and its stream.
    assert_eq!(client.delete().await, 200);
    let rest = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
        .await
        .expect("the stream ends with the session")
        .unwrap();
    assert!(rest.is_none(), "{rest:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_ids_are_required_checked_and_ended() {
    let running = serve().await;
    let (mut client, _) = LegacyClient::initialize(&running.url, "2025-11-25", form_client()).await;
    let session = client.session.clone();

    client.session = None;
    let missing = client.request(1, "tools/list", json!({})).await;
    assert_eq!(missing.status, 400, "no session id: {:?}", missing.response);
    let response = client
        .post(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
        .await;
    assert_eq!(response.status(), 400, "a response outside a session");

    client.session = Some("0".repeat(64));
    assert_eq!(client.request(2, "ping", json!({})).await.status, 404);
    assert_eq!(client.delete().await, 404);

    client.session = session;
    let again = client
        .request(
            3,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
        )
        .await;
    assert_eq!(
        again.response["error"]["code"], -32600,
        "{:?}",
        again.response
    );
    let unknown = client
        .post(json!({"jsonrpc": "2.0", "id": 999, "result": {}}))
        .await;
    assert_eq!(
        unknown.status(),
        202,
        "a late or unknown answer is taken and dropped"
    );
    client.version = "2025-06-18".to_owned();
    let mismatch = client.request(4, "ping", json!({})).await;
    assert_eq!(mismatch.status, 400, "{:?}", mismatch.response);
    assert_eq!(mismatch.response["error"]["code"], -32020);
    client.version = "2025-11-25".to_owned();

    assert_eq!(client.delete().await, 200);
    assert_eq!(client.request(5, "ping", json!({})).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_requests_are_served_beside_sessions() {
    let (running, client) = form_session().await;
    let modern = post_json(
        &running.url,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "register", "_meta": form_client_meta()}}),
    )
    .await;
    assert_eq!(modern["result"]["resultType"], "input_required");
    let removed = post_json(
        &running.url,
        json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
               "params": {"_meta": form_client_meta(), "protocolVersion": "2025-11-25",
                          "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}),
    )
    .await;
    assert_eq!(removed["error"]["code"], -32601, "{removed}");
    let legacy = client.request(3, "tools/list", json!({})).await;
    assert!(legacy.response["result"]["tools"].is_array());
    let discover = client.request(4, "server/discover", json!({})).await;
    assert_eq!(discover.response["error"]["code"], -32601);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_2025_clients_names_its_versions() {
    let running = start(HttpTransport::new(server_with(
        LegacyClients::Refused,
        Bridge::default(),
    )))
    .await;
    let (client, answer) = LegacyClient::initialize(&running.url, "2025-11-25", json!({})).await;
    assert!(client.session.is_none());
    assert_eq!(answer["error"]["code"], -32022, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(answer["error"]["data"]["requested"], "2025-11-25");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("2026-07-28"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_2025_clients_are_served_without_a_bridge() {
    let running = start(HttpTransport::new(server_with(
        LegacyClients::Stateless,
        Bridge::default(),
    )))
    .await;
    let (client, answer) =
        LegacyClient::initialize(&running.url, "2025-06-18", form_client()).await;
    assert!(client.session.is_none(), "no session id");
    validate_2025("InitializeResult", &answer["result"]);
    let capabilities = &answer["result"]["capabilities"];
    assert!(capabilities.get("logging").is_none(), "{capabilities}");
    assert!(capabilities["resources"].get("subscribe").is_none());
    let exchange = client
        .request(
            1,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(text_of(&exchange.response), "2");
    let exchange = client
        .request(2, "tools/call", json!({"name": "register"}))
        .await;
    assert_eq!(exchange.response["result"]["isError"], true);
    assert!(text_of(&exchange.response).contains("without a session"));
    let level = client
        .request(3, "logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(level.response["error"]["code"], -32601);
    assert_eq!(client.request(4, "ping", json!({})).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_bridge_off_a_tool_says_so() {
    let running = start(HttpTransport::new(server_with(
        LegacyClients::Sessions,
        Bridge::off(),
    )))
    .await;
    let (client, _) = LegacyClient::initialize(&running.url, "2025-11-25", form_client()).await;
    let exchange = client
        .request(1, "tools/call", json!({"name": "register"}))
        .await;
    assert_eq!(exchange.response["result"]["isError"], true);
    assert!(text_of(&exchange.response).contains("bridge is off"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_belongs_to_the_caller_that_opened_it() {
    let transport = HttpTransport::new(server_with(LegacyClients::Sessions, Bridge::default()))
        .authenticate(|token: &str| match token {
            "alice-token" => Some(Caller::new("alice")),
            "bob-token" => Some(Caller::new("bob")),
            _ => None,
        });
    let running = start(transport).await;
    let http = reqwest::Client::new();
    let post = |token: &'static str, session: Option<String>, body: Value| {
        let mut request = http
            .post(&running.url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(body.to_string()).send()
    };
    let opened = post(
        "alice-token",
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"}}}),
    )
    .await
    .unwrap();
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let alice = post("alice-token", Some(session.clone()), ping.clone())
        .await
        .unwrap();
    assert_eq!(alice.status(), 200);
    let bob = post("bob-token", Some(session), ping).await.unwrap();
    assert_eq!(bob.status(), 404, "another caller cannot use the session");
}

/// One server-sent event as received: its fields.
#[derive(Debug, Default, PartialEq)]
struct Event {
    id: Option<String>,
    retry: Option<String>,
    data: Option<String>,
}

/// Every event of a stream that ends (10 s at most).
async fn events_until_end(mut response: reqwest::Response) -> Vec<Event> {
    let mut text = String::new();
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk())
            .await
            .expect("the stream ends")
            .unwrap();
        match chunk {
            Some(chunk) => text.push_str(std::str::from_utf8(&chunk).unwrap()),
            None => break,
        }
    }
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let mut event = Event::default();
            for line in e.lines() {
                let (field, value) = line.split_once(':').unwrap_or((line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value).to_owned();
                match field {
                    "id" => event.id = Some(value),
                    "retry" => event.retry = Some(value),
                    "data" => event.data = Some(value),
                    _ => {}
                }
            }
            event
        })
        .collect()
}

fn message_of(event: &Event) -> Value {
    serde_json::from_str(event.data.as_deref().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_the_handler_closes_is_resumed_with_last_event_id() {
    let (_running, client) = form_session().await;
    let response = client
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "polled"}}))
        .await;
    assert_eq!(response.status(), 200);
    let events = events_until_end(response).await;
    // The priming event (an id, no data), the first log message, then the
    // retry interval; no response on this stream.
    assert_eq!(events.len(), 3, "{events:?}");
    let stream = events[0]
        .id
        .as_deref()
        .unwrap()
        .split('-')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        events[0].id.as_deref(),
        Some(format!("{stream}-0").as_str())
    );
    assert_eq!(events[0].data.as_deref(), Some(""));
    assert_eq!(
        events[1].id.as_deref(),
        Some(format!("{stream}-1").as_str())
    );
    assert_eq!(message_of(&events[1])["params"]["data"], "before");
    assert_eq!(events[2].retry.as_deref(), Some("200"));

    let resume = |after: String| {
        client
            .builder(reqwest::Method::GET)
            .header("accept", "text/event-stream")
            .header("last-event-id", after)
            .send()
    };
    let events = events_until_end(resume(format!("{stream}-1")).await.unwrap()).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(
        events[0].id.as_deref(),
        Some(format!("{stream}-2").as_str())
    );
    assert_eq!(message_of(&events[0])["params"]["data"], "after");
    assert_eq!(message_of(&events[1])["id"], 1);
    assert_eq!(text_of(&message_of(&events[1])), "polled");
    // Resuming again, from further back, replays what was kept.
    let events = events_until_end(resume(format!("{stream}-0")).await.unwrap()).await;
    assert_eq!(events.len(), 2, "{events:?}");
    let events = events_until_end(resume(format!("{stream}-2")).await.unwrap()).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(message_of(&events[0])["id"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_streams_are_primed_and_their_events_numbered() {
    let (_running, client) = form_session().await;
    let response = client
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chatty"}}))
        .await;
    let events = events_until_end(response).await;
    assert_eq!(
        events.len(),
        6,
        "priming, four messages, the response: {events:?}"
    );
    assert_eq!(events[0].data.as_deref(), Some(""));
    let ids: Vec<&str> = events.iter().map(|e| e.id.as_deref().unwrap()).collect();
    let stream = ids[0].split('-').next().unwrap();
    for (n, id) in ids.iter().enumerate() {
        assert_eq!(*id, format!("{stream}-{n}"));
    }
    assert_eq!(message_of(&events[5])["id"], 1);
    // The standalone stream is primed too.
    let mut standalone = client
        .builder(reqwest::Method::GET)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), standalone.chunk())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let first = std::str::from_utf8(&first).unwrap();
    assert!(
        first.starts_with("id: ") && first.contains("data: \n"),
        "{first:?}"
    );
}
