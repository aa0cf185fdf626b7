//! `#[handlers]` on an `impl` block: each `#[tool]`, `#[prompt]` or
//! `#[resource]` method becomes a handler type holding an `Arc` of the
//! value, checked and emitted as a free function's handler is; the block
//! implements `Handlers`, which registers them all.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};

use super::model::{Completes, Handler, Owner, Reference, Target};
use super::{HandlerFn, Kind, attr, check, expand as emit};
use crate::attr::runtime_path;
use crate::ctxt::Ctxt;

/// One method that carries a handler attribute, taken off it.
struct Method {
    kind: Kind,
    args: TokenStream,
    func: HandlerFn,
}

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                "`#[handlers]` goes on an `impl` block: `#[handlers] impl MyServer { ... }`",
            )
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut cx = Ctxt::new();
    if !args.is_empty() {
        cx.error_spanned_by(&args, "`#[handlers]` takes no arguments");
    }
    if let Some((_, path, _)) = &block.trait_ {
        cx.error_spanned_by(
            path,
            "`#[handlers]` goes on the type's own `impl` block (`impl MyServer { ... }`), not on a trait impl",
        );
    }
    if !block.generics.params.is_empty() || block.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &block.generics,
            "a `#[handlers]` block cannot be generic: its handlers' schemas are fixed when the server is built",
        );
    }
    let type_name = type_name(&block.self_ty);
    let methods = take_methods(&mut cx, &mut block);
    if methods.is_empty() {
        cx.error_spanned_by(
            &block.self_ty,
            "this `#[handlers]` block has no `#[tool]`, `#[prompt]`, `#[resource]` or `#[completion]` method",
        );
    }
    let self_ty = &block.self_ty;
    // What each handler is known by on the wire, for duplicates.
    let mut seen: Vec<(&str, String, syn::Ident)> = Vec::new();
    let handlers: Vec<_> = methods
        .iter()
        .map(|m| {
            let attrs = attr::parse(&mut cx, m.kind, m.args.clone());
            let owner = Owner {
                handler: format_ident!("__mcp_{}_{}", type_name, m.func.sig.ident),
            };
            let handler = check(&mut cx, m.kind, &m.func, &attrs, Some(owner));
            let (what, key, span) = wire_key(&handler, &attrs);
            if let Some(first) = seen.iter().find(|(w, k, _)| *w == what && *k == key) {
                let first = &first.2;
                let message = match &handler.target {
                    Target::Completion { completes: Some(c) } => format!(
                        "`fn {first}` already completes {} in this block: keep one",
                        describe(c)
                    ),
                    Target::Completion { completes: None } => format!(
                        "a second `#[completion]` method in this block: `fn {first}` is already the \
                         server's completion handler, and a server has one (this one would \
                         replace it); answer both in one method"
                    ),
                    Target::Tool { .. } | Target::Prompt => format!(
                        "{what} `{key}` is already declared in this block by `fn {first}`: give \
                         one of them another name (`#[{what}(name = \"...\")]`)"
                    ),
                    _ => format!(
                        "{what} `{key}` is already declared in this block by `fn {first}`: give \
                         one of them another URI, or serve both from one method"
                    ),
                };
                cx.syn_error(syn::Error::new(span, message));
            } else {
                seen.push((what, key, m.func.sig.ident.clone()));
            }
            handler
        })
        .collect();
    check_completers(&mut cx, &handlers);
    let rt = runtime_path(None);
    let errors = match cx.check() {
        Ok(()) => None,
        Err(errors) => Some(errors.to_compile_error()),
    };
    let items = handlers.iter().map(|h| {
        let owner = h.owner.as_ref().map(|o| &o.handler);
        let defined = quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            struct #owner(_mcp::Arc<#self_ty>);
        };
        // Beside errors, only the types: the impls could add errors of
        // their own to a handler that is already wrong.
        let implemented = errors
            .is_none()
            .then(|| emit::handler_impl(h, &owner.to_token_stream()));
        quote!(#defined #implemented)
    });
    let registrations = handlers.iter().map(|h| {
        let register = emit::register_with(h);
        let owner = h.owner.as_ref().map(|o| &o.handler);
        match errors {
            None => quote!(.#register(#owner(_mcp::Arc::clone(&this)))),
            Some(_) => quote!(),
        }
    });
    quote! {
        #errors
        #block

        #[doc(hidden)]
        #[allow(unused_qualifications)]
        const _: () = {
            use #rt::__private as _mcp;

            #(#items)*

            impl _mcp::Handlers for #self_ty {
                fn register(
                    this: _mcp::Arc<Self>,
                    builder: _mcp::ServerBuilder,
                ) -> _mcp::ServerBuilder {
                    let _ = &this;
                    builder #(#registrations)*
                }
            }
        };
    }
}

