//! [`ClientError`]: everything a client request can fail with.

use std::fmt;
use std::time::Duration;

use crate::schema::ErrorObject;

/// Why a client request failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The request or its response could not travel: connection refused,
    /// the server process exited, an HTTP status without a JSON-RPC body.
    Transport(String),
    /// The server answered with a JSON-RPC error object.
    Protocol(ErrorObject),
    /// Signing in to the server failed (see [`super::auth`]); the error
    /// carries no token or secret.
    #[cfg(feature = "auth")]
    Authorization(super::auth::AuthError),
    /// The server answered an HTTP request with a failure status and no
    /// JSON-RPC response (the start of the body is kept).
    HttpStatus {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The server no longer knows the 2025-era session (HTTP 404); the
    /// client opens a new one and sends the request again, so a caller
    /// sees this only if that fails too.
    SessionExpired,
    /// The server speaks no protocol version this client speaks, or not
    /// the one the client was pinned to.
    Unsupported(String),
    /// The server still asked for input after `max_rounds` fulfilled rounds.
    RoundsExceeded {
        /// The bound that was reached.
        max_rounds: usize,
    },
    /// The whole exchange (every round, every handler) took longer than
    /// the configured total time.
    Timeout(Duration),
    /// The result carried a `resultType` this client does not know; the
    /// specification says to treat it as invalid.
    UnknownResultType(String),
    /// The server asked for an input kind no handler was registered for
    /// (so the client never declared the capability).
    MissingHandler {
        /// The server's key of the input request.
        key: String,
        /// The kind asked for: `elicitation/create (form)`,
        /// `elicitation/create (url)`, `sampling/createMessage`, `roots/list`.
        kind: String,
    },
    /// The response was not the JSON-RPC message or result shape expected.
    MalformedResponse(String),
    /// A request parameter could not be encoded as JSON.
    Encode(String),
    /// The typed arguments of a call did not serialise to a JSON object
    /// (for a prompt, an object of strings); nothing was sent.
    InvalidArguments(String),
    /// The task the call became failed: it carries the JSON-RPC error the
    /// `tools/call` would have returned.
    TaskFailed {
        /// The task.
        task_id: String,
        /// The task's `error`.
        error: ErrorObject,
    },
    /// The task the call became was cancelled (by this client or another
    /// holder of its id) before it finished.
    TaskCancelled {
        /// The task.
        task_id: String,
        /// The server's `statusMessage`, when it gave one.
        message: Option<String>,
    },
    /// A task's `status` is none of the five the extension defines.
    UnknownTaskStatus {
        /// The task.
        task_id: String,
        /// The request that returned it (`tools/call`, `tasks/get`).
        method: String,
        /// The status as it came.
        status: String,
    },
    /// A task request's answer was not what the extension defines: a
    /// missing field, another task's id, a finished task without its
    /// result or error.
    MalformedTask {
        /// The task (as far as it is known).
        task_id: String,
        /// The request that returned the answer.
        method: String,
        /// What was wrong.
        detail: String,
    },
    /// A request about a task (`tasks/get`, `tasks/update`, `tasks/cancel`)
    /// failed; `error` says how (a [`ClientError::Protocol`] error for
    /// `-32602 Unknown task`, for example).
    TaskRequest {
        /// The task.
        task_id: String,
        /// The request that failed.
        method: String,
        /// Why it failed.
        error: Box<ClientError>,
    },
}

impl ClientError {
    /// The error with the server and the request named, where its message
    /// does not say them already.
    pub(super) fn about(self, server: &str, method: &str) -> Self {
        match self {
            Self::Transport(detail) => Self::Transport(format!("{server}: {method}: {detail}")),
            Self::MalformedResponse(detail) => {
                Self::MalformedResponse(format!("{server}: {method}: {detail}"))
            }
            other => other,
        }
    }
}

/// The most characters of a server-chosen text an error message shows.
const SHOWN_CHARS: usize = 300;

/// A text the server chose, as an error message shows it: at most
/// [`SHOWN_CHARS`] characters, then "…", with control characters escaped
/// (a newline in it cannot forge a line of the log the error is written to).
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shown, c) in self.0.chars().enumerate() {
            if shown == SHOWN_CHARS {
                return f.write_str("…");
            }
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transport(detail) => write!(f, "transport error: {detail}"),
            #[cfg(feature = "auth")]
            Self::Authorization(error) => write!(f, "authorization failed: {error}"),
            Self::Protocol(error) => {
                write!(f, "server error {}: {}", error.code, Shown(&error.message))
            }
            Self::HttpStatus { status, body } => {
                write!(
                    f,
                    "HTTP {status} without a JSON-RPC response: {}",
                    Shown(body)
                )
            }
            Self::SessionExpired => write!(f, "the server no longer knows the session"),
            Self::Unsupported(detail) => write!(f, "unsupported server: {detail}"),
            Self::RoundsExceeded { max_rounds } => write!(
                f,
                "the server still asked for input after {max_rounds} rounds"
            ),
            Self::Timeout(limit) => write!(f, "the request did not complete within {limit:?}"),
            Self::UnknownResultType(kind) => write!(f, "unknown resultType \"{}\"", Shown(kind)),
            Self::MissingHandler { key, kind } => write!(
                f,
                "the server asked for {kind} (key \"{}\") but no handler is registered for it",
                Shown(key)
            ),
            Self::MalformedResponse(detail) => write!(f, "malformed response: {detail}"),
            Self::Encode(detail) => write!(f, "cannot encode the request: {detail}"),
            Self::InvalidArguments(detail) => write!(f, "invalid arguments: {detail}"),
            Self::TaskFailed { task_id, error } => write!(
                f,
                "task {} failed with error {}: {}",
                Shown(task_id),
                error.code,
                Shown(&error.message)
            ),
            Self::TaskCancelled { task_id, message } => match message {
                Some(message) => write!(
                    f,
                    "task {} was cancelled: {}",
                    Shown(task_id),
                    Shown(message)
                ),
                None => write!(f, "task {} was cancelled", Shown(task_id)),
            },
            Self::UnknownTaskStatus {
                task_id,
                method,
                status,
            } => write!(
                f,
                "{method} gave task {} an unknown status \"{}\"",
                Shown(task_id),
                Shown(status)
            ),
            Self::MalformedTask {
                task_id,
                method,
                detail,
            } => write!(
                f,
                "malformed {method} answer for task {}: {detail}",
                Shown(task_id)
            ),
            Self::TaskRequest {
                task_id,
                method,
                error,
            } => write!(f, "{method} for task {} failed: {error}", Shown(task_id)),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::TaskRequest { error, .. } => Some(error.as_ref()),
            #[cfg(feature = "auth")]
            Self::Authorization(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_chosen_text_is_cut_and_escaped() {
        let error = ClientError::Protocol(ErrorObject {
            code: -32000,
            message: format!("bad\nFORGED LINE{}", "x".repeat(10_000)),
            data: None,
        });
        let shown = error.to_string();
        assert!(
            shown.starts_with("server error -32000: bad\\nFORGED LINE"),
            "{shown}"
        );
        assert!(!shown.contains('\n'));
        assert!(
            shown.ends_with('…') && shown.chars().count() < 400,
            "{shown}"
        );
        let short = ClientError::Protocol(ErrorObject {
            code: -32602,
            message: "The ledger is for signed-in auditors only.".into(),
            data: None,
        });
        assert_eq!(
            short.to_string(),
            "server error -32602: The ledger is for signed-in auditors only."
        );
    }
}
