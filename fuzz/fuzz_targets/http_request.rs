//! Arbitrary bytes on one HTTP/1.1 connection, served as a bound transport
//! serves each accepted socket (the same hyper settings, timeouts, body
//! limits and 413 drain), on a paused clock so that every timeout fires at
//! once: the connection ends, every answer is a well-formed HTTP/1.1
//! response with an expected status, and nothing panics.

#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::BoxFuture;
use mcp_runtime::schema::{CallToolResult, McpError, Tool};
use mcp_runtime::server::Server;
use mcp_runtime::server::handler::{Ctx, Outcome, ToolArguments, ToolHandler};
use mcp_runtime::transport::http::HttpTransport;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct AnswersOk;

impl ToolHandler for AnswersOk {
    fn descriptor(&self) -> Tool {
        Tool::new("ok", "Answers ok.")
    }

    fn call(
        &self,
        _: ToolArguments,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async { Ok(Outcome::Complete(CallToolResult::text("ok"))) })
    }
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        Server::builder("fuzz", "0")
            .tool(AnswersOk)
            .build()
            .unwrap_or_else(|e| unreachable!("{e}"))
    })
}

/// Statuses the transport answers with.
const EXPECTED: &[&str] = &[
    "200", "202", "400", "401", "403", "404", "405", "406", "408", "413", "415", "431", "500",
];

fuzz_target!(|input: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap_or_else(|e| unreachable!("{e}"));
    runtime.block_on(async {
        let transport = HttpTransport::new(server().clone())
            .max_body_bytes(1024)
            .oversize_drain(4096, Duration::from_secs(1))
            .header_timeout(Duration::from_secs(1))
            .body_timeout(Duration::from_secs(1));
        let (mut client, server_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(transport.serve_connection(server_io));
        // Write what the client sends, then end it; read everything back.
        let (mut read_half, mut write_half) = tokio::io::split(&mut client);
        let writing = async {
            let _ = write_half.write_all(input).await;
            let _ = write_half.shutdown().await;
        };
        let mut output = Vec::new();
        let reading = read_half.read_to_end(&mut output);
        let _ = tokio::join!(writing, reading);
        let _ = tokio::time::timeout(Duration::from_secs(60), serving).await;
        // A response to `HEAD` has a length and no body, so responses cannot
        // be told apart by their lengths: where the input has a `HEAD`
        // anywhere (a request may start right after the previous body, in
        // the middle of a line), only the first response is checked.
        let has_head = input.windows(5).any(|w| w == b"HEAD ");
        check(&output, has_head);
    });
});

/// `output` is a sequence of HTTP/1.x responses, each with an expected
/// status; those framed by `Content-Length` are followed one by one, and
/// checking stops at the first one framed otherwise (an event stream).
fn check(mut output: &[u8], has_head: bool) {
    while !output.is_empty() {
        let Some(end) = output.windows(4).position(|w| w == b"\r\n\r\n") else {
            panic!(
                "a truncated response head: {:?}",
                String::from_utf8_lossy(output)
            );
        };
        let head = String::from_utf8_lossy(&output[..end]);
        // HTTP/1.0 requests are answered in HTTP/1.0.
        let status = head
            .strip_prefix("HTTP/1.1 ")
            .or_else(|| head.strip_prefix("HTTP/1.0 "))
            .and_then(|rest| rest.get(..3))
            .unwrap_or_else(|| panic!("not an HTTP/1.x response: {head:?}"));
        if status == "100" {
            // `100 Continue`, sent to a client that waits for it: no body.
            output = &output[end + 4..];
            continue;
        }
        assert!(EXPECTED.contains(&status), "unexpected status: {head:?}");
        let length = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        });
        let Some(length) = length else { return };
        if has_head {
            return;
        }
        output = output
            .get(end + 4 + length..)
            .unwrap_or_else(|| panic!("a response shorter than its Content-Length: {head:?}"));
    }
}
