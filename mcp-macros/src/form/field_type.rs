//! Form field types that are known, by how they are written, not to be form
//! fields: each gets an error at its own token saying what to write
//! instead. Any other type is left to the `ElicitField` bound the expansion
//! checks, whose message lists what a field may be.

use crate::ctxt::Ctxt;

/// The integer types a form field may be (the runtime's `ElicitField`
/// impls), for messages.
const INTEGERS: &str = "`i8`..`i64`, `u8`..`u64`, `isize` or `usize`";

/// Names of std types that are never a fieldless enum, so never a choice.
const NOT_CHOICES: &[&str] = &[
    "String", "bool", "char", "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8",
    "u16", "u32", "u64", "u128", "usize",
];

/// Std wrappers and collections, never a choice either.
const COLLECTIONS: &[&str] = &[
    "Vec", "VecDeque", "HashSet", "BTreeSet", "HashMap", "BTreeMap", "Option", "Box",
];

/// Reports `ty` (or the part of it at fault) if it is a type no form field
/// can have.
pub(crate) fn check(cx: &mut Ctxt, ty: &syn::Type) {
    if let Some((at, message)) = unsupported(ty) {
        cx.error_spanned_by(at, message);
    }
}

fn unsupported(ty: &syn::Type) -> Option<(&syn::Type, String)> {
    match ty {
        syn::Type::Group(group) => unsupported(&group.elem),
        syn::Type::Paren(paren) => unsupported(&paren.elem),
        syn::Type::Reference(reference) => Some((ty, reference_message(&reference.elem))),
        syn::Type::Tuple(tuple) if !tuple.elems.is_empty() => Some((
            ty,
            "a tuple cannot be a form field: a form is flat, so give each element its own named field".to_owned(),
        )),
        syn::Type::Array(_) | syn::Type::Slice(_) => Some((
            ty,
            "an array cannot be a form field: a list is a multi-select, a `Vec`, `BTreeSet` or `HashSet` of a fieldless enum that derives `ElicitChoice`".to_owned(),
        )),
        syn::Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            let name = last.ident.to_string();
            match (name.as_str(), type_args(last).as_slice()) {
                (int @ ("u128" | "i128"), []) => {
                    let instead = if int == "u128" { "u64" } else { "i64" };
                    Some((
                        ty,
                        format!(
                            "`{int}` cannot be a form field: a form's integers are {INTEGERS}; use `{instead}`, or a `String` for bigger numbers"
                        ),
                    ))
                }
                ("char", []) => Some((
                    ty,
                    "`char` cannot be a form field: use a `String` with `#[elicit(min_length = 1, max_length = 1)]`".to_owned(),
                )),
                ("Option", [inner]) => unsupported(inner),
                (list @ ("Vec" | "BTreeSet" | "HashSet"), [item, ..]) => {
                    let item_is = not_a_choice(item)?;
                    let text = ["`String`", "`char`", "a reference"].contains(&item_is.as_str());
                    let hint = if text {
                        "; for free text, use a `String` field"
                    } else {
                        ""
                    };
                    Some((
                        item,
                        format!(
                            "a `{list}` field is a multi-select: its items must be a fieldless enum that derives `ElicitChoice` (the options to pick from), not {item_is}{hint}"
                        ),
                    ))
                }
                (map @ ("HashMap" | "BTreeMap" | "IndexMap"), _) => Some((
                    ty,
                    format!(
                        "`{map}` cannot be a form field: a form is flat, a fixed list of named fields, so give each key its own field"
                    ),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

fn reference_message(elem: &syn::Type) -> String {
    let is_str = matches!(elem, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("str"));
    if is_str {
        "`&str` cannot be a form field: a form field owns its value, so use `String`".to_owned()
    } else {
        "a reference cannot be a form field: a form field owns its value, so drop the `&`"
            .to_owned()
    }
}

/// How to name `ty` in "not ...", when it is certainly not a fieldless
/// enum; `None` when it may be one (any other path).
fn not_a_choice(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Group(group) => not_a_choice(&group.elem),
        syn::Type::Paren(paren) => not_a_choice(&paren.elem),
        syn::Type::Reference(_) => Some("a reference".to_owned()),
        syn::Type::Tuple(_) => Some("a tuple".to_owned()),
        syn::Type::Array(_) | syn::Type::Slice(_) => Some("an array".to_owned()),
        syn::Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            let name = last.ident.to_string();
            if NOT_CHOICES.contains(&name.as_str()) && type_args(last).is_empty() {
                Some(format!("`{name}`"))
            } else if COLLECTIONS.contains(&name.as_str()) {
                let article = if name.starts_with('O') { "an" } else { "a" };
                Some(format!("{article} `{name}`"))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The type arguments of `segment` (`[String]` for `Vec<String>`).
fn type_args(segment: &syn::PathSegment) -> Vec<&syn::Type> {
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
