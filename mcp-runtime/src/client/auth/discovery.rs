//! Discovery: the protected resource metadata (RFC 9728) named by the
//! challenge or at its well-known paths, the resource checked against the
//! server, then the authorization server's metadata (RFC 8414, then
//! OpenID Connect discovery) with its `issuer` checked exactly.

use reqwest::Url;
use serde::Deserialize;

use super::challenge::Challenge;
use super::{AuthError, fetch};

/// The protected resource metadata, as far as the client uses it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ProtectedResource {
    /// The resource identifier: what `resource` carries (RFC 8707).
    pub(crate) resource: String,
    /// The authorization servers' issuer identifiers.
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    /// The scopes the resource knows.
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// The authorization server's metadata, as far as the client uses it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct AuthServer {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
}

impl AuthServer {
    /// Whether the server lists `scope` in `scopes_supported`.
    pub(crate) fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }

    /// The token endpoint authentication methods, with RFC 8414's default
    /// (`client_secret_basic`) when the server names none.
    pub(crate) fn auth_methods(&self) -> Vec<String> {
        self.token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".to_owned()])
    }
}

/// What discovery found.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    pub(crate) resource: ProtectedResource,
    pub(crate) server: AuthServer,
}

/// Where to look for the protected resource metadata, in the spec's order:
/// the challenge's `resource_metadata`, then the path-inserted well-known
/// URL, then the root one.
pub(crate) fn resource_metadata_urls(server_url: &Url, challenge: &Challenge) -> Vec<String> {
    let mut urls = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        urls.push(url.clone());
    }
    let path = server_url.path().trim_end_matches('/');
    let mut root = server_url.clone();
    root.set_query(None);
    root.set_fragment(None);
    if !path.is_empty() {
        root.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
        urls.push(root.to_string());
    }
    root.set_path("/.well-known/oauth-protected-resource");
    urls.push(root.to_string());
    urls.dedup();
    urls
}

