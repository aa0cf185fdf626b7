//! Shared helpers for the black-box tests of the `conformance-server` binary:
//! spawning the server (HTTP or stdio), sending requests, and validating every
//! response against the spec's JSON Schema.
//!
//! Every wait is bounded by a generous timeout that fails the test with a clear
//! message (including the server's stderr) instead of hanging. No assertion is
//! about speed.
//!
//! Submodules: `peer` (an HTTP server process under test), `process` (bounded
//! helper programs and the examples), `redis` (a redis-server of the test's
//! own), `jwks` (an authorization server's metadata and signing keys), and
//! for the tests with other SDKs' peers `interop` (the
//! `tests/interop/` harnesses), `legacy_clients` (the 2025-era clients'
//! summary checks) and `peer_servers` (the other SDKs' servers that our
//! client is tested against).
#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub mod interop;
#[path = "../../../tests/auth/jwks_server.rs"]
pub mod jwks;
pub mod legacy_clients;
pub mod peer;
pub mod peer_servers;
pub mod process;
#[path = "../../../tests/fleet/redis_server.rs"]
pub mod redis;

/// The only protocol version these tests speak.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// Bound for the server to print its `listening on` line.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Bound for any single request/response exchange or line read.
pub const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// Bound for the stdio server to exit after stdin is closed.
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(30);

/// `_meta` key names.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key for client capabilities.
pub const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key for client info.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Result `_meta` key for server info.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Path of the server binary under test: this build's, unless
/// `MCP_TEST_SERVER_BIN` names another (to check a test fails against an
/// earlier build).
pub fn server_bin() -> &'static str {
    static BIN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        std::env::var("MCP_TEST_SERVER_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_conformance-server").to_owned())
    })
}

// ---------------------------------------------------------------------------------------------
// Message builders
// ---------------------------------------------------------------------------------------------

/// A complete, valid request `_meta` (version, empty client capabilities, client info).
pub fn valid_meta() -> Value {
    json!({
        META_VERSION: PROTOCOL_VERSION,
        META_CAPS: {},
        META_CLIENT_INFO: {"name": "mcp-examples-integration-tests", "version": "0.0.1"},
    })
}

/// A JSON-RPC request with `params` = `extra_params` plus a valid `_meta`.
/// `extra_params` must be an object (or null for "no other params").
pub fn request(id: Value, method: &str, extra_params: Value) -> Value {
    request_with_meta(id, method, extra_params, valid_meta())
}

/// A JSON-RPC request with `params` = `extra_params` plus the given `_meta`.
pub fn request_with_meta(id: Value, method: &str, extra_params: Value, meta: Value) -> Value {
    let mut params = match extra_params {
        Value::Null => serde_json::Map::new(),
        Value::Object(m) => m,
        other => panic!("test bug: extra_params must be an object, got {other}"),
    };
    params.insert("_meta".to_owned(), meta);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The headers a well-behaved HTTP client sends for `msg` (derived from its
/// `method` and `params.name` / `params.uri`).
pub fn headers_for(msg: &Value) -> Vec<(String, String)> {
    let method = msg.get("method").and_then(Value::as_str);
    let version = msg
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(PROTOCOL_VERSION);
    let mut h = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        (
            "Accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
        ("MCP-Protocol-Version".to_owned(), version.to_owned()),
    ];
    if let Some(m) = method {
        h.push(("Mcp-Method".to_owned(), m.to_owned()));
        let name = match m {
            "tools/call" | "prompts/get" => msg.pointer("/params/name"),
            "resources/read" => msg.pointer("/params/uri"),
            _ => None,
        };
        if let Some(n) = name.and_then(Value::as_str) {
            h.push(("Mcp-Name".to_owned(), n.to_owned()));
        }
    }
    h
}

/// Replace (or add) a header by case-insensitive name.
pub fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    remove_header(headers, name);
    headers.push((name.to_owned(), value.to_owned()));
}

/// Remove a header by case-insensitive name.
pub fn remove_header(headers: &mut Vec<(String, String)>, name: &str) {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
}

// ---------------------------------------------------------------------------------------------
// Schema validation
// ---------------------------------------------------------------------------------------------

/// Path of the spec's JSON Schema, relative to this crate (repo and `shared/` are siblings).
pub fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/2026-07-28/schema.json")
}

