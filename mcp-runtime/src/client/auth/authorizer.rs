//! [`Authorizer`]: the client's side of OAuth for one server. It gives
//! each HTTP request its bearer token, refreshes before expiry, and on a
//! 401 or a 403 `insufficient_scope` discovers, registers and signs in,
//! one at a time (a Tokio mutex: concurrent requests wait for the one
//! refresh or sign-in, then use its token).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use reqwest::Url;
use tokio::sync::Mutex;

use super::challenge::Challenge;
use super::discovery::{self, Discovered};
use super::pkce::{self, Pkce};
use super::registration::{self, ClientIdentity, Kind};
use super::store::{Registration, StoredAuth, TokenStore, Tokens};
use super::token::{self, Method, SigningKey, TokenAnswer};
use super::{AuthError, Grant, OAuth, Secret, SignIn, fetch};
use crate::client::ClientError;

/// A token this close to its expiry (seconds) is refreshed first.
const REFRESH_MARGIN: u64 = 60;
/// The most step-ups in a row without a request getting through.
const MAX_STEP_UPS: usize = 2;

/// What the authorizer holds between requests.
#[derive(Default)]
struct State {
    loaded: bool,
    stored: StoredAuth,
    discovered: Option<Discovered>,
    /// The scopes of the last sign-in, for the union on a step-up.
    requested: Vec<String>,
}

enum How {
    Code(Arc<dyn SignIn>),
    Credentials(Option<SigningKey>),
}

/// The OAuth side of one HTTP connection.
pub(crate) struct Authorizer {
    how: How,
    identity: ClientIdentity,
    store: Arc<dyn TokenStore>,
    http: reqwest::Client,
    server_url: Url,
    state: Mutex<State>,
    step_ups: AtomicUsize,
}

impl Authorizer {
    /// The authorizer of `oauth` for the server at `server_url`.
    pub(crate) fn new(
        oauth: OAuth,
        server_url: &str,
        connect_timeout: Duration,
    ) -> Result<Self, ClientError> {
        let server_url = Url::parse(server_url).map_err(|e| {
            ClientError::Authorization(AuthError::Config(format!(
                "the server URL is not a URL: {e}"
            )))
        })?;
        let (how, redirect_uri) = match oauth.grant {
            Grant::AuthorizationCode(sign_in) => {
                let uri = sign_in.redirect_uri();
                (How::Code(sign_in), Some(uri))
            }
            Grant::ClientCredentials(key) => (How::Credentials(key), None),
        };
        Ok(Self {
            how,
            identity: ClientIdentity {
                client_name: oauth.client_name,
                client_id: oauth.client_id,
                client_secret: oauth.client_secret,
                client_metadata_url: oauth.client_metadata_url,
                redirect_uri,
                scopes: oauth.scopes,
            },
            store: oauth.store,
            http: fetch::client(connect_timeout).map_err(ClientError::Authorization)?,
            server_url,
            state: Mutex::new(State::default()),
            step_ups: AtomicUsize::new(0),
        })
    }

    /// Sends the request `build` makes for a token (`None`: not signed in
    /// yet); on a 401 signs in (or refreshes) and sends once more, on a
    /// 403 `insufficient_scope` steps up and sends once more.
    pub(crate) async fn send<F>(
        &self,
        build: F,
        version: Option<&str>,
    ) -> Result<reqwest::Response, ClientError>
    where
        F: Fn(Option<&Secret>) -> Result<reqwest::RequestBuilder, ClientError>,
    {
        let mut retried = false;
        loop {
            let token = self
                .bearer(version)
                .await
                .map_err(ClientError::Authorization)?;
            let response = build(token.as_ref())?
                .send()
                .await
                .map_err(|e| ClientError::Transport(e.without_url().to_string()))?;
            let status = response.status().as_u16();
            if status != 401 && status != 403 {
                if response.status().is_success() {
                    self.step_ups.store(0, Ordering::Relaxed);
                }
                return Ok(response);
            }
            let challenge = Challenge::parse(
                response
                    .headers()
                    .get_all("www-authenticate")
                    .iter()
                    .filter_map(|v| v.to_str().ok()),
            );
            if status == 401 {
                if retried {
                    return Err(ClientError::Authorization(AuthError::StillUnauthorized));
                }
                self.unauthorized(token.as_ref(), &challenge, version)
                    .await
                    .map_err(ClientError::Authorization)?;
            } else {
                if challenge.error.as_deref() != Some("insufficient_scope") {
                    return Ok(response);
                }
                if retried {
                    return Ok(response);
                }
                self.step_up(&challenge, version)
                    .await
                    .map_err(ClientError::Authorization)?;
            }
            retried = true;
        }
    }

