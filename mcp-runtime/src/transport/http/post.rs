//! The `POST` path: a request, a response or a notification of a client,
//! read within its limits and handed to the [driver](crate::transport::session)
//! of its session (or of its own, without one); a request's answer is
//! written as JSON or as an event stream.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};
use futures_util::FutureExt as _;
use tokio::sync::mpsc;

use super::Endpoint;
use super::admit::{Named, admit, no_such_session, session_of};
use super::request::{BodyError, accepted, discard, is_json_content, mcp_headers, read_body};
use super::respond::{NOTE_BUFFER, closing, guarded, json_response, plain_error, respond};
use super::resume;
use super::serve::peer_ip;
use super::sessions::{self, Open};
use crate::server::{
    Notifier, ReceiveContext, Response, StreamClose, TransportKind, parse_message,
};
use crate::transport::session::{Admitted, Busy, Driver, Received, Step};

/// Answers one `POST`: the `Host`/`Origin` guard, the bearer token, the
/// content type, the accepted types, the body, then the message, handed to
/// the server (a request) or to its session (a response or notification).
pub(super) fn post(
    State(endpoint): State<Arc<Endpoint>>,
    request: Request,
) -> impl Future<Output = HttpResponse> + Send + 'static {
    // Taken apart rather than extracted (axum's `HeaderMap` extractor
    // copies the headers of every request), and before the future is
    // made: it holds the headers and the body, not the request as well.
    let (parts, body) = request.into_parts();
    answer(endpoint, parts.headers, body, peer_ip())
}

/// [`post`]'s answer to the request with `headers` and `body`, which came
/// from `peer`.
async fn answer(
    endpoint: Arc<Endpoint>,
    headers: HeaderMap,
    body: Body,
    peer: Option<IpAddr>,
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
    let (bytes, body_charge) = match tokio::time::timeout(
        limits.timeout,
        read_body(body, &headers, limits.max_bytes, endpoint.server.memory()),
    )
    .await
    {
        Ok(Ok(read)) => read,
        Ok(Err(BodyError::TooLarge(rest))) => {
            if let Some(rest) = rest {
                discard(rest, limits.drain_bytes, limits.drain_timeout);
            }
            return closing(plain_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload too large",
            ));
        }
        Ok(Err(BodyError::OverBudget(rest))) => {
            tracing::warn!("refused a request body: the memory budget is spent");
            if let Some(rest) = rest {
                discard(rest, limits.drain_bytes, limits.drain_timeout);
            }
            return closing(plain_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Server busy: the server holds all the memory it may give its clients; \
                     retry later",
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
    let open = match session_of(&endpoint, &headers, caller.as_deref()) {
        Named::Nothing => None,
        Named::Session(open) => Some(open),
        Named::Unknown => return no_such_session(),
    };
    let message = match parse_message(&bytes) {
        Ok(message) => message,
        Err(response) => return json_response(&response),
    };
    // The message is read: its bytes are not held while it runs (the
    // driver charges the message as parsed).
    drop((bytes, body_charge));
    // A message without a session gets a driver of its own: it has no
    // session to route to, and no other client's request to cancel.
    let driver = match &open {
        Some(open) => Arc::clone(&open.driver),
        None => Arc::new(Driver::new()),
    };
    let step = match driver.try_receive(&endpoint.server, message) {
        Received::Now(step) => step,
        // Only a driver that bounds the requests in flight waits (HTTP's
        // do not): boxed, so that this future does not carry the wait.
        Received::Waits(waiting) => {
            Box::pin(driver.admit_when_free(&endpoint.server, waiting)).await
        }
    };
    let admitted = match to_run(step) {
        Ok(admitted) => admitted,
        Err(answered) => return answered,
    };
    let mut receive = ReceiveContext::new(TransportKind::Http);
    receive.caller = caller;
    receive.headers = Some(mcp_headers(&headers));
    receive.peer_ip = peer;
    receive.protected = endpoint
        .protection
        .as_ref()
        .map(|p| Arc::clone(&p.resource));
    if !accepts_sse {
        // Boxed, as on the event stream's path below: `post`'s own future,
        // which axum boxes for every request, does not carry the handler's.
        let response = Box::pin(handle(
            endpoint,
            admitted,
            open,
            receive,
            Notifier::disabled(),
        ))
        .await;
        return json_response(&response);
    }

    // The handler runs on this task, not a spawned one: most requests end
    // without a notification and are answered with plain JSON. It is boxed
    // so that, if a notification comes first, it can move into the body of
    // the event stream and keep running there.
    let Some(open) = open else {
        // No session: the channel is made by the first notification, if
        // one comes.
        let (notifier, notes) = Notifier::lazy(NOTE_BUFFER);
        let handling = Box::pin(guarded(handle(endpoint, admitted, None, receive, notifier)));
        return respond(handling, notes).await;
    };
    // A session's stream is numbered and may be closed by its handler and
    // resumed by its client. Boxed: the common path's future does not
    // carry it.
    let (notes_tx, notes_rx) = mpsc::channel::<String>(NOTE_BUFFER);
    let session = open.session.clone();
    let logs = endpoint
        .sessions
        .logs_of(session.id(), endpoint.server.memory());
    let close = StreamClose::new();
    let notifier = Notifier::new(notes_tx).closable(close.clone());
    let handling = Box::pin(guarded(handle(
        endpoint,
        admitted,
        Some(open),
        receive,
        notifier,
    )));
    Box::pin(resume::respond(handling, notes_rx, close, session, logs)).await
}

/// The request a step runs, or the answer of a step that runs none. (A
/// function of its own so that `answer`'s future does not keep the step
/// across its awaits; the answer goes straight back to the client, so it
/// is not boxed.)
#[allow(clippy::result_large_err)]
fn to_run(step: Step) -> Result<Admitted, HttpResponse> {
    match step {
        Step::Run(admitted) => Ok(admitted),
        // Accepted whatever became of it: an answer that comes after the
        // server stopped waiting is the client's due, not its fault (and
        // some clients drop their connection on any other status).
        Step::Done => Err(StatusCode::ACCEPTED.into_response()),
        Step::Unsessioned(_) => Err(plain_error(
            StatusCode::BAD_REQUEST,
            "Bad request: a response must carry the MCP-Session-Id of the session \
             whose request it answers",
        )),
        Step::Refused(response) => Err(json_response(&response)),
        Step::OverBudget(response) => {
            let mut refused = json_response(&response);
            *refused.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            Err(refused)
        }
    }
}

/// Runs a request the driver admitted. In a session, the request keeps the
/// session busy while it runs; the session `initialize` opens is added to
/// the table, or ended and the request refused when every session is busy.
fn handle(
    endpoint: Arc<Endpoint>,
    admitted: Admitted,
    open: Option<Open>,
    receive: ReceiveContext,
    notifier: Notifier,
) -> impl Future<Output = Response> + Send + 'static + use<> {
    let subject = receive.subject().to_owned();
    let busy = open.map(|open| endpoint.sessions.begin(open.session.id()));
    // Built here, and continued with `map`: an `async fn` or block would
    // hold the run twice (its arguments are kept beside what it awaits).
    admitted.run(receive, notifier).map(move |answer| {
        // The session stays busy until its new session (if any) is added.
        let _busy = busy;
        let response = answer.into_response();
        let Some(opened) = response.opened_session() else {
            return response;
        };
        match endpoint.sessions.insert(opened.clone(), &subject) {
            Ok(()) => response,
            Err(sessions::Full) => {
                opened.end();
                Busy::Sessions.refuse(response.id().cloned())
            }
        }
    })
}
