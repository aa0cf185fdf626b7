//! The `requestState` round trip end to end, over HTTP on 127.0.0.1 and
//! over stdio in process: the server verifies every echoed state before
//! the handler runs, refuses every bad one with the same fixed error,
//! logs the reason, and checks every state a handler hands out.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mcp_runtime::BoxFuture;
use mcp_runtime::schema::{
    BooleanSchema, CallToolResult, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestedSchema, GetPromptResult, InputRequest, McpError, PrimitiveSchemaDefinition,
    Prompt, PromptArgument, PromptMessage, Tool,
};
use mcp_runtime::server::handler::{Ask, Ctx, Outcome, PromptHandler, ToolArguments, ToolHandler};
use mcp_runtime::server::{OutcomeRecord, Server};
use mcp_runtime::state::{
    Binding, InMemoryReplayGuard, ManualClock, RequestStateSigner, SigningKey,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tracing_subscriber::fmt::MakeWriter;

mod support;

use support::http::{Running, form_client_meta, post_written, serve};

const REFUSED: &str = "Invalid or expired \"requestState\"";

/// Phrases of the refusal reasons: they belong in the log, never on the wire.
const REASONS: &[&str] = &[
    "signature",
    "does not verify",
    "malformed",
    "unknown key",
    "key id",
    "expired at",
    "already used",
    "tampered",
    "binding",
];

// ---------------------------------------------------------------- the log

/// Everything the test binary logs, shared by all tests.
#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogBuffer {
    type Writer = LogBuffer;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

fn logs() -> &'static LogBuffer {
    static LOGS: OnceLock<LogBuffer> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = LogBuffer::default();
        tracing_subscriber::fmt()
            .with_writer(buffer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .try_init()
            .expect("the only subscriber of this test binary");
        buffer
    })
}

/// Asserts that one log line contains every needle. Tests run in
/// parallel, so each names a target unique to itself.
fn assert_logged(needles: &[&str]) {
    let text = String::from_utf8_lossy(&logs().0.lock().unwrap()).into_owned();
    assert!(
        text.lines().any(|l| needles.iter().all(|n| l.contains(n))),
        "no log line contains all of {needles:?}:\n{text}"
    );
}

// ---------------------------------------------------------------- handlers

fn confirm_request(target: &str) -> InputRequest {
    let mut properties = mcp_runtime::schema::FormProperties::new();
    properties.insert(
        "ok".to_owned(),
        PrimitiveSchemaDefinition::Boolean(BooleanSchema::default()),
    );
    InputRequest::Elicitation(ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: None,
        message: format!("Deploy to {target}?"),
        requested_schema: ElicitRequestedSchema {
            properties,
            required: Some(vec!["ok".to_owned()]),
            ..ElicitRequestedSchema::default()
        }
        .into(),
    }))
}

/// True when the newest round answered `confirm` with an accepted `ok: true`.
fn confirmed(ctx: &Ctx) -> bool {
    ctx.input_response("confirm").is_some_and(|answer| {
        answer["action"] == "accept" && answer["content"]["ok"] == Value::Bool(true)
    })
}

/// `deploy {target}`: asks for confirmation, then deploys. Counts how often
/// its body runs.
struct Deploy {
    name: String,
    runs: Arc<AtomicUsize>,
}

impl ToolHandler for Deploy {
    fn descriptor(&self) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": {"target": {"type": "string"}},
            "required": ["target"]
        });
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        Tool::new(self.name.clone(), "Deploys after a confirmation.").with_input_schema(schema)
    }

    fn call(
        &self,
        arguments: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            self.runs.fetch_add(1, Ordering::SeqCst);
            let target = arguments
                .get("target")
                .and_then(|target| target.as_str().map(str::to_owned))
                .ok_or_else(|| McpError::invalid_params("target must be a string"))?;
            let state: Option<String> = ctx.state()?;
            if state.as_deref() == Some("awaiting") && confirmed(&ctx) {
                return Ok(Outcome::Complete(CallToolResult::text(format!(
                    "Deployed to {target}"
                ))));
            }
            // The resume value goes out unsigned; the state gate signs it.
            Ok(Outcome::InputRequired(
                Ask::new("confirm", confirm_request(&target)).resume(&"awaiting")?,
            ))
        })
    }
}

