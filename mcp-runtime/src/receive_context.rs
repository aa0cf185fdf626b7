//! What a transport knows about a request beyond its body: the transport,
//! the authenticated caller, the MCP headers. Transports fill it in; the
//! server and the request-state binding read it.

use std::sync::Arc;

/// The authenticated caller, as the application's authentication hook
/// established it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Caller {
    /// The authenticated subject (e.g. a token's `sub`); empty when unknown.
    pub subject: String,
    /// The OAuth client the token was issued to, when known.
    pub client_id: Option<String>,
    /// The scopes the caller's token grants (empty without one).
    pub scopes: Vec<String>,
}

impl Caller {
    /// A caller identified by `subject`.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            client_id: None,
            scopes: Vec::new(),
        }
    }

    /// Sets the client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the granted scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the caller's token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Which transport a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    /// Newline-delimited JSON over stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Called in process (tests, benchmarks, embedding).
    InProcess,
}

/// The MCP request headers of an HTTP request, as received (values trimmed
/// of surrounding whitespace; names are case-insensitive on the wire).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRequestHeaders {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<String>,
    /// `Mcp-Method`.
    pub method: Option<String>,
    /// `Mcp-Name`.
    pub name: Option<String>,
    /// `Mcp-Param-*` headers: the suffix after `Mcp-Param-` and the value.
    pub params: Vec<(String, String)>,
}

/// Everything about a request that did not come in its JSON body.
#[derive(Debug, Clone)]
pub struct ReceiveContext {
    /// The transport.
    pub transport: TransportKind,
    /// The authenticated caller, if the application authenticates callers.
    pub caller: Option<Arc<Caller>>,
    /// The MCP headers, on HTTP; `None` elsewhere, where no header rules apply.
    pub headers: Option<HttpRequestHeaders>,
    /// The 2025-era session the message belongs to: found by its
    /// `MCP-Session-Id` on HTTP, the connection's on stdio. `None` for
    /// 2026-07-28 clients, which have no sessions.
    pub session: Option<crate::server::Session>,
    /// The protected resource the caller's token was checked against
    /// (`HttpTransport::protect`), for the scope challenges of handlers.
    pub protected: Option<Arc<crate::auth::ProtectedResource>>,
}

impl ReceiveContext {
    /// A context for a transport with no headers and no caller.
    pub fn new(transport: TransportKind) -> Self {
        Self {
            transport,
            caller: None,
            headers: None,
            session: None,
            protected: None,
        }
    }

    /// The authenticated subject, or `""` when nobody is authenticated.
    pub fn subject(&self) -> &str {
        self.caller.as_deref().map_or("", |c| c.subject.as_str())
    }
}
