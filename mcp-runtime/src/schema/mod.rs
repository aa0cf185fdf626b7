//! Wire types of MCP 2026-07-28, one module per area of the specification.
//!
//! Every type here is a plain serde type. Outgoing results carry `resultType`
//! (see [`ResultType`]); incoming values are parsed leniently where the
//! specification asks for it (unknown capability keys, absent `resultType`).
//! Nothing in this module knows about transports or handlers.

mod capabilities;
mod completion;
mod content;
mod discover;
mod elicitation;
mod error;
mod input;
mod jsonrpc;
mod meta;
mod notifications;
mod params;
mod prompts;
mod resources;
mod result;
mod roots;
mod sampling;
mod subscriptions;
mod tools;

pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use error::*;
pub use input::*;
pub use jsonrpc::*;
pub use meta::*;
pub use notifications::*;
pub use params::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tools::*;

/// A JSON object: the type of `arguments`, `_meta`, capability payloads and
/// other open-ended maps on the wire.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The protocol revision this crate implements.
pub const LATEST_PROTOCOL_VERSION: &str = "2026-07-28";

/// The protocol revisions a server built on this crate accepts.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &[LATEST_PROTOCOL_VERSION];

/// The JSON-RPC version string every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// Reserved `_meta` keys of the 2026-07-28 revision.
pub mod meta_keys {
    /// Request `_meta`: the protocol version of this request (required).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request `_meta`: the client's capabilities for this request (required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Request `_meta`: the client's self-description (optional).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request `_meta`: the log level the client wants notifications at (optional, deprecated).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Request `_meta`: the token that opts a request into progress notifications.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// Result `_meta`: the server's self-description.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Notification and result `_meta` on a `subscriptions/listen` stream.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}
