//! Newline-delimited JSON over stdin and stdout.
//!
//! Each line is one JSON-RPC message. Requests run concurrently; responses
//! and notifications are written one per line, and nothing else ever goes
//! to stdout (logs belong on stderr). `notifications/cancelled` stops the
//! named request without a response. At end of input the requests in
//! flight are answered, then [`serve`] returns. At most
//! [`DEFAULT_MAX_IN_FLIGHT`] requests (settable) are handled at once;
//! reading pauses while they are.
//!
//! A 2025-era client's `initialize` pins a session to the connection: its
//! later requests are served in it, the server's questions to it (the
//! bridge) go out on stdout and its answers are delivered back, and list
//! changes and updates of the resources it subscribed to are written as
//! they happen. While every slot is taken and some request waits for the
//! client's answer, reading goes on: a further request is then refused as
//! busy rather than left unread in front of the answers the waiting
//! requests need.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::{AbortHandle, JoinSet};

use crate::logged::Wire;
use crate::schema::{
    CancelledNotificationParams, ErrorObject, McpError, RequestId, codes, notification_methods,
};
use crate::server::{
    Incoming, Notifier, ReceiveContext, Response, Server, Session, TransportKind, parse_message,
};

/// The longest line accepted by default (16 MiB); longer lines are refused
/// with `-32600` and skipped.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The most requests handled at once by default. While that many are in
/// flight, reading stops until one finishes: a peer that writes without
/// reading the answers fills the pipe, not the server's memory.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;

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
/// (its parsed line, at most [`Self::max_line_bytes`]), plus the queued
/// output lines.
#[must_use = "the transport does nothing until it serves"]
pub struct StdioTransport {
    server: Server,
    max_line_bytes: usize,
    max_in_flight: usize,
}

