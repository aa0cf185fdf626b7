//! Newline-delimited JSON over stdin and stdout.
//!
//! Each line is one JSON-RPC message. Requests run concurrently; responses
//! and notifications are written one per line, and nothing else ever goes
//! to stdout (logs belong on stderr). `notifications/cancelled` stops the
//! named request without a response. At end of input the requests in
//! flight are answered, then [`serve`] returns. At most
//! [`StdioLimits::max_in_flight`] requests (64 by default) are handled at
//! once; reading pauses while they are.
//!
//! A 2025-era client's `initialize` pins a session to the connection: its
//! later requests are served in it, the server's questions to it (the
//! bridge) go out on stdout and its answers are delivered back, and list
//! changes and updates of the resources it subscribed to are written as
//! they happen. While every slot is taken and some request waits for the
//! client's answer, reading goes on: a further request is then refused as
//! busy rather than left unread in front of the answers the waiting
//! requests need.
//!
//! This file moves the bytes: it reads and frames lines and writes them.
//! What each message means for the connection's requests and session
//! (admission within the bound, cancellation, delivery of answers, change
//! forwarding) is the session driver's (`transport/session/`), shared
//! with HTTP.

use std::io;
use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::logged::Wire;
use crate::schema::McpError;
use crate::server::{Notifier, ReceiveContext, Response, Server, TransportKind, parse_message};
use crate::transport::session::{Driver, Step, changes};

/// The longest line accepted by default: 16 MiB.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The most requests handled at once by default: 64.
const MAX_IN_FLIGHT: usize = 64;

/// The bounds of a [`StdioTransport`]: how long one message may be and how
/// many requests are handled at once. Each field states its default, which
/// [`StdioLimits::default`] holds.
///
/// Set them at once with [`StdioTransport::limits`], starting from the
/// defaults, or one at a time with [`StdioTransport::max_line_bytes`] and
/// [`StdioTransport::max_in_flight`], which write into the same settings;
/// [`StdioTransport::current_limits`] reads them back.
///
/// ```
/// use mcp_runtime::server::Server;
/// use mcp_runtime::transport::stdio::{StdioLimits, StdioTransport};
///
/// # fn build() -> Result<(), Box<dyn std::error::Error>> {
/// let mut limits = StdioLimits::default();
/// limits.max_in_flight = 8;
/// let server = Server::builder("limited", "1.0.0").build()?;
/// let transport = StdioTransport::new(server).limits(limits);
/// assert_eq!(transport.current_limits().max_in_flight, 8);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioLimits {
    /// The longest line (one message) accepted, in bytes, without its
    /// newline; a longer one is skipped and answered `-32600`. Default:
    /// 16 MiB.
    pub max_line_bytes: usize,
    /// The most requests handled at once. While that many are in flight no
    /// further line is read, `notifications/cancelled` included: a peer
    /// that writes without reading the answers fills the pipe, not the
    /// server's memory. At least 1 (0 is taken as 1). Default: 64.
    pub max_in_flight: usize,
}

impl Default for StdioLimits {
    fn default() -> Self {
        Self {
            max_line_bytes: MAX_LINE_BYTES,
            max_in_flight: MAX_IN_FLIGHT,
        }
    }
}

/// The capacity the line buffer keeps between lines: a longer line's
/// buffer is given back once it is read.
const KEPT_LINE_CAPACITY: usize = 64 * 1024;

/// The longest line accepted by default (16 MiB).
#[doc(hidden)]
#[deprecated(note = "use `StdioLimits::default().max_line_bytes`")]
pub const DEFAULT_MAX_LINE_BYTES: usize = MAX_LINE_BYTES;

/// The most requests handled at once by default (64).
#[doc(hidden)]
#[deprecated(note = "use `StdioLimits::default().max_in_flight`")]
pub const DEFAULT_MAX_IN_FLIGHT: usize = MAX_IN_FLIGHT;

/// Lines queued for stdout before handlers wait for the writer.
const OUTPUT_BUFFER: usize = 256;

/// Serves `server` on the process's stdin and stdout until stdin ends, with
/// the default limits (see [`StdioTransport`]).
pub async fn serve(server: Server) -> io::Result<()> {
    StdioTransport::new(server).serve().await
}

