//! A hand-written HTTP peer on 127.0.0.1 for the client's tests: a Tokio
//! `TcpListener` that reads each request (head and `Content-Length` body)
//! and lets the test write whatever bytes it likes back — valid MCP,
//! endless streams, garbage, nothing at all. Every request is recorded.
//! Each connection serves one request and is then closed.
//!
//! Also the JSON-RPC bodies such a peer answers with: a 2026-07-28
//! `server/discover` result, a 2025-era `initialize` result.
#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the peer received it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, `DELETE`.
    pub verb: String,
    /// Header names lowercased, values as sent.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::Null` when empty or not JSON).
    pub body: Value,
}

impl Request {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC method of the body, if any.
    pub fn method(&self) -> Option<&str> {
        self.body.get("method").and_then(Value::as_str)
    }

    /// The JSON-RPC id of the body (`Value::Null` if none).
    pub fn id(&self) -> Value {
        self.body.get("id").cloned().unwrap_or(Value::Null)
    }
}

type Handler =
    Arc<dyn Fn(Request, TcpStream) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// A running raw peer; stops accepting when dropped.
pub struct RawPeer {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// Every request received, in order.
    pub seen: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RawPeer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl RawPeer {
    /// Listens on a free port of 127.0.0.1 and answers each request with
    /// `handler`, which owns the connection.
    pub async fn start<F, Fut>(handler: F) -> Self
    where
        F: Fn(Request, TcpStream) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |r, s| Box::pin(handler(r, s)));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let (handler, record) = (Arc::clone(&handler), Arc::clone(&record));
                tokio::spawn(async move {
                    if let Some(request) = read_request(&mut stream).await {
                        record.lock().unwrap().push(request.clone());
                        handler(request, stream).await;
                    }
                });
            }
        });
        Self { url, seen, task }
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }

    /// How many POSTs with JSON-RPC `method` arrived.
    pub fn count(&self, method: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method() == Some(method))
            .count()
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 || buffer.len() > 64 * 1024 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let verb = lines.next()?.split(' ').next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Request {
        verb,
        headers,
        body,
    })
}

/// Writes a complete HTTP response with `status`, extra `headers` and a
/// JSON `body`, then closes the connection.
pub async fn write_json(
    mut stream: TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &Value,
) {
    let body = body.to_string();
    write_raw(
        &mut stream,
        status,
        "application/json",
        headers,
        body.as_bytes(),
    )
    .await;
}

/// Writes `202 Accepted` without a body.
pub async fn write_accepted(mut stream: TcpStream) {
    write_raw(&mut stream, 202, "application/json", &[], b"").await;
}

/// Writes a response of `content_type` with `body` and `Content-Length`.
pub async fn write_raw(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body).await;
    let _ = stream.flush().await;
}

/// Starts an SSE response (no length; the body runs until the
/// connection closes).
pub async fn start_sse(stream: &mut TcpStream) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.flush().await;
}

/// Writes one SSE event carrying `message`.
pub async fn write_event(stream: &mut TcpStream, message: &Value) -> std::io::Result<()> {
    stream
        .write_all(format!("data: {message}\n\n").as_bytes())
        .await?;
    stream.flush().await
}

/// A JSON-RPC result for `id`.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A JSON-RPC error for `id`.
pub fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A 2026-07-28 `server/discover` result offering tools.
pub fn discover_result(id: Value) -> Value {
    result(
        id,
        json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "raw", "version": "0"}},
        }),
    )
}

/// A 2025-11-25 `initialize` result.
pub fn initialize_result(id: Value) -> Value {
    result(
        id,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw-2025", "version": "0"},
        }),
    )
}

/// A `tools/call` result with one text block.
pub fn text_result(id: Value, text: &str) -> Value {
    result(id, json!({"content": [{"type": "text", "text": text}]}))
}

/// Answers the opening of a 2025-era session the way a 2025 server does:
/// `server/discover` is an unknown method, `initialize` gets the session
/// `session`, notifications and responses get 202, GET gets 405 when
/// `refuse_get`. Returns the stream back when the request is none of those.
pub async fn serve_2025_opening(
    request: &Request,
    stream: TcpStream,
    session: &str,
    refuse_get: bool,
) -> Option<TcpStream> {
    match (request.verb.as_str(), request.method()) {
        ("POST", Some("server/discover")) => {
            let body = error(request.id(), -32601, "Method not found");
            write_json(stream, 200, &[], &body).await;
        }
        ("POST", Some("initialize")) => {
            let body = initialize_result(request.id());
            write_json(stream, 200, &[("mcp-session-id", session)], &body).await;
        }
        ("POST", _) if request.body.get("id").is_none() || request.method().is_none() => {
            write_accepted(stream).await;
        }
        ("GET", _) if refuse_get => {
            let mut stream = stream;
            write_raw(&mut stream, 405, "text/plain", &[], b"").await;
        }
        _ => return Some(stream),
    }
    None
}
