//! The rules an MCP server's handlers follow, in one place.
//!
//! `mcp-runtime-macros` checks them at compile time, on the user's tokens;
//! `mcp-runtime` checks them again for handlers written by hand, when a
//! server is built (`ServerBuilder::build`) or, for a form's bounds, when
//! a form is sent. Both depend on this crate, so the two cannot disagree.
//!
//! Each rule is a plain function answering whether a value follows it, and
//! a sentence saying it in words (the `*_RULE` constants), for error
//! messages: "tool name `a b` must be " followed by [`TOOL_NAME_RULE`].
//!
//! The crate is `no_std`: it needs only `core` and `alloc`.
//!
//! ```
//! use mcp_runtime_rules::{valid_scope, valid_tool_name};
//!
//! assert!(valid_tool_name("deploy.v2"));
//! assert!(!valid_tool_name("deploy now"));
//! assert!(valid_scope("deploy:write"));
//! assert!(!valid_scope("deploy write"));
//! ```

#![no_std]

extern crate alloc;

use alloc::vec::Vec;

/// What a tool name may be, in words.
pub const TOOL_NAME_RULE: &str = "1 to 128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`";

/// What a URI template may be, in words.
pub const URI_TEMPLATE_RULE: &str = "literal text and `{name}` variables (names of \
     letters, digits, `_` and `.`), with no two variables side by side";

/// What a tool's or a prompt's description must be, in words.
pub const DESCRIPTION_RULE: &str =
    "a tool or prompt has a description, not empty nor only spaces, for clients and models to read";

/// What a scope may be, in words ([RFC 6749, section 3.3], `scope-token`).
///
/// [RFC 6749, section 3.3]: https://www.rfc-editor.org/rfc/rfc6749#section-3.3
pub const SCOPE_RULE: &str = "one token of printable ASCII (RFC 6749 `scope-token`): \
     at least one character, and no space, `\"` or `\\`";

/// What a fixed resource URI may hold, in words.
pub const FIXED_URI_RULE: &str =
    "a fixed resource URI holds no `{`: a URI with `{variables}` is a URI template";

/// What a form field's bounds must be, in words.
pub const RANGE_RULE: &str = "a lower bound (`minimum`, `min_length`, `min_items`) is not \
     above its upper bound (`maximum`, `max_length`, `max_items`)";

/// Whether `name` is a valid tool name ([`TOOL_NAME_RULE`]).
///
/// ```
/// assert!(mcp_runtime_rules::valid_tool_name("get_weather"));
/// assert!(!mcp_runtime_rules::valid_tool_name("get weather"));
/// ```
pub fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Whether `description` is a valid description of a tool or a prompt
/// ([`DESCRIPTION_RULE`]): it holds something besides whitespace.
///
/// ```
/// assert!(mcp_runtime_rules::valid_description("Deploys a build."));
/// assert!(!mcp_runtime_rules::valid_description(" \n"));
/// ```
pub fn valid_description(description: &str) -> bool {
    !description.trim().is_empty()
}

/// Whether `scope` is one scope token ([`SCOPE_RULE`]): one or more of
/// `%x21 / %x23-5B / %x5D-7E`, that is printable ASCII other than space,
/// `"` and `\`. A space separates scopes in a token's `scope` and in a
/// `WWW-Authenticate` challenge, so a scope holding one would read as two.
///
/// ```
/// assert!(mcp_runtime_rules::valid_scope("files:read"));
/// assert!(!mcp_runtime_rules::valid_scope("files read"));
/// assert!(!mcp_runtime_rules::valid_scope("caf\u{e9}"));
/// ```
pub fn valid_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// Whether `uri` may be the URI of a fixed resource ([`FIXED_URI_RULE`]).
///
/// ```
/// assert!(mcp_runtime_rules::valid_fixed_uri("file:///logs/today.txt"));
/// assert!(!mcp_runtime_rules::valid_fixed_uri("file:///logs/{day}.txt"));
/// ```
pub fn valid_fixed_uri(uri: &str) -> bool {
    !uri.contains('{')
}

/// Whether a lower and an upper bound agree ([`RANGE_RULE`]): `low` is not
/// above `high`. Holds when either is absent. A pair that does not compare
/// (a NaN) does not hold: no value lies between such bounds either.
///
/// ```
/// assert!(mcp_runtime_rules::valid_range(Some(1), Some(3)));
/// assert!(mcp_runtime_rules::valid_range(None, Some(3)));
/// assert!(!mcp_runtime_rules::valid_range(Some(8), Some(4)));
/// assert!(!mcp_runtime_rules::valid_range(Some(f64::NAN), Some(4.0)));
/// ```
pub fn valid_range<T: PartialOrd>(low: Option<T>, high: Option<T>) -> bool {
    match (low, high) {
        (Some(low), Some(high)) => low <= high,
        _ => true,
    }
}

