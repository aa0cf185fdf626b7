//! Results as raw JSON: the call, prompt and read results exactly as the
//! server sent them, for tools that print or forward them (the `mcp`
//! command) rather than read them; [`Client::list_json`] does the same
//! for lists.
//!
//! They go through the same paths as the typed methods: the same framing,
//! the same auto-fulfil loop with the client's handlers and bounds. Only
//! the final decoding differs: a [`Value`] takes any shape.
//!
//! ```no_run
//! use mcp_runtime::client::{Client, ListKind};
//!
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! let client = Client::http("http://127.0.0.1:8080/mcp").connect().await?;
//! let tools = client.list_json(ListKind::Tools).await?;
//! println!("{}", serde_json::Value::Array(tools));
//! let result = client.call_tool_json("greet", None).await?;
//! println!("{result}");
//! # Ok(()) }
//! ```

use serde_json::Value;

use super::{Client, ClientError, tool_params, uri_params};
use crate::schema::JsonObject;
use crate::schema::request_methods::{PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};

impl Client {
    /// [`Client::call_tool`] returning the complete result as the server
    /// sent it (`content`, `isError`, `structuredContent`, `_meta`, ...).
    pub async fn call_tool_json(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<Value, ClientError> {
        self.fulfilling(TOOLS_CALL, tool_params(name, arguments))
            .await
    }

    /// [`Client::get_prompt`] returning the complete result as the server
    /// sent it.
    pub async fn get_prompt_json(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<Value, ClientError> {
        self.fulfilling(PROMPTS_GET, tool_params(name, arguments))
            .await
    }

    /// [`Client::read_resource`] returning the complete result as the
    /// server sent it.
    pub async fn read_resource_json(&self, uri: &str) -> Result<Value, ClientError> {
        self.fulfilling(RESOURCES_READ, uri_params(uri)).await
    }
}
