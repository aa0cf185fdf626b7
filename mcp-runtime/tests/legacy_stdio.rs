//! 2025-era clients over stdio (in process, on pipes): `initialize` pins a
//! session to the connection, the bridge asks on stdout and reads the
//! answers from stdin, changes are written as they happen, and reading
//! never stalls in front of the answers a waiting request needs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::server::legacy::Bridge;
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::stdio::StdioTransport;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// The name form.
#[derive(ElicitForm)]
struct NameForm {
    /// Your name.
    name: String,
}

#[derive(Serialize, Deserialize)]
enum Step {
    Asked,
}

/// Asks a name, then greets.
#[tool]
async fn greet(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    match (step.into_inner(), ctx.answer::<NameForm>("name")) {
        (Some(Step::Asked), Answer::Accept(NameForm { name })) => {
            Reply::text(format!("Hello, {name}!"))
        }
        (Some(Step::Asked), _) => Reply::text("Hello, stranger."),
        (None, _) => Reply::ask("name", NameForm::form("Your name?")).resume(Step::Asked),
    }
}

/// Announces a change of the notes and of the tool list.
#[tool]
async fn touch(ctx: Ctx) -> String {
    ctx.changes().resource_updated("file:///notes.txt");
    ctx.changes().tools_list_changed();
    "touched".into()
}

/// The notes.
#[resource(uri = "file:///notes.txt", mime_type = "text/plain")]
async fn notes() -> String {
    "remember the milk".into()
}

/// A client on the other end of the pipes of a serving transport.
struct Pipe {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Pipe {
    fn start(max_in_flight: usize) -> Self {
        Self::start_with(max_in_flight, Bridge::default())
    }

    fn start_with(max_in_flight: usize, bridge: Bridge) -> Self {
        let server = Server::builder("stdio-legacy", "1.0.0")
            .bridge(bridge)
            .tool(greet {})
            .tool(touch {})
            .resource(notes {})
            .request_state_signer(RequestStateSigner::generate().unwrap())
            .build()
            .unwrap();
        let (input, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, output) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(
            StdioTransport::new(server)
                .max_in_flight(max_in_flight)
                .serve_on(BufReader::new(server_in), server_out),
        );
        Self {
            input,
            output: BufReader::new(output).lines(),
            serving,
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.input.write_all(line.as_bytes()).await.unwrap();
    }

    /// The next line the server writes (10 s at most).
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.output.next_line())
            .await
            .expect("the server wrote nothing for 10 s")
            .unwrap()
            .expect("the output ended");
        serde_json::from_str(&line).unwrap()
    }

    /// Whether the server writes nothing for `wait`.
    async fn silent_for(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.output.next_line())
            .await
            .is_err()
    }

    async fn initialize(&mut self, capabilities: Value) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "pipe", "version": "1"}}}),
        )
        .await;
        let answer = self.next().await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        answer
    }
}

fn call(id: i64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}})
}

#[tokio::test]
async fn a_round_is_bridged_over_the_pipes() {
    let mut pipe = Pipe::start(8);
    let answer = pipe.initialize(json!({"elicitation": {}})).await;
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    pipe.send(call(1, "greet")).await;
    let question = pipe.next().await;
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Your name?");
    pipe.send(json!({"jsonrpc": "2.0", "id": question["id"],
                     "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let done = pipe.next().await;
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!");
    assert!(done["result"].get("resultType").is_none(), "{done}");

    // A 2026-07-28 request on the same connection is served as one.
    pipe.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "greet", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}}),
    )
    .await;
    let modern = pipe.next().await;
    assert_eq!(modern["result"]["resultType"], "input_required", "{modern}");
}

#[tokio::test]
async fn an_answer_larger_than_the_bridge_keeps_ends_the_call_saying_so() {
    let mut pipe = Pipe::start_with(8, Bridge::default().max_answer_bytes(256));
    pipe.initialize(json!({"elicitation": {}})).await;
    pipe.send(call(1, "greet")).await;
    let question = pipe.next().await;
    assert_eq!(question["method"], "elicitation/create");
    let name = "n".repeat(1000);
    pipe.send(json!({"jsonrpc": "2.0", "id": question["id"],
                     "result": {"action": "accept", "content": {"name": name}}}))
        .await;
    let done = pipe.next().await;
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["isError"], true, "{done}");
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("this server takes at most 256"), "{text}");
}

#[tokio::test]
async fn responses_outside_a_session_or_unknown_are_ignored() {
    let mut pipe = Pipe::start(8);
    pipe.send(json!({"jsonrpc": "2.0", "id": 5, "result": {}}))
        .await;
    assert!(pipe.silent_for(Duration::from_millis(200)).await);
    pipe.initialize(json!({})).await;
    pipe.send(json!({"jsonrpc": "2.0", "id": 77, "result": {}}))
        .await;
    assert!(pipe.silent_for(Duration::from_millis(200)).await);
    pipe.send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(
        pipe.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
}

#[tokio::test]
async fn changes_are_written_as_they_happen() {
    let mut pipe = Pipe::start(8);
    pipe.initialize(json!({})).await;
    pipe.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                     "params": {"uri": "file:///notes.txt"}}),
    )
    .await;
    assert_eq!(pipe.next().await["id"], 1);
    pipe.send(call(2, "touch")).await;
    let mut seen = Vec::new();
    for _ in 0..3 {
        let message = pipe.next().await;
        seen.push(
            message["method"]
                .as_str()
                .map_or_else(|| format!("response {}", message["id"]), str::to_owned),
        );
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "notifications/resources/updated",
            "notifications/tools/list_changed",
            "response 2"
        ]
    );
}

#[tokio::test]
async fn a_request_behind_an_awaited_answer_is_refused_as_busy_not_left_unread() {
    let mut pipe = Pipe::start(1);
    pipe.initialize(json!({"elicitation": {}})).await;
    pipe.send(call(1, "greet")).await;
    let question = pipe.next().await;
    assert_eq!(question["method"], "elicitation/create");
    // The only slot waits for this client: the next request is refused...
    pipe.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    let busy = pipe.next().await;
    assert_eq!(busy["id"], 2);
    assert_eq!(busy["error"]["code"], -32603);
    assert!(
        busy["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Server busy"),
        "{busy}"
    );
    // ...and the answer behind it is still read.
    pipe.send(json!({"jsonrpc": "2.0", "id": question["id"],
                     "result": {"action": "accept", "content": {"name": "Bo"}}}))
        .await;
    assert_eq!(
        pipe.next().await["result"]["content"][0]["text"],
        "Hello, Bo!"
    );
    pipe.send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(pipe.next().await["id"], 3, "a free slot serves again");
}

#[tokio::test]
async fn end_of_input_ends_the_session_and_its_open_questions() {
    let mut pipe = Pipe::start(8);
    pipe.initialize(json!({"elicitation": {}})).await;
    pipe.send(call(1, "greet")).await;
    assert_eq!(pipe.next().await["method"], "elicitation/create");
    pipe.input.shutdown().await.unwrap();
    let done = pipe.next().await;
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["isError"], true);
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("session ended"), "{text}");
    tokio::time::timeout(Duration::from_secs(10), pipe.serving)
        .await
        .expect("the transport returns at end of input")
        .unwrap()
        .unwrap();
}
