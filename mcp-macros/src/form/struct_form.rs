//! `#[derive(ElicitForm)]`.

use std::collections::BTreeMap;

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::attr::{self, Default, ElicitAttrs};
use super::field_type;
use crate::attr::{doc_comment, serde_names, unraw};
use crate::ctxt::Ctxt;

/// A form field, checked.
struct Field<'a> {
    ident: &'a syn::Ident,
    ty: &'a syn::Type,
    wire_name: String,
    skip: bool,
    description: Option<String>,
    attrs: ElicitAttrs,
}

pub(crate) fn derive_form(input: &syn::DeriveInput) -> TokenStream {
    super::derive(
        input,
        |cx| parse(cx, input),
        |rt, fields| expand(&input.ident, rt, &fields),
        |rt| stub(input, rt),
    )
}

fn parse<'a>(cx: &mut Ctxt, input: &'a syn::DeriveInput) -> Vec<Field<'a>> {
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`ElicitForm` cannot be derived for a generic type: a form has one fixed schema",
        );
    }
    let named = match &input.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(named),
            ..
        }) => named,
        syn::Data::Struct(data) => {
            cx.error_spanned_by(
                &data.fields,
                "`ElicitForm` needs a struct with named fields: each field is one form field",
            );
            return Vec::new();
        }
        syn::Data::Enum(data) => {
            cx.error_spanned_by(
                data.enum_token,
                "`ElicitForm` is derived for structs; for a choice field, derive `ElicitChoice` on the enum",
            );
            return Vec::new();
        }
        syn::Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "`ElicitForm` is derived for structs, not unions",
            );
            return Vec::new();
        }
    };
    let container_serde = serde_names(cx, &input.attrs);
    let mut seen: BTreeMap<String, Span> = BTreeMap::new();
    let mut fields = Vec::new();
    for field in &named.named {
        let Some(ident) = &field.ident else { continue };
        let serde = serde_names(cx, &field.attrs);
        let attrs = attr::parse(cx, attr::Site::Field, &field.attrs);
        let wire_name = serde.rename.clone().unwrap_or_else(|| {
            let name = unraw(ident);
            match container_serde.rename_all {
                Some((rule, _)) => rule.apply_to_field(&name),
                None => name,
            }
        });
        if !serde.skip {
            if seen.contains_key(&wire_name) {
                cx.error_spanned_by(
                    ident,
                    format!("two fields of this form are named `{wire_name}` on the wire"),
                );
            }
            seen.insert(wire_name.clone(), ident.span());
            field_type::check(cx, &field.ty);
        }
        check_ranges(cx, &attrs);
        fields.push(Field {
            ident,
            ty: &field.ty,
            wire_name,
            skip: serde.skip,
            description: doc_comment(&field.attrs),
            attrs,
        });
    }
    fields
}

/// Each lower bound is not above its upper bound ([`mcp_runtime_rules::RANGE_RULE`]),
/// reported at the upper one.
fn check_ranges(cx: &mut Ctxt, attrs: &ElicitAttrs) {
    let checks = [
        (
            mcp_runtime_rules::valid_range(attrs.min_length.get(), attrs.max_length.get()),
            attrs.max_length.span(),
            "`max_length` is below `min_length`",
        ),
        (
            mcp_runtime_rules::valid_range(attrs.minimum.get(), attrs.maximum.get()),
            attrs.maximum.span(),
            "`maximum` is below `minimum`",
        ),
        (
            mcp_runtime_rules::valid_range(attrs.min_items.get(), attrs.max_items.get()),
            attrs.max_items.span(),
            "`max_items` is below `min_items`",
        ),
    ];
    for (valid, span, message) in checks {
        if let (false, Some(span)) = (valid, span) {
            cx.syn_error(syn::Error::new(span, message));
        }
    }
}

