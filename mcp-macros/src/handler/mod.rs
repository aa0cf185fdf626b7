//! `#[tool]`, `#[prompt]` and `#[resource]`, as serde_derive is built:
//! parse the function and the attribute (`attr.rs`), check them into a
//! finished [`Handler`] model (`model.rs`, here), then emit the user's
//! function unchanged plus a hidden handler type that implements the
//! runtime's handler trait (`expand.rs`).

mod attr;
mod expand;
mod impl_block;
mod model;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::{Parse, ParseStream};

pub(crate) use attr::Kind;
pub(crate) use impl_block::expand as impl_block;
use model::{Annotations, Completes, Handler, Owner, Reference, Target};

use crate::attr::{Docs, docs, runtime_path, unraw};
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

/// The whole attribute macro: never drops the user's function.
pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let func: HandlerFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(error) => {
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    // A method outside a `#[handlers]` block (whose expansion takes the
    // attribute off before it runs): one error naming the fix, and the
    // method as written, since the marker struct and the stub impl cannot
    // go in an `impl` or a trait. Nothing else is checked, so nothing else
    // is reported.
    if let Some(receiver) = func.sig.receiver() {
        let error = syn::Error::new_spanned(
            receiver,
            format!(
                "`#[{what}]` on a method needs `#[handlers]` on its `impl` block: write \
                 `#[handlers] impl MyServer {{ ... }}` and register the value with \
                 `.handlers(value)`; on a free function, reach shared state with a `Shared<T>` \
                 parameter",
                what = kind.name()
            ),
        )
        .to_compile_error();
        return quote!(#error #item);
    }
    let mut cx = Ctxt::new();
    let attrs = attr::parse(&mut cx, kind, args);
    let handler = check(&mut cx, kind, &func, &attrs, None);
    match cx.check() {
        Ok(()) => expand::handler(&handler),
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = expand::stub(&handler);
            quote!(#errors #func #stub)
        }
    }
}

/// Checks the function and the attribute, recording every problem in `cx`,
/// and builds the model (complete enough for a stub even when there were
/// problems).
fn check<'a>(
    cx: &mut Ctxt,
    kind: Kind,
    func: &'a HandlerFn,
    attrs: &attr::HandlerAttrs,
    owner: Option<Owner>,
) -> Handler<'a> {
    let sig = &func.sig;
    let what = kind.name();
    check_signature(cx, what, sig);
    if owner.is_some() {
        check_receiver(cx, what, sig);
    }
    let params: Vec<&syn::Type> = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Receiver(_) => None,
            syn::FnArg::Typed(typed) => Some(&*typed.ty),
        })
        .collect();
    for ty in params.iter().filter(|ty| !is_extractor(ty)) {
        check_wide_integers(cx, what, ty);
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
        .get()
        .map_or_else(|| unraw(&sig.ident), syn::LitStr::value);
    if kind == Kind::Tool && !mcp_runtime_rules::valid_tool_name(&name) {
        let span = attrs.name.get().map_or(sig.ident.span(), syn::LitStr::span);
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "tool name `{name}` must be {}",
                mcp_runtime_rules::TOOL_NAME_RULE
            ),
        ));
    }
    let description = match attrs.description.get() {
        Some(lit) => Some(Docs::Text(lit.value())),
        None => docs(&func.attrs),
    };
    if matches!(kind, Kind::Tool | Kind::Prompt) {
        check_description(cx, what, &sig.ident, attrs, description.as_ref());
    }
    let target = target(cx, kind, attrs, &sig.ident);
    // With both `uri` and `uri_template`, that one error is enough.
    if attrs.uri.get().is_none() {
        check_variables_taken(cx, &target, &params, &sig.ident);
    }
    let value_param = value_param(cx, &target, &params);
    Handler {
        func,
        target,
        value_param,
        name,
        title: attrs.title.get().map(syn::LitStr::value),
        description,
        params,
        output,
        runtime: runtime_path(attrs.krate.get()),
        owner,
        scopes: attrs
            .scopes
            .get()
            .map(|scopes| scopes.iter().map(syn::LitStr::value).collect())
            .unwrap_or_default(),
    }
}