fn schema_defs() -> &'static Value {
    static DEFS: OnceLock<Value> = OnceLock::new();
    DEFS.get_or_init(|| {
        let path = schema_path();
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read spec schema {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("spec schema {} is not JSON: {e}", path.display()));
        schema
            .get("$defs")
            .cloned()
            .unwrap_or_else(|| panic!("spec schema {} has no $defs", path.display()))
    })
}

/// Validate `instance` against `$defs/<def_name>` of the spec schema (refs resolved
/// within the schema). Panics with every validation error on failure.
pub fn assert_schema(instance: &Value, def_name: &str) {
    let defs = schema_defs();
    assert!(
        defs.get(def_name).is_some(),
        "test bug: spec schema has no $defs entry {def_name:?}"
    );
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{def_name}"),
        "$defs": defs,
    });
    let validator = jsonschema::draft202012::new(&root)
        .unwrap_or_else(|e| panic!("cannot compile schema for {def_name}: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("  - at {:?}: {e}", e.instance_path.as_str()))
        .collect();
    assert!(
        errors.is_empty(),
        "response does not validate against $defs/{def_name}:\n{}\ninstance: {instance}",
        errors.join("\n")
    );
}

/// Assert that `resp` is a JSON-RPC error response with `code`, echoing `id`
/// (or, for `None`, having no `id` member at all), and that it validates against
/// `JSONRPCErrorResponse`, the typed error-response def for MCP codes, and the
/// typed `Error` def for standard JSON-RPC codes. Returns the `error` object.
pub fn assert_error_response(resp: &Value, code: i64, id: Option<&Value>) -> Value {
    let obj = resp
        .as_object()
        .unwrap_or_else(|| panic!("error response is not a JSON object: {resp}"));
    assert_eq!(
        obj.get("jsonrpc"),
        Some(&json!("2.0")),
        "jsonrpc must be \"2.0\": {resp}"
    );
    assert!(
        !obj.contains_key("result"),
        "error response must not carry result: {resp}"
    );
    let error = obj
        .get("error")
        .unwrap_or_else(|| panic!("expected a JSON-RPC error (code {code}), got: {resp}"));
    assert_eq!(
        error.get("code").and_then(Value::as_i64),
        Some(code),
        "wrong error code (expected {code}): {resp}"
    );
    assert!(
        error.get("message").is_some_and(Value::is_string),
        "error.message must be a string: {resp}"
    );
    match id {
        Some(id) => assert_eq!(
            obj.get("id"),
            Some(id),
            "error response must echo request id {id}: {resp}"
        ),
        None => assert!(
            !obj.contains_key("id"),
            "error response to a request without readable id must omit `id` (never null): {resp}"
        ),
    }
    assert_schema(resp, "JSONRPCErrorResponse");
    match code {
        -32020 => assert_schema(resp, "HeaderMismatchError"),
        -32021 => assert_schema(resp, "MissingRequiredClientCapabilityError"),
        -32022 => assert_schema(resp, "UnsupportedProtocolVersionError"),
        -32700 => assert_schema(error, "ParseError"),
        -32600 => assert_schema(error, "InvalidRequestError"),
        -32601 => assert_schema(error, "MethodNotFoundError"),
        -32602 => assert_schema(error, "InvalidParamsError"),
        -32603 => assert_schema(error, "InternalError"),
        _ => {}
    }
    error.clone()
}

/// Assert that `resp` is a successful response to `id`, validate it against
/// `$defs/<response_def>`, and return its `result`.
pub fn assert_result_response(resp: &Value, id: &Value, response_def: &str) -> Value {
    let obj = resp
        .as_object()
        .unwrap_or_else(|| panic!("response is not a JSON object: {resp}"));
    assert!(
        !obj.contains_key("error"),
        "expected a result, got an error: {resp}"
    );
    assert_eq!(
        obj.get("jsonrpc"),
        Some(&json!("2.0")),
        "jsonrpc must be \"2.0\": {resp}"
    );
    assert_eq!(
        obj.get("id"),
        Some(id),
        "response must echo request id {id}: {resp}"
    );
    let result = obj
        .get("result")
        .unwrap_or_else(|| panic!("response has no result: {resp}"));
    assert_eq!(
        result.get("resultType"),
        Some(&json!("complete")),
        "result must have resultType \"complete\": {resp}"
    );
    assert_schema(resp, response_def);
    result.clone()
}

// --- fixture checks shared by both transports ---------------------------------------------------

/// Checks on a `server/discover` result.
pub fn check_discover_result(result: &Value) {
    let versions = result["supportedVersions"]
        .as_array()
        .unwrap_or_else(|| panic!("supportedVersions must be an array: {result}"));
    assert!(
        versions.contains(&json!(PROTOCOL_VERSION)),
        "supportedVersions must contain {PROTOCOL_VERSION}: {result}"
    );
    for cap in ["tools", "prompts", "resources"] {
        assert!(
            result["capabilities"][cap].is_object(),
            "capabilities.{cap} must be an object: {result}"
        );
    }
    check_cacheable(result);
    let info = &result["_meta"][META_SERVER_INFO];
    assert!(
        info["name"].as_str().is_some_and(|s| !s.is_empty()),
        "serverInfo.name missing: {result}"
    );
    assert!(
        info["version"].as_str().is_some_and(|s| !s.is_empty()),
        "serverInfo.version missing: {result}"
    );
}

/// `ttlMs` is a non-negative integer and `cacheScope` is public/private.
pub fn check_cacheable(result: &Value) {
    assert!(
        result["ttlMs"].as_u64().is_some(),
        "ttlMs must be a non-negative integer: {result}"
    );
    let scope = result["cacheScope"].as_str();
    assert!(
        matches!(scope, Some("public" | "private")),
        "cacheScope must be \"public\" or \"private\": {result}"
    );
}

/// Checks on a `tools/list` result: the three fixtures are listed with description
/// and an object input schema.
pub fn check_tools_list_result(result: &Value) {
    let tools = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools must be an array: {result}"));
    for name in [
        "test_simple_text",
        "test_image_content",
        "test_error_handling",
    ] {
        let tool = tools
            .iter()
            .find(|t| t["name"] == json!(name))
            .unwrap_or_else(|| panic!("tools/list does not list {name}: {result}"));
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "tool {name} needs a non-empty description: {tool}"
        );
        assert_eq!(
            tool["inputSchema"]["type"],
            json!("object"),
            "tool {name} inputSchema.type: {tool}"
        );
    }
    check_cacheable(result);
}

