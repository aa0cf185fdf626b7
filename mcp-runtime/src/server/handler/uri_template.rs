//! Matching URIs against simple RFC 6570 templates (`{var}` expressions).

use std::collections::BTreeMap;

use crate::rules::TemplatePart;

/// A parsed URI template of literal text and `{name}` variables.
///
/// A variable matches one or more characters up to the next literal of the
/// template, and never a `/` (level 1 simple expansion of a path segment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

impl UriTemplate {
    /// Parses `template`; `None` when it breaks the rule the macros check
    /// too (`crate::rules`): unbalanced braces, an unnamed variable, two
    /// variables side by side (which would be ambiguous).
    pub(crate) fn parse(template: &str) -> Option<Self> {
        let parts = crate::rules::template_parts(template)?
            .into_iter()
            .map(|part| match part {
                TemplatePart::Literal(text) => Part::Literal(text.to_owned()),
                TemplatePart::Variable(name) => Part::Variable(name.to_owned()),
            })
            .collect();
        Some(Self { parts })
    }

    /// The names of its variables, in the order they are written.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri` if it matches, by name.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut variables = BTreeMap::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(literal) => rest = rest.strip_prefix(literal.as_str())?,
                Part::Variable(name) => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    variables.insert(name.clone(), value.to_owned());
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(variables)
    }
}

#[cfg(test)]
mod tests {
    use super::UriTemplate;

    #[test]
    fn matches_one_variable_between_literals() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        let vars = t.matches("test://template/123/data").unwrap();
        assert_eq!(vars.get("id").map(String::as_str), Some("123"));
        assert!(t.matches("test://template/123/other").is_none());
        assert!(t.matches("test://template//data").is_none());
        assert!(t.matches("test://template/1/2/data").is_none());
    }

    #[test]
    fn trailing_variable_takes_the_rest() {
        let t = UriTemplate::parse("file:///{name}").unwrap();
        assert_eq!(t.matches("file:///a.txt").unwrap()["name"], "a.txt");
    }

    #[test]
    fn rejects_malformed_templates() {
        assert!(UriTemplate::parse("x/{").is_none());
        assert!(UriTemplate::parse("x/{}").is_none());
        assert!(UriTemplate::parse("x/{a}{b}").is_none());
        assert!(UriTemplate::parse("x/}").is_none());
    }
}