    /// The token to send, refreshed first when it is about to expire.
    pub(crate) async fn bearer(&self, version: Option<&str>) -> Result<Option<Secret>, AuthError> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let Some(tokens) = state.stored.tokens.clone() else {
            return Ok(None);
        };
        let expiring = tokens
            .expires_at
            .is_some_and(|at| at <= token::now() + REFRESH_MARGIN);
        if !expiring {
            return Ok(Some(tokens.access_token));
        }
        if tokens.refresh_token.is_none() {
            // An expired token without a way to renew it: the server's 401
            // starts a new sign-in.
            return Ok(Some(tokens.access_token));
        }
        if state.discovered.is_none() {
            match discovery::discover(&self.http, &self.server_url, &Challenge::default(), version)
                .await
            {
                Ok(found) => state.discovered = Some(found),
                Err(e) => {
                    tracing::debug!("cannot refresh before expiry: {e}");
                    return Ok(Some(tokens.access_token));
                }
            }
        }
        match self.refresh(&mut state, &tokens).await {
            Ok(()) => Ok(state.stored.tokens.as_ref().map(|t| t.access_token.clone())),
            Err(e) => {
                tracing::info!("refreshing the token failed ({e}); signing in again");
                self.forget_after_refresh(&mut state, &e).await?;
                Ok(None)
            }
        }
    }

    /// A 401: refresh, or sign in anew, unless another request already
    /// replaced the token that was refused.
    async fn unauthorized(
        &self,
        used: Option<&Secret>,
        challenge: &Challenge,
        version: Option<&str>,
    ) -> Result<(), AuthError> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let current = state.stored.tokens.as_ref().map(|t| &t.access_token);
        if current.is_some() && current != used {
            return Ok(());
        }
        let found = discovery::discover(&self.http, &self.server_url, challenge, version).await?;
        state.discovered = Some(found.clone());
        if let Some(tokens) = state.stored.tokens.clone()
            && tokens.refresh_token.is_some()
            && tokens.issuer == found.server.issuer
            && tokens.resource == found.resource.resource
        {
            match self.refresh(&mut state, &tokens).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    tracing::info!("refreshing the token failed ({e}); signing in again");
                    self.forget_after_refresh(&mut state, &e).await?;
                }
            }
        }
        let scopes = self.select_scopes(&challenge.scopes, &found);
        self.sign_in(&mut state, scopes).await
    }

    /// A 403 `insufficient_scope`: sign in again asking for the union of
    /// the scopes asked before and those the challenge names.
    async fn step_up(&self, challenge: &Challenge, version: Option<&str>) -> Result<(), AuthError> {
        let mut state = self.state.lock().await;
        let mut scopes = state.requested.clone();
        for scope in &challenge.scopes {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        if self.step_ups.fetch_add(1, Ordering::Relaxed) >= MAX_STEP_UPS {
            return Err(AuthError::StepUpLimit { scopes });
        }
        self.load(&mut state).await?;
        let found = discovery::discover(&self.http, &self.server_url, challenge, version).await?;
        state.discovered = Some(found);
        self.sign_in(&mut state, scopes).await
    }

    /// Loads the store once. Tokens it holds for another resource (a store
    /// shared between servers) are left out: they are never sent here, and
    /// the first sign-in replaces them.
    async fn load(&self, state: &mut State) -> Result<(), AuthError> {
        if !state.loaded {
            state.stored = self.store.load().await?;
            if state
                .stored
                .tokens
                .as_ref()
                .is_some_and(|t| !discovery::resource_matches(&t.resource, &self.server_url))
            {
                state.stored.tokens = None;
            }
            state.loaded = true;
        }
        Ok(())
    }

    /// After a failed refresh: the tokens go (`invalid_grant` and the
    /// rest), and the registration too when the server forgot it
    /// (`invalid_client`).
    async fn forget_after_refresh(
        &self,
        state: &mut State,
        error: &AuthError,
    ) -> Result<(), AuthError> {
        if let AuthError::TokenRejected { error, .. } = error
            && error == "invalid_client"
            && let Some(tokens) = &state.stored.tokens
        {
            let issuer = tokens.issuer.clone();
            state.stored.forget_registration(&issuer);
        }
        state.stored.tokens = None;
        self.store.save(&state.stored).await
    }

    /// The scopes to ask for: the challenge's, else the resource's
    /// `scopes_supported`, else the configured ones; `offline_access`
    /// added for the authorization code grant when the server supports it.
    fn select_scopes(&self, challenged: &[String], found: &Discovered) -> Vec<String> {
        let mut scopes = if !challenged.is_empty() {
            challenged.to_vec()
        } else if let Some(supported) = found
            .resource
            .scopes_supported
            .as_ref()
            .filter(|s| !s.is_empty())
        {
            supported.clone()
        } else {
            self.identity.scopes.clone()
        };
        let offline = "offline_access";
        if matches!(self.how, How::Code(_))
            && found.server.supports_scope(offline)
            && !scopes.iter().any(|s| s == offline)
        {
            scopes.push(offline.to_owned());
        }
        scopes
    }

    /// The registration to use at the discovered server, and how it came.
    async fn registration(
        &self,
        state: &mut State,
        found: &Discovered,
    ) -> Result<(Registration, Kind), AuthError> {
        let issuer = &found.server.issuer;
        if let Some(kept) = state.stored.registration(issuer)
            && !kept.expired(token::now())
            && self.identity.client_id.is_none()
        {
            return Ok((kept.clone(), Kind::Dynamic));
        }
        if let Some(found) = registration::without_request(&self.identity, &found.server) {
            return Ok(found);
        }
        let grant_types: &[&str] = match self.how {
            How::Code(_) => &["authorization_code", "refresh_token"],
            How::Credentials(_) => &["client_credentials"],
        };
        let registration =
            registration::register(&self.http, &found.server, &self.identity, grant_types).await?;
        state.stored.set_registration(registration.clone());
        self.store.save(&state.stored).await?;
        Ok((registration, Kind::Dynamic))
    }

    /// Signs in at the discovered server for `scopes`; a registration the
    /// server no longer knows is made again, once.
    async fn sign_in(&self, state: &mut State, scopes: Vec<String>) -> Result<(), AuthError> {
        let found = state
            .discovered
            .clone()
            .ok_or_else(|| AuthError::Discovery("nothing discovered".into()))?;
        state.requested = scopes.clone();
        for attempt in 0..2 {
            let (registration, kind) = self.registration(state, &found).await?;
            let answer = match &self.how {
                How::Code(sign_in) => {
                    self.code(sign_in.as_ref(), &found, &registration, &scopes)
                        .await
                }
                How::Credentials(key) => {
                    self.credentials(key.as_ref(), &found, &registration, &scopes)
                        .await
                }
            };
            match answer {
                Ok(answer) => {
                    state.stored.tokens = Some(tokens_of(answer, None, &scopes, &found));
                    return self.store.save(&state.stored).await;
                }
                Err(AuthError::TokenRejected { ref error, .. })
                    if error == "invalid_client" && kind == Kind::Dynamic && attempt == 0 =>
                {
                    tracing::info!("the authorization server forgot the client; registering again");
                    state.stored.forget_registration(&found.server.issuer);
                }
                Err(e) => return Err(e),
            }
        }
        Err(AuthError::Registration(
            "registering again did not help".into(),
        ))
    }

    /// The authorization code grant with PKCE S256.
    async fn code(
        &self,
        sign_in: &dyn SignIn,
        found: &Discovered,
        registration: &Registration,
        scopes: &[String],
    ) -> Result<TokenAnswer, AuthError> {
        let server = &found.server;
        let endpoint = server.authorization_endpoint.as_deref().ok_or_else(|| {
            AuthError::Discovery(format!("{} has no authorization_endpoint", server.issuer))
        })?;
        let mut url = Url::parse(endpoint)
            .map_err(|e| AuthError::Discovery(format!("bad authorization_endpoint: {e}")))?;
        let pkce = Pkce::new()?;
        let state = pkce::random_token()?;
        let redirect_uri = self.identity.redirect_uri.clone().unwrap_or_default();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &registration.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &found.resource.resource);
            if !scopes.is_empty() {
                query.append_pair("scope", &scopes.join(" "));
            }
        }
        let redirect = sign_in.authorize(url.to_string()).await?;
        if redirect.state.as_deref() != Some(state.as_str()) {
            return Err(AuthError::SignIn(
                "the redirect's state is not the one sent".into(),
            ));
        }
        check_iss(redirect.iss.as_deref(), server)?;
        let method = Method::choose(registration, server, false);
        token::request(
            &self.http,
            server,
            registration,
            method,
            None,
            vec![
                ("grant_type", "authorization_code".into()),
                ("code", redirect.code),
                ("redirect_uri", redirect_uri),
                ("code_verifier", pkce.verifier),
                ("resource", found.resource.resource.clone()),
            ],
        )
        .await
    }

    /// The client credentials grant.
    async fn credentials(
        &self,
        key: Option<&SigningKey>,
        found: &Discovered,
        registration: &Registration,
        scopes: &[String],
    ) -> Result<TokenAnswer, AuthError> {
        let mut params = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("resource", found.resource.resource.clone()),
        ];
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        let method = Method::choose(registration, &found.server, key.is_some());
        token::request(&self.http, &found.server, registration, method, key, params).await
    }

    /// Refreshes `tokens`, with `resource`, at the discovered server.
    async fn refresh(&self, state: &mut State, tokens: &Tokens) -> Result<(), AuthError> {
        let found = state
            .discovered
            .clone()
            .ok_or_else(|| AuthError::Discovery("nothing discovered".into()))?;
        let refresh = tokens
            .refresh_token
            .clone()
            .ok_or_else(|| AuthError::Internal("no refresh token".into()))?;
        let (registration, _) = self.registration(state, &found).await?;
        let key = match &self.how {
            How::Credentials(key) => key.as_ref(),
            How::Code(_) => None,
        };
        let method = Method::choose(&registration, &found.server, key.is_some());
        let answer = token::request(
            &self.http,
            &found.server,
            &registration,
            method,
            key,
            vec![
                ("grant_type", "refresh_token".into()),
                ("refresh_token", refresh.expose().to_owned()),
                ("resource", tokens.resource.clone()),
            ],
        )
        .await?;
        state.stored.tokens = Some(tokens_of(answer, Some(refresh), &tokens.scopes, &found));
        self.store.save(&state.stored).await
    }
}

