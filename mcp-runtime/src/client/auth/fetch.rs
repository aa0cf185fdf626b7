//! Bounded HTTP for authorization: every answer read within a size limit
//! and a timeout, redirects followed only within one origin.

use std::time::Duration;

use serde_json::Value;

use super::AuthError;

/// The longest metadata, registration or token answer read.
pub(crate) const MAX_BODY_BYTES: usize = 256 * 1024;
/// The bound on one authorization-related HTTP exchange.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);

/// The HTTP client of authorization requests.
pub(crate) fn client(connect_timeout: Duration) -> Result<reqwest::Client, AuthError> {
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .timeout(TIMEOUT)
        .redirect(crate::client::redirect::same_origin())
        .build()
        .map_err(|e| AuthError::Internal(format!("cannot build the HTTP client: {e}")))
}

/// An answer: its status and its body as JSON (`Null` when not JSON).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Value,
}

impl Answer {
    /// The OAuth `error` code of a failed answer.
    pub(crate) fn error_code(&self) -> Option<&str> {
        self.body.get("error").and_then(Value::as_str)
    }
}

/// GETs `url` (with `MCP-Protocol-Version` when given) and reads its JSON.
pub(crate) async fn get(
    http: &reqwest::Client,
    url: &str,
    protocol_version: Option<&str>,
) -> Result<Answer, AuthError> {
    let mut request = http.get(url).header("accept", "application/json");
    if let Some(version) = protocol_version {
        request = request.header("mcp-protocol-version", version);
    }
    send(request, url).await
}

/// Sends a prepared request and reads its JSON answer, bounded.
pub(crate) async fn send(request: reqwest::RequestBuilder, url: &str) -> Result<Answer, AuthError> {
    let fetch = async {
        let mut response = request.send().await.map_err(|e| AuthError::Http {
            url: url.to_owned(),
            detail: e.without_url().to_string(),
        })?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| AuthError::Http {
            url: url.to_owned(),
            detail: e.without_url().to_string(),
        })? {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(AuthError::Http {
                    url: url.to_owned(),
                    detail: format!("the answer is longer than {MAX_BODY_BYTES} bytes"),
                });
            }
            body.extend_from_slice(&chunk);
        }
        let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Ok(Answer { status, body })
    };
    tokio::time::timeout(TIMEOUT, fetch)
        .await
        .map_err(|_| AuthError::Http {
            url: url.to_owned(),
            detail: format!("no answer within {TIMEOUT:?}"),
        })?
}
