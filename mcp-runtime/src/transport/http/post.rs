//! The `POST` path: a request, a response or a notification of a client,
//! read within its limits and handed to the server or to its session.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};
use tokio::sync::mpsc;

use super::Endpoint;
use super::admit::{Named, admit, no_such_session, session_of};
use super::request::{BodyError, accepted, discard, is_json_content, mcp_headers, read_body};
use super::respond::{NOTE_BUFFER, closing, guarded, json_response, plain_error, respond};
use super::{resume, sessions};
use crate::logged::Wire;
use crate::schema::{CancelledNotificationParams, McpError, notification_methods};
use crate::server::{
    Incoming, Notifier, ReceiveContext, Request, Response, StreamClose, TransportKind,
    parse_message,
};

/// Answers one `POST`: the `Host`/`Origin` guard, the bearer token, the
/// content type, the accepted types, the body, then the message, handed to
/// the server (a request) or to its session (a response or notification).
pub(super) async fn post(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
    body: Body,
) -> HttpResponse {
    let caller = match admit(&endpoint, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    if !is_json_content(&headers) {
        return plain_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported media type: send Content-Type: application/json",
        );
    }
    let (accepts_json, accepts_sse) = accepted(&headers);
    if !accepts_json && !accepts_sse {
        return plain_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not acceptable: accept application/json and text/event-stream",
        );
    }
    let limits = endpoint.body;
    let bytes =
        match tokio::time::timeout(limits.timeout, read_body(body, &headers, limits.max_bytes))
            .await
        {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(BodyError::TooLarge(rest))) => {
                if let Some(rest) = rest {
                    discard(rest, limits.drain_bytes, limits.drain_timeout);
                }
                return closing(plain_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "Payload too large",
                ));
            }
            Ok(Err(BodyError::Broken)) => {
                return closing(plain_error(
                    StatusCode::BAD_REQUEST,
                    "Bad request: the body is incomplete or its framing is invalid",
                ));
            }
            Err(_elapsed) => {
                tracing::debug!(timeout = ?limits.timeout, "a request body did not arrive in time");
                return closing(plain_error(
                    StatusCode::REQUEST_TIMEOUT,
                    "Request timeout: the body did not arrive in time",
                ));
            }
        };
    let session = match session_of(&endpoint, &headers, caller.as_deref()) {
        Named::Nothing => None,
        Named::Session(session) => Some(session),
        Named::Unknown => return no_such_session(),
    };
    let request = match parse_message(&bytes) {
        Ok(Incoming::Request(request)) => request,
        Ok(Incoming::Notification { method, params }) => {
            tracing::debug!(method = %Wire(&method), "accepted a notification");
            if let Some(session) = &session {
                if method == notification_methods::CANCELLED {
                    let cancelled = params.and_then(|p| {
                        serde_json::from_value::<CancelledNotificationParams>(
                            serde_json::Value::Object(p),
                        )
                        .ok()
                    });
                    if let Some(cancelled) = cancelled {
                        endpoint
                            .sessions
                            .cancel(session.id(), &cancelled.request_id);
                    }
                } else {
                    endpoint.server.handle_notification(&method, session);
                }
            }
            return StatusCode::ACCEPTED.into_response();
        }
        Ok(Incoming::Response(response)) => {
            let Some(session) = &session else {
                return plain_error(
                    StatusCode::BAD_REQUEST,
                    "Bad request: a response must carry the MCP-Session-Id of the session \
                     whose request it answers",
                );
            };
            // Accepted either way: an answer that comes after the server
            // stopped waiting is the client's due, not its fault (and some
            // clients drop their connection on any other status).
            if let Err(unknown) = session.deliver(response) {
                tracing::info!(unknown = %Wire(&unknown.to_string()), "ignored a response");
            }
            return StatusCode::ACCEPTED.into_response();
        }
        Err(response) => return json_response(&response),
    };
    let receive = ReceiveContext {
        transport: TransportKind::Http,
        caller,
        headers: Some(mcp_headers(&headers)),
        session,
        protected: endpoint
            .protection
            .as_ref()
            .map(|p| Arc::clone(&p.resource)),
    };
    if !accepts_sse {
        let response = handle(&endpoint, request, receive, Notifier::disabled()).await;
        return json_response(&response);
    }

    let (notes_tx, notes_rx) = mpsc::channel::<String>(NOTE_BUFFER);
    // A session's stream is numbered and may be closed by its handler and
    // resumed by its client.
    let resumable = receive.session.clone().map(|session| {
        let logs = endpoint.sessions.logs_of(session.id());
        (session, logs, StreamClose::new())
    });
    let notifier = match &resumable {
        Some((_, _, close)) => Notifier::new(notes_tx).closable(close.clone()),
        None => Notifier::new(notes_tx),
    };
    // The handler runs on this task, not a spawned one: most requests end
    // without a notification and are answered with plain JSON. It is boxed
    // so that, if a notification comes first, it can move into the body of
    // the event stream and keep running there.
    let handling = Box::pin(guarded(async move {
        handle(&endpoint, request, receive, notifier).await
    }));
    match resumable {
        Some((session, logs, close)) => {
            resume::respond(handling, notes_rx, close, session, logs).await
        }
        None => respond(handling, notes_rx).await,
    }
}

/// Hands a request to the server. In a session, the request keeps the
/// session busy while it runs and can be cancelled by the client; the
/// session `initialize` opens is added to the table.
async fn handle(
    endpoint: &Endpoint,
    request: Request,
    receive: ReceiveContext,
    notifier: Notifier,
) -> Response {
    let subject = receive.subject().to_owned();
    let Some(session) = receive.session.clone() else {
        let response = endpoint
            .server
            .handle_request(request, receive, notifier)
            .await;
        return match response.opened_session() {
            Some(opened) => match endpoint.sessions.insert(opened.clone(), &subject) {
                Ok(()) => response,
                Err(sessions::Full) => {
                    opened.end();
                    Response::error(
                        response.id().cloned(),
                        McpError::Other(crate::schema::ErrorObject {
                            code: crate::schema::codes::INTERNAL_ERROR,
                            message: "Server busy: every session is in use; retry later".to_owned(),
                            data: None,
                        }),
                    )
                }
            },
            None => response,
        };
    };
    let id = request.id.clone();
    let (abort, registration) = futures_util::future::AbortHandle::new_pair();
    let _busy = endpoint
        .sessions
        .begin(session.id(), Some((id.clone(), abort)));
    let handling = endpoint.server.handle_request(request, receive, notifier);
    match futures_util::future::Abortable::new(handling, registration).await {
        Ok(response) => response,
        Err(futures_util::future::Aborted) => {
            tracing::debug!(id = %Wire(&id.to_string()), "request cancelled by the client");
            Response::cancelled(id)
        }
    }
}