/// RFC 9207: `iss` must be the issuer, exactly, when the server advertises
/// it (and then it must be there) or when it came anyway.
fn check_iss(iss: Option<&str>, server: &discovery::AuthServer) -> Result<(), AuthError> {
    match iss {
        Some(iss) if iss != server.issuer => Err(AuthError::IssuerMismatch {
            expected: server.issuer.clone(),
            found: iss.to_owned(),
        }),
        None if server.authorization_response_iss_parameter_supported => {
            Err(AuthError::IssuerMismatch {
                expected: server.issuer.clone(),
                found: String::new(),
            })
        }
        _ => Ok(()),
    }
}

/// The tokens of a token answer; a refresh that returns no new refresh
/// token keeps the old one.
fn tokens_of(
    answer: TokenAnswer,
    previous_refresh: Option<Secret>,
    scopes: &[String],
    found: &Discovered,
) -> Tokens {
    Tokens {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token.or(previous_refresh),
        expires_at: answer.expires_in.map(|s| token::now().saturating_add(s)),
        scopes: answer
            .scope
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_else(|| scopes.to_vec()),
        resource: found.resource.resource.clone(),
        issuer: found.server.issuer.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: bool) -> discovery::AuthServer {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://as",
            "token_endpoint": "http://as/token",
            "authorization_response_iss_parameter_supported": iss_supported,
        }))
        .unwrap()
    }

    #[test]
    fn iss_is_compared_exactly() {
        assert!(check_iss(Some("http://as"), &server(true)).is_ok());
        assert!(check_iss(None, &server(true)).is_err());
        assert!(check_iss(Some("http://as/"), &server(true)).is_err());
        assert!(check_iss(None, &server(false)).is_ok());
        assert!(check_iss(Some("https://evil.example.com"), &server(false)).is_err());
    }
}
