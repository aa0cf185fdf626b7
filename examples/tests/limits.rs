//! Slow, idle and greedy peers against `conformance-server`, over real
//! sockets and pipes on 127.0.0.1: the bounds of the HTTP and stdio
//! transports hold, and what they refuse gets the right status.
//!
//! Every loop is bounded and every wait has a generous deadline; nothing
//! here asserts on speed. The short timeouts are configured on the server
//! so that closing by timeout happens within the test's time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

/// Bound for a connection to be closed by a timeout configured in seconds.
const CLOSE_BOUND: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------- raw HTTP

/// The head of a `POST /mcp` a well-behaved client sends, with `extra`
/// header lines and the given `Content-Length` (none when `None`).
fn head(port: u16, content_length: Option<usize>, extra: &str) -> String {
    let length = content_length.map_or_else(String::new, |n| format!("Content-Length: {n}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {PROTOCOL_VERSION}\r\n\
         Mcp-Method: tools/list\r\n{extra}{length}\r\n"
    )
}

/// A complete, valid `tools/list` request as raw bytes.
fn valid_request(port: u16) -> Vec<u8> {
    let body = serde_json::to_vec(&request(json!(1), "tools/list", Value::Null)).unwrap();
    let mut bytes = head(port, Some(body.len()), "").into_bytes();
    bytes.extend_from_slice(&body);
    bytes
}

fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the server");
    stream
        .set_read_timeout(Some(IO_TIMEOUT))
        .expect("set a read timeout");
    stream
}

/// A connection that sent a head, then 10 of the 100 body bytes it
/// declared.
fn short_body(port: u16) -> TcpStream {
    let mut stream = connect(port);
    stream
        .write_all(head(port, Some(100), "").as_bytes())
        .and_then(|()| stream.write_all(&[b' '; 10]))
        .expect("send a head and part of a body");
    stream
}

/// Reads until the server closes the connection (EOF or reset), within
/// `bound`. Returns what was read, or `None` if it was still open.
fn read_until_closed(stream: &mut TcpStream, bound: Duration) -> Option<Vec<u8>> {
    let deadline = Instant::now() + bound;
    let mut read = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        stream
            .set_read_timeout(Some(left.min(Duration::from_secs(1))))
            .expect("set a read timeout");
        match stream.read(&mut buf) {
            Ok(0) => return Some(read),
            Ok(n) => read.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return Some(read), // reset: closed
        }
    }
}

/// Whether the server still holds `stream` open: nothing to read yet and
/// no EOF.
fn still_open(stream: &mut TcpStream) -> bool {
    stream.set_nonblocking(true).expect("set non-blocking");
    let mut byte = [0u8; 1];
    let open = matches!(stream.read(&mut byte), Err(e) if e.kind() == ErrorKind::WouldBlock);
    stream.set_nonblocking(false).expect("set blocking");
    open
}

/// Reads one response whose body is framed by `Content-Length`; returns
/// its head and body.
fn read_response(stream: &mut TcpStream) -> (String, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + IO_TIMEOUT;
    loop {
        assert!(
            Instant::now() < deadline,
            "no whole response within {IO_TIMEOUT:?}"
        );
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
            let length = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if bytes.len() >= end + 4 + length {
                return (head, bytes[end + 4..end + 4 + length].to_vec());
            }
        }
        let n = stream.read(&mut buf).expect("read a response");
        assert!(
            n > 0,
            "closed before a whole response: {:?}",
            String::from_utf8_lossy(&bytes)
        );
        bytes.extend_from_slice(&buf[..n]);
    }
}

/// The status line's code of a raw response.
fn status_of(response: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(response);
    text.strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "not an HTTP/1.1 response: {:?}",
                &text[..text.len().min(200)]
            )
        })
}

/// Sends `bytes` on a fresh connection and returns the status of the
/// answer.
fn status_after_sending(port: u16, bytes: &[u8]) -> u16 {
    let mut stream = connect(port);
    stream.write_all(bytes).expect("send the request");
    let (head, _) = read_response(&mut stream);
    status_of(head.as_bytes())
}

