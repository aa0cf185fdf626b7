//! The fixtures the conformance scenarios call, by name, written with the DSL.

use mcp_runtime::prelude::*;
use mcp_runtime::schema::ContentBlock;
use mcp_runtime::server::BuildError;

/// A 1x1 transparent PNG.
pub(crate) const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

pub(crate) fn server() -> Result<Server, BuildError> {
    Server::builder("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .tool(test_simple_text {})
        .tool(test_image_content {})
        .tool(test_error_handling {})
        .prompt(test_simple_prompt {})
        .resource(static_text {})
        .build()
}

/// Returns a simple text result.
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1x1 PNG image.
#[tool]
async fn test_image_content() -> CallToolResult {
    CallToolResult::new(vec![ContentBlock::image(PNG_1X1, "image/png")])
}

/// Always fails, reporting the failure as a tool result with isError.
#[tool]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing.",
    ))
}

/// A prompt with no arguments.
#[prompt]
async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".to_owned()
}

/// A static text resource.
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
async fn static_text() -> String {
    "This is the content of the static text resource.".to_owned()
}
