//! stdio: a spawned server, one JSON message per line on its stdin and
//! stdout. Its stderr is left to the terminal, never read as protocol; the
//! child is killed when the connection is dropped.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::client::ClientError;
use crate::client::inbound::Router;
use crate::client::notifications::Direction;
use crate::schema::RequestId;

/// The bound on writing one message to the child.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// A spawned server and the task reading its output.
pub(crate) struct StdioWire {
    program: String,
    stdin: Mutex<ChildStdin>,
    // Kept so the child is killed when the connection is dropped.
    _child: Child,
    reader: JoinHandle<()>,
}

impl Drop for StdioWire {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl StdioWire {
    /// Spawns `program args...` and routes every line it writes.
    pub(crate) fn spawn(
        program: &str,
        args: &[String],
        router: Arc<Router>,
        max_message_bytes: usize,
    ) -> Result<Self, ClientError> {
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Transport(format!("cannot spawn {program:?}: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Transport(format!(
                "{program:?} has no stdin or stdout"
            )));
        };
        let reader = tokio::spawn(read_lines(
            BufReader::new(stdout),
            router,
            max_message_bytes,
        ));
        Ok(Self {
            program: program.to_owned(),
            stdin: Mutex::new(stdin),
            _child: child,
            reader,
        })
    }

    /// Writes one message as a line.
    pub(crate) async fn send(&self, router: &Router, message: &Value) -> Result<(), ClientError> {
        router.show(Direction::Sent, message);
        let mut line =
            serde_json::to_vec(message).map_err(|e| ClientError::Encode(e.to_string()))?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        let written = tokio::time::timeout(WRITE_TIMEOUT, async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        })
        .await;
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(ClientError::Transport(format!(
                "cannot write to {:?}: {e}",
                self.program
            ))),
            Err(_) => Err(ClientError::Transport(format!(
                "{:?} did not read its input within {WRITE_TIMEOUT:?}",
                self.program
            ))),
        }
    }

    /// Sends a request and awaits its response.
    pub(crate) async fn request(
        &self,
        router: &Router,
        id: &RequestId,
        body: &Value,
    ) -> Result<Value, ClientError> {
        let answer = router.expect(id);
        self.send(router, body).await?;
        answer.await.map_err(|_| {
            ClientError::Transport(format!(
                "{:?} closed its output before answering request {id}",
                self.program
            ))
        })
    }
}

/// Routes each line of the child's output; a line longer than `max` is
/// skipped whole. At the end of the output every awaited request fails.
async fn read_lines(mut output: impl AsyncBufRead + Unpin, router: Arc<Router>, max: usize) {
    let mut line = Vec::new();
    loop {
        match read_line(&mut output, &mut line, max).await {
            Ok(Line::Complete) => match serde_json::from_slice::<Value>(&line) {
                Ok(message) => {
                    router.route(message);
                    router.settle().await;
                }
                Err(_) if line.iter().all(u8::is_ascii_whitespace) => {}
                Err(_) => tracing::warn!("ignoring a line from the server that is not JSON"),
            },
            Ok(Line::TooLong) => {
                tracing::warn!("ignoring a line from the server longer than {max} bytes")
            }
            Ok(Line::End) | Err(_) => break,
        }
    }
    router.fail_all();
}

enum Line {
    Complete,
    TooLong,
    End,
}

/// Reads one line into `line` (without its newline), holding at most `max`
/// bytes of it; the rest of a longer line is read and dropped.
async fn read_line(
    output: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let buffer = output.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if line.is_empty() && !too_long {
                Line::End
            } else if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
        let (taken, ended) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        let content = &buffer[..if ended { taken - 1 } else { taken }];
        if !too_long && line.len() + content.len() <= max {
            line.extend_from_slice(content);
        } else {
            too_long = true;
            line.clear();
        }
        output.consume(taken);
        if ended {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_skipped_and_the_next_one_read() {
        let input = format!("{}\n{{\"a\":1}}\n", "x".repeat(100));
        let mut reader = BufReader::with_capacity(8, input.as_bytes());
        let mut line = Vec::new();
        assert!(matches!(
            read_line(&mut reader, &mut line, 16).await.unwrap(),
            Line::TooLong
        ));
        assert!(matches!(
            read_line(&mut reader, &mut line, 16).await.unwrap(),
            Line::Complete
        ));
        assert_eq!(line, b"{\"a\":1}");
        assert!(matches!(
            read_line(&mut reader, &mut line, 16).await.unwrap(),
            Line::End
        ));
    }
}