/// Sends `bytes` on a fresh connection, then ends the sending side (the
/// body breaks off there), and returns the status of the answer, after
/// which the server closes.
fn status_after_breaking_off(port: u16, bytes: &[u8]) -> u16 {
    let mut stream = connect(port);
    stream.write_all(bytes).expect("send the request");
    let _ = stream.shutdown(Shutdown::Write);
    let response = read_until_closed(&mut stream, IO_TIMEOUT).expect("an answer, then close");
    status_of(&response)
}

// ---------------------------------------------------------------- HTTP tests

#[tokio::test(flavor = "multi_thread")]
async fn slow_bodies_are_cut_at_the_deadline_and_their_memory_is_freed() {
    const CONNECTIONS: usize = 200;
    const BODY: usize = 4 * 1024 * 1024;
    let server = HttpServer::spawn_with(&["--body-timeout-ms", "3000"]);
    let tools_list = request(json!(1), "tools/list", Value::Null);
    server.call_ok(&tools_list, "ListToolsResultResponse").await;
    let before = rss_bytes(server.pid());

    let port = server.port;
    let sent = Arc::new(AtomicUsize::new(0));
    // One buffer shared by every client: the test holds 4 MiB, not 800.
    let body = Arc::new(vec![b' '; BODY - 1]);
    let slow: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let sent = Arc::clone(&sent);
            let body = Arc::clone(&body);
            thread::spawn(move || {
                let mut stream = connect(port);
                // The whole body but its last byte, then silence. The server
                // may answer 408 (and close) before all of it is written.
                let _ = stream
                    .write_all(head(port, Some(BODY), "").as_bytes())
                    .and_then(|()| stream.write_all(&body));
                sent.fetch_add(1, Ordering::SeqCst);
                read_until_closed(&mut stream, CLOSE_BOUND)
            })
        })
        .collect();
    let deadline = Instant::now() + CLOSE_BOUND;
    while sent.load(Ordering::SeqCst) < CONNECTIONS && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let peak = rss_bytes(server.pid());
    // Served meanwhile.
    server.call_ok(&tools_list, "ListToolsResultResponse").await;

    let mut timed_out = 0;
    for connection in slow {
        let answer = connection
            .join()
            .expect("a slow client thread")
            .unwrap_or_else(|| panic!("a slow body was not cut within {CLOSE_BOUND:?}"));
        if !answer.is_empty() {
            assert_eq!(
                status_of(&answer),
                408,
                "{}",
                String::from_utf8_lossy(&answer)
            );
            timed_out += 1;
        }
    }
    assert!(timed_out > 0, "no slow body was answered 408");

    // What they held is given back (the allocator may keep a little).
    let margin = 48 * 1024 * 1024;
    let after = rss_settled(server.pid(), before + margin, Duration::from_secs(20)).await;
    eprintln!(
        "RSS: {} MiB before, {} MiB with {CONNECTIONS} slow bodies, {} MiB after",
        before >> 20,
        peak >> 20,
        after >> 20
    );
    assert!(
        after <= before + margin,
        "RSS {} MiB after the slow bodies left, {} MiB before",
        after >> 20,
        before >> 20
    );
    server.call_ok(&tools_list, "ListToolsResultResponse").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_half_header_and_short_body_connections_are_closed_by_their_timeouts() {
    let server =
        HttpServer::spawn_with(&["--header-timeout-ms", "1500", "--body-timeout-ms", "1500"]);
    let port = server.port;
    let mut connections = Vec::new();
    for i in 0..50 {
        // Sends nothing.
        connections.push(("idle", connect(port)));
        // Half a head.
        let mut half = connect(port);
        half.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
            .unwrap();
        connections.push(("half header", half));
        // A head, then 10 of 100 body bytes.
        connections.push(("short body", short_body(port)));
        // A whole exchange, then idle on the kept-alive connection.
        let mut kept = connect(port);
        kept.write_all(&valid_request(port)).unwrap();
        let (response_head, _) = read_response(&mut kept);
        assert!(
            response_head.starts_with("HTTP/1.1 200"),
            "{i}: {response_head}"
        );
        connections.push(("idle after a response", kept));
    }
    for (kind, mut stream) in connections {
        let answer = read_until_closed(&mut stream, CLOSE_BOUND).unwrap_or_else(|| {
            panic!("a connection ({kind}) was not closed within {CLOSE_BOUND:?}")
        });
        if kind == "short body" {
            assert_eq!(
                status_of(&answer),
                408,
                "{}",
                String::from_utf8_lossy(&answer)
            );
        } else {
            assert!(
                answer.is_empty(),
                "{kind}: {}",
                String::from_utf8_lossy(&answer)
            );
        }
    }
    let tools_list = request(json!(2), "tools/list", Value::Null);
    server.call_ok(&tools_list, "ListToolsResultResponse").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_is_answered_while_200_slow_connections_are_open() {
    let server =
        HttpServer::spawn_with(&["--header-timeout-ms", "60000", "--body-timeout-ms", "60000"]);
    let port = server.port;
    let mut slow = Vec::new();
    for _ in 0..100 {
        slow.push(connect(port));
        slow.push(short_body(port));
    }
    let tools_list = request(json!(3), "tools/list", Value::Null);
    server.call_ok(&tools_list, "ListToolsResultResponse").await;
    let open = slow.iter_mut().map(still_open).filter(|&open| open).count();
    assert_eq!(open, 200, "the slow connections were open meanwhile");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listen_stream_outlives_the_head_timeout() {
    let server = HttpServer::spawn_with(&["--header-timeout-ms", "500"]);
    let listen = request(
        json!("sub"),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let mut stream = reqwest::Client::new()
        .post(&server.url)
        .headers(
            headers_for(&listen)
                .iter()
                .map(|(n, v)| (n.parse().unwrap(), v.parse().unwrap()))
                .collect(),
        )
        .body(listen.to_string())
        .send()
        .await
        .expect("open the listen stream");
    assert_eq!(stream.status(), 200);
    let mut frames = String::new();
    let mut next_frame = async || -> Value {
        loop {
            if let Some(end) = frames.find("\n\n") {
                let frame: String = frames.drain(..end + 2).collect();
                if let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) {
                    return serde_json::from_str(data).expect("a JSON frame");
                }
                continue;
            }
            let chunk = tokio::time::timeout(IO_TIMEOUT, stream.chunk())
                .await
                .expect("a frame in time")
                .expect("the stream is readable")
                .expect("the stream is still open");
            frames.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    };
    let ack = next_frame().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // Four head timeouts later the stream is still there and carries a change.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let trigger = request(
        json!(7),
        "tools/call",
        json!({"name": "test_trigger_tool_change", "arguments": {}}),
    );
    let response = server.post(&trigger).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let change = next_frame().await;
    assert_eq!(
        change["method"], "notifications/tools/list_changed",
        "{change}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_beyond_the_cap_wait_and_are_served_once_one_closes() {
    let server =
        HttpServer::spawn_with(&["--max-connections", "4", "--header-timeout-ms", "60000"]);
    let port = server.port;
    // Four kept-alive connections, each served once: they hold the cap.
    let mut held: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut stream = connect(port);
            stream.write_all(&valid_request(port)).unwrap();
            let (response_head, _) = read_response(&mut stream);
            assert!(response_head.starts_with("HTTP/1.1 200"), "{response_head}");
            stream
        })
        .collect();
    // A fifth is not served while they are open.
    let mut waiting = connect(port);
    waiting.write_all(&valid_request(port)).unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut byte = [0u8; 1];
    assert!(
        matches!(waiting.read(&mut byte), Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)),
        "a fifth connection was served beyond a cap of 4"
    );
    // One leaves: the fifth is served.
    drop(held.pop());
    waiting.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    let (response_head, _) = read_response(&mut waiting);
    assert!(response_head.starts_with("HTTP/1.1 200"), "{response_head}");
    // And the server goes on serving.
    drop(held);
    let tools_list = request(json!(4), "tools/list", Value::Null);
    server.call_ok(&tools_list, "ListToolsResultResponse").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_stops_reading_its_answers_is_disconnected() {
    let server = HttpServer::spawn_with(&["--max-connections", "1", "--write-timeout-ms", "1000"]);
    let port = server.port;
    // One connection, the only one served, pipelines requests and reads
    // no answer: they pile up until the server's write waits on it.
    let mut stream = connect(port);
    stream
        .set_write_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let one = valid_request(port);
    let deadline = Instant::now() + CLOSE_BOUND;
    let disconnected = loop {
        if Instant::now() >= deadline {
            break false;
        }
        match stream.write_all(&one) {
            Ok(()) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break true, // reset or broken pipe: the server left
        }
    };
    assert!(
        disconnected,
        "a client that reads nothing kept its connection for {CLOSE_BOUND:?}"
    );
    // Its slot is free again.
    let tools_list = request(json!(8), "tools/list", Value::Null);
    server.call_ok(&tools_list, "ListToolsResultResponse").await;
}

#[test]
fn more_than_one_host_or_origin_is_400() {
    let server = HttpServer::spawn();
    let port = server.port;
    let body = serde_json::to_vec(&request(json!(5), "tools/list", Value::Null)).unwrap();
    for extra in [
        "Host: 127.0.0.1\r\n".to_owned(),
        format!("Origin: http://127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"),
    ] {
        let mut bytes = head(port, Some(body.len()), &extra).into_bytes();
        bytes.extend_from_slice(&body);
        assert_eq!(status_after_sending(port, &bytes), 400, "{extra:?}");
    }
    // One of each is fine.
    let extra = format!("Origin: http://127.0.0.1:{port}\r\n");
    let mut bytes = head(port, Some(body.len()), &extra).into_bytes();
    bytes.extend_from_slice(&body);
    assert_eq!(status_after_sending(port, &bytes), 200);
}

#[test]
fn a_truncated_body_or_a_broken_chunk_size_is_400() {
    let server = HttpServer::spawn();
    let port = server.port;
    // The client closes after 10 of 100 bytes.
    let mut truncated = head(port, Some(100), "").into_bytes();
    truncated.extend_from_slice(&[b' '; 10]);
    assert_eq!(status_after_breaking_off(port, &truncated), 400);
    // A chunk size that overflows.
    let mut overflow = head(port, None, "Transfer-Encoding: chunked\r\n").into_bytes();
    overflow.extend_from_slice(b"fffffffffffffffffffffffff\r\n{}\r\n0\r\n\r\n");
    assert_eq!(status_after_breaking_off(port, &overflow), 400);
}

#[test]
fn a_client_that_writes_a_16_mib_body_before_reading_reads_413() {
    let server = HttpServer::spawn();
    let port = server.port;
    let size = 16 * 1024 * 1024;
    let mut stream = connect(port);
    stream
        .write_all(head(port, Some(size), "").as_bytes())
        .and_then(|()| stream.write_all(&vec![b' '; size]))
        .expect("the whole body is taken, not reset");
    let answer = read_until_closed(&mut stream, IO_TIMEOUT).expect("the answer, then close");
    assert_eq!(
        status_of(&answer),
        413,
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let text = String::from_utf8_lossy(&answer).to_ascii_lowercase();
    assert!(text.contains("connection: close"), "{text}");
    // Chunked, without a declared length, the same.
    let mut stream = connect(port);
    let chunk = vec![b' '; 1024 * 1024];
    stream
        .write_all(head(port, None, "Transfer-Encoding: chunked\r\n").as_bytes())
        .unwrap();
    for _ in 0..16 {
        stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|()| stream.write_all(&chunk))
            .and_then(|()| stream.write_all(b"\r\n"))
            .expect("the whole chunked body is taken, not reset");
    }
    stream.write_all(b"0\r\n\r\n").unwrap();
    let answer = read_until_closed(&mut stream, IO_TIMEOUT).expect("the answer, then close");
    assert_eq!(
        status_of(&answer),
        413,
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[test]
fn a_300_kb_host_header_is_logged_cut() {
    let server = HttpServer::spawn();
    let port = server.port;
    let host = "h".repeat(300_000);
    let body = serde_json::to_vec(&request(json!(6), "tools/list", Value::Null)).unwrap();
    let mut bytes = head(port, Some(body.len()), "")
        .replacen(
            &format!("Host: 127.0.0.1:{port}"),
            &format!("Host: {host}"),
            1,
        )
        .into_bytes();
    bytes.extend_from_slice(&body);
    assert_eq!(status_after_sending(port, &bytes), 403);
    assert!(
        server.logged("(300000 bytes)"),
        "the refusal is logged with the host's length:\n{}",
        server.logs()
    );
    let longest = server.logs().lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 1024, "a log line of {longest} bytes");
}

// ---------------------------------------------------------------- stdio

#[test]
fn a_stdio_client_that_does_not_read_cannot_grow_the_server() {
    use std::process::{Command, Stdio};

    /// Kills the server if the test fails half-way.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    const REQUESTS: usize = 60_000;
    let child = Command::new(server_bin())
        .arg("--stdio")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn conformance-server --stdio");
    let mut child = Killed(child);
    let pid = child.0.id();
    let mut stdin = child.0.stdin.take().expect("stdin piped");
    let mut reader = std::io::BufReader::new(child.0.stdout.take().expect("stdout piped"));
    let mut line = String::new();
    // One exchange first, so that the baseline is a serving server.
    let mut first = request(json!("warm-up"), "tools/list", Value::Null).to_string();
    first.push('\n');
    stdin.write_all(first.as_bytes()).expect("write a request");
    std::io::BufRead::read_line(&mut reader, &mut line).expect("read its answer");
    assert!(line.contains("warm-up"), "{line}");
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let written = Arc::clone(&written);
        thread::spawn(move || {
            for id in 0..REQUESTS {
                let mut line = request(json!(id), "tools/list", Value::Null).to_string();
                line.push('\n');
                if stdin.write_all(line.as_bytes()).is_err() {
                    return;
                }
                written.fetch_add(1, Ordering::SeqCst);
            }
            // Dropping stdin ends the input.
        })
    };
    // Nobody reads: the writer stalls once the pipes and the server's
    // bounded queues are full. Wait until it stops making progress.
    let start_rss = rss_bytes(pid);
    let mut peak = start_rss;
    let mut last = usize::MAX;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        thread::sleep(Duration::from_millis(500));
        peak = peak.max(rss_bytes(pid));
        let now = written.load(Ordering::SeqCst);
        if now == last || now == REQUESTS || Instant::now() >= deadline {
            break;
        }
        last = now;
    }
    let stalled_at = written.load(Ordering::SeqCst);
    assert!(
        stalled_at < REQUESTS,
        "the server read all {REQUESTS} requests while nobody read its answers"
    );
    for _ in 0..4 {
        thread::sleep(Duration::from_millis(250));
        peak = peak.max(rss_bytes(pid));
    }
    eprintln!(
        "stdio: writer stalled after {stalled_at} requests; RSS {} MiB at start, {} MiB at most",
        start_rss >> 20,
        peak >> 20
    );
    assert!(
        peak < start_rss + 64 * 1024 * 1024,
        "RSS grew from {} MiB to {} MiB",
        start_rss >> 20,
        peak >> 20
    );

    // Now read: every request is answered once.
    let mut seen = vec![false; REQUESTS];
    let mut answered = 0;
    while answered < REQUESTS {
        line.clear();
        let n = std::io::BufRead::read_line(&mut reader, &mut line).expect("read stdout");
        assert!(n > 0, "stdout ended after {answered} answers");
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let id = message["id"].as_u64().expect("a response to a request") as usize;
        assert!(message.get("result").is_some(), "{message}");
        assert!(!seen[id], "request {id} answered twice");
        seen[id] = true;
        answered += 1;
    }
    writer.join().expect("the writer thread");
    let deadline = Instant::now() + IO_TIMEOUT;
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("wait for the server") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit at end of input"
        );
        thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
}