/// A tool or a prompt has a description ([`mcp_runtime_rules::DESCRIPTION_RULE`]).
/// A doc comment of blank lines is none at all (`docs` drops them); an
/// `include_str!` one is read only when the server is built, which checks
/// it then.
fn check_description(
    cx: &mut Ctxt,
    what: &str,
    ident: &syn::Ident,
    attrs: &attr::HandlerAttrs,
    description: Option<&Docs>,
) {
    let missing = match description {
        None => true,
        Some(Docs::Text(text)) => !mcp_runtime_rules::valid_description(text),
        Some(Docs::Expr(_)) => false,
    };
    if !missing {
        return;
    }
    match attrs.description.get() {
        Some(lit) => cx.error_spanned_by(
            lit,
            format!(
                "this {what}'s description is empty: write what the {what} does, for clients and models to read"
            ),
        ),
        None => cx.error_spanned_by(
            ident,
            format!(
                "a {what} needs a description for clients and models: add a doc comment (`/// ...`) or `description = \"...\"`"
            ),
        ),
    }
}

/// A resource template's variables reach the function through a parameter
/// other than the runtime's extractors (`Ctx`, `Resume<S>`, `Shared<T>`):
/// a template none of whose parameters can take them would serve every URI
/// alike. (Which fields that parameter has is checked by the expansion.)
fn check_variables_taken(
    cx: &mut Ctxt,
    target: &Target,
    params: &[&syn::Type],
    ident: &syn::Ident,
) {
    let Target::ResourceTemplate {
        variables, span, ..
    } = target
    else {
        return;
    };
    if variables.is_empty() || params.iter().any(|ty| !is_extractor(ty)) {
        return;
    }
    let braced = variables
        .iter()
        .map(|v| format!("`{{{v}}}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let fields = variables
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = match variables.as_slice() {
        [_] => format!(
            "the template variable {braced} is not taken by `{ident}`: add a parameter whose type \
             has a field {fields} (a struct deriving `Deserialize` and `JsonSchema`), or remove \
             {braced} from the template"
        ),
        _ => format!(
            "the template variables {braced} are not taken by `{ident}`: add a parameter whose \
             type has the fields {fields} (a struct deriving `Deserialize` and `JsonSchema`), or \
             remove them from the template"
        ),
    };
    cx.syn_error(syn::Error::new(*span, message));
}

/// Refuses `u128` and `i128` anywhere in an arguments parameter's type as
/// written: arguments arrive as JSON, whose numbers carry integers exactly
/// only up to 64 bits, so larger values would be refused at run time.
fn check_wide_integers(cx: &mut Ctxt, what: &str, ty: &syn::Type) {
    match ty {
        syn::Type::Path(path) => {
            if let Some(qself) = &path.qself {
                check_wide_integers(cx, what, &qself.ty);
            }
            for segment in &path.path.segments {
                let name = segment.ident.to_string();
                if matches!(name.as_str(), "u128" | "i128") && path.path.segments.len() == 1 {
                    let instead = if name == "u128" { "u64" } else { "i64" };
                    cx.error_spanned_by(
                        &segment.ident,
                        format!(
                            "`{name}` cannot be a `#[{what}]` argument: JSON carries integers exactly only up to 64 bits; use `{instead}`, or a `String` for larger values"
                        ),
                    );
                }
                if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(ty) = arg {
                            check_wide_integers(cx, what, ty);
                        }
                    }
                }
            }
        }
        syn::Type::Reference(r) => check_wide_integers(cx, what, &r.elem),
        syn::Type::Paren(p) => check_wide_integers(cx, what, &p.elem),
        syn::Type::Group(g) => check_wide_integers(cx, what, &g.elem),
        syn::Type::Slice(s) => check_wide_integers(cx, what, &s.elem),
        syn::Type::Array(a) => check_wide_integers(cx, what, &a.elem),
        syn::Type::Tuple(t) => {
            for elem in &t.elems {
                check_wide_integers(cx, what, elem);
            }
        }
        _ => {}
    }
}

