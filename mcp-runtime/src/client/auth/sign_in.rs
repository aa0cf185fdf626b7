//! The user's part of the authorization code flow: [`SignIn`] receives the
//! authorization URL and returns the redirect. [`HeadlessSignIn`] follows
//! the URL itself (tests, the conformance suite); [`LoopbackSignIn`] opens
//! the browser and listens on 127.0.0.1 for the redirect (desktop and CLI
//! apps).

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use reqwest::Url;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::{AuthError, fetch};

/// The authorization server's redirect back to the client.
#[derive(Clone, PartialEq, Eq)]
pub struct Redirect {
    /// `code`: the authorization code (redacted in `Debug`).
    pub code: String,
    /// `state`, as it came back.
    pub state: Option<String>,
    /// `iss` (RFC 9207), when the server sent it.
    pub iss: Option<String>,
}

impl fmt::Debug for Redirect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redirect")
            .field("code", &"..")
            .field("state", &self.state)
            .field("iss", &self.iss)
            .finish()
    }
}

impl Redirect {
    /// Reads a redirect URL's query: `code`, `state` and `iss`, or the
    /// server's `error` ([`AuthError::Denied`]).
    pub fn from_url(url: &str) -> Result<Self, AuthError> {
        let url = Url::parse(url)
            .map_err(|e| AuthError::SignIn(format!("the redirect is not a URL: {e}")))?;
        let mut code = None;
        let mut state = None;
        let mut iss = None;
        let mut error = None;
        let mut description = None;
        for (name, value) in url.query_pairs() {
            match name.as_ref() {
                "code" => code = Some(value.into_owned()),
                "state" => state = Some(value.into_owned()),
                "iss" => iss = Some(value.into_owned()),
                "error" => error = Some(value.into_owned()),
                "error_description" => description = Some(value.into_owned()),
                _ => {}
            }
        }
        if let Some(error) = error {
            return Err(AuthError::Denied {
                error,
                description: description.unwrap_or_default(),
            });
        }
        let code = code.ok_or_else(|| AuthError::SignIn("the redirect has no code".into()))?;
        Ok(Self { code, state, iss })
    }
}

/// Takes the user through the authorization URL and returns the redirect.
pub trait SignIn: Send + Sync + 'static {
    /// The redirect URI to register and to send with the authorization
    /// request.
    fn redirect_uri(&self) -> String;
    /// Takes the user to `url` and returns the redirect that comes back.
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<Redirect, AuthError>>;
}

/// Follows the authorization URL with a plain GET and reads the redirect
/// from the answer's `Location`, without a user: for authorization servers
/// that approve at once (tests, the conformance suite).
#[derive(Debug, Clone)]
pub struct HeadlessSignIn {
    redirect_uri: String,
}

impl HeadlessSignIn {
    /// Registers `http://localhost:3000/callback` as the redirect URI
    /// (nothing listens there: the redirect is read, not followed).
    pub fn new() -> Self {
        Self::with_redirect_uri("http://localhost:3000/callback")
    }

    /// Registers `redirect_uri` instead.
    pub fn with_redirect_uri(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
        }
    }
}

impl Default for HeadlessSignIn {
    fn default() -> Self {
        Self::new()
    }
}

impl SignIn for HeadlessSignIn {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: String) -> BoxFuture<'_, Result<Redirect, AuthError>> {
        Box::pin(async move {
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(fetch::TIMEOUT)
                .build()
                .map_err(|e| AuthError::Internal(format!("cannot build the HTTP client: {e}")))?;
            let response = http.get(&url).send().await.map_err(|e| AuthError::Http {
                url: "the authorization endpoint".into(),
                detail: e.without_url().to_string(),
            })?;
            let status = response.status();
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            match location {
                Some(location) if status.is_redirection() => {
                    let base = Url::parse(&url)
                        .map_err(|e| AuthError::SignIn(format!("bad authorization URL: {e}")))?;
                    let target = base.join(&location).map_err(|e| {
                        AuthError::SignIn(format!("the redirect is not a URL: {e}"))
                    })?;
                    Redirect::from_url(target.as_str())
                }
                _ => Err(AuthError::SignIn(format!(
                    "the authorization endpoint answered {status} without a redirect"
                ))),
            }
        })
    }
}

/// Opens the browser at the authorization URL and waits for the redirect
/// on a listener of its own at `http://127.0.0.1:PORT/callback`.
pub struct LoopbackSignIn {
    listener: std::net::TcpListener,
    port: u16,
    timeout: Duration,
    open: Box<dyn Fn(&str) + Send + Sync>,
}

