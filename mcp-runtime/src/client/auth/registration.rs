//! Client registration, in the spec's order: pre-registered credentials,
//! then a Client ID Metadata Document URL when the server supports them,
//! then dynamic client registration (RFC 7591).

use serde::Deserialize;

use super::discovery::AuthServer;
use super::store::Registration;
use super::{AuthError, Secret, fetch};

/// What the client knows about itself before registering.
#[derive(Debug, Clone)]
pub(crate) struct ClientIdentity {
    pub(crate) client_name: String,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<Secret>,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) redirect_uri: Option<String>,
    pub(crate) scopes: Vec<String>,
}

/// How the client came to its registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    PreRegistered,
    MetadataDocument,
    Dynamic,
}

/// The registration to use at `server` when none is kept.
pub(crate) fn without_request(
    identity: &ClientIdentity,
    server: &AuthServer,
) -> Option<(Registration, Kind)> {
    if let Some(id) = &identity.client_id {
        let mut registration = Registration::new(&server.issuer, id);
        registration.client_secret = identity.client_secret.clone();
        registration.redirect_uri = identity.redirect_uri.clone();
        return Some((registration, Kind::PreRegistered));
    }
    if let Some(url) = &identity.client_metadata_url
        && server.client_id_metadata_document_supported
    {
        let mut registration = Registration::new(&server.issuer, url);
        registration.token_endpoint_auth_method = Some("none".into());
        registration.redirect_uri = identity.redirect_uri.clone();
        return Some((registration, Kind::MetadataDocument));
    }
    None
}

#[derive(Deserialize)]
struct RegistrationAnswer {
    client_id: String,
    #[serde(default)]
    client_secret: Option<Secret>,
    #[serde(default)]
    client_secret_expires_at: Option<u64>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// Registers at `server` by RFC 7591.
pub(crate) async fn register(
    http: &reqwest::Client,
    server: &AuthServer,
    identity: &ClientIdentity,
    grant_types: &[&str],
) -> Result<Registration, AuthError> {
    let endpoint = server.registration_endpoint.as_deref().ok_or_else(|| {
        AuthError::Registration(format!(
            "{} offers no dynamic registration, and no client id was configured",
            server.issuer
        ))
    })?;
    let supported = server.auth_methods();
    let method = if supported.iter().any(|m| m == "none") {
        "none"
    } else if supported.iter().any(|m| m == "client_secret_basic") {
        "client_secret_basic"
    } else {
        "client_secret_post"
    };
    let mut body = serde_json::json!({
        "client_name": identity.client_name,
        "grant_types": grant_types,
        "token_endpoint_auth_method": method,
    });
    if let Some(uri) = &identity.redirect_uri {
        body["redirect_uris"] = serde_json::json!([uri]);
        body["response_types"] = serde_json::json!(["code"]);
        body["application_type"] = serde_json::json!(application_type(uri));
    }
    if !identity.scopes.is_empty() {
        body["scope"] = serde_json::json!(identity.scopes.join(" "));
    }
    let answer = fetch::send(http.post(endpoint).json(&body), endpoint).await?;
    if !(200..300).contains(&answer.status) {
        return Err(AuthError::Registration(format!(
            "{endpoint} answered {} ({})",
            answer.status,
            answer.error_code().unwrap_or("no error code")
        )));
    }
    let answer: RegistrationAnswer = serde_json::from_value(answer.body)
        .map_err(|e| AuthError::Registration(format!("{endpoint}: malformed answer: {e}")))?;
    let mut registration = Registration::new(&server.issuer, answer.client_id);
    registration.client_secret = answer.client_secret;
    registration.client_secret_expires_at = answer.client_secret_expires_at;
    registration.token_endpoint_auth_method = answer.token_endpoint_auth_method;
    registration.redirect_uri = identity.redirect_uri.clone();
    Ok(registration)
}

/// `native` for a redirect to this machine (RFC 8252), else `web`.
fn application_type(redirect_uri: &str) -> &'static str {
    let host = reqwest::Url::parse(redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    if matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]") {
        "native"
    } else {
        "web"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(cimd: bool) -> AuthServer {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://as",
            "token_endpoint": "http://as/token",
            "client_id_metadata_document_supported": cimd,
        }))
        .unwrap()
    }

    fn identity() -> ClientIdentity {
        ClientIdentity {
            client_name: "t".into(),
            client_id: None,
            client_secret: None,
            client_metadata_url: Some("https://app.example/client.json".into()),
            redirect_uri: Some("http://127.0.0.1:1/callback".into()),
            scopes: vec![],
        }
    }

    #[test]
    fn order_is_pre_registered_then_metadata_document_then_dynamic() {
        let mut id = identity();
        assert_eq!(
            without_request(&id, &server(true)).map(|r| r.1),
            Some(Kind::MetadataDocument)
        );
        assert!(without_request(&id, &server(false)).is_none());
        id.client_id = Some("pre".into());
        let (reg, kind) = without_request(&id, &server(true)).unwrap();
        assert_eq!((reg.client_id.as_str(), kind), ("pre", Kind::PreRegistered));
    }

    #[test]
    fn application_type_follows_the_redirect() {
        assert_eq!(application_type("http://localhost:3000/callback"), "native");
        assert_eq!(application_type("https://app.example/cb"), "web");
    }
}
