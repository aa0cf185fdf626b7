//! The command line: subcommands, options, and the checks of each value
//! that need no server (they fail with exit status 2 before anything is
//! spawned or sent).

use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Poke an MCP server from the shell: list what it offers, call a tool, get
/// a prompt, read a resource. Results are JSON on stdout.
#[derive(Debug, Parser)]
#[command(
    name = "mcp",
    version,
    after_help = "TARGET is an http:// or https:// URL, or a command line that starts a \
                  stdio server, given as one argument and split as a shell would \
                  (for example 'node server.js --stdio').\n\n\
                  Exit status: 0 on a result, 1 when a tool answered with isError: true, \
                  2 on a protocol or connection error or bad usage."
)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
    /// How to connect and how to answer the server's questions.
    #[command(flatten)]
    pub(crate) options: Options,
}

/// One `mcp` subcommand.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print every tool (all pages) as a JSON array.
    Tools {
        /// The server: a URL, or a command line to spawn.
        target: String,
    },
    /// Print every prompt (all pages) as a JSON array.
    Prompts {
        /// The server: a URL, or a command line to spawn.
        target: String,
    },
    /// Print every resource (all pages) as a JSON array.
    Resources {
        /// The server: a URL, or a command line to spawn.
        target: String,
    },
    /// Call a tool and print its result (exit status 1 when it is an error result).
    Call {
        /// The server: a URL, or a command line to spawn.
        target: String,
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object (none by default).
        args_json: Option<String>,
    },
    /// Get a prompt and print its result.
    Prompt {
        /// The server: a URL, or a command line to spawn.
        target: String,
        /// The prompt's name.
        name: String,
        /// The arguments, a JSON object whose values are strings (none by default).
        args_json: Option<String>,
    },
    /// Read a resource and print its result.
    Read {
        /// The server: a URL, or a command line to spawn.
        target: String,
        /// The resource's URI.
        uri: String,
    },
}

impl Command {
    /// The TARGET argument every subcommand has.
    pub(crate) fn target(&self) -> &str {
        match self {
            Self::Tools { target }
            | Self::Prompts { target }
            | Self::Resources { target }
            | Self::Call { target, .. }
            | Self::Prompt { target, .. }
            | Self::Read { target, .. } => target,
        }
    }
}

/// The options every subcommand takes.
#[derive(Debug, Args)]
pub(crate) struct Options {
    /// Answer forms from this JSON object (field name to value), given inline
    /// or as the path of a file holding it. A form whose required fields it
    /// does not cover is declined; only the form's own fields are sent.
    #[arg(long, global = true, value_name = "FILE_OR_JSON")]
    pub(crate) answers: Option<String>,
    /// Decline every form the server asks.
    #[arg(long, global = true, conflicts_with = "answers")]
    pub(crate) decline: bool,
    /// The protocol era to speak: 2026 (2026-07-28), 2025 (2025-era
    /// sessions), or auto.
    #[arg(long, global = true, value_enum, default_value_t = EraArg::Auto)]
    pub(crate) era: EraArg,
    /// An extra HTTP header, `NAME:VALUE` (repeatable; HTTP targets only).
    #[arg(long = "header", global = true, value_name = "NAME:VALUE", value_parser = parse_header)]
    pub(crate) headers: Vec<(String, String)>,
    /// The bound on the whole command, in seconds.
    #[arg(long, global = true, value_name = "SECS", default_value = "60", value_parser = parse_timeout)]
    pub(crate) timeout: Duration,
    /// Print every message sent and received on stderr.
    #[arg(long, short, global = true)]
    pub(crate) verbose: bool,
    /// Sign in with this pre-registered OAuth client id (HTTP targets only;
    /// without it the client registers itself where the server allows).
    #[arg(long, global = true, value_name = "ID")]
    pub(crate) client_id: Option<String>,
    /// The client's secret: with --client-id, signs in as a machine with
    /// the client credentials grant instead of in the browser.
    #[arg(long, global = true, value_name = "SECRET", requires = "client_id")]
    pub(crate) client_secret: Option<String>,
    /// A scope to ask for when the server names none (repeatable, or
    /// several separated by spaces).
    #[arg(long = "scope", global = true, value_name = "SCOPE")]
    pub(crate) scopes: Vec<String>,
    /// Where to keep the client's registration and tokens (a JSON file
    /// readable by the user only; default: $XDG_CONFIG_HOME/mcp/tokens.json,
    /// or ~/.config/mcp/tokens.json).
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) token_store: Option<std::path::PathBuf>,
}

