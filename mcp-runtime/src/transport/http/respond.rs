//! Writing the answer: JSON, or an event stream when the handler notifies
//! before it finishes; the HTTP status of each error; the plain errors of
//! requests refused before dispatch.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONNECTION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};
use futures_util::Stream;
use tokio::sync::mpsc;

use crate::schema::McpError;
use crate::server::{LazyNotes, Response};

/// How many serialised notifications a handler may queue before its
/// notifier waits for the stream to take them.
pub(super) const NOTE_BUFFER: usize = 32;

/// Catches a panic that escapes the server's own catch, so that it becomes
/// an internal error rather than a dropped connection.
/// (A combinator, not an `async fn`: the future is no larger than
/// `handling`'s own.)
pub(super) fn guarded(handling: impl Future<Output = Response>) -> impl Future<Output = Response> {
    use futures_util::FutureExt as _;
    std::panic::AssertUnwindSafe(handling)
        .catch_unwind()
        .map(|caught| {
            caught.unwrap_or_else(|_| {
                Response::error(
                    None,
                    McpError::internal("the request task failed: it panicked"),
                )
            })
        })
}

/// Drives `handling` until it finishes (answered with JSON) or emits its
/// first notification (answered with an event stream that carries the rest
/// of the exchange). Dropping the returned future, as when the client
/// leaves, drops the handler.
pub(super) async fn respond<F>(mut handling: Pin<Box<F>>, mut notes: LazyNotes) -> HttpResponse
where
    F: Future<Output = Response> + Send + 'static,
{
    tokio::select! {
        biased;
        opened = notes.opened() => match opened {
            // The first notification is in the channel already.
            Some(notes) => event_stream(EventStream {
                notes,
                handling: Some(handling),
                response: None,
            }),
            // Every notifier is gone yet the handler runs on: it cannot
            // notify any more.
            None => json_response(&handling.await),
        },
        response = &mut handling => match notes.take() {
            // Notified on its last step: the notifications still come first.
            Some(notes) => event_stream(EventStream::<F> {
                notes,
                handling: None,
                response: Some(response),
            }),
            None => json_response(&response),
        },
    }
}

/// The body of an event stream: the notifications, the first of them
/// already queued, then the response once every notifier is gone. It
/// drives the handler itself, so when the client leaves and the body is
/// dropped, the handler is dropped with it.
struct EventStream<F> {
    /// The handler's notifications.
    notes: mpsc::Receiver<String>,
    /// The handler, until it finishes.
    handling: Option<Pin<Box<F>>>,
    /// The finished handler's response, sent after the last notification.
    response: Option<Response>,
}