/// What a handler is known by on the wire (its kind, its name or URI) and
/// the user's token that says it: the `name`, `uri` or `uri_template`
/// string, else the method's name.
fn wire_key(h: &Handler<'_>, attrs: &attr::HandlerAttrs) -> (&'static str, String, Span) {
    let ident = h.func.sig.ident.span();
    let named = attrs.name.get().map_or(ident, syn::LitStr::span);
    match &h.target {
        Target::Tool { .. } => ("tool", h.name.clone(), named),
        Target::Prompt => ("prompt", h.name.clone(), named),
        Target::Resource { uri, .. } => (
            "resource",
            uri.clone(),
            attrs.uri.get().map_or(ident, syn::LitStr::span),
        ),
        Target::ResourceTemplate { template, span, .. } => {
            ("resource template", template.clone(), *span)
        }
        Target::Completion { completes: None } => ("completion", String::new(), ident),
        Target::Completion { completes: Some(c) } => ("completer", describe(c), c.argument_span),
    }
}

/// A completer's argument as messages name it: "argument `team` of prompt
/// `triage`".
fn describe(c: &Completes) -> String {
    match &c.reference {
        Reference::Prompt(prompt) => format!("argument `{}` of prompt `{prompt}`", c.argument),
        Reference::Template(template) => {
            format!("variable `{}` of template `{template}`", c.argument)
        }
    }
}

/// A completer in a block completes one of the block's own prompts or
/// templates: one the block does not declare is an error at its name, listing
/// those it does. (A prompt's argument names come from its arguments type,
/// which the macro cannot read; `ServerBuilder::build` checks them.)
fn check_completers(cx: &mut Ctxt, handlers: &[Handler<'_>]) {
    let prompts: Vec<&str> = handlers
        .iter()
        .filter(|h| matches!(h.target, Target::Prompt))
        .map(|h| h.name.as_str())
        .collect();
    let templates: Vec<&str> = handlers
        .iter()
        .filter_map(|h| match &h.target {
            Target::ResourceTemplate { template, .. } => Some(template.as_str()),
            _ => None,
        })
        .collect();
    for h in handlers {
        let Target::Completion { completes: Some(c) } = &h.target else {
            continue;
        };
        let (what, key, name, known) = match &c.reference {
            Reference::Prompt(name) => ("prompt", "prompt", name, &prompts),
            Reference::Template(template) => {
                ("resource template", "template", template, &templates)
            }
        };
        if known.contains(&name.as_str()) {
            continue;
        }
        cx.syn_error(syn::Error::new(
            c.reference_span,
            format!(
                "this `#[handlers]` block declares no {what} `{name}`: {}; a completer in a \
                 block completes one of the block's own {what}s (for one declared elsewhere, \
                 write the completer as a free `#[completion({key} = \"...\", argument = \"...\")]` \
                 function)",
                super::choose_from(what, known)
            ),
        ));
    }
}

/// Takes the handler attribute off every method that has one.
fn take_methods(cx: &mut Ctxt, block: &mut syn::ItemImpl) -> Vec<Method> {
    let mut methods = Vec::new();
    for item in &mut block.items {
        let syn::ImplItem::Fn(method) = item else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(|a| kind_of(a).is_some()) else {
            continue;
        };
        let attr = method.attrs.remove(position);
        let Some(kind) = kind_of(&attr) else {
            continue;
        };
        let args = match &attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                cx.error_spanned_by(
                    nv,
                    format!("expected `#[{}]` or `#[{}(...)]`", kind.name(), kind.name()),
                );
                TokenStream::new()
            }
        };
        let body = match syn::parse2::<proc_macro2::Group>(method.block.to_token_stream()) {
            Ok(body) => body,
            Err(error) => {
                cx.syn_error(error);
                continue;
            }
        };
        methods.push(Method {
            kind,
            args,
            func: HandlerFn {
                attrs: method.attrs.clone(),
                vis: method.vis.clone(),
                sig: method.sig.clone(),
                body,
            },
        });
    }
    methods
}

/// Which handler attribute `attr` is (`#[tool]`, `#[mcp_runtime::tool]`...).
fn kind_of(attr: &syn::Attribute) -> Option<Kind> {
    let last = attr.path().segments.last()?;
    match last.ident.to_string().as_str() {
        "tool" => Some(Kind::Tool),
        "prompt" => Some(Kind::Prompt),
        "resource" => Some(Kind::Resource),
        "completion" => Some(Kind::Completion),
        _ => None,
    }
}

/// The last name of the block's type, for naming the generated types.
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map_or_else(|| "Server".to_owned(), |s| s.ident.to_string()),
        _ => "Server".to_owned(),
    }
}
