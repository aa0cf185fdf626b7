//! `MCP_MACROS_DEBUG`: prints what a macro emits, for debugging, while the
//! crate that uses it compiles. `MCP_MACROS_DEBUG=1` (or `all`) prints
//! every expansion; `MCP_MACROS_DEBUG=refund` prints only those of items
//! named `refund` (a handler function, a form, an `impl` block's type).
//! The output is the raw token stream, on stderr; `cargo expand` formats it.
//! Cargo does not rebuild a crate when only this variable changes: touch
//! one of its files (or `cargo clean -p <crate>`) to see the expansions.

use proc_macro2::TokenStream;

/// The environment variable.
const VARIABLE: &str = "MCP_MACROS_DEBUG";

/// Prints `output`, the expansion of `#[macro_name]` on `item`, when the
/// variable asks for it.
pub(crate) fn show(macro_name: &str, item: &TokenStream, output: &TokenStream) {
    let Some(wanted) = std::env::var_os(VARIABLE) else {
        return;
    };
    let wanted = wanted.to_string_lossy();
    let name = item_name(item).unwrap_or_default();
    if wanted == "1" || wanted == "all" || wanted == name.as_str() {
        eprintln!("{VARIABLE}: #[{macro_name}] on `{name}` expands to:\n{output}\n");
    }
}

/// The name of the item a macro is on.
fn item_name(item: &TokenStream) -> Option<String> {
    match syn::parse2::<syn::Item>(item.clone()).ok()? {
        syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
        syn::Item::Struct(s) => Some(s.ident.to_string()),
        syn::Item::Enum(e) => Some(e.ident.to_string()),
        syn::Item::Impl(i) => match *i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        _ => None,
    }
}