impl<F> Stream for EventStream<F>
where
    F: Future<Output = Response>,
{
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match this.notes.poll_recv(cx) {
                Poll::Ready(Some(note)) => return Poll::Ready(Some(Ok(sse_frame(&note)))),
                Poll::Ready(None) => {
                    // Every notifier is gone: the response ends the stream.
                    let response = match (this.response.take(), this.handling.as_mut()) {
                        (Some(response), _) => response,
                        (None, Some(handling)) => match handling.as_mut().poll(cx) {
                            Poll::Ready(response) => response,
                            Poll::Pending => return Poll::Pending,
                        },
                        (None, None) => return Poll::Ready(None),
                    };
                    this.handling = None;
                    if response.is_cancelled() {
                        return Poll::Ready(None);
                    }
                    return Poll::Ready(Some(Ok(sse_frame(&response.to_json()))));
                }
                Poll::Pending => {}
            }
            let Some(handling) = this.handling.as_mut() else {
                return Poll::Pending;
            };
            match handling.as_mut().poll(cx) {
                // Its notifier is dropped now: look at the notes again.
                Poll::Ready(response) => {
                    this.handling = None;
                    this.response = Some(response);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// An event-stream response whose body is `events`.
fn event_stream<F>(events: EventStream<F>) -> HttpResponse
where
    F: Future<Output = Response> + Send + 'static,
{
    sse_response(Body::from_stream(events))
}

/// A `text/event-stream` response with `body`, unbuffered by proxies.
pub(super) fn sse_response(body: Body) -> HttpResponse {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    response
}

/// Asks a proxy (nginx) not to buffer the event stream.
const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

/// One server-sent event carrying the JSON-RPC message `json`.
fn sse_frame(json: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// `response` as `application/json`, with the status its error fixes and,
/// for `initialize`, the `MCP-Session-Id` of the session it opened. A
/// cancelled request gets `202 Accepted` and no body: the client stopped
/// waiting for it.
pub(super) fn json_response(response: &Response) -> HttpResponse {
    if response.is_cancelled() {
        return StatusCode::ACCEPTED.into_response();
    }
    let status = match response.error_value() {
        None => StatusCode::OK,
        // The 2025 transport carries JSON-RPC errors in 200 responses (some
        // clients read no body from a 4xx); only a header problem is HTTP's.
        Some(error)
            if response.is_2025_era() && !matches!(error, McpError::HeaderMismatch { .. }) =>
        {
            StatusCode::OK
        }
        Some(error) => status_of(error),
    };
    let mut http = json_body(status, response.to_json());
    if status == StatusCode::FORBIDDEN
        && let Some(McpError::InsufficientScope {
            scopes,
            resource_metadata,
        }) = response.error_value()
        && let Ok(challenge) = HeaderValue::from_str(&crate::auth::scope_challenge(
            scopes,
            resource_metadata.as_deref(),
        ))
    {
        http.headers_mut().insert(WWW_AUTHENTICATE, challenge);
    }
    if let Some(session) = response.opened_session()
        && let Ok(id) = HeaderValue::from_str(session.id())
    {
        http.headers_mut().insert(MCP_SESSION_ID, id);
    }
    http
}

/// The header that names a 2025-era session.
pub(super) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A `status` response carrying `json` as `application/json`. Built
/// directly: a `String` body set through `IntoResponse` would first get a
/// `text/plain` type, then have it replaced.
pub(super) fn json_body(status: StatusCode, json: String) -> HttpResponse {
    let mut response = HttpResponse::new(Body::from(json));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The HTTP status of an error response, as 2026-07-28 fixes them.
fn status_of(error: &McpError) -> StatusCode {
    match error {
        McpError::ParseError { .. }
        | McpError::InvalidRequest { .. }
        | McpError::InvalidMeta { .. }
        | McpError::HeaderMismatch { .. }
        | McpError::MissingClientCapability { .. }
        | McpError::UnsupportedProtocolVersion { .. } => StatusCode::BAD_REQUEST,
        McpError::MethodNotFound { .. } => StatusCode::NOT_FOUND,
        McpError::InsufficientScope { .. } => StatusCode::FORBIDDEN,
        _ => StatusCode::OK,
    }
}

/// A `status` response carrying a JSON-RPC error (code -32600) whose
/// message is `message`, for a request refused before dispatch.
pub(super) fn plain_error(status: StatusCode, message: &'static str) -> HttpResponse {
    let body = format!(r#"{{"jsonrpc":"2.0","error":{{"code":-32600,"message":"{message}"}}}}"#);
    json_body(status, body)
}

/// `response` with `Connection: close`: the connection ends after it (its
/// request body was refused or never came whole).
pub(super) fn closing(mut response: HttpResponse) -> HttpResponse {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// HTTP 401 with `WWW-Authenticate: Bearer`: the bearer token is missing
/// or was refused.
pub(super) fn unauthorized() -> HttpResponse {
    let mut response = plain_error(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: a valid bearer token is required",
    );
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// A refusal of the bearer token, with its challenge: 401 (missing or
/// invalid token) or 403 (insufficient scope).
pub(super) fn challenged(
    status: StatusCode,
    message: &'static str,
    challenge: &str,
) -> HttpResponse {
    let mut response = plain_error(status, message);
    match HeaderValue::from_str(challenge) {
        Ok(value) => {
            response.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
        Err(_) => {
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_carry_only_the_json_type() {
        let response = plain_error(StatusCode::FORBIDDEN, "Forbidden");
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let types: Vec<_> = response.headers().get_all(CONTENT_TYPE).iter().collect();
        assert_eq!(types, [HeaderValue::from_static("application/json")]);
        assert_eq!(response.headers().len(), 1);
    }
}
