//! `#[tool]`, `#[prompt]` and `#[resource]`: parse the function and the
//! attribute, check them, and emit the user's function unchanged plus a
//! hidden handler type that implements the runtime's handler trait.

mod attr;
mod expand;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::{Parse, ParseStream};

pub(crate) use attr::Kind;

use crate::attr::doc_comment;
use crate::ctxt::Ctxt;

/// The annotated function; its body stays unparsed tokens.
pub(crate) struct HandlerFn {
    pub(crate) attrs: Vec<syn::Attribute>,
    pub(crate) vis: syn::Visibility,
    pub(crate) sig: syn::Signature,
    pub(crate) body: proc_macro2::Group,
}

impl Parse for HandlerFn {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig: syn::Signature = input.parse()?;
        let body: proc_macro2::Group = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), "a handler needs a body: `{ ... }`"))?;
        if body.delimiter() != proc_macro2::Delimiter::Brace {
            return Err(syn::Error::new(
                body.span(),
                "a handler needs a body: `{ ... }`",
            ));
        }
        Ok(Self {
            attrs,
            vis,
            sig,
            body,
        })
    }
}

impl ToTokens for HandlerFn {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        for attr in &self.attrs {
            attr.to_tokens(tokens);
        }
        self.vis.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        self.body.to_tokens(tokens);
    }
}

/// One checked parameter.
pub(crate) struct Param<'a> {
    pub(crate) ty: &'a syn::Type,
}

/// Everything the expansion needs, checked.
pub(crate) struct Handler<'a> {
    pub(crate) kind: Kind,
    pub(crate) func: &'a HandlerFn,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param<'a>>,
    pub(crate) output: Option<&'a syn::Type>,
    pub(crate) attrs: attr::HandlerAttrs,
}

/// The whole attribute macro: never drops the user's function.
pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let func: HandlerFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(error) => {
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut cx = Ctxt::default();
    let attrs = attr::parse(&mut cx, kind, args);
    let handler = check(&mut cx, kind, &func, attrs);
    match cx.check() {
        Ok(()) => expand::handler(&handler),
        // A method sits in an `impl` or a trait, where the marker struct
        // and the stub impl cannot go: emit the method alone.
        Err(errors) if func.sig.receiver().is_some() => {
            let errors = errors.to_compile_error();
            quote!(#errors #func)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = expand::stub(&handler);
            quote!(#errors #func #stub)
        }
    }
}

fn check<'a>(
    cx: &mut Ctxt,
    kind: Kind,
    func: &'a HandlerFn,
    attrs: attr::HandlerAttrs,
) -> Handler<'a> {
    let sig = &func.sig;
    let what = kind.name();
    if sig.asyncness.is_none() {
        cx.error_spanned_by(
            sig.fn_token,
            format!("`#[{what}]` goes on an `async fn`: add `async` before `fn`"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            format!("a `#[{what}]` function cannot be generic: its schema is fixed when the server is built"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a handler cannot be variadic");
    }
    if let Some(constness) = &sig.constness {
        cx.error_spanned_by(
            constness,
            format!("a `#[{what}]` function cannot be `const`"),
        );
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(receiver) => cx.error_spanned_by(
                receiver,
                format!(
                    "`#[{what}]` goes on a free function, not a method; reach shared state with a `Shared<T>` parameter"
                ),
            ),
            syn::FnArg::Typed(typed) => params.push(Param { ty: &typed.ty }),
        }
    }
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) => Some(&**ty),
        syn::ReturnType::Default => {
            cx.error_spanned_by(
                &sig.ident,
                format!("a `#[{what}]` function must return its result: add a return type such as `-> String`"),
            );
            None
        }
    };
    let name = attrs
        .name
        .as_ref()
        .map_or_else(|| crate::attr::unraw(&sig.ident), |(n, _)| n.clone());
    if kind == Kind::Tool && !valid_tool_name(&name) {
        let span = attrs.name.as_ref().map_or(sig.ident.span(), |(_, s)| *s);
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "tool name `{name}` must be 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`"
            ),
        ));
    }
    let description = attrs
        .description
        .as_ref()
        .map(|(d, _)| d.clone())
        .or_else(|| doc_comment(&func.attrs));
    if description.is_none() && kind != Kind::Resource {
        cx.error_spanned_by(
            &sig.ident,
            format!(
                "a {what} needs a description for clients and models: add a doc comment (`/// ...`) or `description = \"...\"`"
            ),
        );
    }
    if kind == Kind::Resource {
        check_resource_uri(cx, &attrs, &sig.ident);
    }
    Handler {
        kind,
        func,
        name,
        title: attrs.title.as_ref().map(|(t, _)| t.clone()),
        description,
        params,
        output,
        attrs,
    }
}

fn check_resource_uri(cx: &mut Ctxt, attrs: &attr::HandlerAttrs, ident: &syn::Ident) {
    match (&attrs.uri, &attrs.uri_template) {
        (None, None) => cx.error_spanned_by(
            ident,
            "a resource needs `uri = \"...\"` or `uri_template = \"...{var}...\"` in `#[resource(...)]`",
        ),
        (Some(_), Some((_, span))) => cx.syn_error(syn::Error::new(
            *span,
            "give either `uri` or `uri_template`, not both",
        )),
        (Some((uri, span)), None) if uri.contains('{') => cx.syn_error(syn::Error::new(
            *span,
            "this URI has `{variables}`: use `uri_template = \"...\"` instead of `uri`",
        )),
        (None, Some((template, span))) if !valid_template(template) => cx.syn_error(syn::Error::new(
            *span,
            "a URI template is literal text and `{name}` variables (names of letters, digits, `_`), with no two variables side by side",
        )),
        _ => {}
    }
}

fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn valid_template(template: &str) -> bool {
    let mut rest = template;
    let mut last_was_var = false;
    while let Some(start) = rest.find(['{', '}']) {
        if rest[start..].starts_with('}') {
            return false;
        }
        let literal_before = start > 0;
        let Some(end) = rest[start..].find('}') else {
            return false;
        };
        let name = &rest[start + 1..start + end];
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || (last_was_var && !literal_before)
        {
            return false;
        }
        last_was_var = true;
        rest = &rest[start + end + 1..];
        if !rest.is_empty() && !rest.starts_with('{') {
            last_was_var = false;
        }
    }
    !rest.contains('}')
}
