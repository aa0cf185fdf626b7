//! The code `#[tool]`, `#[prompt]` and `#[resource]` emit beside the
//! user's function: a hidden handler type and its trait impl, reaching the
//! runtime only through `__private`.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{Handler, Kind};
use crate::attr::runtime_path;

pub(crate) fn handler(h: &Handler<'_>) -> TokenStream {
    let func = h.func;
    let marker = marker(h);
    let rt = runtime_path(h.attrs.krate.as_ref());
    let ident = &func.sig.ident;
    let descriptor = descriptor(h);
    let body = call_body(h);
    // The call's arguments and context are named only when a parameter
    // draws on them; otherwise they are `_` and nothing unused is emitted.
    let drawn = !h.params.is_empty();
    let named = |name: &str| match drawn {
        true => format_ident!("{name}").into_token_stream(),
        false => quote!(_),
    };
    let (arguments, variables, ctx) = (
        named("__mcp_arguments"),
        named("__mcp_variables"),
        named("__mcp_ctx"),
    );
    let parts = |init: TokenStream| drawn.then(|| quote!(let mut __mcp_parts = #init;));
    let (trait_name, method) = match h.kind {
        Kind::Tool => {
            let parts = parts(quote!(_mcp::CallParts::new(__mcp_arguments, __mcp_ctx)));
            (
                quote!(ToolHandler),
                quote! {
                    fn call(
                        &self,
                        #arguments: _mcp::JsonObject,
                        #ctx: _mcp::Context,
                    ) -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::CallToolResult>, _mcp::McpError>> {
                        #parts
                        #body
                    }
                },
            )
        }
        Kind::Prompt => {
            let parts = parts(quote!(_mcp::CallParts::from_strings(
                __mcp_arguments,
                __mcp_ctx
            )));
            (
                quote!(PromptHandler),
                quote! {
                    fn get(
                        &self,
                        #arguments: _mcp::BTreeMap<_mcp::String, _mcp::String>,
                        #ctx: _mcp::Context,
                    ) -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::GetPromptResult>, _mcp::McpError>> {
                        #parts
                        #body
                    }
                },
            )
        }
        Kind::Resource if h.attrs.uri_template.is_some() => {
            let parts = parts(quote!(_mcp::CallParts::from_strings(
                __mcp_variables,
                __mcp_ctx
            )));
            (
                quote!(ResourceTemplateHandler),
                quote! {
                    fn read(
                        &self,
                        __mcp_uri: _mcp::String,
                        #variables: _mcp::BTreeMap<_mcp::String, _mcp::String>,
                        #ctx: _mcp::Context,
                    ) -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::ReadResourceResult>, _mcp::McpError>> {
                        #parts
                        #body
                    }
                },
            )
        }
        Kind::Resource => {
            let parts = parts(quote!(_mcp::CallParts::new(
                _mcp::JsonObject::new(),
                __mcp_ctx
            )));
            (
                quote!(ResourceHandler),
                quote! {
                    fn read(
                        &self,
                        #ctx: _mcp::Context,
                    ) -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::ReadResourceResult>, _mcp::McpError>> {
                        #parts
                        #body
                    }
                },
            )
        }
    };
    quote! {
        #func

        #marker

        #[doc(hidden)]
        #[allow(unused_qualifications)]
        const _: () = {
            use #rt::__private as _mcp;

            #[automatically_derived]
            impl _mcp::#trait_name for #ident {
                fn descriptor(&self) -> _mcp::#descriptor

                #method
            }
        };
    }
}

/// The hidden handler type: a braced struct, so it lives in the type
/// namespace beside the function of the same name. Register it with
/// `.tool(name {})`.
fn marker(h: &Handler<'_>) -> TokenStream {
    let vis = &h.func.vis;
    let ident = &h.func.sig.ident;
    let doc = format!(
        "The `#[{}]` handler of [`{ident}()`]: register it with `.{}({ident} {{}})`.",
        h.kind.name(),
        match h.kind {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource if h.attrs.uri_template.is_some() => "resource_template",
            Kind::Resource => "resource",
        }
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

fn opt_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(b) => quote!(_mcp::Option::Some(#b)),
        None => quote!(_mcp::Option::None),
    }
}

/// `Tool { ... }.build()` and friends: the return type and body of `descriptor`.
fn descriptor(h: &Handler<'_>) -> TokenStream {
    let name = &h.name;
    let title = opt_str(h.title.as_deref());
    let inputs = h.params.iter().map(|p| {
        let ty = p.ty;
        quote_spanned!(ty.span()=> <#ty as _mcp::FromCall>::input_schema)
    });
    match h.kind {
        Kind::Tool => {
            let description = h.description.as_deref().unwrap_or_default();
            let a = &h.attrs;
            let (read_only, destructive, idempotent, open_world) = (
                opt_bool(a.read_only),
                opt_bool(a.destructive),
                opt_bool(a.idempotent),
                opt_bool(a.open_world),
            );
            let output = match h.output {
                Some(ty) => {
                    quote_spanned!(ty.span()=> <#ty as _mcp::IntoToolResult>::output_schema)
                }
                None => quote!(|| _mcp::Option::None),
            };
            quote! {
                Tool {
                    _mcp::ToolSpec {
                        name: #name,
                        title: #title,
                        description: #description,
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                        input: &[#(#inputs),*],
                        output: #output,
                    }
                    .build()
                }
            }
        }
        Kind::Prompt => {
            let description = h.description.as_deref().unwrap_or_default();
            quote! {
                Prompt {
                    _mcp::PromptSpec {
                        name: #name,
                        title: #title,
                        description: #description,
                        input: &[#(#inputs),*],
                    }
                    .build()
                }
            }
        }
        Kind::Resource => {
            let a = &h.attrs;
            let (uri, build, ty) = match (&a.uri, &a.uri_template) {
                (_, Some((template, _))) => {
                    (template.clone(), quote!(template), quote!(ResourceTemplate))
                }
                (Some((uri, _)), None) => (uri.clone(), quote!(resource), quote!(Resource)),
                (None, None) => (String::new(), quote!(resource), quote!(Resource)),
            };
            let description = opt_str(h.description.as_deref());
            let mime = opt_str(a.mime_type.as_ref().map(|(m, _)| m.as_str()));
            quote! {
                #ty {
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
}

/// Draws each parameter, calls the user's function, converts its output.
fn call_body(h: &Handler<'_>) -> TokenStream {
    let ident = &h.func.sig.ident;
    let args: Vec<_> = (0..h.params.len())
        .map(|i| format_ident!("__mcp_arg{i}"))
        .collect();
    let draws = h.params.iter().zip(&args).map(|(p, arg)| {
        let ty = p.ty;
        quote_spanned!(ty.span()=> let #arg = <#ty as _mcp::FromCall>::from_call(&mut __mcp_parts)?;)
    });
    let convert = match (h.kind, h.output) {
        (_, None) => quote!(::core::unreachable!()),
        (Kind::Tool, Some(ty)) => quote_spanned!(ty.span()=>
            <#ty as _mcp::IntoToolResult>::into_tool_outcome(__mcp_output)),
        (Kind::Prompt, Some(ty)) => quote_spanned!(ty.span()=>
            <#ty as _mcp::IntoPromptResult>::into_prompt_outcome(__mcp_output)),
        (Kind::Resource, Some(ty)) => {
            let mime = opt_str(h.attrs.mime_type.as_ref().map(|(m, _)| m.as_str()));
            let uri = match (&h.attrs.uri, &h.attrs.uri_template) {
                (_, Some(_)) => quote!(&__mcp_uri),
                (Some((uri, _)), None) => quote!(#uri),
                (None, None) => quote!(""),
            };
            quote_spanned!(ty.span()=>
                <#ty as _mcp::IntoResourceResult>::into_resource_outcome(__mcp_output, #uri, #mime))
        }
    };
    // Spanned on the function's name, so a future that is not `Send` is
    // reported there.
    quote_spanned! {ident.span()=>
        _mcp::Box::pin(async move {
            #(#draws)*
            let __mcp_output = #ident(#(#args),*).await;
            #convert
        })
    }
}

/// What is emitted beside errors: the marker type and an impl whose
/// bodies never run, so code registering the handler reports nothing more.
pub(crate) fn stub(h: &Handler<'_>) -> TokenStream {
    let marker = marker(h);
    let rt = runtime_path(h.attrs.krate.as_ref());
    let ident = &h.func.sig.ident;
    let imp = match h.kind {
        Kind::Tool => quote! {
            impl _mcp::ToolHandler for #ident {
                fn descriptor(&self) -> _mcp::Tool { ::core::unreachable!() }
                fn call(&self, _: _mcp::JsonObject, _: _mcp::Context)
                    -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::CallToolResult>, _mcp::McpError>> {
                    ::core::unreachable!()
                }
            }
        },
        Kind::Prompt => quote! {
            impl _mcp::PromptHandler for #ident {
                fn descriptor(&self) -> _mcp::Prompt { ::core::unreachable!() }
                fn get(&self, _: _mcp::BTreeMap<_mcp::String, _mcp::String>, _: _mcp::Context)
                    -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::GetPromptResult>, _mcp::McpError>> {
                    ::core::unreachable!()
                }
            }
        },
        Kind::Resource if h.attrs.uri_template.is_some() => quote! {
            impl _mcp::ResourceTemplateHandler for #ident {
                fn descriptor(&self) -> _mcp::ResourceTemplate { ::core::unreachable!() }
                fn read(&self, _: _mcp::String, _: _mcp::BTreeMap<_mcp::String, _mcp::String>, _: _mcp::Context)
                    -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::ReadResourceResult>, _mcp::McpError>> {
                    ::core::unreachable!()
                }
            }
        },
        Kind::Resource => quote! {
            impl _mcp::ResourceHandler for #ident {
                fn descriptor(&self) -> _mcp::Resource { ::core::unreachable!() }
                fn read(&self, _: _mcp::Context)
                    -> _mcp::BoxFuture<'_, _mcp::Result<_mcp::Outcome<_mcp::ReadResourceResult>, _mcp::McpError>> {
                    ::core::unreachable!()
                }
            }
        },
    };
    quote! {
        #marker

        #[allow(unused_qualifications, unreachable_code)]
        const _: () = {
            use #rt::__private as _mcp;
            #imp
        };
    }
}