/// The same flow on `prompts/get`.
struct DeployPrompt {
    name: String,
    runs: Arc<AtomicUsize>,
}

impl PromptHandler for DeployPrompt {
    fn descriptor(&self) -> Prompt {
        Prompt::new(self.name.clone(), "A deployment, once confirmed.")
            .with_argument(PromptArgument::required("target", "Where to."))
    }

    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, McpError>> {
        Box::pin(async move {
            self.runs.fetch_add(1, Ordering::SeqCst);
            let target = &arguments["target"];
            let state: Option<String> = ctx.state()?;
            if state.as_deref() == Some("awaiting") && confirmed(&ctx) {
                return Ok(Outcome::Complete(GetPromptResult::new(vec![
                    PromptMessage::user(format!("Deployed to {target}")),
                ])));
            }
            // Minted by hand, checked by dispatch.
            Ok(Outcome::InputRequired(
                Ask::new("confirm", confirm_request(target))
                    .with_state(ctx.mint_state(&"awaiting")?),
            ))
        })
    }
}

/// `hold`: asks for a confirmation; its confirmed round says it started
/// (`entered`) and then waits for a permit of `release` before it answers.
/// Counts how often that round starts.
#[derive(Clone)]
struct Hold {
    entered: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Semaphore>,
    runs: Arc<AtomicUsize>,
}

impl Hold {
    /// Holding its round until released.
    fn new() -> Self {
        Self {
            entered: Arc::default(),
            release: Arc::new(tokio::sync::Semaphore::new(0)),
            runs: Arc::default(),
        }
    }

    /// A server with the tool `hold`, a replay guard and `outcomes`.
    fn server(&self, outcomes: OutcomeRecord) -> Server {
        Server::builder("state-e2e-hold", "1.0.0")
            .request_state_signer(RequestStateSigner::new([9u8; 32]).unwrap())
            .replay_guard(InMemoryReplayGuard::new())
            .outcomes(outcomes)
            .tool(self.clone())
            .build()
            .unwrap()
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

impl ToolHandler for Hold {
    fn descriptor(&self) -> Tool {
        Tool::new("hold", "Answers its confirmed round when the test lets it.")
    }

    fn call(
        &self,
        _: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            let state: Option<String> = ctx.state()?;
            if state.as_deref() == Some("awaiting") && confirmed(&ctx) {
                self.runs.fetch_add(1, Ordering::SeqCst);
                self.entered.notify_one();
                let permit = self.release.acquire().await;
                permit
                    .map_err(|_| McpError::internal("the test closed the release"))?
                    .forget();
                return Ok(Outcome::Complete(CallToolResult::text("held, then done")));
            }
            Ok(Outcome::InputRequired(
                Ask::new("confirm", confirm_request("hold")).resume(&"awaiting")?,
            ))
        })
    }
}

/// For a server without a signer: reports what reached it.
struct RawState {
    name: String,
}

impl ToolHandler for RawState {
    fn descriptor(&self) -> Tool {
        Tool::new(self.name.clone(), "Echoes the raw state.")
    }

    fn call(
        &self,
        _: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            Ok(match ctx.request_state() {
                None => Outcome::InputRequired(
                    Ask::new("confirm", confirm_request("x")).with_state("unsigned-state"),
                ),
                Some(raw) => Outcome::Complete(CallToolResult::text(format!(
                    "raw={raw} payload={}",
                    ctx.state_payload().is_some()
                ))),
            })
        })
    }
}

/// Hands out a state the server's signer did not mint for this request.
enum Forgery {
    OtherSigner(RequestStateSigner),
    MadeUp,
    OwnBinding,
}

struct Forger {
    name: String,
    forgery: Forgery,
}

impl ToolHandler for Forger {
    fn descriptor(&self) -> Tool {
        Tool::new(self.name.clone(), "Mints states it should not.")
    }

