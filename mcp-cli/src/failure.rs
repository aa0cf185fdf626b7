//! [`Failure`]: why a command ended without a result (exit status 2).

use std::fmt;

/// A command that failed: bad usage, or a protocol or connection error. It
/// is printed as one line on stderr, and the command exits with status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    message: String,
}

impl Failure {
    /// A failure caused by the command line itself.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// A failure talking to `server`.
    pub(crate) fn server(server: &str, message: impl fmt::Display) -> Self {
        Self {
            message: format!("{server}: {message}"),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