/// One piece of a URI template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplatePart<'a> {
    /// Text that must appear as it is.
    Literal(&'a str),
    /// A `{name}` variable.
    Variable(&'a str),
}

/// Splits a URI template into its pieces; `None` when it breaks
/// [`URI_TEMPLATE_RULE`]: unbalanced braces, an unnamed variable or one
/// with another character, two variables side by side.
///
/// ```
/// use mcp_runtime_rules::{TemplatePart, template_parts};
///
/// assert_eq!(
///     template_parts("file:///{name}.txt"),
///     Some(vec![
///         TemplatePart::Literal("file:///"),
///         TemplatePart::Variable("name"),
///         TemplatePart::Literal(".txt"),
///     ])
/// );
/// assert_eq!(template_parts("file:///{a}{b}"), None);
/// ```
pub fn template_parts(template: &str) -> Option<Vec<TemplatePart<'_>>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let end = rest.find('}')?;
                let name = &rest[1..end];
                let valid = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
                if !valid || matches!(parts.last(), Some(TemplatePart::Variable(_))) {
                    return None;
                }
                parts.push(TemplatePart::Variable(name));
                rest = &rest[end + 1..];
            }
            Some(start) => {
                let literal = &rest[..start];
                if literal.contains('}') {
                    return None;
                }
                parts.push(TemplatePart::Literal(literal));
                rest = &rest[start..];
            }
            None => {
                if rest.contains('}') {
                    return None;
                }
                parts.push(TemplatePart::Literal(rest));
                rest = "";
            }
        }
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec;

    #[test]
    fn tool_names() {
        assert!(valid_tool_name("a.b-c_d9"));
        assert!(valid_tool_name(&"x".repeat(128)));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("a b"));
        assert!(!valid_tool_name("caf\u{e9}"));
        assert!(!valid_tool_name(&"x".repeat(129)));
    }

    #[test]
    fn templates() {
        assert_eq!(
            template_parts("x/{a.b}/y"),
            Some(vec![
                TemplatePart::Literal("x/"),
                TemplatePart::Variable("a.b"),
                TemplatePart::Literal("/y"),
            ])
        );
        assert_eq!(template_parts(""), Some(vec![]));
        for bad in ["x/{", "x/{}", "x/{a}{b}", "x/}", "x/{a-b}", "{a}}"] {
            assert_eq!(template_parts(bad), None, "{bad}");
        }
    }

    #[test]
    fn descriptions() {
        assert!(valid_description("Deploys."));
        assert!(valid_description("  x  "));
        for bad in ["", " ", "\n\t "] {
            assert!(!valid_description(bad), "{bad:?}");
        }
    }

    #[test]
    fn scopes_are_rfc_6749_scope_tokens() {
        for good in [
            "read",
            "files:read",
            "a",
            "https://x.example/s?q=1#f",
            "!#[]~",
        ] {
            assert!(valid_scope(good), "{good:?}");
        }
        for bad in [
            "",
            "a b",
            " a",
            "a\"b",
            "a\\b",
            "a\tb",
            "a\nb",
            "caf\u{e9}",
            "\u{7f}",
            "\u{0}",
        ] {
            assert!(!valid_scope(bad), "{bad:?}");
        }
        // Every byte the RFC allows, and only those.
        let allowed: String = (0x21u8..=0x7e)
            .filter(|b| !matches!(b, b'"' | b'\\'))
            .map(char::from)
            .collect();
        assert!(valid_scope(&allowed));
        for byte in (0u8..=0x7f).filter(|b| !allowed.as_bytes().contains(b)) {
            let scope = String::from(char::from(byte));
            assert!(!valid_scope(&scope), "{byte:#x}");
        }
    }

    #[test]
    fn fixed_uris() {
        assert!(valid_fixed_uri("test://items/all"));
        assert!(valid_fixed_uri("test://items/}"));
        assert!(!valid_fixed_uri("test://items/{id}"));
        assert!(!valid_fixed_uri("{"));
    }

    #[test]
    fn ranges() {
        assert!(valid_range(Some(1u64), Some(1)));
        assert!(valid_range(Some(1u64), Some(2)));
        assert!(valid_range::<u64>(None, None));
        assert!(valid_range(Some(9u64), None));
        assert!(valid_range(None, Some(0u64)));
        assert!(!valid_range(Some(2u64), Some(1)));
        assert!(valid_range(Some(-0.5), Some(0.5)));
        assert!(!valid_range(Some(0.5), Some(-0.5)));
        assert!(!valid_range(Some(f64::NAN), Some(1.0)));
        assert!(!valid_range(Some(0.0), Some(f64::NAN)));
        assert!(valid_range(Some(f64::NEG_INFINITY), Some(f64::INFINITY)));
    }
}
