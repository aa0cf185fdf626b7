//! With single use on Redis, a 2025-era client's bridged rounds cost Redis
//! nothing: the state between them never leaves the process, so it is
//! neither signed nor claimed. Counted with `MONITOR` on a redis-server of
//! the test's own: a bridged two-round call makes no more commands than a
//! plain call in the same session, while a 2026-07-28 client's retry of the
//! same tool (whose state did travel) is claimed there, which shows the
//! count sees the guard at work.

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::prelude::*;
use mcp_runtime::server::legacy::Session;
use mcp_runtime::state::{RedisReplayGuard, RequestStateSigner};
use mcp_runtime::transport::{
    Incoming, Notifier, ReceiveContext, Request, Response, TransportKind, parse_message,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;

#[path = "../../tests/fleet/redis_server.rs"]
mod redis_server;

use redis_server::Redis;

/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(ElicitForm)]
struct Name {
    /// Who to greet.
    name: String,
}

#[derive(Serialize, Deserialize)]
enum Step {
    AskedName,
}

/// Greets someone, asking their name first.
#[tool]
async fn greet(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    let ask = || Reply::ask("name", Name::form("Your name?")).resume(Step::AskedName);
    match step.into_inner() {
        None => ask(),
        Some(Step::AskedName) => match ctx.answer::<Name>("name") {
            Answer::Accept(Name { name }) => Reply::text(format!("Hello, {name}.")),
            _ => ask(),
        },
    }
}

/// Says hello.
#[tool]
async fn hello() -> String {
    "Hello.".to_owned()
}

/// Every command redis-server runs, as `MONITOR` reports it.
struct Monitor {
    lines: Arc<Mutex<Vec<String>>>,
    port: u16,
    marks: usize,
}

impl Monitor {
    fn start(redis: &Redis) -> Self {
        let mut stream = TcpStream::connect(("127.0.0.1", redis.port)).unwrap();
        stream.write_all(b"MONITOR\r\n").unwrap();
        let mut reader = BufReader::new(stream);
        let mut ok = String::new();
        reader.read_line(&mut ok).unwrap();
        assert_eq!(ok.trim(), "+OK");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in reader.lines() {
                let Ok(line) = line else { return };
                sink.lock().unwrap().push(line);
            }
        });
        Self {
            lines,
            port: redis.port,
            marks: 0,
        }
    }

    /// The commands other than the markers since the last call: a marker
    /// (`ECHO`) is sent on a connection of its own, and everything the
    /// monitor reported before it is taken.
    fn commands_since_last(&mut self) -> Vec<String> {
        self.marks += 1;
        let marker = format!("mark-{}", self.marks);
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .write_all(format!("ECHO {marker}\r\n").as_bytes())
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mut lines = self.lines.lock().unwrap();
            if let Some(at) = lines.iter().position(|l| l.contains(&marker)) {
                let taken: Vec<String> = lines.drain(..=at).collect();
                return taken
                    .into_iter()
                    .filter(|l| !l.contains("\"ECHO\""))
                    .collect();
            }
            drop(lines);
            assert!(Instant::now() < deadline, "the marker never showed");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn request(json: Value) -> Request {
    match parse_message(json.to_string().as_bytes()) {
        Ok(Incoming::Request(request)) => request,
        other => panic!("not a request: {other:?}"),
    }
}

fn result(response: &Response) -> Value {
    let body: Value = serde_json::from_str(&response.to_json()).unwrap();
    body.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("an error: {body}"))
}

fn receive() -> ReceiveContext {
    ReceiveContext::new(TransportKind::InProcess)
}

fn server(redis: &Redis) -> Server {
    Server::builder("greeter", "1.0.0")
        .tool(greet {})
        .tool(hello {})
        .request_state_signer(RequestStateSigner::new([9u8; 32]).unwrap())
        .replay_guard(RedisReplayGuard::new(&redis.url()).unwrap())
        .build()
        .unwrap()
}

async fn open_session(server: &Server) -> Session {
    let init = request(json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "counter", "version": "1"}
        }
    }));
    let response = server
        .handle_request(init, receive(), Notifier::disabled())
        .await;
    response.opened_session().cloned().expect("a session")
}

/// `tools/call` of `name` in `session`, answering each `elicitation/create`
/// the server asks on the request's stream with `answer`.
async fn call_in_session(server: &Server, session: &Session, id: i64, name: &str) -> Value {
    let (tx, mut rx) = mpsc::channel::<String>(8);
    let call = request(json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": {}}
    }));
    let handling = tokio::spawn({
        let (server, session) = (server.clone(), session.clone());
        async move {
            server
                .handle_session_request(call, receive(), session, Notifier::new(tx))
                .await
        }
    });
    while let Some(message) = rx.recv().await {
        let question: Value = serde_json::from_str(&message).unwrap();
        assert_eq!(question["method"], "elicitation/create", "{question}");
        let answer = json!({
            "jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": {"name": "Ada"}}
        });
        match parse_message(answer.to_string().as_bytes()) {
            Ok(Incoming::Response(response)) => session.deliver(response).unwrap(),
            other => panic!("not a response: {other:?}"),
        }
    }
    result(&handling.await.unwrap())
}

fn modern_call(id: i64, params: Value) -> Request {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    });
    request(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridged_rounds_make_no_more_redis_commands_than_a_plain_call() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let redis = Redis::start();
        let server = server(&redis);
        let mut monitor = Monitor::start(&redis);
        let session = open_session(&server).await;
        monitor.commands_since_last();

        let plain = call_in_session(&server, &session, 1, "hello").await;
        assert_eq!(plain["content"][0]["text"], "Hello.");
        let for_plain = monitor.commands_since_last();

        let bridged = call_in_session(&server, &session, 2, "greet").await;
        assert_eq!(bridged["content"][0]["text"], "Hello, Ada.");
        let for_bridged = monitor.commands_since_last();
        assert!(
            for_bridged.len() <= for_plain.len(),
            "a bridged two-round call made {} Redis commands, a plain call {}: {for_bridged:#?}",
            for_bridged.len(),
            for_plain.len()
        );

        // The same tool for a 2026-07-28 client: its state travels, and its
        // retry is claimed in Redis, which the monitor sees.
        let first = server
            .handle_request(
                modern_call(3, json!({"name": "greet", "arguments": {}})),
                receive(),
                Notifier::disabled(),
            )
            .await;
        let asked = result(&first);
        assert_eq!(asked["resultType"], "input_required", "{asked}");
        let retry = modern_call(
            4,
            json!({
                "name": "greet", "arguments": {},
                "requestState": asked["requestState"],
                "inputResponses": {"name": {"action": "accept", "content": {"name": "Bo"}}}
            }),
        );
        let done = result(
            &server
                .handle_request(retry, receive(), Notifier::disabled())
                .await,
        );
        assert_eq!(done["content"][0]["text"], "Hello, Bo.");
        let for_retry = monitor.commands_since_last();
        assert!(
            for_retry.len() > for_bridged.len(),
            "the retry's claim should show: {for_retry:#?}"
        );
    })
    .await
    .expect("the test timed out");
}
