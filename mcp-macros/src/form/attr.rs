//! `#[elicit(...)]` on forms, their fields, choices and their variants.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;

use crate::attr::Slot;
use crate::ctxt::Ctxt;

/// `#[elicit(crate = "path")]` on the deriving type.
pub(crate) struct ContainerAttrs {
    pub(crate) krate: Slot<syn::Path>,
}

/// `#[elicit(...)]` on a form field.
pub(crate) struct FieldAttrs {
    pub(crate) title: Slot<String>,
    pub(crate) description: Slot<String>,
    pub(crate) min_length: Slot<u64>,
    pub(crate) max_length: Slot<u64>,
    pub(crate) format: Slot<Format>,
    pub(crate) minimum: Slot<f64>,
    pub(crate) maximum: Slot<f64>,
    pub(crate) min_items: Slot<u64>,
    pub(crate) max_items: Slot<u64>,
    pub(crate) default: Slot<Default>,
}

/// `#[elicit(title = "...")]` on a choice variant.
pub(crate) struct VariantAttrs {
    pub(crate) title: Slot<String>,
}

/// The string formats a field may declare.
#[derive(Clone, Copy)]
pub(crate) enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

impl ToTokens for Format {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match self {
            Self::Email => quote!(Email),
            Self::Uri => quote!(Uri),
            Self::Date => quote!(Date),
            Self::DateTime => quote!(DateTime),
        });
    }
}

/// A `default = ...` value.
pub(crate) enum Default {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Strs(Vec<String>),
}

const CONTAINER_KEYS: &str = "`crate`";
const FIELD_KEYS: &str = "`title`, `description`, `min_length`, `max_length`, `format`, `minimum`, `maximum`, `min_items`, `max_items`, `default`";

fn elicit_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("elicit"))
}

/// Parses each `#[elicit(...)]`, handing every key to `on_key`; errors are
/// collected and parsing goes on, so every bad key is reported in one build.
fn parse_each(
    cx: &mut Ctxt,
    attrs: &[syn::Attribute],
    mut on_key: impl FnMut(&mut Ctxt, &ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    for attr in elicit_attrs(attrs) {
        let mut errors = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            let mut local = Ctxt::new();
            match on_key(&mut local, &meta) {
                Ok(()) => {}
                Err(error) => {
                    local.syn_error(error);
                    crate::attr::skip_rest_of_key(meta.input);
                }
            }
            errors.push(local);
            Ok(())
        });
        for local in errors {
            if let Err(error) = local.check() {
                cx.syn_error(error);
            }
        }
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
}

fn unknown(meta: &ParseNestedMeta<'_>, expected: &str) -> syn::Error {
    let key = meta.path.get_ident().map_or_else(
        || meta.path.to_token_stream().to_string(),
        ToString::to_string,
    );
    meta.error(format!(
        "unknown `elicit` attribute `{key}`; expected one of: {expected}"
    ))
}

pub(crate) fn container(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs {
        krate: Slot::new("crate"),
    };
    parse_each(cx, attrs, |cx, meta| {
        if meta.path.is_ident("crate") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            let path = lit.parse::<syn::Path>().map_err(|_| {
                syn::Error::new(
                    lit.span(),
                    "expected a path, like `crate = \"my_sdk::runtime\"`",
                )
            })?;
            out.krate.set(cx, &meta.path, path);
            Ok(())
        } else {
            Err(unknown(meta, CONTAINER_KEYS))
        }
    });
    out
}