fn expand(ident: &syn::Ident, rt: &TokenStream, fields: &[Field<'_>]) -> TokenStream {
    let schema_fields = fields.iter().filter(|f| !f.skip).map(|f| {
        let name = &f.wire_name;
        let options = options(f);
        let ty = f.ty;
        quote_spanned!(ty.span()=> .field::<#ty>(#name, #options))
    });
    // Each field's type is checked once, at its own tokens, so a type that
    // cannot be a form field gets the `ElicitField` message there. The impl
    // then assumes the same bounds, so its bodies add no errors of their
    // own; the binder keeps rustc from checking those bounds where the impl
    // is declared (a bound without one, on a concrete type, would be
    // reported again, with a note about trivial bounds, rust-lang/rust#48214).
    let checks = fields.iter().filter(|f| !f.skip).map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=> let _ = <#ty as _mcp::ElicitField>::REQUIRED;)
    });
    let bounds = fields.iter().filter(|f| !f.skip).map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=> for<'__mcp> #ty: _mcp::ElicitField)
    });
    let decode_fields = fields.iter().map(|f| {
        let member = f.ident;
        let name = &f.wire_name;
        let ty = f.ty;
        if f.skip {
            quote!(#member: _mcp::Default::default())
        } else {
            // Spanned on the field's type, like the schema's `.field::<T>()`:
            // a type that is not a form field is reported there, not at the
            // derive.
            let value = quote_spanned!(ty.span()=> __mcp_form.field::<#ty>(#name)?);
            quote!(#member: #value)
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(unused_qualifications)]
        const _: () = {
            use #rt::__private as _mcp;

            #(#checks)*

            #[automatically_derived]
            impl _mcp::ElicitForm for #ident where #(#bounds,)* {
                fn form_schema() -> &'static _mcp::RenderedSchema {
                    static SCHEMA: _mcp::OnceLock<_mcp::RenderedSchema> = _mcp::OnceLock::new();
                    SCHEMA.get_or_init(|| _mcp::FormSchema::new() #(#schema_fields)* .render())
                }

                fn decode(
                    __mcp_form: &mut _mcp::FormDecoder<'_>,
                ) -> _mcp::Result<Self, _mcp::FormError> {
                    _mcp::Result::Ok(Self { #(#decode_fields,)* })
                }
            }
        };
    }
}

/// `_mcp::FieldOptions { .. }` with only the options that were given.
fn options(field: &Field<'_>) -> TokenStream {
    let a = &field.attrs;
    let description = a
        .description
        .get()
        .map(syn::LitStr::value)
        .or_else(|| field.description.clone());
    let mut set = Vec::new();
    let some = |value: TokenStream| quote!(_mcp::Option::Some(#value));
    if let Some(title) = a.title.get() {
        set.push(("title", some(quote!(#title))));
    }
    if let Some(description) = description {
        set.push(("description", some(quote!(#description))));
    }
    for (key, slot) in [
        ("min_length", &a.min_length),
        ("max_length", &a.max_length),
        ("min_items", &a.min_items),
        ("max_items", &a.max_items),
    ] {
        if let Some(value) = slot.get() {
            let lit = Literal::u64_suffixed(*value);
            set.push((key, some(quote!(#lit))));
        }
    }
    for (key, slot) in [("minimum", &a.minimum), ("maximum", &a.maximum)] {
        if let Some(value) = slot.get() {
            let lit = Literal::f64_suffixed(*value);
            set.push((key, some(quote!(#lit))));
        }
    }
    if let Some(format) = a.format.get() {
        set.push(("format", some(quote!(_mcp::StringFormat::#format))));
    }
    if let Some(default) = a.default.get() {
        let value = match default {
            Default::Bool(b) => quote!(_mcp::DefaultValue::Bool(#b)),
            Default::Int(i) => quote!(_mcp::DefaultValue::Int(#i)),
            Default::Float(f) => {
                let lit = Literal::f64_suffixed(*f);
                quote!(_mcp::DefaultValue::Float(#lit))
            }
            Default::Str(s) => quote!(_mcp::DefaultValue::Str(#s)),
            Default::Strs(items) => quote!(_mcp::DefaultValue::Strs(&[#(#items),*])),
        };
        set.push(("default", some(value)));
    }
    if set.is_empty() {
        return quote!(_mcp::FieldOptions::EMPTY);
    }
    let entries = set.into_iter().map(|(key, value)| {
        let key = syn::Ident::new(key, Span::call_site());
        quote!(#key: #value)
    });
    quote!(_mcp::FieldOptions { #(#entries,)* .._mcp::FieldOptions::EMPTY })
}

/// The impl emitted beside errors, so uses of the type add no errors.
/// It keeps the type's generics, so even a generic type (an error) gets no
/// second error from the stub itself.
fn stub(input: &syn::DeriveInput, rt: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[allow(unused_qualifications, unreachable_code)]
        const _: () = {
            use #rt::__private as _mcp;
            impl #impl_generics _mcp::ElicitForm for #ident #ty_generics #where_clause {
                fn form_schema() -> &'static _mcp::RenderedSchema {
                    ::core::unreachable!()
                }
                fn decode(_: &mut _mcp::FormDecoder<'_>) -> _mcp::Result<Self, _mcp::FormError> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