/// `test_simple_text` result: a non-empty text item, not an error.
pub fn check_simple_text_result(result: &Value) {
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("content array: {result}"));
    let text = content
        .iter()
        .find(|c| c["type"] == json!("text"))
        .unwrap_or_else(|| panic!("test_simple_text must return a text item: {result}"));
    assert!(
        text["text"].as_str().is_some_and(|t| !t.is_empty()),
        "text must be non-empty: {result}"
    );
    assert_ne!(
        result.get("isError"),
        Some(&json!(true)),
        "test_simple_text must not be an error: {result}"
    );
}

/// `test_image_content` result: an image item, `image/png`, base64 of a PNG.
pub fn check_image_result(result: &Value) {
    use base64::Engine as _;
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("content array: {result}"));
    let image = content
        .iter()
        .find(|c| c["type"] == json!("image"))
        .unwrap_or_else(|| panic!("test_image_content must return an image item: {result}"));
    assert_eq!(
        image["mimeType"],
        json!("image/png"),
        "image mimeType: {result}"
    );
    let data = image["data"]
        .as_str()
        .unwrap_or_else(|| panic!("image.data string: {result}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap_or_else(|e| panic!("image.data is not standard base64 ({e}): {data}"));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image.data does not decode to a PNG (first bytes {:?})",
        &bytes[..bytes.len().min(8)]
    );
}