    fn call(
        &self,
        _: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            let state = match &self.forgery {
                Forgery::OtherSigner(signer) => signer.sign_json(&"awaiting").unwrap(),
                Forgery::MadeUp => "v1.made-up.c3RhdGU.c2ln".to_owned(),
                Forgery::OwnBinding => ctx
                    .signer()
                    .unwrap()
                    .bind_to(Binding::empty().with("a binding of my own"))
                    .sign_json(&"awaiting")
                    .unwrap(),
            };
            Ok(Outcome::InputRequired(
                Ask::new("confirm", confirm_request("x")).with_state(state),
            ))
        })
    }
}

// ---------------------------------------------------------------- servers

fn signer_on(seed: u8, clock: &Arc<ManualClock>) -> RequestStateSigner {
    RequestStateSigner::with_keys(SigningKey::with_id("e2e", [seed; 32]).unwrap(), [])
        .with_clock(clock.clone())
}

/// A server with `deploy-<label>`, `other-<label>` and the prompt
/// `prompt-<label>`, all counting into one counter.
struct Fixture {
    tool: String,
    other_tool: String,
    prompt: String,
    runs: Arc<AtomicUsize>,
}

impl Fixture {
    fn new(label: &str) -> Self {
        Self {
            tool: format!("deploy-{label}"),
            other_tool: format!("other-{label}"),
            prompt: format!("prompt-{label}"),
            runs: Arc::default(),
        }
    }

    fn server(&self, signer: RequestStateSigner, replay: Option<Arc<ManualClock>>) -> Server {
        self.server_guarded(signer, replay.map(|c| InMemoryReplayGuard::with_clock(c)))
    }

    fn server_guarded(
        &self,
        signer: RequestStateSigner,
        guard: Option<InMemoryReplayGuard>,
    ) -> Server {
        self.server_with(signer, guard, OutcomeRecord::default())
    }

