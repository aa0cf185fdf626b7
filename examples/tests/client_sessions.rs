//! Our client's session behaviours against real peers: our own
//! `conformance-server` and `interop-server`, hand-written HTTP peers on
//! 127.0.0.1 (`raw_peer/`) and a `python3` stdio server. A 2025-era
//! session the server forgets is opened anew; `close` ends it with
//! `DELETE`; a stdio child dies with its client; log messages, URL steps
//! and roots requests reach the client's handlers; a 2026-07-28 list is
//! kept for its `ttlMs` and read again after it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
#![allow(deprecated)] // roots are deprecated in 2026-07-28, but a 2025-era session serves them

mod raw_peer;
mod support;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, ClientBuilder, Direction, Era, ServerNotification};
use mcp_runtime::schema::{
    CallToolResult, ContentBlock, ElicitResult, ListRootsResult, LoggingLevel, Root,
};
use raw_peer::RawPeer;
use serde_json::{Value, json};
use support::peer::Listening;

/// The bound on any step.
const BOUND: Duration = Duration::from_secs(20);

async fn bounded<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, future)
        .await
        .unwrap_or_else(|_| panic!("{what} took longer than {BOUND:?}"))
}

fn text(result: &CallToolResult) -> String {
    match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => panic!("no text content: {other:?} in {result:?}"),
    }
}

/// A 2025-era raw peer: each `initialize` opens session `s-N` (N counting
/// from 1); a `tools/call` in session `s-1` gets 404 (the server forgot
/// it), in any other session the text `ok in s-N`.
async fn forgetful_peer() -> RawPeer {
    let sessions = Arc::new(AtomicUsize::new(0));
    RawPeer::start(move |request, stream| {
        let sessions = Arc::clone(&sessions);
        async move {
            let session = match request.method() {
                Some("initialize") => sessions.fetch_add(1, Ordering::SeqCst) + 1,
                _ => sessions.load(Ordering::SeqCst),
            };
            let id = format!("s-{session}");
            let Some(mut stream) = raw_peer::serve_2025_opening(&request, stream, &id, true).await
            else {
                return;
            };
            let named = request.header("mcp-session-id").unwrap_or("").to_owned();
            match (request.verb.as_str(), request.method()) {
                ("POST", Some("tools/call")) if named == "s-1" => {
                    raw_peer::write_raw(&mut stream, 404, "text/plain", &[], b"no such session")
                        .await;
                }
                ("POST", Some("tools/call")) => {
                    let body = raw_peer::text_result(request.id(), &format!("ok in {named}"));
                    raw_peer::write_json(stream, 200, &[], &body).await;
                }
                _ => raw_peer::write_raw(&mut stream, 200, "text/plain", &[], b"").await,
            }
        }
    })
    .await
}

#[tokio::test]
async fn a_forgotten_session_is_opened_anew() {
    let peer = forgetful_peer().await;
    let client = bounded("connect", Client::http(&peer.url).connect())
        .await
        .expect("connect");
    assert_eq!(client.era(), Era::Legacy);
    let result = bounded("the call", client.call_tool("tool", None))
        .await
        .expect("the call succeeds in a new session");
    assert_eq!(text(&result), "ok in s-2");
    assert_eq!(peer.count("initialize"), 2, "{:?}", peer.requests());
    assert_eq!(peer.count("tools/call"), 2);
}

#[tokio::test]
async fn close_ends_the_session_with_delete() {
    let peer = forgetful_peer().await;
    let client = bounded("connect", Client::http(&peer.url).connect())
        .await
        .expect("connect");
    bounded("close", client.close()).await;
    let deletes: Vec<_> = peer
        .requests()
        .into_iter()
        .filter(|r| r.verb == "DELETE")
        .collect();
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    assert_eq!(deletes[0].header("mcp-session-id"), Some("s-1"));
}

