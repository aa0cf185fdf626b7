//! Procedural macros of `mcp-runtime`: `#[tool]`, `#[prompt]`,
//! `#[resource]` and `#[completion]` on async functions, `#[handlers]` on an
//! `impl` block of such methods, and the derives of elicitation forms
//! (`ElicitForm`) and their choice fields (`ElicitChoice`).
//!
//! Use them through `mcp-runtime`, which re-exports them and documents
//! each one on its re-export (rustdoc shows a re-export's docs and its
//! item's one after the other, so each item here carries one line pointing
//! there). The generated code reaches the runtime only through
//! `::mcp_runtime::__private` (or the path given with
//! `#[elicit(crate = "...")]`).
//!
//! To see what a macro emits, set `MCP_MACROS_DEBUG=1` (every expansion)
//! or `MCP_MACROS_DEBUG=<item name>` while building: it is printed on
//! stderr. `cargo expand` shows the same, formatted.

mod attr;
mod ctxt;
mod debug;
mod form;
mod handler;
mod keys;

use proc_macro::TokenStream;

/// `#[derive(ElicitForm)]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::ElicitForm`](https://docs.rs/mcp-runtime/latest/mcp_runtime/derive.ElicitForm.html).
#[proc_macro_derive(ElicitForm, attributes(elicit, serde))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    let item: proc_macro2::TokenStream = input.into();
    let output = match syn::parse2::<syn::DeriveInput>(item.clone()) {
        Ok(input) => form::derive_form(&input),
        Err(error) => error.to_compile_error(),
    };
    debug::show("derive(ElicitForm)", &item, &output);
    output.into()
}

/// `#[derive(ElicitChoice)]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::ElicitChoice`](https://docs.rs/mcp-runtime/latest/mcp_runtime/derive.ElicitChoice.html).
#[proc_macro_derive(ElicitChoice, attributes(elicit, serde))]
pub fn derive_elicit_choice(input: TokenStream) -> TokenStream {
    let item: proc_macro2::TokenStream = input.into();
    let output = match syn::parse2::<syn::DeriveInput>(item.clone()) {
        Ok(input) => form::derive_choice(&input),
        Err(error) => error.to_compile_error(),
    };
    debug::show("derive(ElicitChoice)", &item, &output);
    output.into()
}

/// `#[tool]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::tool`](https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.tool.html).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Tool, args, item)
}

/// `#[completion]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::completion`](https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.completion.html).
#[proc_macro_attribute]
pub fn completion(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Completion, args, item)
}

/// `#[tool]`, `#[prompt]`, `#[resource]` and `#[completion]`, one way.
fn handler_attribute(kind: handler::Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let item: proc_macro2::TokenStream = item.into();
    let output = handler::expand(kind, args.into(), item.clone());
    debug::show(kind.name(), &item, &output);
    output.into()
}

/// `#[handlers]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::handlers`](https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.handlers.html).
#[proc_macro_attribute]
pub fn handlers(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: proc_macro2::TokenStream = item.into();
    let output = handler::impl_block(args.into(), item.clone());
    debug::show("handlers", &item, &output);
    output.into()
}

/// `#[prompt]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::prompt`](https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.prompt.html).
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Prompt, args, item)
}

/// `#[resource]`, defined in `mcp-runtime-macros` and documented as
/// [`mcp_runtime::resource`](https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.resource.html).
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Resource, args, item)
}
