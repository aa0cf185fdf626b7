//! A server whose argument types derive `JsonSchema` with no `schemars`
//! dependency of its own: `use mcp_runtime::prelude::*` brings both the
//! derive and the `schemars` path its expansion names. The crate's manifest
//! is the proof; the test checks the schema is the derived one.

use mcp_runtime::prelude::*;
use serde::Deserialize;

/// What `greet` needs.
#[derive(Deserialize, JsonSchema)]
pub struct GreetArgs {
    /// Whom to greet.
    pub who: String,
    /// How many exclamation marks.
    #[schemars(range(max = 5))]
    pub excitement: Option<u8>,
}

/// Greets someone.
#[tool]
pub async fn greet(args: GreetArgs) -> String {
    let marks = "!".repeat(usize::from(args.excitement.unwrap_or(1)));
    format!("Hello, {}{marks}", args.who)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use mcp_runtime::server::Server;
    use mcp_runtime::server::handler::ToolHandler;

    #[test]
    fn the_derived_schema_reaches_the_descriptor() {
        let tool = ToolHandler::descriptor(&super::greet {});
        let properties = tool.input_schema["properties"]
            .as_object()
            .expect("the derived schema has properties");
        assert_eq!(properties["who"]["description"], "Whom to greet.");
        assert_eq!(properties["excitement"]["maximum"], 5);
        let required: Vec<_> = tool.input_schema["required"]
            .as_array()
            .expect("a required list")
            .iter()
            .filter_map(|name| name.as_str())
            .collect();
        assert_eq!(required, ["who"]);
        assert!(
            Server::builder("no-schemars", "1")
                .handler::<super::greet>()
                .build()
                .is_ok()
        );
    }
}
