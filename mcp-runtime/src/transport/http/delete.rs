//! The `DELETE` path: a client ends its 2025-era session.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};

use super::Endpoint;
use super::admit::admit;
use super::respond::{MCP_SESSION_ID, plain_error};

/// Answers one `DELETE`: ends the session it names (its questions fail,
/// its streams close). 404 for an unknown one, 400 without one.
pub(super) async fn delete(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
) -> HttpResponse {
    let caller = match admit(&endpoint, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let Some(id) = headers.get(MCP_SESSION_ID) else {
        return plain_error(
            StatusCode::BAD_REQUEST,
            "Bad request: DELETE ends a session; send its MCP-Session-Id",
        );
    };
    let subject = caller.as_deref().map_or("", |c| c.subject.as_str());
    match id.to_str() {
        Ok(id) if endpoint.sessions.remove(id, subject) => StatusCode::OK.into_response(),
        _ => plain_error(
            StatusCode::NOT_FOUND,
            "Not found: no such session (it ended or expired)",
        ),
    }
}
