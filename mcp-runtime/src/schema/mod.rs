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
mod json_key;
mod jsonrpc;
mod lifecycle;
mod meta;
mod notifications;
mod params;
mod prompts;
mod property_order;
mod resources;
mod result;
mod roots;
mod sampling;
mod subscriptions;
mod tasks;
mod tools;

pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use error::*;
pub use input::*;
pub(crate) use json_key::JsonKey;
#[cfg(feature = "server")]
pub(crate) use json_key::{ObjectOr, ReadObject};
pub use jsonrpc::*;
pub use lifecycle::*;
pub use meta::*;
pub use notifications::*;
pub use params::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
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

/// The names of the requests a client sends, in both protocol eras. The
/// server's method table (which era serves which, and how) is built on
/// these; nothing else spells a method name.
pub mod request_methods {
    /// 2026-07-28: the server's versions, capabilities and instructions.
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// The tools the server offers.
    pub const TOOLS_LIST: &str = "tools/list";
    /// Calls a tool (may ask for input).
    pub const TOOLS_CALL: &str = "tools/call";
    /// The prompts the server offers.
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// Renders a prompt (may ask for input).
    pub const PROMPTS_GET: &str = "prompts/get";
    /// The resources the server offers.
    pub const RESOURCES_LIST: &str = "resources/list";
    /// Reads a resource (may ask for input).
    pub const RESOURCES_READ: &str = "resources/read";
    /// The resource templates the server offers.
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// Suggests values for a prompt or template argument.
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// 2026-07-28: a long-lived stream of change notifications.
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// 2025 era: opens a session (removed in 2026-07-28).
    pub const INITIALIZE: &str = "initialize";
    /// 2025 era: liveness check (removed in 2026-07-28).
    pub const PING: &str = "ping";
    /// 2025 era: the session's log level (removed in 2026-07-28).
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// 2025 era: subscribes to a resource's updates (removed in 2026-07-28).
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// 2025 era: ends a resource subscription (removed in 2026-07-28).
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";

    /// The param that names the request's target, which the `Mcp-Name`
    /// HTTP header mirrors: `name` for `tools/call` and `prompts/get`,
    /// `uri` for `resources/read`, `taskId` for the tasks extension's
    /// `tasks/get`, `tasks/update` and `tasks/cancel`; `None` for every
    /// other method.
    pub fn target_param(method: &str) -> Option<&'static str> {
        use super::task_methods::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
        match method {
            TOOLS_CALL | PROMPTS_GET => Some("name"),
            RESOURCES_READ => Some("uri"),
            TASKS_GET | TASKS_UPDATE | TASKS_CANCEL => Some("taskId"),
            _ => None,
        }
    }
}

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