    fn server_with(
        &self,
        signer: RequestStateSigner,
        guard: Option<InMemoryReplayGuard>,
        outcomes: OutcomeRecord,
    ) -> Server {
        let mut builder = Server::builder("state-e2e", "1.0.0")
            .request_state_signer(signer)
            .outcomes(outcomes)
            .tool(Deploy {
                name: self.tool.clone(),
                runs: Arc::clone(&self.runs),
            })
            .tool(Deploy {
                name: self.other_tool.clone(),
                runs: Arc::clone(&self.runs),
            })
            .prompt(DeployPrompt {
                name: self.prompt.clone(),
                runs: Arc::clone(&self.runs),
            });
        if let Some(guard) = guard {
            builder = builder.replay_guard(guard);
        }
        builder.build().unwrap()
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

// ---------------------------------------------------------------- clients

#[derive(Debug, Clone, Copy)]
enum Kind {
    Http,
    Stdio,
}

const KINDS: [Kind; 2] = [Kind::Http, Kind::Stdio];

impl Kind {
    fn label(self, case: &str) -> String {
        match self {
            Kind::Http => format!("{case}-http"),
            Kind::Stdio => format!("{case}-stdio"),
        }
    }
}

enum Client {
    Http(Running),
    Stdio {
        to_server: DuplexStream,
        from_server: tokio::io::Lines<BufReader<DuplexStream>>,
    },
}

impl Client {
    async fn connect(kind: Kind, server: Server) -> Self {
        match kind {
            Kind::Http => Client::Http(serve(server).await),
            Kind::Stdio => {
                let (to_server, server_in) = tokio::io::duplex(1 << 16);
                let (server_out, from_server) = tokio::io::duplex(1 << 16);
                tokio::spawn(
                    mcp_runtime::transport::stdio::StdioTransport::new(server)
                        .max_line_bytes(1 << 20)
                        .serve_on(BufReader::new(server_in), server_out),
                );
                Client::Stdio {
                    to_server,
                    from_server: BufReader::new(from_server).lines(),
                }
            }
        }
    }

    /// Sends one request and returns the JSON-RPC response to it.
    async fn send(&mut self, body: Value) -> Value {
        let text = body.to_string();
        self.send_written(body, text).await
    }

    /// [`Self::send`]s `body` as `text`, the same request written
    /// otherwise.
    async fn send_written(&mut self, body: Value, text: String) -> Value {
        let exchange = async {
            match self {
                Client::Http(running) => {
                    let (_, _, response) = post_written(&running.url, &body, text, None).await;
                    serde_json::from_str(&response).expect("a JSON response")
                }
                Client::Stdio {
                    to_server,
                    from_server,
                } => {
                    let mut line = text;
                    line.push('\n');
                    to_server.write_all(line.as_bytes()).await.unwrap();
                    loop {
                        let line = from_server.next_line().await.unwrap().unwrap();
                        let message: Value = serde_json::from_str(&line).unwrap();
                        if message.get("id") == body.get("id") {
                            break message;
                        }
                    }
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), exchange)
            .await
            .expect("a response within 20 s")
    }
}

// ---------------------------------------------------------------- requests

fn accepted() -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": true}}})
}

fn request(method: &str, name: &str, arguments: Value, retry: Option<&str>) -> Value {
    let mut params = json!({"_meta": form_client_meta(), "name": name, "arguments": arguments});
    if let Some(state) = retry {
        params["inputResponses"] = accepted();
        params["requestState"] = Value::from(state);
    }
    json!({"jsonrpc": "2.0", "id": next_id(), "method": method, "params": params})
}

fn next_id() -> u64 {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed) as u64
}

fn call(tool: &str, target: &str, state: Option<&str>) -> Value {
    request("tools/call", tool, json!({"target": target}), state)
}

fn get_prompt(prompt: &str, target: &str, state: Option<&str>) -> Value {
    request("prompts/get", prompt, json!({"target": target}), state)
}

/// Asserts an input-required result asking for `confirm`; returns its state.
fn asked(response: &Value) -> String {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let confirm = &result["inputRequests"]["confirm"];
    assert_eq!(confirm["method"], "elicitation/create", "{response}");
    assert_eq!(
        confirm["params"]["requestedSchema"]["properties"]["ok"]["type"], "boolean",
        "{response}"
    );
    let state = result["requestState"].as_str().expect("a requestState");
    assert!(state.starts_with("v1."), "{state}");
    state.to_owned()
}

fn deployed_tool(response: &Value, target: &str) {
    assert!(response.get("error").is_none(), "{response}");
    assert_ne!(
        response["result"]["resultType"], "input_required",
        "{response}"
    );
    assert_eq!(
        response["result"]["content"][0]["text"],
        format!("Deployed to {target}"),
        "{response}"
    );
}

fn deployed_prompt(response: &Value, target: &str) {
    assert!(response.get("error").is_none(), "{response}");
    assert_ne!(
        response["result"]["resultType"], "input_required",
        "{response}"
    );
    assert_eq!(
        response["result"]["messages"][0]["content"]["text"],
        format!("Deployed to {target}"),
        "{response}"
    );
}

fn no_reason_on_the_wire(response: &Value) {
    let text = response.to_string().to_lowercase();
    for reason in REASONS {
        assert!(!text.contains(reason), "{reason:?} leaked: {response}");
    }
}

/// The one fixed refusal: -32602, the fixed message, no data, no reason.
fn assert_refused(response: &Value) {
    assert!(response.get("result").is_none(), "{response}");
    let error = &response["error"];
    assert_eq!(error["code"], -32602, "{response}");
    assert_eq!(error["message"], REFUSED, "{response}");
    assert!(error.get("data").is_none(), "{response}");
    no_reason_on_the_wire(response);
}

fn assert_internal_error(response: &Value) {
    assert!(response.get("result").is_none(), "{response}");
    assert_eq!(response["error"]["code"], -32603, "{response}");
    assert_eq!(response["error"]["message"], "Internal error", "{response}");
    no_reason_on_the_wire(response);
}

/// Asserts the refusal of `target` was logged with `reason`.
fn assert_refusal_logged(target: &str, reason: &str) {
    assert_logged(&[
        "refused requestState",
        &format!("target=\"{target}\""),
        reason,
    ]);
}

/// Changes one character in the middle of the signature.
fn change_one_char(state: &str) -> String {
    let i = state.len() - 10;
    let old = state.as_bytes()[i];
    let new = if old == b'A' { 'B' } else { 'A' };
    let mut changed = state.to_owned();
    changed.replace_range(i..=i, new.encode_utf8(&mut [0; 4]));
    assert_ne!(changed, state);
    changed
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn the_round_trip_completes_on_tools_and_prompts() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("round-trip"));
        let mut client = Client::connect(kind, fixture.server(signer_on(1, &clock), None)).await;

