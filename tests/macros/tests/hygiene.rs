//! The expansion names nothing relative to the caller's scope.
//!
//! The crate root below shadows the prelude names generated code is most
//! likely to use unqualified (as serde's `test_gen.rs` does), and invokes all
//! five macros there: it must compile. Module `aliased` reaches the runtime
//! through `crate = "..."` beside a local, empty `mod mcp_runtime`; module
//! `facade` proves the override is really used.

#![allow(dead_code, non_upper_case_globals, clippy::unused_async)]

use std::collections::BTreeMap as Map;

use mcp_runtime::{ElicitChoice, ElicitForm, completion, prompt, resource, tool};

struct Some;
struct None;
struct Ok;
struct Err;
struct Box;
struct Send;
struct Result;
struct Option;
struct String;
struct Default;
// A plain name the expansion could bind: its own locals are `__mcp_*`.
const value: () = ();

type Text = ::std::string::String;

/// Echoes its text.
#[tool(read_only)]
async fn echo(args: Map<Text, Text>, _ctx: mcp_runtime::server::handler::Ctx) -> Text {
    args.get("text").cloned().unwrap_or_default()
}

/// Echoes its text, or fails.
#[tool]
async fn echo_or_fail(
    args: Map<Text, Text>,
) -> ::core::result::Result<Text, mcp_runtime::server::handler::ToolError> {
    match args.get("text") {
        ::core::option::Option::Some(text) => ::core::result::Result::Ok(text.clone()),
        ::core::option::Option::None => {
            ::core::result::Result::Err(mcp_runtime::server::handler::ToolError::new("no text"))
        }
    }
}

/// A greeting.
#[prompt]
async fn greeting(args: Map<Text, Text>) -> Text {
    ::std::format!("Say hello to {}.", args.len())
}

/// The README.
#[resource(uri = "file:///README.md")]
async fn readme() -> Text {
    "# Readme".to_owned()
}

/// One item.
#[resource(uri_template = "test://items/{id}")]
async fn item(vars: Map<Text, Text>) -> Text {
    vars.get("id").cloned().unwrap_or_default()
}

/// The ids that start with what was typed.
#[completion(template = "test://items/{id}", argument = "id")]
async fn item_ids(typed: &str) -> ::std::vec::Vec<Text> {
    ::std::vec![::std::format!("{typed}1")]
}

#[derive(ElicitChoice, PartialEq, Debug)]
enum Size {
    Small,
    #[elicit(title = "Large")]
    Large,
}

#[derive(ElicitForm)]
struct Order {
    /// Who orders.
    #[elicit(min_length = 1, default = "Ada")]
    name: Text,
    size: Size,
    extras: ::std::vec::Vec<Size>,
    note: ::core::option::Option<Text>,
    #[serde(skip)]
    internal: bool,
}

extern crate mcp_runtime as my_rt;

/// The same macros, told where the runtime is; the local `mcp_runtime`
/// module is empty, so a relative `mcp_runtime::...` would not resolve.
mod aliased {
    use std::collections::BTreeMap as Map;

    use my_rt::{ElicitChoice, ElicitForm, prompt, resource, tool};

    mod mcp_runtime {}

    /// Echoes its text.
    #[tool(crate = "my_rt")]
    pub(crate) async fn echo(args: Map<String, String>) -> String {
        args.get("text").cloned().unwrap_or_default()
    }

    /// A greeting.
    #[prompt(crate = "my_rt")]
    pub(crate) async fn greeting() -> String {
        "Say hello.".to_owned()
    }

    /// The README.
    #[resource(uri = "file:///README.md", crate = "my_rt")]
    pub(crate) async fn readme() -> String {
        "# Readme".to_owned()
    }

    #[derive(ElicitChoice)]
    #[elicit(crate = "my_rt")]
    pub(crate) enum Size {
        Small,
    }

    #[derive(ElicitForm)]
    #[elicit(crate = "my_rt")]
    pub(crate) struct Order {
        pub(crate) size: Size,
    }
}

/// A runtime facade whose `__private::ToolSpec` marks the descriptions it
/// builds: a tool told `crate = "crate::facade"` must go through it.
mod facade {
    pub(crate) mod __private {
        pub(crate) use ::mcp_runtime::__private::*;

        /// Shadows the glob-imported `ToolSpec`.
        pub(crate) struct ToolSpec {
            pub(crate) name: &'static str,
            pub(crate) title: Option<&'static str>,
            pub(crate) description: &'static str,
            pub(crate) read_only: Option<bool>,
            pub(crate) destructive: Option<bool>,
            pub(crate) idempotent: Option<bool>,
            pub(crate) open_world: Option<bool>,
            pub(crate) input: &'static [mcp_runtime::server::SchemaFn],
            pub(crate) output: mcp_runtime::server::SchemaFn,
        }

        impl ToolSpec {
            pub(crate) const DEFAULT: Self = Self {
                name: "",
                title: None,
                description: "",
                read_only: None,
                destructive: None,
                idempotent: None,
                open_world: None,
                input: &[],
                output: || None,
            };

            pub(crate) fn build(self) -> Tool {
                let mut tool = ::mcp_runtime::__private::ToolSpec {
                    name: self.name,
                    title: self.title,
                    description: self.description,
                    read_only: self.read_only,
                    destructive: self.destructive,
                    idempotent: self.idempotent,
                    open_world: self.open_world,
                    input: self.input,
                    output: self.output,
                }
                .build();
                tool.description = tool.description.map(|d| format!("{d} (via facade)"));
                tool
            }
        }
    }

    /// Says hello.
    #[mcp_runtime::tool(crate = "crate::facade")]
    pub(crate) async fn hello() -> String {
        "hello".to_owned()
    }
}

#[test]
fn shadowed_prelude_names_compile_and_register() {
    use mcp_runtime::server::Server;

    let server = Server::builder("hygiene", "1")
        .tool(echo {})
        .tool(echo_or_fail {})
        .prompt(greeting {})
        .resource(readme {})
        .resource_template(item {})
        .completion(item_ids {})
        .build();
    assert!(server.is_ok());
    assert_eq!(
        <Size as mcp_runtime::form::ElicitChoice>::from_value("Large"),
        ::core::option::Option::Some(Size::Large)
    );
    let schema = <Order as mcp_runtime::form::ElicitForm>::requested_schema();
    let mut properties: ::std::vec::Vec<&str> =
        schema.properties.keys().map(|k| k.as_str()).collect();
    properties.sort_unstable();
    assert_eq!(properties, ["extras", "name", "note", "size"]);
}

#[test]
fn crate_override_is_used() {
    use mcp_runtime::server::Server;
    use mcp_runtime::server::handler::ToolHandler;

    let server = Server::builder("aliased", "1")
        .tool(aliased::echo {})
        .prompt(aliased::greeting {})
        .resource(aliased::readme {})
        .build();
    assert!(server.is_ok());
    let _ = <aliased::Order as mcp_runtime::form::ElicitForm>::requested_schema();

    let tool = ToolHandler::descriptor(&facade::hello {});
    assert_eq!(
        tool.description.as_deref(),
        ::core::option::Option::Some("Says hello. (via facade)")
    );
}
