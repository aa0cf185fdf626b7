//! `#[derive(ElicitForm)]` and `#[derive(ElicitChoice)]`: parse the item,
//! check it, emit the impl. On error the impl is still emitted as a stub
//! beside the errors, so code that uses the type reports nothing more.

mod attr;
mod choice;
mod field_type;
mod struct_form;

pub(crate) use choice::derive_choice;
pub(crate) use struct_form::derive_form;

use proc_macro2::TokenStream;
use quote::quote;

use crate::attr::runtime_path;
use crate::ctxt::Ctxt;

/// Runs one derive: reads `#[elicit(crate = "...")]`, parses the item, and
/// emits the impl, or the errors beside a stub impl so that uses of the
/// type add no errors of their own.
fn derive<T>(
    input: &syn::DeriveInput,
    parse: impl FnOnce(&mut Ctxt) -> T,
    expand: impl FnOnce(&TokenStream, T) -> TokenStream,
    stub: impl FnOnce(&TokenStream) -> TokenStream,
) -> TokenStream {
    let mut cx = Ctxt::new();
    let container = attr::parse(&mut cx, attr::Site::Container, &input.attrs);
    let rt = runtime_path(container.krate.get());
    let parsed = parse(&mut cx);
    match cx.check() {
        Ok(()) => expand(&rt, parsed),
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = stub(&rt);
            quote!(#errors #stub)
        }
    }
}
