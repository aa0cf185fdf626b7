//! Who is calling: the caller an authentication hook or a token verifier
//! names, which every request-state binding and 2025-era session is tied to.

/// The authenticated caller, as the application's authentication hook
/// established it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Caller {
    /// The authenticated subject (e.g. a token's `sub`); empty when unknown.
    pub subject: String,
    /// The OAuth client the token was issued to, when known.
    pub client_id: Option<String>,
    /// The scopes the caller's token grants (empty without one).
    pub scopes: Vec<String>,
}

impl Caller {
    /// A caller identified by `subject`.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            client_id: None,
            scopes: Vec::new(),
        }
    }

    /// Sets the client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the granted scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the caller's token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}
