//! Attribute helpers shared by the derives: doc comments, serde renames,
//! the `crate = "..."` override.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;

/// The doc comment of an item as written: one line per `///` line, the one
/// space after `///` removed, blank lines at either end dropped; `None`
/// when there is none. A `#[doc = include_str!("...")]` (or any other
/// expression) makes it an expression that `concat!` joins at compile
/// time.
pub(crate) fn docs(attrs: &[syn::Attribute]) -> Option<Docs> {
    let mut parts: Vec<DocPart> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let syn::Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => {
                for line in s.value().split('\n') {
                    let line = line.strip_prefix(' ').unwrap_or(line).trim_end();
                    parts.push(DocPart::Line(line.to_owned()));
                }
            }
            expr => parts.push(DocPart::Expr(quote!(#expr))),
        }
    }
    let blank = |p: &DocPart| matches!(p, DocPart::Line(l) if l.is_empty());
    while parts.first().is_some_and(blank) {
        parts.remove(0);
    }
    while parts.last().is_some_and(blank) {
        parts.pop();
    }
    if parts.is_empty() {
        return None;
    }
    if parts.iter().all(|p| matches!(p, DocPart::Line(_))) {
        let lines: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                DocPart::Line(l) => Some(l.as_str()),
                DocPart::Expr(_) => None,
            })
            .collect();
        return Some(Docs::Text(lines.join("\n")));
    }
    let pieces = parts.iter().enumerate().map(|(i, part)| {
        let sep = (i > 0).then(|| quote!("\n",));
        match part {
            DocPart::Line(line) => quote!(#sep #line,),
            DocPart::Expr(expr) => quote!(#sep #expr,),
        }
    });
    Some(Docs::Expr(quote!(::core::concat!(#(#pieces)*))))
}

/// One piece of a doc comment.
enum DocPart {
    Line(String),
    Expr(TokenStream),
}

/// A doc comment: its text, or an expression that yields it.
pub(crate) enum Docs {
    Text(String),
    Expr(TokenStream),
}

/// The doc comment of an item, lines trimmed and joined by spaces; `None`
/// when there is none. `#[doc = include_str!(..)]` is not expanded here.
pub(crate) fn doc_comment(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let line = s.value();
            let line = line.trim();
            if !line.is_empty() {
                lines.push(line.to_owned());
            }
        }
    }
    (!lines.is_empty()).then(|| lines.join(" "))
}

/// The serde attributes that change wire names.
#[derive(Default)]
pub(crate) struct SerdeNames {
    /// `#[serde(rename = "...")]` (or `rename(deserialize = "...")`).
    pub(crate) rename: Option<String>,
    /// `#[serde(rename_all = "...")]`.
    pub(crate) rename_all: Option<(RenameRule, proc_macro2::Span)>,
    /// `#[serde(skip)]` or `#[serde(skip_deserializing)]`.
    pub(crate) skip: bool,
}

/// Reads `#[serde(...)]` for the keys that matter to wire names; every
/// other serde key is left to serde.
pub(crate) fn serde_names(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> SerdeNames {
    let mut names = SerdeNames::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                if meta.input.peek(syn::Token![=]) {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    names.rename = Some(lit.value());
                } else {
                    meta.parse_nested_meta(|inner| {
                        let lit: syn::LitStr = inner.value()?.parse()?;
                        if inner.path.is_ident("deserialize") {
                            names.rename = Some(lit.value());
                        }
                        Ok(())
                    })?;
                }
            } else if meta.path.is_ident("rename_all") {
                if meta.input.peek(syn::Token![=]) {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    match RenameRule::parse(&lit.value()) {
                        Some(rule) => names.rename_all = Some((rule, lit.span())),
                        None => cx.error_spanned_by(&lit, "unknown serde rename_all rule"),
                    }
                } else {
                    meta.parse_nested_meta(|inner| {
                        let lit: syn::LitStr = inner.value()?.parse()?;
                        if inner.path.is_ident("deserialize")
                            && let Some(rule) = RenameRule::parse(&lit.value())
                        {
                            names.rename_all = Some((rule, lit.span()));
                        }
                        Ok(())
                    })?;
                }
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                names.skip = true;
            } else {
                // Another serde key: consume its value, if any, and ignore it.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|inner| {
                        if inner.input.peek(syn::Token![=]) {
                            let _: syn::Expr = inner.value()?.parse()?;
                        }
                        Ok(())
                    });
                }
            }
            Ok(())
        });
        if let Err(error) = parsed {
            cx.syn_error(error);
        }
    }
    names
}

/// serde's `rename_all` rules.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(rule: &str) -> Option<Self> {
        Some(match rule {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Renames a struct field (written in snake_case), as serde does.
    pub(crate) fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => field
                .split('_')
                .map(capitalize)
                .collect::<Vec<_>>()
                .concat(),
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                lowercase_first(&pascal)
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Renames an enum variant (written in PascalCase), as serde does.
    pub(crate) fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => lowercase_first(variant),
            Self::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

fn capitalize(part: &str) -> String {
    let mut chars = part.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The path of the runtime crate: `::mcp_runtime`, or the `crate = "..."`
/// override from `#[elicit(crate = "...")]`.
pub(crate) fn runtime_path(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::mcp_runtime),
    }
}

/// Turns an identifier into the name it has on the wire (raw `r#` removed).
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
}
