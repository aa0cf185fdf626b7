//! The naming rules both crates apply: the runtime when a server is built,
//! the macros at compile time. This one file is compiled into both
//! (`#[path]` in `mcp-macros`), so the two cannot disagree. It uses
//! nothing but `core` and `alloc`.

/// What a tool name may be, in words.
pub(crate) const TOOL_NAME_RULE: &str = "1 to 128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`";

/// What a URI template may be, in words.
pub(crate) const URI_TEMPLATE_RULE: &str = "literal text and `{name}` variables (names of \
     letters, digits, `_` and `.`), with no two variables side by side";

/// Whether `name` is a valid tool name ([`TOOL_NAME_RULE`]).
pub(crate) fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// One piece of a URI template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TemplatePart<'a> {
    /// Text that must appear as it is.
    Literal(&'a str),
    /// A `{name}` variable.
    Variable(&'a str),
}

/// Splits a URI template into its pieces; `None` when it breaks
/// [`URI_TEMPLATE_RULE`]: unbalanced braces, an unnamed variable or one
/// with another character, two variables side by side.
pub(crate) fn template_parts(template: &str) -> Option<Vec<TemplatePart<'_>>> {
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

    #[test]
    fn tool_names() {
        assert!(valid_tool_name("a.b-c_d9"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("a b"));
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
        for bad in ["x/{", "x/{}", "x/{a}{b}", "x/}", "x/{a-b}"] {
            assert_eq!(template_parts(bad), None, "{bad}");
        }
    }
}