impl StdioTransport {
    /// A transport for `server`, with the default limits.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
        }
    }

    /// The longest line accepted (default [`DEFAULT_MAX_LINE_BYTES`]);
    /// a longer one is skipped and answered `-32600`.
    pub fn max_line_bytes(mut self, limit: usize) -> Self {
        self.max_line_bytes = limit;
        self
    }

    /// The most requests handled at once (default
    /// [`DEFAULT_MAX_IN_FLIGHT`], at least 1). While they are all in flight
    /// no further line is read, `notifications/cancelled` included.
    pub fn max_in_flight(mut self, limit: usize) -> Self {
        self.max_in_flight = limit.max(1);
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
    pub async fn serve_on<R, W>(self, mut input: R, output: W) -> io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let Self {
            server,
            max_line_bytes: max_line,
            max_in_flight,
        } = self;
        let permits = Arc::new(Semaphore::new(max_in_flight));
        let (out_tx, out_rx) = mpsc::channel::<String>(OUTPUT_BUFFER);
        let writer = tokio::spawn(write_lines(output, out_rx));
        let in_flight: Arc<Mutex<HashMap<RequestId, AbortHandle>>> = Arc::default();
        // The connection's 2025-era session, once `initialize` opened one.
        let session: Arc<Mutex<Option<Session>>> = Arc::default();
        let mut tasks = JoinSet::new();
        let mut line = Vec::new();

        loop {
            line.clear();
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
            let pinned = lock(&session).clone();
            match parse_message(&line) {
                Err(response) => send(&out_tx, response.to_json()).await,
                Ok(Incoming::Notification { method, params }) => {
                    if method == notification_methods::CANCELLED {
                        cancel(&in_flight, params);
                    } else if let Some(session) = &pinned {
                        server.handle_notification(&method, session);
                    }
                }
                Ok(Incoming::Response(response)) => match &pinned {
                    // Never answered: an error with the response's id would
                    // read as the answer to the client's own request.
                    None => tracing::warn!(
                        id = %Wire(&response.id.to_string()),
                        "ignored a response outside a 2025-era session"
                    ),
                    Some(session) => {
                        if let Err(unknown) = session.deliver(response) {
                            tracing::warn!(unknown = %Wire(&unknown.to_string()), "ignored a response");
                        }
                    }
                },
                Ok(Incoming::Request(request)) => {
                    // Reading waits here while the bound is reached, unless
                    // a request waits for this client's answer: the answer
                    // must not stay unread behind this request.
                    let permit = match &pinned {
                        None => Arc::clone(&permits).acquire_owned().await.ok(),
                        Some(session) => tokio::select! {
                            biased;
                            permit = Arc::clone(&permits).acquire_owned() => permit.ok(),
                            () = session.until_awaiting_client() => {
                                let busy = Response::error(Some(request.id), busy(max_in_flight));
                                send(&out_tx, busy.to_json()).await;
                                continue;
                            }
                        },
                    };
                    let Some(permit) = permit else {
                        break; // never closed
                    };
                    let server = server.clone();
                    let out = out_tx.clone();
                    let registry = Arc::clone(&in_flight);
                    let slot = Arc::clone(&session);
                    let changes_out = out_tx.clone();
                    let id = request.id.clone();
                    let task_id = id.clone();
                    let handle = tasks.spawn(async move {
                        let receive = ReceiveContext::new(TransportKind::Stdio);
                        let notifier = Notifier::new(out.clone());
                        let response = match pinned {
                            Some(session) => {
                                server
                                    .handle_session_request(request, receive, session, notifier)
                                    .await
                            }
                            None => server.handle_request(request, receive, notifier).await,
                        };
                        lock(&registry).remove(&task_id);
                        if let Some(opened) = response.opened_session() {
                            // Pinned before the client reads the answer to
                            // its initialize, so its next request finds it.
                            *lock(&slot) = Some(opened.clone());
                            tokio::spawn(forward_changes(
                                server.clone(),
                                opened.clone(),
                                changes_out,
                            ));
                        }
                        send(&out, response.to_json()).await;
                        drop(permit);
                    });
                    lock(&in_flight).insert(id, handle);
                }
            }
            // Reap finished tasks so the set does not grow without bound.
            while tasks.try_join_next().is_some() {}
        }

        // Input is over: end open `subscriptions/listen` streams and the
        // session (its open questions fail), answer the rest.
        server.close_subscriptions();
        if let Some(session) = lock(&session).take() {
            session.end();
        }
        while tasks.join_next().await.is_some() {}
        drop(out_tx);
        writer.await.map_err(io::Error::other)?
    }
}

/// The refusal of a request that arrives while every slot is taken and some
/// request waits for the client's answer.
fn busy(max_in_flight: usize) -> McpError {
    McpError::Other(ErrorObject {
        code: codes::INTERNAL_ERROR,
        message: format!(
            "Server busy: all {max_in_flight} request slots are taken, some by requests \
             waiting for this client's answers; answer them, then retry"
        ),
        data: None,
    })
}

/// Writes the changes a 2025-era session's client asked for (list changes,
/// updates of subscribed resources) until the session ends or the output
/// closes.
async fn forward_changes(server: Server, session: Session, out: mpsc::Sender<String>) {
    let mut changes = server.changes().subscribe();
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(change) => {
                    if let Some(json) = session.notification_for(&change)
                        && out.send(json).await.is_err()
                    {
                        return;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a stdio session fell behind; changes were dropped");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
            () = session.ended() => return,
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

fn cancel(
    in_flight: &Mutex<HashMap<RequestId, AbortHandle>>,
    params: Option<crate::schema::JsonObject>,
) {
    let parsed = params.and_then(|p| {
        serde_json::from_value::<CancelledNotificationParams>(serde_json::Value::Object(p)).ok()
    });
    let Some(params) = parsed else {
        tracing::debug!("ignored a malformed notifications/cancelled");
        return;
    };
    if let Some(handle) = lock(in_flight).remove(&params.request_id) {
        tracing::debug!(
            id = %Wire(&params.request_id.to_string()),
            "request cancelled by the client"
        );
        handle.abort();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