impl Options {
    /// Whether any of the sign-in options was given.
    pub(crate) fn signs_in(&self) -> bool {
        self.client_id.is_some()
            || self.client_secret.is_some()
            || !self.scopes.is_empty()
            || self.token_store.is_some()
    }

    /// The scopes of every `--scope`, split at spaces.
    pub(crate) fn scope_list(&self) -> Vec<String> {
        self.scopes
            .iter()
            .flat_map(|s| s.split_whitespace())
            .map(str::to_owned)
            .collect()
    }
}

/// The values of `--era`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EraArg {
    /// 2025-era sessions (`initialize`).
    #[value(name = "2025")]
    Legacy,
    /// MCP 2026-07-28.
    #[value(name = "2026")]
    Modern,
    /// Whatever the server speaks.
    Auto,
}

/// Reads `NAME:VALUE`: a header name of token characters, and a value
/// without control characters (surrounding spaces trimmed).
fn parse_header(text: &str) -> Result<(String, String), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!("{text:?} is not NAME:VALUE"));
    };
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(format!("{name:?} is not a header name"));
    }
    let value = value.trim();
    if value.chars().any(|c| c.is_control()) {
        return Err(format!("the value of {name} has control characters"));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// Reads a positive number of seconds (fractions allowed).
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if seconds <= 0.0 {
        return Err("it must be more than 0".into());
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_name_colon_value() {
        assert_eq!(
            parse_header("X-Api-Key: abc:def "),
            Ok(("X-Api-Key".into(), "abc:def".into()))
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("bad name: x").is_err());
        assert!(parse_header(": x").is_err());
        assert!(parse_header("X: a\nb").is_err());
    }

    #[test]
    fn timeouts_are_positive_seconds() {
        assert_eq!(parse_timeout("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_timeout("0").is_err());
        assert!(parse_timeout("-1").is_err());
        assert!(parse_timeout("soon").is_err());
    }

    #[test]
    fn options_go_anywhere() {
        let cli = Cli::try_parse_from([
            "mcp",
            "--timeout",
            "5",
            "call",
            "http://x/mcp",
            "t",
            "{}",
            "--era",
            "2026",
        ])
        .unwrap();
        assert_eq!(cli.options.era, EraArg::Modern);
        assert_eq!(cli.options.timeout, Duration::from_secs(5));
        assert!(
            Cli::try_parse_from(["mcp", "tools", "x", "--decline", "--answers", "{}"]).is_err()
        );
    }

    #[test]
    fn sign_in_options() {
        let cli = Cli::try_parse_from([
            "mcp",
            "tools",
            "http://x/mcp",
            "--client-id",
            "app",
            "--client-secret",
            "s",
            "--scope",
            "a b",
            "--scope",
            "c",
            "--token-store",
            "/tmp/t.json",
        ])
        .unwrap();
        assert_eq!(cli.options.client_id.as_deref(), Some("app"));
        assert_eq!(cli.options.scope_list(), ["a", "b", "c"]);
        assert!(cli.options.signs_in());
        assert!(
            Cli::try_parse_from(["mcp", "tools", "http://x/mcp", "--client-secret", "s"]).is_err(),
            "--client-secret needs --client-id"
        );
    }
}
