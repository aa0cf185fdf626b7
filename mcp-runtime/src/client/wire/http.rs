//! Streamable HTTP, both eras: each request a POST whose answer is JSON or
//! an SSE stream; in a 2025-era session also the session headers, the GET
//! stream of the server's own messages, resumption with `Last-Event-ID`
//! after the server's `retry:`, and `DELETE` at the end.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;

use super::sse::Decoder;
use crate::client::ClientError;
use crate::client::auth::{Authorizer, Secret};
use crate::client::inbound::Router;
use crate::client::notifications::Direction;
use crate::schema::{RequestId, request_methods};

/// The delay before resuming a stream when the server named none.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest delay before resuming a stream, whatever the server asks.
const MAX_RETRY: Duration = Duration::from_secs(30);
/// The shortest delay before resuming a stream, whatever the server asks
/// (`retry: 0` and a stream closed at once must not make a busy loop).
const MIN_RETRY: Duration = Duration::from_millis(100);
/// How many times one request's stream is resumed before giving up.
const MAX_RESUMPTIONS: usize = 5;
/// How much of an error body is kept for the error message.
const ERROR_BODY_BYTES: usize = 4096;

/// What the session adds to each request.
#[derive(Debug, Clone, Default)]
struct Session {
    /// `MCP-Protocol-Version`, once known.
    version: Option<String>,
    /// `MCP-Session-Id`, in a 2025-era session.
    id: Option<String>,
    /// True in the 2026-07-28 era: `Mcp-Method` and `Mcp-Name` go with
    /// each request, and streams are not resumed.
    modern: bool,
}

/// The HTTP side of one connection.
pub(crate) struct HttpWire {
    http: reqwest::Client,
    url: String,
    headers: Vec<(String, String)>,
    session: RwLock<Session>,
    max_message_bytes: usize,
    /// The bound on sending a notification or an answer and reading the
    /// server's acknowledgement (the client's request timeout).
    send_timeout: Duration,
    /// Signs in when the server asks, and gives each request its token.
    auth: Option<Arc<Authorizer>>,
}

impl HttpWire {
    pub(crate) fn new(
        url: String,
        headers: Vec<(String, String)>,
        connect_timeout: Duration,
        max_message_bytes: usize,
        send_timeout: Duration,
    ) -> Result<Self, ClientError> {
        let http = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .redirect(crate::client::redirect::same_origin())
            .build()
            .map_err(|e| ClientError::Transport(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            http,
            url,
            headers,
            session: RwLock::new(Session::default()),
            max_message_bytes,
            send_timeout,
            auth: None,
        })
    }

    /// Signs in through `auth` (when given) on every request.
    pub(crate) fn with_authorizer(mut self, auth: Option<Arc<Authorizer>>) -> Self {
        self.auth = auth;
        self
    }

    /// Sends a POST of `body`: with the bearer token, and once more after
    /// signing in when the server answers 401 (or 403
    /// `insufficient_scope`), when the client signs in.
    async fn send_post(
        &self,
        body: &Value,
        extra: &[(String, String)],
        session: &Session,
    ) -> Result<reqwest::Response, ClientError> {
        let Some(auth) = &self.auth else {
            return self
                .post(body, extra, session)?
                .send()
                .await
                .map_err(|e| ClientError::Transport(failed_to_send(e)));
        };
        let build = |token: Option<&Secret>| {
            let request = self.post(body, extra, session)?;
            Ok(match token {
                Some(token) => request.bearer_auth(token.expose()),
                None => request,
            })
        };
        auth.send(build, session.version.as_deref()).await
    }

    /// The bearer token for a request without a retry (the GET stream,
    /// `DELETE`), when signed in.
    async fn bearer(&self, session: &Session) -> Option<Secret> {
        let auth = self.auth.as_ref()?;
        auth.bearer(session.version.as_deref()).await.ok().flatten()
    }

    /// Speaks the 2026-07-28 era from now on (no session).
    pub(crate) fn set_modern(&self, version: &str) {
        if let Ok(mut session) = self.session.write() {
            *session = Session {
                version: Some(version.to_owned()),
                id: None,
                modern: true,
            };
        }
    }

