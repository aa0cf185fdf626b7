//! The server the official MCP conformance suite runs against.
//!
//! ```text
//! conformance-server --listen 127.0.0.1:PORT [--max-body-bytes N]
//! conformance-server --stdio
//! ```
//!
//! Over HTTP it prints `listening on http://127.0.0.1:PORT/mcp` to stderr
//! once it accepts connections. Logs go to stderr (`RUST_LOG` filters them).

mod fixtures;

use std::io::IsTerminal;
use std::process::ExitCode;

use mcp_runtime::transport::{http::HttpTransport, stdio};

const USAGE: &str = "usage: conformance-server (--listen ADDR [--max-body-bytes N] | --stdio)";

enum Mode {
    Http {
        listen: String,
        max_body_bytes: Option<usize>,
    },
    Stdio,
}

fn parse_args() -> Result<Mode, String> {
    let mut args = std::env::args().skip(1);
    let mut listen = None;
    let mut stdio = false;
    let mut max_body_bytes = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = Some(args.next().ok_or("--listen needs an address")?),
            "--stdio" => stdio = true,
            "--max-body-bytes" => {
                let value = args.next().ok_or("--max-body-bytes needs a number")?;
                max_body_bytes = Some(
                    value
                        .parse()
                        .map_err(|_| format!("--max-body-bytes: {value:?} is not a number"))?,
                );
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    match (listen, stdio) {
        (Some(listen), false) => Ok(Mode::Http {
            listen,
            max_body_bytes,
        }),
        (None, true) => Ok(Mode::Stdio),
        _ => Err(USAGE.to_owned()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let mode = match parse_args() {
        Ok(mode) => mode,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let server = match fixtures::server() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let result = match mode {
        Mode::Stdio => stdio::serve(server).await,
        Mode::Http {
            listen,
            max_body_bytes,
        } => {
            let mut transport = HttpTransport::new(server);
            if let Some(limit) = max_body_bytes {
                transport = transport.max_body_bytes(limit);
            }
            match transport.bind(listen.as_str()).await {
                Ok(bound) => {
                    eprintln!("listening on {}", bound.url());
                    bound.serve().await
                }
                Err(error) => Err(error),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}
