//! The client's `auth` room when the `auth` feature is off: the client never
//! signs in. The HTTP wire still asks for its authorizer, which is always
//! `None`: these types have no values, so no code path through them runs.

use std::convert::Infallible;
use std::time::Duration;

use super::ClientError;

/// No OAuth configuration exists without the `auth` feature.
pub(crate) enum OAuth {}

/// No authorizer exists without the `auth` feature.
pub(crate) enum Authorizer {}

/// No token exists without the `auth` feature.
pub(crate) enum Secret {}

impl Secret {
    /// Unreachable: there is no token.
    pub(crate) fn expose(&self) -> &str {
        match *self {}
    }
}

impl Authorizer {
    /// Unreachable: there is no configuration.
    pub(crate) fn new(
        oauth: OAuth,
        _server_url: &str,
        _connect_timeout: Duration,
    ) -> Result<Self, ClientError> {
        match oauth {}
    }

    /// Unreachable: there is no authorizer.
    pub(crate) async fn send<F>(
        &self,
        _build: F,
        _version: Option<&str>,
    ) -> Result<reqwest::Response, ClientError>
    where
        F: Fn(Option<&Secret>) -> Result<reqwest::RequestBuilder, ClientError>,
    {
        match *self {}
    }

    /// Unreachable: there is no authorizer.
    pub(crate) async fn bearer(
        &self,
        _version: Option<&str>,
    ) -> Result<Option<Secret>, Infallible> {
        match *self {}
    }
}
