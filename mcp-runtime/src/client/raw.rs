//! Results as raw JSON: the lists and the call, prompt and read results
//! exactly as the server sent them, for tools that print or forward them
//! (the `mcp` command) rather than read them.
//!
//! They go through the same paths as the typed methods: the same `_meta`,
//! headers, page bounds and cursor checks, the same auto-fulfil loop with
//! the client's handlers and bounds. Only the final decoding differs: a
//! [`Value`] takes any shape.
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

use serde::Deserialize;
use serde_json::Value;

use super::{Client, ClientError, Page, tool_params, uri_params};
use crate::schema::request_methods::{
    PROMPTS_GET, PROMPTS_LIST, RESOURCES_LIST, RESOURCES_READ, RESOURCES_TEMPLATES_LIST,
    TOOLS_CALL, TOOLS_LIST,
};
use crate::schema::{JsonObject, Tool};

/// Which `*/list` method [`Client::list_json`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListKind {
    /// `tools/list`, whose items are under `tools`.
    Tools,
    /// `prompts/list`, whose items are under `prompts`.
    Prompts,
    /// `resources/list`, whose items are under `resources`.
    Resources,
    /// `resources/templates/list`, whose items are under `resourceTemplates`.
    ResourceTemplates,
}

impl ListKind {
    /// The method's name, such as `tools/list`.
    pub fn method(self) -> &'static str {
        match self {
            Self::Tools => TOOLS_LIST,
            Self::Prompts => PROMPTS_LIST,
            Self::Resources => RESOURCES_LIST,
            Self::ResourceTemplates => RESOURCES_TEMPLATES_LIST,
        }
    }
}

/// One page of a list, its items kept as JSON.
macro_rules! raw_page {
    ($name:ident, $field:literal) => {
        #[derive(Deserialize)]
        struct $name {
            #[serde(rename = $field)]
            items: Vec<Value>,
            #[serde(rename = "nextCursor", default)]
            next_cursor: Option<String>,
        }

        impl Page for $name {
            type Item = Value;
            fn split(self) -> (Vec<Value>, Option<String>) {
                (self.items, self.next_cursor)
            }
        }
    };
}

raw_page!(RawTools, "tools");
raw_page!(RawPrompts, "prompts");
raw_page!(RawResources, "resources");
raw_page!(RawTemplates, "resourceTemplates");

impl Client {
    /// Every item of a `*/list` method, following `nextCursor` through
    /// every page as the typed `list_*` methods do (within
    /// [`ClientLimits::max_list_pages`](super::ClientLimits::max_list_pages)),
    /// each item as the server sent it.
    ///
    /// For [`ListKind::Tools`] the client also records the tools'
    /// `x-mcp-header` annotations, as [`Client::list_tools`] does, so that
    /// later calls over HTTP send their `Mcp-Param-*` headers; an item that
    /// does not read as a tool is kept in the list and skipped there.
    pub async fn list_json(&self, kind: ListKind) -> Result<Vec<Value>, ClientError> {
        let method = kind.method();
        match kind {
            ListKind::Tools => {
                let items = self.list_all::<RawTools>(method).await?;
                let tools: Vec<Tool> = items
                    .iter()
                    .filter_map(|item| serde_json::from_value(item.clone()).ok())
                    .collect();
                self.remember_param_headers(&tools);
                Ok(items)
            }
            ListKind::Prompts => self.list_all::<RawPrompts>(method).await,
            ListKind::Resources => self.list_all::<RawResources>(method).await,
            ListKind::ResourceTemplates => self.list_all::<RawTemplates>(method).await,
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_pages_keep_items_as_sent() {
        let page: RawTools = serde_json::from_value(json!({
            "tools": [{"name": "a", "inputSchema": {"type": "object"}, "x-extra": 1}],
            "nextCursor": "2",
            "resultType": "complete",
        }))
        .unwrap();
        let (items, next) = page.split();
        assert_eq!(items[0]["x-extra"], 1);
        assert_eq!(next.as_deref(), Some("2"));
        let last: RawTemplates = serde_json::from_value(json!({"resourceTemplates": []})).unwrap();
        assert_eq!(last.split(), (vec![], None));
    }

    #[test]
    fn list_kinds_name_their_methods() {
        assert_eq!(ListKind::Tools.method(), "tools/list");
        assert_eq!(
            ListKind::ResourceTemplates.method(),
            "resources/templates/list"
        );
    }
}
