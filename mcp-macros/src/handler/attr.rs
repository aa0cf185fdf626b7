//! The arguments of `#[tool(...)]`, `#[prompt(...)]` and `#[resource(...)]`.

use proc_macro2::Span;
use syn::LitStr;
use syn::meta::ParseNestedMeta;

use crate::ctxt::Ctxt;

/// Which attribute this is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
        }
    }

    fn keys(self) -> &'static str {
        match self {
            Self::Tool => {
                "`name`, `title`, `description`, `read_only`, `destructive`, `idempotent`, `open_world`, `crate`"
            }
            Self::Prompt => "`name`, `title`, `description`, `crate`",
            Self::Resource => {
                "`uri`, `uri_template`, `name`, `title`, `description`, `mime_type`, `crate`"
            }
        }
    }
}

/// A string argument and where it was written.
pub(crate) type Spanned = (String, Span);

/// Everything the attribute said.
#[derive(Default)]
pub(crate) struct HandlerAttrs {
    pub(crate) name: Option<Spanned>,
    pub(crate) title: Option<Spanned>,
    pub(crate) description: Option<Spanned>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) uri: Option<Spanned>,
    pub(crate) uri_template: Option<Spanned>,
    pub(crate) mime_type: Option<Spanned>,
    pub(crate) krate: Option<syn::Path>,
}

/// Parses the attribute's arguments, recording every problem in `cx`.
pub(crate) fn parse(cx: &mut Ctxt, kind: Kind, args: proc_macro2::TokenStream) -> HandlerAttrs {
    let mut attrs = HandlerAttrs::default();
    let mut errors = Vec::new();
    let parser = syn::meta::parser(|meta| {
        if let Err(error) = key(&mut attrs, kind, &meta) {
            errors.push(error);
            crate::attr::skip_rest_of_key(meta.input);
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(error);
    }
    for error in errors {
        cx.syn_error(error);
    }
    attrs
}

fn key(attrs: &mut HandlerAttrs, kind: Kind, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let path = &meta.path;
    let ident = path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    let tool_only = matches!(
        ident.as_str(),
        "read_only" | "destructive" | "idempotent" | "open_world"
    );
    let resource_only = matches!(ident.as_str(), "uri" | "uri_template" | "mime_type");
    if (tool_only && kind != Kind::Tool) || (resource_only && kind != Kind::Resource) {
        return Err(meta.error(format!(
            "`{ident}` does not apply to `#[{}]`; expected one of: {}",
            kind.name(),
            kind.keys()
        )));
    }
    match ident.as_str() {
        "name" => set_str(&mut attrs.name, meta, "name"),
        "title" => set_str(&mut attrs.title, meta, "title"),
        "description" => set_str(&mut attrs.description, meta, "description"),
        "uri" => set_str(&mut attrs.uri, meta, "uri"),
        "uri_template" => set_str(&mut attrs.uri_template, meta, "uri_template"),
        "mime_type" => set_str(&mut attrs.mime_type, meta, "mime_type"),
        "read_only" => set_flag(&mut attrs.read_only, meta, "read_only"),
        "destructive" => set_flag(&mut attrs.destructive, meta, "destructive"),
        "idempotent" => set_flag(&mut attrs.idempotent, meta, "idempotent"),
        "open_world" => set_flag(&mut attrs.open_world, meta, "open_world"),
        "crate" => {
            if attrs.krate.is_some() {
                return Err(meta.error("duplicate `crate` attribute"));
            }
            let lit: LitStr = meta.value()?.parse()?;
            attrs.krate = Some(lit.parse().map_err(|_| {
                syn::Error::new(
                    lit.span(),
                    "expected a path, like `crate = \"my_sdk::runtime\"`",
                )
            })?);
            Ok(())
        }
        _ => Err(meta.error(format!(
            "unknown `#[{}]` argument `{}`; expected one of: {}",
            kind.name(),
            quote::ToTokens::to_token_stream(path),
            kind.keys()
        ))),
    }
}

fn set_str(slot: &mut Option<Spanned>, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate `{key}` argument")));
    }
    let lit: LitStr = meta
        .value()?
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `{key} = \"...\"`")))?;
    *slot = Some((lit.value(), lit.span()));
    Ok(())
}

/// `flag` or `flag = true|false`.
fn set_flag(slot: &mut Option<bool>, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate `{key}` argument")));
    }
    let value = if meta.input.peek(syn::Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected `{key}` or `{key} = true|false`"),
            )
        })?;
        lit.value
    } else {
        true
    };
    *slot = Some(value);
    Ok(())
}
