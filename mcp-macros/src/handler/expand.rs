//! The code `#[tool]`, `#[prompt]` and `#[resource]` emit beside the
//! user's function: a hidden handler type and its trait impl, reaching the
//! runtime only through `__private`. One table ([`signature`]) gives each
//! target's trait and method; the real impl and the stub emitted beside
//! errors are both written from it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::{Completes, Handler, Reference, Target, TaskMode};
use crate::attr::Docs;

/// A target's handler trait and its one method.
struct Signature {
    /// The trait, e.g. `ToolHandler`.
    trait_name: TokenStream,
    /// What `descriptor` returns, e.g. `Tool` (`None`: the trait has no
    /// descriptor).
    descriptor: Option<TokenStream>,
    /// The method, e.g. `call`.
    method: TokenStream,
    /// The method's parameters after `&self`: a name and a type.
    params: &'static [(&'static str, Param)],
    /// The method's future type in `__private`, e.g. `ToolFuture`.
    output: TokenStream,
    /// How the parameters become the `CallParts` the handler's own
    /// parameters are drawn from.
    parts: TokenStream,
}

/// The type of a trait method's parameter.
#[derive(Clone, Copy)]
enum Param {
    Object,
    Strings,
    Uri,
    Context,
    Reference,
    Argument,
    CompletionContext,
}

impl Param {
    fn ty(self) -> TokenStream {
        match self {
            Self::Object => quote!(_mcp::ToolArguments),
            Self::Strings => quote!(_mcp::BTreeMap<_mcp::String, _mcp::String>),
            Self::Uri => quote!(_mcp::String),
            Self::Context => quote!(_mcp::Ctx),
            Self::Reference => quote!(_mcp::CompletionReference),
            Self::Argument => quote!(_mcp::CompletionArgument),
            Self::CompletionContext => quote!(_mcp::Option<_mcp::CompletionContext>),
        }
    }
}

fn signature(target: &Target) -> Signature {
    match target {
        Target::Tool { .. } => Signature {
            trait_name: quote!(ToolHandler),
            descriptor: Some(quote!(Tool)),
            method: quote!(call),
            params: &[
                ("__mcp_arguments", Param::Object),
                ("__mcp_ctx", Param::Context),
            ],
            output: quote!(ToolFuture),
            parts: quote!(_mcp::CallParts::new(__mcp_arguments, __mcp_ctx)),
        },
        Target::Prompt => Signature {
            trait_name: quote!(PromptHandler),
            descriptor: Some(quote!(Prompt)),
            method: quote!(get),
            params: &[
                ("__mcp_arguments", Param::Strings),
                ("__mcp_ctx", Param::Context),
            ],
            output: quote!(PromptFuture),
            parts: quote!(_mcp::CallParts::from_strings(__mcp_arguments, __mcp_ctx)),
        },
        Target::Resource { .. } => Signature {
            trait_name: quote!(ResourceHandler),
            descriptor: Some(quote!(Resource)),
            method: quote!(read),
            params: &[("__mcp_ctx", Param::Context)],
            output: quote!(ResourceFuture),
            parts: quote!(_mcp::CallParts::new(
                _mcp::ToolArguments::empty(),
                __mcp_ctx
            )),
        },
        Target::ResourceTemplate { .. } => Signature {
            trait_name: quote!(ResourceTemplateHandler),
            descriptor: Some(quote!(ResourceTemplate)),
            method: quote!(read),
            params: &[
                ("__mcp_uri", Param::Uri),
                ("__mcp_variables", Param::Strings),
                ("__mcp_ctx", Param::Context),
            ],
            output: quote!(ResourceFuture),
            parts: quote!(_mcp::CallParts::from_strings(__mcp_variables, __mcp_ctx)),
        },
        Target::Completion { .. } => Signature {
            trait_name: quote!(CompletionHandler),
            descriptor: None,
            method: quote!(complete),
            params: &[
                ("__mcp_reference", Param::Reference),
                ("__mcp_argument", Param::Argument),
                ("__mcp_context", Param::CompletionContext),
                ("__mcp_ctx", Param::Context),
            ],
            output: quote!(CompletionFuture),
            parts: quote!(_mcp::CallParts::completion(
                __mcp_reference,
                __mcp_argument,
                __mcp_context,
                __mcp_ctx
            )),
        },
    }
}

