//! Our client against hostile servers: hand-written HTTP peers on
//! 127.0.0.1 (see `raw_peer/`) and tiny `python3` stdio servers that break
//! the protocol on purpose. Each case checks the client's claims: bad
//! input gets a precise error naming the server and the request, never a
//! panic; nothing the server sends makes the client hold more than
//! `max_message_bytes` of one message or wait past its timeouts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod raw_peer;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, ClientError, ClientLimits, Direction, Era};
use mcp_runtime::schema::{ElicitResult, ElicitValue};
use raw_peer::{RawPeer, Request};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The small bound on one message these cases set: 64 KiB.
const LIMIT: usize = 64 * 1024;
/// The bound on any case's wait for the client.
const BOUND: Duration = Duration::from_secs(10);

fn limits() -> ClientLimits {
    let mut limits = ClientLimits::default();
    limits.max_message_bytes = LIMIT;
    limits.request_timeout = Duration::from_secs(5);
    limits
}

/// A 2026-07-28 peer: `server/discover` answered properly, every
/// `tools/call` by `misbehave`.
async fn modern_peer<F, Fut>(misbehave: F) -> RawPeer
where
    F: Fn(Request, TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let misbehave = Arc::new(misbehave);
    RawPeer::start(move |request, stream| {
        let misbehave = Arc::clone(&misbehave);
        async move {
            match request.method() {
                Some("server/discover") => {
                    let body = raw_peer::discover_result(request.id());
                    raw_peer::write_json(stream, 200, &[], &body).await;
                }
                Some("tools/call") => misbehave(request, stream).await,
                _ => raw_peer::write_accepted(stream).await,
            }
        }
    })
    .await
}

async fn connect(peer: &RawPeer, limits: ClientLimits) -> Client {
    let client = tokio::time::timeout(BOUND, Client::http(&peer.url).limits(limits).connect())
        .await
        .expect("connect within the bound")
        .expect("connect");
    assert_eq!(client.era(), Era::Modern);
    client
}

/// Calls `tool` and returns the error, failing when it succeeds or hangs.
async fn call_error(client: &Client) -> ClientError {
    match tokio::time::timeout(BOUND, client.call_tool("tool", None)).await {
        Ok(Err(error)) => error,
        Ok(Ok(result)) => panic!("the call succeeded: {result:?}"),
        Err(_) => panic!("the call hung past {BOUND:?}"),
    }
}

fn assert_names(error: &ClientError, url: &str) {
    let text = error.to_string();
    assert!(text.contains(url), "the error names no server: {text}");
    assert!(
        text.contains("tools/call"),
        "the error names no request: {text}"
    );
}

#[tokio::test]
async fn an_sse_event_that_never_ends_fails_at_the_limit() {
    let written = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicBool::new(false));
    let (w, f) = (Arc::clone(&written), Arc::clone(&finished));
    let peer = modern_peer(move |_, mut stream| {
        let (written, finished) = (Arc::clone(&w), Arc::clone(&f));
        async move {
            raw_peer::start_sse(&mut stream).await;
            let chunk = vec![b'x'; 8192];
            let mut sent = stream.write_all(b"data: ").await;
            // Up to 64 MiB of one event, or until the client hangs up.
            while sent.is_ok() && written.load(Ordering::SeqCst) < 64 << 20 {
                sent = stream.write_all(&chunk).await;
                if sent.is_ok() {
                    written.fetch_add(chunk.len(), Ordering::SeqCst);
                }
            }
            finished.store(true, Ordering::SeqCst);
        }
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::Transport(t) if t.contains(&format!("longer than {LIMIT} bytes"))),
        "{error:?}"
    );
    assert_names(&error, &peer.url);
    // The client hung up: the peer could not write its 64 MiB.
    let deadline = Instant::now() + BOUND;
    while !finished.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(finished.load(Ordering::SeqCst), "the peer is still writing");
    let sent = written.load(Ordering::SeqCst);
    assert!(sent < 32 << 20, "the client read {sent} bytes of one event");
}

