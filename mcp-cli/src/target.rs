//! TARGET: an HTTP(S) URL, or a command line to spawn for stdio.

use crate::failure::Failure;

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A streamable HTTP endpoint.
    Http {
        /// The URL, as given.
        url: String,
    },
    /// A server to spawn, speaking newline-delimited JSON on stdin and stdout.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// The command line as given, to name the server in messages.
        line: String,
    },
}

impl Target {
    /// Reads TARGET: a URL when it starts with `http://` or `https://`,
    /// otherwise a command line split as a POSIX shell would (quotes and
    /// backslashes; no variables, globs or pipes).
    pub(crate) fn parse(text: &str) -> Result<Self, Failure> {
        let trimmed = text.trim();
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Ok(Self::Http {
                url: trimmed.to_owned(),
            });
        }
        let words = shlex::split(trimmed).ok_or_else(|| {
            Failure::usage(format!(
                "TARGET {text:?} is neither a URL nor a command line (unbalanced quotes or a \
                 trailing backslash)"
            ))
        })?;
        let mut words = words.into_iter();
        let Some(program) = words.next() else {
            return Err(Failure::usage(
                "TARGET is empty: give an http(s):// URL or a command line",
            ));
        };
        Ok(Self::Stdio {
            program,
            args: words.collect(),
            line: trimmed.to_owned(),
        })
    }

    /// How messages name the server: its URL or its command line.
    pub(crate) fn name(&self) -> &str {
        match self {
            Self::Http { url } => url,
            Self::Stdio { line, .. } => line,
        }
    }

    /// True for an HTTP target.
    pub(crate) fn is_http(&self) -> bool {
        matches!(self, Self::Http { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_command_lines() {
        assert_eq!(
            Target::parse(" https://example.com/mcp"),
            Ok(Target::Http {
                url: "https://example.com/mcp".into()
            })
        );
        assert_eq!(
            Target::parse(r#"node "my server.js" --stdio 'a b'"#),
            Ok(Target::Stdio {
                program: "node".into(),
                args: vec!["my server.js".into(), "--stdio".into(), "a b".into()],
                line: r#"node "my server.js" --stdio 'a b'"#.into(),
            })
        );
        assert!(Target::parse("node 'unbalanced").is_err());
        assert!(Target::parse("   ").is_err());
    }
}