/// `test_error_handling` result: `isError: true` and a text item.
pub fn check_error_handling_result(result: &Value) {
    assert_eq!(
        result["isError"],
        json!(true),
        "test_error_handling must set isError:true: {result}"
    );
    assert_eq!(
        result["content"][0]["type"],
        json!("text"),
        "content[0] must be text: {result}"
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "content[0].text must be non-empty: {result}"
    );
}

/// `test_simple_prompt` result: non-empty messages with role and content.
pub fn check_simple_prompt_result(result: &Value) {
    let messages = result["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("messages array: {result}"));
    assert!(
        !messages.is_empty(),
        "test_simple_prompt must return messages: {result}"
    );
    for m in messages {
        assert!(
            matches!(m["role"].as_str(), Some("user" | "assistant")),
            "message role: {m}"
        );
        assert!(m["content"]["type"].is_string(), "message content: {m}");
    }
}

/// `resources/read test://static-text` result.
pub fn check_static_text_result(result: &Value) {
    let contents = result["contents"]
        .as_array()
        .unwrap_or_else(|| panic!("contents array: {result}"));
    assert!(!contents.is_empty(), "contents must not be empty: {result}");
    assert_eq!(
        contents[0]["uri"],
        json!("test://static-text"),
        "contents[0].uri: {result}"
    );
    assert_eq!(
        contents[0]["mimeType"],
        json!("text/plain"),
        "contents[0].mimeType: {result}"
    );
    assert!(
        contents[0]["text"].as_str().is_some_and(|t| !t.is_empty()),
        "contents[0].text must be non-empty: {result}"
    );
    check_cacheable(result);
}

// ---------------------------------------------------------------------------------------------
// Process plumbing
// ---------------------------------------------------------------------------------------------

/// The resident set size of process `pid`, in bytes, from
/// `/proc/PID/status` (Linux).
pub fn rss_bytes(pid: u32) -> u64 {
    status_bytes(pid, "VmRSS")
}

/// The peak resident set size of process `pid` so far (`VmHWM`), in bytes.
pub fn peak_rss_bytes(pid: u32) -> u64 {
    status_bytes(pid, "VmHWM")
}

/// A size in `/proc/PID/status` (given there in KiB), in bytes.
fn status_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("cannot read /proc/{pid}/status: {e}"));
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    kib * 1024
}

/// The resident set size of process `pid` once it is at most `ceiling`
/// (what was freed given back), or as it is after `within`.
pub async fn rss_settled(pid: u32, ceiling: u64, within: Duration) -> u64 {
    let deadline = Instant::now() + within;
    loop {
        let now = rss_bytes(pid);
        if now <= ceiling || Instant::now() >= deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The response among the events of an event-stream body (a priming event,
/// with empty data, carries none), if there is one.
pub fn response_in_events(body: &str) -> Option<Value> {
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            (!data.iter().all(|d| d.is_empty())).then(|| data.join("\n"))
        })
        .map(|data| {
            serde_json::from_str::<Value>(&data)
                .unwrap_or_else(|e| panic!("an event's data is not JSON ({e}): {data:.300}"))
        })
        .find(|message| message.get("method").is_none() && message.get("id").is_some())
}

/// Drains the child's stderr into a shared buffer; reports the first
/// `listening on http://...` URL through `url_tx` (if any).
fn drain_stderr(
    stderr: impl Read + Send + 'static,
    logs: Arc<Mutex<String>>,
    url_tx: Option<mpsc::Sender<String>>,
) {
    thread::spawn(move || {
        let mut reader = BufReader::new(stderr);
        let mut url_tx = url_tx;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if let Some(tx) = url_tx.as_ref()
                        && let Some(url) = parse_listening_url(&line)
                    {
                        let _ = tx.send(url);
                        url_tx = None;
                    }
                    if let Ok(mut l) = logs.lock() {
                        l.push_str(&line);
                    }
                }
            }
        }
    });
}

