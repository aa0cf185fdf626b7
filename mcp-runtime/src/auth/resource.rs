//! The protected resource: who the server is to an authorization server
//! (its canonical URI, RFC 8707), the metadata document that says so
//! (RFC 9728), and the `WWW-Authenticate` challenges that point to it
//! (RFC 6750).

use serde_json::{Value, json};

/// The well-known path prefix of protected-resource metadata (RFC 9728).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// A protected MCP server as OAuth sees it: its canonical resource URI
/// (the audience its tokens must name), the authorization servers that
/// issue them, and the scopes it knows.
///
/// ```
/// use mcp_runtime::auth::ProtectedResource;
///
/// let resource = ProtectedResource::new("https://mcp.example.com/mcp", "https://auth.example.com/")?
///     .scopes_supported(["deploy:read", "deploy:write"]);
/// assert_eq!(
///     resource.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// # Ok::<(), mcp_runtime::auth::AuthConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    resource: String,
    origin: String,
    path: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    resource_name: Option<String>,
    /// Broader scopes and the narrower ones each implies.
    implied: Vec<(String, Vec<String>)>,
}

/// A resource or authorization-server URI that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthConfigError(String);

impl std::fmt::Display for AuthConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AuthConfigError {}

/// Why a request is challenged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Challenge<'a> {
    /// No token came (401, with no error code: the client may not know
    /// yet that one is needed).
    NoToken,
    /// The token is invalid, expired, or not for this resource (401).
    InvalidToken,
    /// The token lacks scopes (403); every scope the operation needs.
    InsufficientScope(&'a [String]),
}

impl ProtectedResource {
    /// The resource at `resource` (its canonical URI: `http` or `https`,
    /// a host, no fragment, no query; a trailing slash is dropped unless
    /// it is the whole path), whose tokens `authorization_server` issues
    /// (its issuer URL, exactly as it writes it).
    pub fn new(resource: &str, authorization_server: &str) -> Result<Self, AuthConfigError> {
        let (origin, path) = canonical(resource)?;
        check_url(authorization_server, "authorization server")?;
        let resource = format!("{origin}{path}");
        Ok(Self {
            resource,
            origin,
            path,
            authorization_servers: vec![authorization_server.to_owned()],
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            implied: Vec::new(),
        })
    }

    /// Another authorization server whose tokens are accepted.
    pub fn authorization_server(mut self, issuer: &str) -> Result<Self, AuthConfigError> {
        check_url(issuer, "authorization server")?;
        self.authorization_servers.push(issuer.to_owned());
        Ok(self)
    }

    /// The scopes the metadata lists (`scopes_supported`); keep it to what
    /// clients should ask for (not `offline_access`).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes every request needs, named in the 401 challenge; a token
    /// without one of them gets 403 `insufficient_scope`.
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Declares that a token granted `broader` has every scope of
    /// `narrower` too (a scope hierarchy, such as `files` implying
    /// `files:read` and `files:write`). Implications chain.
    ///
    /// ```
    /// use mcp_runtime::auth::ProtectedResource;
    ///
    /// let resource = ProtectedResource::new("https://m.example.com/mcp", "https://a.example.com")?
    ///     .scope_implies("admin", ["files"])
    ///     .scope_implies("files", ["files:read", "files:write"]);
    /// assert_eq!(
    ///     resource.granted(["admin".to_owned()]),
    ///     ["admin", "files", "files:read", "files:write"]
    /// );
    /// # Ok::<(), mcp_runtime::auth::AuthConfigError>(())
    /// ```
    pub fn scope_implies<S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implied.push((
            broader.into(),
            narrower.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// Every scope a token granted `scopes` has: those, and every scope
    /// they imply ([`Self::scope_implies`]), each once, in that order.
    pub fn granted(&self, scopes: impl IntoIterator<Item = String>) -> Vec<String> {
        let mut granted: Vec<String> = Vec::new();
        for scope in scopes {
            if !granted.contains(&scope) {
                granted.push(scope);
            }
        }
        let mut next = 0;
        while next < granted.len() {
            let scope = granted[next].clone();
            for (broader, narrower) in &self.implied {
                if *broader == scope {
                    for implied in narrower {
                        if !granted.contains(implied) {
                            granted.push(implied.clone());
                        }
                    }
                }
            }
            next += 1;
        }
        granted
    }

    /// A name for people, in the metadata (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The canonical resource URI: the audience tokens must name.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The issuers whose tokens are accepted.
    pub fn authorization_servers(&self) -> &[String] {
        &self.authorization_servers
    }

    /// The scopes every request needs.
    pub fn required(&self) -> &[String] {
        &self.required_scopes
    }

    /// The URL of the metadata document, the one challenges point to: the
    /// well-known prefix inserted between the host and the path.
    pub fn metadata_url(&self) -> String {
        format!("{}{}", self.origin, self.metadata_path())
    }

    /// The path the metadata is served at for this resource.
    pub fn metadata_path(&self) -> String {
        match self.path.as_str() {
            "" | "/" => METADATA_PATH.to_owned(),
            path => format!("{METADATA_PATH}{path}"),
        }
    }

    /// The metadata document (RFC 9728), members without a value omitted.
    pub fn metadata(&self) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            document["scopes_supported"] = json!(self.scopes_supported);
        }
        if let Some(name) = &self.resource_name {
            document["resource_name"] = json!(name);
        }
        document
    }

