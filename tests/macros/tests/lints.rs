//! The expansion is clean under strict lints: every macro is used on `pub`
//! items of a crate that denies `missing_docs`, `unused_qualifications`,
//! unused code, clippy's default groups and `pedantic`/`nursery`, and
//! `allow_attributes` (the expansion's own `#[allow]`s must not trip it).
//! Run through `cargo clippy -p mcp-macro-tests --all-targets -- -D warnings`.

#![deny(
    missing_docs,
    unused_qualifications,
    unused,
    unreachable_pub,
    rust_2018_idioms,
    clippy::all,
    clippy::allow_attributes_without_reason,
    clippy::pedantic,
    clippy::allow_attributes,
    clippy::nursery
)]
#![expect(
    clippy::unused_async,
    reason = "a handler must be an `async fn`; these have nothing to await"
)]

use std::collections::BTreeMap;

use mcp_runtime::prelude::*;
use mcp_runtime::schema::McpError;

/// The arguments of [`add`].
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// The first term.
    pub a: i64,
    /// The second term.
    pub b: i64,
}

/// The result of [`add`].
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// Adds two numbers.
///
/// # Errors
///
/// Never; the `Result` shows that `ToolError` results pass the lints.
#[tool(read_only, idempotent, open_world = false)]
pub async fn add(args: AddArgs, _ctx: Ctx) -> Result<Json<Sum>, ToolError> {
    Ok(Json(Sum {
        sum: args.a + args.b,
    }))
}

/// A greeting.
///
/// # Errors
///
/// Never; the `Result` shows that `McpError` results pass the lints.
#[prompt(name = "greeting", title = "Greeting")]
pub async fn greeting(args: BTreeMap<String, String>) -> Result<String, McpError> {
    Ok(format!("Say hello to {} people.", args.len()))
}

/// The README.
#[resource(uri = "file:///README.md", mime_type = "text/markdown")]
pub async fn readme() -> String {
    "# Readme".to_owned()
}

/// One item.
#[resource(uri_template = "test://items/{id}")]
pub async fn item(vars: BTreeMap<String, String>) -> String {
    vars.get("id").cloned().unwrap_or_default()
}

/// Completes the `id` of [`item`]: the ids that start with what was typed.
#[completion(template = "test://items/{id}", argument = "id")]
pub async fn item_ids(typed: &str, _ctx: Ctx) -> Vec<String> {
    ["1", "12", "2"]
        .iter()
        .filter(|id| id.starts_with(typed))
        .map(|id| (*id).to_owned())
        .collect()
}

/// Completes every other argument.
#[completion]
pub async fn anything() -> Vec<String> {
    Vec::new()
}

/// A size.
#[derive(ElicitChoice, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    /// Small.
    Small,
    /// Large.
    #[elicit(title = "Large (L)")]
    Large,
}

/// An order form.
#[derive(ElicitForm, Debug)]
pub struct Order {
    /// Who orders.
    #[elicit(min_length = 1, max_length = 40)]
    pub name: String,
    /// How many.
    #[elicit(minimum = 1, maximum = 9, default = 1)]
    pub count: u8,
    /// Which size.
    pub size: Size,
    /// Extras.
    #[elicit(min_items = 0, max_items = 2)]
    pub extras: Vec<Size>,
    /// Anything else.
    pub note: Option<String>,
}

#[test]
fn registers() {
    let server = Server::builder("lints", "1")
        .tool(add {})
        .prompt(greeting {})
        .resource(readme {})
        .resource_template(item {})
        .completion(item_ids {})
        .completion(anything {})
        .build();
    assert!(server.is_ok());
    let _ = Order::form("Your order?");
    assert_eq!(Size::from_value("large"), Some(Size::Large));
}
