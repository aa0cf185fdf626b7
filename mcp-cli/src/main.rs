//! `mcp`: poke an MCP server from the shell, the way the MCP Inspector's CLI
//! does, and script it.
//!
//! ```text
//! mcp tools TARGET                    every tool, as a JSON array
//! mcp prompts TARGET                  every prompt
//! mcp resources TARGET                every resource
//! mcp call TARGET TOOL [ARGS_JSON]    a tool's result
//! mcp prompt TARGET NAME [ARGS_JSON]  a prompt's result
//! mcp read TARGET URI                 a resource's contents
//! ```
//!
//! TARGET is an `http://` or `https://` URL, or a command line that starts a
//! stdio server, as one argument (`'node server.js --stdio'`). Results go to
//! stdout as pretty-printed JSON. Exit status: 0 on a result, 1 when a tool
//! answered with `isError: true`, 2 on a protocol or connection error or bad
//! usage, with one line on stderr naming the server and what failed.
//!
//! The server's forms are answered from `--answers`, on the terminal when
//! stdin is one, or declined (`--decline` declines them all); URL-mode
//! requests are printed on stderr and accepted. Every use of the client is
//! in `connect.rs`.
//!
//! A server over HTTP that answers 401 is signed in to with OAuth: in the
//! browser (a listener on 127.0.0.1 receives the redirect), or with
//! `--client-id` and `--client-secret` as a machine (client credentials).
//! The registration and tokens are kept in `--token-store` (default
//! `$XDG_CONFIG_HOME/mcp/tokens.json` or `~/.config/mcp/tokens.json`,
//! mode 0600), so the next run refreshes instead of signing in again.

mod cli;
mod connect;
mod failure;
mod forms;
mod target;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use serde_json::{Map, Value};

use cli::{Cli, Command, EraArg};
use connect::{Connection, Era, Listing, Settings, SignInSettings};
use failure::Failure;
use forms::Policy;
use target::Target;

/// The exit status of a tool that answered with `isError: true`.
const TOOL_ERROR: u8 = 1;
/// The exit status of a protocol or connection error or of bad usage.
const FAILED: u8 = 2;

/// What a command ended with.
enum Outcome {
    /// A result to print; `tool_error` when it has `isError: true`.
    Printed { tool_error: bool },
}

fn main() -> ExitCode {
    // clap exits with status 2 on bad usage, and 0 after --help or --version.
    let cli = Cli::parse();
    let result = prepare(&cli).and_then(|(settings, request)| run(settings, request));
    match result {
        Ok(Outcome::Printed { tool_error: false }) => ExitCode::SUCCESS,
        Ok(Outcome::Printed { tool_error: true }) => ExitCode::from(TOOL_ERROR),
        Err(failure) => {
            eprintln!("mcp: {failure}");
            ExitCode::from(FAILED)
        }
    }
}

/// One request, its arguments already read.
enum Request {
    List(Listing),
    Call {
        tool: String,
        arguments: Option<Map<String, Value>>,
    },
    Prompt {
        name: String,
        arguments: Option<Map<String, Value>>,
    },
    Read {
        uri: String,
    },
}