/// The method's signature; `named` says which parameters the body uses
/// (the others are `_`).
fn method_head(sig: &Signature, named: impl Fn(&str) -> bool) -> TokenStream {
    let method = &sig.method;
    let output = &sig.output;
    let params = sig.params.iter().map(|(name, param)| {
        let ty = param.ty();
        if named(name) {
            let name = format_ident!("{name}");
            quote!(#name: #ty)
        } else {
            quote!(_: #ty)
        }
    });
    quote! {
        fn #method(&self, #(#params),*) -> _mcp::#output<'_>
    }
}

/// A free function's expansion: the function, its marker type, and (in a
/// `const` block) the marker's handler impl and its registration by name.
pub(crate) fn handler(h: &Handler<'_>) -> TokenStream {
    let func = h.func;
    let marker = marker(h);
    let rt = &h.runtime;
    let ident = &func.sig.ident;
    let handler_impl = handler_impl(h, &quote!(#ident));
    let register = register_with(h);
    quote! {
        #func

        #marker

        #[doc(hidden)]
        #[allow(unused_qualifications)]
        const _: () = {
            use #rt::__private as _mcp;

            #handler_impl

            impl _mcp::Register for #ident {
                fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
                    builder.#register(#ident {})
                }
            }
        };
    }
}

/// The builder method that registers the handler.
pub(crate) fn register_with(h: &Handler<'_>) -> syn::Ident {
    format_ident!("{}", h.target.register_with())
}

/// The handler trait's impl for `for_type` (the marker of a free function,
/// the generated type of a method), with `_mcp` in scope; and, for a
/// resource template, the compile-time check of its variables.
pub(crate) fn handler_impl(h: &Handler<'_>, for_type: &TokenStream) -> TokenStream {
    let sig = signature(&h.target);
    let trait_name = &sig.trait_name;
    let descriptor = sig.descriptor.as_ref().map(|ty| {
        let body = descriptor(h);
        quote! {
            fn descriptor(&self) -> _mcp::#ty {
                #body
            }
        }
    });
    // The call's parameters are named only when a handler parameter draws
    // on them (the URI always feeds a template's result); otherwise they
    // are `_` and nothing unused is emitted.
    let drawn = !h.params.is_empty();
    let head = method_head(&sig, |name| drawn || name == "__mcp_uri");
    let parts = drawn.then(|| {
        let init = &sig.parts;
        quote!(let mut __mcp_parts = #init;)
    });
    let body = call_body(h);
    let variables = template_check(h);
    let needs = needs(h);
    let task = task_support(&h.target);
    let completes = completes(&h.target);
    let scopes = (!h.scopes.is_empty()).then(|| {
        let scopes = &h.scopes;
        quote! {
            fn required_scopes(&self) -> &[&'static str] {
                &[#(#scopes),*]
            }
        }
    });
    quote! {
        impl _mcp::#trait_name for #for_type {
            #descriptor

            #head {
                #parts
                #body
            }

            #task
            #completes
            #scopes
            #needs
        }

        #variables
    }
}

/// `completes`, for a per-argument completer: the argument it completes.
fn completes(target: &Target) -> Option<TokenStream> {
    let Target::Completion {
        completes:
            Some(Completes {
                reference,
                argument,
                ..
            }),
    } = target
    else {
        return None;
    };
    let target = match reference {
        Reference::Prompt(prompt) => quote!(_mcp::CompletionTarget::prompt(#prompt, #argument)),
        Reference::Template(template) => {
            quote!(_mcp::CompletionTarget::template(#template, #argument))
        }
    };
    Some(quote! {
        fn completes(&self) -> _mcp::Option<_mcp::CompletionTarget> {
            _mcp::Option::Some(#target)
        }
    })
}

/// `task_support`, for a tool that may or must run as a task.
fn task_support(target: &Target) -> Option<TokenStream> {
    let mode = match target {
        Target::Tool {
            task: Some(TaskMode::Optional),
            ..
        } => quote!(Optional),
        Target::Tool {
            task: Some(TaskMode::Required),
            ..
        } => quote!(Required),
        _ => return None,
    };
    Some(quote! {
        fn task_support(&self) -> _mcp::TaskSupport {
            _mcp::TaskSupport::#mode
        }
    })
}

/// `needs_shared` and `needs_signer`, from the parameters' types: the
/// values `ServerBuilder::build` checks were shared (each parameter type's
/// `FromCall::SHARED`) and whether it refuses a server without a signer
/// (`FromCall::NEEDS_SIGNER`, true for `Resume<S>`). Read off the types,
/// not their names, so a `Shared<T>` or `Resume<S>` behind a type alias
/// counts too. (A completion never resumes.)
fn needs(h: &Handler<'_>) -> TokenStream {
    if h.params.len() == usize::from(h.value_param.is_some()) {
        return TokenStream::new();
    }
    // A completer's typed value is no extractor: it needs nothing.
    let of = |item: TokenStream| {
        h.params
            .iter()
            .enumerate()
            .filter(|(i, _)| h.value_param != Some(*i))
            .map(move |(_, ty)| quote_spanned!(ty.span()=> <#ty as _mcp::FromCall>::#item))
    };
    let shared = of(quote!(SHARED));
    let signer = (!matches!(h.target, Target::Completion { .. })).then(|| {
        let signer = of(quote!(NEEDS_SIGNER));
        quote! {
            fn needs_signer(&self) -> bool {
                _mcp::needs_signer(&[#(#signer),*])
            }
        }
    });
    quote! {
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(&[#(#shared),*])
        }
        #signer
    }
}

/// The hidden handler type: a braced struct, so it lives in the type
/// namespace beside the function of the same name. Register it with
/// `.tool(name {})`.
fn marker(h: &Handler<'_>) -> TokenStream {
    let vis = &h.func.vis;
    let ident = &h.func.sig.ident;
    let doc = format!(
        "The `#[{}]` handler of [`{ident}()`]: register it with `.handler::<{ident}>()`.",
        h.target.attribute(),
    );
    // Spanned on the function's name, so "defined here" notes point there.
    quote_spanned! {ident.span()=>
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}
    }
}

fn opt_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(s) => quote!(_mcp::Option::Some(#s)),
        None => quote!(_mcp::Option::None),
    }
}

/// A description as a `&'static str` expression.
fn docs(docs: Option<&Docs>) -> TokenStream {
    match docs {
        Some(Docs::Text(text)) => quote!(#text),
        Some(Docs::Expr(expr)) => expr.clone(),
        None => quote!(""),
    }
}

fn opt_docs(value: Option<&Docs>) -> TokenStream {
    match value {
        Some(_) => {
            let text = docs(value);
            quote!(_mcp::Option::Some(#text))
        }
        None => quote!(_mcp::Option::None),
    }
}

/// `ToolSpec { ... }.build()` and friends: the body of `descriptor`.
fn descriptor(h: &Handler<'_>) -> TokenStream {
    let name = &h.name;
    let title = opt_str(h.title.as_deref());
    let inputs = h
        .params
        .iter()
        .map(|ty| quote_spanned!(ty.span()=> <#ty as _mcp::FromCall>::input_schema));
    match &h.target {
        Target::Tool { hints: a, .. } => {
            let description = docs(h.description.as_ref());
            // Only what was said; the rest from `ToolSpec::DEFAULT`.
            let title = h
                .title
                .as_deref()
                .map(|t| quote!(title: _mcp::Option::Some(#t),));
            let hints = [
                ("read_only", a.read_only),
                ("destructive", a.destructive),
                ("idempotent", a.idempotent),
                ("open_world", a.open_world),
            ]
            .into_iter()
            .filter_map(|(key, value)| {
                let key = format_ident!("{key}");
                value.map(|v| quote!(#key: _mcp::Option::Some(#v),))
            });
            let output = h.output.map(|ty| {
                quote_spanned!(ty.span()=> output: <#ty as _mcp::IntoToolResult>::output_schema,)
            });
            quote! {
                _mcp::ToolSpec {
                    name: #name,
                    #title
                    description: #description,
                    #(#hints)*
                    input: &[#(#inputs),*],
                    #output
                    .._mcp::ToolSpec::DEFAULT
                }
                .build()
            }
        }
        Target::Prompt => {
            let description = docs(h.description.as_ref());
            quote! {
                _mcp::PromptSpec {
                    name: #name,
                    title: #title,
                    description: #description,
                    input: &[#(#inputs),*],
                }
                .build()
            }
        }
        Target::Completion { .. } => quote!(),
        Target::Resource { uri, mime_type }
        | Target::ResourceTemplate {
            template: uri,
            mime_type,
            ..
        } => {
            let build = match &h.target {
                Target::ResourceTemplate { .. } => quote!(template),
                _ => quote!(resource),
            };
            let description = opt_docs(h.description.as_ref());
            let mime = opt_str(mime_type.as_deref());
            quote! {
                _mcp::ResourceSpec {
                    uri: #uri,
                    name: #name,
                    title: #title,
                    description: #description,
                    mime_type: #mime,
                }
                .#build()
            }
        }
    }
}

/// Draws each parameter, calls the user's function, converts its output.
fn call_body(h: &Handler<'_>) -> TokenStream {
    let ident = &h.func.sig.ident;
    let args: Vec<_> = (0..h.params.len())
        .map(|i| format_ident!("__mcp_arg{i}"))
        .collect();
    // A completer's `&str` or `String` parameter takes what was typed; a
    // `&str` borrows it from a `String` the future holds. Its other
    // parameters are checked to be ones a completer may take.
    let per_argument = matches!(h.target, Target::Completion { completes: Some(_) });
    let draws = h.params.iter().zip(&args).enumerate().map(|(i, (ty, arg))| {
        if h.value_param == Some(i) {
            let owned = if super::is_str(ty) {
                quote!(_mcp::String)
            } else {
                quote!(#ty)
            };
            quote_spanned!(ty.span()=> let #arg: #owned = __mcp_parts.completion_value()?;)
        } else if per_argument {
            quote_spanned!(ty.span()=>
                _mcp::completion_param::<#ty>();
                let #arg: #ty = _mcp::FromCall::from_call(&mut __mcp_parts)?;
            )
        } else {
            quote_spanned!(ty.span()=> let #arg: #ty = _mcp::FromCall::from_call(&mut __mcp_parts)?;)
        }
    });
    let passed: Vec<_> = h
        .params
        .iter()
        .zip(&args)
        .enumerate()
        .map(|(i, (ty, arg))| {
            if h.value_param == Some(i) && super::is_str(ty) {
                quote!(&#arg)
            } else {
                quote!(#arg)
            }
        })
        .collect();
    // The output's type is inferred; the conversion is spanned on the
    // declared return type, so a type that cannot be returned is reported
    // there.
    let convert = match (&h.target, h.output) {
        (_, None) => quote!(::core::unreachable!()),
        // Named as the descriptor names it, so a type that cannot be
        // returned is one error (the same at both), not two.
        (Target::Tool { .. }, Some(ty)) => {
            quote_spanned!(ty.span()=> <#ty as _mcp::IntoToolResult>::into_tool_outcome(__mcp_output))
        }
        (Target::Prompt, Some(ty)) => {
            quote_spanned!(ty.span()=> _mcp::IntoPromptResult::into_prompt_outcome(__mcp_output))
        }
        (Target::Completion { .. }, Some(ty)) => {
            quote_spanned!(ty.span()=> _mcp::IntoCompleteResult::into_complete_result(__mcp_output))
        }
        (Target::Resource { uri, mime_type }, Some(ty)) => {
            let mime = opt_str(mime_type.as_deref());
            quote_spanned!(ty.span()=> _mcp::IntoResourceResult::into_resource_outcome(__mcp_output, #uri, #mime))
        }
        (Target::ResourceTemplate { mime_type, .. }, Some(ty)) => {
            let mime = opt_str(mime_type.as_deref());
            quote_spanned!(ty.span()=> _mcp::IntoResourceResult::into_resource_outcome(__mcp_output, &__mcp_uri, #mime))
        }
    };
    // A method is called on the shared value, which the future holds.
    let (this, call) = match &h.owner {
        Some(_) => (
            Some(quote!(let __mcp_this = _mcp::Arc::clone(&self.0);)),
            quote!(__mcp_this.#ident),
        ),
        None => (None, quote!(#ident)),
    };
    // Spanned on the function's name, so a future that is not `Send` is
    // reported there.
    quote_spanned! {ident.span()=>
        #this
        _mcp::Box::pin(async move {
            #(#draws)*
            let __mcp_output = #call(#(#passed),*).await;
            #convert
        })
    }
}

/// For a resource template: a function that is never called, naming each
/// template variable as a field of the variables type, so that a variable
/// the type does not have is a compile error at the template.
fn template_check(h: &Handler<'_>) -> Option<TokenStream> {
    let Target::ResourceTemplate {
        variables, span, ..
    } = &h.target
    else {
        return None;
    };
    let ty = h.params.iter().find(|ty| is_variables_type(ty))?;
    let fields = variables
        .iter()
        .filter(|name| syn::parse_str::<syn::Ident>(name).is_ok())
        .map(|name| {
            let field = syn::Ident::new(name, *span);
            quote_spanned!(*span=> let _ = &__mcp_variables.#field;)
        });
    Some(quote! {
        #[allow(dead_code, clippy::no_effect_underscore_binding)]
        fn __mcp_template_variables(__mcp_variables: &#ty) {
            #(#fields)*
        }
    })
}

/// Whether a parameter type is a struct of the template's variables,
/// rather than one of the runtime's extractors or a map: a plain path with
/// no generic arguments, not named like one of those.
fn is_variables_type(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    last.arguments.is_none()
        && !matches!(
            last.ident.to_string().as_str(),
            "Ctx" | "Context" | "JsonObject" | "Value" | "Map" | "String"
        )
}

/// What is emitted beside errors: the marker type and an impl whose
/// bodies never run, so code registering the handler reports nothing more.
pub(crate) fn stub(h: &Handler<'_>) -> TokenStream {
    let marker = marker(h);
    let rt = &h.runtime;
    let ident = &h.func.sig.ident;
    let sig = signature(&h.target);
    let trait_name = &sig.trait_name;
    let descriptor = sig
        .descriptor
        .as_ref()
        .map(|ty| quote!(fn descriptor(&self) -> _mcp::#ty { ::core::unreachable!() }));
    let head = method_head(&sig, |_| false);
    quote! {
        #marker

        #[allow(unused_qualifications, unreachable_code)]
        const _: () = {
            use #rt::__private as _mcp;
            impl _mcp::#trait_name for #ident {
                #descriptor
                #head { ::core::unreachable!() }
            }
            impl _mcp::Register for #ident {
                fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
                    builder
                }
            }
        };
    }
}
