//! The keys of an attribute's argument list: the slot each key fills, the
//! table row that reads it, and the one loop that reads a list of keys.
//!
//! Both `#[tool(...)]`-style attributes and `#[elicit(...)]` are a table of
//! [`Key`] rows. The table says where each key applies; the "unknown key",
//! "does not apply here" and "expected one of" messages all come from it, so
//! a key's name is written once.

use proc_macro2::Span;
use syn::LitStr;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;

/// A value and the span of the key that set it, so a duplicate is reported
/// at its second occurrence.
pub(crate) struct Slot<T> {
    value: Option<(T, Span)>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self { value: None }
    }
}

impl<T> Slot<T> {
    /// Fills the slot from `key`, or reports `key` as a duplicate.
    pub(crate) fn set(&mut self, cx: &mut Ctxt, key: &syn::Path, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(key, format!("duplicate `{}` attribute", name(key)));
        } else {
            self.value = Some((value, key.span()));
        }
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(v, _)| v)
    }

    pub(crate) fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(_, s)| *s)
    }
}

/// Where an attribute's keys are written, for "does not apply to" messages
/// and to pick the keys of a table that apply.
pub(crate) trait Place: Copy + PartialEq {
    /// The place as a message names it, e.g. "`#[tool]`".
    fn describe(self) -> &'static str;
}

/// One row of a key table: the key's name, the places it applies to, and
/// how its value is read into the parsed attributes `A`.
pub(crate) struct Key<A, P: 'static> {
    pub(crate) name: &'static str,
    pub(crate) on: &'static [P],
    pub(crate) read: fn(&mut A, &mut Ctxt, &ParseNestedMeta<'_>) -> syn::Result<()>,
}

/// The keys of `keys` that apply at `place`, as an "expected one of" list.
pub(crate) fn expected<A, P: Place>(keys: &[Key<A, P>], place: P) -> String {
    keys.iter()
        .filter(|key| key.on.contains(&place))
        .map(|key| format!("`{}`", key.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A parser for one argument list at `place`: each key is read by its row of
/// `keys` into `out`. A bad key is recorded in `cx` and the rest of it
/// skipped, so every bad key of the list is reported in one build. Errors
/// that end the list early come back from the parse call.
pub(crate) fn reader<'a, A, P: Place>(
    cx: &'a mut Ctxt,
    keys: &'a [Key<A, P>],
    place: P,
    out: &'a mut A,
) -> impl FnMut(ParseNestedMeta<'_>) -> syn::Result<()> + 'a {
    move |meta| {
        if let Err(error) = read_key(cx, keys, place, out, &meta) {
            cx.syn_error(error);
            skip_rest_of_key(meta.input);
        }
        Ok(())
    }
}

fn read_key<A, P: Place>(
    cx: &mut Ctxt,
    keys: &[Key<A, P>],
    place: P,
    out: &mut A,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let name = name(&meta.path);
    match keys.iter().find(|key| key.name == name) {
        Some(key) if key.on.contains(&place) => (key.read)(out, cx, meta),
        Some(_) => Err(meta.error(format!(
            "`{name}` does not apply to {}; expected one of: {}",
            place.describe(),
            expected(keys, place)
        ))),
        None => Err(meta.error(format!(
            "unknown argument `{name}` in {}; expected one of: {}",
            place.describe(),
            expected(keys, place)
        ))),
    }
}

/// A key as messages name it.
fn name(key: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(key).to_string()
}

/// After a bad key or value, skips what is left of it (up to the next `,`),
/// so the next key is read and no "expected `,`" follows the real error.
fn skip_rest_of_key(input: syn::parse::ParseStream<'_>) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

/// `key = "..."`.
pub(crate) fn string(
    slot: &mut Slot<LitStr>,
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = name(&meta.path);
    let lit: LitStr = meta
        .value()?
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("expected `{key} = \"...\"`")))?;
    slot.set(cx, &meta.path, lit);
    Ok(())
}

/// `key` or `key = true|false`.
pub(crate) fn flag(
    slot: &mut Slot<bool>,
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = name(&meta.path);
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
pub(crate) fn path(
    slot: &mut Slot<syn::Path>,
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
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

/// `key = <non-negative integer>`.
pub(crate) fn count(
    slot: &mut Slot<u64>,
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = name(&meta.path);
    let lit: syn::LitInt = meta.value()?.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected `{key} = <non-negative integer>`"),
        )
    })?;
    slot.set(cx, &meta.path, lit.base10_parse()?);
    Ok(())
}

/// `key = <number>`, negative numbers included.
pub(crate) fn number(
    slot: &mut Slot<f64>,
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = name(&meta.path);
    let expr: syn::Expr = meta.value()?.parse()?;
    let value = signed_number(&expr)
        .ok_or_else(|| syn::Error::new_spanned(&expr, format!("expected `{key} = <number>`")))?;
    slot.set(cx, &meta.path, value);
    Ok(())
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