fn parse_listening_url(line: &str) -> Option<String> {
    let start = line.find("listening on http://")? + "listening on ".len();
    let url: String = line[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || ":/.-_[]".contains(*c))
        .collect();
    Some(url)
}

fn logs_of(logs: &Arc<Mutex<String>>) -> String {
    logs.lock().map(|l| l.clone()).unwrap_or_default()
}

fn kill_child(child: &mut Child) {
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
    }
    let _ = child.wait();
}

// ---------------------------------------------------------------------------------------------
// HTTP server
// ---------------------------------------------------------------------------------------------

/// A running `conformance-server --listen 127.0.0.1:0`; killed on drop.
pub struct HttpServer {
    process: peer::Listening,
    /// `http://127.0.0.1:PORT/mcp`
    pub url: String,
    /// The OS-chosen port.
    pub port: u16,
    client: reqwest::Client,
}

/// An HTTP response, fully read.
#[derive(Debug)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Response headers.
    pub headers: reqwest::header::HeaderMap,
    /// Body as text.
    pub body: String,
}

impl HttpServer {
    /// Spawn with default flags.
    pub fn spawn() -> Self {
        Self::spawn_with(&[])
    }

    /// Spawn with extra flags (e.g. `["--max-body-bytes", "1024"]`).
    pub fn spawn_with(extra: &[&str]) -> Self {
        let mut command = Command::new(server_bin());
        command.args(["--listen", "127.0.0.1:0"]).args(extra);
        let process = peer::Listening::spawn(command);
        let url = process.url.clone();
        let port = url
            .strip_prefix("http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|p| p.parse::<u16>().ok())
            .unwrap_or_else(|| {
                panic!("unexpected listening URL {url:?} (want http://127.0.0.1:PORT/mcp)")
            });
        assert_ne!(port, 0, "server reported port 0");
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(IO_TIMEOUT)
            .build()
            .unwrap_or_else(|e| panic!("cannot build HTTP client: {e}"));
        HttpServer {
            process,
            url,
            port,
            client,
        }
    }

    /// The server's stderr so far.
    pub fn logs(&self) -> String {
        self.process.logs()
    }

    /// Whether the server's stderr contains `needle`, waiting (bounded)
    /// for the line to arrive.
    pub fn logged(&self, needle: &str) -> bool {
        self.process.logged(needle)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.process.child.id()
    }

    /// Send an arbitrary request to `/mcp`.
    pub async fn send(
        &self,
        method: reqwest::Method,
        headers: &[(String, String)],
        body: impl Into<Vec<u8>>,
    ) -> HttpResponse {
        let mut req = self.client.request(method.clone(), &self.url);
        for (n, v) in headers {
            req = req.header(n.as_str(), v.as_str());
        }
        let body: Vec<u8> = body.into();
        if !body.is_empty() {
            req = req.body(body);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => panic!(
                "{method} {} failed: {e}\nserver stderr:\n{}",
                self.url,
                self.logs()
            ),
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = match resp.text().await {
            Ok(b) => b,
            Err(e) => panic!(
                "reading response body failed: {e}\nserver stderr:\n{}",
                self.logs()
            ),
        };
        HttpResponse {
            status,
            headers,
            body,
        }
    }

    /// POST a raw body with the given headers.
    pub async fn post_raw(
        &self,
        headers: &[(String, String)],
        body: impl Into<Vec<u8>>,
    ) -> HttpResponse {
        self.send(reqwest::Method::POST, headers, body).await
    }

    /// POST `msg` with the headers a correct client would send.
    pub async fn post(&self, msg: &Value) -> HttpResponse {
        self.post_with(msg, headers_for(msg)).await
    }

    /// POST `msg` with explicit headers.
    pub async fn post_with(&self, msg: &Value, headers: Vec<(String, String)>) -> HttpResponse {
        self.post_raw(&headers, serde_json::to_vec(msg).unwrap_or_default())
            .await
    }

    /// POST `msg` (correct headers), expect HTTP 200 with a successful result validating
    /// against `response_def`; returns the `result`.
    pub async fn call_ok(&self, msg: &Value, response_def: &str) -> Value {
        let resp = self.post(msg).await;
        resp.expect_result(&msg["id"], response_def)
    }
}

impl HttpServer {
    /// Sends SIGTERM and waits (bounded) for the process to exit.
    pub fn terminate(&mut self) -> ExitStatus {
        let pid = self.process.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(
            sent.is_ok_and(|s| s.success()),
            "could not send SIGTERM to {pid}"
        );
        wait_bounded(&mut self.process.child, "SIGTERM", &self.process.logs)
    }
}

/// Waits up to `EXIT_TIMEOUT` for `child` to exit after `cause`.
fn wait_bounded(child: &mut Child, cause: &str, logs: &Arc<Mutex<String>>) -> ExitStatus {
    let deadline = Instant::now() + EXIT_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            Ok(None) => panic!(
                "server did not exit within {EXIT_TIMEOUT:?} after {cause}; stderr:\n{}",
                logs_of(logs)
            ),
            Err(e) => panic!("waiting for server failed: {e}"),
        }
    }
}

