//! Descriptions come from doc comments as they are written: line breaks
//! kept (so Markdown lists survive), and `#[doc = include_str!("...")]`
//! read at compile time.

use mcp_runtime::prelude::*;
use mcp_runtime::server::handler::ToolHandler;

/// Lists what it does:
///
/// - one thing,
/// - another.
#[tool]
async fn listed() -> String {
    String::new()
}

#[doc = include_str!("docs/deploy.md")]
#[tool]
async fn deploy() -> String {
    String::new()
}

/// Checks the build, then
#[doc = include_str!("docs/deploy.md")]
#[tool]
async fn checked_deploy() -> String {
    String::new()
}

#[test]
fn line_breaks_are_kept() {
    let tool = listed {}.descriptor();
    assert_eq!(
        tool.description.as_deref(),
        Some("Lists what it does:\n\n- one thing,\n- another.")
    );
}

#[test]
fn include_str_is_read_at_compile_time() {
    let tool = deploy {}.descriptor();
    assert_eq!(
        tool.description.as_deref(),
        Some(include_str!("docs/deploy.md"))
    );
    let tool = checked_deploy {}.descriptor();
    assert_eq!(
        tool.description.as_deref(),
        Some(concat!(
            "Checks the build, then\n",
            include_str!("docs/deploy.md")
        ))
    );
}