#[tokio::test]
async fn a_json_body_over_the_limit_is_an_error() {
    let peer = modern_peer(|request, stream| async move {
        let body = raw_peer::text_result(request.id(), &"y".repeat(2 * LIMIT));
        raw_peer::write_json(stream, 200, &[], &body).await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::Transport(t) if t.contains(&format!("longer than {LIMIT} bytes"))),
        "{error:?}"
    );
    assert_names(&error, &peer.url);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let peer = modern_peer(|_, stream| async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(stream);
    })
    .await;
    let mut limits = limits();
    limits.request_timeout = Duration::from_millis(400);
    let client = connect(&peer, limits).await;
    let started = Instant::now();
    let error = call_error(&client).await;
    assert_eq!(error, ClientError::Timeout(Duration::from_millis(400)));
    assert!(started.elapsed() < Duration::from_secs(3), "{error}");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_precise_error() {
    let peer = modern_peer(|_, mut stream| async move {
        let body = b"<html>definitely not JSON-RPC</html>";
        raw_peer::write_raw(&mut stream, 200, "application/json", &[], body).await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::MalformedResponse(t) if t.contains("not JSON")),
        "{error:?}"
    );
    assert_names(&error, &peer.url);
}

#[tokio::test]
async fn an_answer_that_is_not_http_is_a_transport_error() {
    let peer = modern_peer(|_, mut stream| async move {
        let _ = stream
            .write_all(b"SSH-2.0-OpenSSH_9.6\r\n\x00\x01garbage\r\n\r\n")
            .await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(matches!(&error, ClientError::Transport(_)), "{error:?}");
    assert_names(&error, &peer.url);
}

#[tokio::test]
async fn a_response_with_the_wrong_id_is_an_error() {
    let peer = modern_peer(|_, stream| async move {
        let body = raw_peer::text_result(json!(987654), "not yours");
        raw_peer::write_json(stream, 200, &[], &body).await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::MalformedResponse(t) if t.contains("without the response")),
        "{error:?}"
    );
    assert_names(&error, &peer.url);
}

#[tokio::test]
async fn an_sse_stream_with_the_wrong_id_only_is_an_error() {
    let peer = modern_peer(|_, mut stream| async move {
        raw_peer::start_sse(&mut stream).await;
        let message = raw_peer::text_result(json!("someone-else"), "not yours");
        let _ = raw_peer::write_event(&mut stream, &message).await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::Transport(t) if t.contains("ended without its response")),
        "{error:?}"
    );
    assert_names(&error, &peer.url);
}

#[tokio::test]
async fn a_server_that_never_answers_a_notification_cannot_hang_connect() {
    // A 2025-era server that takes `notifications/initialized` and never
    // answers the POST.
    let peer = RawPeer::start(|request, stream| async move {
        if request.method() == Some("notifications/initialized") {
            tokio::time::sleep(Duration::from_secs(60)).await;
            drop(stream);
            return;
        }
        raw_peer::serve_2025_opening(&request, stream, "s-1", true).await;
    })
    .await;
    let mut limits = limits();
    limits.request_timeout = Duration::from_millis(400);
    let started = Instant::now();
    let connected = tokio::time::timeout(BOUND, Client::http(&peer.url).limits(limits).connect())
        .await
        .expect("connect hung past the bound");
    let error = connected.err().expect("connect fails");
    assert_eq!(error, ClientError::Timeout(Duration::from_millis(400)));
    assert!(started.elapsed() < Duration::from_secs(3), "{error}");
}

#[tokio::test]
async fn an_unreadable_error_object_is_a_precise_error() {
    let peer = modern_peer(|request, stream| async move {
        let body = json!({"jsonrpc": "2.0", "id": request.id(), "error": "boom"});
        raw_peer::write_json(stream, 200, &[], &body).await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::MalformedResponse(t) if t.contains("error object")),
        "{error:?}"
    );
    assert_names(&error, &peer.url);
}

/// An HTML error page longer than the client keeps of error bodies.
fn big_error_page() -> Vec<u8> {
    format!("<html><body>{}</body></html>", "Not here. ".repeat(1000)).into_bytes()
}

#[tokio::test]
async fn a_long_error_page_keeps_its_status() {
    let peer = modern_peer(|_, mut stream| async move {
        let page = big_error_page();
        raw_peer::write_raw(&mut stream, 500, "text/html", &[], &page).await;
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(&error, ClientError::HttpStatus { status: 500, body } if body.starts_with("<html>")),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_2025_server_with_a_long_error_page_for_discover_is_still_reached() {
    let peer = RawPeer::start(|request, mut stream| async move {
        if request.method() == Some("server/discover") {
            let page = big_error_page();
            raw_peer::write_raw(&mut stream, 400, "text/html", &[], &page).await;
            return;
        }
        if let Some(stream) = raw_peer::serve_2025_opening(&request, stream, "s-1", true).await {
            let body = raw_peer::text_result(request.id(), "ok");
            raw_peer::write_json(stream, 200, &[], &body).await;
        }
    })
    .await;
    let client = tokio::time::timeout(BOUND, Client::http(&peer.url).limits(limits()).connect())
        .await
        .expect("connect within the bound")
        .expect("connect falls back to initialize");
    assert_eq!(client.era(), Era::Legacy);
}

#[tokio::test]
async fn a_get_stream_closed_at_once_with_retry_zero_is_not_reopened_in_a_tight_loop() {
    let peer = RawPeer::start(|request, stream| async move {
        let Some(mut stream) = raw_peer::serve_2025_opening(&request, stream, "s-1", false).await
        else {
            return;
        };
        if request.verb == "GET" {
            raw_peer::start_sse(&mut stream).await;
            let _ = stream.write_all(b"id: 1\nretry: 0\ndata: \n\n").await;
        }
    })
    .await;
    let client = Client::http(&peer.url)
        .limits(limits())
        .connect()
        .await
        .expect("connect");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let gets = peer.requests().iter().filter(|r| r.verb == "GET").count();
    assert!((1..=20).contains(&gets), "{gets} GETs in one second");
    drop(client);
}

/// How many `elicitation/create` requests the flooding peer sends at once.
const FLOOD: usize = 12;

#[tokio::test]
async fn a_flood_of_server_requests_gets_busy_answers() {
    let peer = RawPeer::start(|request, stream| async move {
        let Some(mut stream) = raw_peer::serve_2025_opening(&request, stream, "s-1", false).await
        else {
            return;
        };
        if request.verb == "GET" {
            raw_peer::start_sse(&mut stream).await;
            for n in 0..FLOOD {
                let ask = json!({
                    "jsonrpc": "2.0", "id": format!("ask-{n}"), "method": "elicitation/create",
                    "params": {"mode": "form", "message": "name?", "requestedSchema":
                        {"type": "object", "properties": {"name": {"type": "string"}}}},
                });
                if raw_peer::write_event(&mut stream, &ask).await.is_err() {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
    })
    .await;
    let mut limits = limits();
    limits.max_server_requests = 2;
    let client = Client::http(&peer.url)
        .limits(limits)
        .on_elicit_form(|_| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            ElicitResult::accept([("name".to_owned(), ElicitValue::String("Ada".into()))].into())
        })
        .connect()
        .await
        .expect("connect");
    assert_eq!(client.era(), Era::Legacy);
    let answers = || -> Vec<Value> {
        peer.requests()
            .into_iter()
            .filter(|r| r.method().is_none() && r.body.get("id").is_some())
            .map(|r| r.body)
            .collect()
    };
    let deadline = Instant::now() + BOUND;
    while answers().len() < FLOOD && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let answers = answers();
    let accepted = answers.iter().filter(|a| a.get("result").is_some()).count();
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|a| a.get("error").is_some())
        .collect();
    assert_eq!(
        answers.len(),
        FLOOD,
        "every request answered once: {answers:?}"
    );
    assert_eq!(accepted, 2, "{answers:?}");
    assert!(
        refused.iter().all(|a| a["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("busy")),
        "{refused:?}"
    );
    drop(client);
}

// --- stdio --------------------------------------------------------------------------------

/// A tiny stdio server; `sys.argv[1]` says how it misbehaves when
/// `tools/call` comes (`long-line`, `noise`, `exit`, `endless`: 256 MiB
/// of one line, without its end; `flood`: twelve `elicitation/create` at
/// once, the call's result counting the answers) or whether it ignores
/// `server/discover` (`silent-discover`, a 2025-era server).
const PY_SERVER: &str = r#"
import json, sys
mode = sys.argv[1]
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    method, id = m.get("method"), m.get("id")
    if id is None:
        continue
    if method == "server/discover":
        if mode == "silent-discover":
            continue
        send({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
              "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
              "ttlMs": 0, "cacheScope": "private"}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "py", "version": "0"}}})
    elif method == "tools/call":
        if mode == "long-line":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id, "result":
                {"content": [{"type": "text", "text": "x" * 200000}]}}) + "\n")
        elif mode == "noise":
            sys.stdout.write("not json at all\n{\"broken\": \n\n[1, 2\n")
        elif mode == "exit":
            sys.exit(3)
        elif mode == "flood":
            for n in range(12):
                send({"jsonrpc": "2.0", "id": "ask-%d" % n, "method": "elicitation/create",
                      "params": {"mode": "form", "message": "name?", "requestedSchema":
                          {"type": "object", "properties": {"name": {"type": "string"}}}}})
            results = errors = 0
            while results + errors < 12:
                answer = json.loads(sys.stdin.readline())
                if "result" in answer: results += 1
                elif "error" in answer: errors += 1
            send({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text",
                  "text": "accepted=%d refused=%d" % (results, errors)}]}})
            continue
        elif mode == "endless":
            chunk = "x" * (1 << 20)
            for _ in range(256):
                sys.stdout.write(chunk)
        send({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "ok"}]}})