impl fmt::Debug for LoopbackSignIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackSignIn")
            .field("port", &self.port)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackSignIn {
    /// Listens on a port the system picks; waits up to 5 minutes for the
    /// user.
    pub fn new() -> Result<Self, AuthError> {
        Self::on_port(0)
    }

    /// Listens on `port` (an authorization server that registered a fixed
    /// redirect URI needs the same port each time).
    pub fn on_port(port: u16) -> Result<Self, AuthError> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| AuthError::SignIn(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| AuthError::SignIn(format!("cannot listen: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthError::SignIn(format!("cannot listen: {e}")))?
            .port();
        Ok(Self {
            listener,
            port,
            timeout: Duration::from_secs(300),
            open: Box::new(open_browser),
        })
    }

    /// Waits at most `timeout` for the redirect.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Shows the authorization URL with `open` instead of starting the
    /// browser (to print it, or to drive a browser of one's own).
    pub fn open_with(mut self, open: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.open = Box::new(open);
        self
    }

    async fn wait(&self) -> Result<Redirect, AuthError> {
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| AuthError::SignIn(format!("cannot listen: {e}")))?;
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| AuthError::SignIn(format!("cannot accept: {e}")))?;
            let mut buffer = vec![0u8; 8192];
            let mut read = 0;
            while read < buffer.len() {
                let n = stream.read(&mut buffer[read..]).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                read += n;
                if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let head = String::from_utf8_lossy(&buffer[..read]);
            let target = head
                .lines()
                .next()
                .and_then(|line| line.split_whitespace().nth(1))
                .unwrap_or("/");
            if !target.starts_with("/callback") {
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            }
            let redirect = Redirect::from_url(&format!("http://127.0.0.1:{}{target}", self.port));
            let body: &[u8] = if redirect.is_ok() {
                b"Signed in. You can close this window."
            } else {
                b"Sign-in failed. You can close this window."
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(body).await;
            return redirect;
        }
    }
}

impl SignIn for LoopbackSignIn {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize(&self, url: String) -> BoxFuture<'_, Result<Redirect, AuthError>> {
        Box::pin(async move {
            (self.open)(&url);
            tokio::time::timeout(self.timeout, self.wait())
                .await
                .map_err(|_| AuthError::SignIn(format!("no redirect within {:?}", self.timeout)))?
        })
    }
}

/// Starts the system's browser at `url`; when none starts, prints the URL
/// to stderr for the user to open.
fn open_browser(url: &str) {
    let launched = if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else if cfg!(windows) {
        std::process::Command::new("cmd")
            .args(["/C", "start", ""])
            .arg(url)
            .spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    if launched.is_err() {
        eprintln!("Open this URL to sign in:\n{url}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_redirect() {
        let r = Redirect::from_url(
            "http://localhost:3000/callback?code=abc&state=xyz&iss=http%3A%2F%2Fas",
        )
        .unwrap();
        assert_eq!(
            (r.code.as_str(), r.state.as_deref(), r.iss.as_deref()),
            ("abc", Some("xyz"), Some("http://as"))
        );
        assert!(!format!("{r:?}").contains("abc"));
        assert!(matches!(
            Redirect::from_url("http://l/cb?error=access_denied"),
            Err(AuthError::Denied { .. })
        ));
        assert!(Redirect::from_url("http://l/cb?state=1").is_err());
    }

    #[tokio::test]
    async fn loopback_receives_the_redirect() {
        let sign_in = LoopbackSignIn::new()
            .unwrap()
            .timeout(Duration::from_secs(10))
            .open_with(|_| {});
        let uri = sign_in.redirect_uri();
        let browser = tokio::spawn(async move {
            let http = reqwest::Client::new();
            let _ = http
                .get(format!(
                    "{}/../favicon.ico",
                    uri.trim_end_matches("/callback")
                ))
                .send()
                .await;
            http.get(format!("{uri}?code=c1&state=s1"))
                .send()
                .await
                .map(|r| r.status().as_u16())
        });
        let redirect = sign_in
            .authorize("http://as/authorize".into())
            .await
            .unwrap();
        assert_eq!(redirect.code, "c1");
        assert_eq!(redirect.state.as_deref(), Some("s1"));
        assert_eq!(browser.await.unwrap().unwrap(), 200);
    }
}
