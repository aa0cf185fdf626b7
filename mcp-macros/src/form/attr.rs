//! `#[elicit(...)]` on forms, their fields, choices and their variants.
//!
//! Every key is one row of [`KEYS`], which says where it may be written;
//! the messages for unknown and misplaced keys come from that table.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::LitStr;
use syn::meta::ParseNestedMeta;

use crate::ctxt::Ctxt;
use crate::keys::{self, Key, Place, Slot, count, number, path, string};

/// Where an `#[elicit(...)]` is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Site {
    /// On the deriving form or choice type.
    Container,
    /// On a field of a form.
    Field,
    /// On a variant of a choice.
    Variant,
}

impl Place for Site {
    fn describe(self) -> &'static str {
        match self {
            Self::Container => "`#[elicit]` on a form or choice type",
            Self::Field => "`#[elicit]` on a form field",
            Self::Variant => "`#[elicit]` on a choice variant",
        }
    }
}

/// Everything one `#[elicit(...)]` list (or several on one item) said.
#[derive(Default)]
pub(crate) struct ElicitAttrs {
    pub(crate) krate: Slot<syn::Path>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) min_length: Slot<u64>,
    pub(crate) max_length: Slot<u64>,
    pub(crate) format: Slot<Format>,
    pub(crate) minimum: Slot<f64>,
    pub(crate) maximum: Slot<f64>,
    pub(crate) min_items: Slot<u64>,
    pub(crate) max_items: Slot<u64>,
    pub(crate) default: Slot<Default>,
}

const CONTAINER: &[Site] = &[Site::Container];
const FIELD: &[Site] = &[Site::Field];
const TITLED: &[Site] = &[Site::Field, Site::Variant];

/// The keys, in the order the "expected one of" lists name them.
const KEYS: &[Key<ElicitAttrs, Site>] = &[
    Key {
        name: "crate",
        on: CONTAINER,
        read: |a, cx, m| path(&mut a.krate, cx, m),
    },
    Key {
        name: "title",
        on: TITLED,
        read: |a, cx, m| string(&mut a.title, cx, m),
    },
    Key {
        name: "description",
        on: FIELD,
        read: |a, cx, m| string(&mut a.description, cx, m),
    },
    Key {
        name: "min_length",
        on: FIELD,
        read: |a, cx, m| count(&mut a.min_length, cx, m),
    },
    Key {
        name: "max_length",
        on: FIELD,
        read: |a, cx, m| count(&mut a.max_length, cx, m),
    },
    Key {
        name: "format",
        on: FIELD,
        read: |a, cx, m| format(&mut a.format, cx, m),
    },
    Key {
        name: "minimum",
        on: FIELD,
        read: |a, cx, m| number(&mut a.minimum, cx, m),
    },
    Key {
        name: "maximum",
        on: FIELD,
        read: |a, cx, m| number(&mut a.maximum, cx, m),
    },
    Key {
        name: "min_items",
        on: FIELD,
        read: |a, cx, m| count(&mut a.min_items, cx, m),
    },
    Key {
        name: "max_items",
        on: FIELD,
        read: |a, cx, m| count(&mut a.max_items, cx, m),
    },
    Key {
        name: "default",
        on: FIELD,
        read: |a, cx, m| {
            let value = default_value(m.value()?)?;
            a.default.set(cx, &m.path, value);
            Ok(())
        },
    },
];

/// Reads every `#[elicit(...)]` of an item written at `site`, recording
/// every problem in `cx`.
pub(crate) fn parse(cx: &mut Ctxt, site: Site, attrs: &[syn::Attribute]) -> ElicitAttrs {
    let mut out = ElicitAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        if let Err(error) = attr.parse_nested_meta(keys::reader(cx, KEYS, site, &mut out)) {
            cx.syn_error(error);
        }
    }
    out
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

/// `format = "email"` (or "uri", "date", "date-time").
fn format(slot: &mut Slot<Format>, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let lit: LitStr = meta.value()?.parse().map_err(|e| {
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
    slot.set(cx, &meta.path, format);
    Ok(())
}

/// `default = true`, a number, `"text"`, or `["a", "b"]`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_are_unique_and_every_site_has_keys() {
        for (i, key) in KEYS.iter().enumerate() {
            assert!(
                KEYS[i + 1..].iter().all(|k| k.name != key.name),
                "{}",
                key.name
            );
        }
        for site in [Site::Container, Site::Field, Site::Variant] {
            assert!(!keys::expected(KEYS, site).is_empty());
        }
        assert_eq!(keys::expected(KEYS, Site::Variant), "`title`");
    }
}
