//! The fixtures the conformance scenarios call, by name.

use std::collections::BTreeMap;

use mcp_runtime::schema::{
    CallToolResult, ContentBlock, GetPromptResult, JsonObject, McpError, Prompt, PromptMessage,
    ReadResourceResult, Resource, ResourceContents, Tool,
};
use mcp_runtime::server::{
    BoxFuture, BuildError, Context, Outcome, PromptHandler, ResourceHandler, Server, ToolHandler,
};

/// A 1x1 transparent PNG.
pub(crate) const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

pub(crate) fn server() -> Result<Server, BuildError> {
    Server::builder("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .tool(SimpleText)
        .tool(ImageContent)
        .tool(ErrorHandling)
        .prompt(SimplePrompt)
        .resource(StaticText)
        .build()
}

struct SimpleText;

impl ToolHandler for SimpleText {
    fn descriptor(&self) -> Tool {
        Tool::new("test_simple_text", "Returns a simple text result.")
    }

    fn call(
        &self,
        _: JsonObject,
        _: Context,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async {
            Ok(Outcome::Complete(CallToolResult::text(
                "This is a simple text response for testing.",
            )))
        })
    }
}

struct ImageContent;

impl ToolHandler for ImageContent {
    fn descriptor(&self) -> Tool {
        Tool::new("test_image_content", "Returns a 1x1 PNG image.")
    }

    fn call(
        &self,
        _: JsonObject,
        _: Context,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async {
            Ok(Outcome::Complete(CallToolResult::new(vec![
                ContentBlock::image(PNG_1X1, "image/png"),
            ])))
        })
    }
}

struct ErrorHandling;

impl ToolHandler for ErrorHandling {
    fn descriptor(&self) -> Tool {
        Tool::new(
            "test_error_handling",
            "Always fails, reporting the failure as a tool result with isError.",
        )
    }

    fn call(
        &self,
        _: JsonObject,
        _: Context,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async {
            Ok(Outcome::Complete(CallToolResult::error(
                "This tool intentionally returns an error for testing.",
            )))
        })
    }
}

struct SimplePrompt;

impl PromptHandler for SimplePrompt {
    fn descriptor(&self) -> Prompt {
        Prompt::new("test_simple_prompt", "A prompt with no arguments.")
    }

    fn get(
        &self,
        _: BTreeMap<String, String>,
        _: Context,
    ) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, McpError>> {
        Box::pin(async {
            Ok(Outcome::Complete(GetPromptResult::new(vec![
                PromptMessage::user("This is a simple prompt for testing."),
            ])))
        })
    }
}

struct StaticText;

impl ResourceHandler for StaticText {
    fn descriptor(&self) -> Resource {
        Resource::new("test://static-text", "static-text")
            .with_description("A static text resource.")
            .with_mime_type("text/plain")
    }

    fn read(&self, _: Context) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, McpError>> {
        Box::pin(async {
            Ok(Outcome::Complete(ReadResourceResult::new(vec![
                ResourceContents::text(
                    "test://static-text",
                    "text/plain",
                    "This is the content of the static text resource.",
                ),
            ])))
        })
    }
}