        let first = client.send(call(&fixture.tool, "staging", None)).await;
        let state = asked(&first);
        assert_eq!(fixture.runs(), 1);
        let done = client
            .send(call(&fixture.tool, "staging", Some(&state)))
            .await;
        deployed_tool(&done, "staging");
        assert_eq!(fixture.runs(), 2);

        // A verified state without the answer: the handler asks again.
        let mut unanswered = call(&fixture.tool, "staging", Some(&state));
        unanswered["params"]
            .as_object_mut()
            .unwrap()
            .remove("inputResponses");
        asked(&client.send(unanswered).await);
        assert_eq!(fixture.runs(), 3);

        let first = client
            .send(get_prompt(&fixture.prompt, "staging", None))
            .await;
        let state = asked(&first);
        let done = client
            .send(get_prompt(&fixture.prompt, "staging", Some(&state)))
            .await;
        deployed_prompt(&done, "staging");
        assert_eq!(fixture.runs(), 5);
    }
}

#[tokio::test]
async fn a_changed_character_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("one-char"));
        let mut client = Client::connect(kind, fixture.server(signer_on(2, &clock), None)).await;
        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);

        let refused = client
            .send(call(
                &fixture.tool,
                "staging",
                Some(&change_one_char(&state)),
            ))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 1, "the handler did not run");
        assert_refusal_logged(&fixture.tool, "signature does not verify");

        // The state itself was fine.
        deployed_tool(
            &client
                .send(call(&fixture.tool, "staging", Some(&state)))
                .await,
            "staging",
        );
    }
}

#[tokio::test]
async fn an_appended_suffix_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("suffix"));
        let mut client = Client::connect(kind, fixture.server(signer_on(3, &clock), None)).await;
        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);

        let tampered = format!("{state}-TAMPERED");
        let refused = client
            .send(call(&fixture.tool, "staging", Some(&tampered)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 1);
        assert_refusal_logged(&fixture.tool, "malformed");

        let prompt_state = asked(
            &client
                .send(get_prompt(&fixture.prompt, "staging", None))
                .await,
        );
        let refused = client
            .send(get_prompt(
                &fixture.prompt,
                "staging",
                Some(&format!("{prompt_state}-TAMPERED")),
            ))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 2);
        assert_refusal_logged(&fixture.prompt, "malformed");
    }
}

#[tokio::test]
async fn a_state_for_other_arguments_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("other-args"));
        let mut client = Client::connect(kind, fixture.server(signer_on(4, &clock), None)).await;

        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);
        let refused = client
            .send(call(&fixture.tool, "production", Some(&state)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 1);
        assert_refusal_logged(&fixture.tool, "signature does not verify");

        let state = asked(
            &client
                .send(get_prompt(&fixture.prompt, "staging", None))
                .await,
        );
        let refused = client
            .send(get_prompt(&fixture.prompt, "production", Some(&state)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 2);
        assert_refusal_logged(&fixture.prompt, "signature does not verify");
    }
}

#[tokio::test]
async fn a_state_for_another_tool_or_method_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("other-tool"));
        let mut client = Client::connect(kind, fixture.server(signer_on(5, &clock), None)).await;
        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);

        let refused = client
            .send(call(&fixture.other_tool, "staging", Some(&state)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 1);
        assert_refusal_logged(&fixture.other_tool, "signature does not verify");

        // Same arguments, another method.
        let refused = client
            .send(get_prompt(&fixture.prompt, "staging", Some(&state)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 1);
        assert_refusal_logged(&fixture.prompt, "signature does not verify");
    }
}