"#;

async fn py_client(mode: &str, limits: ClientLimits) -> Client {
    tokio::time::timeout(
        BOUND,
        Client::stdio("python3", ["-c", PY_SERVER, mode])
            .limits(limits)
            .connect(),
    )
    .await
    .expect("connect within the bound")
    .expect("connect")
}

async fn call_text(client: &Client) -> String {
    let result = tokio::time::timeout(BOUND, client.call_tool("tool", None))
        .await
        .expect("the call within the bound")
        .expect("the call");
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_stdio_line_over_the_limit_is_skipped() {
    let client = py_client("long-line", limits()).await;
    assert_eq!(call_text(&client).await, "ok");
}

#[tokio::test]
async fn stdio_lines_that_are_not_json_are_ignored() {
    let client = py_client("noise", limits()).await;
    assert_eq!(call_text(&client).await, "ok");
}

#[tokio::test]
async fn a_child_that_exits_before_answering_is_an_error_naming_it() {
    let client = py_client("exit", limits()).await;
    let error = call_error(&client).await;
    assert!(matches!(&error, ClientError::Transport(_)), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("python3") && text.contains("tools/call"),
        "{text}"
    );
}

#[tokio::test]
async fn a_stdio_flood_of_server_requests_gets_busy_answers() {
    let mut limits = limits();
    limits.max_server_requests = 2;
    let client = tokio::time::timeout(
        BOUND,
        Client::stdio("python3", ["-c", PY_SERVER, "flood"])
            .limits(limits)
            .pin_era(Era::Legacy)
            .on_elicit_form(|_| async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                ElicitResult::accept(
                    [("name".to_owned(), ElicitValue::String("Ada".into()))].into(),
                )
            })
            .connect(),
    )
    .await
    .expect("connect within the bound")
    .expect("connect");
    assert_eq!(call_text(&client).await, "accepted=2 refused=10");
}