/// Checks everything the command line says before anything is spawned or
/// sent.
fn prepare(cli: &Cli) -> Result<(Settings, Request), Failure> {
    let options = &cli.options;
    let target = Target::parse(cli.command.target())?;
    if !options.headers.is_empty() && !target.is_http() {
        return Err(Failure::usage(
            "--header applies to HTTP targets only, and TARGET is a command line",
        ));
    }
    if options.signs_in() && !target.is_http() {
        return Err(Failure::usage(
            "--client-id, --client-secret, --scope and --token-store apply to HTTP targets \
             only, and TARGET is a command line",
        ));
    }
    let request = match &cli.command {
        Command::Tools { .. } => Request::List(Listing::Tools),
        Command::Prompts { .. } => Request::List(Listing::Prompts),
        Command::Resources { .. } => Request::List(Listing::Resources),
        Command::Call {
            tool, args_json, ..
        } => Request::Call {
            tool: tool.clone(),
            arguments: args_json.as_deref().map(object_argument).transpose()?,
        },
        Command::Prompt {
            name, args_json, ..
        } => Request::Prompt {
            name: name.clone(),
            arguments: args_json
                .as_deref()
                .map(object_argument)
                .transpose()?
                .map(prompt_arguments)
                .transpose()?,
        },
        Command::Read { uri, .. } => Request::Read { uri: uri.clone() },
    };
    let settings = Settings {
        target,
        era: match options.era {
            EraArg::Auto => Era::Auto,
            EraArg::Modern => Era::Modern,
            EraArg::Legacy => Era::Legacy,
        },
        headers: options.headers.clone(),
        verbose: options.verbose,
        timeout: options.timeout,
        sign_in: SignInSettings {
            client_id: options.client_id.clone(),
            client_secret: options.client_secret.clone(),
            scopes: options.scope_list(),
            token_store: options.token_store.clone().or_else(default_token_store),
        },
        forms: Arc::new(Policy::from_options(
            options.decline,
            options.answers.as_deref(),
        )?),
    };
    Ok((settings, request))
}

/// Where the tokens are kept without `--token-store`:
/// `$XDG_CONFIG_HOME/mcp/tokens.json`, else `$HOME/.config/mcp/tokens.json`
/// (`%APPDATA%\\mcp\\tokens.json` on Windows); none (in memory) when
/// neither is set.
fn default_token_store() -> Option<std::path::PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let config = absolute("XDG_CONFIG_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".config")))
        .or_else(|| absolute("APPDATA"))?;
    Some(config.join("mcp").join("tokens.json"))
}

/// ARGS_JSON: a JSON object.
fn object_argument(text: &str) -> Result<Map<String, Value>, Failure> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(Failure::usage(format!(
            "ARGS_JSON must be a JSON object, not {}",
            forms::kind(&other)
        ))),
        Err(e) => Err(Failure::usage(format!("ARGS_JSON is not JSON: {e}"))),
    }
}

/// A prompt's arguments are strings: numbers and booleans are written as
/// text, anything else is refused.
fn prompt_arguments(arguments: Map<String, Value>) -> Result<Map<String, Value>, Failure> {
    arguments
        .into_iter()
        .map(|(name, value)| match value {
            Value::String(_) => Ok((name, value)),
            Value::Number(_) | Value::Bool(_) => Ok((name, Value::String(value.to_string()))),
            other => Err(Failure::usage(format!(
                "prompt arguments are strings, but {name:?} is {}",
                forms::kind(&other)
            ))),
        })
        .collect()
}

/// Runs the request within `--timeout`, and prints its result.
fn run(settings: Settings, request: Request) -> Result<Outcome, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::usage(format!("cannot start the async runtime: {e}")))?;
    let limit = settings.timeout;
    let server = settings.target.name().to_owned();
    let result = runtime.block_on(async {
        match tokio::time::timeout(limit, execute(&settings, request)).await {
            Ok(result) => result,
            Err(_) => Err(Failure::server(
                &server,
                format_args!("no result within {} (--timeout)", seconds(limit)),
            )),
        }
    });
    // A question still waiting on the terminal must not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    let result = result?;
    let tool_error = result.get("isError") == Some(&Value::Bool(true));
    print_json(&result)?;
    Ok(Outcome::Printed { tool_error })
}

async fn execute(settings: &Settings, request: Request) -> Result<Value, Failure> {
    let connection: Connection = connect::connect(settings).await?;
    match request {
        Request::List(listing) => connection.list(listing).await.map(Value::Array),
        Request::Call { tool, arguments } => connection.call(&tool, arguments).await,
        Request::Prompt { name, arguments } => connection.prompt(&name, arguments).await,
        Request::Read { uri } => connection.read(&uri).await,
    }
}

fn print_json(value: &Value) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::usage(format!("cannot print the result: {e}")))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}")
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::usage(format!("cannot write to stdout: {e}")))
}

fn seconds(limit: Duration) -> String {
    format!("{}s", limit.as_secs_f64())
}
