//! Procedural macros of `mcp-runtime`: `#[tool]`, `#[prompt]` and
//! `#[resource]` on async functions, and the derives of elicitation forms
//! (`ElicitForm`) and their choice fields (`ElicitChoice`).
//!
//! Use them through `mcp-runtime`, which re-exports them; the generated
//! code reaches the runtime only through `::mcp_runtime::__private` (or the
//! path given with `#[elicit(crate = "...")]`).
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

/// Derives `ElicitForm` for a struct with named fields.
///
/// Each field becomes one field of a flat form. Field types: `String`,
/// `bool`, integers up to 64 bits, `f32`/`f64`, a fieldless enum deriving `ElicitChoice`
/// (single select), a `Vec`/`BTreeSet`/`HashSet` of such an enum (multi
/// select), and `Option` of any of these for a field the user may leave
/// empty. Doc comments become descriptions; `#[serde(rename...)]` is
/// followed so wire names match. Field options:
/// `#[elicit(title = "..", description = "..", min_length = 1,
/// max_length = 80, format = "email", minimum = 0, maximum = 10,
/// min_items = 1, max_items = 3, default = ..)]`.
///
/// See `mcp_runtime::form` for examples.
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

/// Derives `ElicitChoice` for a fieldless enum: its variants are the
/// values of a single-select field (or, in a `Vec`, a multi-select one).
/// `#[elicit(title = "..")]` on a variant gives it a display title;
/// `#[serde(rename...)]` sets wire values.
///
/// See `mcp_runtime::form` for examples.
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

/// Turns an `async fn` into an MCP tool.
///
/// The function stays as written; beside it the macro emits a hidden type
/// of the same name to register: `.handler::<deploy>()` (or
/// `.tool(deploy {})`). The descriptor comes
/// from the function: its name (or `name = "..."`), its doc comment (or
/// `description = "..."`; one of them is required), the input schema of
/// its arguments type, the output schema of `Json<T>` returns, and the
/// annotations `read_only`, `destructive`, `idempotent`, `open_world`.
///
/// Parameters, in any order: one arguments type (`Deserialize +
/// JsonSchema`), `Ctx`, `Resume<S>` (the verified resume state), and
/// `Shared<T>`. Returns: `CallToolResult`, `String`, `Json<T>`,
/// `Reply<S>`, or a `Result` of these with `ToolError` (a tool failure,
/// `isError: true`) or `McpError` (a protocol error).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Tool, args, item)
}

/// Turns an `async fn` into a completer of one named argument
/// (`#[completion(prompt = "...", argument = "...")]`,
/// `#[completion(template = "...", argument = "...")]`) or into the
/// server's catch-all (`#[completion]`); register with `.completion(name {})`
/// or `.handler::<name>()`. See `mcp_runtime::completion` for the
/// parameters, the returns and how wrong names are refused.
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

/// Makes an `impl` block's `#[tool]`, `#[prompt]`, `#[resource]` and
/// `#[completion]` methods (`async fn(&self, ...)`) handlers of one shared value, registered
/// together with `.handlers(value)`.
#[proc_macro_attribute]
pub fn handlers(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: proc_macro2::TokenStream = item.into();
    let output = handler::impl_block(args.into(), item.clone());
    debug::show("handlers", &item, &output);
    output.into()
}

/// Turns an `async fn` into an MCP prompt; register with `.handler::<name>()`.
///
/// The properties of its arguments type become the prompt's declared
/// arguments. It can ask for input like a tool (return
/// `Reply<S, GetPromptResult>`).
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Prompt, args, item)
}

/// Turns an `async fn` into an MCP resource: `#[resource(uri = "...")]`
/// or a resource template
/// `#[resource(uri_template = "test://template/{id}/data")]` whose
/// variables arrive as its arguments type; register either with
/// `.handler::<name>()`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    handler_attribute(handler::Kind::Resource, args, item)
}