#[tokio::test]
async fn dropping_the_client_ends_the_session_too() {
    let peer = forgetful_peer().await;
    let client = bounded("connect", Client::http(&peer.url).connect())
        .await
        .expect("connect");
    drop(client);
    let deadline = Instant::now() + BOUND;
    while !peer.requests().iter().any(|r| r.verb == "DELETE") {
        assert!(Instant::now() < deadline, "no DELETE after the drop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn roots_changes_are_announced_in_a_2025_session() {
    let peer = forgetful_peer().await;
    let client = bounded(
        "connect",
        Client::http(&peer.url)
            .on_roots(|| async { ListRootsResult::default() })
            .connect(),
    )
    .await
    .expect("connect");
    bounded("notify", client.notify_roots_changed())
        .await
        .expect("notify_roots_changed");
    let announced = peer
        .requests()
        .into_iter()
        .find(|r| r.method() == Some("notifications/roots/list_changed"))
        .expect("notifications/roots/list_changed reached the server");
    assert_eq!(announced.header("mcp-session-id"), Some("s-1"));
    assert!(
        announced.body.get("id").is_none(),
        "a notification has no id"
    );
}

/// A 2026-07-28 stdio server that writes its pid to the file `argv[1]`.
const PY_SERVER: &str = r#"
import json, os, sys
open(sys.argv[1], "w").write(str(os.getpid()))
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "server/discover":
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {}, "ttlMs": 0, "cacheScope": "private"}}) + "\n")
        sys.stdout.flush()
"#;