    /// The `WWW-Authenticate` value for `challenge`: `Bearer` with the
    /// metadata URL, the scopes, and (for a token) the error code.
    pub fn challenge(&self, challenge: Challenge<'_>) -> String {
        let (error, scopes) = match challenge {
            Challenge::NoToken => (None, self.required_scopes.as_slice()),
            Challenge::InvalidToken => (Some("invalid_token"), self.required_scopes.as_slice()),
            Challenge::InsufficientScope(scopes) => (Some("insufficient_scope"), scopes),
        };
        bearer_challenge(error, scopes, Some(&self.metadata_url()))
    }

    /// Every scope an operation needing `scopes` needs: the ones every
    /// request needs, then those, each once.
    pub fn scopes_for<S: AsRef<str>>(&self, scopes: &[S]) -> Vec<String> {
        let mut all = self.required_scopes.clone();
        for scope in scopes {
            if !all.iter().any(|s| s == scope.as_ref()) {
                all.push(scope.as_ref().to_owned());
            }
        }
        all
    }
}

/// The `WWW-Authenticate` value of a 403 `insufficient_scope` for
/// `scopes`, pointing to `resource_metadata` when known.
pub fn scope_challenge(scopes: &[String], resource_metadata: Option<&str>) -> String {
    bearer_challenge(Some("insufficient_scope"), scopes, resource_metadata)
}

/// `Bearer` with the error code, the scopes and the metadata URL.
fn bearer_challenge(error: Option<&str>, scopes: &[String], metadata: Option<&str>) -> String {
    let mut params = Vec::new();
    if let Some(error) = error {
        params.push(format!("error=\"{error}\""));
    }
    if !scopes.is_empty() {
        params.push(format!("scope=\"{}\"", quoted(&scopes.join(" "))));
    }
    if let Some(metadata) = metadata {
        params.push(format!("resource_metadata=\"{}\"", quoted(metadata)));
    }
    if params.is_empty() {
        "Bearer".to_owned()
    } else {
        format!("Bearer {}", params.join(", "))
    }
}

/// `value` safe inside a quoted-string: quotes and backslashes escaped,
/// control characters dropped.
fn quoted(value: &str) -> String {
    value
        .chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

/// The origin (`scheme://host[:port]`, lowercase) and path of a canonical
/// resource URI.
fn canonical(uri: &str) -> Result<(String, String), AuthConfigError> {
    let bad = |why: &str| AuthConfigError(format!("resource URI {uri:?}: {why}"));
    let (scheme, rest) = uri
        .split_once("://")
        .ok_or_else(|| bad("not absolute (no scheme)"))?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(bad("the scheme must be http or https"));
    }
    if uri.contains('#') {
        return Err(bad("a fragment is not allowed"));
    }
    if uri.contains('?') {
        return Err(bad("a query is not allowed"));
    }
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') || authority.contains(char::is_whitespace) {
        return Err(bad("the host is missing or malformed"));
    }
    let path = match path.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed,
        Some(_) => "",
        None => path,
    };
    Ok((
        format!("{scheme}://{}", authority.to_ascii_lowercase()),
        path.to_owned(),
    ))
}

fn check_url(url: &str, what: &str) -> Result<(), AuthConfigError> {
    let lower = url.to_ascii_lowercase();
    if (lower.starts_with("https://") || lower.starts_with("http://")) && !url.contains('#') {
        Ok(())
    } else {
        Err(AuthConfigError(format!(
            "{what} {url:?}: an absolute http or https URL without a fragment is needed"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource() -> ProtectedResource {
        ProtectedResource::new("HTTP://127.0.0.1:8080/mcp/", "http://127.0.0.1:9000/")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_resource_uri_is_canonical() {
        let r = resource();
        assert_eq!(r.resource(), "http://127.0.0.1:8080/mcp");
        assert_eq!(
            r.metadata_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            r.metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        let root = ProtectedResource::new("https://mcp.example.com/", "https://a.example.com")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(root.resource(), "https://mcp.example.com");
        assert_eq!(root.metadata_path(), METADATA_PATH);
        for bad in [
            "mcp.example.com",
            "ftp://mcp.example.com",
            "https://mcp.example.com/#frag",
            "https://mcp.example.com/mcp?x=1",
            "https:///mcp",
            "https://user@host/mcp",
        ] {
            assert!(
                ProtectedResource::new(bad, "https://a.example.com").is_err(),
                "{bad}"
            );
        }
        assert!(ProtectedResource::new("https://m.example.com", "a.example.com").is_err());
    }

    #[test]
    fn the_metadata_names_the_resource_and_its_issuers() {
        let r = resource()
            .scopes_supported(["files:read"])
            .resource_name("Files");
        assert_eq!(
            r.metadata(),
            json!({
                "resource": "http://127.0.0.1:8080/mcp",
                "authorization_servers": ["http://127.0.0.1:9000/"],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["files:read"],
                "resource_name": "Files"
            })
        );
        assert!(resource().metadata().get("scopes_supported").is_none());
    }

    #[test]
    fn challenges_say_why_and_where_to_look() {
        let r = resource().required_scopes(["mcp:tools"]);
        let url = "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            r.challenge(Challenge::NoToken),
            format!(r#"Bearer scope="mcp:tools", resource_metadata="{url}""#)
        );
        assert_eq!(
            r.challenge(Challenge::InvalidToken),
            format!(
                r#"Bearer error="invalid_token", scope="mcp:tools", resource_metadata="{url}""#
            )
        );
        let needed = ["mcp:tools".to_owned(), "deploy:write".to_owned()];
        assert_eq!(
            r.challenge(Challenge::InsufficientScope(&needed)),
            format!(
                r#"Bearer error="insufficient_scope", scope="mcp:tools deploy:write", resource_metadata="{url}""#
            )
        );
        assert_eq!(quoted("a\"b\\c\nd"), "a\\\"b\\\\cd");
    }
}
