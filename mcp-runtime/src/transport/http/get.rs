//! The `GET` path: the standalone event stream of a 2025-era session, or
//! the resumption of one of its detached streams.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response as HttpResponse;
use futures_util::StreamExt;

use super::Endpoint;
use super::admit::{Named, admit, no_such_session, session_of};
use super::request::accepted;
use super::respond::{plain_error, sse_response};
use super::resume;
use crate::server::TransportKind;
use crate::transport::session::changes;

/// Answers one `GET`: the standalone event stream of a 2025-era session,
/// carrying list changes and updates of the resources it subscribed to,
/// until the session ends or the client leaves. One per session (409
/// otherwise); without a session, 405.
pub(super) async fn get(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> HttpResponse {
    let caller = match admit(&endpoint, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let session = match session_of(&endpoint, &headers, caller.as_deref()) {
        Named::Session(open) => open.session,
        Named::Nothing => {
            return plain_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed: GET opens the event stream of a 2025-era session; \
                 send its MCP-Session-Id",
            );
        }
        Named::Unknown => return no_such_session(),
    };
    if !accepted(&headers).1 {
        return plain_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not acceptable: accept text/event-stream",
        );
    }
    let resumed = headers
        .get(LAST_EVENT_ID)
        .and_then(|id| id.to_str().ok())
        .and_then(resume::parse_event_id)
        .and_then(|(stream, after)| Some((endpoint.sessions.log(session.id(), stream)?, after)));
    if let Some((log, after)) = resumed {
        return resume::resume(log, after);
    }
    let Some(busy) = endpoint.sessions.open_stream(session.id()) else {
        return plain_error(
            StatusCode::CONFLICT,
            "Conflict: this session's event stream is already open",
        );
    };
    let changes = changes(&endpoint.server, session.clone(), TransportKind::Http);
    let stream = endpoint
        .sessions
        .logs_of(session.id(), endpoint.server.memory())
        .next_stream();
    let primed = futures_util::stream::once(async move { Ok(resume::priming(stream)) });
    // The stream keeps the session busy (so it does not expire) while it
    // is open.
    let events = futures_util::stream::unfold(
        (Box::pin(changes), busy, 1_u64),
        move |(mut changes, busy, n)| async move {
            let json = changes.next().await?;
            let frame = Ok::<_, Infallible>(resume::event(stream, n, &json));
            Some((frame, (changes, busy, n + 1)))
        },
    );
    sse_response(Body::from_stream(primed.chain(events)))
}

/// The header a client resumes an event stream with.
const LAST_EVENT_ID: axum::http::HeaderName = axum::http::HeaderName::from_static("last-event-id");
