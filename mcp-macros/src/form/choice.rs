//! `#[derive(ElicitChoice)]`.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::attr;
use crate::attr::{serde_names, unraw};
use crate::ctxt::Ctxt;

struct Variant<'a> {
    ident: &'a syn::Ident,
    value: String,
    title: Option<String>,
}

pub(crate) fn derive_choice(input: &syn::DeriveInput) -> TokenStream {
    super::derive(
        input,
        |cx| parse(cx, input),
        |rt, variants| expand(&input.ident, rt, &variants),
        |rt| stub(input, rt),
    )
}

fn parse<'a>(cx: &mut Ctxt, input: &'a syn::DeriveInput) -> Vec<Variant<'a>> {
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`ElicitChoice` cannot be derived for a generic enum: a choice has fixed values",
        );
    }
    let data = match &input.data {
        syn::Data::Enum(data) => data,
        syn::Data::Struct(data) => {
            cx.error_spanned_by(
                data.struct_token,
                "`ElicitChoice` is derived for fieldless enums; for a form, derive `ElicitForm` on the struct",
            );
            return Vec::new();
        }
        syn::Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "`ElicitChoice` is derived for fieldless enums, not unions",
            );
            return Vec::new();
        }
    };
    if data.variants.is_empty() {
        cx.error_spanned_by(&input.ident, "a choice needs at least one variant");
    }
    let container_serde = serde_names(cx, &input.attrs);
    let mut seen = BTreeSet::new();
    let mut variants = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, syn::Fields::Unit) {
            cx.error_spanned_by(
                &variant.fields,
                format!(
                    "variant `{}` carries data; a choice's variants must be fieldless, like `{}`",
                    variant.ident, variant.ident
                ),
            );
        }
        let serde = serde_names(cx, &variant.attrs);
        let attrs = attr::parse(cx, attr::Site::Variant, &variant.attrs);
        if serde.skip {
            continue;
        }
        let value = serde.rename.unwrap_or_else(|| {
            let name = unraw(&variant.ident);
            match container_serde.rename_all {
                Some((rule, _)) => rule.apply_to_variant(&name),
                None => name,
            }
        });
        if !seen.insert(value.clone()) {
            cx.error_spanned_by(
                &variant.ident,
                format!("two variants of this choice have the wire value `{value}`"),
            );
        }
        variants.push(Variant {
            ident: &variant.ident,
            value,
            title: attrs.title.get().map(syn::LitStr::value),
        });
    }
    variants
}

fn expand(ident: &syn::Ident, rt: &TokenStream, variants: &[Variant<'_>]) -> TokenStream {
    let options = variants.iter().map(|v| {
        let value = &v.value;
        let title = match &v.title {
            Some(title) => quote!(_mcp::Option::Some(#title)),
            None => quote!(_mcp::Option::None),
        };
        quote!(_mcp::ChoiceOption { value: #value, title: #title })
    });
    let from_value = variants.iter().map(|v| {
        let (variant, value) = (v.ident, &v.value);
        quote!(#value => _mcp::Option::Some(Self::#variant))
    });
    let to_value = variants.iter().map(|v| {
        let (variant, value) = (v.ident, &v.value);
        quote!(Self::#variant => #value)
    });
    quote! {
        #[doc(hidden)]
        #[allow(unused_qualifications)]
        const _: () = {
            use #rt::__private as _mcp;

            #[automatically_derived]
            impl _mcp::ElicitChoice for #ident {
                const OPTIONS: &'static [_mcp::ChoiceOption] = &[#(#options),*];

                fn from_value(__mcp_value: &::core::primitive::str) -> _mcp::Option<Self> {
                    match __mcp_value {
                        #(#from_value,)*
                        _ => _mcp::Option::None,
                    }
                }

                fn value(&self) -> &'static ::core::primitive::str {
                    match self {
                        #(#to_value,)*
                    }
                }
            }
        };
    }
}

/// The impl emitted beside errors; it keeps the type's generics (each type
/// parameter `'static`, as `ElicitChoice` needs), so a generic enum (an
/// error) gets no second error from the stub itself.
fn stub(input: &syn::DeriveInput, rt: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    let params: Vec<_> = generics.type_params().map(|p| p.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in params {
        where_clause
            .predicates
            .push(syn::parse_quote!(#param: 'static));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[allow(unused_qualifications, unreachable_code)]
        const _: () = {
            use #rt::__private as _mcp;
            impl #impl_generics _mcp::ElicitChoice for #ident #ty_generics #where_clause {
                const OPTIONS: &'static [_mcp::ChoiceOption] = &[];
                fn from_value(_: &::core::primitive::str) -> _mcp::Option<Self> {
                    _mcp::Option::None
                }
                fn value(&self) -> &'static ::core::primitive::str {
                    ::core::unreachable!()
                }
            }
        };
    }
}