    /// Speaks a 2025-era session from now on: `version` negotiated, `id`
    /// the session the server gave, if any.
    pub(crate) fn set_session(&self, version: Option<&str>, id: Option<String>) {
        if let Ok(mut session) = self.session.write() {
            *session = Session {
                version: version.map(str::to_owned),
                id,
                modern: false,
            };
        }
    }

    /// Keeps the session id a 2025-era server gave with the answer to
    /// `initialize`.
    fn take_session_id(&self, response: &reqwest::Response) {
        let Some(id) = response.headers().get("mcp-session-id") else {
            return;
        };
        match id.to_str() {
            Ok(id) if !id.is_empty() && id.bytes().all(|b| (0x21..0x7f).contains(&b)) => {
                if let Ok(mut session) = self.session.write() {
                    session.id = Some(id.to_owned());
                }
            }
            _ => tracing::warn!("ignoring a session id that is not visible ASCII"),
        }
    }

    /// The session id the last `initialize` answer carried.
    pub(crate) fn session_id(&self) -> Option<String> {
        self.session.read().ok().and_then(|s| s.id.clone())
    }

    fn session(&self) -> Session {
        self.session.read().map(|s| s.clone()).unwrap_or_default()
    }

    fn with_session(
        &self,
        mut request: reqwest::RequestBuilder,
        session: &Session,
    ) -> reqwest::RequestBuilder {
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(version) = &session.version {
            request = request.header("mcp-protocol-version", version.as_str());
        }
        if let Some(id) = &session.id {
            request = request.header("mcp-session-id", id.as_str());
        }
        request
    }

    fn post(
        &self,
        body: &Value,
        extra: &[(String, String)],
        session: &Session,
    ) -> Result<reqwest::RequestBuilder, ClientError> {
        let mut request = self
            .with_session(self.http.post(&self.url), session)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if session.modern {
            if let Some(method) = body.get("method").and_then(Value::as_str) {
                request = request.header("mcp-method", method);
                let name = request_methods::target_param(method)
                    .and_then(|key| body.get("params")?.get(key)?.as_str());
                if let Some(name) = name {
                    request = request.header("mcp-name", header_value(name));
                }
            }
            for (name, value) in extra {
                request = request.header(name.as_str(), param_header_value(value));
            }
        }
        let encoded = serde_json::to_vec(body).map_err(|e| ClientError::Encode(e.to_string()))?;
        Ok(request.body(encoded))
    }

    /// Sends a notification or a response; the server answers 202 within
    /// the send timeout, or the send fails with [`ClientError::Timeout`].
    pub(crate) async fn send(&self, router: &Router, message: &Value) -> Result<(), ClientError> {
        router.show(Direction::Sent, message);
        tokio::time::timeout(self.send_timeout, self.send_unbounded(message))
            .await
            .map_err(|_| ClientError::Timeout(self.send_timeout))?
    }

    async fn send_unbounded(&self, message: &Value) -> Result<(), ClientError> {
        let session = self.session();
        let response = self.send_post(message, &[], &session).await?;
        let status = response.status();
        if status.is_success() {
            Ok(())
        } else {
            let body = read_start(response, ERROR_BODY_BYTES).await;
            Err(ClientError::HttpStatus {
                status: status.as_u16(),
                body: String::from_utf8_lossy(&body).into_owned(),
            })
        }
    }

