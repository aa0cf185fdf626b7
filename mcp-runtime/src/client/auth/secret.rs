//! [`Secret`]: a token or client secret whose `Debug` never shows it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A secret string (an access or refresh token, a client secret): its
/// `Debug` prints `Secret(..)`, and it has no `Display`, so it cannot reach
/// a log or an error message by accident. [`Secret::expose`] gives the
/// value to the code that must send it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for sending it where it belongs.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_redacted() {
        let secret = Secret::new("s3cr3t-token");
        assert_eq!(format!("{secret:?}"), "Secret(..)");
        assert!(!format!("{:?}", Some(&secret)).contains("s3cr3t"));
        assert_eq!(secret.expose(), "s3cr3t-token");
        assert_eq!(
            serde_json::to_string(&secret).ok().as_deref(),
            Some("\"s3cr3t-token\"")
        );
    }
}
