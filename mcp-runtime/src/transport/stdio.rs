//! Newline-delimited JSON over stdin and stdout.
//!
//! Each line is one JSON-RPC message. Requests run concurrently; responses
//! and notifications are written one per line, and nothing else ever goes
//! to stdout (logs belong on stderr). `notifications/cancelled` stops the
//! named request without a response. At end of input the requests in
//! flight are answered, then [`serve`] returns.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

use crate::schema::{CancelledNotificationParams, McpError, RequestId, notification_methods};
use crate::server::{
    Incoming, Notifier, ReceiveContext, Response, Server, TransportKind, parse_message,
};

/// The longest line accepted by default (16 MiB); longer lines are refused
/// with `-32600` and skipped.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Serves `server` on the process's stdin and stdout until stdin ends.
pub async fn serve(server: Server) -> io::Result<()> {
    serve_on(
        server,
        BufReader::new(tokio::io::stdin()),
        tokio::io::stdout(),
        DEFAULT_MAX_LINE_BYTES,
    )
    .await
}

/// Serves `server` on any line reader and writer (pipes, sockets, tests).
pub async fn serve_on<R, W>(
    server: Server,
    mut input: R,
    output: W,
    max_line: usize,
) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<String>(256);
    let writer = tokio::spawn(write_lines(output, out_rx));
    let in_flight: Arc<Mutex<HashMap<RequestId, AbortHandle>>> = Arc::default();
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
        match parse_message(&line) {
            Err(response) => send(&out_tx, response.to_json()).await,
            Ok(Incoming::Notification { method, params }) => {
                if method == notification_methods::CANCELLED {
                    cancel(&in_flight, params);
                }
            }
            Ok(Incoming::Request(request)) => {
                let server = server.clone();
                let out = out_tx.clone();
                let registry = Arc::clone(&in_flight);
                let id = request.id.clone();
                let task_id = id.clone();
                let handle = tasks.spawn(async move {
                    let receive = ReceiveContext::new(TransportKind::Stdio);
                    let response = server
                        .handle_request(request, receive, Notifier::new(out.clone()))
                        .await;
                    lock(&registry).remove(&task_id);
                    send(&out, response.to_json()).await;
                });
                lock(&in_flight).insert(id, handle);
            }
        }
        // Reap finished tasks so the set does not grow without bound.
        while tasks.try_join_next().is_some() {}
    }

    // Input is over: end open `subscriptions/listen` streams, answer the rest.
    server.close_subscriptions();
    while tasks.join_next().await.is_some() {}
    drop(out_tx);
    writer.await.map_err(io::Error::other)?
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
        tracing::debug!(id = %params.request_id, "request cancelled by the client");
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