#[tokio::test]
async fn a_state_of_another_key_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("other-key"));
        let mut client = Client::connect(kind, fixture.server(signer_on(6, &clock), None)).await;

        // Another server under the same key id but another secret.
        let impostor = Fixture::new(&kind.label("other-key"));
        let mut impostor_client =
            Client::connect(kind, impostor.server(signer_on(66, &clock), None)).await;
        let foreign = asked(
            &impostor_client
                .send(call(&impostor.tool, "staging", None))
                .await,
        );
        let refused = client
            .send(call(&fixture.tool, "staging", Some(&foreign)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 0);
        assert_refusal_logged(&fixture.tool, "signature does not verify");

        // A server whose key has another id.
        let stranger = Fixture::new(&kind.label("other-key"));
        let stranger_signer = RequestStateSigner::new([67u8; 32])
            .unwrap()
            .with_clock(clock.clone());
        let mut stranger_client =
            Client::connect(kind, stranger.server(stranger_signer, None)).await;
        let foreign = asked(
            &stranger_client
                .send(call(&stranger.tool, "staging", None))
                .await,
        );
        let refused = client
            .send(call(&fixture.tool, "staging", Some(&foreign)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 0);
        assert_refusal_logged(&fixture.tool, "unknown key id");
    }
}

#[tokio::test]
async fn an_expired_state_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("expired"));
        let signer = signer_on(7, &clock).expires_after(Duration::from_secs(300));
        let mut client = Client::connect(kind, fixture.server(signer, None)).await;
        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);

        clock.advance(299);
        let still_valid = asked(&client.send(call(&fixture.tool, "staging", None)).await);
        clock.advance(1);
        let refused = client
            .send(call(&fixture.tool, "staging", Some(&state)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 2);
        assert_refusal_logged(&fixture.tool, "expired at 1000300 (now 1000300)");

        // The later state is still inside its own window.
        deployed_tool(
            &client
                .send(call(&fixture.tool, "staging", Some(&still_valid)))
                .await,
            "staging",
        );
    }
}

#[tokio::test]
async fn with_a_replay_guard_a_state_works_once() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("replay"));
        let server = fixture.server(signer_on(8, &clock), Some(clock.clone()));
        let mut client = Client::connect(kind, server).await;
        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);

        let first = client
            .send(call(&fixture.tool, "staging", Some(&state)))
            .await;
        deployed_tool(&first, "staging");
        assert_eq!(fixture.runs(), 2);
        // The same retry again (its answer lost, say): the recorded answer,
        // and the handler does not run again.
        let again = client
            .send(call(&fixture.tool, "staging", Some(&state)))
            .await;
        assert_eq!(again["result"], first["result"]);
        assert_eq!(fixture.runs(), 2, "the handler did not run again");
        // The same answers written otherwise (keys in another order, white
        // space): the same answers, so the recorded answer too.
        let retry = call(&fixture.tool, "staging", Some(&state));
        let written = retry.to_string().replace(
            r#""inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}"#,
            r#""inputResponses": { "confirm" : { "content":{ "ok" : true }, "action":"accept" } }"#,
        );
        assert_ne!(written, retry.to_string(), "the answers were rewritten");
        let rewritten = client.send_written(retry, written).await;
        assert_eq!(rewritten["result"], first["result"]);
        assert_eq!(fixture.runs(), 2, "the handler did not run again");
        // The same state with other answers: refused.
        let mut changed = call(&fixture.tool, "staging", Some(&state));
        changed["params"]["inputResponses"] = json!({"confirm": {"action": "decline"}});
        assert_refused(&client.send(changed).await);
        assert_eq!(fixture.runs(), 2, "the handler did not run again");
        assert_refusal_logged(&fixture.tool, "already used");

        // A fresh round gets a fresh state.
        let fresh = asked(&client.send(call(&fixture.tool, "staging", None)).await);
        assert_ne!(fresh, state);
        deployed_tool(
            &client
                .send(call(&fixture.tool, "staging", Some(&fresh)))
                .await,
            "staging",
        );
    }
}