/// Configures the stdio transport of a [`Server`]: newline-delimited JSON,
/// requests handled concurrently up to a bound.
///
/// Memory is bounded by the in-flight limit times what one request holds
/// (its parsed line, at most [`StdioLimits::max_line_bytes`]), plus the
/// queued output lines.
#[must_use = "the transport does nothing until it serves"]
pub struct StdioTransport {
    server: Server,
    limits: StdioLimits,
}

impl StdioTransport {
    /// A transport for `server`, with the default limits.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            limits: StdioLimits::default(),
        }
    }

    /// Sets every limit at once (see [`StdioLimits`] for each and its
    /// default).
    pub fn limits(mut self, limits: StdioLimits) -> Self {
        self.limits = limits;
        self.limits.max_in_flight = limits.max_in_flight.max(1);
        self
    }

    /// The limits this transport applies: the defaults, changed by
    /// [`Self::limits`] and the setters of one limit.
    pub fn current_limits(&self) -> &StdioLimits {
        &self.limits
    }

    /// The longest line accepted ([`StdioLimits::max_line_bytes`], default
    /// 16 MiB); a longer one is skipped and answered `-32600`.
    pub fn max_line_bytes(mut self, limit: usize) -> Self {
        self.limits.max_line_bytes = limit;
        self
    }

    /// The most requests handled at once ([`StdioLimits::max_in_flight`],
    /// default 64, at least 1). While they are all in flight no further
    /// line is read, `notifications/cancelled` included.
    pub fn max_in_flight(mut self, limit: usize) -> Self {
        self.limits.max_in_flight = limit.max(1);
        self
    }

    /// Serves on the process's stdin and stdout until stdin ends.
    pub async fn serve(self) -> io::Result<()> {
        self.serve_on(BufReader::new(tokio::io::stdin()), tokio::io::stdout())
            .await
    }

    /// Serves on any line reader and writer (pipes, sockets, tests) until
    /// the input ends; then the requests in flight are answered and it
    /// returns.
    pub async fn serve_on<R, W>(self, input: R, output: W) -> io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let StdioLimits {
            max_line_bytes,
            max_in_flight,
        } = self.limits;
        let driver = Arc::new(Driver::new().max_in_flight(max_in_flight));
        serve_driven(self.server, driver, max_line_bytes, input, output).await
    }
}

/// The loop of [`StdioTransport::serve_on`], on the connection's `driver`:
/// reads lines, hands their messages to the driver, runs the requests it
/// admits on tasks of their own and writes what they answer.
async fn serve_driven<R, W>(
    server: Server,
    driver: Arc<Driver>,
    max_line: usize,
    mut input: R,
    output: W,
) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<String>(OUTPUT_BUFFER);
    let writer = tokio::spawn(write_lines(output, out_rx));
    let mut tasks = JoinSet::new();
    let mut line = Vec::new();

    loop {
        line.clear();
        // A long line's buffer is not kept for the next ones.
        line.shrink_to(KEPT_LINE_CAPACITY);
        match read_line(&mut input, &mut line, max_line).await? {
            Line::End => break,
            Line::TooLong => {
                let response = Response::error(
                    None,
                    McpError::InvalidRequest {
                        detail: format!("a message is longer than {max_line} bytes"),
                    },
                );
                send(&out_tx, response.to_json()).await;
                continue;
            }
            Line::Complete => {}
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message = match parse_message(&line) {
            Ok(message) => message,
            Err(response) => {
                send(&out_tx, response.to_json()).await;
                continue;
            }
        };
        // Reading waits here while every request slot is taken (unless a
        // request waits for this client's answer: then a request is
        // refused as busy, and the answer is not left unread behind it).
        match driver.receive(&server, message).await {
            Step::Done => {}
            // Never answered: an error with the response's id would read as
            // the answer to the client's own request.
            Step::Unsessioned(id) => tracing::warn!(
                id = %Wire(&id.to_string()),
                "ignored a response outside a 2025-era session"
            ),
            Step::Refused(response) | Step::OverBudget(response) => {
                send(&out_tx, response.to_json()).await;
            }
            Step::Run(admitted) => {
                let server = server.clone();
                let out = out_tx.clone();
                tasks.spawn(async move {
                    let receive = ReceiveContext::new(TransportKind::Stdio);
                    let answer = admitted.run(receive, Notifier::new(out.clone())).await;
                    let response = answer.response();
                    if let Some(opened) = response.opened_session() {
                        // The driver pinned it before this answer is
                        // written, so the client's next request finds it.
                        let changes = changes(&server, opened.clone(), TransportKind::Stdio);
                        tokio::spawn(forward(changes, out.clone()));
                    }
                    if !response.is_cancelled() {
                        send(&out, response.to_json()).await;
                    }
                    // The slot is freed once the answer is queued.
                    drop(answer);
                });
            }
        }
        // Reap finished tasks so the set does not grow without bound.
        while tasks.try_join_next().is_some() {}
    }

    // Input is over: end open `subscriptions/listen` streams and the
    // session (its open questions fail), answer the rest.
    server.close_subscriptions();
    driver.end();
    while tasks.join_next().await.is_some() {}
    drop(out_tx);
    writer.await.map_err(io::Error::other)?
}