#[tokio::test]
async fn a_child_writing_one_endless_line_times_out() {
    let mut limits = limits();
    limits.request_timeout = Duration::from_millis(800);
    let client = py_client("endless", limits).await;
    let error = call_error(&client).await;
    assert_eq!(error, ClientError::Timeout(Duration::from_millis(800)));
}

#[tokio::test]
async fn a_child_silent_to_discover_is_taken_for_2025() {
    let mut limits = limits();
    limits.discover_timeout = Duration::from_millis(300);
    let sent = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&sent);
    let started = Instant::now();
    let client = tokio::time::timeout(
        BOUND,
        Client::stdio("python3", ["-c", PY_SERVER, "silent-discover"])
            .limits(limits)
            .on_message(move |direction, message| {
                if direction == Direction::Sent
                    && let Some(method) = message["method"].as_str()
                {
                    log.lock().unwrap().push(method.to_owned());
                }
            })
            .connect(),
    )
    .await
    .expect("connect within the bound")
    .expect("connect");
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(client.era(), Era::Legacy);
    let sent = sent.lock().unwrap().clone();
    let discover = sent.iter().position(|m| m == "server/discover");
    let initialize = sent.iter().position(|m| m == "initialize");
    assert!(
        matches!((discover, initialize), (Some(d), Some(i)) if d < i),
        "{sent:?}"
    );
    assert_eq!(call_text(&client).await, "ok");
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    // Where the hostile server sends the client: it must hear nothing.
    let elsewhere = RawPeer::start(|request, stream| async move {
        let body = raw_peer::text_result(request.id(), "followed");
        raw_peer::write_json(stream, 200, &[], &body).await;
    })
    .await;
    let target = elsewhere.url.clone();
    let peer = modern_peer(move |_, stream| {
        let target = target.clone();
        async move {
            raw_peer::write_json(stream, 307, &[("location", &target)], &json!({})).await;
        }
    })
    .await;
    let client = connect(&peer, limits()).await;
    let error = call_error(&client).await;
    assert!(
        matches!(error, ClientError::HttpStatus { status: 307, .. }),
        "{error:?}"
    );
    assert!(
        elsewhere.requests().is_empty(),
        "the client followed the redirect"
    );
}