#[tokio::test]
async fn with_the_outcome_record_off_a_second_use_is_refused() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("replay-off"));
        let guard = InMemoryReplayGuard::with_clock(clock.clone());
        let server = fixture.server_with(signer_on(8, &clock), Some(guard), OutcomeRecord::off());
        let mut client = Client::connect(kind, server).await;
        let state = asked(&client.send(call(&fixture.tool, "staging", None)).await);
        deployed_tool(
            &client
                .send(call(&fixture.tool, "staging", Some(&state)))
                .await,
            "staging",
        );
        let refused = client
            .send(call(&fixture.tool, "staging", Some(&state)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), 2, "the handler did not run again");
        assert_refusal_logged(&fixture.tool, "already used");
    }
}

#[tokio::test]
async fn a_full_replay_guard_refuses_new_retries_and_logs_why() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let fixture = Fixture::new(&kind.label("guard-full"));
        let guard = InMemoryReplayGuard::with_clock(clock.clone()).capacity(1);
        let signer = signer_on(9, &clock);
        let lifetime = signer.ttl().as_secs();
        let server = fixture.server_guarded(signer, Some(guard));
        let mut client = Client::connect(kind, server).await;

        // The first retry fills the guard.
        let first = asked(&client.send(call(&fixture.tool, "staging", None)).await);
        deployed_tool(
            &client
                .send(call(&fixture.tool, "staging", Some(&first)))
                .await,
            "staging",
        );
        // The next cannot be recorded: refused like a replay, and the
        // handler does not run.
        clock.advance(100);
        let second = asked(&client.send(call(&fixture.tool, "staging", None)).await);
        let runs = fixture.runs();
        let refused = client
            .send(call(&fixture.tool, "staging", Some(&second)))
            .await;
        assert_refused(&refused);
        assert_eq!(fixture.runs(), runs, "the handler did not run");
        assert_refusal_logged(&fixture.tool, "replay guard is full (1 unexpired states)");

        // Once the first state has expired, its room is free again.
        clock.set(1_000_000 + lifetime);
        deployed_tool(
            &client
                .send(call(&fixture.tool, "staging", Some(&second)))
                .await,
            "staging",
        );
    }
}

#[tokio::test]
async fn without_a_signer_the_raw_state_reaches_the_handler() {
    logs();
    for kind in KINDS {
        let name = format!("raw-{}", kind.label("unsigned"));
        let server = Server::builder("unsigned", "1.0.0")
            .tool(RawState { name: name.clone() })
            .build()
            .unwrap();
        let mut client = Client::connect(kind, server).await;

        let first = client
            .send(request("tools/call", &name, json!({}), None))
            .await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        assert_eq!(first["result"]["requestState"], "unsigned-state");

        let retry = client
            .send(request(
                "tools/call",
                &name,
                json!({}),
                Some("anything-goes"),
            ))
            .await;
        assert_eq!(
            retry["result"]["content"][0]["text"], "raw=anything-goes payload=false",
            "{retry}"
        );
    }
}

#[tokio::test]
async fn a_resume_value_on_a_server_without_a_signer_is_an_internal_error() {
    logs();
    for kind in KINDS {
        let fixture = Fixture::new(&kind.label("no-signer"));
        // `Deploy` hands back an unsigned resume value, which only a
        // server with a signer can sign.
        let server = Server::builder("unsigned", "1.0.0")
            .tool(Deploy {
                name: fixture.tool.clone(),
                runs: Arc::clone(&fixture.runs),
            })
            .build()
            .unwrap();
        let mut client = Client::connect(kind, server).await;
        let response = client.send(call(&fixture.tool, "staging", None)).await;
        assert_internal_error(&response);
        assert_eq!(fixture.runs(), 1, "the handler ran, its ask was refused");
        assert_logged(&[
            "a handler returned a resume state or asked with ctx.ask, but the server has no signer",
        ]);
    }
}