/// Whether process `pid` still runs (a zombie awaiting its reaping does
/// not: it was killed).
fn running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn a_stdio_child_is_gone_after_the_client_is_dropped() {
    let pid_file = std::env::temp_dir().join(format!("client-sessions-{}.pid", std::process::id()));
    let path = pid_file.display().to_string();
    let client = bounded(
        "connect",
        Client::stdio("python3", ["-c", PY_SERVER, path.as_str()]).connect(),
    )
    .await
    .expect("connect");
    let pid = std::fs::read_to_string(&pid_file).expect("the child wrote its pid");
    let _ = std::fs::remove_file(&pid_file);
    assert!(running(&pid), "the child {pid} runs while the client lives");
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(5);
    while running(&pid) {
        assert!(
            Instant::now() < deadline,
            "the child {pid} outlived its client"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn conformance_server() -> Listening {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-server"));
    command.args(["--listen", "127.0.0.1:0"]);
    Listening::spawn(command)
}

/// Calls `test_tool_with_logging` at level `info` and returns the log
/// messages `on_notification` received.
async fn logged(builder: ClientBuilder, era: Era) -> Vec<Value> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = bounded(
        "connect",
        builder
            .on_notification(move |n| {
                if let ServerNotification::Log(log) = n {
                    let _ = tx.send(log);
                }
            })
            .connect(),
    )
    .await
    .expect("connect");
    assert_eq!(client.era(), era);
    bounded("setLevel", client.set_log_level(LoggingLevel::Info))
        .await
        .expect("set_log_level");
    assert_eq!(client.log_level(), Some(LoggingLevel::Info));
    let result = bounded("the call", client.call_tool("test_tool_with_logging", None))
        .await
        .expect("the call");
    assert_eq!(text(&result), "Tool with logging executed successfully.");
    let mut messages = Vec::new();
    while messages.len() < 3 {
        let log = bounded("a log message", rx.recv()).await.expect("a log");
        assert_eq!(log.level, LoggingLevel::Info);
        messages.push(log.data);
    }
    messages
}

#[tokio::test]
async fn log_messages_reach_on_notification_in_both_eras() {
    let server = conformance_server();
    let expected = vec![
        json!("Tool execution started"),
        json!("Tool processing data"),
        json!("Tool execution completed"),
    ];
    let legacy = logged(Client::http(&server.url).pin_era(Era::Legacy), Era::Legacy).await;
    assert_eq!(legacy, expected, "2025 era");
    let modern = logged(Client::http(&server.url), Era::Modern).await;
    assert_eq!(modern, expected, "2026-07-28");
}

#[tokio::test]
async fn url_steps_and_their_completion_reach_the_handlers() {
    let (tx, mut completed) = tokio::sync::mpsc::unbounded_channel();
    let asked_ids = Arc::new(Mutex::new(Vec::new()));
    let (asked, urls) = (Arc::clone(&asked_ids), Arc::new(Mutex::new(Vec::new())));
    let seen_urls = Arc::clone(&urls);
    let client = bounded(
        "connect",
        Client::stdio(env!("CARGO_BIN_EXE_interop-server"), ["--stdio"])
            .pin_era(Era::Legacy)
            .on_elicit_url(move |params| {
                seen_urls.lock().unwrap().push(params.url);
                async { ElicitResult::accept(Default::default()) }
            })
            .on_notification(move |n| {
                if let ServerNotification::ElicitationComplete { elicitation_id } = n {
                    let _ = tx.send(elicitation_id);
                }
            })
            .on_message(move |direction, message| {
                if direction == Direction::Received && message["method"] == "elicitation/create" {
                    let id = message["params"]["elicitationId"].as_str().unwrap_or("");
                    asked.lock().unwrap().push(id.to_owned());
                }
            })
            .connect(),
    )
    .await
    .expect("connect");
    let mut arguments = serde_json::Map::new();
    arguments.insert("euros".into(), json!(5));
    let result = bounded("checkout", client.call_tool("checkout", Some(arguments)))
        .await
        .expect("checkout");
    assert_eq!(text(&result), "Paid 5 EUR.");
    let urls = urls.lock().unwrap().clone();
    assert!(
        matches!(urls.as_slice(), [url] if url.starts_with("https://pay.example.com/checkout/")),
        "{urls:?}"
    );
    let done = bounded("elicitation/complete", completed.recv())
        .await
        .expect("a notification");
    assert_eq!(asked_ids.lock().unwrap().as_slice(), [done]);
}

#[tokio::test]
async fn roots_list_is_answered_by_the_roots_handler_in_a_2025_session() {
    let server = conformance_server();
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    let client = bounded(
        "connect",
        Client::http(&server.url)
            .pin_era(Era::Legacy)
            .on_roots(move || {
                count.fetch_add(1, Ordering::SeqCst);
                async {
                    ListRootsResult {
                        roots: vec![Root {
                            uri: "file:///work/project".into(),
                            name: Some("project".into()),
                            meta: None,
                        }],
                    }
                }
            })
            .on_message(|direction, message| {
                if message["method"] == "roots/list" {
                    assert_eq!(direction, Direction::Received, "{message}");
                }
            })
            .connect(),
    )
    .await
    .expect("connect");
    let result = bounded(
        "the call",
        client.call_tool("test_input_required_result_list_roots", None),
    )
    .await
    .expect("the call");
    assert!(text(&result).contains("project"), "{result:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_list_is_kept_for_its_ttl_and_read_again_after() {
    let peer = RawPeer::start(|request, stream| async move {
        let body = match request.method() {
            Some("server/discover") => raw_peer::discover_result(request.id()),
            Some("tools/list") => raw_peer::result(
                request.id(),
                json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}], "ttlMs": 500}),
            ),
            _ => return raw_peer::write_accepted(stream).await,
        };
        raw_peer::write_json(stream, 200, &[], &body).await;
    })
    .await;
    let sent = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&sent);
    let client = bounded(
        "connect",
        Client::http(&peer.url)
            .on_message(move |direction, message| {
                if direction == Direction::Sent && message["method"] == "tools/list" {
                    count.fetch_add(1, Ordering::SeqCst);
                }
            })
            .connect(),
    )
    .await
    .expect("connect");
    let started = Instant::now();
    for _ in 0..3 {
        let tools = bounded("list", client.list_tools()).await.expect("list");
        assert_eq!(tools.len(), 1);
    }
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "too slow to test"
    );
    assert_eq!(sent.load(Ordering::SeqCst), 1, "kept within the TTL");
    tokio::time::sleep(Duration::from_millis(600)).await;
    bounded("list", client.list_tools()).await.expect("list");
    assert_eq!(sent.load(Ordering::SeqCst), 2, "read again after the TTL");
    assert_eq!(peer.count("tools/list"), 2);
}

#[tokio::test]
async fn a_list_with_an_enormous_ttl_is_kept_without_a_panic() {
    let peer = RawPeer::start(|request, stream| async move {
        let body = match request.method() {
            Some("server/discover") => raw_peer::discover_result(request.id()),
            Some("tools/list") => raw_peer::result(
                request.id(),
                json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}],
                       "ttlMs": u64::MAX}),
            ),
            _ => return raw_peer::write_accepted(stream).await,
        };
        raw_peer::write_json(stream, 200, &[], &body).await;
    })
    .await;
    let client = bounded("connect", Client::http(&peer.url).connect())
        .await
        .expect("connect");
    for _ in 0..2 {
        let tools = bounded("list", client.list_tools()).await.expect("list");
        assert_eq!(tools.len(), 1);
    }
    assert_eq!(peer.count("tools/list"), 1, "kept");
}
