//! How a request's error is logged: once, every `-32603` at warning level
//! with the method, the handler it names and the cause.

use serde_json::Value;

use crate::logged::Wire;
use crate::schema::{McpError, RequestId};

/// The name of the tool or prompt, or the URI of the resource, that a
/// `tools/call`, `prompts/get` or `resources/read` request names.
pub(super) fn handler_named(method: &str, params: Option<&Value>) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    params?.get(key)?.as_str().map(str::to_owned)
}

/// Logs a request's error once: every `-32603` at warning level, naming
/// the method, the handler (tool or prompt name, resource URI) and the
/// cause; every other refusal at debug level.
pub(super) fn log_error(method: &str, id: &RequestId, handler: Option<&str>, error: &McpError) {
    match error {
        McpError::Internal { detail } => {
            tracing::warn!(
                method = %Wire(method),
                handler = %Wire(handler.unwrap_or("")),
                id = %Wire(&id.to_string()),
                cause = %Wire(detail),
                "answered -32603 Internal error"
            );
        }
        other => tracing::debug!(
            method = %Wire(method),
            id = %Wire(&id.to_string()),
            error = %Wire(&other.to_string()),
            "request refused"
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex, PoisonError};

    use tracing_subscriber::fmt::MakeWriter;

    use super::*;

    /// The log lines written while a test runs.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            kept.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Lines {
        type Writer = Self;

        fn make_writer(&'a self) -> Self {
            self.clone()
        }
    }

    #[test]
    fn the_logged_handler_is_the_tool_prompt_or_resource_the_request_names() {
        let params = serde_json::json!({"name": "page_oncall", "uri": "desk://rota"});
        let named = |method| handler_named(method, Some(&params));
        assert_eq!(named("tools/call").as_deref(), Some("page_oncall"));
        assert_eq!(named("prompts/get").as_deref(), Some("page_oncall"));
        assert_eq!(named("resources/read").as_deref(), Some("desk://rota"));
        assert_eq!(named("tools/list"), None);
        assert_eq!(handler_named("tools/call", None), None);
    }

    #[test]
    fn an_internal_error_is_logged_escaped_and_cut() {
        let lines = Lines::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(lines.clone())
            .with_ansi(false)
            .finish();
        let detail = format!(
            "boom\n2026-01-01 ERROR forged line\u{1b}[31m{}",
            "x".repeat(1 << 20)
        );
        tracing::subscriber::with_default(subscriber, || {
            log_error(
                "tools/call",
                &RequestId::Number(1),
                Some("page_oncall"),
                &McpError::internal(detail.clone()),
            );
        });
        let logged = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        assert_eq!(logged.lines().count(), 1, "one line: {logged:.400}");
        assert!(
            logged.contains(" WARN ") && logged.contains("answered -32603 Internal error"),
            "at warning level: {logged:.400}"
        );
        assert!(
            logged.contains(r#"method="tools/call" handler="page_oncall""#),
            "names the handler: {logged:.400}"
        );
        assert!(
            logged.contains(r#"cause="boom\n2026-01-01 ERROR forged line\u{1b}[31mxxx"#),
            "escaped: {logged:.400}"
        );
        assert!(
            logged.contains(&format!("… ({} bytes)", detail.len())),
            "cut, with its length: {logged:.400}"
        );
        assert!(logged.len() < 1024, "{} bytes logged", logged.len());
    }
}
