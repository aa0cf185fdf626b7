//! How messages travel between the client and one server: streamable HTTP
//! or a child's stdio. The wire moves messages and nothing else; what they
//! mean is the router's ([`super::inbound`]) and the client's.

mod http;
mod sse;
mod stdio;

use std::sync::Arc;

use serde_json::Value;

use super::ClientError;
use super::inbound::Router;
use crate::schema::RequestId;

pub(super) use http::HttpWire;
pub(super) use stdio::StdioWire;

/// One connection's transport.
#[derive(Clone)]
pub(super) enum Wire {
    Http(Arc<HttpWire>),
    Stdio(Arc<StdioWire>),
}

impl Wire {
    /// Sends a request and returns its response message.
    pub(super) async fn request(
        &self,
        router: &Router,
        id: &RequestId,
        body: &Value,
        headers: &[(String, String)],
    ) -> Result<Value, ClientError> {
        match self {
            Self::Http(http) => http.request(router, id, body, headers).await,
            Self::Stdio(stdio) => stdio.request(router, id, body).await,
        }
    }

    /// Sends a notification or a response to one of the server's requests.
    pub(super) async fn send(&self, router: &Router, message: &Value) -> Result<(), ClientError> {
        match self {
            Self::Http(http) => http.send(router, message).await,
            Self::Stdio(stdio) => stdio.send(router, message).await,
        }
    }

    /// The HTTP side, when this is HTTP.
    pub(super) fn http(&self) -> Option<&Arc<HttpWire>> {
        match self {
            Self::Http(http) => Some(http),
            Self::Stdio(_) => None,
        }
    }
}
