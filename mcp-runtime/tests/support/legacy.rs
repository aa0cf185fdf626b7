//! A 2025-era client over streamable HTTP, written from the 2025-11-25
//! transport: `initialize` and its `MCP-Session-Id`, requests answered as
//! JSON or an event stream read as it arrives, the server's own requests on
//! that stream answered by `POST`, notifications, `GET` and `DELETE`.

use std::time::Duration;

use serde_json::{Value, json};

/// One 2025-era session with a server under test.
pub(crate) struct LegacyClient {
    http: reqwest::Client,
    /// The endpoint.
    pub(crate) url: String,
    /// The session id from `initialize` (none when served statelessly).
    pub(crate) session: Option<String>,
    /// The version `initialize` settled on.
    pub(crate) version: String,
}

/// What one request brought: the response, and every other message of its
/// stream in order (notifications, the server's requests).
#[derive(Debug)]
pub(crate) struct Exchange {
    /// The HTTP status of the `POST`.
    pub(crate) status: u16,
    /// The JSON-RPC response (`Value::Null` when the stream ended without one).
    pub(crate) response: Value,
    /// The other messages of the stream.
    pub(crate) messages: Vec<Value>,
}

impl Exchange {
    /// The messages with this method.
    pub(crate) fn with_method(&self, method: &str) -> Vec<&Value> {
        self.messages
            .iter()
            .filter(|m| m["method"] == method)
            .collect()
    }
}

impl LegacyClient {
    /// Sends `initialize` at `version` with `capabilities`, then
    /// `notifications/initialized`. Returns the client and the whole
    /// `initialize` response.
    pub(crate) async fn initialize(url: &str, version: &str, capabilities: Value) -> (Self, Value) {
        let http = reqwest::Client::new();
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "legacy-test-client", "version": "1.0.0"}
            }
        });
        let response = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let text = response.text().await.unwrap();
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let client = Self {
            http,
            url: url.to_owned(),
            session,
            version: answer["result"]["protocolVersion"]
                .as_str()
                .unwrap_or(version)
                .to_owned(),
        };
        if client.session.is_some() {
            let status = client
                .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await
                .status()
                .as_u16();
            assert_eq!(status, 202, "notifications/initialized");
        }
        (client, answer)
    }

    /// A request to the endpoint with this session's headers.
    pub(crate) fn builder(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .request(method, &self.url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", &self.version);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        request
    }

    /// `POST`s one message with this session's headers.
    pub(crate) async fn post(&self, message: Value) -> reqwest::Response {
        self.builder(reqwest::Method::POST)
            .header("content-type", "application/json")
            .body(message.to_string())
            .send()
            .await
            .unwrap()
    }

    /// Sends request `id` and reads its answer; the server's requests on the
    /// stream are answered by `answer` (its result; `None` leaves one
    /// unanswered).
    pub(crate) async fn call(
        &self,
        id: i64,
        method: &str,
        params: Value,
        mut answer: impl FnMut(&Value) -> Option<Value>,
    ) -> Exchange {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut response = self.post(request).await;
        let status = response.status().as_u16();
        let is_stream = response
            .headers()
            .get("content-type")
            .is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
        if !is_stream {
            let text = response.text().await.unwrap();
            let response = if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
            };
            return Exchange {
                status,
                response,
                messages: Vec::new(),
            };
        }
        let mut messages = Vec::new();
        let mut buffer = String::new();
        loop {
            let chunk = tokio::time::timeout(Duration::from_secs(20), response.chunk())
                .await
                .expect("the stream stalled for 20 s")
                .unwrap();
            let Some(chunk) = chunk else {
                return Exchange {
                    status,
                    response: Value::Null,
                    messages,
                };
            };
            buffer.push_str(std::str::from_utf8(&chunk).unwrap());
            while let Some(end) = buffer.find("\n\n") {
                let event: String = buffer.drain(..end + 2).collect();
                let Some(message) = event_data(&event) else {
                    continue;
                };
                if message["id"] == id && message.get("method").is_none() {
                    return Exchange {
                        status,
                        response: message,
                        messages,
                    };
                }
                if message.get("method").is_some()
                    && message.get("id").is_some()
                    && let Some(result) = answer(&message)
                {
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                    let posted = self.post(reply).await.status().as_u16();
                    assert_eq!(posted, 202, "a response to the server is accepted");
                }
                messages.push(message);
            }
        }
    }

    /// Sends request `id` expecting no question from the server.
    pub(crate) async fn request(&self, id: i64, method: &str, params: Value) -> Exchange {
        self.call(id, method, params, |message| {
            panic!("unexpected request from the server: {message}")
        })
        .await
    }

    /// `DELETE`s the session; returns the status.
    pub(crate) async fn delete(&self) -> u16 {
        self.builder(reqwest::Method::DELETE)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

/// The JSON message of one SSE event (its `data:` lines joined), if any.
pub(crate) fn event_data(event: &str) -> Option<Value> {
    let data: Vec<&str> = event
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    if data.is_empty() || data.iter().all(|d| d.is_empty()) {
        return None;
    }
    Some(serde_json::from_str(&data.join("\n")).unwrap())
}

/// An `ElicitResult` accepting `content`.
pub(crate) fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}
