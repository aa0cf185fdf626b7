//! The two client transports: streamable HTTP (JSON or SSE responses) and
//! stdio (newline-delimited JSON to a child process).

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{Mutex, oneshot};

use super::ClientError;
use crate::schema::{LATEST_PROTOCOL_VERSION, RequestId, request_methods};

type Pending = Arc<std::sync::Mutex<HashMap<RequestId, oneshot::Sender<Value>>>>;

/// Where requests go.
pub(super) enum Transport {
    Http { http: reqwest::Client, url: String },
    Stdio(Box<Stdio>),
}

/// A spawned server process and the responses awaited from it.
pub(super) struct Stdio {
    stdin: Mutex<ChildStdin>,
    pending: Pending,
    // Kept so the child is killed when the client is dropped.
    _child: Child,
}

impl Transport {
    pub(super) fn http(url: String) -> Self {
        Self::Http {
            http: reqwest::Client::new(),
            url,
        }
    }

    pub(super) fn stdio(command: &str, args: &[String]) -> Result<Self, ClientError> {
        let mut child = tokio::process::Command::new(command)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Transport(format!("cannot spawn {command:?}: {e}")))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| ClientError::Transport("the child has no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ClientError::Transport("the child has no stdout".into()))?;
        let pending: Pending = Arc::default();
        let reader_pending = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    tracing::warn!("ignoring a line from the server that is not JSON");
                    continue;
                };
                if !is_response(&message) {
                    continue; // a notification: not ours to answer
                }
                let Some(id) = message.get("id").and_then(RequestId::from_json) else {
                    continue;
                };
                let waiter = match reader_pending.lock() {
                    Ok(mut map) => map.remove(&id),
                    Err(_) => None,
                };
                if let Some(waiter) = waiter {
                    let _ = waiter.send(message);
                }
            }
            // End of output: dropping the waiters fails their requests.
            if let Ok(mut map) = reader_pending.lock() {
                map.clear();
            }
        });
        Ok(Self::Stdio(Box::new(Stdio {
            stdin: Mutex::new(stdin),
            pending,
            _child: child,
        })))
    }

    /// Sends one JSON-RPC request and returns the response message whose id
    /// matches (a result or an error, not yet interpreted).
    pub(super) async fn send(
        &self,
        id: &RequestId,
        body: &Value,
        extra_headers: &[(String, String)],
    ) -> Result<Value, ClientError> {
        match self {
            Self::Http { http, url } => send_http(http, url, id, body, extra_headers).await,
            Self::Stdio(stdio) => {
                let Stdio { stdin, pending, .. } = &**stdio;
                let (tx, rx) = oneshot::channel();
                pending
                    .lock()
                    .map_err(|_| ClientError::Transport("pending table poisoned".into()))?
                    .insert(id.clone(), tx);
                let mut line = serde_json::to_string(body)
                    .map_err(|e| ClientError::Transport(format!("cannot encode request: {e}")))?;
                line.push('\n');
                {
                    let mut stdin = stdin.lock().await;
                    let written = async {
                        stdin.write_all(line.as_bytes()).await?;
                        stdin.flush().await
                    }
                    .await;
                    if let Err(e) = written {
                        if let Ok(mut map) = pending.lock() {
                            map.remove(id);
                        }
                        return Err(ClientError::Transport(format!(
                            "cannot write to the server: {e}"
                        )));
                    }
                }
                rx.await.map_err(|_| {
                    ClientError::Transport("the server closed its output before answering".into())
                })
            }
        }
    }
}

fn is_response(message: &Value) -> bool {
    message.get("result").is_some() || message.get("error").is_some()
}

async fn send_http(
    http: &reqwest::Client,
    url: &str,
    id: &RequestId,
    body: &Value,
    extra_headers: &[(String, String)],
) -> Result<Value, ClientError> {
    let method = body
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", LATEST_PROTOCOL_VERSION)
        .header("mcp-method", method.as_str());
    let params = body.get("params");
    let name =
        request_methods::target_param(&method).and_then(|key| params.and_then(|p| p.get(key)));
    if let Some(name) = name.and_then(Value::as_str) {
        request = request.header("mcp-name", header_value(name));
    }
    for (name, value) in extra_headers {
        request = request.header(name.as_str(), param_header_value(value));
    }
    let encoded = serde_json::to_vec(body)
        .map_err(|e| ClientError::Transport(format!("cannot encode request: {e}")))?;
    let response = request
        .body(encoded)
        .send()
        .await
        .map_err(|e| ClientError::Transport(e.to_string()))?;
    let status = response.status();
    let is_sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
    let text = response
        .text()
        .await
        .map_err(|e| ClientError::Transport(format!("cannot read the response body: {e}")))?;
    let messages: Vec<Value> = if is_sse {
        sse_messages(&text)
    } else {
        serde_json::from_str::<Value>(&text).into_iter().collect()
    };
    let found = messages.into_iter().find(|m| {
        is_response(m)
            && match m.get("id") {
                Some(v) => RequestId::from_json(v).as_ref() == Some(id),
                // An error the server could not attach an id to.
                None => m.get("error").is_some(),
            }
    });
    match found {
        Some(message) => Ok(message),
        None if !status.is_success() => Err(ClientError::Transport(format!(
            "HTTP {status} without a JSON-RPC response: {}",
            truncate(&text)
        ))),
        None => Err(ClientError::MalformedResponse(format!(
            "no response with id {id} in the body: {}",
            truncate(&text)
        ))),
    }
}

/// The JSON messages of an SSE body: each event's `data:` lines joined by
/// newlines; events that are not JSON are skipped.
fn sse_messages(body: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    let mut flush = |data: &mut Vec<&str>| {
        if !data.is_empty() {
            if let Ok(v) = serde_json::from_str(&data.join("\n")) {
                messages.push(v);
            }
            data.clear();
        }
    };
    for line in body.lines() {
        if line.is_empty() {
            flush(&mut data);
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    flush(&mut data);
    messages
}

/// A header value, base64-wrapped (`=?base64?...?=`) when it is not plain
/// visible ASCII, has surrounding whitespace, or looks like the wrapper.
/// An `Mcp-Param-*` value: plain when visible ASCII or inner spaces
/// without padding, else Base64-wrapped (tabs and controls included).
fn param_header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    if plain && value.trim() == value && !value.starts_with("=?base64?") {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

fn header_value(value: &str) -> String {
    let plain = value
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b));
    let padded = value.trim() != value;
    let looks_wrapped = value.starts_with("=?base64?") && value.ends_with("?=");
    if plain && !padded && !looks_wrapped {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_frames_join_data_lines() {
        let body = "event: message\ndata: {\"a\":\ndata: 1}\n\ndata: {\"b\":2}\n\n";
        assert_eq!(
            sse_messages(body),
            vec![serde_json::json!({"a":1}), serde_json::json!({"b":2})]
        );
    }

    #[test]
    fn header_values_are_wrapped_when_needed() {
        assert_eq!(header_value("greet"), "greet");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
        assert!(header_value("héllo").starts_with("=?base64?"));
    }
}
