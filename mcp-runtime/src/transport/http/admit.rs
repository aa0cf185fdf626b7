//! Admission: what every method of the endpoint passes first (the
//! `Host`/`Origin` guard, then the bearer token or the protected resource's
//! verifier), the protected-resource metadata document, and which 2025-era
//! session a message names.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response as HttpResponse;

use super::Endpoint;
use super::guard::{self, Refusal};
use super::request::bearer_token;
use super::respond::{MCP_SESSION_ID, challenged, json_body, plain_error, unauthorized};
use super::sessions::Open;
use crate::BoxFuture;
use crate::auth::{Challenge, ProtectedResource, TokenError, TokenVerifier};
use crate::logged::Wire;
use crate::server::Caller;

/// Validates a bearer token and names the caller, or refuses it (`None`,
/// answered with HTTP 401).
pub trait Authenticator: Send + Sync + 'static {
    /// Checks `token` (the part after `Bearer `).
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Option<Caller>>;
}

impl<F> Authenticator for F
where
    F: Fn(&str) -> Option<Caller> + Send + Sync + 'static,
{
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Option<Caller>> {
        let caller = self(token);
        Box::pin(async move { caller })
    }
}

/// A protected resource and the verifier of its tokens.
pub(super) struct Protection {
    pub(super) resource: Arc<ProtectedResource>,
    pub(super) verifier: Box<dyn TokenVerifier>,
}

/// The checks every method of the endpoint passes first: the
/// `Host`/`Origin` guard and the bearer token. The caller, or the refusal.
pub(super) async fn admit(
    endpoint: &Endpoint,
    headers: &HeaderMap,
) -> Result<Option<Arc<Caller>>, HttpResponse> {
    match guard::check(&endpoint.host_policy, headers) {
        Ok(()) => {}
        Err(Refusal::Malformed(reason)) => {
            tracing::warn!(%reason, "refused a request with malformed Host or Origin headers");
            return Err(plain_error(
                StatusCode::BAD_REQUEST,
                "Bad request: send exactly one Host header and at most one Origin",
            ));
        }
        Err(Refusal::NotAllowed(reason)) => {
            tracing::warn!(%reason, "refused a request (DNS-rebinding protection)");
            return Err(plain_error(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host or Origin is not allowed",
            ));
        }
    }
    if let Some(protection) = &endpoint.protection {
        return protected(protection, headers).await.map(Some);
    }
    match &endpoint.authenticator {
        None => Ok(None),
        Some(authenticator) => match bearer_token(headers) {
            Some(token) => match authenticator.authenticate(token).await {
                Some(caller) => Ok(Some(Arc::new(caller))),
                None => Err(unauthorized()),
            },
            None => Err(unauthorized()),
        },
    }
}

/// The caller of a request to a protected endpoint, or its refusal with
/// the challenge that says why.
async fn protected(
    protection: &Protection,
    headers: &HeaderMap,
) -> Result<Arc<Caller>, HttpResponse> {
    let resource = &protection.resource;
    let Some(token) = bearer_token(headers) else {
        return Err(challenged(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: a bearer token is required",
            &resource.challenge(Challenge::NoToken),
        ));
    };
    let mut caller = match protection.verifier.verify(token).await {
        Ok(caller) => caller,
        Err(TokenError::Invalid(reason)) => {
            tracing::info!(reason = %Wire(&reason), "refused a bearer token");
            return Err(challenged(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: the bearer token is invalid or expired",
                &resource.challenge(Challenge::InvalidToken),
            ));
        }
        Err(TokenError::Unavailable(reason)) => {
            tracing::warn!(reason = %Wire(&reason), "could not verify a bearer token");
            return Err(plain_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service unavailable: the token cannot be verified now; retry later",
            ));
        }
    };
    // A broader scope grants the narrower ones it implies, for every check
    // from here on.
    caller.scopes = resource.granted(std::mem::take(&mut caller.scopes));
    let required = resource.required();
    if required.iter().any(|scope| !caller.has_scope(scope)) {
        return Err(challenged(
            StatusCode::FORBIDDEN,
            "Forbidden: the bearer token lacks a required scope",
            &resource.challenge(Challenge::InsufficientScope(required)),
        ));
    }
    Ok(Arc::new(caller))
}

/// `GET` of the protected-resource metadata document (RFC 9728), after the
/// `Host`/`Origin` guard; no token is needed.
pub(super) async fn metadata(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
) -> HttpResponse {
    if guard::check(&endpoint.host_policy, &headers).is_err() {
        return plain_error(
            StatusCode::FORBIDDEN,
            "Forbidden: the Host or Origin is not allowed",
        );
    }
    match &endpoint.protection {
        Some(protection) => json_body(StatusCode::OK, protection.resource.metadata().to_string()),
        None => plain_error(StatusCode::NOT_FOUND, "Not found"),
    }
}

/// What a message's `MCP-Session-Id` names.
pub(super) enum Named {
    /// No session: the header is absent.
    Nothing,
    /// An open session of this caller.
    Session(Open),
    /// A session that is unknown, ended, expired, or another caller's: 404.
    Unknown,
}

/// The session a message's `MCP-Session-Id` names, among `caller`'s.
pub(super) fn session_of(
    endpoint: &Endpoint,
    headers: &HeaderMap,
    caller: Option<&Caller>,
) -> Named {
    let Some(id) = headers.get(MCP_SESSION_ID) else {
        return Named::Nothing;
    };
    let subject = caller.map_or("", |c| c.subject.as_str());
    match id
        .to_str()
        .ok()
        .and_then(|id| endpoint.sessions.get(id, subject))
    {
        Some(open) => Named::Session(open),
        None => Named::Unknown,
    }
}

/// 404 for a message naming a session that is not (or no longer) open.
pub(super) fn no_such_session() -> HttpResponse {
    plain_error(
        StatusCode::NOT_FOUND,
        "Not found: no such session (it ended or expired); initialize a new one",
    )
}
