//! The arguments of `#[tool(...)]`, `#[prompt(...)]`, `#[resource(...)]`
//! and `#[completion(...)]`.
//!
//! Every key is one row of [`KEYS`]: its name, the attributes it applies
//! to, and how its value is read. Unknown keys, keys of another attribute
//! and the "expected one of" lists all come from that table.

use syn::LitStr;

use super::model::TaskMode;
use crate::ctxt::Ctxt;
use crate::keys::{self, Key, Place, Slot, flag, path, string};

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

impl Place for Kind {
    fn describe(self) -> &'static str {
        match self {
            Self::Tool => "`#[tool]`",
            Self::Prompt => "`#[prompt]`",
            Self::Resource => "`#[resource]`",
            Self::Completion => "`#[completion]`",
        }
    }
}

/// Everything the attribute said, each value with the span of its literal.
#[derive(Default)]
pub(crate) struct HandlerAttrs {
    pub(crate) name: Slot<LitStr>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) read_only: Slot<bool>,
    pub(crate) destructive: Slot<bool>,
    pub(crate) idempotent: Slot<bool>,
    pub(crate) open_world: Slot<bool>,
    pub(crate) task: Slot<TaskMode>,
    pub(crate) scopes: Slot<Vec<LitStr>>,
    pub(crate) uri: Slot<LitStr>,
    pub(crate) uri_template: Slot<LitStr>,
    pub(crate) mime_type: Slot<LitStr>,
    pub(crate) krate: Slot<syn::Path>,
    /// `#[completion(prompt = "...")]`: the prompt whose argument it completes.
    pub(crate) prompt: Slot<LitStr>,
    /// `#[completion(template = "...")]`: the template whose variable it
    /// completes.
    pub(crate) template: Slot<LitStr>,
    /// `#[completion(argument = "...")]`: the argument (or variable) it completes.
    pub(crate) argument: Slot<LitStr>,
}

const DESCRIBED: &[Kind] = &[Kind::Tool, Kind::Prompt, Kind::Resource];
const ALL: &[Kind] = &[Kind::Tool, Kind::Prompt, Kind::Resource, Kind::Completion];
const TOOL: &[Kind] = &[Kind::Tool];
const RESOURCE: &[Kind] = &[Kind::Resource];
const COMPLETION: &[Kind] = &[Kind::Completion];

/// The keys, in the order the "expected one of" lists name them.
const KEYS: &[Key<HandlerAttrs, Kind>] = &[
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
        name: "scopes",
        on: DESCRIBED,
        read: |a, cx, m| scopes(&mut a.scopes, cx, m),
    },
    Key {
        name: "task",
        on: TOOL,
        read: |a, cx, m| task(&mut a.task, cx, m),
    },
    Key {
        name: "prompt",
        on: COMPLETION,
        read: |a, cx, m| string(&mut a.prompt, cx, m),
    },
    Key {
        name: "template",
        on: COMPLETION,
        read: |a, cx, m| string(&mut a.template, cx, m),
    },
    Key {
        name: "argument",
        on: COMPLETION,
        read: |a, cx, m| string(&mut a.argument, cx, m),
    },
    Key {
        name: "crate",
        on: ALL,
        read: |a, cx, m| path(&mut a.krate, cx, m),
    },
];

/// Parses the attribute's arguments, recording every problem in `cx`.
pub(crate) fn parse(cx: &mut Ctxt, kind: Kind, args: proc_macro2::TokenStream) -> HandlerAttrs {
    let mut attrs = HandlerAttrs::default();
    let parser = syn::meta::parser(keys::reader(cx, KEYS, kind, &mut attrs));
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(error);
    }
    attrs
}

/// `scopes = ["a", "b"]`: scope names, each one token
/// ([`mcp_runtime_rules::SCOPE_RULE`]).
fn scopes(
    slot: &mut Slot<Vec<LitStr>>,
    cx: &mut Ctxt,
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let expected = "expected `scopes = [\"scope\", ...]`";
    let array: syn::ExprArray = meta
        .value()?
        .parse()
        .map_err(|e| syn::Error::new(e.span(), expected))?;
    let mut scopes = Vec::new();
    for element in &array.elems {
        match element {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => {
                if !mcp_runtime_rules::valid_scope(&lit.value()) {
                    cx.error_spanned_by(
                        lit,
                        format!(
                            "a scope is {}; list several scopes as separate strings: `[\"read\", \"write\"]`",
                            mcp_runtime_rules::SCOPE_RULE
                        ),
                    );
                }
                scopes.push(lit.clone());
            }
            other => cx.error_spanned_by(other, expected),
        }
    }
    slot.set(cx, &meta.path, scopes);
    Ok(())
}

/// `task` (it may run as a task), `task = "optional"` or
/// `task = "required"` (it must).
fn task(
    slot: &mut Slot<TaskMode>,
    cx: &mut Ctxt,
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let expected = "expected `task`, `task = \"optional\"` or `task = \"required\"`";
    let mode = if meta.input.peek(syn::Token![=]) {
        let lit: LitStr = meta
            .value()?
            .parse()
            .map_err(|e| syn::Error::new(e.span(), expected))?;
        match lit.value().as_str() {
            "optional" => TaskMode::Optional,
            "required" => TaskMode::Required,
            _ => return Err(syn::Error::new(lit.span(), expected)),
        }
    } else {
        TaskMode::Optional
    };
    slot.set(cx, &meta.path, mode);
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
        assert!(keys::expected(KEYS, Kind::Tool).contains("`read_only`"));
        assert!(!keys::expected(KEYS, Kind::Prompt).contains("`uri`"));
    }
}