    /// Sends a request and returns its response message (a result or an
    /// error, not yet interpreted); the server's other messages on the way
    /// go to `router`.
    pub(crate) async fn request(
        &self,
        router: &Router,
        id: &RequestId,
        body: &Value,
        extra: &[(String, String)],
    ) -> Result<Value, ClientError> {
        let mut answer = router.expect(id);
        router.show(Direction::Sent, body);
        let session = self.session();
        let response = self.send_post(body, extra, &session).await?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND && session.id.is_some() {
            return Err(ClientError::SessionExpired);
        }
        if status.is_success() && !session.modern && session.id.is_none() {
            self.take_session_id(&response);
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if status.is_success() && content_type.starts_with("text/event-stream") {
            let mut decoder = Decoder::new(self.max_message_bytes);
            let mut stream = response;
            for resumption in 0..=MAX_RESUMPTIONS {
                if let Some(message) = self
                    .read_stream(router, stream, &mut decoder, &mut answer)
                    .await?
                {
                    return Ok(message);
                }
                // The stream ended before the response: a 2025-era server
                // that gave the stream an id expects us back.
                let Some(last) = decoder.last_event_id.clone() else {
                    break;
                };
                if session.modern || resumption == MAX_RESUMPTIONS {
                    break;
                }
                tokio::time::sleep(retry_wait(&decoder)).await;
                stream = match self.get(&session, Some(&last)).await? {
                    Some(stream) => stream,
                    None => break,
                };
            }
            return Err(ClientError::Transport(format!(
                "the server's stream for request {id} ended without its response"
            )));
        }
        let body = if status.is_success() {
            read_limited(response, self.max_message_bytes).await?
        } else {
            // A JSON-RPC error fits; of a longer page the start is kept.
            read_start(response, ERROR_BODY_BYTES).await
        };
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        if parsed.is_none() && status.is_success() && !body.is_empty() {
            let start: String = String::from_utf8_lossy(&body).chars().take(200).collect();
            return Err(ClientError::MalformedResponse(format!(
                "HTTP {status}: the body of the response to request {id} is not JSON: {start:?}"
            )));
        }
        let messages = match parsed {
            Some(Value::Array(batch)) => batch,
            Some(message) => vec![message],
            None => Vec::new(),
        };
        for message in messages {
            if message.get("id").is_some_and(Value::is_null)
                && message.get("error").is_some()
                && !status.is_success()
            {
                // An error the server could not tie to our request.
                return Ok(message);
            }
            router.route(message);
        }
        router.settle().await;
        if let Ok(message) = answer.try_recv() {
            return Ok(message);
        }
        if status.is_success() {
            Err(ClientError::MalformedResponse(format!(
                "HTTP {status} without the response to request {id}"
            )))
        } else {
            Err(ClientError::HttpStatus {
                status: status.as_u16(),
                body: String::from_utf8_lossy(&body).into_owned(),
            })
        }
    }

    /// Reads an SSE stream, routing each message, until the response
    /// arrives (returned) or the stream ends (`None`).
    async fn read_stream(
        &self,
        router: &Router,
        mut stream: reqwest::Response,
        decoder: &mut Decoder,
        answer: &mut tokio::sync::oneshot::Receiver<Value>,
    ) -> Result<Option<Value>, ClientError> {
        loop {
            let chunk = match stream.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) | Err(_) => return Ok(None),
            };
            let decoded = decoder.feed(&chunk).map_err(|too_long| {
                ClientError::Transport(format!(
                    "the server sent an event longer than {} bytes",
                    too_long.limit
                ))
            })?;
            for event in decoded.events {
                match serde_json::from_str::<Value>(&event.data) {
                    Ok(message) => router.route(message),
                    Err(_) => tracing::warn!("ignoring an event that is not JSON"),
                }
                router.settle().await;
            }
            if let Ok(message) = answer.try_recv() {
                return Ok(Some(message));
            }
        }
    }

    /// Opens a GET stream (resuming after `last_event_id`); `None` when
    /// the server offers none.
    async fn get(
        &self,
        session: &Session,
        last_event_id: Option<&str>,
    ) -> Result<Option<reqwest::Response>, ClientError> {
        let mut request = self
            .with_session(self.http.get(&self.url), session)
            .header("accept", "text/event-stream");
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last);
        }
        if let Some(token) = self.bearer(session).await {
            request = request.bearer_auth(token.expose());
        }
        let response = request
            .send()
            .await
            .map_err(|e| ClientError::Transport(format!("GET: {}", failed_to_send(e))))?;
        Ok(response.status().is_success().then_some(response))
    }

    /// Keeps the session's GET stream open, routing what the server sends
    /// on it, until the server declines it or it fails five times running;
    /// the router knows whether the stream is open (a kept list is
    /// trusted only while it is).
    ///
    /// `opened` hears once the first attempt is settled (the stream open,
    /// or declined, or failed), so that the caller can wait for it: a
    /// server may send its requests on this stream alone and drop them
    /// while no stream is open.
    pub(crate) async fn listen(
        self: Arc<Self>,
        router: Arc<Router>,
        opened: tokio::sync::oneshot::Sender<()>,
    ) {
        let mut opened = Some(opened);
        let mut decoder = Decoder::new(self.max_message_bytes);
        let mut failures = 0;
        while failures < MAX_RESUMPTIONS {
            let session = self.session();
            let last = decoder.last_event_id.clone();
            let got = self.get(&session, last.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let stream = match got {
                Ok(Some(stream)) => stream,
                Ok(None) => return, // 405: the server offers no stream
                Err(e) => {
                    tracing::debug!("the session's GET stream failed: {e}");
                    failures += 1;
                    tokio::time::sleep(DEFAULT_RETRY).await;
                    continue;
                }
            };
            let (_never, mut unanswered) = tokio::sync::oneshot::channel();
            router.set_hearing(true);
            let read = self
                .read_stream(&router, stream, &mut decoder, &mut unanswered)
                .await;
            // Until the stream is back, a change could go unheard.
            router.set_hearing(false);
            match read {
                Ok(_) => failures = 0,
                Err(e) => {
                    tracing::warn!("the session's GET stream failed: {e}");
                    failures += 1;
                }
            }
            tokio::time::sleep(retry_wait(&decoder)).await;
        }
    }

    /// Ends a 2025-era session with `DELETE`; a server that does not allow
    /// it (405) is fine.
    pub(crate) async fn end_session(&self) {
        let session = self.session();
        if session.id.is_none() {
            return;
        }
        let mut request = self.with_session(self.http.delete(&self.url), &session);
        if let Some(token) = self.bearer(&session).await {
            request = request.bearer_auth(token.expose());
        }
        let sent = tokio::time::timeout(Duration::from_secs(5), request.send()).await;
        if let Ok(Err(e)) = sent {
            tracing::debug!("DELETE {}: {e}", self.url);
        }
    }
}