/// Writes a session's `changes` until they end (the session did) or the
/// output closes.
async fn forward(changes: impl Stream<Item = String>, out: mpsc::Sender<String>) {
    let mut changes = std::pin::pin!(changes);
    while let Some(json) = changes.next().await {
        if out.send(json).await.is_err() {
            return;
        }
    }
}

enum Line {
    Complete,
    TooLong,
    End,
}

/// Reads one line into `buf` (without the newline), refusing to buffer
/// more than `max` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    let mut too_long = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(match (too_long, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Complete,
            });
        }
        let (taken, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + taken > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..taken]);
            }
        }
        input.consume(if done { taken + 1 } else { taken });
        if done {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

async fn send(out: &mpsc::Sender<String>, line: String) {
    if out.send(line).await.is_err() {
        tracing::debug!("stdout writer is gone; dropped a message");
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut output: W,
    mut lines: mpsc::Receiver<String>,
) -> io::Result<()> {
    while let Some(mut line) = lines.recv().await {
        line.push('\n');
        output.write_all(line.as_bytes()).await?;
        // Write whatever else is already queued before flushing once.
        while let Ok(mut next) = lines.try_recv() {
            next.push('\n');
            output.write_all(next.as_bytes()).await?;
        }
        output.flush().await?;
    }
    output.flush().await
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    use super::*;

    #[test]
    fn the_defaults_are_the_documented_ones_and_in_flight_is_at_least_one() {
        let limits = StdioLimits::default();
        assert_eq!(limits.max_line_bytes, 16 * 1024 * 1024);
        assert_eq!(limits.max_in_flight, 64);
        let server = Server::builder("stdio", "1").build().unwrap();
        let zero = StdioLimits {
            max_in_flight: 0,
            ..limits
        };
        let transport = StdioTransport::new(server).limits(zero);
        assert_eq!(transport.current_limits().max_in_flight, 1);
        let transport = transport.max_line_bytes(10);
        assert_eq!(transport.current_limits().max_line_bytes, 10);
    }

    /// Before the driver, a request's task was spawned before it was put
    /// in the cancel table: one that finished first left its entry behind
    /// for good, one per request id.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn quick_requests_leave_nothing_in_the_cancel_table() {
        const REQUESTS: usize = 2_000;
        let server = Server::builder("stdio", "1").build().unwrap();
        let limits = StdioLimits::default();
        let driver = Arc::new(Driver::new().max_in_flight(limits.max_in_flight));
        let (mut client, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, output) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(serve_driven(
            server,
            Arc::clone(&driver),
            limits.max_line_bytes,
            BufReader::new(server_in),
            server_out,
        ));
        let writing = tokio::spawn(async move {
            for id in 0..REQUESTS {
                let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
                client.write_all(line.as_bytes()).await.unwrap();
            }
            client
        });
        let mut lines = BufReader::new(output).lines();
        for _ in 0..REQUESTS {
            let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            assert!(line.contains("\"id\":"), "{line}");
        }
        assert_eq!(
            driver.in_flight(),
            0,
            "every answered request left the table"
        );
        drop(writing.await.unwrap());
        serving.await.unwrap().unwrap();
    }
}