#[tokio::test]
async fn an_outgoing_state_that_does_not_verify_is_an_internal_error() {
    logs();
    for kind in KINDS {
        let clock = ManualClock::at(1_000_000);
        let label = kind.label("outgoing");
        let forgers = [
            (
                format!("forge-other-signer-{label}"),
                Forgery::OtherSigner(RequestStateSigner::generate().unwrap()),
            ),
            (format!("forge-made-up-{label}"), Forgery::MadeUp),
            (format!("forge-own-binding-{label}"), Forgery::OwnBinding),
        ];
        let names: Vec<String> = forgers.iter().map(|(n, _)| n.clone()).collect();
        let mut builder =
            Server::builder("forgers", "1.0.0").request_state_signer(signer_on(9, &clock));
        for (name, forgery) in forgers {
            builder = builder.tool(Forger { name, forgery });
        }
        let mut client = Client::connect(kind, builder.build().unwrap()).await;

        for name in &names {
            let response = client
                .send(request("tools/call", name, json!({}), None))
                .await;
            assert_internal_error(&response);
        }
    }
}

/// Posts `body` to `url`: the parsed response, within 20 s.
async fn post_bounded(url: String, body: Value) -> Value {
    tokio::time::timeout(
        Duration::from_secs(20),
        support::http::post_json(&url, body),
    )
    .await
    .expect("a response within 20 s")
}

/// A `hold` server with `outcomes` over HTTP, whose state's first use is
/// held in its handler.
struct Held {
    hold: Hold,
    _server: Running,
    url: String,
    /// The state the first use echoes.
    state: String,
    /// The first use's response, once released.
    first: tokio::task::JoinHandle<Value>,
}

impl Held {
    async fn start(outcomes: OutcomeRecord) -> Self {
        let hold = Hold::new();
        let server = serve(hold.server(outcomes)).await;
        let url = server.url.clone();
        let state = asked(&post_bounded(url.clone(), call("hold", "-", None)).await);
        let first = tokio::spawn(post_bounded(url.clone(), retry(&state)));
        tokio::time::timeout(Duration::from_secs(20), hold.entered.notified())
            .await
            .expect("the first use's round started");
        Self {
            hold,
            _server: server,
            url,
            state,
            first,
        }
    }

    /// The same retry again.
    fn duplicate(&self) -> impl Future<Output = Value> + Send + 'static {
        post_bounded(self.url.clone(), retry(&self.state))
    }

    /// Lets the first use end: its response.
    async fn release(&mut self) -> Value {
        self.hold.release.add_permits(1);
        let first = (&mut self.first).await.unwrap();
        assert_eq!(
            first["result"]["content"][0]["text"], "held, then done",
            "{first}"
        );
        first
    }
}

fn retry(state: &str) -> Value {
    call("hold", "-", Some(state))
}

#[tokio::test]
async fn a_duplicate_of_a_round_still_running_stops_waiting_at_its_bound() {
    logs();
    let wait = Duration::from_millis(200);
    let mut held = Held::start(OutcomeRecord::default().duplicate_wait(wait)).await;
    // The same retry while the first is held: it waits for the first's
    // answer at most `wait`, then gets -32603 (it may retry), without the
    // reason on the wire; the handler does not run for it.
    let started = std::time::Instant::now();
    assert_internal_error(&held.duplicate().await);
    let waited = started.elapsed();
    assert!(
        waited >= wait && waited < Duration::from_secs(10),
        "it waited {waited:?}"
    );
    assert_eq!(held.hold.runs(), 1);

    // Let go, the first use answers, and a later duplicate gets that answer.
    let first = held.release().await;
    assert_eq!(held.duplicate().await["result"], first["result"]);
    assert_eq!(held.hold.runs(), 1, "the handler ran once");
}

#[tokio::test]
async fn a_duplicate_of_a_round_still_running_gets_its_answer() {
    logs();
    let mut held = Held::start(OutcomeRecord::default()).await;
    let duplicates: Vec<_> = (0..3).map(|_| tokio::spawn(held.duplicate())).collect();
    // Let the duplicates find the round running (they get its answer
    // whether they arrive before or after it ends).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let first = held.release().await;
    for duplicate in duplicates {
        assert_eq!(duplicate.await.unwrap()["result"], first["result"]);
    }
    assert_eq!(held.hold.runs(), 1, "the handler ran once");
}