/// Where to look for an authorization server's metadata, in the spec's
/// order: RFC 8414 path-inserted, OpenID Connect path-inserted, OpenID
/// Connect path-appended (for an issuer without a path: RFC 8414, then
/// OpenID Connect).
pub(crate) fn auth_server_metadata_urls(issuer: &Url) -> Vec<String> {
    let path = issuer.path().trim_end_matches('/');
    let mut base = issuer.clone();
    base.set_query(None);
    base.set_fragment(None);
    let at = |path: &str| {
        let mut url = base.clone();
        url.set_path(path);
        url.to_string()
    };
    if path.is_empty() {
        vec![
            at("/.well-known/oauth-authorization-server"),
            at("/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            at(&format!("/.well-known/oauth-authorization-server{path}")),
            at(&format!("/.well-known/openid-configuration{path}")),
            at(&format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// Whether the metadata's `resource` is the server the client talks to:
/// the same origin, and its path the server's or a parent of it.
pub(crate) fn resource_matches(resource: &str, server_url: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.origin() != server_url.origin() || resource.fragment().is_some() {
        return false;
    }
    let want = resource.path().trim_end_matches('/');
    let have = server_url.path().trim_end_matches('/');
    have == want || have.starts_with(&format!("{want}/"))
}

/// Runs discovery for `server_url` after `challenge`.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server_url: &Url,
    challenge: &Challenge,
    protocol_version: Option<&str>,
) -> Result<Discovered, AuthError> {
    let resource = protected_resource(http, server_url, challenge, protocol_version).await?;
    if !resource_matches(&resource.resource, server_url) {
        return Err(AuthError::ResourceMismatch {
            resource: resource.resource,
            server: server_url.to_string(),
        });
    }
    let issuer = resource
        .authorization_servers
        .first()
        .cloned()
        .ok_or_else(|| {
            AuthError::Discovery("the protected resource names no authorization server".into())
        })?;
    let server = auth_server(http, &issuer, protocol_version).await?;
    Ok(Discovered { resource, server })
}

async fn protected_resource(
    http: &reqwest::Client,
    server_url: &Url,
    challenge: &Challenge,
    protocol_version: Option<&str>,
) -> Result<ProtectedResource, AuthError> {
    let mut tried = Vec::new();
    for url in resource_metadata_urls(server_url, challenge) {
        let answer = fetch::get(http, &url, protocol_version).await?;
        if (200..300).contains(&answer.status) {
            return serde_json::from_value(answer.body).map_err(|e| {
                AuthError::Discovery(format!("the protected resource metadata at {url}: {e}"))
            });
        }
        tried.push(format!("{url} ({})", answer.status));
    }
    Err(AuthError::Discovery(format!(
        "no protected resource metadata: tried {}",
        tried.join(", ")
    )))
}

/// Fetches and checks the metadata of the authorization server `issuer`.
pub(crate) async fn auth_server(
    http: &reqwest::Client,
    issuer: &str,
    protocol_version: Option<&str>,
) -> Result<AuthServer, AuthError> {
    let parsed = Url::parse(issuer)
        .map_err(|e| AuthError::Discovery(format!("issuer {issuer:?} is not a URL: {e}")))?;
    let mut tried = Vec::new();
    for url in auth_server_metadata_urls(&parsed) {
        let answer = fetch::get(http, &url, protocol_version).await?;
        if !(200..300).contains(&answer.status) {
            tried.push(format!("{url} ({})", answer.status));
            continue;
        }
        let server: AuthServer = serde_json::from_value(answer.body).map_err(|e| {
            AuthError::Discovery(format!("the authorization server metadata at {url}: {e}"))
        })?;
        if server.issuer != issuer {
            return Err(AuthError::IssuerMismatch {
                expected: issuer.to_owned(),
                found: server.issuer,
            });
        }
        if let Some(methods) = &server.code_challenge_methods_supported
            && !methods.iter().any(|m| m == "S256")
        {
            return Err(AuthError::Discovery(format!(
                "the authorization server {issuer} does not support PKCE S256"
            )));
        }
        return Ok(server);
    }
    Err(AuthError::Discovery(format!(
        "no authorization server metadata for {issuer}: tried {}",
        tried.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn resource_metadata_order() {
        let server = url("http://localhost:3000/mcp");
        assert_eq!(
            resource_metadata_urls(&server, &Challenge::default()),
            [
                "http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                "http://localhost:3000/.well-known/oauth-protected-resource"
            ]
        );
        let challenge = Challenge {
            resource_metadata: Some("http://localhost:3000/custom.json".into()),
            ..Challenge::default()
        };
        assert_eq!(
            resource_metadata_urls(&server, &challenge)[0],
            "http://localhost:3000/custom.json"
        );
        assert_eq!(
            resource_metadata_urls(&url("http://h/"), &Challenge::default()),
            ["http://h/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn auth_server_metadata_order() {
        assert_eq!(
            auth_server_metadata_urls(&url("http://as.example/tenant1")),
            [
                "http://as.example/.well-known/oauth-authorization-server/tenant1",
                "http://as.example/.well-known/openid-configuration/tenant1",
                "http://as.example/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            auth_server_metadata_urls(&url("http://as.example")),
            [
                "http://as.example/.well-known/oauth-authorization-server",
                "http://as.example/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resource_must_be_the_server_or_a_parent() {
        let server = url("http://localhost:3000/mcp");
        assert!(resource_matches("http://localhost:3000/mcp", &server));
        assert!(resource_matches("http://localhost:3000/mcp/", &server));
        assert!(resource_matches("http://localhost:3000", &server));
        assert!(!resource_matches("https://evil.example.com/mcp", &server));
        assert!(!resource_matches("http://localhost:3001/mcp", &server));
        assert!(!resource_matches(
            "http://localhost:3000/mcp-other",
            &server
        ));
        assert!(!resource_matches(
            "http://localhost:3000/mcp/deeper",
            &server
        ));
        assert!(!resource_matches("not a url", &server));
    }
}