impl HttpResponse {
    /// The `Content-Type` header (empty if absent).
    pub fn content_type(&self) -> String {
        self.headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    }

    /// Parse the body as one JSON value (asserting it is compact, single-line
    /// `application/json`).
    pub fn json(&self) -> Value {
        let ct = self.content_type();
        assert!(
            ct.to_ascii_lowercase().starts_with("application/json"),
            "expected Content-Type application/json, got {ct:?} (status {}); body: {}",
            self.status,
            self.body
        );
        assert!(
            !self.body.trim_end_matches(['\r', '\n']).contains('\n'),
            "response body must be compact single-line JSON, got:\n{}",
            self.body
        );
        serde_json::from_str(&self.body).unwrap_or_else(|e| {
            panic!(
                "response body is not JSON ({e}); status {}: {:?}",
                self.status, self.body
            )
        })
    }

    /// Expect `status` and a JSON-RPC error `code` echoing `id` (or no `id`).
    /// Returns the `error` object.
    pub fn expect_error(&self, status: u16, code: i64, id: Option<&Value>) -> Value {
        assert_eq!(
            self.status, status,
            "expected HTTP {status} with JSON-RPC error {code}; got HTTP {} body {:?}",
            self.status, self.body
        );
        let v = self.json();
        assert_error_response(&v, code, id)
    }

    /// Expect HTTP 200 with a result for `id` validating against `response_def`.
    pub fn expect_result(&self, id: &Value, response_def: &str) -> Value {
        assert_eq!(
            self.status, 200,
            "expected HTTP 200 with a result; got HTTP {} body {:?}",
            self.status, self.body
        );
        let v = self.json();
        assert_result_response(&v, id, response_def)
    }
}

// ---------------------------------------------------------------------------------------------
// stdio server
// ---------------------------------------------------------------------------------------------

/// A running `conformance-server --stdio`; killed on drop.
pub struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    logs: Arc<Mutex<String>>,
    /// Every stdout line seen so far (for the "only JSON on stdout" check).
    seen: Arc<Mutex<Vec<String>>>,
}

impl StdioServer {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Spawn `conformance-server --stdio`.
    pub fn spawn() -> Self {
        Self::spawn_with(&[])
    }