/// How long to wait before resuming a stream: the server's `retry:`,
/// within [`MIN_RETRY`] and [`MAX_RETRY`].
fn retry_wait(decoder: &Decoder) -> Duration {
    decoder
        .retry_ms
        .map_or(DEFAULT_RETRY, Duration::from_millis)
        .clamp(MIN_RETRY, MAX_RETRY)
}

/// Why a request could not be sent, with the causes reqwest keeps inside
/// (connection refused, a TLS failure), without repeating the URL.
fn failed_to_send(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Reads a body of at most `limit` bytes.
async fn read_limited(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, ClientError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| ClientError::Transport(format!("cannot read the response body: {e}")))?
    {
        if body.len() + chunk.len() > limit {
            return Err(ClientError::Transport(format!(
                "the response body is longer than {limit} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Reads at most the first `limit` bytes of a body (an error page, for
/// the error message); the rest is not read, and a failure to read ends
/// what is kept.
async fn read_start(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = limit - body.len();
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    body
}

/// An `Mcp-Param-*` value: plain when visible ASCII or inner spaces
/// without padding, else Base64-wrapped (tabs and controls included).
fn param_header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    if plain && value.trim() == value && !value.starts_with("=?base64?") {
        value.to_owned()
    } else {
        wrapped(value)
    }
}

/// A header value, Base64-wrapped (`=?base64?...?=`) when it is not plain
/// visible ASCII, has surrounding whitespace, or looks like the wrapper.
fn header_value(value: &str) -> String {
    let plain = value
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b));
    let padded = value.trim() != value;
    let looks_wrapped = value.starts_with("=?base64?") && value.ends_with("?=");
    if plain && !padded && !looks_wrapped {
        value.to_owned()
    } else {
        wrapped(value)
    }
}

fn wrapped(value: &str) -> String {
    format!(
        "=?base64?{}?=",
        base64::engine::general_purpose::STANDARD.encode(value)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_are_wrapped_when_needed() {
        assert_eq!(header_value("greet"), "greet");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
        assert!(header_value("héllo").starts_with("=?base64?"));
        assert_eq!(param_header_value("a b"), "a b");
        assert!(param_header_value("a\tb").starts_with("=?base64?"));
    }
}