/// Whether a parameter type is one of the runtime's extractors, which take
/// nothing from the arguments: `Ctx`, `Resume<S>`, `Shared<T>`.
fn is_extractor(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.qself.is_none()
        && path.path.segments.last().is_some_and(|last| {
            matches!(last.ident.to_string().as_str(), "Ctx" | "Resume" | "Shared")
        })
}

/// A method of a `#[handlers]` block takes `&self` first. (A free
/// function's receiver is refused by [`expand`] before any check.)
fn check_receiver(cx: &mut Ctxt, what: &str, sig: &syn::Signature) {
    match sig.receiver() {
        None => cx.error_spanned_by(
            &sig.ident,
            format!("a `#[{what}]` method of a `#[handlers]` block takes `&self` first"),
        ),
        Some(receiver)
            if receiver.reference.is_none()
                || receiver.mutability.is_some()
                || receiver.colon_token.is_some() =>
        {
            cx.error_spanned_by(
                receiver,
                format!(
                    "a `#[{what}]` method takes `&self`: every request shares the one value (use interior mutability, e.g. a `Mutex` field, to change it)"
                ),
            );
        }
        _ => {}
    }
}

fn check_signature(cx: &mut Ctxt, what: &str, sig: &syn::Signature) {
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
}

/// What the handler serves, from its kind and attribute.
fn target(cx: &mut Ctxt, kind: Kind, attrs: &attr::HandlerAttrs, ident: &syn::Ident) -> Target {
    let mime_type = attrs.mime_type.get().map(syn::LitStr::value);
    match kind {
        Kind::Tool => Target::Tool {
            hints: Annotations {
                read_only: attrs.read_only.get().copied(),
                destructive: attrs.destructive.get().copied(),
                idempotent: attrs.idempotent.get().copied(),
                open_world: attrs.open_world.get().copied(),
            },
            task: attrs.task.get().copied(),
        },
        Kind::Prompt => Target::Prompt,
        Kind::Completion => Target::Completion {
            completes: completes(cx, attrs),
        },
        Kind::Resource => match (attrs.uri.get(), attrs.uri_template.get()) {
            (None, None) => {
                cx.error_spanned_by(
                    ident,
                    "a resource needs `uri = \"...\"` or `uri_template = \"...{var}...\"` in `#[resource(...)]`",
                );
                Target::Resource {
                    uri: String::new(),
                    mime_type,
                }
            }
            (Some(uri), None) => {
                if !mcp_runtime_rules::valid_fixed_uri(&uri.value()) {
                    cx.error_spanned_by(
                        uri,
                        "this URI has `{variables}`: use `uri_template = \"...\"` instead of `uri`",
                    );
                }
                Target::Resource {
                    uri: uri.value(),
                    mime_type,
                }
            }
            (uri, Some(template)) => {
                if uri.is_some() {
                    cx.error_spanned_by(template, "give either `uri` or `uri_template`, not both");
                }
                let text = template.value();
                let variables = match mcp_runtime_rules::template_parts(&text) {
                    Some(parts) => parts
                        .into_iter()
                        .filter_map(|part| match part {
                            mcp_runtime_rules::TemplatePart::Variable(name) => {
                                Some(name.to_owned())
                            }
                            mcp_runtime_rules::TemplatePart::Literal(_) => None,
                        })
                        .collect(),
                    None => {
                        cx.error_spanned_by(
                            template,
                            format!("a URI template is {}", mcp_runtime_rules::URI_TEMPLATE_RULE),
                        );
                        Vec::new()
                    }
                };
                Target::ResourceTemplate {
                    template: text,
                    variables,
                    span: template.span(),
                    mime_type,
                }
            }
        },
    }
}