    /// Spawn `conformance-server --stdio` with `extra` flags.
    pub fn spawn_with(extra: &[&str]) -> Self {
        let mut child = Command::new(server_bin())
            .arg("--stdio")
            .args(extra)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", server_bin()));
        let logs = Arc::new(Mutex::new(String::new()));
        let stderr = child
            .stderr
            .take()
            .unwrap_or_else(|| panic!("child stderr not piped"));
        drain_stderr(stderr, Arc::clone(&logs), None);
        let stdout = child
            .stdout
            .take()
            .unwrap_or_else(|| panic!("child stdout not piped"));
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = Arc::clone(&seen);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).into_owned();
                        if let Ok(mut s) = seen2.lock() {
                            s.push(line.clone());
                        }
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        StdioServer {
            child,
            stdin,
            lines,
            logs,
            seen,
        }
    }

    /// The server's stderr so far.
    pub fn logs(&self) -> String {
        logs_of(&self.logs)
    }

    /// Write `text` verbatim to stdin.
    pub fn write_raw(&mut self, text: &str) {
        let logs = self.logs();
        let stdin = self
            .stdin
            .as_mut()
            .unwrap_or_else(|| panic!("stdin already closed"));
        if let Err(e) = stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush())
        {
            panic!("writing to server stdin failed: {e}\nserver stderr:\n{logs}");
        }
    }

    /// Write one message as a line.
    pub fn send(&mut self, msg: &Value) {
        let mut line = serde_json::to_string(msg).unwrap_or_default();
        line.push('\n');
        self.write_raw(&line);
    }

    /// Close stdin (EOF for the server).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Read the next stdout line and parse it as a JSON-RPC message object.
    pub fn recv(&self) -> Value {
        match self.lines.recv_timeout(IO_TIMEOUT) {
            Ok(line) => parse_stdout_line(&line),
            Err(RecvTimeoutError::Timeout) => panic!(
                "no line on server stdout within {IO_TIMEOUT:?}; server stderr:\n{}",
                self.logs()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "server stdout closed while a response was expected; server stderr:\n{}",
                self.logs()
            ),
        }
    }

    /// Send `msg` and return the next message (which must be its response).
    pub fn roundtrip(&mut self, msg: &Value) -> Value {
        self.send(msg);
        let resp = self.recv();
        if let Some(id) = msg.get("id") {
            assert_eq!(
                resp.get("id"),
                Some(id),
                "expected the response to {msg}, got {resp}"
            );
        }
        resp
    }

    /// Read every remaining stdout line until EOF (bounded by `IO_TIMEOUT` per line
    /// and `EXIT_TIMEOUT` overall).
    pub fn read_to_eof(&self) -> Vec<Value> {
        let deadline = Instant::now() + EXIT_TIMEOUT + IO_TIMEOUT;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "server stdout did not reach EOF; stderr:\n{}",
                self.logs()
            );
            match self.lines.recv_timeout(left.min(IO_TIMEOUT)) {
                Ok(line) => out.push(parse_stdout_line(&line)),
                Err(RecvTimeoutError::Disconnected) => return out,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "server stdout neither produced a line nor reached EOF within {IO_TIMEOUT:?}; \
                     stderr:\n{}",
                    self.logs()
                ),
            }
        }
    }

    /// Wait (bounded) for the process to exit.
    pub fn wait_exit(&mut self) -> ExitStatus {
        wait_bounded(&mut self.child, "stdin EOF", &self.logs)
    }

    /// Assert every stdout line seen so far is a single JSON-RPC object.
    pub fn assert_stdout_clean(&self) {
        let seen = self.seen.lock().map(|s| s.clone()).unwrap_or_default();
        for line in &seen {
            let _ = parse_stdout_line(line);
        }
    }
}

fn parse_stdout_line(line: &str) -> Value {
    assert!(
        line.ends_with('\n'),
        "stdout line not newline-terminated: {line:?}"
    );
    let trimmed = line.trim_end_matches(['\r', '\n']);
    let v: Value = serde_json::from_str(trimmed)
        .unwrap_or_else(|e| panic!("server wrote a non-JSON line to stdout ({e}): {line:?}"));
    assert!(v.is_object(), "stdout line is not a JSON object: {line:?}");
    assert_eq!(
        v.get("jsonrpc"),
        Some(&json!("2.0")),
        "stdout message without jsonrpc 2.0: {line:?}"
    );
    v
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        self.stdin = None;
        kill_child(&mut self.child);
    }
}

/// Map responses by id (panics on a response without id or a duplicate id).
pub fn by_id(responses: &[Value]) -> HashMap<String, Value> {
    let mut map = HashMap::new();
    for r in responses {
        let id = r
            .get("id")
            .unwrap_or_else(|| panic!("response without id: {r}"))
            .to_string();
        assert!(
            map.insert(id.clone(), r.clone()).is_none(),
            "duplicate response for id {id}"
        );
    }
    map
}
