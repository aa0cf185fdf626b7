//! What a transport knows about a request beyond its body: the transport,
//! the authenticated caller, the MCP headers. Transports fill it in; the
//! server and the request-state binding read it.

use std::net::IpAddr;
use std::sync::Arc;

use crate::auth::{Caller, ProtectedResource};

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
    /// The protected resource the caller's token was checked against
    /// (`HttpTransport::protect`), for the scope challenges of handlers.
    pub protected: Option<Arc<ProtectedResource>>,
    /// The IP address the request came from, over HTTP (the peer of the
    /// connection: behind a proxy, the proxy's). What the task allowance of
    /// an unauthenticated client is counted by; never who may read what.
    pub peer_ip: Option<IpAddr>,
}

impl ReceiveContext {
    /// A context for a transport with no headers and no caller.
    pub fn new(transport: TransportKind) -> Self {
        Self {
            transport,
            caller: None,
            headers: None,
            protected: None,
            peer_ip: None,
        }
    }

    /// The authenticated subject, or `""` when nobody is authenticated.
    pub fn subject(&self) -> &str {
        self.caller.as_deref().map_or("", |c| c.subject.as_str())
    }
}