/// What `#[completion(prompt = "...", argument = "...")]` or
/// `#[completion(template = "...", argument = "...")]` completes; `None`
/// for the catch-all `#[completion]` (and after an error, reported here).
/// A template's variables are known here, so an argument that is not one
/// of them is an error at the argument's name.
fn completes(cx: &mut Ctxt, attrs: &attr::HandlerAttrs) -> Option<Completes> {
    let (prompt, template, argument) = (
        attrs.prompt.get(),
        attrs.template.get(),
        attrs.argument.get(),
    );
    let reference = match (prompt, template) {
        (Some(_), Some(template)) => {
            cx.error_spanned_by(
                template,
                "give either `prompt = \"...\"` or `template = \"...\"`, not both: a completer completes one argument of one of them",
            );
            return None;
        }
        (Some(prompt), None) => (Reference::Prompt(prompt.value()), prompt),
        (None, Some(template)) => (Reference::Template(template.value()), template),
        (None, None) => {
            if let (Some(argument), Some(span)) = (argument, attrs.argument.span()) {
                cx.syn_error(syn::Error::new(
                    span,
                    format!(
                        "`argument = {:?}` needs what it belongs to: add `prompt = \"...\"` (an argument of a prompt) or `template = \"...\"` (a variable of a resource template)",
                        argument.value()
                    ),
                ));
            }
            return None;
        }
    };
    let (reference, lit) = reference;
    let Some(argument) = argument else {
        let what = match reference {
            Reference::Prompt(_) => "argument of the prompt",
            Reference::Template(_) => "variable of the template",
        };
        cx.error_spanned_by(
            lit,
            format!("name the {what} this completes: add `argument = \"...\"`"),
        );
        return None;
    };
    if let Reference::Template(template) = &reference {
        match mcp_runtime_rules::template_parts(template) {
            None => cx.error_spanned_by(
                lit,
                format!("a URI template is {}", mcp_runtime_rules::URI_TEMPLATE_RULE),
            ),
            Some(parts) => {
                let variables: Vec<&str> = parts
                    .iter()
                    .filter_map(|part| match part {
                        mcp_runtime_rules::TemplatePart::Variable(name) => Some(*name),
                        mcp_runtime_rules::TemplatePart::Literal(_) => None,
                    })
                    .collect();
                if !variables.contains(&argument.value().as_str()) {
                    cx.error_spanned_by(
                        argument,
                        format!(
                            "the template `{template}` has no variable `{}`: {}",
                            argument.value(),
                            choose_from("variable", &variables)
                        ),
                    );
                }
            }
        }
    }
    Some(Completes {
        reference,
        reference_span: lit.span(),
        argument: argument.value(),
        argument_span: argument.span(),
    })
}

/// "write one of `a`, `b`", for a message about a misspelled `what`.
pub(crate) fn choose_from(what: &str, names: &[&str]) -> String {
    match names {
        [] => format!("it has no {what} to complete"),
        [one] => format!("write `{one}`"),
        _ => {
            let listed: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
            format!("write one of {}", listed.join(", "))
        }
    }
}

/// For a per-argument completer, the parameter that takes what the user
/// typed: the one written `&str` or `String` (at most one).
fn value_param(cx: &mut Ctxt, target: &Target, params: &[&syn::Type]) -> Option<usize> {
    if !matches!(target, Target::Completion { completes: Some(_) }) {
        return None;
    }
    let mut found = None;
    for (i, ty) in params.iter().enumerate() {
        if !is_str(ty) && !is_string(ty) {
            continue;
        }
        if found.is_some() {
            cx.error_spanned_by(
                ty,
                "a completer takes what the user typed once: remove this parameter (the other \
                 arguments' values are in a `CompletionContext` parameter)",
            );
        } else {
            found = Some(i);
        }
    }
    found
}

/// Whether `ty` is written `&str`.
pub(crate) fn is_str(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(r) if r.mutability.is_none()
        && matches!(&*r.elem, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("str")))
}

/// Whether `ty` is written `String` (with any path before it).
fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|last| last.ident == "String" && last.arguments.is_none()))
}
