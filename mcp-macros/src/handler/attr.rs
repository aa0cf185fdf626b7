//! The arguments of `#[tool(...)]`, `#[prompt(...)]` and `#[resource(...)]`.
//!
//! Every key is one row of [`KEYS`]: its name, the attributes it applies
//! to, and how its value is read. Unknown keys, keys of another attribute
//! and the "expected one of" lists all come from that table.

use syn::LitStr;
use syn::meta::ParseNestedMeta;

use crate::attr::Slot;
use crate::ctxt::Ctxt;

/// Which attribute this is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
    Completion,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
            Self::Completion => "completion",
        }
    }
}

/// Everything the attribute said, each value with the span of its literal.
pub(crate) struct HandlerAttrs {
    pub(crate) name: Slot<LitStr>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) read_only: Slot<bool>,
    pub(crate) destructive: Slot<bool>,
    pub(crate) idempotent: Slot<bool>,
    pub(crate) open_world: Slot<bool>,
    pub(crate) uri: Slot<LitStr>,
    pub(crate) uri_template: Slot<LitStr>,
    pub(crate) mime_type: Slot<LitStr>,
    pub(crate) krate: Slot<syn::Path>,
}

/// One key of the table.
struct Key {
    name: &'static str,
    on: &'static [Kind],
    read: fn(&mut HandlerAttrs, &mut Ctxt, &ParseNestedMeta<'_>) -> syn::Result<()>,
}

const DESCRIBED: &[Kind] = &[Kind::Tool, Kind::Prompt, Kind::Resource];
const ALL: &[Kind] = &[Kind::Tool, Kind::Prompt, Kind::Resource, Kind::Completion];
const TOOL: &[Kind] = &[Kind::Tool];
const RESOURCE: &[Kind] = &[Kind::Resource];

/// The keys, in the order the "expected one of" lists name them.
const KEYS: &[Key] = &[
    Key {
        name: "name",
        on: DESCRIBED,
        read: |a, cx, m| string(&mut a.name, cx, m),
    },
    Key {
        name: "title",
        on: DESCRIBED,
        read: |a, cx, m| string(&mut a.title, cx, m),
    },
    Key {
        name: "description",
        on: DESCRIBED,
        read: |a, cx, m| string(&mut a.description, cx, m),
    },
    Key {
        name: "uri",
        on: RESOURCE,
        read: |a, cx, m| string(&mut a.uri, cx, m),
    },
    Key {
        name: "uri_template",
        on: RESOURCE,
        read: |a, cx, m| string(&mut a.uri_template, cx, m),
    },
    Key {
        name: "mime_type",
        on: RESOURCE,
        read: |a, cx, m| string(&mut a.mime_type, cx, m),
    },
    Key {
        name: "read_only",
        on: TOOL,
        read: |a, cx, m| flag(&mut a.read_only, cx, m),
    },
    Key {
        name: "destructive",
        on: TOOL,
        read: |a, cx, m| flag(&mut a.destructive, cx, m),
    },
    Key {
        name: "idempotent",
        on: TOOL,
        read: |a, cx, m| flag(&mut a.idempotent, cx, m),
    },
    Key {
        name: "open_world",
        on: TOOL,
        read: |a, cx, m| flag(&mut a.open_world, cx, m),
    },
    Key {
        name: "crate",
        on: ALL,
        read: |a, cx, m| path(&mut a.krate, cx, m),
    },
];

/// The keys of `kind`, as an "expected one of" list.
fn expected(kind: Kind) -> String {
    KEYS.iter()
        .filter(|key| key.on.contains(&kind))
        .map(|key| format!("`{}`", key.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses the attribute's arguments, recording every problem in `cx`.
pub(crate) fn parse(cx: &mut Ctxt, kind: Kind, args: proc_macro2::TokenStream) -> HandlerAttrs {
    let mut attrs = HandlerAttrs {
        name: Slot::new("name"),
        title: Slot::new("title"),
        description: Slot::new("description"),
        read_only: Slot::new("read_only"),
        destructive: Slot::new("destructive"),
        idempotent: Slot::new("idempotent"),
        open_world: Slot::new("open_world"),
        uri: Slot::new("uri"),
        uri_template: Slot::new("uri_template"),
        mime_type: Slot::new("mime_type"),
        krate: Slot::new("crate"),
    };
    let mut errors = Vec::new();
    let parser = syn::meta::parser(|meta| {
        if let Err(error) = key(&mut attrs, cx, kind, &meta) {
            errors.push(error);
            crate::attr::skip_rest_of_key(meta.input);
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        errors.push(error);
    }
    for error in errors {
        cx.syn_error(error);
    }
    attrs
}

fn key(
    attrs: &mut HandlerAttrs,
    cx: &mut Ctxt,
    kind: Kind,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let ident = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    match KEYS.iter().find(|key| key.name == ident) {
        Some(key) if key.on.contains(&kind) => (key.read)(attrs, cx, meta),
        Some(_) => Err(meta.error(format!(
            "`{ident}` does not apply to `#[{}]`; expected one of: {}",
            kind.name(),
            expected(kind)
        ))),
        None => Err(meta.error(format!(
            "unknown `#[{}]` argument `{}`; expected one of: {}",
            kind.name(),
            quote::ToTokens::to_token_stream(&meta.path),
            expected(kind)
        ))),
    }
}

/// `key = "..."`.
fn string(slot: &mut Slot<LitStr>, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let key = slot.name();
    let lit: LitStr = meta
        .value()?
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `{key} = \"...\"`")))?;
    slot.set(cx, &meta.path, lit);
    Ok(())
}

/// `key` or `key = true|false`.
fn flag(slot: &mut Slot<bool>, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let key = slot.name();
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
    slot.set(cx, &meta.path, value);
    Ok(())
}

/// `crate = "path"`.
fn path(slot: &mut Slot<syn::Path>, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let lit: LitStr = meta.value()?.parse()?;
    let path = lit.parse().map_err(|_| {
        syn::Error::new(
            lit.span(),
            "expected a path, like `crate = \"my_sdk::runtime\"`",
        )
    })?;
    slot.set(cx, &meta.path, path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_are_unique_and_every_kind_has_keys() {
        for (i, key) in KEYS.iter().enumerate() {
            assert!(
                KEYS[i + 1..].iter().all(|k| k.name != key.name),
                "{}",
                key.name
            );
        }
        assert!(expected(Kind::Tool).contains("`read_only`"));
        assert!(!expected(Kind::Prompt).contains("`uri`"));
    }
}