pub(crate) fn field(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs {
        title: Slot::new("title"),
        description: Slot::new("description"),
        min_length: Slot::new("min_length"),
        max_length: Slot::new("max_length"),
        format: Slot::new("format"),
        minimum: Slot::new("minimum"),
        maximum: Slot::new("maximum"),
        min_items: Slot::new("min_items"),
        max_items: Slot::new("max_items"),
        default: Slot::new("default"),
    };
    parse_each(cx, attrs, |cx, meta| {
        let key = &meta.path;
        if key.is_ident("title") {
            out.title.set(cx, key, string(meta, "title")?);
        } else if key.is_ident("description") {
            out.description.set(cx, key, string(meta, "description")?);
        } else if key.is_ident("min_length") {
            out.min_length.set(cx, key, count(meta, "min_length")?);
        } else if key.is_ident("max_length") {
            out.max_length.set(cx, key, count(meta, "max_length")?);
        } else if key.is_ident("min_items") {
            out.min_items.set(cx, key, count(meta, "min_items")?);
        } else if key.is_ident("max_items") {
            out.max_items.set(cx, key, count(meta, "max_items")?);
        } else if key.is_ident("minimum") {
            out.minimum.set(cx, key, number(meta, "minimum")?);
        } else if key.is_ident("maximum") {
            out.maximum.set(cx, key, number(meta, "maximum")?);
        } else if key.is_ident("format") {
            let lit: syn::LitStr = meta.value()?.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected `format = \"email\"` (or \"uri\", \"date\", \"date-time\")",
                )
            })?;
            let format = match lit.value().as_str() {
                "email" => Format::Email,
                "uri" => Format::Uri,
                "date" => Format::Date,
                "date-time" => Format::DateTime,
                _ => {
                    return Err(syn::Error::new(
                        lit.span(),
                        "unknown format; expected one of: \"email\", \"uri\", \"date\", \"date-time\"",
                    ));
                }
            };
            out.format.set(cx, key, format);
        } else if key.is_ident("default") {
            let value = default_value(meta.value()?)?;
            out.default.set(cx, key, value);
        } else {
            return Err(unknown(meta, FIELD_KEYS));
        }
        Ok(())
    });
    out
}

pub(crate) fn variant(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> VariantAttrs {
    let mut out = VariantAttrs {
        title: Slot::new("title"),
    };
    parse_each(cx, attrs, |cx, meta| {
        if meta.path.is_ident("title") {
            out.title.set(cx, &meta.path, string(meta, "title")?);
            Ok(())
        } else {
            Err(unknown(meta, "`title`"))
        }
    });
    out
}

fn string(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<String> {
    let value = meta.value()?;
    let lit: syn::LitStr = value
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `{key} = \"...\"`")))?;
    Ok(lit.value())
}

fn count(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<u64> {
    let value = meta.value()?;
    let lit: syn::LitInt = value.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected `{key} = <non-negative integer>`"),
        )
    })?;
    lit.base10_parse()
}

fn number(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<f64> {
    let expr: syn::Expr = meta.value()?.parse()?;
    signed_number(&expr)
        .ok_or_else(|| syn::Error::new_spanned(&expr, format!("expected `{key} = <number>`")))
}

fn signed_number(expr: &syn::Expr) -> Option<f64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            syn::Lit::Int(i) => i.base10_parse::<f64>().ok(),
            syn::Lit::Float(f) => f.base10_parse::<f64>().ok(),
            _ => None,
        },
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => signed_number(expr).map(|n| -n),
        _ => None,
    }
}

fn default_value(input: syn::parse::ParseStream<'_>) -> syn::Result<Default> {
    let expected = "expected a literal default: `true`, a number, `\"text\"`, or `[\"a\", \"b\"]`";
    if input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        let items =
            syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated(&content)
                .map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        "a multi-select default lists string values: `[\"a\", \"b\"]`",
                    )
                })?;
        return Ok(Default::Strs(
            items.iter().map(syn::LitStr::value).collect(),
        ));
    }
    let negative = input.parse::<Option<syn::Token![-]>>()?.is_some();
    let lit: syn::Lit = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), expected))?;
    match (lit, negative) {
        (syn::Lit::Bool(b), false) => Ok(Default::Bool(b.value)),
        (syn::Lit::Str(s), false) => Ok(Default::Str(s.value())),
        (syn::Lit::Int(i), negative) => {
            let value: i64 = i.base10_parse()?;
            Ok(Default::Int(if negative { -value } else { value }))
        }
        (syn::Lit::Float(f), negative) => {
            let value: f64 = f.base10_parse()?;
            Ok(Default::Float(if negative { -value } else { value }))
        }
        (other, _) => Err(syn::Error::new(other.span(), expected)),
    }
}
