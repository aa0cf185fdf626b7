//! The `WWW-Authenticate: Bearer ...` challenge of a 401 or 403 (RFC 6750
//! §3, RFC 9728 §5.1).

/// What a Bearer challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is.
    pub(crate) resource_metadata: Option<String>,
    /// `scope`, split on spaces.
    pub(crate) scopes: Vec<String>,
    /// `error` (`invalid_token`, `insufficient_scope`).
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// Parses the Bearer challenge among the header values; an absent or
    /// unparsable one gives an empty challenge.
    pub(crate) fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        for value in values {
            if let Some(params) = bearer_params(value) {
                let mut challenge = Self::default();
                for (name, value) in params {
                    match name.to_ascii_lowercase().as_str() {
                        "resource_metadata" => challenge.resource_metadata = Some(value),
                        "scope" => {
                            challenge.scopes =
                                value.split_whitespace().map(str::to_owned).collect();
                        }
                        "error" => challenge.error = Some(value),
                        _ => {}
                    }
                }
                return challenge;
            }
        }
        Self::default()
    }
}

/// The auth-params of the Bearer challenge in one header value, if it has
/// one (other schemes in the same value are skipped).
fn bearer_params(value: &str) -> Option<Vec<(String, String)>> {
    let mut rest = value.trim_start();
    let mut found: Option<Vec<(String, String)>> = None;
    while !rest.is_empty() {
        // A token: a scheme, or a parameter name.
        let end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let token = &rest[..end];
        let after = rest[end..].trim_start();
        if let Some(value_part) = after.strip_prefix('=') {
            let (value, remaining) = parse_value(value_part.trim_start());
            if let Some(params) = found.as_mut() {
                params.push((token.to_owned(), value));
            }
            rest = remaining.trim_start().trim_start_matches(',').trim_start();
        } else if token.is_empty() {
            rest = after.trim_start_matches(',').trim_start();
        } else {
            // A new scheme begins.
            if found.is_some() {
                break;
            }
            if token.eq_ignore_ascii_case("bearer") {
                found = Some(Vec::new());
            }
            rest = after.trim_start_matches(',').trim_start();
        }
    }
    found
}

/// A quoted string (with `\` escapes) or a token, and what follows it.
fn parse_value(input: &str) -> (String, &str) {
    if let Some(quoted) = input.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                c => value.push(c),
            }
        }
        (value, "")
    } else {
        let end = input
            .find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(input.len());
        (input[..end].to_owned(), &input[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_bearer_parameters() {
        let c = Challenge::parse([
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp", error_description="no \"way\"""#,
        ]);
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scopes, ["mcp:basic", "mcp:write"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn finds_bearer_among_other_schemes() {
        let c = Challenge::parse(["Basic realm=\"x\", Bearer scope=a, DPoP algs=\"ES256\""]);
        assert_eq!(c.scopes, ["a"]);
        assert_eq!(Challenge::parse(["Basic realm=x"]), Challenge::default());
        assert_eq!(Challenge::parse(["Bearer"]), Challenge::default());
        assert_eq!(
            Challenge::parse(["bearer scope=\"unterminated"]).scopes,
            ["unterminated"]
        );
    }
}
