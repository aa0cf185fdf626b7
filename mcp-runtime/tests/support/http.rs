//! A server under test on 127.0.0.1 and a client that speaks MCP over HTTP
//! to it: the request `_meta`, the MCP headers, and the SSE framing.

use mcp_runtime::server::Server;
use mcp_runtime::transport::http::HttpTransport;
use serde_json::{Value, json};

/// A server serving HTTP on 127.0.0.1 until this is dropped.
pub(crate) struct Running {
    /// The URL to post requests to.
    pub(crate) url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Running {
    /// A server already serving at `url` until `stop` is sent.
    pub(crate) fn new(url: String, stop: tokio::sync::oneshot::Sender<()>) -> Self {
        Self {
            url,
            stop: Some(stop),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Binds `transport` to a free port of 127.0.0.1 and serves it in the
/// background until the returned [`Running`] is dropped.
pub(crate) async fn start(transport: HttpTransport) -> Running {
    let bound = transport.bind("127.0.0.1:0").await.unwrap();
    let url = bound.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(bound.serve_until(async {
        let _ = stopped.await;
    }));
    Running {
        url,
        stop: Some(stop),
    }
}

/// [`start`] with the default HTTP transport of `server`.
pub(crate) async fn serve(server: Server) -> Running {
    start(HttpTransport::new(server)).await
}

/// A request's `_meta`: the protocol version, `capabilities` as the
/// client's capabilities, and the keys of `extra` (an object) on top.
pub(crate) fn meta(capabilities: Value, extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities
    });
    if let (Some(m), Value::Object(extra)) = (meta.as_object_mut(), extra) {
        m.extend(extra);
    }
    meta
}

/// The `_meta` of a client that can answer form elicitations.
pub(crate) fn form_client_meta() -> Value {
    meta(json!({"elicitation": {"form": {}}}), json!({}))
}

/// Posts the JSON-RPC request `body` with the MCP headers (`mcp-name` from
/// `params.name`, else `params.uri`, else `params.taskId`) and, given a
/// `token`, a bearer token.
/// Returns the status, the content type and the body.
pub(crate) async fn post(url: &str, body: Value, token: Option<&str>) -> (u16, String, String) {
    let text = body.to_string();
    post_written(url, &body, text, token).await
}

/// [`post`]s `body` as `text`: the same request written otherwise (its
/// keys in another order, say).
pub(crate) async fn post_written(
    url: &str,
    body: &Value,
    text: String,
    token: Option<&str>,
) -> (u16, String, String) {
    post_with(&reqwest::Client::new(), url, body, text, token).await
}

/// [`post_written`] through `client` (one bound to another local
/// address, say).
pub(crate) async fn post_with(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    text: String,
    token: Option<&str>,
) -> (u16, String, String) {
    let method = body["method"].as_str().unwrap().to_owned();
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    let params = &body["params"];
    let target = params["name"].as_str().or(params["uri"].as_str());
    if let Some(name) = target.or(params["taskId"].as_str()) {
        request = request.header("mcp-name", name);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.body(text).send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, content_type, response.text().await.unwrap())
}

/// [`post`]s `body` without a token and parses the response as JSON.
pub(crate) async fn post_json(url: &str, body: Value) -> Value {
    let (_, _, text) = post(url, body, None).await;
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// [`post_json`]s the request `method` with `params` (an object), under
/// `id`, its `_meta` set to `meta`; the parsed response.
pub(crate) async fn request(
    url: &str,
    id: u64,
    method: &str,
    mut params: Value,
    meta: Value,
) -> Value {
    params["_meta"] = meta;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    post_json(url, body).await
}

/// The JSON messages of the `data:` lines of an SSE body.
pub(crate) fn sse_data(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

/// An open `subscriptions/listen` stream, read frame by frame.
pub(crate) struct Listen {
    response: reqwest::Response,
    buffer: String,
}

impl Listen {
    /// Opens a stream asking for `filter`, from a client that declares no
    /// capabilities.
    pub(crate) async fn open(url: &str, id: i64, filter: Value) -> Self {
        Self::open_with(url, id, filter, meta(json!({}), json!({}))).await
    }

    /// Opens a stream asking for `filter`, the request's `_meta` set to
    /// `meta`.
    pub(crate) async fn open_with(url: &str, id: i64, filter: Value, meta: Value) -> Self {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": filter}});
        let response = reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "subscriptions/listen")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self {
            response,
            buffer: String::new(),
        }
    }

    /// The next frame's JSON, or `None` when the stream ended.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let data = frame.lines().find_map(|l| l.strip_prefix("data: "))?;
                return Some(serde_json::from_str(data).unwrap());
            }
            let chunk =
                tokio::time::timeout(std::time::Duration::from_secs(10), self.response.chunk())
                    .await
                    .expect("no frame within 10 s")
                    .unwrap()?;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}
